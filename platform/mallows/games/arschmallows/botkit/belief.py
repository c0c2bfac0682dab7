"""The belief tracker: what one Arschmallows seat can know about the hidden cards, folded from
the events it is shown (protocol v2), not from a single observation.

Owns ``Belief``: per round, every card this seat has not seen is a *hidden card* at a known
*location* (a slot of some row, the draw pile, or the hand of the seat to move), and belongs to
exactly one *group*: a multiset of values and the hidden cards that hold exactly those values,
in some order. At the deal there is one group (the deck minus the cards this seat saw).
A reshuffle makes a second one: the new draw pile is the old discard pile minus its new top,
values this seat watched go by, so from then on the draw pile holds exactly those values and
the hidden row cards exactly the rest. A hidden card keeps its group wherever it moves (an
opponent draws it and swaps it into a slot, an exchange moves it); when it is shown (swapped
out to the discard pile, refused, revealed by get_rid, spied by this seat) its value leaves its
group. So the groups are *hard* knowledge: the true value of every hidden card is in its
group, and each group holds as many values as it has cards.

Beside the hard knowledge, soft knowledge about what each opponent did with a card:

- ``known_by``: which seats have seen each hidden card (their peeks, their draws, their spies,
  cards they took from the discard pile), so a search can give each opponent the knowledge it
  really has;
- ``kept``: the opponent drew the card and kept it (swapped it in): probably low;
- ``ceiling``: an upper bound the opponent's play suggests for a card it knows. A seat that
  swaps a card in over slot k (whose old card, now shown, was ``v``) thinks its new card is
  lower than ``max(v, mean)``, and so are the other cards it knows and kept; a seat that
  refuses a shown card ``c`` has no known card much above ``c``; a seat that draws rather
  than take the discard top ``t`` has no known card much above ``t + 2.5``. These assume a
  sensible opponent, so they only weigh values (``weight``), never exclude one.

``Belief.feed(event)`` takes one protocol-2 match event as a seat receives it (its public
keys, and ``private`` where the seat saw more: bots/README.md lists them; ``EVENT_FIELDS`` the
keys read here), ``Belief.sync(obs)`` checks the tracker
against an observation and adopts anything the observation shows that it missed. Queries:
``expected(p, i)`` (the mean a slot's card is believed to have), ``row_mean(p)``,
``sample_values(rng)`` (one assignment of values to every hidden card, consistent with the
groups, weighted by the soft knowledge). Pure: no I/O, no clock, randomness only from the
``random.Random`` a caller passes.
"""

from __future__ import annotations

import functools
import math
import random
from collections import Counter
from dataclasses import dataclass, field

from mallows.games.arschmallows.cards import COUNTS, EXCHANGE, PLAY_TWICE, SPY
from mallows.errors import BeliefError

#: The protocol-2 events ``Belief.feed`` reads and the keys it reads of each (``private``:
#: this seat's own peek, draw or spy).
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "deal": ("round", "discard"),  # a new round: the discard pile's first card
    "peek": ("seat", "slots", "private.values"),
    "draw": ("seat", "private.value"),
    "take_discard": ("seat",),
    "swap": ("seat", "slot", "discarded"),  # discarded: the card that left the slot
    "refuse": ("seat", "slot", "discarded", "face_up"),
    "spy": ("seat", "player", "slot", "private.value"),
    "exchange": ("seat", "slot", "player", "their_slot"),
    "play_twice": ("seat",),
    "get_rid": ("seat", "slots", "revealed"),  # revealed: the values turned up, in order
    "call": ("seat",),
    "pass": ("seat",),
    "reshuffle": ("discard",),  # the new discard pile's one card
    "round_end": (),
    "forfeit": (),  # the runner's: changes no card
}

#: How soft a ceiling is (points): a card ``TAU`` above its ceiling weighs 1/(1+e) as much.
TAU = 1.0
#: The least weight any value keeps: an opponent may not play as the ceilings assume.
FLOOR = 0.05
#: The margin a seat is assumed to want before it takes the discard top instead of drawing.
TAKE_MARGIN = 2.5


def _private(ev: dict) -> dict:
    private = ev.get("private")
    return private if isinstance(private, dict) else {}


