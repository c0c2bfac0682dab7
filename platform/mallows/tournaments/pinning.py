"""A run pins its bots: the code each one runs is fixed at its first run.

``pin_bots(store, name, bots, total, resolver)`` runs before any match of the tournament or
comparison ``name`` (registered in ``store``; ``total`` matches scheduled). At its first run it
records, for every bot as written, the digest of the code it runs and the name it is shown
under (``mallows.agents.submissions``; a file holding the very code of a submitted version is
shown as that version; another program under a short name already shown in this database
gets ``~2``, ``~3``...); bots from files (``bots/``, paths) are snapshotted into the database
and run from the snapshot, so a resume runs exactly the code the first run ran and a cluster
receives the same bytes. Shipped bots run from the project (in-process, trusted) and entry
points from their distribution, both checked against the digest. At a rerun it compares what
each name finds today with the pin and refuses the run, naming the bot and both digests, when
the code changed and matches remain to be played.

It returns ``Pins``: the shown name of every bot as written, and the ``Roster`` that makes
those names load the pinned code (the run's resolver holds it; every job carries it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mallows.agents.registry import BotSpec, Resolver
from mallows.agents.roster import Roster, RosterEntry
from mallows.agents.submissions import code_of, materialise, short_name
from mallows.botname import BotName
from mallows.errors import MallowsError, PinError
from mallows.results.interface import ResultStore


@dataclass(frozen=True)
class Pins:
    shown: tuple[str, ...]  # the shown name of each bot, in the order written
    roster: Roster  # shown name -> how it loads
    sources: dict  # shown name -> where its code came from, for people


# -- pins --------------------------------------------------------------------------------------


def _current(resolver: Resolver, name: str, pin: dict | None) -> dict:
    """What ``name`` runs today: a pin row (without tournament) plus the snapshot to store."""
    if pin is not None and pin["origin"] == "submission":
        return dict(pin, files=None)  # a submitted version never changes
    # a name pinned to a file stays a file (it never turns into a submission)
    spec = (resolver.without_submissions() if pin is not None else resolver).load(name)
    if spec.origin == "submission":
        if spec.withdrawn:
            raise PinError(
                f"bot {spec.name!r} was withdrawn ({spec.withdrawn}): a withdrawn "
                f"version plays in no new tournament; submit a new version or "
                f"name another one"
            )
        return {
            "bot": name,
            "display": spec.name,
            "digest": spec.digest,
            "snapshot": spec.digest,
            "entry": str(spec.target or spec.cwd).rsplit("/", 1)[-1],
            "origin": "submission",
            "source": spec.source,
            "files": None,
        }
    digest, snap = code_of(spec)
    return {
        "bot": name,
        "display": None,
        "digest": digest,
        "snapshot": None if snap is None or spec.trusted else digest,
        "entry": snap.entry if snap is not None else None,
        "origin": "shipped" if spec.trusted else spec.origin,
        "source": spec.source,
        "files": snap.files if snap is not None else None,
        "spec": spec,
    }


def _with_params(shown: str, spec: BotSpec) -> str:
    return str(BotName.parse(shown).with_params(spec.params).canonical())


def pin_bots(
    store: ResultStore,
    name: str,
    bots: Iterable[str],
    total: int,
    resolver: Resolver | None = None,
    kind: str = "tournament",
    extend: bool = False,
) -> Pins:
    """Pin (first run) or check (rerun) the bots of ``name`` (a tournament or comparison
    registered in ``store`` with ``total`` scheduled matches), resolving the names as written
    with ``resolver`` (default: the registry and ``store``'s submissions). A first run refused
    here leaves no trace of it (the file can be fixed and run again under the same name).
    ``extend``: a name not pinned yet is pinned now (a ladder's entrant joining), the pinned
    ones checked as on a rerun."""
    resolver = resolver if resolver is not None else Resolver(store)
    first = not store.pins(name)
    try:
        return _pin(store, name, tuple(bots), total, resolver, kind, extend)
    except MallowsError:
        if first and store.count_matches(name) == 0 and not store.pins(name):
            store.delete_tournament(name)
        raise


def _pin(
    store: ResultStore,
    run: str,
    bots: tuple[str, ...],
    total: int,
    resolver: Resolver,
    kind: str,
    extend: bool = False,
) -> Pins:
    stored = {p["bot"]: p for p in store.pins(run)}
    first = not stored
    pins, snapshots, changed, new = [], {}, [], []
    for name in bots:
        if not first and name not in stored and not extend:
            raise PinError(
                f"{kind} {run!r} in {store.path} pinned {', '.join(stored)}, not "
                f"{name!r}: give it a new name"
            )
        now = _current(resolver, name, stored.get(name))
        if first or name not in stored:
            new.append(now)
            submitted = None if now["origin"] == "shipped" else store.submission_of(now["digest"])
            if now["display"] is None and submitted is not None:
                # the very code of a submitted version: shown (and rated) as that version
                now["display"] = _with_params(
                    str(BotName(submitted["name"], int(submitted["version"]))), now["spec"]
                )
            if now["display"] is None:
                spec = now["spec"]
                short = BotName.parse(short_name(spec, name=spec.bot_name or spec.base)).plain
                base = store.display_name(short, now["digest"])
                now["display"] = _with_params(base, spec)
            if now["files"] is not None:
                snapshots[now["digest"]] = now["files"]
            pins.append(now)
        else:
            pin = stored[name]
            if now["digest"] != pin["digest"]:
                changed.append((name, pin, now))
            pins.append(dict(pin))
    if changed and store.count_matches(run) < total:
        lines = [
            f"{name!r} (shown as {pin['display']}, {now['source']}): pinned "
            f"{pin['digest']}, now {now['digest']}"
            for name, pin, now in changed
        ]
        raise PinError(
            f"{kind} {run!r} cannot resume: its first run pinned the code of every bot, "
            f"and this code has changed since:\n  " + "\n  ".join(lines) + "\nIts matches "
            f"were played by the pinned code, so they cannot be continued by other code. "
            f"Either restore the old code (mallows bots show {changed[0][1]['digest'][:16]} "
            f"--db {store.path} --extract DIR writes it out), or submit the change (mallows bots submit PATH) "
            f"and run it in a new {kind} ("
            + ("give the file a new `name`)" if kind == "tournament" else "give it a new --name)")
        )
    shown = [p["display"] for p in pins]
    dupes = {s for s in shown if shown.count(s) > 1}
    if dupes:
        which = [p["bot"] for p in pins if p["display"] in dupes]
        raise PinError(
            f"`bots` lists {', '.join(map(repr, which))}, which are the same code "
            f"with the same parameters ({', '.join(sorted(dupes))}): list it once"
        )
    if new:
        store.add_pins(
            run,
            [{k: v for k, v in p.items() if k not in ("files", "spec")} for p in new],
            snapshots,
        )
    entries = []
    for p in pins:
        if p["snapshot"]:
            materialise(p["snapshot"], store.snapshot_files(p["snapshot"]))
            params = tuple((k, v) for k, v in BotName.parse(p["display"]).params if v is not None)
            entries.append(
                (p["display"], RosterEntry(snapshot=p["snapshot"], entry=p["entry"], params=params))
            )
        else:
            entries.append((p["display"], RosterEntry(load=p["bot"])))
    return Pins(tuple(shown), Roster(tuple(entries)), {p["display"]: p["source"] for p in pins})
