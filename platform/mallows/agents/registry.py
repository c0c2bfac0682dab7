"""Resolving a bot name to something the runner can play, in-process or isolated.

``Resolver(catalog, roster).load(name) -> BotSpec`` (``load_bot(name)``: a resolver without a
database). ``name`` is a ``mallows.botname.BotName``: ``BASE[@N][:key=value,...]`` (the
parameters go, as strings, to the bot's constructor, or to a subprocess bot in its ``hello``
and start messages). ``BASE`` is looked up, first match wins:

0. a shown name in the resolver's ``Roster`` (a tournament's pins, carried by every job to its
   worker): run from its snapshot (``mallows.agents.submissions``) or loaded by its name;
   ``NAME@N``: a submitted version in the resolver's database (nothing else);
1. a path (``mallows.botname.is_path``: it contains ``/``, starts with ``.`` or ``~``, or ends
   with ``.py`` or ``.toml``): a ``.py`` file, a Python package folder (``__init__.py``), or a
   folder with a ``bot.toml`` manifest (or the manifest itself); always that file or folder;
2. in the bots directories (``$MALLOWS_BOTS_DIR`` or ``./bots``, then the project's own
   ``bots/``): ``BASE.py``, or a folder ``BASE/`` as above;
3. an entry point named ``BASE`` in group ``mallows.bots`` of an installed distribution (it
   names a module holding ``Bot``, or the class itself: ``mybot = "mypkg.mybot:Bot"``);
4. a bare submitted ``NAME`` in the resolver's database (its newest version not withdrawn):
   last, so a submission never shadows a path, a bot in ``bots/`` or an entry point.

Trust: the bots in ``SHIPPED`` found in the project's own ``bots/`` run in-process (trusted,
fastest). Every other Python bot runs isolated, hosted by ``python -m mallows.agents.host`` in its
own process; a subprocess bot (manifest) always runs in its own process. Override with
``load_bot(name, isolate=True|False)`` or ``MALLOWS_ISOLATE=1`` (isolate every bot) /
``MALLOWS_ISOLATE=0`` (run every Python bot in-process, for debugging your own bot).

Untrusted code is never run in the platform's process to learn about it: an isolated bot's
version and games are read from its source (literal class attributes ``name``, ``version``,
``games``) or, when that is not enough, from its handshake (``BotSpec.describe()``, which
starts it in its own process). A name that cannot be resolved or loaded raises ``BotError``
naming the bot, where it looked and what failed.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import importlib.util
import json
import os
import shutil
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable, Iterator, cast

from mallows import PROTOCOL_VERSION
from mallows.agents.history import VERSIONS
from mallows.agents.protocol import (
    BotFailure,
    BotHandle,
    Limits,
    ProcessHandle,
    describe_exception,
)
from mallows.agents.roster import Roster
from mallows.botname import BotName, is_path
from mallows.errors import BotError
from mallows.files import check_file, exists, read_bytes, read_text
from mallows.safetext import TEXT_BYTES, cap
from mallows.games import game_ids

MAX_GAMES = 64  # games a bot's hello or class may declare that are kept
SHIPPED = frozenset(
    {"random", "greedy", "heuristic", "ismcts", "belief", "denial", "rules4", "jointpick"}
)
ENTRY_POINT_GROUP = "mallows.bots"
MANIFEST = "bot.toml"


def project_bots_dir() -> Path:
    """The project's own ``bots/`` (where the shipped bots live)."""
    return Path(__file__).resolve().parents[3] / "bots"


def bots_dir() -> Path:
    """``$MALLOWS_BOTS_DIR``, else ``./bots`` if it exists, else the project's own ``bots/``."""
    env = os.environ.get("MALLOWS_BOTS_DIR")
    if env:
        return Path(env)
    here = Path.cwd() / "bots"
    if here.is_dir():
        return here
    return project_bots_dir()


def search_dirs() -> list[Path]:
    """The bots directories, in lookup order, without duplicates."""
    out: list[Path] = []
    for d in (bots_dir(), project_bots_dir()):
        d = d.resolve()
        if d.is_dir() and d not in out:
            out.append(d)
    return out


