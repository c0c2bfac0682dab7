"""Running a ladder: epochs planned from the stored state, played by the one run loop.

``run_ladder(ladder, store, make_executor, resolver)`` registers the ladder (a ``tournaments``
row whose definition's ``kind`` is ``"ladder"``; a changed file under the same name is refused,
naming what changed), then repeats, until its questions are answered, it reaches
``max_matches``, its finals end or someone runs ``mallows ladder stop``:

1. **read the events** recorded since the last epoch (``store.ladders``): joins (``mallows bots
   submit --ladder``, ``mallows ladder join``, or, with ``submitted = "newest"``/``"every"``,
   a version submitted to the database, recorded here as a join), withdrawals (``mallows
   ladder withdraw``, a withdrawn submission, an older version a newer one replaces), finals;
2. **check and pin** the bots that joined (the tournaments' check; a bot that fails it is
   refused, recorded as an event, and never scheduled): each runs pinned code from then on;
3. **fit** every stored match at once (``mallows.results.plackett_luce.fit_history``: the order
   matches were played in does not matter) and **answer** the questions
   (``mallows.tournaments.ladder.questions``); all answered: the ladder is finished;
4. **plan** the epoch (``schedule.plan_epoch``: base tables, a newcomer's boosted tables
   at ``mallows.tournaments.ladder.policy.entry_rate``, extra tables for the open questions only)
   and store it, every table with its reason, before any of it is played;
5. **play** it through ``tournaments.run.execute`` (stored like a tournament's matches; a
   ``stop`` recorded while it runs leaves at once, what is in flight abandoned);
6. now and then, **check** unannounced (``checks``): one table re-checking entrants, played as
   a ladder table, kept apart from the standings; a bot that forfeits there is suspended.

An epoch is planned only once every match of the epochs before it is stored, and only from
what is stored (matches, events) and the ladder's seed: a ladder killed at any moment (kill -9
included) and run again replays the stored epochs, plays what is missing and goes on with the
very schedule it would have played unstopped.

**Finals** (``mallows ladder finals NAME``, with the file's ``[finals]``): entries are frozen
(a later join is refused), the stages play base tables only over the field of the moment; after
each stage the field is cut to the top ``cutoffs[i]`` of the whole-history fit (no drift: tau
0, every match weighs the same whenever it was played); after the last cutoff one more stage
plays, and the final table is the fit over the finalists with its certainty (the probability
the whole final order is right, P(rank <= k) for each).
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from mallows.results.interface import ResultStore
from mallows import seeding
from mallows.agents.protocol import Limits
from mallows.agents.registry import Resolver
from mallows.botname import BotName
from mallows.errors import LadderError, MallowsError
from mallows.results.store import StorageError
from mallows.tournaments.ladder import checks
from mallows.tournaments.ladder.schedule import LadderSchedule, Table, plan_epoch
from mallows.tournaments.ladder.spec import KIND, Ladder, check_ladder_bots, from_definition
from mallows.tournaments.plan import Plan
from mallows.tournaments.format import diff_definitions, get_format
from mallows.tournaments.run import add_run

if TYPE_CHECKING:
    from mallows.results.plackett_luce import HistoryFit
    from mallows.runner.executor import Executor
    from mallows.runner.worker import Outcome
    from mallows.tournaments.ladder.policy import Policy
    from mallows.tournaments.pinning import Pins
    from mallows.tournaments.seating import MatchSpec

SOURCE = "mallows ladder"
#: Keys of the definition a resumed ladder may change: its cap (the stored digest stays that
#: of the first run; the definition is the newest)
MUTABLE = ("max_matches",)
STOP_POLL_SECONDS = 0.5  # how often a running epoch looks for a `stop`
FOLLOW_POLL_SECONDS = 2.0  # how often an answered ladder run with --follow looks for joins
MIN_EPOCH_MATCHES = 6  # an epoch's base tables hold at least this many matches ...
EPOCH_SHARE = 10  # ... and at least 1/10 of the matches planned before it
MAX_PASSES = 10_000
#: The events that take an entrant out of the schedule, and the status each gives it
GONE = {"withdraw": "withdrawn", "retire": "retired", "refuse": "refused", "suspend": "suspended"}


@dataclass
class Entrant:
    written: str  # the name as written (file, join)
    joined: int  # the epoch (0-based index) it joined in (0 too for the file's)
    status: str = "active"  # active, withdrawn, retired, refused, eliminated
    note: str = ""
    shown: str = ""  # the name it is shown and rated under (its pin)
    entered: bool = False  # joined by an event (a newcomer), not in the file

    @property
    def newcomer(self) -> bool:
        """It joined after the start (by an event, even before the first epoch)."""
        return self.entered or self.joined > 0


@dataclass
class LadderState:
    """A ladder as the store has it at an epoch boundary."""

    ladder: Ladder
    entrants: dict[str, Entrant] = field(default_factory=dict)  # by written name
    epochs: list[dict] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    events_upto: int = 0
    mode: str = "ladder"  # "ladder", "finals:S" (stage S), "done"
    stage_epochs: int = 0  # epochs played in the current finals stage

    @property
    def next_epoch(self) -> int:
        return len(self.epochs)

    @property
    def planned(self) -> int:
        return self.tables[-1].first + self.tables[-1].count if self.tables else 0

    def active(self) -> list[Entrant]:
        return [e for e in self.entrants.values() if e.status == "active"]


@dataclass
class LadderResult:
    epochs: int = 0  # epochs planned in all
    played: int = 0  # matches played by this run
    stored: int = 0  # matches of the ladder in the store
    finished: bool = False  # its questions answered (or its finals over, or the cap)
    stopped: bool = False  # `mallows ladder stop`
    why: str = ""  # why it ended, in words
    answers: list = field(default_factory=list)


# -- registering --------------------------------------------------------------------------------


def register(store: ResultStore, ladder: Ladder) -> bool:
    """Record the ladder (True) or check it against the stored one (False: a resume)."""
    row = store.tournament(ladder.name)
    definition = ladder.definition()
    if row is None:
        add_run(store, ladder, ladder.source or SOURCE, 0)
        return True
    old = json.loads(row["definition"])
    if old.get("kind") != KIND:
        raise LadderError(
            f"{ladder.name!r} in {store.path} is a {old.get('kind', 'tournament')}, "
            f"not a ladder: give the ladder file another `name`"
        )
    if row["digest"] != ladder.digest():
        same = {k: v for k, v in old.items() if k not in MUTABLE} == {
            k: v for k, v in definition.items() if k not in MUTABLE
        }
        if same:  # a higher (or lower) cap: the same ladder, run longer (or shorter)
            store.update_tournament(ladder.name, definition=json.dumps(definition, sort_keys=True))
            return False
        changes = diff_definitions(old, definition)
        raise StorageError(
            f"ladder {ladder.name!r} is already in {store.path} with a different definition; "
            f"changed: {'; '.join(changes)}. Its matches were played under the old one, so it "
            f"cannot resume: give the file a new `name`, restore the old values, or use "
            f"another --db"
        )
    return False


def keyed(store: ResultStore, ladder: Ladder, key: bytes | None = None) -> Ladder:
    """The ladder with its secret key (made once, kept in the database): the deals and the
    bots' seeds are keyed, as a comparison's are."""
    kept = store.chance_key(ladder.name) or store.put_chance_key(
        ladder.name, key or seeding.fresh_key()
    )
    return dataclasses.replace(
        ladder, chance=seeding.Chance(seeding.KEYED, kept, secret_deals=True)
    )


def stored_ladder(store: ResultStore, name: str) -> Ladder:
    """The ladder ``name`` as its stored definition says (no file needed)."""
    row = store.tournament(name)
    if row is None:
        raise LadderError(
            f"no ladder {name!r} in {store.path}: start it with mallows ladder "
            f"run FILE --db {store.path}"
        )
    definition = json.loads(row["definition"])
    if definition.get("kind") != KIND:
        raise LadderError(
            f"{name!r} in {store.path} is a {definition.get('kind') or 'tournament'}, not a ladder"
        )
    return from_definition(definition)


# -- the state, from what is stored -------------------------------------------------------------


def _tables(rows: list[dict]) -> list[Table]:
    return [Table(r["tbl"], r["first"], tuple(r["bots"]), r["reason"], r["count"]) for r in rows]


def read_state(store: ResultStore, ladder: Ladder) -> LadderState:
    """The ladder's state after its stored epochs (the events they applied, nothing newer)."""
    state = LadderState(ladder)
    for name in ladder.entrants:
        state.entrants[name] = Entrant(name, 0)
    state.epochs = store.ladders.epochs(ladder.name)
    state.tables = _tables(store.ladders.tables(ladder.name))
    upto = state.epochs[-1]["events_upto"] if state.epochs else 0
    epoch_of_event: list[tuple[int, int]] = [(e["events_upto"], e["epoch"]) for e in state.epochs]
    for event in store.ladders.events(ladder.name):
        if event["seq"] > upto:
            break
        at = next((ep for seq, ep in epoch_of_event if event["seq"] <= seq), 0)
        _apply(state, event, at)
    state.events_upto = upto
    for pin in store.pins(ladder.name):
        if pin["bot"] in state.entrants:
            state.entrants[pin["bot"]].shown = pin["display"]
    if state.epochs:
        last = state.epochs[-1]
        state.mode = last["mode"]
        state.stage_epochs = sum(1 for e in state.epochs if e["mode"] == last["mode"])
        active = set(last["field"])
        for e in state.entrants.values():  # the field an epoch was planned with is the truth
            if e.status == "active" and e.shown and e.shown not in active:
                e.status = "eliminated" if last["mode"].startswith("finals") else e.status
    return state


