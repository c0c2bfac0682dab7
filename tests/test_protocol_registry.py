"""The registry: names, paths and entry points resolve to the right kind of bot, trust decides
isolation, and every unknown or broken bot gives an error naming the bot, where the registry
looked and what failed. Entry points are tested through a real distribution installed by pip
into a temporary virtual environment."""

from __future__ import annotations

import json
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mallows.agents.protocol import InProcessBot
from mallows.errors import BotError
from mallows.agents.process import SubprocessBot
from mallows.agents.registry import SHIPPED, list_bots, load_bot, parse_name, project_bots_dir

BOTS = Path(__file__).parent / "misbehaving_bots"
PROJECT_BOTS = project_bots_dir()


def test_parameters_follow_the_name():
    assert parse_name("ismcts:budget=0.5,seed=3") == ("ismcts", {"budget": "0.5", "seed": "3"})
    assert parse_name("random") == ("random", {})
    with pytest.raises(BotError, match="is not key=value"):
        parse_name("random:fast")


def test_a_shipped_bot_runs_in_process_and_gets_its_parameters():
    spec = load_bot("random:call=0.5")
    assert spec.name == "random:call=0.5"
    assert (spec.kind, spec.isolated, spec.trusted) == ("python", False, True)
    assert spec.version == "1.0" and "take4" in spec.games
    handle = spec.handle()
    assert isinstance(handle, InProcessBot) and handle.bot.call == 0.5
    assert "random" in SHIPPED


def test_shipped_bots_do_not_shadow_the_standard_library():
    import random as stdlib_random

    load_bot("random")
    assert sys.modules["random"] is stdlib_random
    assert str(PROJECT_BOTS) not in sys.path


def test_a_user_bot_is_isolated_by_default_and_can_be_forced_in_process(tmp_path, monkeypatch):
    path = tmp_path / "mine.py"
    path.write_text((BOTS / "raiser.py").read_text())
    spec = load_bot(str(path))
    assert (spec.kind, spec.isolated, spec.trusted) == ("python", True, False)
    assert spec.version == "1.0" and spec.bot_name == "raiser"  # read from source, not run
    assert "mallows_bots.mine" not in sys.modules
    assert isinstance(spec.handle(), SubprocessBot)
    assert isinstance(load_bot(str(path), isolate=False).handle(), InProcessBot)
    monkeypatch.setenv("MALLOWS_ISOLATE", "1")
    assert load_bot("random").isolated
    monkeypatch.setenv("MALLOWS_ISOLATE", "0")
    assert not load_bot(str(path)).isolated


def test_a_copy_of_a_shipped_bot_elsewhere_is_not_trusted(tmp_path, monkeypatch):
    (tmp_path / "random.py").write_text((PROJECT_BOTS / "random.py").read_text())
    monkeypatch.setenv("MALLOWS_BOTS_DIR", str(tmp_path))
    spec = load_bot("random")
    assert spec.source == str(tmp_path / "random.py")
    assert not spec.trusted and spec.isolated


def test_a_manifest_folder_is_a_subprocess_bot():
    spec = load_bot("example_node:depth=2")
    assert (spec.kind, spec.isolated, spec.trusted) == ("subprocess", True, False)
    assert spec.games == ("arschmallows", "take4") and spec.version == "1.0"
    assert Path(spec.command[0]).name == "node" and spec.command[1:] == ["bot.js"]
    assert spec.params == {"depth": "2"}
    python = load_bot("example_python")
    assert python.command[0] == sys.executable  # "python" means the platform's interpreter
    assert load_bot(str(PROJECT_BOTS / "example_node" / "bot.toml")).kind == "subprocess"


def test_an_unknown_bot_says_where_it_looked():
    with pytest.raises(BotError) as err:
        load_bot("no_such_bot:x=1")
    text = str(err.value)
    assert "unknown bot 'no_such_bot:x=1'" in text
    assert f"{PROJECT_BOTS}/no_such_bot.py" in text and "mallows.bots" in text
    with pytest.raises(BotError, match="there is no file or folder"):
        load_bot("./nowhere/bot.py")


@pytest.mark.parametrize(
    "target, fragments",
    [
        ("syntax_error.py", ["does not parse", "SyntaxError at line 5"]),
        ("no_bot_class.py", ["defines no class Bot"]),
        ("protocol3_manifest", ["protocol = 3", "speaks protocols 1, 2"]),
        ("bad_manifest", ["bot.toml needs command"]),
        ("missing_command", ["'mallows-no-such-program'", "not on PATH"]),
    ],
)
def test_a_broken_bot_says_what_failed(target, fragments):
    with pytest.raises(BotError) as err:
        load_bot(str(BOTS / target))
    text = str(err.value)
    assert str(BOTS / target) in text
    for fragment in fragments:
        assert fragment in text, text


def test_a_broken_in_process_bot_says_what_failed():
    with pytest.raises(BotError, match="failed to load: ModuleNotFoundError"):
        load_bot(str(BOTS / "broken_import.py"), isolate=False)
    with pytest.raises(BotError, match="could not be constructed.*ValueError"):
        load_bot("random:call=often").handle()


