"""``mallows play GAME --bot NAME ...``: one match, printed as a table, optionally recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from rich.console import Console
from rich.text import Text

from mallows.agents.checks import canonical_name
from mallows.agents.protocol import Limits
from mallows import seeding
from mallows.safetext import escape
from mallows.seeding import check_seed
from mallows.cli.common import (
    db_option,
    parse_options,
    resolver_for,
    sandbox_mode,
    sandbox_option,
    user_errors,
)
from mallows.errors import BotError, MallowsError

if TYPE_CHECKING:
    from mallows.agents.registry import BotSpec, Resolver
from mallows.games import game_ids, get_game
from mallows.agents.registry import BotSpec
from mallows.tournaments.format import decide_sandbox, ready_all, resolve_all
from mallows.runner.match import play_match


def register(app: typer.Typer) -> None:
    app.command("play")(play)


def _rules_help() -> str:
    """The rule sets of every registered game, for --help (a game that fails to load is left
    out here: its own command line says what is wrong with it)."""
    parts = []
    for g in game_ids():
        try:
            parts.append(f"{g}: {', '.join(get_game(g).RULE_SETS)}")
        except Exception:  # noqa: BLE001 - a broken plugin game must not break --help
            continue
    return "Rule set (" + "; ".join(parts) + ")."


@user_errors
def play(
    game: str = typer.Argument(..., help=f"The game: {' or '.join(game_ids())}."),
    bot: List[str] = typer.Option(
        ...,
        "--bot",
        help="A bot per seat, in seat order (repeat); human: you play that seat at this terminal.",
    ),
    rules: Optional[str] = typer.Option(None, help=_rules_help()),
    option: List[str] = typer.Option(
        [], "--option", help="Rule option override KEY=VALUE (repeat)."
    ),
    seed: Optional[int] = typer.Option(
        None,
        help="Match seed: same seed, same bots, same match "
        "on this machine (the deal is keyed with this user's "
        "secret key, so a bot cannot compute it from the "
        "seed). Default: a fresh one, printed.",
    ),
    record: Optional[Path] = typer.Option(None, help="Write the match record (JSON) to this file."),
    decision_seconds: float = typer.Option(1.0, help="Time limit per decision."),
    sandbox: str = sandbox_option("on"),
    db: Path = db_option(),
) -> None:
    """Play one match and print the result."""
    with resolver_for(db) as resolver:
        _play(game, bot, rules, option, seed, record, decision_seconds, sandbox, resolver)


def play_chance(seed: int | None) -> tuple[seeding.Chance, int, str | None]:
    """The derivation of a match run here with ``--seed`` (``seed``; None: a fresh one): keyed
    with this user's key (``seeding.local_key``), so the same seed gives the same match on this
    machine and a bot learns nothing from it; a note when no key can be kept."""
    if seed is None:
        seed = seeding.fresh_seed()
    check_seed(seed)
    key = seeding.local_key()
    note = None
    if key is None:
        key = seeding.fresh_key()
        note = (
            "note: no place to keep this user's secret key (XDG_STATE_HOME or "
            "~/.local/state is not writable), so the same --seed gives another match next "
            "time"
        )
    return seeding.Chance(seeding.KEYED, key), seed, note


def _play(
    game: str,
    bot: list[str],
    rules: str | None,
    option: list[str] | None,
    seed: int | None,
    record: Path | None,
    decision_seconds: float,
    sandbox: str,
    resolver: Resolver,
) -> None:
    module = get_game(game)
    options = module.make_options(rules, parse_options(option))
    if not module.MIN_PLAYERS <= len(bot) <= module.MAX_PLAYERS:
        raise MallowsError(
            f"{game} is for {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players, got "
            f"{len(bot)} --bot options: give one --bot per seat"
        )
    chance, seed, note = play_chance(seed)
    limits = Limits.from_dict(
        {"decision_seconds": decision_seconds, "sandbox": sandbox_mode(sandbox)}
    )
    if record is not None:  # before the match: a record that cannot be written is said now
        from mallows.files import check_writable, exists

        if exists(record) and record.is_dir():
            raise MallowsError(
                f"--record {str(record)!r} is a folder: give a file name, e.g. "
                f"--record {record / 'match.json'}"
            )
        check_writable(record, "--record", "give a new file name, e.g. --record match.json")
    # the plan's check step (``tournaments.plan``): every bot resolved once, built once or
    # asked for its hello (side by side), checked to play the game; the sandbox decided once
    names = [canonical_name(name) for name in bot]
    loaded = resolve_all(names, resolver)

    def fail(name: str, spec: BotSpec | Exception, message: str | None) -> None:
        if isinstance(spec, OSError):
            raise MallowsError(
                f"cannot look up bot {name[:80]!r}: {spec.strerror or spec}"
            ) from None
        if isinstance(spec, Exception):
            raise spec
        if message is not None:
            raise BotError(message)
        if spec.games and game not in spec.games:
            raise BotError(
                f"bot {spec.name!r} plays {', '.join(spec.games)}, not {game}: "
                f"choose a bot that plays {game} (mallows bots list shows which "
                f"games each bot plays)"
            )

    ready_all(loaded, limits.sandbox, fail)
    specs = [spec for spec in (loaded[name] for name in names) if isinstance(spec, BotSpec)]
    for name, spec in zip(names, specs):
        fail(name, spec, None)
    decide_sandbox(specs, limits)
    try:
        result = play_match(
            game,
            options,
            chance.play_seed(seed),
            [s.handle(limits) for s in specs],
            names=[s.name for s in specs],
            chance=chance,
        )
    except KeyboardInterrupt:  # Ctrl-C (a person at a human seat, or anyone): a clean stop
        typer.echo("\nmatch abandoned (interrupted): nothing recorded", err=True)
        raise typer.Exit(130) from None
    from mallows.cli.tables import print_table
    from mallows.report.data import short_bot

    # bots given by path by their base name; numbers right-aligned, never cut
    shown = dict(result, players=[short_bot(p) for p in result["players"]])
    headers, rows, notes = module.summary(shown)
    print_table(
        f"{game} · seed {seed}",
        headers,
        rows,
        right=[
            all(isinstance(r[i], (int, float)) or str(r[i]).lstrip("-").isdigit() for r in rows)
            for i in range(len(headers))
        ],
    )
    console = Console()
    for line in notes:  # they quote forfeit reasons: shown, never obeyed
        console.print(Text(escape(line)), soft_wrap=True)
    if note:
        Console(stderr=True).print(Text(note, style="yellow"), soft_wrap=True)
    if record is not None:  # after the table: a record that cannot be written loses nothing
        try:
            record.parent.mkdir(parents=True, exist_ok=True)
            record.write_text(json.dumps(result, indent=None, separators=(",", ":")) + "\n")
        except OSError as exc:
            raise MallowsError(
                f"the match was played (table above) but its record could not "
                f"be written to {record}: {exc.strerror or exc}. Give another "
                f"--record path (the same --seed replays the same match)"
            ) from None
        console.print(f"record written to {record}", soft_wrap=True)