def _apply(state: LadderState, event: dict, epoch: int) -> None:
    """One event's effect on the state (the same whenever it is read)."""
    kind, bot = event["kind"], event["bot"]
    entrants = state.entrants
    if kind == "join" and bot:
        if state.mode != "ladder":
            entrants.setdefault(
                bot,
                Entrant(
                    bot,
                    epoch,
                    "refused",
                    "the ladder is in its finals: entries are frozen",
                    entered=True,
                ),
            )
            return
        if bot not in entrants:
            entrants[bot] = Entrant(bot, epoch, entered=True)
        elif entrants[bot].status in ("withdrawn", "retired"):
            entrants[bot].status, entrants[bot].note = "active", "rejoined"
    elif kind in GONE and bot in entrants:
        entrants[bot].status = GONE[kind]
        entrants[bot].note = event["note"] or ""
    elif kind == "finals" and state.mode == "ladder":
        state.mode, state.stage_epochs = "finals:0", 0


# -- events the ladder records itself ----------------------------------------------------------


def _resolve_join(store: ResultStore, ladder: Ladder, bot: str) -> str:
    """How a joined name is written: a submitted NAME without a version is pinned to its newest
    version now (so a later version is a new entrant, not the same one changed)."""
    try:
        parsed = BotName.parse(bot)
    except MallowsError as exc:
        raise LadderError(f"cannot join {bot!r}: {exc}") from None
    if parsed.version is None and not parsed.is_path:
        newest = store.newest_digest(parsed.base)
        if newest is not None:
            return str(parsed.with_base(parsed.base, newest[0]).canonical())
    return str(parsed.canonical())


