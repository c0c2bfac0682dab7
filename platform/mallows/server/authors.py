"""What an author sees of their bots on ``mallows serve``, and what nobody else sees.

Owns ``private_bot`` (a bot whose name an account owns: what it sent, its forfeit reasons with
their stderr tails and a ladder's note on it, is hidden on every page the server renders, for
every visitor alike, so a page is the same for all and no page depends on who asks) and
``author_bots`` (what ``GET /api/me`` gives the owner, and an admin for every account: each
bot's versions with their check, its forfeits with their reasons whole, and for each ladder it
plays in, its standings rows with their intervals and the ladder's questions about it: those
naming it and those about the whole field).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mallows.botname import BotName
from mallows.results.interface import ResultStore


def base_name(bot: str) -> str:
    """The submitted name of ``bot`` (``sharp`` of ``sharp@2:depth=3``)."""
    return BotName.parse(bot, strict=False).base


def private_bot(store: ResultStore, bot: str) -> bool:
    """Whether what ``bot`` sent is its owner's alone: an account owns its name."""
    return store.accounts.owner(base_name(bot)) is not None


def _versions(store: ResultStore, name: str) -> list[dict]:
    return [
        {
            "version": f"{name}@{r['version']}",
            "digest": r["digest"],
            "created": r["created"],
            "withdrawn": r["withdrawn"],
            "check": json.loads(r["check"] or "{}"),
        }
        for r in store.submissions(name)
    ]


def _forfeits(store: ResultStore, names: set[str]) -> dict[str, list[dict]]:
    from mallows.report import data

    out: dict[str, list[dict]] = {name: [] for name in names}
    for t in store.tournaments():
        for f in data.forfeits(store, t["name"], whole=True):
            name = base_name(str(f["bot"]))
            if name in out:
                slug = data.slug(t["name"])
                index = str(f["match"]).rsplit("/", 1)[1]
                out[name].append({**f, "page": f"/m/{slug}/{index}.html"})
    return out


def _ladders(
    store: ResultStore, names: set[str], views: Callable[[Any, str], dict]
) -> dict[str, list[dict]]:
    from mallows.report.data import slug

    out: dict[str, list[dict]] = {name: [] for name in names}
    for t in store.tournaments():
        row = store.tournament(t["name"])
        if row is None or json.loads(row["definition"]).get("kind") != "ladder":
            continue
        view = views(store, t["name"])
        for name in names:
            rows = [s for s in view["standings"] if base_name(str(s["bot"])) == name]
            if rows:
                questions = [
                    q
                    for q in view["questions"]
                    if q.get("bot") is None or base_name(str(q["bot"])) == name
                ]
                out[name].append(
                    {
                        "ladder": t["name"],
                        "page": f"/l/{slug(t['name'])}.html",
                        "standings": rows,
                        "questions": questions,
                    }
                )
    return out


def author_bots(store: ResultStore, owner: dict, views: Callable[[Any, str], dict]) -> list[dict]:
    """The bots of account ``owner`` (``Accounts.verify``'s; an admin: every account's), each
    with its ``owner``, ``versions``, ``forfeits`` (reasons whole, each with its match page)
    and ``ladders``."""
    owners = store.accounts.owners()
    names = [n for n, a in owners.items() if owner["admin"] or a == owner["name"]]
    forfeits = _forfeits(store, set(names))
    ladders = _ladders(store, set(names), views)
    return [
        {
            "name": name,
            "owner": owners[name],
            "versions": _versions(store, name),
            "forfeits": forfeits[name],
            "ladders": ladders[name],
        }
        for name in names
    ]
