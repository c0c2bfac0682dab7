"""The round robin as a ``Format``: the services ``plan.prepare`` calls with a ``Tournament``.

Its check is the file's bot check (``spec.check_tournament_bots``), its settling the stored
schedule version (``Tournament.resumed_as``) then the drawn seed and the secret key
(``secrecy.settle``), its registering the core's (``run.register``: a changed definition is
refused, listing what changed), its schedule every table in every rotation (``schedule``), and
it has no stop rule: a round robin plays every match.
"""

from __future__ import annotations

import json
from typing import Mapping

from mallows.results.interface import ResultStore
from mallows.agents.registry import Resolver
from mallows.tournaments import run, secrecy
from mallows.tournaments.roundrobin.schedule import Schedule
from mallows.tournaments.roundrobin.spec import Tournament, check_tournament_bots


class RoundRobin:
    """Every k-subset of the bots, each deal in every seat rotation (``roundrobin.schedule``)."""

    kind = Tournament.kind

    def check(self, spec: Tournament, resolver: Resolver | None, sandbox: str | None) -> Tournament:
        return check_tournament_bots(spec, resolver, sandbox)

    def settle(self, spec: Tournament, store: ResultStore, key: bytes | None) -> Tournament:
        """``spec`` as ``store`` has it: a stored tournament keeps the schedule version it was
        started with, then its seed derivation and key (after the version: it compares
        digests)."""
        row = store.tournament(spec.name)
        spec = spec.resumed_as(json.loads(row["definition"]) if row is not None else None)
        return secrecy.settle(store, spec, key)

    def register(self, spec: Tournament, store: ResultStore) -> bool:
        return run.register(store, spec)

    def schedule(self, spec: Tournament, shown: Mapping[str, str], store: ResultStore) -> Schedule:
        """The round robin over the shown names (the seeds do not depend on the names)."""
        if spec.secret and not spec.chance.secret_deals:
            raise RuntimeError(
                f"tournament {spec.name!r} has secret deals: its schedule "
                f"needs its key (settle) first"
            )
        return Schedule(
            tuple(shown.get(b, b) for b in spec.written_names),
            spec.players,
            spec.deals,
            spec.seed,
            spec.schedule,
            spec.chance,
        )

    def stop_rule(self, spec: Tournament, store: ResultStore) -> None:
        return None


FORMAT = RoundRobin()
