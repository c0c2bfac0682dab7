"""The ladder as a ``Format``: the services over a ``Ladder``, as ``plan`` and ``run`` see them.

Its check is ``spec.check_ladder_bots``, its settling the drawn seed of the stored ladder
(``Ladder.stored_seed``) then its secret key (``run.keyed``), its registering ``run.register``
(a higher or lower cap is the same ladder), its schedule every table of the stored epochs
(``run.ladder_schedule``), and its stop rule a ``mallows ladder stop`` recorded after the run
began (``run.LadderStop``).

A ladder plans its epochs itself (``run.run_ladder``): an epoch can change the field (a join is
checked and pinned, a withdrawal leaves), so each epoch gets a new plan, not only a longer
schedule; it is a ``Format`` but not an ``EpochFormat``.
"""

from __future__ import annotations

import json
from typing import Mapping

from mallows.results.interface import ResultStore
from mallows.agents.registry import Resolver
from mallows.tournaments.ladder import run
from mallows.tournaments.ladder.schedule import LadderSchedule
from mallows.tournaments.ladder.spec import KIND, Ladder, check_ladder_bots


class LadderFormat:
    """Epochs of balanced, newcomer and extra tables until the ladder's questions are answered."""

    kind = KIND

    def check(self, spec: Ladder, resolver: Resolver | None, sandbox: str | None) -> Ladder:
        return check_ladder_bots(spec, resolver, sandbox)

    def settle(self, spec: Ladder, store: ResultStore, key: bytes | None) -> Ladder:
        row = store.tournament(spec.name)
        spec = spec.stored_seed(json.loads(row["definition"]) if row is not None else None)
        return run.keyed(store, spec, key)

    def register(self, spec: Ladder, store: ResultStore) -> bool:
        return run.register(store, spec)

    def schedule(
        self, spec: Ladder, shown: Mapping[str, str], store: ResultStore
    ) -> LadderSchedule:
        return run.ladder_schedule(spec, run.read_state(store, spec))

    def stop_rule(self, spec: Ladder, store: ResultStore) -> run.LadderStop:
        return run.stop_rule(store, spec)


FORMAT = LadderFormat()
