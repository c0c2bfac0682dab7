"""Train a small Take4 policy and submit it as a bot: the whole path from training to a
tournament, with numpy only (docs/play-and-train.md walks through it).

    python examples/train_take4.py --out mypolicy --minutes 3 --submit
    mallows compare ./mypolicy random --game take4

1. **Data.** A tournament of a teacher (``greedy`` by default) against ``random`` is played and
   stored (``mallows tournament run``), then exported as trajectories
   (``mallows export --trajectories``): the teacher's observations as the encoder's vectors,
   the legal-action masks and its picks.
2. **Imitation.** A linear softmax policy (``logits = x @ W + b``, the template bot's) is fitted
   to the teacher's picks by gradient descent on the masked cross-entropy.
3. **Reinforcement.** For the rest of the time budget, the policy plays the PettingZoo
   environment (``mallows.interop.pettingzoo``, when installed) against ``random`` seats and is
   improved by REINFORCE on its place reward, with a running baseline; the version that did
   best in the periodic evaluations is kept.
4. **Bot.** The template bot (``bots/template_policy``) is copied to ``--out`` with the policy
   in its ``policy.npz``; with ``--submit`` it is checked and stored with
   ``mallows bots submit``, ready for ``mallows compare`` and tournaments.

The encoder is ``mallows.games.take4.encoding``: the environment, the trajectories and the bot
all use it, so the policy sees in a tournament what it saw in training.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from mallows.games.take4 import encoding

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE.parent / "bots" / "template_policy"
MALLOWS = str(Path(sys.executable).with_name("mallows"))


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    z = np.where(mask > 0, logits, -1e9)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z) * (mask > 0)
    return e / e.sum(axis=-1, keepdims=True)


def teacher_data(teacher: str, matches: int, seed: int, work: Path) -> tuple[np.ndarray, ...]:
    """Play ``teacher`` against random, export the trajectories, keep the teacher's
    decisions: ``(X, masks, actions)``."""
    db = work / "teacher.db"
    (work / "teacher.toml").write_text(
        f'name = "teacher"\ngame = "take4"\nplayers = 2\ndeals = {max(1, matches // 2)}\n'
        f'seed = {seed}\nbots = ["{teacher}", "random"]\n'
    )
    subprocess.run(
        [
            MALLOWS,
            "tournament",
            "run",
            str(work / "teacher.toml"),
            "--db",
            str(db),
            "--workers",
            "1",
            "--quiet",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    lines = subprocess.run(
        [MALLOWS, "export", "--db", str(db), "--trajectories"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    rows = [json.loads(line) for line in lines]
    mine = [r for r in rows if r["player"].split(":")[0] == teacher and r["by"] == "bot"]
    X = np.array([r["vector"] for r in mine], dtype=np.float32)
    M = np.array([r["mask"] for r in mine], dtype=np.float32)
    A = np.array([r["actions"][0] for r in mine], dtype=np.int64)
    return X, M, A


def imitate(
    X: np.ndarray, M: np.ndarray, A: np.ndarray, epochs: int, lr: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    W = rng.normal(0, 0.01, (encoding.SIZE, encoding.ACTIONS)).astype(np.float32)
    b = np.zeros(encoding.ACTIONS, dtype=np.float32)
    onehot = np.eye(encoding.ACTIONS, dtype=np.float32)[A]
    for _ in range(epochs):
        p = masked_softmax(X @ W + b, M)
        grad = (p - onehot) / len(X)
        W -= lr * (X.T @ grad)
        b -= lr * grad.sum(axis=0)
    accuracy = float((masked_softmax(X @ W + b, M).argmax(axis=1) == A).mean())
    print(f"imitation: {len(X)} decisions, agreement with the teacher {accuracy:.1%}")
    return W, b


def play_env(
    W: np.ndarray,
    b: np.ndarray,
    episodes: int,
    rng: np.random.Generator,
    learn: float = 0.0,
    baseline: list[float] | None = None,
) -> float:
    """Play ``episodes`` 2-seat matches against random in the PettingZoo environment (the
    policy's seat alternating); with ``learn`` > 0, a REINFORCE step after each. Returns the
    mean reward."""
    from mallows.interop.pettingzoo import take4_env

    env = take4_env(2)
    total = 0.0
    for episode in range(episodes):
        env.reset(seed=int(rng.integers(2**31)))
        me = env.possible_agents[episode % 2]
        grads_W, grads_b = [], []
        reward = 0.0
        for agent in env.agent_iter():
            obs, r, term, trunc, _ = env.last()
            if agent == me:
                reward += r
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"].astype(np.float32)
            if agent != me:
                env.step(int(rng.choice(np.flatnonzero(mask))))
                continue
            x = obs["observation"]
            p = masked_softmax(x @ W + b, mask)
            a = int(rng.choice(encoding.ACTIONS, p=p))
            if learn:
                g = -p
                g[a] += 1.0
                grads_W.append(np.outer(x, g))
                grads_b.append(g)
            env.step(a)
        total += reward
        if learn and grads_W and baseline is not None:
            advantage = reward - baseline[0]
            baseline[0] += 0.05 * (reward - baseline[0])
            W += learn * advantage * np.sum(grads_W, axis=0)
            b += learn * advantage * np.sum(grads_b, axis=0)
    return total / max(1, episodes)


def greedy_value(W: np.ndarray, b: np.ndarray, episodes: int, seed: int) -> float:
    """The deterministic policy's (argmax) mean reward against random on fixed deals."""
    from mallows.interop.pettingzoo import take4_env

    env = take4_env(2)
    rng = np.random.default_rng(seed)
    total = 0.0
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        me = env.possible_agents[episode % 2]
        for agent in env.agent_iter():
            obs, r, term, trunc, _ = env.last()
            if agent == me:
                total += r
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            if agent == me:
                env.step(int(np.argmax(np.where(mask > 0, obs["observation"] @ W + b, -1e9))))
            else:
                env.step(int(rng.choice(np.flatnonzero(mask))))
    return total / episodes


def write_bot(out: Path, W: np.ndarray, b: np.ndarray) -> None:
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(TEMPLATE, out, ignore=shutil.ignore_patterns("__pycache__"))
    np.savez(
        out / "policy.npz",
        W=W.astype(np.float32),
        b=b.astype(np.float32),
        size=np.int64(encoding.SIZE),
    )
    print(f"wrote the bot {out}/ (the template bot with this policy in policy.npz)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=Path("mypolicy"), help="the bot folder to write (replaced)"
    )
    parser.add_argument(
        "--minutes",
        type=float,
        default=3.0,
        help="the whole time budget; reinforcement gets what imitation leaves",
    )
    parser.add_argument("--teacher", default="greedy", help="the bot to imitate first")
    parser.add_argument(
        "--matches", type=int, default=200, help="teacher matches played for imitation"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--submit", action="store_true", help="check the bot and store it with mallows bots submit"
    )
    parser.add_argument("--db", default=None, help="the database for --submit")
    args = parser.parse_args(argv)
    start = time.monotonic()
    budget = args.minutes * 60
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        X, M, A = teacher_data(args.teacher, args.matches, args.seed, Path(tmp))
    W, b = imitate(X, M, A, epochs=300, lr=2.0, rng=rng)
    try:
        import pettingzoo  # noqa: F401
    except ImportError:
        print("reinforcement skipped: the [pettingzoo] extra is not installed")
    else:
        best = (greedy_value(W, b, 40, 10_000), W.copy(), b.copy())
        print(f"after imitation: mean reward {best[0]:+.2f} against random")
        baseline = [0.0]
        rounds = 0
        while time.monotonic() - start < budget - 5:
            play_env(W, b, 50, rng, learn=0.01, baseline=baseline)
            rounds += 1
            value = greedy_value(W, b, 40, 10_000)
            if value > best[0]:
                best = (value, W.copy(), b.copy())
        value, W, b = best
        print(f"reinforcement: {rounds * 50} matches; kept the best, mean reward {value:+.2f}")
    write_bot(args.out, W, b)
    folder = str(args.out) if "/" in str(args.out) else f"./{args.out}"  # a path, not a name
    if args.submit:
        cmd = [MALLOWS, "bots", "submit", folder, "--name", args.out.name]
        if args.db:
            cmd += ["--db", args.db]
        print("$ " + " ".join(cmd))
        return subprocess.run(cmd, check=False).returncode
    print(f"next: mallows bots check {folder}; mallows compare {folder} random --game take4")
    return 0


if __name__ == "__main__":
    sys.exit(main())