def check_entries_open(store: ResultStore, name: str, bot: str) -> None:
    """A ``LadderError`` once ``mallows ladder finals`` was asked for ladder ``name`` (its
    event recorded, whether or not an epoch has played it yet): entries are frozen."""
    if any(e["kind"] == "finals" for e in store.ladders.events(name)):
        raise LadderError(
            f"ladder {name!r} is in its finals (mallows ladder finals): entries are frozen, "
            f"so {bot!r} cannot join it; enter it in a new ladder (another name in the file)"
        )


def join(store: ResultStore, name: str, bot: str, note: str = "") -> str:
    """Record that ``bot`` joins ladder ``name`` (it is checked and pinned when the ladder
    plans its next epoch). Returns the name as recorded; refused once finals are asked for."""
    ladder = stored_ladder(store, name)
    check_entries_open(store, name, bot)
    written = _resolve_join(store, ladder, bot)
    if written in ladder.entrants:
        raise LadderError(f"{written!r} is already an entrant of ladder {name!r}")
    for e in store.ladders.events(name):
        if e["kind"] == "join" and e["bot"] == written:
            raise LadderError(f"{written!r} has already joined ladder {name!r}")
    store.ladders.add_event(name, "join", written, note)
    return written


def withdraw(store: ResultStore, name: str, bot: str, note: str = "") -> str:
    """Record that ``bot`` (as written or as shown) stops being scheduled in ladder ``name``;
    its matches stay in the results."""
    ladder = stored_ladder(store, name)
    state = read_state(store, ladder)
    pending = [
        e["bot"] for e in store.ladders.events(name, state.events_upto) if e["kind"] == "join"
    ]
    known = {
        **{e.written: e.written for e in state.entrants.values()},
        **{e.shown: e.written for e in state.entrants.values() if e.shown},
        **{b: b for b in pending},
    }
    if bot not in known:
        names = sorted(set(known))
        raise LadderError(
            f"ladder {name!r} has no entrant {bot!r}: its entrants are "
            f"{', '.join(names) or 'none yet'}"
        )
    store.ladders.add_event(name, "withdraw", known[bot], note or "withdrawn")
    return known[bot]