def test_describe_asks_an_isolated_bot_by_handshake():
    spec = load_bot(str(BOTS / "raiser.py"))
    assert spec.describe()["name"] == "raiser"
    with pytest.raises(BotError, match="failed its handshake.*speaks protocol 3"):
        load_bot(str(BOTS / "protocol3")).describe()


def test_list_shows_every_bot_in_bots_dir(tmp_path, monkeypatch):
    (tmp_path / "mine.py").write_text((BOTS / "raiser.py").read_text())
    (tmp_path / "broken.py").write_text((BOTS / "syntax_error.py").read_text())
    monkeypatch.setenv("MALLOWS_BOTS_DIR", str(tmp_path))
    rows = {item.name: item for item in list_bots()}
    assert rows["mine"].spec.kind_label == "python, isolated"
    assert "does not parse" in rows["broken"].error
    assert rows["random"].spec.trusted and rows["example_node"].spec.kind == "subprocess"


# -- entry points, through a real installed distribution -------------------------------------

BACKEND = '''
"""A minimal PEP 517 backend, so that the test needs neither network nor wheel."""
import base64, hashlib, os, zipfile

NAME, VERSION = "mallows_epbot", "0.3"
DIST = f"{NAME}-{VERSION}.dist-info"
FILES = {
    "mallows_epbot/__init__.py": open("mallows_epbot/__init__.py").read(),
    f"{DIST}/METADATA": f"Metadata-Version: 2.1\\nName: mallows-epbot\\nVersion: {VERSION}\\n",
    f"{DIST}/WHEEL": "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    f"{DIST}/entry_points.txt": "[mallows.bots]\\nepbot = mallows_epbot:Bot\\n",
}

def _digest(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        record = []
        for path, text in FILES.items():
            data = text.encode()
            z.writestr(path, data)
            record.append(f"{path},sha256={_digest(data)},{len(data)}")
        record.append(f"{DIST}/RECORD,,")
        z.writestr(f"{DIST}/RECORD", "\\n".join(record) + "\\n")
    return name

def get_requires_for_build_wheel(config_settings=None):
    return []
'''

EP_BOT = '''
"""epbot: plays the first legal action. Installed as an entry point in group mallows.bots."""


class Bot:
    name = "epbot"
    version = "0.3"
    games = ("take4",)

    def act(self, observation):
        return observation["legal_actions"][0]
'''


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    root = tmp_path_factory.mktemp("ep")
    pkg = root / "pkg"
    (pkg / "mallows_epbot").mkdir(parents=True)
    (pkg / "mallows_epbot" / "__init__.py").write_text(EP_BOT)
    (pkg / "backend.py").write_text(BACKEND)
    (pkg / "pyproject.toml").write_text(
        textwrap.dedent("""
        [build-system]
        requires = []
        build-backend = "backend"
        backend-path = ["."]
        """)
    )
    env = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    # The new environment sees this one's packages (mallows, pip), whether this one is the
    # system's or itself a venv: a .pth line adds each of our site directories.
    venv_site = subprocess.run(
        [str(python), "-c", "import site; print(site.getsitepackages()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(venv_site, "_parent_env.pth").write_text(
        "".join(f"import site; site.addsitedir({d!r})\n" for d in site.getsitepackages())
    )
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            str(pkg),
        ],
        check=True,
    )
    return python


def test_an_entry_point_of_an_installed_distribution_resolves_and_plays(venv):
    code = textwrap.dedent("""
        import json
        from mallows.agents.registry import load_bot
        from mallows.runner.match import play_match
        from mallows.games import get_game
        spec = load_bot("epbot")
        out = {"kind": spec.kind_label, "version": spec.version, "source": spec.source,
               "hello": spec.describe()}
        inproc = load_bot("epbot", isolate=False)
        out["inproc"] = [inproc.kind_label, list(inproc.games)]
        record = play_match("take4", get_game("take4").make_options(None, None), 5,
                            [spec.handle(), load_bot("random").handle()])
        out["forfeits"] = record["result"]["forfeits"]
        print(json.dumps(out))
        """)
    run = subprocess.run([str(venv), "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["kind"] == "python, isolated"
    assert out["version"] == "0.3"
    assert out["source"] == "entry point epbot = mallows_epbot:Bot of mallows-epbot 0.3"
    assert out["hello"]["name"] == "epbot" and out["hello"]["games"] == ["take4"]
    assert out["inproc"] == ["python, in-process", ["take4"]]
    assert out["forfeits"] == [None, None]
    # and outside the venv it does not exist
    with pytest.raises(BotError, match="unknown bot 'epbot'"):
        load_bot("epbot")


def test_bots_list_and_check_see_the_entry_point(venv):
    cli = "import sys; from mallows.cli import main; sys.argv = ['mallows'] + sys.argv[1:]; main()"
    run = subprocess.run(
        [str(venv), "-c", cli, "bots", "list"], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    line = next(ln for ln in run.stdout.splitlines() if "epbot" in ln)
    assert "0.3" in line and "python, isolated" in line and "take4" in line
    run = subprocess.run(
        [str(venv), "-c", cli, "bots", "check", "epbot", "--games", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "OK: epbot passed 2 match(es) in take4" in run.stdout
