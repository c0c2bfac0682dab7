"""Take4's cards: the four squads, their sixteen characters, and the 64-card deck.

Owns the names (RULES.md T1: 16 characters x 4 copies, four squads) and the small
lookups every other Take4 module uses: which squad a character belongs to, and how far a
collection has got towards each squad. Nothing here changes state.
"""

from __future__ import annotations

from typing import Iterable

COPIES = 4
POSITIONS = (1, 2, 3, 4)

# Squad name -> its four characters, in the rulebook's order.
SQUADS: dict[str, tuple[str, ...]] = {
    "Classic": ("Cam", "Winston", "Malcolm", "Lola"),
    "Fantasy": ("Tatiana", "Michaela", "Leonard", "Patty"),
    "Sealife": ("Archie", "Sheldon", "Stacy", "Gordon"),
    "Food": ("Maui", "Carl", "Chanel", "Floyd"),
}
SQUAD_SIZE = 4

CHARACTERS: tuple[str, ...] = tuple(name for members in SQUADS.values() for name in members)
SQUAD_OF: dict[str, str] = {name: squad for squad, members in SQUADS.items() for name in members}

# The unshuffled deck (squad by squad, character by character, four copies each). Only its
# content matters: the match's Chance shuffles it before the game starts.
DECK: tuple[str, ...] = tuple(name for name in CHARACTERS for _ in range(COPIES))

assert len(CHARACTERS) == 16 and len(DECK) == 64 and len(SQUAD_OF) == 16


def squad_counts(collection: Iterable[str]) -> dict[str, int]:
    """Squad -> how many *different* characters of that squad the collection holds."""
    distinct = set(collection)
    return {
        squad: sum(1 for name in members if name in distinct) for squad, members in SQUADS.items()
    }


def completed_squads(collection: Iterable[str]) -> list[str]:
    """The squads of which the collection holds all four different characters (checked every
    round for every seat that took a card: one set, no counts)."""
    distinct = set(collection)
    return [squad for squad, members in SQUADS.items() if distinct.issuperset(members)]


def progress(collection: Iterable[str]) -> tuple[int, int]:
    """(best squad's count of distinct characters, total count of distinct characters)."""
    distinct = set(collection)
    counts = squad_counts(distinct)
    return max(counts.values()), len(distinct)
