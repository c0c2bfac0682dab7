"""A standing ladder against a plain round robin, and the whole-history fit against TrueSkill.

Three parts, each printing its figures (the issue's benchmark; the closing note records them):

1. **Questions answered**: a simulated field of bots of known strength
(``mallows.tournaments.ladder.simulate``:
   skill plus Gaussian luck, shared places when performances round alike) played two ways
   until the same question is answered at the same certainty by the same rule
   (``mallows.tournaments.ladder.questions.answer`` on ``fit_history``, checked every 5% more
   matches):

   - **round robin**: balanced rounds only (every bot plays once a round);
   - **ladder**: the same balanced rounds plus ``Policy.extra_per_base`` extra tables per base
     table while the question is open (``mallows.tournaments.ladder.policy.extra_tables``).

   Two questions: the top 3 of the field, and a newcomer's place (it joins a field that has
   already played 40 balanced rounds, its true place in the middle, and its place is asked to
   +-1), each in a field of 16 bots and of 32. Printed: the matches each needed (median
   over seeds), their ratio (target: the ladder needs at least 3x fewer), and how often each
   answer was right against the known truth.

2. **Rank agreement** (the issue's simulation: 16 bots, 4 seats, luck 6 against a skill spread
   of 3, 1,600 balanced matches): Kendall tau of the truth with the whole-history fit (both
   ways, and read from the top only) and with online TrueSkill in the played order and
   shuffled, on a Thurstone field (Gaussian luck) and a Gumbel one; mean over seeds, and the
   paired difference fit - TrueSkill with its standard error.

3. **Fit time** for 10^5 and 10^6 matches (16 bots, and a field of 200), from the results'
   names to the table with its rank intervals (4,000 Laplace draws), beside online TrueSkill's
   time over the same 10^5 matches.

    python benchmarks/bench_ladder.py [--quick] [--part questions|agreement|timing|all]
                                      [--seeds N] [--certainty 0.95]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from mallows.tournaments.ladder.policy import Policy, extra_tables
from mallows.tournaments.ladder.questions import Place, Question, TopK, answer
from mallows.tournaments.ladder.simulate import Field, balanced_round, even_field, kendall_tau
from mallows.results.plackett_luce import fit_history
from mallows.results.ratings import leaderboard
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

SEATS = 4
CHECK_GROWTH = 1.05  # the question is checked every 5% more matches (both ways alike)


@dataclass
class Run:
    matches: int
    right: bool
    answered: bool


def _play(field: Field, tables, rng: random.Random) -> list:
    return [(list(t), field.play(list(t), rng)) for t in tables]


def run_until_answered(
    field: Field,
    question: Question,
    right,
    history: list,
    ladder: bool,
    policy: Policy,
    seed: int,
    limit: int,
    bots=None,
) -> Run:
    """Play balanced rounds (plus, for the ladder, extra tables while ``question`` is open,
    interleaved with the round's base tables) until it is answered; ``right(fit)`` says
    whether the answer is true. The question is checked every 5% more matches, between any
    two tables, for both schedules alike. Matches in ``history`` (played before) are not
    counted."""
    rng = random.Random(seed)
    entrants = list(bots if bots is not None else field.skills)
    res = list(history)
    start = len(res)
    fit = fit_history(res, bots=entrants, draws=2000, seed=seed)
    a = answer(question, fit)
    next_check = start + 1
    step = 0
    while not a.answered and len(res) - start < limit:
        step += 1
        base = [list(t) for t in balanced_round(entrants, SEATS, rng)]
        extras = policy.extra_count(len(base), [a]) if ladder else 0
        per, spare = divmod(extras, len(base))
        # each base table followed by its share of extra tables; an extra table is drawn
        # when it is played, from the newest fit (a ladder re-plans whenever it refits)
        slots: list[list[str] | None] = []
        for i, t in enumerate(base):
            slots += [t] + [None] * (per + (i < spare))
        for k, slot in enumerate(slots):
            if slot is None:
                if a.answered:
                    continue
                slot = list(
                    extra_tables([a], fit, SEATS, 1, seed=seed * 100003 + step * 997 + k)[0].bots
                )
            res += _play(field, [slot], rng)
            if len(res) >= next_check:
                fit = fit_history(res, bots=entrants, draws=2000, seed=seed + len(res))
                a = answer(question, fit)
                next_check = max(len(res) + 1, int(len(res) * CHECK_GROWTH))
                if a.answered:
                    break
    return Run(len(res) - start, bool(right(fit)) if a.answered else False, a.answered)


def _outcome(run: Run) -> str:
    return "right" if run.right else "WRONG" if run.answered else "unanswered"


def questions_part(
    seeds: int | None, certainty: float, quick: bool, sizes: list[int], limit: int | None = None
) -> None:
    """``seeds`` per field (default: 24 for 16 bots, where a run is cheap and the stopping
    times vary several-fold from seed to seed, 8 for 32 bots); ``limit``: matches a run."""
    policy = Policy()
    limit = limit or (40_000 if quick else 200_000)
    print(
        f"== 1. questions answered at {certainty:g}: ladder (balanced rounds + "
        f"{policy.extra_per_base:g} extra tables per base table while open) vs round robin "
        f"(balanced rounds); luck 3 against a skill spread of 3, ties, 4 seats"
    )
    asked = seeds
    for n in sizes:
        seeds = asked or (3 if quick else 24 if n <= 16 else 8)
        print(f"   {n} bots, {seeds} seeds", flush=True)
        # the top 3 (luck 3: the luck 6 makes the top 3 at 95% a matter of many
        # thousand round-robin matches, too long to repeat over seeds here)
        field = even_field(n, spread=3.0, luck=3.0, tie=0.5)
        truth = field.truth()

        def top3(f, truth=truth):
            return set(f.order()[:3]) == set(truth[:3])

        def top3_runs(s: int, field: Field = field, top3: Callable = top3) -> tuple[Run, Run]:
            q = TopK(3, certainty)
            rr = run_until_answered(field, q, top3, [], False, policy, s, limit)
            return rr, run_until_answered(field, q, top3, [], True, policy, s, limit)

        _summary(f"top 3 of {n}", _both(f"top 3 of {n}", seeds, top3_runs))

        # a newcomer joins a field that has played 40 balanced rounds; its place asked to +-1
        old = even_field(n - 1, spread=3.0, luck=3.0, tie=0.5, prefix="old")
        middle = sorted(old.skills.values(), reverse=True)
        new_skill = (middle[(n - 1) // 2 - 1] + middle[(n - 1) // 2]) / 2
        field = Field(dict(old.skills, new=new_skill), luck=3.0, tie=0.5)
        truth_rank = field.truth().index("new") + 1

        def place(f, truth_rank=truth_rank):
            return abs(f.rank_of("new") - truth_rank) <= 1

        def newcomer_runs(
            s: int, field: Field = field, place: Callable = place, old: Field = old
        ) -> tuple[Run, Run]:
            hist_rng = random.Random(10_000 + s)
            history: list = []
            for _ in range(40):
                history += _play(old, balanced_round(list(old.skills), SEATS, hist_rng), hist_rng)
            q = Place("new", certainty, within=1)
            bots = list(field.skills)
            rr = run_until_answered(field, q, place, history, False, policy, s, limit, bots)
            return rr, run_until_answered(field, q, place, history, True, policy, s, limit, bots)

        rows = _both(f"newcomer among {n}", seeds, newcomer_runs)
        _summary(f"newcomer's place (+-1) among {n}, joining after 40 rounds", rows)


def _both(label: str, seeds: int, runs: Callable[[int], tuple[Run, Run]]) -> list[tuple[Run, Run]]:
    """``runs(seed)``, a question asked of a round robin and of a ladder, for each seed, each
    pair printed as it comes."""
    rows = []
    for s in range(seeds):
        rr, la = runs(s)
        rows.append((rr, la))
        print(
            f"   {label}, seed {s}: round robin {rr.matches:>6} matches "
            f"({_outcome(rr)}), ladder {la.matches:>6} ({_outcome(la)})",
            flush=True,
        )
    return rows


def _summary(what: str, rows: list[tuple[Run, Run]]) -> None:
    rr = [r.matches for r, _ in rows]
    la = [b.matches for _, b in rows]
    ratios = [a / b for a, b in zip(rr, la) if b]
    print(
        f"   -> {what}: round robin median {statistics.median(rr):.0f} matches, ladder "
        f"median {statistics.median(la):.0f}: {statistics.median(rr) / statistics.median(la):.2f}x"
        f" fewer (ratio of medians; per seed: median {statistics.median(ratios):.2f}, min "
        f"{min(ratios):.2f}, max {max(ratios):.2f}); "
        f"answers right: round robin {sum(r.right for r, _ in rows)}/{len(rows)}, ladder "
        f"{sum(b.right for _, b in rows)}/{len(rows)}",
        flush=True,
    )


class GumbelField(Field):
    """A Plackett-Luce field: Gumbel luck with the same standard deviation."""

    def play(self, bots, rng):
        scale = self.luck * math.sqrt(6) / math.pi
        perf = [self.skills[b] - scale * math.log(-math.log(rng.random())) for b in bots]
        return [sum(1 for q in perf if q > p) for p in perf]


def agreement_part(seeds: int) -> None:
    print(
        "== 2. rank agreement with the truth (Kendall tau): 16 bots, 4 seats, luck 6 against "
        "a skill spread of 3, 1,600 balanced matches"
    )
    for kind in ("Thurstone (Gaussian luck)", "Plackett-Luce (Gumbel luck)"):
        taus: dict[str, list[float]] = {
            "fit both ways": [],
            "fit from the top": [],
            "TrueSkill played": [],
            "TrueSkill shuffled": [],
        }
        for s in range(seeds):
            rng = random.Random(s)
            f0 = even_field(16, 3.0, 6.0, tie=0.5)
            field = f0 if kind.startswith("Thurstone") else GumbelField(f0.skills, 6.0)
            res: list = []
            while len(res) < 1600:
                res += _play(field, balanced_round(list(field.skills), SEATS, rng), rng)
            truth = field.truth()
            taus["fit both ways"].append(kendall_tau(fit_history(res, draws=0).order(), truth))
            taus["fit from the top"].append(
                kendall_tau(fit_history(res, draws=0, both_ways=False).order(), truth)
            )
            taus["TrueSkill played"].append(kendall_tau([r.bot for r in leaderboard(res)], truth))
            shuffled = list(res)
            rng.shuffle(shuffled)
            taus["TrueSkill shuffled"].append(
                kendall_tau([r.bot for r in leaderboard(shuffled)], truth)
            )
        print(
            f"   {kind}, {seeds} fields: "
            + ", ".join(f"{k} {statistics.mean(v):.4f}" for k, v in taus.items())
        )
        for fit_name in ("fit both ways", "fit from the top"):
            for ts in ("TrueSkill played", "TrueSkill shuffled"):
                d = [a - b for a, b in zip(taus[fit_name], taus[ts])]
                se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
                print(f"      {fit_name} - {ts}: {statistics.mean(d):+.4f} (se {se:.4f})")


def _random_results(n_bots: int, matches: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    names = [f"bot{i:03d}" for i in range(n_bots)]
    skill = np.linspace(3, -3, n_bots)
    tables = (
        np.argsort(rng.random((matches, n_bots)), axis=1)[:, :SEATS]
        if n_bots <= 64
        else np.stack([rng.choice(n_bots, SEATS, replace=False) for _ in range(matches)])
    )
    perf = skill[tables] + rng.normal(0, 3, tables.shape)
    perf = np.floor(perf / 0.5)
    ranks = (perf[:, None, :] > perf[:, :, None]).sum(axis=2)
    return [([names[i] for i in t], r) for t, r in zip(tables.tolist(), ranks.tolist())]


def timing_part(quick: bool, sizes: list[tuple[int, int]] | None = None) -> None:
    print("== 3. fit time (names in, table with rank intervals out; 4,000 Laplace draws)")
    sizes = sizes or [(16, 10**5), (200, 10**5), (16, 10**6)] + ([] if quick else [(200, 10**6)])
    for n_bots, m in sizes:
        res = _random_results(n_bots, m, 1)
        t0 = time.perf_counter()
        fit = fit_history(res)
        rows = fit.rows()
        seconds = time.perf_counter() - t0
        print(
            f"   {m:>9,} matches, {n_bots:>3} bots: {seconds:6.2f} s "
            f"({fit.iterations} Newton steps; top: {rows[0].bot})",
            flush=True,
        )
        if m == 10**5 and n_bots == 16:
            t0 = time.perf_counter()
            leaderboard(res)
            print(
                f"   {m:>9,} matches, {n_bots:>3} bots: {time.perf_counter() - t0:6.2f} s "
                f"online TrueSkill (the baseline, same results)",
                flush=True,
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer seeds and sizes")
    ap.add_argument("--part", default="all", choices=["questions", "agreement", "timing", "all"])
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--certainty", type=float, default=0.95)
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.smoke:  # one small field, one seed, a few hundred matches each part
        questions_part(1, args.certainty, True, [8], limit=2000)
        agreement_part(1)
        timing_part(True, [(8, 500)])
        return 0
    if args.part in ("questions", "all"):
        questions_part(args.seeds, args.certainty, args.quick, [16] if args.quick else [16, 32])
    if args.part in ("agreement", "all"):
        agreement_part(args.seeds or (10 if args.quick else 40))
    if args.part in ("timing", "all"):
        timing_part(args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
