"""One error tree (``mallows.errors``): every exception class of mallows is defined there, user
input (``MallowsError``, exit 2) apart from platform failures (``PlatformError``, exit 70), and
the CLI's exit statuses follow the tree (a match that raises inside the engine is a platform
failure: exit 70, neither the exit 2 of a user's mistake nor the 1 of compare's H0)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys

import pytest
import typer

import mallows
from mallows import errors
from mallows.errors import ExecutorError, MallowsError, MatchFailed, PlatformError

from conftest import invoke


def mallows_modules():
    for info in pkgutil.walk_packages(mallows.__path__, "mallows."):
        if info.name in ("mallows.agents.host", "mallows.__main__"):
            continue  # scripts, run as processes
        if info.name == "mallows._engine_core":
            continue  # the compiled core: a C library loaded with ctypes, not a module
        yield importlib.import_module(info.name)


def test_every_exception_class_is_defined_in_errors_py():
    elsewhere = sorted(
        {
            f"{cls.__module__}.{cls.__name__}"
            for module in mallows_modules()
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, BaseException)
            and cls.__module__.startswith("mallows.")
            and cls.__module__ != "mallows.errors"
        }
    )
    assert not elsewhere, f"exception classes outside mallows/errors.py: {elsewhere}"


def test_the_docstring_draws_every_class_of_the_tree():
    classes = [
        name
        for name, obj in vars(errors).items()
        if inspect.isclass(obj)
        and issubclass(obj, BaseException)
        and obj.__module__ == "mallows.errors"
    ]
    assert len(classes) >= 19
    tree = errors.__doc__.split("::", 1)[1].split("\n\n", 2)[1]
    for name in classes:
        assert f" {name} " in tree + " ", f"{name} is not drawn in the tree"
        assert name in errors.__all__


def test_platform_failures_are_not_user_input_errors():
    for cls in (ExecutorError, MatchFailed):
        assert issubclass(cls, PlatformError) and not issubclass(cls, MallowsError)
    assert not issubclass(PlatformError, MallowsError)
    for name in (
        "GameConfigError",
        "BotError",
        "TournamentError",
        "StorageError",
        "DatabaseError",
        "ClusterError",
        "CompareError",
        "PinError",
    ):
        assert issubclass(getattr(errors, name), MallowsError), name


@pytest.mark.parametrize(
    "exc, status",
    [
        (MallowsError("bad input"), 2),
        (ExecutorError("Ray died"), 70),
        (MatchFailed("engine bug"), 70),
    ],
)
def test_each_command_exits_with_the_status_of_its_branch(exc, status, capsys):
    from mallows.cli.common import user_errors

    @user_errors
    def command() -> None:
        raise exc

    with pytest.raises(typer.Exit) as caught:
        command()
    assert caught.value.exit_code == status
    assert f"error: {exc}" in capsys.readouterr().err


BUGGY = '''
"""highcard with an engine bug: the state raises in its third match."""
import toy_highcard
from toy_highcard import *  # noqa: F401,F403

_made = [0]


def new_state(options, players, chance):
    _made[0] += 1
    if _made[0] == 3:
        raise RuntimeError("an engine bug")
    return toy_highcard.new_state(options, players, chance)
'''


def test_a_match_that_raises_in_the_engine_exits_70_and_keeps_what_finished(
    tmp_path, monkeypatch, in_repo
):
    from mallows.games import GAMES
    from mallows.results.store import Store

    (tmp_path / "buggy_highcard.py").write_text(BUGGY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(GAMES, "highcard", "buggy_highcard")  # the toy game, with a bug
    sys.modules.pop("buggy_highcard", None)
    toml = tmp_path / "b.toml"
    toml.write_text(
        'name = "b"\ngame = "highcard"\nplayers = 2\ndeals = 3\nseed = 9\n'
        'bots = ["random", "random:call=0.5"]\n'
    )
    db = tmp_path / "b.db"
    result = invoke("tournament", "run", toml, "--db", db, "--workers", "1", "--quiet")
    assert result.exit_code == 70, result.output
    assert "an engine bug" in result.output and "rerun the same command" in result.output
    assert Store(db, readonly=True).count_matches("b") >= 1  # the finished ones are kept