def _auto_events(store: ResultStore, ladder: Ladder, state: LadderState) -> None:
    """With ``submitted = "newest"`` or ``"every"``: a version submitted to the database and not
    in the ladder yet joins (with "newest", the older versions of its name retire); a withdrawn
    submission is withdrawn from the ladder. Recorded as events, so a resume sees the same."""
    pending = store.ladders.events(ladder.name, state.events_upto)
    known = set(state.entrants) | {e["bot"] for e in pending if e["kind"] == "join"}
    gone = {e.written for e in state.entrants.values() if e.status != "active"} | {
        e["bot"] for e in pending if e["kind"] in GONE
    }
    for sub in store.submissions():
        written = f"{sub['name']}@{sub['version']}"
        if sub.get("withdrawn"):
            if written in known and written not in gone:
                store.ladders.add_event(
                    ladder.name, "withdraw", written, f"submission withdrawn: {sub['withdrawn']}"
                )
            continue
        if ladder.submitted == "none" or written in known:
            continue
        if ladder.submitted == "newest":
            newest = store.newest_digest(sub["name"])
            if newest is None or int(newest[0]) != int(sub["version"]):
                continue
        store.ladders.add_event(ladder.name, "join", written, "submitted")
        known.add(written)
    if ladder.submitted == "newest":  # an older version retires when a newer one is in
        versions: dict[str, list[tuple[int, str]]] = {}
        for w in known:
            parsed = BotName.parse(w)
            if parsed.version is not None:
                versions.setdefault(parsed.base, []).append((parsed.version, w))
        for vs in versions.values():
            for _, w in sorted(vs)[:-1]:
                if w not in gone:
                    store.ladders.add_event(ladder.name, "retire", w, "a newer version joined")


# -- planning ---------------------------------------------------------------------------------


def _fit(store: ResultStore, name: str, bots: list[str]) -> HistoryFit:
    from mallows.results.plackett_luce import fit_history

    return fit_history(store.results(tournament=name), bots=tuple(bots))


def questions_for(ladder: Ladder, state: LadderState) -> list:
    """The ladder's questions over the shown names: the file's, with ``newcomers`` made one
    ``Place`` question for each bot that joined after the start and is still active. Without
    a ``newcomers`` question, each such bot still has the implicit one
    (``mallows.tournaments.ladder.policy.place_question``): a ladder does not end before it knows
    where a newcomer belongs. In finals there are no newcomers (entries are frozen)."""
    from mallows.tournaments.ladder.policy import place_question
    from mallows.tournaments.ladder.questions import parse_question

    shown = {e.written: e.shown or e.written for e in state.entrants.values()}
    active = {e.shown or e.written for e in state.active()}
    out: list[Any] = []
    if not any(q.get("type") == "newcomers" for q in ladder.questions):
        out += [
            place_question(e.shown, policy_of(ladder))
            for e in state.active()
            if e.newcomer and e.shown
        ]
    for q in ladder.questions:
        if q.get("type") == "newcomers":
            for e in state.entrants.values():
                if e.newcomer and e.status == "active":
                    out.append(parse_question({**q, "type": "place", "bot": e.shown or e.written}))
            continue
        if q.get("type") == "place":
            bot = shown.get(q["bot"], q["bot"])
            if bot not in active:
                continue  # not (or no longer) in the field: nothing to answer
            out.append(parse_question({**q, "bot": bot}))
            continue
        out.append(parse_question(dict(q)))
    return out


