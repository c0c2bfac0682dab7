"""``mallows bots new NAME [--lang python|node] [--dir PATH] [--game G]``: a working bot folder.

Only arguments and printing here: the templates are ``mallows.agents.scaffold``.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from mallows.cli.common import user_errors


def register(bots_app: typer.Typer) -> None:
    bots_app.command("new")(user_errors(new))


def new(
    name: str = typer.Argument(..., help="The bot's name (lower case, digits, _)."),
    lang: str = typer.Option(
        "python",
        "--lang",
        help="python (a Python class) or node (a JavaScript program over JSON lines).",
    ),
    folder: Optional[Path] = typer.Option(
        None, "--dir", help="Folder to write (default: ./bots/NAME if ./bots exists, else ./NAME)."
    ),
    game: List[str] = typer.Option(
        [], "--game", help="A game it plays (repeat; default: every game)."
    ),
) -> None:
    """Write a new bot's folder (code, a test running the bot check, a README) that passes
    `mallows bots check` as written."""
    from mallows.agents.scaffold import write_bot

    if folder is None:
        folder = Path("bots") / name if Path("bots").is_dir() else Path(name)
    files = write_bot(folder, name, lang, list(game) or None)
    typer.echo(f"wrote {len(files)} files to {folder}/: {', '.join(p.name for p in files)}")
    shown = str(folder) if "/" in str(folder) else f"./{folder}"  # a path, never a bot name
    typer.echo(f"next: mallows bots check {shown}   (then edit the strategy and check again)")
