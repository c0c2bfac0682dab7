"""The house rules, read from the source with ``ast`` (every import, at any depth, counts):
which subpackage may import which, the one Ray module and the one SQLite package, a docstring on
every module saying what it owns, the public names a bot may import, and what the shipped bots
import."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from conftest import REPO
from mallows.tournaments.format import FORMATS as REGISTRY

PACKAGE = REPO / "platform" / "mallows"
SUBPACKAGES = (
    "games",
    "agents",
    "runner",
    "tournaments",
    "results",
    "testing",
    "report",
    "interop",
    "server",
    "cli",
)

#: subpackage -> the subpackages it must never import
FORBIDDEN = {
    "games": {
        "agents",
        "runner",
        "tournaments",
        "results",
        "cli",
        "testing",
        "interop",
        "report",
        "server",
    },
    "results": {
        "games",
        "agents",
        "runner",
        "tournaments",
        "cli",
        "testing",
        "interop",
        "report",
        "server",
    },
    "agents": {"runner", "tournaments", "results", "cli", "testing", "interop", "report", "server"},
    # a Job in, an Outcome out: the runner knows no tournament, ladder or comparison
    "runner": {"tournaments", "cli", "testing", "interop", "report", "server"},
    "tournaments": {"cli", "testing", "interop", "report", "server"},
    "testing": {"cli", "interop", "server"},
    "report": {"agents", "runner", "tournaments", "cli", "testing", "interop", "server"},
    # the bridges to PettingZoo and OpenSpiel stand on the games (and the bot protocol)
    "interop": {"runner", "tournaments", "results", "cli", "testing", "report", "server"},
    # the web server stands on the report's pages and the play page's and ladders' views
    "server": {"cli", "testing", "interop"},
    "": set(SUBPACKAGES),  # mallows/__init__, errors, seeding, safetext, botname: ground floor
}

#: the formats: one package each under ``tournaments/``, standing on the shared core (the
#: modules directly in ``tournaments/``: plan, run, format, seating, ...), which imports none of
#: them; no format imports another. Read off the registry: a new format's one line there is
#: its rule here too.
FORMATS = tuple(sorted({path.split(".")[2] for path in REGISTRY.values()}))
#: module -> the only mallows modules it may import (prefixes): a ladder's questions and policy
#: are pure decisions over the results' fit
PURE = {
    "tournaments/ladder/questions.py": ("mallows.results", "mallows.errors", "mallows.botname"),
    "tournaments/ladder/policy.py": (
        "mallows.results",
        "mallows.errors",
        "mallows.botname",
        "mallows.tournaments.ladder.questions",
    ),
    "tournaments/ladder/simulate.py": ("mallows.results", "mallows.errors", "mallows.botname"),
}
#: subpackage -> the only subpackages that may import it (what README.md, CONTRIBUTING.md and
#: the packages' docstrings say: "only the CLI imports interop", "the report is imported by the
#: CLI only", ...)
IMPORTED_ONLY_BY = {
    "cli": set(),
    "interop": {"cli"},  # mallows export --trajectories
    "report": {"cli", "server"},  # and the pages mallows serve serves
    "server": {"cli"},
    "testing": {"cli"},
}
#: third-party module -> the only file (or, ending in "/", the only package's files) that may
#: import it
ONLY = {
    "ray": "runner/cluster.py",
    "sqlite3": "results/store/",
    "sqlite_utils": "results/store/",
    "pettingzoo": "interop/pettingzoo.py",
    "gymnasium": "interop/pettingzoo.py",
    "pyspiel": "interop/openspiel.py",
    "open_spiel": "interop/openspiel.py",
    # the rating systems sit behind results' RatingSystem: nobody else knows TrueSkill
    "trueskill": "results/",
    "starlette": "server/",
    "uvicorn": "server/",
    "limits": "server/throttle.py",
}

#: what a bot may import from the platform, and each module's public names (bots/README.md)
BOT_API = {
    "mallows.agents.policy": ["CALL_PROBABILITY", "EveryGame", "random_action"],
    "mallows.agents.kit": ["number_param"],
    "mallows.agents.protocol": [
        "PROTOCOL_VERSION",
        "KINDS",
        "BotFailure",
        "BotHandle",
        "Limits",
        "InProcessBot",
        "describe_exception",
    ],
    "mallows.games.take4.encoding": [
        "SIZE",
        "ACTIONS",
        "MAX_SEATS",
        "encode",
        "action_mask",
        "action_of",
        "number_of",
        "POSITIONS_AT",
        "COLLECTIONS_AT",
        "SEATS_AT",
        "PROGRESS_AT",
        "DECK_AT",
        "CHOICE_AT",
        "CHOICE_FEATURES",
    ],
    "mallows.games.arschmallows.encoding": [
        "VALUES",
        "MAX_SEATS",
        "DEFAULT_SLOTS",
        "Encoding",
        "Steps",
    ],
    "mallows.interop.openspiel": [
        "NAMES",
        "resample_from_infostate",
        "take4_state_from_observation",
        "ismcts_bot",
        "load",
    ],
    "mallows.games.arschmallows.events": [
        "STATIC_KEYS",
        "HISTORY_KEYS",
        "STEP_KEYS",
        "ArschmallowsEvents",
        "SeatRecall",
        "match_events",
        "observation",
        "recall_variants",
        "static",
        "step_observation",
    ],
    "mallows.games.take4.events": [
        "STATIC_KEYS",
        "HISTORY_KEYS",
        "STEP_KEYS",
        "Take4Events",
        "SeatRecall",
        "match_events",
        "observation",
        "static",
        "step_observation",
    ],
    "mallows.games.arschmallows.botkit": [
        "ACTION_SET",
        "DECK_MEAN",
        "RISK",
        "IMPROVE",
        "TUNED_RISK",
        "TUNED_IMPROVE",
        "unseen",
        "expected_unknown",
        "variance_unknown",
        "row_estimate",
        "face_down",
        "Sim",
        "sample_world",
        "cheapest_to_lock",
        "p_lowest",
        "heuristic_decide",
        "candidate_actions",
        "Belief",
        "BeliefError",
        "Card",
        "BELIEF_RISK",
        "BELIEF_IMPROVE",
        "belief_decide",
        "belief_world",
        "BeliefWorlds",
        "p_lowest_belief",
        "PairedComparison",
        "RacingComparison",
    ],
}


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    here = module_name(path).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
            out.append((node.lineno, base))
            # ``from mallows import games`` imports the subpackage
            out += [
                (node.lineno, f"{base}.{alias.name}") for alias in node.names if base == "mallows"
            ]
    return out


def floor(path: Path) -> str:
    rel = path.relative_to(PACKAGE).parts
    return rel[0] if len(rel) > 1 else ""


def test_the_tree_is_what_these_rules_know():
    found = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert found == set(SUBPACKAGES), "a new subpackage needs its rules here"
    rooms = PACKAGE / "tournaments"
    found = {p.name for p in rooms.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert found == set(FORMATS), "a package in tournaments/ is a format: register it in FORMATS"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_layering(path):
    forbidden = FORBIDDEN.get(floor(path), set())
    bad = [
        f"line {line}: {name}"
        for line, name in imports(path)
        if name.split(".")[0] == "mallows"
        and len(name.split(".")) > 1
        and name.split(".")[1] in forbidden
    ]
    assert not bad, f"{path.relative_to(PACKAGE)} imports a floor it must not: {bad}"


@pytest.mark.parametrize("target", sorted(IMPORTED_ONLY_BY))
def test_what_the_docs_say_imports_a_floor_is_all_that_does(target):
    allowed = IMPORTED_ONLY_BY[target] | {target}
    bad = [
        f"{path.relative_to(PACKAGE)} line {line}: {name}"
        for path in modules()
        if floor(path) not in allowed
        for line, name in imports(path)
        if name.split(".")[:2] == ["mallows", target]
    ]
    assert not bad, (
        f"only {sorted(IMPORTED_ONLY_BY[target]) or 'nothing'} may import {target}: {bad}"
    )


def test_the_package_docstring_lists_every_subpackage():
    doc = ast.get_docstring(ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8")))
    missing = [name for name in SUBPACKAGES if f"``mallows.{name}``" not in (doc or "")]
    assert not missing, f"mallows/__init__.py does not list {missing}"


def room(path: Path) -> str | None:
    """The format package of ``path`` (``tournaments/<room>/...``); "" for the shared core (a
    module directly in ``tournaments/``); None outside ``tournaments``."""
    rel = path.relative_to(PACKAGE).parts
    if rel[0] != "tournaments":
        return None
    return rel[1] if len(rel) > 2 else ""


def format_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] == ["mallows", "tournaments"] and len(parts) > 2 and parts[2] in FORMATS:
        return parts[2]
    return None


@pytest.mark.parametrize(
    "path",
    [p for p in modules() if room(p) is not None],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_the_core_imports_no_format_and_no_format_another(path):
    here = room(path)
    bad = [
        f"line {line}: {name}"
        for line, name in imports(path)
        if format_of(name) is not None and format_of(name) != here
    ]
    what = "the shared core" if here == "" else f"format {here!r}"
    assert not bad, f"{path.relative_to(PACKAGE)} ({what}) imports another format: {bad}"


@pytest.mark.parametrize("rel, allowed", sorted(PURE.items()))
def test_a_ladders_decisions_are_pure(rel, allowed):
    bad = [
        f"line {line}: {name}"
        for line, name in imports(PACKAGE / rel)
        if name.split(".")[0] == "mallows" and not name.startswith(allowed)
    ]
    assert not bad, f"{rel} must stay a pure decision over the results' fit: {bad}"


def may_import(rel: str, where: str) -> bool:
    """Whether the file ``rel`` (relative to the package, posix) is ``where``: that file, or,
    for ``where`` ending in "/", a file inside that folder."""
    return rel == where or (where.endswith("/") and rel.startswith(where))


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_one_ray_module_and_one_sqlite_package(path):
    rel = path.relative_to(PACKAGE).as_posix()
    bad = [
        f"line {line}: {name}"
        for line, name in imports(path)
        if name.split(".")[0] in ONLY and not may_import(rel, ONLY[name.split(".")[0]])
    ]
    assert not bad, f"{rel} imports what only one module (or package) may: {bad}"


def test_the_rule_checker_sees_what_it_must():
    # the checker itself: a lazy import inside a function and a relative import both count
    sample = PACKAGE / "tournaments" / "roundrobin" / "spec.py"
    names = [name for _, name in imports(sample)]
    assert "mallows.results.codec" in names  # imported inside a function
    store = sorted((PACKAGE / "results" / "store").rglob("*.py"))
    seen = {name for path in store for _, name in imports(path)}
    assert {"sqlite3", "sqlite_utils"} <= seen
    assert any(name == "ray" for _, name in imports(PACKAGE / "runner" / "cluster.py"))
    # a format's module is in its room, a core module in none, a module outside tournaments
    # has no room; the format of an imported module is read off its name
    assert room(PACKAGE / "tournaments" / "ladder" / "run.py") == "ladder"
    assert room(PACKAGE / "tournaments" / "run.py") == ""
    assert room(PACKAGE / "runner" / "match.py") is None
    assert format_of("mallows.tournaments.compare.sprt") == "compare"
    assert format_of("mallows.tournaments.compare") == "compare"
    assert format_of("mallows.tournaments.run") is None
    assert format_of("mallows.runner.match") is None
    # a folder rule covers the files inside that folder and nothing beside it
    assert may_import("results/store/schema.py", "results/store/")
    assert may_import("results/store/__init__.py", "results/store/")
    for elsewhere in (
        "results/store.py",
        "results/storage.py",
        "results/store_x/a.py",
        "results/ratings.py",
        "store/schema.py",
        "results",
    ):
        assert not may_import(elsewhere, "results/store/"), elsewhere
    # a file rule covers that file only
    assert may_import("runner/cluster.py", "runner/cluster.py")
    assert not may_import("runner/cluster.py.bak", "runner/cluster.py")
    assert not may_import("runner/cluster/x.py", "runner/cluster.py")
    assert not may_import("runner/executor.py", "runner/cluster.py")


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_module_says_what_it_owns(path):
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert doc and len(doc.split()) >= 5, f"{path.relative_to(PACKAGE)} has no top docstring"


@pytest.mark.parametrize("name", SUBPACKAGES + tuple(f"tournaments/{f}" for f in FORMATS))
def test_every_subpackage_says_what_it_owns_and_may_import(name):
    doc = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text()))
    assert doc, name
    text = " ".join(doc.lower().split())
    assert "owns" in text and "may import" in text, (
        f"mallows/{name}/__init__.py must say what it owns and what it may import"
    )


@pytest.mark.parametrize("module, names", sorted(BOT_API.items()))
def test_the_bot_api_is_declared_and_pinned(module, names):
    mod = importlib.import_module(module)
    assert sorted(mod.__all__) == sorted(names), (
        f"{module}.__all__ changed: update bots/README.md and this pin together"
    )
    for name in names:
        assert hasattr(mod, name), f"{module} declares {name} but lacks it"


@pytest.mark.parametrize("path", sorted((REPO / "bots").glob("*.py")), ids=lambda p: p.name)
def test_the_shipped_bots_import_only_the_bot_api(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mallows"):
            assert node.module in BOT_API, f"{path.name}:{node.lineno} imports {node.module}"
            allowed = set(BOT_API[node.module])
            bad = [a.name for a in node.names if a.name not in allowed]
            assert not bad, f"{path.name}:{node.lineno} imports non-public {bad}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                assert not alias.name.startswith("mallows"), (
                    f"{path.name}:{node.lineno} imports {alias.name}: use from ... import"
                )


def test_a_bot_process_loads_neither_numpy_nor_an_engine():
    # A sandboxed bot process starts for every few matches: the host and the random policy
    # (what the shipped random bot imports) must not pull in numpy or a game's state machine.
    import subprocess
    import sys

    code = (
        "import sys, random, mallows.agents.host as h\n"
        "from mallows.agents.policy import random_action\n"
        "random_action({'game': 'take4', 'phase': 'pick', 'legal_actions': "
        "[{'type': 'pick', 'position': 0}]}, random.Random(1))\n"
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] == 'numpy' "
        "or m.endswith(('.state', '.rules')))))"
    )
    out = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == [], f"a bot process imported {out}"
    # the control: what a match needs does load them, and the check sees it
    code = (
        "import sys\nfrom mallows.games.take4 import Take4State\n"
        "from mallows.seeding import stream_rng\nstream_rng(1, 'deal', 0)\n"
        "print(' '.join(sorted(m for m in sys.modules if m in ('numpy', "
        "'mallows.games.take4.state'))))"
    )
    out = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["mallows.games.take4.state", "numpy"], out


def test_parts_are_composed_not_mixed_in():
    """The protocol client owns its process handle, the store owns the objects it answers
    through (no class shares its attributes with a mixin in another file), and a failure
    reason is a function of what happened (``agents.failures`` holds no class)."""
    from mallows.agents import failures
    from mallows.agents.process import SubprocessBot
    from mallows.agents.spawn import BotProcess
    from mallows.results.store import Store
    from mallows.results.store.reading import Reading
    from mallows.results.store.submissions import Submissions

    for cls in (SubprocessBot, BotProcess, Store, Reading, Submissions):
        assert cls.__bases__ == (object,), f"{cls.__name__} inherits {cls.__bases__}"
    tree = ast.parse((PACKAGE / "agents" / "failures.py").read_text(encoding="utf-8"))
    assert not [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    assert callable(failures.died) and callable(failures.timed_out)
    bot = SubprocessBot("x", ["true"])
    assert isinstance(bot.process, BotProcess) and bot.proc is None


#: options several commands share: declared once, in ``cli/common.py``, with one help string
SHARED_OPTIONS = ("--db", "--workers", "--address", "--sandbox")


def test_shared_cli_options_and_the_default_database_are_defined_once():
    declared: dict[str, list[str]] = {flag: [] for flag in SHARED_OPTIONS}
    defaults = []
    for path in modules():
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "Option":
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and arg.value in declared:
                        declared[arg.value].append(f"{rel}:{node.lineno}")
            built = (
                (  # Path("results") / ..., or the path written out
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", None) == "Path"
                    and [getattr(a, "value", None) for a in node.args[:1]] == ["results"]
                )
                or (isinstance(node, ast.Constant) and node.value == "results/mallows.db")
            )
            if built:
                defaults.append(f"{rel}:{node.lineno}")
    for flag, where in declared.items():
        assert len(where) == 1 and where[0].startswith("cli/common.py:"), (
            f"{flag} is declared at {where}: use the option of cli/common.py"
        )
    assert [d.split(":")[0] for d in defaults] == ["results/store/schema.py"], (
        f"the default database is built at {defaults}: use results.store.DEFAULT_DB"
    )


#: (file, what it splits) of the splits at ":" or "@" that are not a bot's name
NOT_NAMES = {
    "agents/host.py": "the bot's module:attribute target",
    "agents/sandbox/cgroups.py": "the lines of /proc/self/cgroup",
    "agents/sandbox/command.py": "PATH-like lists of folders",
    "runner/cluster.py": "a cluster's host:port",
    "runner/executor.py": "--address's host:port, checked before a run",
    "cli/ladder.py": "a ladder table's reason (extra:QUESTION)",
    "results/store/ladders.py": "a ladder table's reason (extra:QUESTION)",
    "tournaments/ladder/run.py": "a ladder's mode (finals:N)",
}


def test_bot_names_are_parsed_only_by_botname():
    bad = []
    for path in modules():
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "botname.py" or rel in NOT_NAMES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", None)
                in ("split", "rsplit", "partition", "rpartition")
                and [getattr(a, "value", None) for a in node.args[:1]] in ([":"], ["@"])
            ):
                bad.append(f"{rel}:{node.lineno}")
    assert not bad, f"a bot name split by hand at {bad}: use mallows.botname.BotName.parse"


def test_a_store_passed_at_a_seam_is_typed_as_one():
    """Issue 30, item 7: a parameter named ``store`` is annotated with the results layer's
    protocol (``ResultStore``), never ``Any``: what a store can do is read off its type."""
    loose = []
    for path in modules():
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.arg) and node.arg == "store":
                if node.annotation is None or ast.unparse(node.annotation) in ("Any", "object"):
                    loose.append(f"{rel}:{node.lineno}")
    assert not loose, f"a store parameter without its type at {loose}: annotate it ResultStore"
