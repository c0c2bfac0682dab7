"""A tournament pins its bots: the code each one runs is fixed at its first run.

``use_database(store)`` lets the registry resolve submitted versions (``NAME@N``; a bare
``NAME`` is the newest version not withdrawn) from that database.

``pin_bots(store, t)`` runs before any match. At a tournament's first run it records, for every
bot as written in the file, the digest of the code it runs and the name it is shown under
(``mallows.agents.submissions``; a file holding the very code of a submitted version is shown
as that version); bots from files (``bots/``, paths) are snapshotted into the
database and run from the snapshot, so a resume runs exactly the code the first run ran and a
cluster receives the same bytes. Shipped bots run from the project (in-process, trusted) and
entry points from their distribution, both checked against the digest. At a rerun it compares
what each name finds today with the pin and refuses the run, naming the bot and both digests,
when the code changed and matches remain to be played. It returns the tournament with its bots under their shown names and
fills ``registry.ROSTER`` so that those names load the pinned code (here, and through
``$MALLOWS_ROSTER`` on Ray workers).
"""

from __future__ import annotations

import contextlib
import dataclasses

from mallows.agents import registry
from mallows.agents.submissions import (code_of, materialise, parse_version, short_name)
from mallows.errors import BotError, MallowsError, PinError
from mallows.results.interface import ResultStore


# -- submitted versions ------------------------------------------------------------------------

def use_database(store: ResultStore | None) -> None:
    """Resolve ``NAME@N`` and bare submitted ``NAME`` from ``store`` (for this process; None:
    from no database)."""
    registry.SUBMITTED = None if store is None else (
        lambda base, params: None if getattr(store, "closed", False)  # its run has ended
        else resolve_submission(store, base, params))


def resolve_submission(store: ResultStore, base: str, params: dict, isolate=None):
    """The ``BotSpec`` of a submitted version, or None when ``base`` is not submitted."""
    at = parse_version(base)
    if at is not None:
        name, version = at
        row = store.submission(name, version)
        if row is None:
            versions = [r["version"] for r in store.submissions(name)]
            raise BotError(f"no submitted bot {base!r}: "
                           + (f"{name} has versions {', '.join(map(str, versions))}"
                              if versions else f"nothing is submitted as {name!r} "
                              f"(mallows bots submit PATH --name {name})"))
    else:
        rows = store.submissions(base)
        if not rows:
            return None
        live = [r for r in rows if not r["withdrawn"]]
        if not live:
            raise BotError(f"every version of {base!r} is withdrawn: name one explicitly "
                           f"({base}@{rows[-1]['version']}) to see its history")
        row = live[-1]
    digest = row["digest"]
    materialise(digest, store.snapshot_files(digest))
    shown = f"{row['name']}@{row['version']}"
    if params:
        shown += ":" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))
    spec = registry.from_snapshot(shown, digest, row["entry"], params, isolate)
    spec.origin, spec.source = "submission", f"submitted {row['created']} from {row['source']}"
    spec.withdrawn = row["withdrawn"]
    return spec


@contextlib.contextmanager
def _without_submissions():
    saved, registry.SUBMITTED = registry.SUBMITTED, None
    try:
        yield
    finally:
        registry.SUBMITTED = saved


# -- pins --------------------------------------------------------------------------------------

def _current(store: ResultStore, name: str, pin: dict | None) -> dict:
    """What ``name`` runs today: a pin row (without tournament) plus the snapshot to store."""
    if pin is not None and pin["origin"] == "submission":
        return dict(pin, files=None)  # a submitted version never changes
    if pin is not None:
        with _without_submissions():  # a name pinned to a file stays a file
            spec = registry.load_bot(name)
    else:
        spec = registry.load_bot(name)
    if spec.origin == "submission":
        if getattr(spec, "withdrawn", None):
            raise PinError(f"bot {spec.name!r} was withdrawn ({spec.withdrawn}): a withdrawn "
                           f"version plays in no new tournament; submit a new version or "
                           f"name another one")
        return {"bot": name, "display": spec.name, "digest": spec.digest,
                "snapshot": spec.digest, "entry": str(spec.target or spec.cwd).rsplit("/", 1)[-1],
                "origin": "submission", "source": spec.source, "files": None}
    digest, snap = code_of(spec)
    return {"bot": name, "display": None, "digest": digest,
            "snapshot": None if snap is None or spec.trusted else digest,
            "entry": snap.entry if snap is not None else None,
            "origin": "shipped" if spec.trusted else spec.origin, "source": spec.source,
            "files": snap.files if snap is not None else None, "spec": spec}