def trusted_shipped() -> list[str]:
    """The shipped bots that a lookup here finds in the project's own ``bots/`` (not shadowed
    by a user's bot of the same name): the ones this process runs in-process."""
    project = project_bots_dir().resolve()
    out = []
    for base in sorted(SHIPPED):
        for d in search_dirs():
            if (d / f"{base}.py").is_file() or (d / base).is_dir():
                if d == project:
                    out.append(base)
                break
    return out


def _trusted_by_driver() -> frozenset[str]:
    """``$MALLOWS_TRUSTED_SHIPPED``: set by the executor for Ray workers of a joined cluster,
    where the shipped bots arrive in the job's working directory instead of the project's
    ``bots/``. It carries the driver's own decision (``trusted_shipped()``), so the same bots
    run in-process on the cluster as on the organiser's machine."""
    raw = os.environ.get("MALLOWS_TRUSTED_SHIPPED", "")
    return frozenset(n for n in raw.split(",") if n in SHIPPED)


def from_snapshot(
    name: str, digest: str, entry: str, params: dict, isolate: bool | None = None
) -> "BotSpec":
    """A bot run from the materialised snapshot ``digest`` (never in-process unless forced),
    shown as ``name``."""
    from mallows.agents.submissions import cache_root, materialised

    folder = materialised(digest)
    if folder is None:
        raise BotError(
            f"bot {name!r}: its snapshot {digest[:12]} is not in "
            f"{cache_root()}: it is written there from the database before a "
            f"run (and shipped with the job to a cluster): run from the machine "
            f"that holds the database"
        )
    base = Path(entry).stem
    spec = _from_path(name, base, dict(params), folder / entry, "snapshot", isolate)
    spec.name, spec.digest = name, digest
    return spec


def parse_name(name: str) -> tuple[str, dict[str, str]]:
    """``"ismcts:budget=0.5,seed=3"`` -> ``("ismcts", {"budget": "0.5", "seed": "3"})`` (the
    base keeps its ``@N``): ``mallows.botname.BotName`` parses it."""
    parsed = BotName.parse(name)
    return parsed.plain, parsed.param_dict


def _isolation_default(trusted: bool, isolate: bool | None) -> bool:
    if isolate is not None:
        return isolate
    env = os.environ.get("MALLOWS_ISOLATE", "").strip().lower()
    if env in ("1", "true", "yes", "all"):
        return True
    if env in ("0", "false", "no", "none"):
        return False
    return not trusted


