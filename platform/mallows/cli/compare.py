"""``mallows compare A B``: is A better than B? A sequential test on duplicate deals.

Parsing and printing only: the definition and the schedule are
``mallows.tournaments.compare.spec``, the statistics ``mallows.tournaments.compare.sprt``, running
``mallows.tournaments.compare.run``. Exit status: 0 when H1 is accepted (A is better), 1 when H0 is
accepted (A is not better), 3 when --max-matches came first, 2 on bad input, 70 when mallows or Ray
failed (``mallows.errors.PlatformError``).
"""

from __future__ import annotations

import dataclasses

import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich.console import Console

from mallows.cli.common import (
    address_option,
    db_option,
    parse_options,
    sandbox_option,
    user_errors,
    workers_option,
)
from mallows.tournaments.compare.spec import (
    DEFAULT_DELTA,
    DEFAULT_MAX_MATCHES,
    DEFAULT_SEED,
    check_comparison_bots,
    legacy_names,
    make_comparison,
)
from mallows.results.store import DEFAULT_DB, Store
from mallows.safetext import escape

if TYPE_CHECKING:
    from mallows.tournaments.compare.run import CompareResult
    from mallows.tournaments.compare.spec import Comparison

EXIT_H1, EXIT_H0, EXIT_UNDECIDED = 0, 1, 3
PROGRESS_SECONDS = 2.0  # at most one progress line this often


def register(app: typer.Typer) -> None:
    app.command("compare")(compare)


def status_line(result: CompareResult, c: Comparison) -> str:
    """One progress line, after fastchess's SPRT lines: pairs, mean difference with its 95%
    interval, LLR (share of the way to the bound it heads for), bounds, hypotheses."""
    t = result.test
    half = "inf" if t.half_width == float("inf") else f"{t.half_width:.3f}"
    # every pair so far gave the same difference: +/- 0.000 measures no spread, it is not a
    # certainty (identical play, or too few pairs to differ)
    alike = t.n > 1 and t.half_width == 0
    return (
        f"Pairs: {t.n} ({2 * t.n} matches), Diff: {t.mean:+.3f} +/- {half} places/match, "
        f"LLR: {t.llr:.2f} ({100 * t.progress:.1f}%) ({t.lower:.2f}, {t.upper:.2f}) "
        f"[0.00, {c.delta:.2f}]"
        + (f" (all {t.n} pairs gave {t.mean:+.3f}: no spread measured yet)" if alike else "")
    )


def _counts_text(result: CompareResult) -> str:
    values = list(result.counts)
    lo, hi = values[0], values[-1]
    return f"Pairs by value ({lo:g}..{hi:g}): [{', '.join(str(n) for n in result.counts.values())}]"


