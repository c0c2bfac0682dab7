"""``mallows ladder``: run, status, join, withdraw, stop, finals. Parsing and printing only: the
file format is ``tournaments.ladder.spec``, running ``tournaments.ladder.run``, the view
``tournaments.ladder.status``. Exit status: 0 (answered, stopped, or a command done), 2 on bad
input, 70 when mallows or Ray failed, 128 + N on signal N (resumable: rerun the same command).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

import typer

from mallows.cli.common import (
    address_option,
    db_option,
    sandbox_mode,
    sandbox_option,
    user_errors,
    workers_option,
)
from mallows.errors import MallowsError
from mallows.results.store import Store
from mallows.safetext import escape

if TYPE_CHECKING:
    from mallows.runner.executor import Executor
    from mallows.tournaments.ladder.run import LadderState
    from mallows.tournaments.ladder.schedule import Table

ladder_app = typer.Typer(
    help="Standing ladders: a league that runs until its questions are "
    "answered (tournaments/README.md, 'Ladders').",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(ladder_app, name="ladder")


def _open(db: Path, readonly: bool = False) -> Store:
    from mallows.results.integrity import existing_db

    existing_db(
        db, f"no database at {db}: start a ladder first (mallows ladder run FILE --db {db})"
    )
    return Store(db, readonly=readonly)


def _follow_option() -> Any:
    return typer.Option(
        False,
        "--follow",
        help="Once every question is answered, "
        "wait for new entrants (a join reopens the ladder) until "
        "mallows ladder stop.",
    )


def _quiet_option() -> Any:
    return typer.Option(False, "--quiet", "-q", help="Print only the final standings.")


@ladder_app.command("run")
@user_errors
def run(
    file: Path = typer.Argument(..., help="The ladder file (TOML)."),
    db: Path = db_option(),
    workers: Optional[int] = workers_option(),
    address: Optional[str] = address_option(),
    sandbox: Optional[str] = sandbox_option(),
    follow: bool = _follow_option(),
    quiet: bool = _quiet_option(),
) -> None:
    """Run (or resume) a ladder until its questions are answered, its finals end, it reaches
    max_matches, or mallows ladder stop."""
    from mallows.cli.common import resolver_for
    from mallows.runner.executor import check_executor_options
    from mallows.tournaments.format import idle_parameters
    from mallows.tournaments.ladder.spec import check_ladder_bots, load_ladder

    ladder = load_ladder(file)
    mode = sandbox_mode(sandbox) if sandbox is not None else None
    check_executor_options(workers, address)
    with resolver_for(db) as resolver:
        ladder = check_ladder_bots(ladder, resolver, mode)  # before a new database is created
        for warning in idle_parameters(ladder.entrants, ladder.game, resolver):
            typer.echo(f"warning: {warning}", err=True)
    _play(ladder, Store(db), resolver, db, workers, address, mode, follow, quiet)


@ladder_app.command("resume")
@user_errors
def resume(
    name: str = typer.Argument(..., help="The ladder's name, as stored in --db."),
    db: Path = db_option(),
    workers: Optional[int] = workers_option(),
    address: Optional[str] = address_option(),
    sandbox: Optional[str] = sandbox_option(),
    follow: bool = _follow_option(),
    quiet: bool = _quiet_option(),
) -> None:
    """Run (or resume) a ladder stored in --db by its name, from its stored definition (no file
    needed): what mallows serve --ladder NAME runs. Otherwise as mallows ladder run."""
    from mallows.agents.registry import Resolver
    from mallows.runner.executor import check_executor_options
    from mallows.tournaments.ladder.run import stored_ladder

    mode = sandbox_mode(sandbox) if sandbox is not None else None
    check_executor_options(workers, address)
    store = _open(db)
    try:
        ladder = stored_ladder(store, name)
    except MallowsError:
        store.close()
        raise
    _play(ladder, store, Resolver(store), db, workers, address, mode, follow, quiet)


def _play(
    ladder: Any,
    store: Store,
    resolver: Any,
    db: Path,
    workers: Optional[int],
    address: Optional[str],
    mode: Optional[str],
    follow: bool,
    quiet: bool,
) -> None:
    """Run ``ladder`` in ``store`` to its end (or an interrupt: exit 128 + N, resumable),
    printing its epochs (unless ``quiet``) and its final standings."""
    from mallows.cli.signals import (
        exit_status,
        interrupted,
        raise_swallowed,
        termination_as_interrupt,
    )
    from mallows.runner.executor import make_executor
    from mallows.tournaments.ladder.run import prepare_ladder, run_ladder
    from mallows.tournaments.ladder.status import ladder_view, view_text

    resolver = resolver.using(store)
    ladder = prepare_ladder(ladder, store, resolver, mode)

    def say(text: str) -> None:
        if not quiet:
            typer.echo(text, err=True)

    def on_epoch(state: LadderState, tables: Sequence[Table]) -> None:
        raise_swallowed()  # a signal a finaliser swallowed stops the ladder here
        reasons: dict[str, int] = {}
        for t in tables:
            key = t.reason.split(":", 1)[0]
            reasons[key] = reasons.get(key, 0) + 1
        say(
            f"epoch {state.next_epoch}: {len(tables)} tables "
            f"({', '.join(f'{k} {n}' for k, n in sorted(reasons.items()))}), "
            f"{sum(t.count for t in tables)} matches; field {len(state.active())}"
        )

    reinstall = [lambda: None]

    def executor_for(snapshots: list[str]) -> Executor:
        made = make_executor(workers, address, snapshots=snapshots)
        reinstall[0]()  # Ray sets its own SIGTERM handler: SIGTERM stops the ladder as Ctrl-C
        return made

    from mallows.tournaments.lock import run_lock

    say(f"ladder {ladder.name} · {ladder.game} · {ladder.players} seats · in {db}")
    # one runner per ladder (a second one is refused, naming the holder), as for a tournament
    with run_lock(db, ladder.name, kind="ladder"), termination_as_interrupt() as again:
        reinstall[0] = again
        try:
            result = run_ladder(
                ladder, store, executor_for, resolver, mode, on_epoch=on_epoch, follow=follow
            )
        except KeyboardInterrupt as exc:
            say(
                f"{interrupted(exc)}: {store.count_matches(ladder.name)} matches are stored in "
                f"{db}; rerun the same command to resume (the same schedule goes on)"
            )
            raise typer.Exit(exit_status(exc))
    typer.echo(view_text(ladder_view(store, ladder.name)))
    typer.echo(
        f"\n{result.why}: played {result.played} matches now, {result.stored} stored, "
        f"{result.epochs} epochs"
    )


@ladder_app.command("status")
@user_errors
def status(
    name: str = typer.Argument(..., help="The ladder's name."),
    db: Path = db_option(),
    as_json: bool = typer.Option(False, "--json", help="The view as JSON."),
) -> None:
    """Standings with intervals, questions, newcomers and recent matches."""
    from mallows.tournaments.ladder.status import ladder_view, view_text

    store = _open(db, readonly=True)
    try:
        view = ladder_view(store, name)
    finally:
        store.close()
    typer.echo(json.dumps(view, indent=1) if as_json else view_text(view))


@ladder_app.command("join")
@user_errors
def join_cmd(
    name: str = typer.Argument(..., help="The ladder's name."),
    bot: str = typer.Argument(
        ...,
        help="The bot: a submitted NAME@N (a bare NAME: its newest "
        "version), a shipped bot or a path.",
    ),
    db: Path = db_option(),
    sandbox: Optional[str] = sandbox_option(),
) -> None:
    """Enter a bot: checked now, then it joins at the ladder's next epoch."""
    from mallows.cli.common import resolver_for
    from mallows.tournaments.ladder.run import check_entries_open, join, stored_ladder
    from mallows.tournaments.ladder.spec import check_ladder_bots

    store = _open(db)
    ladder = stored_ladder(store, name)
    check_entries_open(store, name, bot)  # before the check: a frozen ladder says so at once
    with resolver_for(db) as resolver:  # it passes the check now, or it is not entered
        check_ladder_bots(
            ladder, resolver, sandbox_mode(sandbox) if sandbox else None, names=(bot,)
        )
    written = join(store, name, bot, note="mallows ladder join")
    typer.echo(f"entered {escape(written)} in ladder {name}: it joins at the next epoch")