@dataclass
class BotSpec:
    """A resolved bot. ``kind``: ``"python"`` or ``"subprocess"``; ``isolated``: it runs in
    its own process; ``trusted``: shipped with the project. ``version``/``games``/``bot_name``
    are ``None`` when unknown without running the bot (see ``describe``)."""

    name: str  # the full name as given, parameters included
    base: str
    params: dict = field(default_factory=dict)
    kind: str = "python"
    isolated: bool = False
    trusted: bool = False
    version: str | None = None
    games: tuple[str, ...] | None = None
    bot_name: str | None = None  # the bot's own name (class attribute or manifest)
    source: str = ""  # where it comes from, for people
    origin: str = ""  # "bots", "path" or "entry point"
    cls: Any = None  # in-process: the class
    target: str | None = None  # isolated Python: what bothost loads
    command: list[str] | None = None  # subprocess: argv (resolved)
    cwd: str | None = None
    reuse: bool = False  # subprocess: the manifest says reuse = true
    protocols: tuple[int, ...] | None = None  # subprocess: the manifest's, held to (None: any)
    digest: str | None = None  # a snapshot's digest, when run from one
    withdrawn: str | None = None  # a submitted version: when it was withdrawn, if it was

    @property
    def bot_paths(self) -> list[str]:
        """The bot's own files, all its sandbox shows of the bot (read-only): a manifest bot's
        folder; a Python bot's file or package folder (not its neighbours: other bots may
        live beside it); nothing for an entry point (it is installed with Python)."""
        if self.kind == "subprocess":
            return [self.cwd] if self.cwd else []
        if self.target and os.path.exists(self.target):
            return [self.target]
        return []

    @property
    def kind_label(self) -> str:
        if self.kind == "subprocess":
            return "subprocess"
        return "python, isolated" if self.isolated else "python, in-process"

    def bot_command(self) -> list[str]:
        if self.kind == "subprocess":
            return list(self.command or ())
        return [
            sys.executable,
            "-P",
            "-m",
            "mallows.agents.host",
            self.target or "",
            *(f"{k}={v}" for k, v in self.params.items()),
        ]

    @property
    def runtime(self) -> str:
        """The runtime it runs in (``mallows.agents.runtimes``): ``"in-process"``,
        ``"process"`` or ``"human"``."""
        from mallows.agents.runtimes import runtime_of

        return runtime_of(self)

    @property
    def declared(self) -> tuple[tuple[int, ...], str] | None:
        """The protocols its manifest says it speaks, and the manifest's path (None: the
        bot's hello chooses)."""
        if self.protocols is None:
            return None
        return self.protocols, f"{self.cwd}/{MANIFEST}" if self.cwd else MANIFEST

    def handle(self, limits: Limits = Limits()) -> BotHandle:
        """A fresh ``BotHandle`` for one match, made by its runtime
        (``mallows.agents.runtimes.RUNTIMES``); a bot that cannot be constructed is a
        ``BotError``."""
        from mallows.agents.runtimes import RUNTIMES

        return RUNTIMES[self.runtime](self, limits)

    def _process_handle(self, limits: Limits) -> ProcessHandle:
        """The handle of an isolated bot: one with its own process."""
        return cast(ProcessHandle, self.handle(limits))

    def prepare(self, timeout: float = 10.0, sandbox: str = "on") -> None:
        """Start the process the next ``describe`` (same ``timeout`` and ``sandbox``) will
        shake hands with, without waiting for it: several bots' processes then start side by
        side. ``unprepare`` stops it if no ``describe`` came."""
        if self.isolated and self.__dict__.get("_prepared") is None:
            handle = self._process_handle(Limits(start_seconds=timeout, sandbox=sandbox))
            try:
                handle.spawn()
            except Exception:
                handle.close()
                return  # describe starts it again, and reports why it cannot
            self._prepared = ((timeout, sandbox), handle)

    def unprepare(self) -> None:
        prepared = self.__dict__.pop("_prepared", None)
        if prepared is not None:
            prepared[1].close()

    def describe(self, timeout: float = 10.0, sandbox: str = "on") -> dict:
        """Start the bot in its own process, shake hands, stop it; return its hello
        (``name``, ``version``, ``games``) and fill in what was unknown. ``BotError`` on
        failure. For an in-process bot, its class attributes."""
        if not self.isolated:
            return {
                "name": self.bot_name,
                "version": self.version,
                "games": list(self.games) if self.games else None,
            }
        prepared = self.__dict__.pop("_prepared", None)
        if prepared is not None and prepared[0] == (timeout, sandbox):
            handle = prepared[1]
        else:
            if prepared is not None:
                prepared[1].close()
            handle = self._process_handle(Limits(start_seconds=timeout, sandbox=sandbox))
        try:
            hello = handle.handshake(time.monotonic() + timeout)
        except BotFailure as exc:
            raise BotError(
                f"bot {self.name!r} ({self.source}) failed its handshake: {exc}"
            ) from None
        finally:
            handle.close()
        # the bot's own words: kept short (``safetext``)
        if self.version is None and hello.get("version") is not None:
            self.version = cap(str(hello["version"]), TEXT_BYTES)
        if self.games is None and hello.get("games") is not None:
            self.games = declared_games(hello["games"], f"{self.name!r} ({self.source})")
        if self.bot_name is None and hello.get("name") is not None:
            self.bot_name = cap(str(hello["name"]), TEXT_BYTES)
        return hello


# -- loading ---------------------------------------------------------------------------------

_MODULES: dict[tuple[str, int], Any] = {}

#: The fix a bot path that is not a bot file or folder is told.
BOT_PATH_FIX = "give a bot's .py file, its folder, or a name from mallows bots list"