def policy_of(ladder: Ladder) -> Policy:
    from mallows.tournaments.ladder.policy import Policy

    return Policy(boost=float(ladder.boost))


def answers_for(ladder: Ladder, state: LadderState, fit: HistoryFit) -> list:
    from mallows.tournaments.ladder.questions import answer

    return [answer(q, fit) for q in questions_for(ladder, state)]


def restrict(fit: HistoryFit, bots: list[str]) -> HistoryFit:
    """``fit`` seen over ``bots`` only: the same ratings and covariance (every match, a
    withdrawn bot's included, informs them), each sampled draw's ranks taken among ``bots``.
    The questions are about the field that still plays: a withdrawn bot stays in the
    standings but no longer holds a question open."""
    import numpy as np

    from mallows.results.plackett_luce import HistoryFit

    keep = [i for i, b in enumerate(fit.bots) if b in set(bots)]
    draws = fit.rank_draws[:, keep]
    ranks = (
        np.argsort(np.argsort(draws, axis=1, kind="stable"), axis=1, kind="stable") + 1
        if len(draws)
        else draws
    )
    return HistoryFit(
        tuple(fit.bots[i] for i in keep),
        fit.theta[keep],
        fit.cov[np.ix_(keep, keep)],
        ranks.astype(fit.rank_draws.dtype),
        fit.played[keep],
        fit.mean_place[keep],
        fit.matches,
        fit.iterations,
        fit.level,
    )


def fits(store: ResultStore, state: LadderState) -> tuple[HistoryFit, HistoryFit]:
    """The fit over every stored match (the standings) and that fit over the active field
    (the questions, the newcomers' rates, the extra tables)."""
    field_names = [e.shown or e.written for e in state.active()]  # (unpinned: as written)
    whole = _fit(store, state.ladder.name, field_names)
    return whole, restrict(whole, field_names)


def _finals_cut(ladder: Ladder, state: LadderState, fit: HistoryFit) -> None:
    """End a finals stage: keep the top ``cutoffs[stage]`` of the field by the fit."""
    assert ladder.finals is not None
    stage = int(state.mode.split(":")[1])
    active = [e for e in state.active() if e.shown]
    if stage < len(ladder.finals.cutoffs):
        keep = ladder.finals.cutoffs[stage]
        order = [b for b in fit.order() if b in {e.shown for e in active}]
        kept = set(order[:keep])
        for e in active:
            if e.shown not in kept:
                e.status, e.note = (
                    "eliminated",
                    f"below the cut of {keep} after finals stage {stage}",
                )
        state.mode, state.stage_epochs = f"finals:{stage + 1}", 0
    else:
        state.mode = "done"


