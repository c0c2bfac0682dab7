"""Looks for the engine's state: walks gc objects and the stack frames above act() for
instances of any class defined in mallows.games, in its first `looks` decisions (default 3).
It writes what it found (one type name a line) to the file named by its `out` parameter, and
plays legal random moves."""
import gc
import random
import sys

from mallows.agents.policy import random_action


def engine_objects():
    found = set()

    def check(obj):
        module = getattr(type(obj), "__module__", "")
        # (a game's faces, ``mallows.games.faces``, are its views' loaders: no match in them)
        if isinstance(module, str) and module.startswith("mallows.games") \
                and not module.startswith("mallows.games.faces") \
                and not isinstance(obj, type) \
                and type(obj).__name__ not in ("function", "module"):
            found.add(f"{module}.{type(obj).__qualname__}")

    for obj in gc.get_objects():
        check(obj)
    frame = sys._getframe()
    while frame is not None:
        for value in list(frame.f_locals.values()):
            check(value)
        frame = frame.f_back
    return found


class Bot:
    name, version, games = "cheater", "1.0", ("arschmallows", "take4")

    def __init__(self, out="", looks="3"):
        self.out, self.looks, self.rng, self.found = out, int(looks), random.Random(0), set()

    def act(self, observation):
        if self.looks > 0:
            self.looks -= 1
            self.found |= engine_objects()
            with open(self.out, "w") as f:
                f.write("".join(f"{name}\n" for name in sorted(self.found)))
        return random_action(observation, self.rng)
