"""What a person sees of a ladder: one view, as plain values (``ladder_view``) and as text
(``view_text``). ``mallows ladder status`` prints the text, ``mallows serve`` sends the values
to its ladder page as JSON (refreshed while the ladder runs), the static report writes them.

The view: the ladder's mode and progress (epochs, matches stored and planned, why matches were
scheduled), the standings of the whole-history fit (rating with its interval, rank interval,
P(rank <= k), matches, mean place and the fit's expected place against the whole field (the
raw mean place depends on whom a bot met; the fit's does not), and each bot's status: active, newcomer, withdrawn, retired,
eliminated, refused, suspended), the unannounced checks done and failed, the questions with their probability now, the newcomers and their rate,
the recent matches with their reason, and the events not yet applied (a join waiting for the
next epoch). Reads only: works on a database opened read-only.
"""

from __future__ import annotations

from typing import Any

from mallows.results.interface import ResultStore
from mallows.safetext import escape
from mallows.tournaments.ladder import checks
from mallows.tournaments.ladder.run import answers_for, fits, policy_of, read_state, stored_ladder

RECENT = 12
#: Below the standings: what the two place columns are, and why only the second compares bots.
PLACE_NOTE = (
    "place: the mean place (1 = first) over the bot's own matches, which depends on whom it "
    "met; fit: the fit's expected place at a {players}-seat table drawn from the whole field, "
    "comparable between bots"
)


def ladder_view(store: ResultStore, name: str, recent: int = RECENT) -> dict:
    """The view of ladder ``name`` in ``store`` (plain values, JSON-able)."""
    from mallows.tournaments.ladder.policy import entry_rate
    from mallows.tournaments.ladder.questions import label

    ladder = stored_ladder(store, name)
    state = read_state(store, ladder)
    row = store.tournament(name) or {}
    by_shown = {e.shown: e for e in state.entrants.values() if e.shown}
    fit, field_fit = fits(store, state)
    answers = answers_for(ladder, state, field_fit)
    policy = policy_of(ladder)
    standings = []
    shown_fit = _standings_fit(store, name, fit)
    unplayed = [b for b, n in zip(fit.bots, fit.played) if n == 0 and b not in shown_fit.bots]
    for r in [*shown_fit.rows(), *unplayed]:
        bot = r if isinstance(r, str) else r.bot
        e = by_shown.get(bot)
        status = e.status if e is not None else "active"
        newcomer = e is not None and e.newcomer and status == "active"
        rate = entry_rate(bot, field_fit, policy) if newcomer else 1.0
        standings.append(
            {
                **(_unrated(bot) if isinstance(r, str) else _rated(r)),
                "fit_place": None
                if isinstance(r, str)
                else fit.expected_place(bot, ladder.players),
                "status": "newcomer" if newcomer and rate > 1 else status,
                "note": e.note if e is not None else "",
                "rate": rate,
                "joined": e.joined if e is not None else 0,
                "entered": e is not None and e.newcomer,
            }
        )
    in_finals = state.mode.startswith("finals") or state.mode == "done"
    pending = [
        {"kind": ev["kind"], "bot": ev["bot"], "created": ev["created"]}
        for ev in store.ladders.events(name, state.events_upto)
        if ev["kind"] in ("join", "withdraw", "finals")
    ]
    stored = store.count_matches(name)
    return {
        "name": name,
        "game": ladder.game,
        "players": ladder.players,
        "style": ladder.style,
        "mode": state.mode,
        "epochs": len(state.epochs),
        "stored": stored,
        "planned": state.planned,
        "max_matches": ladder.max_matches,
        "finished": bool(row.get("finished")) and not pending,
        "running": stored < state.planned,
        "reasons": store.ladders.reasons(name),
        "questions": [
            {
                "question": label(a.question),
                "bot": getattr(a.question, "bot", None),  # a place question's bot
                "answered": a.answered,
                "probability": a.probability,
                "explanation": a.explanation,
            }
            for a in answers
        ],
        "standings": standings,
        "newcomers": [s for s in standings if s["entered"]],
        "recent": [
            {
                "index": m["idx"],
                "players": m["players"],
                "places": [r + 1 for r in m["ranks"]],
                "reason": m["reason"] or "",
                "finished_at": m["finished_at"],
            }
            for m in store.ladders.recent(name, recent)
        ],
        "pending": pending,
        "checks": checks.summary(store.ladders.events(name)),
        "finals": (
            None
            if ladder.finals is None
            else {"cutoffs": list(ladder.finals.cutoffs), "epochs": ladder.finals.epochs}
        ),
        "final_order_certainty": field_fit.p_order(field_fit.order()) if in_finals else None,
        # the finals' table: the finalists alone, in the order the certainty is about
        "final_table": [_rated(r) for r in field_fit.rows()] if in_finals else None,
    }


def _standings_fit(store: ResultStore, name: str, fit: Any) -> Any:
    """The fit the standings show: over the bots with a match. A bot without one is the prior
    alone: centring the ratings on it would widen every interval, and its wide prior would
    read as a good chance to be first. It is listed below them, unrated."""
    from mallows.tournaments.ladder.run import _fit

    if fit.matches and any(n == 0 for n in fit.played):
        return _fit(store, name, [])
    return fit


