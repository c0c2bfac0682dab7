"""Engine speed, every figure side by side in one run with the machine's load beside it.

Random playouts, decisions per second (a decision is one seat's answer; Take4: one pick):

- ``runner``: 4 random bots through the real runner (``mallows.runner.match.play_match``:
  every decision gets the full protocol observation, answers are checked), the Python engine;
- ``per step``: the loop an OpenSpiel user writes, driven from Python one decision at a time
  (legal actions, a uniform choice, apply; Arschmallows calls with 1 in 20 and expands
  ``get_rid`` as the random policy does), on the compiled core and on the Python engine;
- ``in the core``: whole matches played inside the compiled core (its own generator);
- the baselines in the same run: OpenSpiel's C++ ``hearts`` and ``leduc_poker`` driven the same
  way from Python (``per step``), and RLCard's UNO ``env.run`` with its random agents;
- PettingZoo AEC steps per second for Take4 (``mallows.interop.pettingzoo``: each step's
  observation vector and mask fetched, random legal actions).

Targets (issue 35): Arschmallows >= 1x ``hearts``, Take4 >= 5x UNO, Take4 AEC >= 10^5 steps/s.
OpenSpiel comes with the ``test`` extra, RLCard with ``bench`` (``pip install -e '.[bench]'``);
a missing one is reported, not guessed. ``MALLOWS_NO_CORE=1`` measures without the core.

``--side-by-side N`` instead plays seeds 0..N-1 of each game on the core (its own random
policy) and replays the core's answers on the Python engine, comparing every record event and
the result (``mallows.testing.core.core_played``): the 10^5-seed check. (The tests compare
every decision's legal actions and table on a few hundred seeds.)

    python benchmarks/bench_engines.py [--seconds 5] [--players 4]
    python benchmarks/bench_engines.py --side-by-side 100000 [--game take4]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from typing import Callable

from mallows import core
from mallows.agents.protocol import Limits
from mallows.agents.registry import load_bot
from mallows.games import get_game
from mallows.games.base import SeededChance
from mallows.runner.match import play_match
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

#: decisions per wall-clock second and per CPU second of this process (on a busy machine the
#: second is what one core would give; both are printed, with the load average beside them)
Rate = tuple[float, float]


def load() -> str:
    return "load %.1f" % os.getloadavg()[0]


def timed(seconds: float, one: Callable[[int], int]) -> Rate:
    """Run ``one(seed)`` (returns the decisions it took) for ``seconds``."""
    decisions = seed = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        decisions += one(seed)
        seed += 1
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    return decisions / wall, decisions / max(used, 1e-9)


def count_decisions(record: dict) -> int:
    if record["game"] == "take4":
        return sum(len(e["picks"]) for e in record["events"] if e["type"] == "picks")
    return sum(1 for e in record["events"] if e["type"] == "action")


def runner(game: str, players: int, seconds: float) -> Rate:
    options = get_game(game).make_options(None, {})
    spec = load_bot("random")
    limits = Limits(decision_seconds=60.0, match_seconds=1e9)

    def one(seed: int) -> int:
        handles = [spec.handle(limits) for _ in range(players)]
        return count_decisions(play_match(game, options, seed, handles))

    return timed(seconds, one)


def _expand(rng: random.Random, down: list[int]) -> list[int]:
    slots = list(down)
    rng.shuffle(slots)
    return slots[: rng.randint(2, len(slots))]


def ars_python(players: int, seconds: float) -> Rate:
    game = get_game("arschmallows")
    options = game.make_options(None, {})
    rng = random.Random(0)

    def one(seed: int) -> int:
        state = game.new_state(options, players, SeededChance(seed))
        n = 0
        while state.phase is not None:
            seat = state.current
            if state.phase == "end":
                action = {"type": "call" if rng.random() < 0.05 else "pass"}
            else:
                legal = state.legal_actions(seat)
                action = legal[rng.randrange(len(legal))]
                if action["type"] == "get_rid":
                    action = {"type": "get_rid", "slots": _expand(rng, action["choose_from"])}
            state.apply(seat, action)
            n += 1
        return n

    return timed(seconds, one)


def ars_core(players: int, seconds: float) -> Rate:
    from mallows.games.arschmallows import core as ars

    options = get_game("arschmallows").make_options(None, {})
    rng = random.Random(0)
    call, pass_, get_rid = ars.KIND["call"], ars.KIND["pass"], ars.KIND["get_rid"]
    end = ars.PHASES.index("end")

    def one(seed: int) -> int:
        match = ars.CoreArschmallows(seed, players, options)
        n = 0
        while (turn := match.turn_code()) >= 0:
            if turn >> 4 == end:
                match.apply_numbers(call if rng.random() < 0.05 else pass_)
            else:
                legal = match.legal_numbers()
                i = 4 * rng.randrange(len(legal) // 4)
                if legal[i] == get_rid:
                    slots = _expand(rng, match.face_down(turn & 15))
                    match.apply_numbers(get_rid, slots=tuple(slots))
                else:
                    match.apply_numbers(*legal[i : i + 4])
            n += 1
        return n

    return timed(seconds, one)


def take4_python(players: int, seconds: float) -> Rate:
    game = get_game("take4")
    options = game.make_options(None, {})
    rng = random.Random(0)

    def one(seed: int) -> int:
        state = game.new_state(options, players, SeededChance(seed))
        n = 0
        while not state.is_terminal():
            legal = state.legal_positions()
            for seat in state.to_move():
                state.apply(seat, {"type": "pick", "position": legal[rng.randrange(len(legal))]})
                n += 1
        return n

    return timed(seconds, one)


def take4_core(players: int, seconds: float) -> Rate:
    from mallows.games.take4.core import CoreTake4

    options = get_game("take4").make_options(None, {})
    rng = random.Random(0)

    def one(seed: int) -> int:
        match = CoreTake4(seed, players, options)
        n = 0
        while not match.is_terminal():
            mask = match.mask(match.to_move()[0])
            legal = [k + 1 for k in range(4) if mask[k]]
            for seat in match.to_move():
                match.pick(seat, legal[rng.randrange(len(legal))])
                n += 1
        return n

    return timed(seconds, one)


def in_core(game: str, players: int, seconds: float) -> Rate:
    from mallows.games.arschmallows import core as ars
    from mallows.games.take4 import core as t4

    options = get_game(game).make_options(None, {})
    batch = 200 if game == "arschmallows" else 2000
    if game == "take4":
        return timed(
            seconds, lambda s: t4.playouts(s * batch, batch, players, options["max_rounds"])
        )
    return timed(seconds, lambda s: ars.playouts(s * batch, batch, players, options))


def openspiel(name: str, seconds: float) -> Rate | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rng = random.Random(0)

    def one(seed: int) -> int:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                n += 1
        return n

    return timed(seconds, one)


def rlcard_uno(seconds: float) -> Rate | None:
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])

    def one(seed: int) -> int:
        trajectories, _ = env.run(is_training=False)
        # each player's trajectory is [state, action, state, action, ..., final state]
        return sum((len(t) - 1) // 2 for t in trajectories)

    return timed(seconds, one)


def pettingzoo_take4(players: int, seconds: float) -> Rate | None:
    try:
        from mallows.interop.pettingzoo import take4_env
    except ImportError:
        return None
    env = take4_env(players)
    rng = random.Random(0)

    def one(seed: int) -> int:
        env.reset(seed=seed)
        n = 0
        for _agent in env.agent_iter():
            obs, _, done, _, _ = env.last()
            if done:
                env.step(None)
                continue
            legal = [k for k, ok in enumerate(obs["action_mask"].tolist()) if ok]
            env.step(legal[rng.randrange(len(legal))])
            n += 1
        return n

    return timed(seconds, one)


def stream_cost(seconds: float) -> tuple[float, float | None]:
    """Microseconds of CPU for one round's new chance stream and its 62-card shuffle: numpy's
    generator (``seeding.stream_rng``) and the core's (``seeding.stream_draws``)."""
    from mallows import seeding

    def per_call(make: Callable[[int], object]) -> float:
        calls, start = 0, time.process_time()
        while time.process_time() - start < seconds / 2:
            for r in range(100):
                make(r)
            calls += 100
        return (time.process_time() - start) / calls * 1e6

    numpy = per_call(lambda r: seeding.stream_rng(12345, "deal", r).permutation(62))
    if not core.available():
        return numpy, None
    return numpy, per_call(lambda r: seeding.stream_draws(12345, "deal", r).permutation(62))