def _import_path(path: Path, modname: str) -> ModuleType:
    """Import a trusted bot file or package folder by path (``bots/`` stays off sys.path, so
    ``bots/random.py`` does not shadow the standard library), cached by path and mtime."""
    init = path / "__init__.py" if path.is_dir() else path
    key = (str(init), init.stat().st_mtime_ns)
    if key in _MODULES:
        return _MODULES[key]
    if path.is_dir():
        spec = importlib.util.spec_from_file_location(
            modname, init, submodule_search_locations=[str(path)]
        )
    else:
        spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None or spec.loader is None:  # not a Python source file after all
        raise BotError(f"cannot load {path}: Python cannot import it as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    # never bytecode beside the bot's files: a snapshot folder holds exactly what was
    # submitted (an extra __pycache__ makes it be rebuilt), and a bot's folder is its author's
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    _MODULES[key] = module
    return module


def declared_games(value: Any, who: str) -> tuple[str, ...] | None:
    """A bot's ``games`` as a tuple of names, None when it declares none. A string (``games =
    "take4"``, which would read as the games t, a, k, e, 4) or anything but a list or tuple of
    strings is a ``BotError`` saying how to write it."""
    if value is None:
        return None
    if isinstance(value, str):
        raise BotError(
            f"bot {who}: games = {json.dumps(value)} is a string; games is a tuple "
            f"of game names: write games = ({json.dumps(value)},)"
        )
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=str)
    if not isinstance(value, (list, tuple)) or not all(isinstance(g, str) for g in value):
        raise BotError(
            f"bot {who}: games = {value!r} is not a list of game names: write e.g. "
            f'games = ("arschmallows", "take4")'
        )
    return tuple(value) or None


def _class_meta(cls: Any, who: str) -> dict:
    return {
        "bot_name": getattr(cls, "name", None),
        "version": None if getattr(cls, "version", None) is None else str(cls.version),
        "games": declared_games(getattr(cls, "games", None), who),
    }


def _literal_assignments(body: list) -> Iterator[tuple[str, Any]]:
    """``(name, value)`` for every ``x = literal``, ``x: T = literal`` and ``a, b = 1, 2``."""
    for item in body:
        pairs: list[tuple[ast.expr, ast.expr]]
        if isinstance(item, ast.AnnAssign) and item.value is not None:
            pairs = [(item.target, item.value)]
        elif isinstance(item, ast.Assign) and len(item.targets) == 1:
            target, value = item.targets[0], item.value
            if (
                isinstance(target, ast.Tuple)
                and isinstance(value, ast.Tuple)
                and len(target.elts) == len(value.elts)
            ):
                pairs = list(zip(target.elts, value.elts))
            else:
                pairs = [(target, value)]
        else:
            continue
        for target, value in pairs:
            if isinstance(target, ast.Name):
                try:
                    yield target.id, ast.literal_eval(value)
                except ValueError:
                    pass


def _static_meta(name: str, path: Path) -> dict:
    """Read ``class Bot``'s literal ``name``/``version``/``games`` from the source without
    running it. A syntax error, or no ``Bot`` at all, is a ``BotError``."""
    source_file = path / "__init__.py" if path.is_dir() else path
    source = read_bytes(source_file, f"bot {name[:80]!r}", BOT_PATH_FIX, BotError)
    try:
        tree = ast.parse(source, filename=str(source_file))
    except SyntaxError as exc:
        raise BotError(
            f"bot {name!r} ({source_file}) does not parse: SyntaxError at line "
            f"{exc.lineno}: {exc.msg}"
        ) from None
    meta: dict = {"bot_name": None, "version": None, "games": None}
    has_bot = False
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Bot":
            has_bot = True
            for key, value in _literal_assignments(node.body):
                if key == "name":
                    meta["bot_name"] = cap(str(value), TEXT_BYTES)
                elif key == "version":
                    meta["version"] = cap(str(value), TEXT_BYTES)
                elif key == "games":
                    meta["games"] = declared_games(value, f"{name!r} ({source_file})")
        elif isinstance(node, (ast.ImportFrom, ast.Import)):
            has_bot = has_bot or any((a.asname or a.name) == "Bot" for a in node.names)
        elif isinstance(node, ast.Assign):
            has_bot = has_bot or any(
                isinstance(t, ast.Name) and t.id == "Bot" for t in node.targets
            )
    if not has_bot:
        raise BotError(
            f"bot {name!r} ({source_file}) defines no class Bot: a Python bot is a "
            f"module with a class Bot that has act(observation) -> action"
        )
    return meta


