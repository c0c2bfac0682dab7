"""``Roster``: the shown names a run pinned, and how each one loads, as one value.

A tournament (or comparison) pins its bots (``mallows.tournaments.pinning``): each shown name
runs either a snapshot of its code (``snapshot`` digest, ``entry`` file or folder, its
parameters) or a bot the registry finds by a name (``load``: a shipped bot, an entry point).
The roster is immutable, hashable and picklable: the run's ``Resolver`` holds it, and every
``Job`` carries it to its worker (in this process or on a Ray worker), so no module global or
environment variable says what a name means.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RosterEntry:
    load: str | None = None  # a name the registry resolves
    snapshot: str | None = None  # or: the digest of the snapshot it runs
    entry: str | None = None  # the snapshot's top-level file or folder
    params: tuple[tuple[str, str], ...] = ()  # the parameters it is built with


@dataclass(frozen=True)
class Roster:
    entries: tuple[tuple[str, RosterEntry], ...] = ()
    _index: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", dict(self.entries))

    def __getstate__(self) -> dict:
        return {"entries": self.entries}

    def __setstate__(self, state: dict) -> None:
        object.__setattr__(self, "entries", state["entries"])
        object.__setattr__(self, "_index", dict(state["entries"]))

    def get(self, name: str) -> RosterEntry | None:
        return self._index.get(name)

    def names(self) -> list[str]:
        return [name for name, _ in self.entries]

    def snapshots(self) -> list[str]:
        """The digests of the snapshots it runs (what a cluster must be shipped)."""
        return sorted({e.snapshot for _, e in self.entries if e.snapshot})

    def __len__(self) -> int:
        return len(self.entries)
