"""A ladder's unannounced checks: now and then, after an epoch's matches, one check table that
re-checks entrants, played exactly as a ladder table and kept apart from the standings.

The submit check vets conformance, not intent: a bot may behave while it is examined and
misbehave once it plays. So a ladder re-checks its entrants from time to time, unannounced:

- **when**: after each epoch, a draw keyed with the ladder's secret key (``RATE``: about one
  epoch in four) says whether this epoch gets a check table; no bot can know;
- **who**: the checked entrant is drawn among the active ones, least checked first, and seated
  with ``players - 1`` others of the active field drawn the same way;
- **how**: as a ladder table (``schedule.LadderSchedule``): the entrants under their shown
  names, ``deals`` deals in every rotation, the ladder's limits, its keyed match seeds (the
  table numbered from ``CHECK_TABLES``, so no seed is one of the ladder's own), through the
  ladder's executor. A bot sees nothing that differs in kind from a ladder match;
- **verdict**: a bot of the table that forfeits any of its matches failed (the reason is the
  forfeit's). It is *suspended* (a ``suspend`` event: never scheduled again, its matches stay
  in the standings, ``mallows ladder status`` says why);
- **apart from the standings**: the check's matches are not stored as the ladder's matches
  (no fit, no rating sees them); each check is a ``check`` event of the ladder (its epoch,
  table, bots, matches and who failed, as JSON in the note), so ``ladder status`` counts the
  checks done and failed, and a resumed ladder does not check an epoch twice.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from mallows.results.interface import ResultStore
from mallows.runner.executor import Executor
from mallows.tournaments.ladder.schedule import LadderSchedule, Table
from mallows.tournaments.ladder.spec import Ladder
from mallows.tournaments.plan import Plan

if TYPE_CHECKING:  # run imports this module
    from mallows.tournaments.ladder.run import LadderState

#: The share of epochs followed by a check table (a keyed draw an epoch).
RATE = 0.25
#: Check tables are numbered from here: their keyed match seeds are none of the ladder's own.
CHECK_TABLES = 1 << 40
#: The keyed draws (whether an epoch is checked, and whom) use schedule places from here.
DRAWS = 1 << 50
EVENT = "check"  # the event recording a check (its note: the check as JSON)
SUSPEND = "suspend"  # the event suspending a bot that failed one
NOTE_CHARS = 500


@dataclass
class Check:
    """One check table's outcome."""

    epoch: int
    table: Table
    matches: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # shown name -> the first reason
    errors: int = 0  # matches the platform could not play (no verdict from them)

    def note(self) -> str:
        return json.dumps(
            {
                "epoch": self.epoch,
                "table": self.table.tbl,
                "bots": list(self.table.bots),
                "matches": self.matches,
                "failed": self.failed,
                "errors": self.errors,
            },
            sort_keys=True,
        )


def draw(ladder: Any, epoch: int) -> random.Random:
    """The epoch's keyed draw (only the key's holder can compute it)."""
    return random.Random(ladder.chance.match_seed(ladder.seed, DRAWS + epoch))


def recorded(events: Iterable[dict]) -> list[dict]:
    """The checks recorded in ``events`` (decoded), in order."""
    out = []
    for e in events:
        if e["kind"] == EVENT:
            try:
                out.append(json.loads(e["note"] or "{}"))
            except ValueError:
                continue
    return out


def check_table(ladder: Ladder, epoch: int, field_names: list[str], counts: dict) -> Table | None:
    """The check table after ``epoch`` (None: not this epoch, or too few entrants): the
    checked bot the least checked of ``field_names`` (``counts``: checks so far by bot), ties
    drawn; the others drawn from the rest."""
    rng = draw(ladder, epoch)
    k = ladder.players
    if rng.random() >= RATE or len(field_names) < k:
        return None
    least = min(counts.get(b, 0) for b in field_names)
    checked = rng.choice(sorted(b for b in field_names if counts.get(b, 0) == least))
    bots = [checked] + rng.sample(sorted(b for b in field_names if b != checked), k - 1)
    rng.shuffle(bots)
    return Table(CHECK_TABLES + epoch, 0, tuple(bots), EVENT, ladder.deals * k)


def play_check(table: Table, epoch: int, ladder: Ladder, plan: Plan, executor: Executor) -> Check:
    """Play ``table`` as the ladder plays its tables (``plan``'s jobs, ``executor``) and judge
    each bot at it: any forfeit fails it."""
    schedule = LadderSchedule(
        [table], ladder.players, ladder.deals, ladder.seed, ladder.chance, ladder.schedule
    )
    check = Check(epoch, table)
    for outcome in executor.run(plan.jobs(schedule), len(schedule)):
        record = outcome.record
        if record is None:
            check.errors += 1
            continue
        check.matches += 1
        for bot, reason in zip(record["players"], record["result"]["forfeits"]):
            if reason and bot not in check.failed:
                check.failed[bot] = str(reason)[:NOTE_CHARS]
    return check


def pending(store: ResultStore, ladder: Ladder, state: LadderState) -> Table | None:
    """The check table due after the last stored epoch of ``state``, every match of it stored,
    and not played yet (a kill may have cut it short: a resumed ladder plays it first)."""
    if not state.epochs or store.count_matches(ladder.name) < state.planned:
        return None
    epoch = state.epochs[-1]["epoch"]
    events = store.ladders.events(ladder.name)
    done = recorded(events)
    if any(c.get("epoch") == epoch for c in done):
        return None
    suspended = {e["bot"] for e in events if e["kind"] == SUSPEND}
    active = [e.shown for e in state.active() if e.shown and e.written not in suspended]
    counts: dict[str, int] = {}
    for c in done:
        for b in c.get("bots", []):
            counts[b] = counts.get(b, 0) + 1
    return check_table(ladder, epoch, active, counts)


def after_epoch(
    store: ResultStore, ladder: Ladder, state: LadderState, plan: Plan, executor: Executor
) -> Check | None:
    """Check after the last stored epoch of ``state`` (``pending``): play the table, record
    the check, suspend who failed. Returns the check, or None."""
    table = pending(store, ladder, state)
    if table is None:
        return None
    epoch = state.epochs[-1]["epoch"]
    check = play_check(table, epoch, ladder, plan, executor)
    written = {e.shown: e.written for e in state.entrants.values() if e.shown}
    store.ladders.add_event(ladder.name, EVENT, None, check.note())
    for bot, reason in check.failed.items():
        store.ladders.add_event(
            ladder.name,
            SUSPEND,
            written.get(bot, bot),
            f"failed an unannounced check after epoch {epoch + 1}: {reason}"[:NOTE_CHARS],
        )
    return check


def summary(events: Iterable[dict]) -> dict:
    """The checks of a ladder's ``events`` for its status: how many, how many matches, and
    each failure (bot, epoch, reason)."""
    done = recorded(events)
    failed = [
        {"bot": bot, "epoch": c.get("epoch", 0) + 1, "reason": reason}
        for c in done
        for bot, reason in sorted(c.get("failed", {}).items())
    ]
    return {
        "done": len(done),
        "matches": sum(int(c.get("matches", 0)) for c in done),
        "failed": failed,
    }