def _manifest(name: str, base: str, params: dict, folder: Path, origin: str) -> BotSpec:
    path = folder / MANIFEST
    text = read_text(path, f"bot {name[:80]!r}: its manifest", BOT_PATH_FIX, BotError)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BotError(f"bot {name!r}: its manifest {path} cannot be read: {exc}") from None

    def need(key: str, kind: type, example: str) -> Any:
        value = data.get(key)
        if not isinstance(value, kind) or not value:
            raise BotError(f"bot {name!r}: its manifest {path} needs {key} = {example}")
        return value

    bot_name = str(need("name", str, '"mybot"'))
    version = str(need("version", str, '"1.0"'))
    command = need("command", list, '["node", "bot.js"] (run in the bot\'s folder)')
    if not all(isinstance(c, str) and c for c in command):
        raise BotError(
            f"bot {name!r}: in {path}, command must be a list of strings, "
            f'for example ["node", "bot.js"]'
        )
    games = need("games", list, '["arschmallows", "take4"]')
    known = game_ids()  # the game registry: a new game is known here without an edit
    unknown = [g for g in games if g not in known]
    if unknown:
        raise BotError(
            f"bot {name!r}: {path} lists unknown games {unknown}: the games are {', '.join(known)}"
        )
    reuse = data.get("reuse", False)
    if not isinstance(reuse, bool):
        raise BotError(
            f"bot {name!r}: in {path}, reuse must be true or false (true: one "
            f"process may play many matches, each begun by a start message)"
        )
    protocol = data.get("protocol", PROTOCOL_VERSION)
    said = protocol if isinstance(protocol, list) and protocol else [protocol]
    if not all(type(p) is int and p in VERSIONS for p in said):  # the hello picks among them
        raise BotError(
            f"bot {name!r}: {path} says protocol = {protocol!r}, but this platform "
            f"speaks protocols {', '.join(map(str, VERSIONS))} (one, or a list of those the "
            f"bot speaks, e.g. [1, 2]; the bot's hello chooses among them)"
        )
    program = command[0]
    if program in ("python", "python3"):
        resolved = sys.executable  # the platform's own interpreter
    elif "/" in program:
        resolved = str((folder / program).resolve())
        if not os.access(resolved, os.X_OK):
            raise BotError(
                f"bot {name!r}: {path} names the command {program!r}, but "
                f"{resolved} is not an executable file"
            )
    else:
        resolved = shutil.which(program)
        if resolved is None:
            raise BotError(
                f"bot {name!r}: {path} names the command {program!r}, which is "
                f"not on PATH: install it, or give its path"
            )
    from mallows.agents.sandbox.command import check_command  # what its sandbox can contain

    check_command(program, resolved, folder, f"bot {name!r}: {path}")
    return BotSpec(
        name=name,
        base=base,
        params=params,
        kind="subprocess",
        isolated=True,
        trusted=False,
        version=version,
        games=tuple(games),
        bot_name=bot_name,
        source=str(path),
        origin=origin,
        command=[resolved, *command[1:]],
        cwd=str(folder),
        reuse=reuse,
        protocols=tuple(said) if "protocol" in data else None,
    )


