"""The report's pages: one ``Site`` renders any page by its path, for ``write`` and ``serve``.

Paths (all links relative, so the written folder opens from the file system):
``index.html``; ``t/<tournament slug>.html`` (leaderboard, head-to-head, progression, matches);
``g/<game>.html`` (a game over all its tournaments); ``b/<bot slug>.html`` (with the bot's
submitted versions, each linked to its own page);
``t/<tournament slug>/<n>.html`` (page n >= 1 of its match list, ``MATCHES_PER_PAGE`` a page);
``m/<tournament slug>.html#<index>`` (the tournament's one replay page: it draws the match
named after ``#`` from the data files ``d/<tournament slug>/<k>.js``, ``replay_data``, and
``d/<tournament slug>/cache.json`` says what each holds, ``replay_cache``; what ``report``
writes) or ``m/<tournament slug>/<index>.html`` (a match's own replay page:
``serve``, where ``m/<tournament slug>.html#<index>`` leads to it, and ``report
--replay-pages``); ``404.html`` (report: sends an older report's
per-match address to the tournament's replay page); ``l/<ladder slug>.html`` (a standing
ladder: standings with intervals, questions, newcomers, recent matches; its view is computed by
the ``ladders`` function the command line hands in, since a ladder's state is the
tournaments' business) and ``l/<ladder slug>.json`` (the same view as JSON);
``static/<file>`` (CSS, JS); ``cache/<t|g>-<slug>.json`` (report: each board's tables as its
next run goes on from them, ``board_cache``).

Pages come from the Jinja2 templates beside this module; charts from ``plots``; replays from
``frames`` (the engine's replay of the record, embedded as JSON for ``static/replay.js`` to
draw). The store is only read. A ``private`` bot's forfeit reasons and ladder notes (what it
sent) are hidden on every page (``report.private``).
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, Callable, Iterator

import jinja2
from markupsafe import Markup

from mallows.botname import BotName
from mallows.errors import MallowsError
from mallows.games import game_ids, get_game
from mallows.games.faces import ReplayView, replay_view
from mallows.report import data, private
from mallows.report.board_cache import BoardCache
from mallows.report.match_rows import rows_html
from mallows.report.frames import ReplayMismatch, frames
from mallows.results.interface import ResultStore
from mallows.safetext import brief

if TYPE_CHECKING:
    from mallows.report.live import LiveBoards

STATIC = ("style.css", "sort.js", "replay.js")
#: ``static/game-<id>.js``: a game's table script (its replay face's ``script``)
GAME_SCRIPT = "game-"
#: Matches listed on one page of a tournament's match list (its first page is the
#: tournament's own page): a page stays small for any number of matches.
MATCHES_PER_PAGE = 500
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
}


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("mallows.report", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["slug"] = data.slug
    env.filters["short"] = data.short_bot
    return env


def _script_json(value: object) -> str:
    """JSON safe inside a <script> element."""
    return (
        json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        .replace("</", "<\\/")
        .replace("<!--", "<\\!--")
    )


def compact(all_frames: list[dict]) -> list[dict]:
    """Frames as deltas: a key only when its value changed (``text`` and ``event`` always); in
    ``rows``, None for a seat whose row did not change. ``static/replay.js`` undoes it."""
    out: list[dict] = []
    prev: dict = {}
    for f in all_frames:
        d = {}
        for k, v in f.items():
            if k == "rows" and prev.get("rows") is not None and len(prev["rows"]) == len(v):
                if v != prev["rows"]:
                    d[k] = [None if a == b else a for a, b in zip(v, prev["rows"])]
            elif k in ("text", "event") or k not in prev or prev[k] != v:
                d[k] = v
        out.append(d)
        prev = f
    return out


def _replay_face(game: str | None) -> ReplayView | None:
    """The replay face of ``game``, or None (an unknown game, or one without a table)."""
    try:
        return replay_view(str(game))
    except MallowsError:
        return None


def game_script(game: str | None) -> str | None:
    """The file name (in ``static/``) of ``game``'s table script, or None: it has none."""
    return f"{GAME_SCRIPT}{game}.js" if _replay_face(game) is not None else None


