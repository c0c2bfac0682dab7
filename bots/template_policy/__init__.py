"""template_policy: a Take4 bot that plays a trained policy read from ``policy.npz`` beside
this file: the starting point for a bot you train (docs/play-and-train.md).

The policy is linear: ``logits = encode(observation) @ W + b`` over the four positions, the
illegal ones masked out, then the best pick (or, with ``temperature`` above 0, a pick drawn
from the softmax). ``encode`` is ``mallows.games.take4.encoding.encode``, the very encoder the
PettingZoo environment (``mallows.interop.pettingzoo``) and ``mallows export --trajectories``
use, so the bot sees in a tournament what the policy saw in training. It needs numpy and
nothing else, so it runs in the bot sandbox.

``policy.npz`` holds ``W`` (``encoding.SIZE`` x 4, float32), ``b`` (4) and ``size`` (the
encoder size it was trained for: a policy for another encoder is refused at start, not
played wrongly). ``examples/train_take4.py`` trains one and writes it here.

Parameters: ``template_policy:temperature=0.5`` (0..10, default 0: always the best pick),
``policy=other.npz`` (another file in this folder).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from mallows.agents.kit import number_param
from mallows.games.take4.encoding import SIZE, action_mask, action_of, encode

HERE = Path(__file__).resolve().parent


class Bot:
    name = "template_policy"
    version = "1.0"
    games = ("take4",)

    def __init__(self, temperature: float | str = 0.0, policy: str = "policy.npz") -> None:
        self.temperature = number_param("template_policy", "temperature", temperature, 0.0, 10.0)
        path = (HERE / str(policy)).resolve()
        if path.parent != HERE:
            raise ValueError(f"template_policy: policy={policy!r} must be a file in {HERE}")
        with np.load(path) as data:
            self.W = np.asarray(data["W"], dtype=np.float32)
            self.b = np.asarray(data["b"], dtype=np.float32)
            size = int(data["size"])
        if size != SIZE or self.W.shape != (SIZE, 4) or self.b.shape != (4,):
            raise ValueError(
                f"template_policy: {path.name} was trained for an encoder of "
                f"{size} values with W {self.W.shape}; this platform encodes "
                f"{SIZE}: train it again (examples/train_take4.py)"
            )
        self.rng = np.random.default_rng(0)

    def match_start(self, info: dict) -> None:
        self.rng = np.random.default_rng(info["seed"])

    def act(self, observation: dict) -> dict:
        logits = encode(observation) @ self.W + self.b
        legal = action_mask(observation).astype(bool)
        logits = np.where(legal, logits, -np.inf)
        if self.temperature == 0:
            return action_of(int(np.argmax(logits)))
        p = np.exp((logits - logits[legal].max()) / self.temperature)
        return action_of(int(self.rng.choice(4, p=p / p.sum())))