def _with_params(shown: str, spec) -> str:
    if spec.params:
        shown += ":" + ",".join(f"{k}={v}" for k, v in sorted(spec.params.items()))
    return shown


def pin_bots(store: ResultStore, t):
    """Pin (first run) or check (rerun) ``t``'s bots; return ``t`` with its bots under their
    shown names, and fill the registry's roster. ``t`` must be registered in ``store``; a
    first run refused here leaves no trace of it (the file can be fixed and run again under
    the same name)."""
    if t.written_bots:
        return t  # pinned already
    first = not store.pins(t.name)
    try:
        return _pin(store, t)
    except MallowsError:
        if first and store.count_matches(t.name) == 0 and not store.pins(t.name):
            store.delete_tournament(t.name)
        raise


def _pin(store: ResultStore, t):
    use_database(store)
    registry.ROSTER.clear()  # one tournament's names at a time
    stored = {p["bot"]: p for p in store.pins(t.name)}
    first = not stored
    pins, snapshots, changed = [], {}, []
    for name in t.bots:
        now = _current(store, name, stored.get(name))
        if first:
            submitted = None if now["origin"] == "shipped" else store.submission_of(now["digest"])
            if now["display"] is None and submitted is not None:
                # the very code of a submitted version: shown (and rated) as that version
                now["display"] = _with_params(f"{submitted['name']}@{submitted['version']}",
                                              now["spec"])
            if now["display"] is None:
                spec = now["spec"]
                base = store.display_name(short_name(spec, name=spec.bot_name or spec.base)
                                          .split(":")[0], now["digest"])
                now["display"] = _with_params(base, spec)
            if now["files"] is not None:
                snapshots[now["digest"]] = now["files"]
            pins.append(now)
        else:
            pin = stored[name]
            if now["digest"] != pin["digest"]:
                changed.append((name, pin, now))
            pins.append(dict(pin))
    if changed and store.count_matches(t.name) < t.match_count():
        lines = [f"{name!r} (shown as {pin['display']}, {now['source']}): pinned "
                 f"{pin['digest']}, now {now['digest']}" for name, pin, now in changed]
        raise PinError(
            f"tournament {t.name!r} cannot resume: its first run pinned the code of every bot, "
            f"and this code has changed since:\n  " + "\n  ".join(lines) + "\nIts matches "
            f"were played by the pinned code, so they cannot be continued by other code. "
            f"Either restore the old code (mallows bots show {changed[0][1]['digest'][:16]} "
            f"--db {store.path} --extract DIR writes it out), or submit the change (mallows bots submit PATH) "
            f"and run it in a new tournament (give the file a new `name`)")
    shown = [p["display"] for p in pins]
    dupes = {s for s in shown if shown.count(s) > 1}
    if dupes:
        which = [p["bot"] for p in pins if p["display"] in dupes]
        raise PinError(f"`bots` lists {', '.join(map(repr, which))}, which are the same code "
                       f"with the same parameters ({', '.join(sorted(dupes))}): list it once")
    if first:
        store.add_pins(t.name, [{k: v for k, v in p.items() if k not in ("files", "spec")}
                                for p in pins], snapshots)
    for p in pins:
        if p["snapshot"]:
            materialise(p["snapshot"], store.snapshot_files(p["snapshot"]))
            _, params = registry.parse_name(p["display"])
            registry.ROSTER[p["display"]] = {"snapshot": p["snapshot"], "entry": p["entry"],
                                             "params": params}
        elif p["display"] != p["bot"]:
            registry.ROSTER[p["display"]] = {"load": p["bot"]}
    return dataclasses.replace(t, bots=tuple(shown), written_bots=tuple(t.bots))