def _from_path(
    name: str, base: str, params: dict, path: Path, origin: str, isolate: bool | None
) -> BotSpec:
    path = path.resolve()
    check_file(path, "bot", BOT_PATH_FIX, BotError, folder_ok=True)
    if path.name == MANIFEST and path.is_file():
        path = path.parent
    if path.is_dir() and (path / MANIFEST).is_file():
        return _manifest(name, base, params, path, origin)
    if path.is_dir() and not (path / "__init__.py").is_file():
        raise BotError(
            f"bot {name!r}: the folder {path} has neither a {MANIFEST} manifest "
            f"(a subprocess bot) nor an __init__.py (a Python package bot)"
        )
    trusted = (
        origin == "bots"
        and base in SHIPPED
        and (path.parent == project_bots_dir().resolve() or base in _trusted_by_driver())
    )
    isolated = _isolation_default(trusted, isolate)
    spec = BotSpec(
        name=name,
        base=base,
        params=params,
        kind="python",
        isolated=isolated,
        trusted=trusted,
        source=str(path),
        origin=origin,
        target=str(path),
        cwd=str(path.parent),
    )
    if isolated:
        meta = _static_meta(name, path)
    else:
        try:
            module = _import_path(path, f"mallows_bots.{base}")
        except Exception as exc:
            raise BotError(
                f"bot {name!r} ({path}) failed to load: {describe_exception(exc)}"
            ) from None
        spec.cls = getattr(module, "Bot", None)
        if not isinstance(spec.cls, type):
            raise BotError(
                f"bot {name!r} ({path}) defines no class Bot: a Python bot is a "
                f"module with a class Bot that has act(observation) -> action"
            )
        meta = _class_meta(spec.cls, f"{name!r} ({path})")
    spec.bot_name, spec.version, spec.games = meta["bot_name"], meta["version"], meta["games"]
    return spec


def _entry_points() -> list:
    return list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))


def _from_entry_point(
    name: str, base: str, params: dict, ep: importlib.metadata.EntryPoint, isolate: bool | None
) -> BotSpec:
    dist = getattr(ep, "dist", None)
    dist_text = f" of {dist.name} {dist.version}" if dist is not None else ""
    spec = BotSpec(
        name=name,
        base=base,
        params=params,
        kind="python",
        isolated=_isolation_default(False, isolate),
        trusted=False,
        version=dist.version if dist is not None else None,
        source=f"entry point {ep.name} = {ep.value}{dist_text}",
        origin="entry point",
        target=ep.value,
    )
    if not spec.isolated:
        try:
            obj = ep.load()
        except Exception as exc:
            raise BotError(
                f"bot {name!r} ({spec.source}) failed to load: {describe_exception(exc)}"
            ) from None
        cls = obj if isinstance(obj, type) else getattr(obj, "Bot", None)
        if not isinstance(cls, type):
            raise BotError(
                f"bot {name!r} ({spec.source}) names neither a class nor a module with a class Bot"
            )
        spec.cls = cls
        meta = _class_meta(cls, f"{name!r} ({spec.source})")
        spec.bot_name, spec.games = meta["bot_name"], meta["games"]
        spec.version = meta["version"] or spec.version
    return spec