def side_by_side(seeds: int, games: list[str]) -> None:
    from mallows.testing.core import core_played as compare

    for game in games:
        start, decisions = time.perf_counter(), 0
        for seed in range(seeds):
            decisions += compare(game, seed)
            if seed % 10_000 == 9_999:
                print(f"  {game}: {seed + 1:,} seeds agree ({load()})", flush=True)
        print(
            f"{game}: seeds 0..{seeds - 1} agree on both engines, {decisions:,} decisions "
            f"compared in {time.perf_counter() - start:,.0f} s ({load()})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--side-by-side", type=int, default=0, metavar="N")
    parser.add_argument("--game", choices=["arschmallows", "take4"], action="append")
    add_smoke(parser)
    args = parser.parse_args()
    if args.side_by_side:
        if not core.available():
            raise SystemExit("no compiled core (pip install -e . with cargo on PATH)")
        side_by_side(args.side_by_side, args.game or ["take4", "arschmallows"])
        return
    if args.smoke:
        args.seconds = 0.2

    s, p, p4 = args.seconds, args.players, min(args.players, 4)
    have_core = core.available()
    rows: list[tuple[str, float | None, str]] = []

    def row(name: str, rate: float | None) -> Rate | None:
        rows.append((name, rate, load()))
        print(f"  measured {name}", flush=True)
        return rate

    hearts = row("OpenSpiel hearts (C++), per step", openspiel("hearts", s))
    row("OpenSpiel leduc_poker (C++), per step", openspiel("leduc_poker", s))
    uno = row("RLCard UNO, env.run", rlcard_uno(s))
    ars_c = row(f"arschmallows {p}p, core, per step", ars_core(p, s) if have_core else None)
    ars_all = row(
        f"arschmallows {p}p, in the core", in_core("arschmallows", p, s) if have_core else None
    )
    row(f"arschmallows {p}p, Python engine, per step", ars_python(p, s))
    row(f"arschmallows {p}p, runner (Python engine)", runner("arschmallows", p, s))
    t4_c = row(f"take4 {p4}p, core, per step", take4_core(p4, s) if have_core else None)
    row(f"take4 {p4}p, in the core", in_core("take4", p4, s) if have_core else None)
    row(f"take4 {p4}p, Python engine, per step", take4_python(p4, s))
    row(f"take4 {p4}p, runner (Python engine)", runner("take4", p4, s))
    aec = row(f"take4 {p4}p, PettingZoo AEC steps", pettingzoo_take4(p4, s))

    numpy_us, core_us = stream_cost(s)
    print(f"\ncompiled core: {'loaded' if have_core else 'absent (Python engine only)'}")
    width = max(len(r[0]) for r in rows)
    print(f"{'decisions per second':<{width}}  {'wall clock':>12}    {'CPU second':>12}")
    for name, rate, where in rows:
        if rate is None:
            print(f"{name:<{width}}  {'not measured':>12}")
        else:
            print(f"{name:<{width}}  {rate[0]:>12,.0f}    {rate[1]:>12,.0f}    ({where})")

    def ratio(label: str, ours: Rate | None, theirs: Rate | None, target: float) -> None:
        if ours is None or theirs is None:
            print(f"{label}: not measured (the core or the baseline is missing)")
        else:
            wall, cpu = ours[0] / theirs[0], ours[1] / theirs[1]
            met = "met" if min(wall, cpu) >= target else "NOT met"
            print(f"{label}: {wall:.2f}x wall, {cpu:.2f}x CPU (target >= {target:g}x: {met})")

    shown = f"{core_us:.1f} us on the core" if core_us is not None else "no core"
    print(
        f"a round's new chance stream and 62-card shuffle: {numpy_us:.1f} us of CPU on numpy, "
        f"{shown} (the same numbers)"
    )
    print()
    ratio("arschmallows core per step / hearts per step", ars_c, hearts, 1)
    ratio("arschmallows in the core / hearts per step", ars_all, hearts, 1)
    ratio("take4 core per step / UNO env.run", t4_c, uno, 5)
    if aec is not None:
        met = "met" if aec[1] >= 1e5 else "NOT met"
        print(
            f"take4 PettingZoo AEC: {aec[0]:,.0f} steps/s wall, {aec[1]:,.0f} per CPU second "
            f"(target >= 100,000: {met})"
        )


if __name__ == "__main__":
    main()