def _rated(r: Any) -> dict:
    return {
        "rank": r.rank,
        "bot": r.bot,
        "rating": r.rating,
        "low": r.low,
        "high": r.high,
        "rank_low": r.rank_low,
        "rank_high": r.rank_high,
        "p_top": list(r.p_top[:3]),
        "matches": r.matches,
        "mean_place": r.mean_place if r.matches else None,
    }


def _unrated(bot: str) -> dict:
    """A bot without a match: nothing to rate it by yet."""
    return {
        "rank": None,
        "bot": bot,
        "rating": None,
        "low": None,
        "high": None,
        "rank_low": None,
        "rank_high": None,
        "p_top": [],
        "matches": 0,
        "mean_place": None,
    }


def _state_line(v: dict) -> str:
    if v["finished"]:
        head = "finished"
    elif v["running"]:
        head = "running (an epoch is being played, or was cut short: ladder run resumes it)"
    else:
        head = "between epochs"
    mode = "" if v["mode"] == "ladder" else f" · {v['mode'].replace(':', ' stage ')}"
    reasons = ", ".join(f"{k} {n}" for k, n in sorted(v["reasons"].items()))
    return (
        f"ladder {v['name']} · {v['game']} · {v['players']} seats{mode} · {head} · epoch "
        f"{v['epochs']} · {v['stored']:,} of {v['planned']:,} planned matches stored (at most "
        f"{v['max_matches']:,})" + (f" · scheduled for: {reasons}" if reasons else "")
    )


def _checks_line(c: dict) -> str:
    return (
        f"unannounced checks: {c['done']} done ({c['matches']} matches, apart from the "
        f"standings), {len(c['failed'])} failed"
    )


def _standing_line(s: dict, status: bool = False) -> str:
    """One bot's line of the standings (``status``: with its status) or the final table."""
    bot = f"{escape(s['bot'])[:22]:<22}"
    fit = ""
    if status:  # the standings show the fit's expected place beside the raw mean place
        fit = f" {s['fit_place']:>5.2f}" if s.get("fit_place") is not None else f" {'-':>5}"
    if s["rating"] is None:  # no match yet: nothing rated
        cells = f"{'-':>4}  {bot} {'no match yet':<27} {'-':<10} {'-':>7} {'-':>7} {0:>7} {'-':>5}"
    else:
        p3 = s["p_top"][2] if len(s["p_top"]) > 2 else 1.0
        place = f"{s['mean_place']:>5.2f}" if s["mean_place"] is not None else f"{'-':>5}"
        cells = (
            f"{s['rank']:>4}  {bot} "
            f"{s['rating']:+.2f} [{s['low']:+.2f}, {s['high']:+.2f}]{'':<3} "
            f"{s['rank_low']}-{s['rank_high']:<8} {s['p_top'][0]:>7.2f} {p3:>7.2f} "
            f"{s['matches']:>7} {place}"
        )
    cells += fit
    if not status:
        return cells
    rate = f" (x{s['rate']:.0f} rate)" if s["status"] == "newcomer" else ""
    return f"{cells}  {s['status']}{rate}"


def view_text(v: dict) -> str:
    """The view as the terminal shows it (names escaped: a bot's name is untrusted text)."""
    lines = [_state_line(v), ""]
    lines.append(
        f"{'rank':>4}  {'bot':<22} {'rating (95%)':<24} {'rank (95%)':<10} "
        f"{'P(top1)':>7} {'P(top3)':>7} {'matches':>7} {'place':>5} {'fit':>5}  status"
    )
    lines += [_standing_line(s, status=True) for s in v["standings"]]
    if v["standings"]:
        lines.append(PLACE_NOTE.format(players=v["players"]))
    if v["questions"]:
        lines += ["", "questions:"]
        for q in v["questions"]:
            mark = "answered" if q["answered"] else "open"
            lines.append(
                f"  [{mark}] {q['question']}: P = {q['probability']:.3f} · "
                f"{escape(q['explanation'])}"
            )
    if v.get("final_table"):
        lines += [
            "",
            f"final table (the finalists, best first): P(this order is right) = "
            f"{v['final_order_certainty']:.3f}",
        ]
        lines += [_standing_line(s) for s in v["final_table"]]
    lines += ["", _checks_line(v["checks"])]
    lines += [
        f"  {escape(f['bot'])} failed after epoch {f['epoch']} (suspended): {escape(f['reason'])}"
        for f in v["checks"]["failed"]
    ]
    if v["pending"]:
        lines += ["", "waiting for the next epoch:"]
        lines += [f"  {p['kind']} {escape(p['bot'] or '')} ({p['created']})" for p in v["pending"]]
    if v["recent"]:
        lines += ["", "recent matches:"]
        for m in v["recent"]:
            seats = ", ".join(f"{escape(b)} {p}" for b, p in zip(m["players"], m["places"]))
            lines.append(f"  #{m['index']:<6} {seats}  ({escape(m['reason'])})")
    return "\n".join(lines)