class Resolver:
    """Resolves bot names, every one the same way, for one command or one run; passed
    explicitly (never a module global). It knows:

    - ``roster``: the shown names a tournament pinned and how each loads (a ``Roster``, the
      one value jobs carry to workers);
    - ``catalog``: the database's submitted versions (a ``mallows.results.store.Store`` or
      anything with its ``submission``/``submissions``/``snapshot_files``), or None.

    Lookup order, first match wins: the roster; ``NAME@N`` from the catalog (never anything
    else); a path (``mallows.botname.is_path``: it always means that file or folder); the
    bots directories (the current folder's or ``$MALLOWS_BOTS_DIR``, then the project's, with
    the shipped bots); an entry point; last, a bare ``NAME`` among the submissions (its newest
    version not withdrawn). So a submission shadows nothing the registry finds.

    A name is resolved once per resolver: ``load`` keeps what it found (the check of a run
    and its pinning share the spec, and a bot's hello is asked once)."""

    def __init__(
        self, catalog: Any = None, roster: Roster | None = None, _cache: dict | None = None
    ) -> None:
        self.catalog = catalog
        self.roster = roster if roster is not None else Roster()
        self._cache: dict = {} if _cache is None else _cache

    def with_roster(self, roster: Roster) -> "Resolver":
        """The same resolver with a run's pins (names resolve to the pinned code)."""
        return Resolver(self.catalog, roster)

    def using(self, catalog: Any) -> "Resolver":
        """The same resolver (and what it has found) reading submissions from ``catalog`` (the
        run's own store, once it is open for writing)."""
        return Resolver(catalog, self.roster, self._cache)

    def without_submissions(self) -> "Resolver":
        cache = {k: v for k, v in self._cache.items() if v.origin != "submission"}
        return Resolver(None, self.roster, cache)

    def load(self, name: str, isolate: bool | None = None) -> BotSpec:
        """Resolve ``name`` (see the class docstring). ``isolate`` forces isolation on or off
        for Python bots (default: shipped bots in-process, every other one isolated)."""
        key = (name, isolate)
        spec = self._cache.get(key)
        if spec is None:
            spec = self._cache[key] = self._load(name, isolate)
        return spec

    def _load(self, name: str, isolate: bool | None) -> BotSpec:
        pinned = self.roster.get(name)
        if pinned is not None:
            if pinned.load is not None:
                spec = Resolver().load(pinned.load, isolate)  # a registry name: no database
                spec.name = name
                return spec
            assert pinned.snapshot is not None and pinned.entry is not None
            return from_snapshot(name, pinned.snapshot, pinned.entry, dict(pinned.params), isolate)
        parsed = BotName.parse(name)
        base, params = parsed.plain, parsed.param_dict
        if base == "human":  # a person at the terminal (mallows.agents.human), never a file
            return human_spec(name, params)
        if parsed.version is not None:
            version = self.submission(parsed, isolate)
            assert version is not None  # NAME@N: found, or a BotError
            return version
        if is_path(base):
            path = Path(base).expanduser()
            if check_file(path, "bot", BOT_PATH_FIX, BotError, True) is None:
                raise BotError(f"unknown bot {name!r}: there is no file or folder {path.resolve()}")
            stem = path.resolve().parent.name if path.name == MANIFEST else path.resolve().stem
            return _from_path(name, stem, params, path, "path", isolate)
        looked: list[str] = []
        for d in search_dirs():
            for candidate in (d / f"{base}.py", d / base):
                if exists(candidate):  # False, not an error, for a name over 255 bytes
                    return _from_path(name, base, params, candidate, "bots", isolate)
            looked.append(f"{d}/{base}.py, {d}/{base}/")
        eps = _entry_points()
        for ep in eps:
            if ep.name == base:
                return _from_entry_point(name, base, params, ep, isolate)
        submitted = self.submission(parsed, isolate)
        if submitted is not None:
            return submitted
        installed = sorted({ep.name for ep in eps})
        raise BotError(
            f"unknown bot {name!r}{_did_you_mean(base, installed)}: looked for "
            f"{'; '.join(looked) or 'a bots directory (none found)'}, and for an entry point "
            f"{base!r} in group {ENTRY_POINT_GROUP} (installed: {', '.join(installed) or 'none'})"
            + ("" if self.catalog is None else ", and among the database's submissions")
            + ". Give a bot in bots/, a path to a .py file or bot folder, or install a "
            "distribution with that entry point"
        )

    def submission(self, name: BotName, isolate: bool | None = None) -> BotSpec | None:
        """The ``BotSpec`` of a submitted version (``NAME@N``, or the newest of a bare
        ``NAME``), or None when a bare ``NAME`` is not submitted. ``NAME@N`` without a
        database, or not in it, is a ``BotError``."""
        from mallows.agents.submissions import materialise

        store = self.catalog
        if store is not None and getattr(store, "closed", False):
            store = None  # its run has ended
        if store is None:
            if name.version is None:
                return None
            raise BotError(
                f"bot {str(name)!r} names a submitted version, and those live in a "
                f"database: give the database with --db (mallows tournament run, "
                f"compare, play, bots check and bots show take it)"
            )
        if name.version is not None:
            row = store.submission(name.base, name.version)
            if row is None:
                versions = [r["version"] for r in store.submissions(name.base)]
                raise BotError(
                    f"no submitted bot {name.plain!r}: "
                    + (
                        f"{name.base} has versions {', '.join(map(str, versions))}"
                        if versions
                        else f"nothing is submitted as {name.base!r} "
                        f"(mallows bots submit PATH --name {name.base})"
                    )
                )
        else:
            rows = store.submissions(name.base)
            if not rows:
                return None
            live = [r for r in rows if not r["withdrawn"]]
            if not live:
                raise BotError(
                    f"every version of {name.base!r} is withdrawn: name one "
                    f"explicitly ({name.base}@{rows[-1]['version']}) to see its "
                    f"history"
                )
            row = live[-1]
        digest = row["digest"]
        materialise(digest, store.snapshot_files(digest))
        shown = str(BotName(row["name"], int(row["version"]), name.params).canonical())
        spec = from_snapshot(shown, digest, row["entry"], name.param_dict, isolate)
        spec.origin, spec.source = "submission", f"submitted {row['created']} from {row['source']}"
        spec.withdrawn = row["withdrawn"]
        return spec


