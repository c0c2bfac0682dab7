"""The comparison as a ``Format``: the services ``plan.prepare`` calls with a ``Comparison``.

Its check is ``spec.check_comparison_bots`` (the roles A, B and ``--opponents`` in its
messages), its settling the stored schedule version (``Comparison.resumed_as``) then its seed
derivation and secret key (``keyed``), its registering ``register`` (a larger or smaller
``--max-matches`` is the same test, run longer or shorter), its schedule the pairs over the shown
names (``spec.PairSchedule``), and its stop rule the sequential test (``run.SprtStop``).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Mapping

from mallows import seeding
from mallows.agents.registry import Resolver
from mallows.results.interface import ResultStore
from mallows.results.store import StorageError
from mallows.tournaments.compare.run import CompareResult, SprtStop
from mallows.tournaments.compare.sprt import SequentialTest
from mallows.tournaments.compare.spec import (
    KIND,
    SOURCE,
    Comparison,
    PairSchedule,
    check_comparison_bots,
    digest_of,
)
from mallows.tournaments.format import diff_definitions
from mallows.tournaments.run import add_run


class Compare:
    """Pairs of matches on one deal, A and B in the seat under test, until the test decides."""

    kind = KIND

    def check(self, spec: Comparison, resolver: Resolver | None, sandbox: str | None) -> Comparison:
        return check_comparison_bots(spec, resolver, sandbox)

    def settle(self, spec: Comparison, store: ResultStore, key: bytes | None) -> Comparison:
        row = store.tournament(spec.name)
        spec = spec.resumed_as(json.loads(row["definition"]) if row is not None else None)
        return keyed(store, spec, key)

    def register(self, spec: Comparison, store: ResultStore) -> bool:
        return register(store, spec)

    def schedule(
        self, spec: Comparison, shown: Mapping[str, str], store: ResultStore
    ) -> PairSchedule:
        """The pairs over the shown names (the seeds do not depend on the names)."""
        return PairSchedule(
            dataclasses.replace(
                spec,
                a=shown.get(spec.a, spec.a),
                b=shown.get(spec.b, spec.b),
                opponents=tuple(shown.get(o, o) for o in spec.opponents),
            )
        )

    def stop_rule(self, spec: Comparison, store: ResultStore) -> SprtStop:
        """The sequential test over the pairs, read in schedule order (``run.SprtStop``)."""
        test = SequentialTest(spec.grid, spec.delta, spec.alpha, spec.beta)
        return SprtStop(spec, CompareResult(test, None, 0))


FORMAT = Compare()


def keyed(store: ResultStore, c: Comparison, key: bytes | None = None) -> Comparison:
    """``c`` with its seed derivation and secret key (``seeding.Chance``, secret deals): a
    comparison stored before keys (no ``chance`` in its definition) resumes unkeyed, the same
    matches as before; any other gets its key from the database (made the first time, or
    ``key``)."""
    row = store.tournament(c.name)
    if row is not None and json.loads(row["definition"]).get("kind") != KIND:
        return c  # a tournament's name: ``register`` refuses it
    if row is not None and c.derivation != seeding.LEGACY:
        old = json.loads(row["definition"])
        legacy = dataclasses.replace(c, derivation=seeding.LEGACY)
        if "chance" not in old and digest_of(old) == legacy.digest():
            c = legacy
    if c.derivation == seeding.LEGACY:
        return dataclasses.replace(c, chance=seeding.UNKEYED)
    kept = store.chance_key(c.name) or store.put_chance_key(c.name, key or seeding.fresh_key())
    return dataclasses.replace(c, chance=seeding.Chance(c.derivation, kept, secret_deals=True))


def register(store: ResultStore, c: Comparison) -> bool:
    """Record ``c`` (True) or check it against the stored comparison of the same name (False:
    a resume). A larger or smaller ``--max-matches`` is the same test, run longer or shorter."""
    definition = c.definition()
    row = store.tournament(c.name)
    if row is None:
        add_run(store, c, SOURCE, 2 * c.max_pairs)
        return True
    old = json.loads(row["definition"])
    if old.get("kind") != KIND:
        raise StorageError(
            f"{c.name!r} in {store.path} is a tournament, not a comparison: "
            f"give the comparison another --name"
        )
    if digest_of(old) != c.digest():
        changes = [
            d
            for d in diff_definitions(old, definition)
            if not d.startswith(("max_matches", "deals"))
        ]
        raise StorageError(
            f"comparison {c.name!r} is already in {store.path} with other settings; changed: "
            f"{'; '.join(changes)}. Its matches were played (and its test run) under the old "
            f"ones: leave --name out (each setting gets its own name), choose another --name, "
            f"or use another --db"
        )
    if old.get("max_matches") != c.max_matches:
        store.update_tournament(
            c.name,
            definition=json.dumps(definition, sort_keys=True),
            total=2 * c.max_pairs,
            finished=False,
        )
    return False