@user_errors
def compare(
    a: str = typer.Argument(..., help="Bot A: the candidate (e.g. your new version)."),
    b: str = typer.Argument(..., help="Bot B: the baseline."),
    game: Optional[str] = typer.Option(
        None, "--game", help="arschmallows or take4 (default: the one game both bots play)."
    ),
    players: int = typer.Option(
        2, "--players", help="Seats per match; above 2 the other seats hold --opponents."
    ),
    opponents: Optional[str] = typer.Option(
        None,
        "--opponents",
        help="X,Y,...: bots for the other seats, taken in turn (default: "
        "the game's reference bots other than A and B: arschmallows greedy, heuristic, random; "
        "take4 greedy, denial, random).",
    ),
    rules: Optional[str] = typer.Option(
        None, "--rules", help="Rule set (arschmallows: standard, supermallows)."
    ),
    option: List[str] = typer.Option([], "--option", help="Rule option KEY=VALUE (repeat)."),
    delta: float = typer.Option(
        DEFAULT_DELTA, "--delta", help="H1: A is better by at least this many places per match."
    ),
    alpha: float = typer.Option(
        0.05, "--alpha", help="False positive rate: H1 accepted when A is not better."
    ),
    beta: float = typer.Option(
        0.05, "--beta", help="False negative rate: H0 accepted when A is better by delta."
    ),
    max_matches: int = typer.Option(
        DEFAULT_MAX_MATCHES,
        "--max-matches",
        help="Stop undecided (exit 3) after this many matches.",
    ),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", help="Deals: same seed, same deals."),
    workers: Optional[int] = workers_option(),
    address: Optional[str] = address_option(),
    db: Path = db_option(),
    name: Optional[str] = typer.Option(
        None,
        "--name",
        help="Its name in --db (default: from the bots and settings; the same command resumes).",
    ),
    decision_seconds: Optional[float] = typer.Option(
        None, "--decision-seconds", help="Time limit per decision (default: the platform's)."
    ),
    sandbox: Optional[str] = sandbox_option(),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines."),
) -> None:
    """Is A better than B? Duplicate deals, a sequential test (SPRT), stop when it decides.

    Exit status 0: A is better by at least --delta (H1); 1: A is not better (H0); 3: no
    verdict within --max-matches; 2: bad input; 70: mallows or Ray failed."""
    from mallows.tournaments.compare.run import BATCH_MATCHES, needs_matches, run_comparison
    from mallows.cli.common import resolver_for, sandbox_mode
    from mallows.runner.executor import (
        check_executor_options,
        cluster_address,
        make_executor,
    )
    from mallows.tournaments.lock import run_lock
    from mallows.tournaments.plan import prepare
    from mallows.cli.signals import (
        exit_status,
        interrupted,
        raise_swallowed,
        termination_as_interrupt,
    )

    limits: dict[str, object] = (
        {} if decision_seconds is None else {"decision_seconds": decision_seconds}
    )
    if sandbox is not None and sandbox_mode(sandbox) == "off":
        limits["sandbox"] = "off"
    check_executor_options(workers, address)  # also when nothing is left to play
    # the names resolve as in every command that takes --db (NAME@N, a submitted NAME), and
    # the plan's check step runs before a new database is created
    with resolver_for(db) as resolver:
        c = make_comparison(
            a,
            b,
            game=game,
            players=players,
            opponents=[o for o in opponents.split(",")] if opponents is not None else None,
            rules=rules,
            options=parse_options(option),
            limits=limits,
            delta=delta,
            alpha=alpha,
            beta=beta,
            max_matches=max_matches,
            seed=seed,
            name=name,
            resolver=resolver,
        )
        olds = legacy_names(c) if name is None else []  # of the settings as given
        c = check_comparison_bots(c, resolver)  # hellos; the sandbox decided once
    # one run of a comparison at a time: a second would play the same pairs beside it and
    # stop on a count of its own (a wrong verdict): it is refused, naming the holder
    if olds:
        with Store(db) as probe:  # stored under a name the same command made before
            if probe.tournament(c.name) is None:
                for old in olds:
                    if probe.tournament(old):
                        c = dataclasses.replace(c, name=old)
                        break
    with run_lock(db, c.name, kind="comparison"):
        store = Store(db)
        # registered and pinned like a tournament: changed settings or changed bot code are
        # refused before any match (and before Ray starts)
        plan = prepare(c, store, resolver.using(store))
        shown_a, shown_b = plan.shown[c.a], plan.shown[c.b]
        err = Console(stderr=True)  # for the status spinner only: lines go out unwrapped

        def say(text: str) -> None:
            typer.echo(text, err=True)

        echo = typer.echo
        if not quiet:
            seats = (
                "A and B, both seatings of each deal"
                if c.players == 2
                else f"A or B in the seat under test, opponents "
                f"{', '.join(plan.shown[o] for o in c.opponents)}"
            )
            say(
                f"compare {shown_a} (A) vs {shown_b} (B) · {c.game}"
                + (f" ({c.rules})" if c.rules and c.rules != "default" else "")
                + f" · {c.players} seats: {seats} · H0: diff <= 0, H1: diff >= {c.delta:g} "
                f"places/match · alpha {c.alpha:g}, beta {c.beta:g} · at most "
                f"{2 * c.max_pairs} matches · {c.name} in {db}"
            )
        # SIGTERM and SIGHUP stop it as Ctrl-C does (resumable), exiting 128 + the signal
        with termination_as_interrupt() as reinstall:
            if needs_matches(plan, store):
                joining = cluster_address(address)
                if joining and not quiet:  # a join can take a while to fail: say so at once
                    err.print(
                        f"connecting to the Ray cluster at {joining} ...",
                        highlight=False,
                        markup=False,
                    )
                try:
                    with (
                        err.status("starting the executor...")
                        if not quiet
                        else contextlib.nullcontext()
                    ):
                        executor = make_executor(
                            workers,
                            address,
                            batch_size=BATCH_MATCHES,
                            snapshots=plan.roster.snapshots(),
                        )
                except KeyboardInterrupt as exc:  # Typer's own handler would exit 130 in silence
                    say(
                        f"{interrupted(exc)} while the executor was starting: nothing was lost; "
                        f"rerun the same command to resume"
                    )
                    raise typer.Exit(exit_status(exc))
                reinstall()  # Ray sets its own SIGTERM handler
            else:
                executor = make_executor(1, None)
            last = {"t": time.perf_counter()}

            def on_start(result: CompareResult) -> None:
                if result.pairs and not quiet:
                    say(f"{result.already} matches already stored: " + status_line(result, c))

            def on_pair(result: CompareResult) -> None:
                raise_swallowed()  # a signal a finaliser swallowed stops the run here
                now = time.perf_counter()
                if not quiet and now - last["t"] >= PROGRESS_SECONDS:
                    last["t"] = now
                    say(status_line(result, c))

            try:
                with executor:
                    result = run_comparison(
                        plan, store, executor, on_pair=on_pair, on_start=on_start
                    )
            except KeyboardInterrupt as exc:
                say(
                    f"{interrupted(exc)}: {store.count_matches(c.name)} matches are stored in {db}; "
                    f"rerun the same command to resume (it ends with the same verdict)"
                )
                raise typer.Exit(exit_status(exc))
    t = result.test
    echo(status_line(result, c))
    echo(_counts_text(result))
    interval = f"{t.mean:+.3f} +/- {t.half_width:.3f}" if t.n > 1 else f"{t.mean:+.3f}"
    if result.verdict == "H1":
        echo(
            f"H1 accepted: {shown_a} is better than {shown_b} (by at least {c.delta:g} place per "
            f"match, at alpha {c.alpha:g})"
        )
        code = EXIT_H1
    elif result.verdict == "H0":
        echo(
            f"H0 accepted: {shown_a} is not better than {shown_b} by {c.delta:g} place per match "
            f"(at beta {c.beta:g})"
        )
        code = EXIT_H0
    else:
        echo(
            f"no verdict within {2 * c.max_pairs} matches (--max-matches): the LLR is "
            f"between its bounds; rerun with a larger --max-matches to continue the same "
            f"test"
        )
        code = EXIT_UNDECIDED
    rate = result.played / result.wall if result.wall > 0 else 0.0
    echo(
        f"estimate: {shown_a} better than {shown_b} by {interval} places per match (95%), "
        f"over "
        f"{t.n} pairs = {2 * t.n} matches; played {result.played} "
        f"({result.already} already stored) in {result.wall:.1f} s on {result.executor}"
        f" ({rate:.1f} matches/s)"
    )
    for role, bot, written in (("A", shown_a, c.a), ("B", shown_b, c.b)):
        if result.forfeits[role]:
            echo(
                f"warning: {bot} forfeited {result.forfeits[role]} of the matches played now "
                f"(a forfeit counts as last place); first: "
                f"{escape(result.forfeit_reasons[role][:300])}. Check it: mallows bots "
                f"check {written}"
            )
    if result.lost_batches:
        echo(f"{result.lost_batches} Ray batches lost with their worker were run again")
    echo(
        f"stored as {c.name}: mallows tournament show {c.name}"
        + (f" --db {db}" if Path(db) != DEFAULT_DB else "")
    )
    raise typer.Exit(code)
