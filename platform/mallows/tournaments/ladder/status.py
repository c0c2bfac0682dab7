"""What a person sees of a ladder: one view, as plain values (``ladder_view``) and as text
(``view_text``). ``mallows ladder status`` prints the text, ``mallows serve`` sends the values
to its ladder page as JSON (refreshed while the ladder runs), the static report writes them.

The view: the ladder's mode and progress (epochs, matches stored and planned, why matches were
scheduled), the standings of the whole-history fit (rating with its interval, rank interval,
P(rank <= k), matches, mean place, and each bot's status: active, newcomer, withdrawn, retired,
eliminated, refused), the questions with their probability now, the newcomers and their rate,
the recent matches with their reason, and the events not yet applied (a join waiting for the
next epoch). Reads only: works on a database opened read-only.
"""

from __future__ import annotations

from typing import Any

from mallows.safetext import escape
from mallows.tournaments.ladder.run import answers_for, fits, policy_of, read_state, stored_ladder

RECENT = 12


def ladder_view(store: Any, name: str, recent: int = RECENT) -> dict:
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
    for r in fit.rows():
        e = by_shown.get(r.bot)
        status = e.status if e is not None else "active"
        newcomer = e is not None and e.joined > 0 and status == "active"
        rate = entry_rate(r.bot, field_fit, policy) if newcomer else 1.0
        standings.append(
            {
                "rank": r.rank,
                "bot": r.bot,
                "rating": r.rating,
                "low": r.low,
                "high": r.high,
                "rank_low": r.rank_low,
                "rank_high": r.rank_high,
                "p_top": list(r.p_top[:3]),
                "matches": r.matches,
                "mean_place": r.mean_place,
                "status": "newcomer" if newcomer and rate > 1 else status,
                "note": e.note if e is not None else "",
                "rate": rate,
                "joined": e.joined if e is not None else 0,
            }
        )
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
                "answered": a.answered,
                "probability": a.probability,
                "explanation": a.explanation,
            }
            for a in answers
        ],
        "standings": standings,
        "newcomers": [s for s in standings if s["joined"] > 0],
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
        "finals": (
            None
            if ladder.finals is None
            else {"cutoffs": list(ladder.finals.cutoffs), "epochs": ladder.finals.epochs}
        ),
        "final_order_certainty": (
            field_fit.p_order(field_fit.order())
            if state.mode.startswith("finals") or state.mode == "done"
            else None
        ),
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


def view_text(v: dict) -> str:
    """The view as the terminal shows it (names escaped: a bot's name is untrusted text)."""
    lines = [_state_line(v), ""]
    lines.append(
        f"{'rank':>4}  {'bot':<22} {'rating (95%)':<24} {'rank (95%)':<10} "
        f"{'P(top1)':>7} {'P(top3)':>7} {'matches':>7} {'place':>5}  status"
    )
    for s in v["standings"]:
        p3 = s["p_top"][2] if len(s["p_top"]) > 2 else 1.0
        status = s["status"] + (f" (x{s['rate']:.0f} rate)" if s["status"] == "newcomer" else "")
        lines.append(
            f"{s['rank']:>4}  {escape(s['bot'])[:22]:<22} "
            f"{s['rating']:+.2f} [{s['low']:+.2f}, {s['high']:+.2f}]{'':<3} "
            f"{s['rank_low']}-{s['rank_high']:<8} {s['p_top'][0]:>7.2f} {p3:>7.2f} "
            f"{s['matches']:>7} {s['mean_place']:>5.2f}  {status}"
        )
    if v["questions"]:
        lines += ["", "questions:"]
        for q in v["questions"]:
            mark = "answered" if q["answered"] else "open"
            lines.append(
                f"  [{mark}] {q['question']}: P = {q['probability']:.3f} · "
                f"{escape(q['explanation'])}"
            )
    if v["final_order_certainty"] is not None:
        lines.append(f"final table: P(this order is right) = {v['final_order_certainty']:.3f}")
    if v["pending"]:
        lines += ["", "waiting for the next epoch:"]
        lines += [f"  {p['kind']} {escape(p['bot'] or '')} ({p['created']})" for p in v["pending"]]
    if v["recent"]:
        lines += ["", "recent matches:"]
        for m in v["recent"]:
            seats = ", ".join(f"{escape(b)} {p}" for b, p in zip(m["players"], m["places"]))
            lines.append(f"  #{m['index']:<6} {seats}  ({escape(m['reason'])})")
    return "\n".join(lines)