def plan_next(
    store: ResultStore,
    state: LadderState,
    resolver: Resolver,
    sandbox: str | None,
    memo: dict | None = None,
) -> tuple[list[Table] | None, str, list]:
    """Apply the new events, check and pin who joined, fit, answer, and plan and store the next
    epoch. Returns (its tables, "" ) or (None, why the ladder ends, the answers)."""
    from mallows.tournaments.ladder.policy import all_answered, entry_rate, extra_tables

    ladder = state.ladder
    _auto_events(store, ladder, state)
    new_events = store.ladders.events(ladder.name, state.events_upto)
    for event in new_events:
        _apply(state, event, state.next_epoch)
    upto = new_events[-1]["seq"] if new_events else state.events_upto
    # check the entrants that joined: one that fails is refused (recorded), never scheduled
    fresh = [e for e in state.active() if not e.shown]
    for e in fresh:
        try:
            check_ladder_bots(ladder, resolver, sandbox, names=(e.written,))
        except MallowsError as exc:
            e.status, e.note = "refused", str(exc)
            store.ladders.add_event(ladder.name, "refuse", e.written, str(exc)[:500])
            upto = store.ladders.events(ladder.name)[-1]["seq"]
    _pin(store, state, resolver, memo)
    _, fit = fits(store, state)
    answers = answers_for(ladder, state, fit)
    active = [e.shown for e in state.active() if e.shown]
    k, policy = ladder.players, policy_of(ladder)
    if state.mode.startswith("finals"):
        if ladder.finals is None:
            raise LadderError(f"ladder {ladder.name!r} has no [finals] in its file")
        if state.stage_epochs >= ladder.finals.epochs:
            _finals_cut(ladder, state, fit)
            active = [e.shown for e in state.active() if e.shown]
        if state.mode == "done":
            return None, "finals over: the final table is the fit over the finalists", answers
    elif ladder.questions and all_answered(answers):
        return None, "every question is answered", answers
    if state.planned >= ladder.max_matches:
        return None, f"max_matches ({ladder.max_matches:,}) reached", answers
    if len(active) < k:
        return (
            None,
            (
                f"the field has {len(active)} active bot(s), fewer than the {k} seats "
                f"of a table: waiting for entrants"
            ),
            answers,
        )
    epoch = state.next_epoch
    boosted: list[tuple[str, int]] = []
    extra: list[tuple[tuple[str, ...], str]] = []
    challengers: list[str] = []
    if ladder.style == "gauntlet":
        shown = {e.written: e.shown for e in state.entrants.values()}
        challengers = [shown[c] for c in ladder.challengers if shown.get(c) in active]
    field_names = [b for b in active if b not in challengers] if challengers else active
    per_pass = (
        -(-len(field_names) // k)
        if not challengers
        else len(challengers) * -(-len(field_names) // (k - 1))
    )
    passes = epoch_passes(ladder, state.planned, per_pass)
    if state.mode == "ladder":
        for e in state.active():
            if e.newcomer and e.shown:
                rate = entry_rate(e.shown, fit, policy)
                if rate > 1:  # its tables beyond the base: (rate - 1) a pass
                    boosted.append((e.shown, int(round((rate - 1) * passes))))
        count = policy.extra_count(per_pass * passes, answers)
        if count:
            for t in extra_tables(
                answers, fit, k, count, seed=seeding.child_seed(ladder.seed, 1_000_000 + epoch)
            ):
                bots = [b for b in t.bots if b in active]
                fill = [b for b in fit.order() if b in active and b not in bots]
                extra.append((tuple((bots + fill)[:k]), f"extra:{t.question}"))
    tables = plan_epoch(
        ladder.seed,
        epoch,
        state.planned,
        len(state.tables),
        field_names,
        k,
        ladder.deals,
        challengers=challengers,
        passes=passes,
        boosted=boosted,
        extra=extra,
    )
    if state.mode.startswith("finals"):
        stage = state.mode.split(":")[1]
        tables = [dataclasses.replace(t, reason=f"finals:{stage}") for t in tables]
    tables = capped(tables, ladder.max_matches - state.planned)
    row = {
        "epoch": epoch,
        "first": state.planned,
        "count": sum(t.count for t in tables),
        "mode": state.mode,
        "field": active,
        "events_upto": upto,
        "newcomers": [b for b, _ in boosted],
    }
    store.ladders.add_epoch(ladder.name, row, [t.as_row() for t in tables])
    state.epochs.append({**row, "newcomers": row["newcomers"]})
    state.tables += tables
    state.events_upto = upto
    state.stage_epochs += 1
    return tables, "", answers


def capped(tables: list[Table], room: int) -> list[Table]:
    """The epoch's tables cut to ``room`` matches: ``max_matches`` holds to the match (the
    last table kept plays fewer of its seatings)."""
    out: list[Table] = []
    for t in tables:
        if room <= 0:
            break
        out.append(t if t.count <= room else dataclasses.replace(t, count=room))
        room -= t.count
    return out


def epoch_passes(ladder: Ladder, planned: int, per_pass: int) -> int:
    """Base passes of the next epoch: the file's ``passes``, more when an epoch would be small
    beside the ladder: at least ``MIN_EPOCH_MATCHES`` base matches, and at least
    1/``EPOCH_SHARE`` of what is planned so far. Each epoch fits and rates every stored match
    once, so epochs that grow with the ladder keep that work in proportion to the matches
    (a newcomer waits for the epoch being played: at most about 1/``EPOCH_SHARE`` of the
    ladder)."""
    per_pass_matches = max(1, per_pass * ladder.players * ladder.deals)
    want = max(MIN_EPOCH_MATCHES, planned // EPOCH_SHARE)
    return min(MAX_PASSES, max(ladder.passes, -(-want // per_pass_matches)))


def _pin(
    store: ResultStore, state: LadderState, resolver: Resolver, memo: dict | None = None
) -> Pins:
    """Pin the active entrants (the new ones now; the others checked as on a rerun: once a
    run, ``memo`` keeping what was checked). One no longer scheduled keeps its pin and its
    shown name but is not checked: a withdrawn file may change without stopping the ladder."""
    from mallows.tournaments.pinning import pin_bots

    names = [e.written for e in state.active()]
    key = tuple(names)
    if memo is not None and key in memo:
        pins = memo[key]
    else:
        pins = pin_bots(
            store,
            state.ladder.name,
            names,
            store.count_matches(state.ladder.name) + 1,
            resolver,
            kind="ladder",
            extend=True,
        )
        if memo is not None:
            memo[key] = pins
    for written, shown in zip(names, pins.shown):
        state.entrants[written].shown = shown
    return pins


# -- running -----------------------------------------------------------------------------------


class LadderStop:
    """``execute``'s stop rule for one epoch: a ``mallows ladder stop`` recorded after this run
    began (looked for at most every ``STOP_POLL_SECONDS``)."""

    def __init__(self, store: ResultStore, name: str, after: int) -> None:
        self.store, self.name, self.after = store, name, after
        self._decided, self._at = False, 0.0

    @property
    def decided(self) -> bool:
        now = time.monotonic()
        if not self._decided and now - self._at >= STOP_POLL_SECONDS:
            self._at = now
            self._decided = any(
                e["kind"] == "stop" for e in self.store.ladders.events(self.name, self.after)
            )
        return self._decided

    def replay(self, store: ResultStore, name: str) -> None:
        return None

    def add(self, spec: MatchSpec, outcome: Outcome) -> None:
        return None


def stop_rule(store: ResultStore, ladder: Ladder) -> LadderStop:
    """The stop rule of a run starting now: a ``stop`` recorded after the last event so far."""
    events = store.ladders.events(ladder.name)
    return LadderStop(store, ladder.name, events[-1]["seq"] if events else 0)


def ladder_schedule(ladder: Ladder, state: LadderState) -> LadderSchedule:
    """Every table planned so far (the stored epochs), as one schedule."""
    return LadderSchedule(
        state.tables, ladder.players, ladder.deals, ladder.seed, ladder.chance, ladder.schedule
    )


def _plan(
    store: ResultStore,
    ladder: Ladder,
    state: LadderState,
    resolver: Resolver,
    memo: dict | None = None,
) -> Plan:
    pins = _pin(store, state, resolver, memo)
    shown = {e.written: e.shown for e in state.entrants.values() if e.shown}
    everyone = tuple(pins.shown) + tuple(s for s in shown.values() if s not in pins.shown)
    return Plan(
        run=ladder,
        kind=KIND,
        name=ladder.name,
        game=ladder.game,
        options=ladder.effective_options,
        limits=Limits.from_dict(ladder.limits),
        bots=everyone,
        shown=shown,
        schedule=ladder_schedule(ladder, state),
        roster=pins.roster,
        resolver=resolver.with_roster(pins.roster),
        ratings=ladder.definition()["ratings"],
        format=get_format(KIND),
        sources=pins.sources,
    )


def prepare_ladder(
    ladder: Ladder,
    store: ResultStore,
    resolver: Resolver | None = None,
    sandbox: str | None = None,
    key: bytes | None = None,
) -> Ladder:
    """Check the file's bots (unless done), register the ladder, key it: what ``run_ladder``
    needs before its first epoch. Returns the ladder as stored (its drawn seed, its key)."""
    resolver = resolver if resolver is not None else Resolver(store)
    row = store.tournament(ladder.name)
    ladder = ladder.stored_seed(json.loads(row["definition"]) if row is not None else None)
    if not ladder.bot_sources:
        ladder = check_ladder_bots(ladder, resolver, sandbox)
    register(store, ladder)
    return keyed(store, ladder, key)


def run_ladder(
    ladder: Ladder,
    store: ResultStore,
    make_executor: Callable[[list[str]], Executor],
    resolver: Resolver | None = None,
    sandbox: str | None = None,
    on_epoch: Callable[[LadderState, list[Table]], None] | None = None,
    on_outcome: Callable | None = None,
    follow: bool = False,
    max_epochs: int | None = None,
) -> LadderResult:
    """Run ``ladder`` (``prepare_ladder``d) until it ends (see the module's docstring).
    ``make_executor(snapshots)`` makes an executor (a new one when the snapshots to ship
    change); ``on_epoch(state, tables)`` after each epoch is planned; ``follow``: an answered
    ladder waits for entrants (a join reopens it) until ``stop``; ``max_epochs``: at most so
    many epochs by this run (tests)."""
    from mallows.tournaments.run import execute

    resolver = resolver if resolver is not None else Resolver(store)
    result = LadderResult()
    stop = stop_rule(store, ladder)
    executor, shipped = None, None
    runs = 0
    memo: dict = {}  # the pins checked by this run, by the entrants they cover
    try:
        while True:
            state = read_state(store, ladder)
            if state.planned > store.count_matches(ladder.name):
                tables: list[Table] | None = state.tables  # the stored epoch is not done: finish it
            elif checks.pending(store, ladder, state) is not None:  # a kill cut its check short
                plan = _plan(store, ladder, state, resolver, memo)
                executor, shipped = _executor(plan, executor, shipped, make_executor)
                checks.after_epoch(store, ladder, state, plan, executor)
                continue
            else:
                if max_epochs is not None and runs >= max_epochs:
                    result.why = f"{max_epochs} epoch(s) run"
                    break
                tables, why, result.answers = plan_next(store, state, resolver, sandbox, memo)
                if tables is None:
                    result.why = why
                    if (
                        follow
                        and not stop.decided
                        and "max_matches" not in why
                        and state.mode != "done"
                    ):
                        time.sleep(FOLLOW_POLL_SECONDS)
                        continue
                    result.finished = "waiting" not in why
                    break
                state = read_state(store, ladder)  # what was stored is what is played
                if on_epoch:
                    on_epoch(state, state.tables[-len(tables) :])
            runs += 1
            plan = _plan(store, ladder, state, resolver, memo)
            executor, shipped = _executor(plan, executor, shipped, make_executor)
            summary = execute(plan, store, executor, stop, on_outcome=on_outcome, rate=False)
            result.played += summary.played
            if summary.stopped or stop.decided:
                result.stopped, result.why = True, "stopped (mallows ladder stop)"
                break
            checks.after_epoch(store, ladder, state, plan, executor)  # now and then, unannounced
    finally:
        if executor is not None:
            executor.__exit__(None, None, None)
        result.stored = store.count_matches(ladder.name)
        result.epochs = len(store.ladders.epochs(ladder.name))
        if runs:  # the TrueSkill board beside the fit, once a run (not once an epoch)
            from mallows.tournaments.run import refresh_ratings

            refresh_ratings(store, ladder.name)
        store.update_tournament(
            ladder.name, total=max(result.stored, _planned(store, ladder)), finished=result.finished
        )
    return result


def _executor(plan: Plan, executor: Any, shipped: Any, make_executor: Callable) -> tuple:
    """The executor for ``plan`` and the snapshots it ships: ``executor`` while they are the
    same, else a new one (the old one closed)."""
    snapshots = plan.roster.snapshots()
    if executor is None or snapshots != shipped:
        if executor is not None:
            executor.__exit__(None, None, None)
        executor = make_executor(snapshots)
        executor.__enter__()
        shipped = snapshots
    return executor, shipped


def _planned(store: ResultStore, ladder: Ladder) -> int:
    tables = store.ladders.tables(ladder.name)
    return tables[-1]["first"] + tables[-1]["count"] if tables else 0
