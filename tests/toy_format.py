"""King of the hill: a toy epoch format that exists to prove a new format is its module plus one
registry line (``mallows.tournaments.format.FORMATS``), as ``toy_highcard`` proves it for games.

Two seats. Epoch e is one deal played in both seatings by the holder of the hill and a
challenger; whoever has the better total place over the two keeps (or takes) the hill (a tie:
the holder keeps it), and the next challenger is the next bot of the list after the last one,
skipping the holder. Epoch 0: the first bot holds the hill against the second. ``rounds``
epochs in all. Each epoch is planned from the stored results of the one before it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mallows import seeding
from mallows.agents.registry import Resolver
from mallows.results.ratings import DEFAULT_PARAMS
from mallows.tournaments import run
from mallows.tournaments.format import check_bots
from mallows.tournaments.seating import MatchSpec, deal_seed

KIND = "hill"


@dataclass(frozen=True)
class Hill:
    name: str
    game: str
    bots: tuple[str, ...]
    seed: int
    rounds: int
    players: int = 2
    limits: dict = field(default_factory=dict)
    effective_options: dict = field(default_factory=dict)
    source: str = "toy"
    bot_sources: dict = field(default_factory=dict, compare=False)
    chance: seeding.Chance = field(default=seeding.UNKEYED, compare=False)

    kind: ClassVar[str] = KIND

    @property
    def written_names(self) -> tuple[str, ...]:
        return self.bots

    @property
    def rating_params(self) -> dict:
        return dict(DEFAULT_PARAMS)

    def match_count(self) -> int:
        return 2 * self.rounds

    def definition(self) -> dict:
        return {
            "kind": KIND,
            "name": self.name,
            "game": self.game,
            "players": 2,
            "deals": self.rounds,
            "seed": self.seed,
            "bots": list(self.bots),
            "rounds": self.rounds,
            "options": {},
            "limits": dict(sorted(self.limits.items())),
            "ratings": dict(DEFAULT_PARAMS),
        }

    def digest(self) -> str:
        text = json.dumps(self.definition(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def pairs(bots: tuple[str, ...], results: Mapping[int, tuple[list, list]], epochs: int) -> list:
    """(holder, challenger) of epochs ``0..epochs-1``, from the stored results (index ->
    (players, ranks)) of every epoch before the last."""
    out = [(bots[0], bots[1])]
    last = 1  # the list position of the last challenger
    for e in range(epochs - 1):
        holder, challenger = out[e]
        places = {holder: 0, challenger: 0}
        for i in (2 * e, 2 * e + 1):
            players, ranks = results[i]
            for name, rank in zip(players, ranks):
                places[name] += rank
        if places[challenger] < places[holder]:
            holder = challenger
        last = (last + 1) % len(bots)
        if bots[last] == holder:
            last = (last + 1) % len(bots)
        out.append((holder, bots[last]))
    return out


class HillSchedule:
    def __init__(self, spec: Hill, planned: list) -> None:
        self.spec, self.planned = spec, planned

    def __len__(self) -> int:
        return 2 * len(self.planned)

    def specs(self, indices: Iterable[int]) -> Iterator[MatchSpec]:
        for i in indices:
            e, r = divmod(i, 2)
            a, b = self.planned[e]
            seats = (a, b) if r == 0 else (b, a)
            seed = deal_seed(self.spec.seed, e, 0, 1, self.spec.chance)
            yield MatchSpec(i, e, (a, b), r, 0, seats, seed)


def _results(store: Any, name: str) -> dict:
    return {i: (players, ranks) for i, players, ranks in store.indexed_results(name)}


class HillFormat:
    kind = KIND

    def check(self, spec: Hill, resolver: Resolver | None, sandbox: str | None) -> Hill:
        limits, sources = check_bots(
            spec.bots, spec.game, spec.limits, spec.source, resolver, sandbox
        )
        return dataclasses.replace(spec, limits=limits, bot_sources=sources)

    def settle(self, spec: Hill, store: Any, key: bytes | None) -> Hill:
        return spec  # unkeyed: a toy

    def register(self, spec: Hill, store: Any) -> bool:
        return run.register(store, spec)

    def schedule(self, spec: Hill, shown: Mapping[str, str], store: Any) -> HillSchedule:
        """The epochs planned so far: those with a stored match (at least the first)."""
        shown_spec = dataclasses.replace(spec, bots=tuple(shown.get(b, b) for b in spec.bots))
        results = _results(store, spec.name)
        epochs = max(1, -(-(max(results, default=-1) + 1) // 2))
        return HillSchedule(shown_spec, pairs(shown_spec.bots, results, epochs))

    def stop_rule(self, spec: Hill, store: Any) -> None:
        return None

    def next_tables(self, plan: Any, store: Any) -> HillSchedule | None:
        schedule = plan.schedule
        if len(schedule.planned) >= plan.run.rounds:
            return None
        results = _results(store, plan.name)
        return HillSchedule(
            schedule.spec, pairs(schedule.spec.bots, results, len(schedule.planned) + 1)
        )


FORMAT = HillFormat()
