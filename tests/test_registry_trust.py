"""Trust on a joined Ray cluster: the shipped bots arrive in the job's working directory, and
the driver's decision (which shipped bots it runs in-process) travels with the job."""

import shutil

from mallows.agents.registry import SHIPPED, load_bot, project_bots_dir, trusted_shipped


def test_the_driver_trusts_the_shipped_bots_it_finds_in_the_project(monkeypatch):
    monkeypatch.delenv("MALLOWS_BOTS_DIR", raising=False)
    found = {p.stem for p in project_bots_dir().glob("*.py")} & SHIPPED
    assert set(trusted_shipped()) == found and "random" in found


def test_a_user_bot_shadowing_a_shipped_name_is_not_trusted(tmp_path, monkeypatch):
    (tmp_path / "random.py").write_text(
        "class Bot:\n    def act(self, o):\n        return o['legal_actions'][0]\n"
    )
    monkeypatch.setenv("MALLOWS_BOTS_DIR", str(tmp_path))
    assert "random" not in trusted_shipped()
    assert "greedy" in trusted_shipped()


def test_a_worker_runs_shipped_copies_in_process_only_with_the_drivers_word(tmp_path, monkeypatch):
    staged = tmp_path / "bots"  # what a job's working directory holds on a cluster worker
    shutil.copytree(project_bots_dir(), staged)
    monkeypatch.setenv("MALLOWS_BOTS_DIR", str(staged))
    monkeypatch.delenv("MALLOWS_TRUSTED_SHIPPED", raising=False)
    assert load_bot("greedy").isolated  # a copy elsewhere is not trusted by itself
    monkeypatch.setenv("MALLOWS_TRUSTED_SHIPPED", "greedy,random,not_a_shipped_bot")
    spec = load_bot("greedy")
    assert spec.trusted and not spec.isolated
    assert spec.source == str(staged.resolve() / "greedy.py")
    assert load_bot("heuristic").isolated  # not named by the driver