def _event_lines(match_id: str, record: dict) -> list[str]:
    """A record's events in words, from the game's own descriptions where it has them."""
    try:
        from mallows.games.describe import replay_lines
    except ImportError:  # pragma: no cover (a game contract without descriptions)
        return [json.dumps(e) for e in record.get("events", [])]
    try:
        return replay_lines(match_id, record)
    except Exception:  # a damaged record: as recorded
        return [json.dumps(e) for e in record.get("events", [])]


class Site:
    """Pages of one store. ``tournament`` / ``game`` narrow the site to one tournament or to one
    game's tournaments; ``live`` pages (``mallows serve``) refresh while a tournament runs."""

    def __init__(
        self,
        store: ResultStore,
        tournament: str | None = None,
        game: str | None = None,
        live: bool = False,
        refresh: int = 5,
        boards: LiveBoards | None = None,
        replay_data: bool = False,
        ladders: Callable[[ResultStore, str], dict] | None = None,
        comparisons: Callable[[ResultStore, str], tuple[Any, Any]] | None = None,
        private: Callable[[ResultStore, str], bool] | None = None,
    ) -> None:
        self.store, self.live, self.refresh = store, live, refresh
        self.ladder_view = ladders  # (store, name) -> a ladder's view (``l/`` pages)
        # (store, name) -> a comparison and its sequential test over the stored pairs
        # (``tournaments.compare.run.stored_test``, given by the CLI: the report reads only
        # results and games); None: a comparison's page shows its board without the verdict
        self.comparison_test = comparisons
        # (store, bot) -> whether what the bot sent is hidden (serve: a bot an account owns)
        self.private = private
        self.live_boards = boards  # a report.live.LiveBoards: shared by serve's page threads
        # replays: a tournament's data files and one page (report), or a page per match
        self.replay_data = replay_data
        # the report already at -o (``write``): its replay data files are used again where
        # their matches are unchanged (``replay_cache``)
        self.previous: Path | None = None
        # the boards' fold states (``board_cache``): read from ``previous``, written beside
        # this report's pages (``write`` only)
        self.board_cache: BoardCache | None = None
        self._memo: dict | None = None  # what ``write`` reads once (``_tournaments``)
        self.env = _env()
        self.env.globals["replay_href"] = self.replay_href
        self._boards: dict[tuple[str, str], tuple[int, data.Board]] = {}
        self.only, self.game = tournament, game
        tours = store.tournaments()
        if tournament is not None and not any(t["name"] == tournament for t in tours):
            known = ", ".join(t["name"] for t in tours) or "none"
            raise MallowsError(
                f"no tournament {tournament!r} in {store.path} (tournaments: "
                f"{known}): check --tournament"
            )
        if game is not None and game not in {t["game"] for t in tours}:
            games = sorted({t["game"] for t in tours})
            raise MallowsError(
                f"no {game!r} tournaments in {store.path} (games: "
                f"{', '.join(games) or 'none'}): check --game"
            )

    def replay_href(self, root: str, tournament: str, idx: int | str) -> str:
        """The link to a match's replay, in this site's kind of replays."""
        if self.replay_data:
            return f"{root}m/{data.slug(tournament)}.html#{idx}"
        return f"{root}m/{data.slug(tournament)}/{idx}.html"

    def _tournaments(self) -> list[dict]:
        """The store's tournaments: read once per ``write`` (every page of a written report
        counts the same matches), every time otherwise (a live page shows new ones)."""
        if self._memo is None:
            return self.store.tournaments()
        if "tournaments" not in self._memo:
            self._memo["tournaments"] = self.store.tournaments()
        return self._memo["tournaments"]

    def _count(self, scope: str, name: str) -> int:
        """The stored matches of tournament or game ``name`` (read once per ``write``)."""
        if self._memo is not None and (scope, name) in self._memo:
            return self._memo[scope, name]
        count = (
            self.store.count_matches(name)
            if scope == "tournament"
            else self.store.count_game_matches(name)
        )
        if self._memo is not None:
            self._memo[scope, name] = count
        return count

    @property
    def names(self) -> list[str]:
        """The tournaments shown (read each time: a live site shows new ones)."""
        return [
            t["name"]
            for t in self._tournaments()
            if (self.only is None or t["name"] == self.only)
            and (self.game is None or t["game"] == self.game)
        ]

    # -- model --------------------------------------------------------------------------------
    def tournaments(self) -> list[dict]:
        names = set(self.names)
        return [t for t in self._tournaments() if t["name"] in names]

    def games(self) -> list[str]:
        return [] if self.only else sorted({t["game"] for t in self.tournaments()})

    def ladders(self) -> list[str]:
        """The shown tournaments that are standing ladders (with a view to show them)."""
        if self.ladder_view is None:
            return []
        out = []
        for name in self.names:
            row = self.store.tournament(name)
            if row is not None and json.loads(row["definition"]).get("kind") == "ladder":
                out.append(name)
        return out

    def is_private(self, bot: str) -> bool:
        return self.private is not None and self.private(self.store, bot)

    def _ladder(self, name: str) -> dict:
        assert self.ladder_view is not None
        view = self.ladder_view(self.store, name)
        return view if self.private is None else private.redact_ladder(view, self.is_private)

    def ladder_page(self, name: str) -> str:
        view = self._ladder(name)
        return self._page(
            "ladder.html", 1, title=f"ladder {name}", v=view, running=not view["finished"]
        )

    def ladder_json(self, name: str) -> bytes:
        return json.dumps(self._ladder(name), indent=1).encode()

    def board(self, scope: str, name: str) -> data.Board:
        return self._board_and_charts(scope, name)[0]

    def _charts(self, b: data.Board) -> tuple:
        from mallows.report.plots import heatmap_svg, progression_svg

        return heatmap_svg(b, data.slug(b.name)), progression_svg(b, data.slug(b.name))

    def _board_and_charts(self, scope: str, name: str) -> tuple[data.Board, tuple | None]:
        count = self._count(scope, name)
        if self.live_boards is not None:  # serve: big boards in the background
            return self.live_boards.get(self.store, scope, name, count, self._charts)
        return self._board(scope, name, count), None

    def _board(self, scope: str, name: str, count: int) -> data.Board:
        cached = self._boards.get((scope, name))
        if cached is None or cached[0] != count:
            cached = (count, data.board(self.store, scope, name, self.board_cache))
            self._boards[scope, name] = cached
        return cached[1]

    def bots(self) -> list[str]:
        names: set[str] = set()
        for t in self.tournaments():
            names.update(r["bot"] for r in self.board("tournament", t["name"]).rows)
        return sorted(names)

    # -- pages --------------------------------------------------------------------------------
    def _page(self, template: str, depth: int, **values: Any) -> str:
        refresh = self.refresh if self.live and values.pop("running", False) else None
        values.pop("running", None)
        return self.env.get_template(template).render(
            root="../" * depth, live=self.live, refresh=refresh, **values
        )

    def index(self) -> str:
        tours = []
        running = False
        for t in self.tournaments():
            b = self.board("tournament", t["name"])
            leader = next((r["bot"] for r in b.rows if r["matches"]), None)
            tours.append(dict(t, leader=leader))
            running |= t["done"] < t["total"]
        return self._page(
            "index.html",
            0,
            title="results",
            tournaments=tours,
            games=self.games(),
            bots=self.bots(),
            running=running,
            ladders=self.ladders(),
        )

    def board_page(self, scope: str, name: str) -> str:
        b, charts = self._board_and_charts(scope, name)
        if charts is None:
            charts = (None, None) if getattr(b, "partial", False) else self._charts(b)
        matches, pages = None, None
        if scope == "tournament":  # the first page of the match list; the rest: matches_page
            matches, pages = self._match_list(name, 0)
        comparison = (
            self.comparison(name)
            if scope == "tournament"
            and (getattr(b, "definition", None) or {}).get("kind") == "compare"
            else None
        )
        return self._page(
            "board.html",
            1,
            title=name,
            board=b,
            matches=matches,
            rows=None if matches is None else self._rows(name, matches, "../"),
            pages=pages,
            comparison=comparison,
            heatmap=charts[0],
            progression=charts[1],
            partial=getattr(b, "partial", False),
            running=not b.complete or getattr(b, "partial", False),
        )

    def _match_list(self, name: str, page: int) -> tuple[list[dict], dict]:
        total = self._count("tournament", name)
        count = max(1, -(-total // MATCHES_PER_PAGE))
        matches = self.store.match_summaries(name, page * MATCHES_PER_PAGE, MATCHES_PER_PAGE)
        first = page * MATCHES_PER_PAGE
        return matches, {
            "page": page,
            "count": count,
            "total": total,
            "first": first + 1,
            "last": first + len(matches),
            "slug": data.slug(name),
        }

    def matches_page(self, name: str, page: int) -> str | None:
        """Page ``page`` (from 1) of a tournament's match list: ``MATCHES_PER_PAGE`` a page,
        so a page stays small however many matches the tournament has."""
        matches, pages = self._match_list(name, page)
        if page < 1 or page >= pages["count"]:
            return None
        return self._page(
            "matches.html",
            2,
            title=f"{name}: matches",
            name=name,
            matches=matches,
            rows=self._rows(name, matches, "../../"),
            pages=pages,
        )

    def _rows(self, name: str, matches: list[dict], root: str) -> Markup:
        """A match list's rows (``match_rows``), each linked to its replay."""
        return rows_html(matches, lambda idx: self.replay_href(root, name, idx))

    def comparison(self, name: str) -> dict | None:
        """What ``mallows compare`` decided for the comparison ``name``, from its stored pairs
        (the same test, read the same way: ``comparisons``): verdict (``H1``, ``H0`` or None),
        its sentence, LLR and bounds, pairs, the estimate (A better than B by ``mean`` places
        per match, ± ``half_width``, None below two pairs) and the settings."""
        if self.comparison_test is None:
            return None
        c, t = self.comparison_test(self.store, name)
        half = t.half_width if t.n > 1 and t.half_width != float("inf") else None
        from mallows.botname import short

        a, b = short(c.a), short(c.b)  # a bot given by path: by its base name
        if t.verdict == "H1":
            said = f"H1 accepted: {a} is better than {b} by at least {c.delta:g} place per match"
        elif t.verdict == "H0":
            said = f"H0 accepted: {a} is not better than {b} by {c.delta:g} place per match"
        elif t.n >= c.max_pairs:
            said = (
                f"no verdict within {2 * c.max_pairs} matches (--max-matches): the LLR is "
                f"between its bounds; a larger --max-matches continues the same test"
            )
        else:
            said = f"no verdict yet: the LLR is between its bounds after {t.n} pairs"
        return {
            "a": c.a,
            "b": c.b,
            "verdict": t.verdict,
            "said": said,
            "llr": t.llr,
            "lower": t.lower,
            "upper": t.upper,
            "pairs": t.n,
            "matches": 2 * t.n,
            "max_pairs": c.max_pairs,
            "mean": t.mean if t.n else None,
            "half_width": half,
            "delta": c.delta,
            "alpha": c.alpha,
            "beta": c.beta,
        }

    def bot_page(self, bot: str) -> str:
        boards, forfeits = [], []
        for t in self.tournaments():
            b = self.board("tournament", t["name"])
            row = next((r for r in b.rows if r["bot"] == bot), None)
            if row is not None:
                boards.append((b, row))
                forfeits += [f for f in data.forfeits(self.store, t["name"]) if f["bot"] == bot]
        if forfeits and self.is_private(bot):
            forfeits = [private.redact_forfeit(f) for f in forfeits]
        for g in self.games():
            b = self.board("game", g)
            row = next((r for r in b.rows if r["bot"] == bot), None)
            if row is not None and len([x for x in boards if x[0].game == g]) > 1:
                boards.append((b, row))
        source = self.store.bot_source(bot)
        return self._page(
            "bot.html",
            1,
            title=data.short_bot(bot),
            bot=bot,
            source=PurePath(source).name if source else None,
            versions=self.versions(bot),
            boards=boards,
            forfeits=forfeits,
        )

    def versions(self, bot: str) -> list[dict]:
        """Every submitted version of the bot shown as ``bot`` (``NAME@N``, any parameters),
        oldest first: the store's submission row plus ``shown`` (that version with ``bot``'s
        parameters), ``current`` (it is ``bot``) and ``page`` (the site has a page for it).
        Empty for a bot that was not submitted."""
        parsed = BotName.parse(bot, strict=False)
        if parsed.version is None:
            return []
        rows = self.store.submissions(parsed.base)
        if not any(r["version"] == parsed.version for r in rows):
            return []
        pages = set(self.bots())
        out = []
        for r in rows:
            shown = str(parsed.with_base(r["name"], int(r["version"])))
            out.append(dict(r, shown=shown, current=shown == bot, page=shown in pages))
        return out

    def match_view(self, tournament: str, idx: int) -> dict | None:
        """What a replay shows of match ``idx`` of ``tournament`` (None: no such match): its
        ``id``, ``game``, ``rules``, ``seed``, ``players`` (base names), ``rounds``, the result
        table (``headers``, ``rows``), ``notes``, and either ``frames`` (``compact`` deltas, one
        frame per event) or, for a record the engine does not replay, ``error`` and ``lines``
        (the events in words). ``record``: the record as shown; ``damaged``: it does not match
        its digest."""
        match_id = f"{tournament}/{idx}"
        from mallows.errors import DamagedRecord

        damage = None
        try:
            row = self.store.match(match_id)
        except DamagedRecord as exc:  # shown as stored, saying so; the rest of the report stands
            row, damage = exc.row, str(exc)
        if row is None:
            return None
        raw = json.loads(row["record"])
        if self.private is not None:  # what a private bot sent is hidden before anything shows it
            players = raw.get("players", [])
            raw = private.redact_record(
                raw, [i for i, p in enumerate(players) if self.is_private(str(p))]
            )
        # bots given by path show by their base name (a published page shows no folders)
        record = dict(raw, players=[data.short_bot(p) for p in raw.get("players", [])])
        try:
            headers, rows, notes = get_game(record["game"]).summary(record)
            notes = [brief(str(n), 400) for n in notes]  # a forfeit reason: whole below
        except Exception as exc:  # a damaged record still gets a page saying so
            headers, rows, notes = [], [], [f"no summary: {exc}"]
        if damage:
            notes = [f"damaged: {damage}"] + list(notes)
        error, deltas, lines = None, [], []
        try:
            deltas = compact(frames(record))
        except (ReplayMismatch, MallowsError) as exc:  # no table: the events in words
            error = str(exc)
            lines = _event_lines(match_id, record)
        return {
            "id": match_id,
            "game": record.get("game"),
            "rules": record.get("rules"),
            "seed": record.get("seed"),
            "players": record["players"],
            "rounds": (record.get("options") or {}).get("rounds"),
            "headers": list(headers),
            "rows": [list(r) for r in rows],
            "notes": list(notes),
            "error": error,
            "lines": lines,
            "frames": deltas,
            "record": record,
            "damaged": damage is not None,
        }

    @staticmethod
    def _game_meta(game: str | None, options: dict | None = None) -> dict:
        """What the replay page needs of a game beyond a match's frames (its replay face's
        ``meta``; nothing for a game without one)."""
        face = _replay_face(game)
        return face.meta(options or {}) if face is not None else {}

    def replay_page(self, tournament: str, idx: int) -> str | None:
        """One match's own replay page (``serve``; ``report --replay-pages``)."""
        view = self.match_view(tournament, idx)
        if view is None:
            return None
        record = view["record"]
        meta = {
            "game": view["game"],
            "players": view["players"],
            "rounds": view["rounds"],
            **self._game_meta(view["game"], record.get("options")),
        }
        face = _replay_face(view["game"])
        return self._page(
            "replay.html",
            2,
            title=f"match {view['id']}",
            match_id=view["id"],
            tournament=tournament,
            idx=idx,
            record=record,
            result_headers=view["headers"],
            result_rows=view["rows"],
            notes=view["notes"],
            error=view["error"],
            lines=view["lines"],
            steps=len(view["frames"]),
            frames_json=_script_json(view["frames"]),
            meta_json=_script_json(meta),
            seat_views=face is not None and face.seat_views(),
            game_script=game_script(view["game"]),
        )

    def replay_files(self, tournament: str) -> Iterator[tuple[str, bytes]]:
        """A tournament's replays as the report writes them by default: its data files
        (``replay_data``; those of the report at ``self.previous`` whose matches are unchanged
        are used again as they are, ``replay_cache``), their ``cache.json``, then the one
        replay page that draws any of its matches (``m/<slug>.html#<index>``)."""
        from mallows.report import replay_cache
        from mallows.report.replay_data import Chunks, chunk_path, drawn

        slug = data.slug(tournament)
        chunks = Chunks(slug, tournament)
        game = next((t["game"] for t in self._tournaments() if t["name"] == tournament), None)
        stream = replay_cache.Lookahead(self.store.match_digests(tournament))
        if self.previous is not None:
            old = replay_cache.previous(self.previous, slug)
            for entry, content in replay_cache.reusable(
                old, self.previous, tournament, stream, lambda k: chunk_path(slug, k)
            ):
                yield chunks.reuse(entry, content)
        for idx, digest in stream:
            view = self.match_view(tournament, idx)
            if view is None:
                continue
            view.pop("record")
            damaged = view.pop("damaged")
            view["frames"] = drawn(view["frames"])
            key = None if damaged else replay_cache.match_key(idx, digest)
            yield from chunks.add(idx, view, key)
        yield from chunks.close()
        yield replay_cache.cache_path(slug), replay_cache.manifest(chunks.entries)
        index = {
            "slug": slug,
            "tournament": tournament,
            "game": game,
            "chunks": chunks.index,
            "meta": self._game_meta(game),
        }
        page = self._page(
            "replays.html",
            1,
            title=f"{tournament}: replays",
            tournament=tournament,
            index_json=_script_json(index),
            game_script=game_script(game),
        )
        yield f"m/{slug}.html", page.encode()

    # -- paths --------------------------------------------------------------------------------
    def paths(self) -> Iterator[str]:
        yield "index.html"
        for name in self.names:
            yield f"t/{data.slug(name)}.html"
        for g in self.games():
            yield f"g/{g}.html"
        for name in self.ladders():
            yield f"l/{data.slug(name)}.html"
            yield f"l/{data.slug(name)}.json"
        for bot in self.bots():
            yield f"b/{data.slug(bot)}.html"
        for name in self.names:
            for page in range(1, -(-self._count("tournament", name) // MATCHES_PER_PAGE)):
                yield f"t/{data.slug(name)}/{page}.html"
        if not self.replay_data:  # else: written by replay_files
            for name in self.names:
                for idx in self.store.match_indexes(name):
                    yield f"m/{data.slug(name)}/{idx}.html"
        for f in STATIC:
            yield f"static/{f}"
        for game in game_ids():
            if _replay_face(game) is not None:
                yield f"static/{game_script(game)}"

    def resolve(self, path: str) -> Callable[[], str | bytes | None] | None:
        """The renderer of ``path``, or None when the site has no such page."""
        path = path.lstrip("/") or "index.html"
        parts = path.split("/")
        if path == "index.html":
            return self.index
        if len(parts) == 2 and parts[0] == "static" and parts[1] in STATIC:
            return lambda: (
                resources.files("mallows.report").joinpath("static").joinpath(parts[1]).read_bytes()
            )
        asset = parts[1] if len(parts) == 2 and parts[0] == "static" else ""
        if asset.startswith(GAME_SCRIPT) and asset.endswith(".js"):
            drawn = _replay_face(asset[len(GAME_SCRIPT) : -3])
            return None if drawn is None else (lambda: drawn.script().encode())
        if len(parts) == 2 and parts[1].endswith(".html"):
            key = parts[1][:-5]
            if parts[0] == "t":
                name = next((n for n in self.names if data.slug(n) == key), None)
                if name is None:
                    return None
                found: str = name
                return lambda: self.board_page("tournament", found)
            if parts[0] == "l":
                ladder = next((n for n in self.ladders() if data.slug(n) == key), None)
                if ladder is None:
                    return None
                shown: str = ladder
                return lambda: self.ladder_page(shown)
            if parts[0] == "g" and key in self.games():
                return lambda: self.board_page("game", key)
            if parts[0] == "b":
                bot = next((b for b in self.bots() if data.slug(b) == key), None)
                return None if bot is None else (lambda: self.bot_page(bot))
            if (
                parts[0] == "m"
                and not self.replay_data
                and any(data.slug(n) == key for n in self.names)
            ):
                # a report's replay address (m/<slug>.html#<index>) where each match has a
                # page of its own (serve): sent on to that page
                return lambda: self._page("to_replay.html", 1, title="replay", slug=key)
        if len(parts) == 2 and parts[0] == "l" and parts[1].endswith(".json"):
            as_json = next((n for n in self.ladders() if data.slug(n) == parts[1][:-5]), None)
            if as_json is None:
                return None
            viewed: str = as_json
            return lambda: self.ladder_json(viewed)
        if (
            len(parts) == 3
            and parts[0] == "t"
            and parts[2].endswith(".html")
            and parts[2][:-5].isdigit()
        ):
            listed = next((n for n in self.names if data.slug(n) == parts[1]), None)
            page = int(parts[2][:-5])
            if listed is None:
                return None
            return lambda: self.matches_page(listed, page)
        if len(parts) == 3 and parts[0] == "m" and parts[2].endswith(".html"):
            name = next((n for n in self.names if data.slug(n) == parts[1]), None)
            idx = parts[2][:-5]
            if name is not None and idx.isdigit():
                return lambda: self.replay_page(name, int(idx))
        return None

    def _contents(self) -> Iterator[tuple[str, str | bytes]]:
        for path in self.paths():
            page = self.resolve(path)
            content = page() if page is not None else None
            if content is not None:
                yield path, content
        if self.replay_data:
            for name in self.names:
                yield from self.replay_files(name)
            yield "404.html", self._page("missing.html", 0, title="no such page")
        if self.board_cache is not None:
            yield from self.board_cache.files()

    def write(self, out: Path, on_page: Callable[[str], None] | None = None) -> int:
        """Write every page into a new folder beside ``out`` and move it into place whole
        (``publish``: a killed report leaves the old site; pages no longer in the database
        are gone). Returns the number of files written."""
        from mallows.report.publish import publish

        self.previous = Path(out) if Path(out).is_dir() else None
        self.board_cache, self._memo = BoardCache(self.previous), {}
        try:
            return publish(Path(out), lambda folder: self._write_pages(folder, on_page))
        finally:
            self._memo = None

    def _write_pages(self, out: Path, on_page: Callable[[str], None] | None = None) -> int:
        count = 0
        for path, content in self._contents():
            target = out / path
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_bytes(content if isinstance(content, bytes) else content.encode())
            os.replace(tmp, target)
            count += 1
            if on_page:
                on_page(path)
        return count