@functools.lru_cache(maxsize=4096)
def _weights(ceiling: float) -> dict[int, float]:
    """Value -> the weight of that value under ``ceiling``: a soft step down past it."""
    return {
        v: FLOOR + (1.0 - FLOOR) / (1.0 + math.exp(min(50.0, (v - ceiling) / TAU))) for v in COUNTS
    }


@dataclass
class Card:
    """A card at a location, as this seat knows it: ``value`` when it has seen it, else its
    ``group``; ``known_by`` the seats that have seen it (a bit per seat), ``kept`` whether its
    owner drew it and kept it, ``ceiling`` the soft upper bound its owner's play suggests."""

    value: int | None
    group: int | None = None
    up: bool = False
    known_by: int = 0
    kept: bool = False
    ceiling: float | None = None

    def hidden(self) -> bool:
        return self.value is None


@dataclass
class Belief:
    """One seat's belief about the current round (see the module docstring)."""

    seat: int
    players: int
    table_cards: int = 6
    round: int = -1
    rows: list[list[Card]] = field(default_factory=list)
    draw: int = 0  # cards in the draw pile
    draw_group: int = 0  # their group
    discard: list[int] = field(default_factory=list)
    held: Card | None = None  # the card in the hand of the seat to move
    held_by: int | None = None
    groups: dict[int, Counter] = field(default_factory=dict)
    caller: int | None = None
    events: int = 0

    # ------------------------------------------------------------------ feeding
    def feed(self, event: dict) -> None:
        """Fold one event into the belief (``EVENT_FIELDS`` says what each carries)."""
        kind = event.get("type")
        handler = getattr(self, "_on_" + str(kind), None)
        if handler is None or kind not in EVENT_FIELDS:
            raise BeliefError(f"the belief tracker does not know the event type {kind!r}")
        try:
            handler(event)
        except (KeyError, IndexError, TypeError) as exc:
            raise BeliefError(f"a malformed {kind} event {event!r}: {exc!r}") from exc
        self.events += 1

    def feed_all(self, events: list[dict]) -> None:
        for event in events:
            self.feed(event)

    # the handlers, one per event type
    def _on_deal(self, ev: dict) -> None:
        n, t = self.players, self.table_cards
        self.round = int(ev.get("round", self.round + 1))
        top = int(ev["discard"])
        pool = Counter(COUNTS)
        pool[top] -= 1
        self.groups = {0: +pool}
        self.rows = [[Card(None, group=0) for _ in range(t)] for _ in range(n)]
        self.draw = sum(COUNTS.values()) - n * t - 1
        self.draw_group = 0
        self.discard = [top]
        self.held, self.held_by = None, None
        self.caller = None

    def _on_peek(self, ev: dict) -> None:
        s = int(ev["seat"])
        values = _private(ev).get("values")
        for k, i in enumerate(ev["slots"]):
            card = self.rows[s][int(i)]
            card.known_by |= 1 << s
            if s == self.seat and values is not None:
                self._learn(card, int(values[k]))

    def _on_draw(self, ev: dict) -> None:
        s = int(ev["seat"])
        if self.draw <= 0:
            raise BeliefError("a draw from an empty draw pile")
        card = Card(None, group=self.draw_group, known_by=1 << s)
        self.draw -= 1
        value = _private(ev).get("value")
        if s == self.seat and value is not None:
            self._learn(card, int(value))
        elif self.discard:
            # it drew rather than take the shown top card: no known card far above that one
            self._cap_known(s, self.discard[-1] + TAKE_MARGIN, None)
        self.held, self.held_by = card, s

    def _on_take_discard(self, ev: dict) -> None:
        s = int(ev["seat"])
        if not self.discard:
            raise BeliefError("take_discard from an empty discard pile")
        v = self.discard.pop()
        self.held, self.held_by = Card(v, known_by=(1 << self.players) - 1), s

    def _on_swap(self, ev: dict) -> None:
        s, k = int(ev["seat"]), int(ev["slot"])
        old_value = int(ev["discarded"])
        row = self.rows[s]
        old = row[k]
        self._show(old, old_value)
        self.discard.append(old_value)
        held = self._take_held(s)
        held.known_by |= 1 << s
        if held.hidden():
            held.kept = True
            bound = max(old_value, self._mean(held.group))
            held.ceiling = bound if held.ceiling is None else min(held.ceiling, bound)
        row[k] = held
        # the cards it knows and kept were not worth replacing either
        self._cap_known(s, max(old_value, self._mean(self.draw_group)), k)

    def _on_refuse(self, ev: dict) -> None:
        s, k = int(ev["seat"]), int(ev["slot"])
        held = self._take_held(s)
        value = int(ev["discarded"])
        self._show(held, value)
        self.discard.append(value)
        card = self.rows[s][k]
        self._show(card, int(ev["face_up"]))
        card.up = True
        # nothing it knows was worth replacing by that card
        self._cap_known(s, value + 0.5, None)

    def _on_spy(self, ev: dict) -> None:
        s, p, j = int(ev["seat"]), int(ev["player"]), int(ev["slot"])
        self._action_card(s, SPY)
        card = self.rows[p][j]
        card.known_by |= 1 << s
        value = _private(ev).get("value")
        if s == self.seat and value is not None:
            self._learn(card, int(value))

    def _on_exchange(self, ev: dict) -> None:
        s, i = int(ev["seat"]), int(ev["slot"])
        p, j = int(ev["player"]), int(ev["their_slot"])
        self._action_card(s, EXCHANGE)
        mine, theirs = self.rows[s], self.rows[p]
        mine[i], theirs[j] = theirs[j], mine[i]
        # a moved card's ceiling described its old owner's play, not the new owner's
        mine[i].ceiling, mine[i].kept = None, False
        theirs[j].ceiling, theirs[j].kept = None, False

    def _on_play_twice(self, ev: dict) -> None:
        s = int(ev["seat"])
        self._action_card(s, PLAY_TWICE)

    def _on_get_rid(self, ev: dict) -> None:
        s = int(ev["seat"])
        slots = [int(i) for i in ev["slots"]]
        revealed = [int(v) for v in ev["revealed"]]
        row = self.rows[s]
        for i, v in zip(slots, revealed):
            self._show(row[i], v)
        held = self._take_held(s)
        held.known_by |= 1 << s
        first = revealed[0]
        if "success" in ev:
            success = bool(ev["success"])
        else:
            success = (
                len(revealed) == len(slots)
                and all(v == first for v in revealed)
                and len(slots) >= (2 if first in (SPY, EXCHANGE, PLAY_TWICE) else 3)
            )
        if success:
            self.discard.extend(revealed)
            gone = set(slots[1:])
            row[slots[0]] = held
            self.rows[s] = [c for i, c in enumerate(row) if i not in gone]
        else:
            row.append(held)

    def _on_call(self, ev: dict) -> None:
        self.caller = int(ev["seat"])

    def _on_pass(self, ev: dict) -> None:
        pass

    def _on_reshuffle(self, ev: dict) -> None:
        top = int(ev["discard"])
        pile = Counter(self.discard)
        if pile[top] <= 0:
            raise BeliefError(f"a reshuffle turned up {top}, which is not in the discard pile")
        pile[top] -= 1
        gid = max(self.groups) + 1
        self.groups[gid] = +pile
        self.draw = sum(pile.values())
        self.draw_group = gid
        self.discard = [top]

    def _on_round_end(self, ev: dict) -> None:
        self.held, self.held_by = None, None

    def _on_forfeit(self, ev: dict) -> None:
        pass  # the runner plays on for the seat: its moves come as events of their own

    # ------------------------------------------------------------------ helpers
    def _learn(self, card: Card, value: int) -> None:
        """This seat sees ``card`` (privately): its value leaves its group."""
        self._show(card, value)
        card.known_by |= 1 << self.seat

    def _show(self, card: Card, value: int) -> None:
        """``card``'s value becomes known (to this seat at least)."""
        if card.value is not None:
            if card.value != value:
                raise BeliefError(f"a card known as {card.value} was shown as {value}")
            return
        group = self.groups.get(card.group) if card.group is not None else None
        if group is None or group[value] <= 0:
            raise BeliefError(
                f"a card of group {card.group} was shown as {value}, which that "
                f"group cannot hold ({dict(group or {})})"
            )
        group[value] -= 1
        if not group[value]:
            del group[value]
        card.value, card.group, card.ceiling = value, None, None

    def _take_held(self, s: int) -> Card:
        held = self.held
        if held is None or self.held_by != s:
            raise BeliefError(f"seat {s} used a card it does not hold")
        self.held, self.held_by = None, None
        return held

    def _action_card(self, s: int, value: int) -> None:
        held = self._take_held(s)
        self._show(held, value)
        self.discard.append(value)

    def _cap_known(self, s: int, bound: float, skip: int | None) -> None:
        """Seat ``s`` kept every card it knows below about ``bound``: lower their ceilings."""
        if s == self.seat:
            return
        bit = 1 << s
        for i, card in enumerate(self.rows[s]):
            if i == skip or card.up or not card.hidden() or not card.known_by & bit:
                continue
            card.ceiling = bound if card.ceiling is None else min(card.ceiling, bound)

    def _mean(self, gid: int | None) -> float:
        group = self.groups.get(gid) if gid is not None else None
        total = sum(group.values()) if group else 0
        if not total:
            return 5.0
        return sum(v * k for v, k in group.items()) / total  # type: ignore[union-attr]

    # ------------------------------------------------------------------ queries
    def hidden_cards(self) -> list[tuple[str, int, int]]:
        """Every hidden card's location: ("row", seat, slot), ("hand", seat, 0)."""
        out = [
            ("row", p, i)
            for p, row in enumerate(self.rows)
            for i, c in enumerate(row)
            if c.hidden()
        ]
        if self.held is not None and self.held.hidden():
            assert self.held_by is not None
            out.append(("hand", self.held_by, 0))
        return out

    def group_sizes(self) -> dict[int, int]:
        """Group id -> the number of hidden cards in it (rows, hand and the draw pile)."""
        sizes = {g: 0 for g in self.groups}
        for row in self.rows:
            for c in row:
                if c.hidden():
                    assert c.group is not None
                    sizes[c.group] = sizes.get(c.group, 0) + 1
        if self.held is not None and self.held.hidden():
            assert self.held.group is not None
            sizes[self.held.group] = sizes.get(self.held.group, 0) + 1
        sizes[self.draw_group] = sizes.get(self.draw_group, 0) + self.draw
        return sizes

    def consistent(self) -> bool:
        """Each group holds exactly as many values as it has hidden cards."""
        sizes = self.group_sizes()
        return all(sum(self.groups.get(g, Counter()).values()) == n for g, n in sizes.items())

    def weight(self, card: Card, value: int) -> float:
        """How much the soft knowledge favours ``value`` for ``card`` (1 = no opinion)."""
        if card.ceiling is None:
            return 1.0
        return _weights(card.ceiling)[value]

    def distribution(self, card: Card) -> dict[int, float]:
        """Value -> probability for one hidden card (its group, weighted by ``weight``; the
        other cards' weights are ignored: a marginal, not the joint)."""
        assert card.group is not None
        group = self.groups[card.group]
        w = {v: k * self.weight(card, v) for v, k in group.items() if k > 0}
        total = sum(w.values())
        return {v: x / total for v, x in w.items()} if total else {}

    def expected(self, p: int, i: int) -> float:
        """The value the card in seat ``p``'s slot ``i`` is believed to have."""
        card = self.rows[p][i]
        if card.value is not None:
            return float(card.value)
        dist = self.distribution(card)
        return sum(v * q for v, q in dist.items()) if dist else self._mean(card.group)

    def variance(self, p: int, i: int) -> float:
        card = self.rows[p][i]
        if card.value is not None:
            return 0.0
        dist = self.distribution(card)
        if not dist:
            return 16.0
        m = sum(v * q for v, q in dist.items())
        return sum(q * (v - m) ** 2 for v, q in dist.items())

    def row_mean(self, p: int) -> float:
        return sum(self.expected(p, i) for i in range(len(self.rows[p])))

    def draw_mean(self) -> float:
        """The mean value of the next card off the draw pile."""
        return self._mean(self.draw_group)

    def row_group_mean(self) -> float:
        """The mean of a hidden row card without soft knowledge (this seat's own unknown
        cards): the values of the groups less the draw pile's share."""
        pool: dict[int, float] = {}
        for c in self.groups.values():
            for v, k in c.items():
                pool[v] = pool.get(v, 0.0) + k
        if self.draw:
            draw_pool = self.groups[self.draw_group]
            frac = self.draw / max(1, sum(draw_pool.values()))
            for v, k in draw_pool.items():
                pool[v] -= k * frac
        total = sum(pool.values())
        if total <= 1e-9:
            return 5.0
        return sum(v * k for v, k in pool.items()) / total

    def sample_values(self, rng: random.Random) -> tuple[list[list[int]], list[int], int | None]:
        """One assignment of values to the hidden cards: (rows by seat and slot, the draw
        pile top last, the held card's value or None). Each group's values are dealt to its
        cards without replacement; cards with a ceiling pick first, weighted by ``weight``,
        the rest uniformly. Known cards keep their values."""
        counts = {g: dict(c) for g, c in self.groups.items()}
        rows: list[list[int]] = [
            [c.value if c.value is not None else 0 for c in row] for row in self.rows
        ]
        weighted: list[tuple[float, int, int]] = []
        plain: list[tuple[int, int]] = []
        for p, row in enumerate(self.rows):
            for i, c in enumerate(row):
                if c.value is None:
                    if c.ceiling is None:
                        plain.append((p, i))
                    else:
                        weighted.append((c.ceiling, p, i))
        weighted.sort()
        for ceiling, p, i in weighted:
            pool = counts[self.rows[p][i].group]  # type: ignore[index]
            table = _weights(ceiling)
            ws = [(v, k * table[v]) for v, k in pool.items() if k > 0]
            if not ws:
                continue
            x = rng.random() * sum(w for _, w in ws)
            pick = ws[-1][0]
            for v, w in ws:
                if x < w:
                    pick = v
                    break
                x -= w
            pool[pick] -= 1
            rows[p][i] = pick
        pools: dict[int, list[int]] = {}
        for g, pool in counts.items():
            cards = [v for v, k in pool.items() for _ in range(k)]
            rng.shuffle(cards)
            pools[g] = cards
        held: int | None = None
        if self.held is not None:
            if self.held.value is not None:
                held = self.held.value
            else:
                held = pools[self.held.group].pop()  # type: ignore[index]
        for p, i in plain:
            rows[p][i] = pools[self.rows[p][i].group].pop()  # type: ignore[index]
        draw = pools.get(self.draw_group, [])[: self.draw]
        return rows, draw, held

    # ------------------------------------------------------------------ checking
    def sync(self, obs: dict) -> list[str]:
        """Compare with an observation of this seat; adopt what it shows that the tracker
        missed (a value, a face-up card). Returns what disagreed (empty when all agreed)."""
        problems: list[str] = []
        if len(obs["rows"]) != len(self.rows):
            return [f"{len(obs['rows'])} rows shown, {len(self.rows)} tracked"]
        for p, (shown, row) in enumerate(zip(obs["rows"], self.rows)):
            if len(shown) != len(row):
                problems.append(f"seat {p}: {len(shown)} slots shown, {len(row)} tracked")
                continue
            for i, (slot, card) in enumerate(zip(shown, row)):
                v = slot["value"]
                if v is not None and card.value is None:
                    try:
                        self._show(card, int(v))
                    except BeliefError as exc:
                        problems.append(f"seat {p} slot {i}: {exc}")
                elif v is not None and card.value != v:
                    problems.append(f"seat {p} slot {i}: shown {v}, tracked {card.value}")
                card.up = bool(slot["face_up"])
        if list(obs["discard"]) != self.discard:
            problems.append(f"discard pile shown {obs['discard']}, tracked {self.discard}")
            self.discard = list(obs["discard"])
        if obs["draw_pile"] != self.draw:
            problems.append(f"draw pile shown {obs['draw_pile']}, tracked {self.draw}")
        return problems