@ladder_app.command("withdraw")
@user_errors
def withdraw_cmd(
    name: str = typer.Argument(..., help="The ladder's name."),
    bot: str = typer.Argument(..., help="The entrant, as written or as shown."),
    db: Path = db_option(),
) -> None:
    """Stop scheduling an entrant from the next epoch on; its matches stay in the results."""
    from mallows.tournaments.ladder.run import withdraw

    written = withdraw(_open(db), name, bot)
    typer.echo(
        f"withdrew {escape(written)} from ladder {name}: no new tables from the next "
        f"epoch; its matches stay in the standings"
    )


@ladder_app.command("stop")
@user_errors
def stop_cmd(
    name: str = typer.Argument(..., help="The ladder's name."),
    db: Path = db_option(),
) -> None:
    """Stop a running ladder now (what is stored stays; ladder run resumes it)."""
    from mallows.tournaments.ladder.run import stored_ladder

    store = _open(db)
    stored_ladder(store, name)
    store.ladders.add_event(name, "stop", None, "mallows ladder stop")
    typer.echo(
        f"asked ladder {name} to stop: a running `mallows ladder run` leaves within a "
        f"second, keeping every stored match"
    )


@ladder_app.command("finals")
@user_errors
def finals_cmd(
    name: str = typer.Argument(..., help="The ladder's name."),
    db: Path = db_option(),
) -> None:
    """Switch to the file's [finals]: entries frozen, stages cut by rank, a final table."""
    from mallows.tournaments.ladder.run import stored_ladder

    store = _open(db)
    ladder = stored_ladder(store, name)
    if ladder.finals is None:
        raise MallowsError(
            f"ladder {name!r} has no [finals] in its file: add one (cutoffs = "
            f"[8, 4], epochs = 4) under a new ladder name"
        )
    if any(e["kind"] == "finals" for e in store.ladders.events(name)):
        typer.echo(f"ladder {name} is already in (or past) its finals")
        return
    store.ladders.add_event(name, "finals", None, "mallows ladder finals")
    typer.echo(
        f"ladder {name} plays its finals from its next epoch: cutoffs "
        f"{', '.join(map(str, ladder.finals.cutoffs))}, {ladder.finals.epochs} epochs a "
        f"stage"
    )