def _did_you_mean(base: str, entry_points: list[str]) -> str:
    """`` (did you mean 'greedy'?)`` for a name close to a bot in the bots directories or an
    installed entry point, else nothing."""
    import difflib

    known = set(entry_points)
    for d in search_dirs():
        try:
            known.update(
                p.stem if p.suffix == ".py" else p.name
                for p in d.iterdir()
                if not p.name.startswith((".", "_")) and (p.suffix == ".py" or p.is_dir())
            )
        except OSError:
            continue
    close = difflib.get_close_matches(base, sorted(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def load_bot(name: str, isolate: bool | None = None, resolver: Resolver | None = None) -> BotSpec:
    """Resolve ``name`` with ``resolver`` (default: one without a database or a roster: the
    registry alone)."""
    return (resolver or Resolver()).load(name, isolate)


def human_spec(name: str, params: dict) -> BotSpec:
    """The ``human`` seat: a person answering at this process's terminal."""
    from mallows.agents.human import HumanSeat

    try:
        HumanSeat(name, **params)  # its parameters, checked before the match
    except (TypeError, ValueError) as exc:
        raise BotError(f"bot {name!r}: {exc}") from None
    return BotSpec(
        name=name,
        base="human",
        params=dict(params),
        kind="human",
        isolated=False,
        trusted=False,
        version="1",
        games=tuple(game_ids()),
        bot_name="human",
        source="a person at the terminal",
        origin="human",
    )


def require_sandbox(specs: Iterable[BotSpec], limits: Limits) -> None:
    """Refuse, before the first match, to run bots that are not shipped when their sandbox
    cannot be made here (``mallows.agents.sandbox.SandboxUnavailable`` says why and what to
    do), unless ``limits.sandbox`` is ``"off"``. Nothing is ever downgraded silently."""
    if getattr(limits, "sandbox", "on") == "off":
        return
    untrusted = sorted({s.name for s in specs if s.isolated})
    if untrusted:
        from mallows.agents import sandbox

        sandbox.require(
            f"the bot{'s' if len(untrusted) > 1 else ''} {', '.join(untrusted)} "
            f"(not shipped with mallows)"
        )


@dataclass
class Listing:
    """One row of ``mallows bots list``: a spec, or the error that stopped it loading."""

    name: str
    spec: BotSpec | None
    error: str | None
    source: str


def list_bots() -> list[Listing]:
    """Every bot in the bots directories and every entry point, first name wins."""
    seen: set[str] = set()
    out: list[Listing] = []

    def add(base: str, where: str, load: Callable[[], BotSpec]) -> None:
        if base in seen:
            return
        seen.add(base)
        try:
            out.append(Listing(base, load(), None, where))
        except BotError as exc:
            out.append(Listing(base, None, str(exc), where))

    for d in search_dirs():
        for entry in sorted(d.iterdir()):
            if entry.name.startswith(("_", ".")):
                continue
            if entry.is_file() and entry.suffix == ".py":
                add(
                    entry.stem,
                    str(entry),
                    functools.partial(_from_path, entry.stem, entry.stem, {}, entry, "bots", None),
                )
            elif entry.is_dir() and (
                (entry / MANIFEST).is_file() or (entry / "__init__.py").is_file()
            ):
                add(
                    entry.name,
                    str(entry),
                    functools.partial(_from_path, entry.name, entry.name, {}, entry, "bots", None),
                )
    for ep in _entry_points():
        add(
            ep.name,
            f"entry point {ep.value}",
            functools.partial(_from_entry_point, ep.name, ep.name, {}, ep, None),
        )
    return out
