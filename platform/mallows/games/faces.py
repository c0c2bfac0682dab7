"""A game's faces: what people and learning libraries see of it, kept with the game.

A game's engine (``mallows.games.base.Game``) plays it; its faces show it. A game module may
give ``FACES``, a ``Faces`` whose methods hand out each face (loaded when first asked for, so a
bot process that imports the game's random policy loads none of them; ``PackageFaces`` finds
them as modules of the game's package: ``view``, ``frames`` with ``table.js``, ``web``,
``codec``):

- ``text()``, a ``TextView``: the seat's table in words, an action in words, a typed action
  read back (``mallows play --bot human``, the environments' ``render``);
- ``replay()``, a ``ReplayView``: a record replayed as frames, one per event (the report's
  replay, ``mallows replay``), the script that draws a frame in the browser, and what that
  script needs of the game beyond the frames;
- ``web()``, a ``WebView``: a seat's observation as one replay frame (the play page of
  ``mallows serve`` draws it with the replay's script);
- ``interop()``, an ``Interop``: the learning bridges' codec (observation vector, action
  numbers, the OpenSpiel parameters and chance outcomes);
- ``reference_bots``: the bots a candidate is measured against (``mallows compare``) and the
  play page offers.

A face a game does not give is ``None``; ``replay_view``, ``web_view`` and ``interop_of``
turn that into a
``MissingFace`` naming the game and the face, which the pages and bridges show as such
("highcard has no web view") instead of failing somewhere inside. A narration of events in
words, when a game has one, is a face of the same kind (a method here, a module in the game).

Owns the protocols and the lookup (``faces_of`` and the three above); every game's faces are in its own
package, the platform reads them only through here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from mallows.errors import MissingFace

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "Codec",
    "Faces",
    "Interop",
    "PackageFaces",
    "ReplayView",
    "TextView",
    "WebView",
    "faces_of",
    "interop_of",
    "replay_view",
    "web_view",
]


class TextView(Protocol):
    """A seat's view in words, drawn from its observation alone."""

    def table_lines(self, observation: Mapping) -> list[str]: ...
    def action_words(self, observation: Mapping, action: Mapping) -> str: ...
    def parse_action(self, observation: Mapping, text: str) -> Any: ...
    def typing_help(self) -> str:
        """The short forms ``parse_action`` reads, in words (``pick 2``)."""


class ReplayView(Protocol):
    """A record as frames: ``frames(record)`` gives, for every event, the table just after it
    as plain data (with ``text``, the event in words, ``event``, ``index`` and ``actor``);
    ``ReplayMismatch`` when the engine does not reproduce the record."""

    def frames(self, record: dict) -> list[dict]: ...

    def meta(self, options: Mapping) -> dict:
        """What the drawing script needs of the game beyond the frames (Take4: the squads)."""

    def script(self) -> str:
        """The JavaScript that draws a frame: it registers
        ``window.mallowsTables[<game id>] = {seatViews, draw(frame, table, ctx)}`` (see
        ``mallows/report/static/replay.js``)."""

    def seat_views(self) -> bool:
        """Whether a frame says what each seat saw (the replay offers one seat's view)."""

    def text_lines(self, frame: Mapping, names: Sequence[str], viewer: int | None) -> list[str]:
        """The lines ``mallows replay`` prints for one frame (``viewer``: one seat's view)."""

    def view_line(self, names: Sequence[str], viewer: int | None) -> str:
        """The line under ``mallows replay``'s header saying whose view it is."""


class WebView(Protocol):
    """A seat's observation drawn as one replay frame: the play page's table."""

    def frame(self, observation: Mapping) -> dict: ...

    def decision(self, observation: Mapping) -> str:
        """What the seat's decision is about, in the game's words (``take a card``)."""
        ...


class Codec(Protocol):
    """A game's encoder behind one interface: ``size`` (the vector's length), ``actions``
    (how many action numbers), ``low`` (the vector's lowest value); ``take`` maps a number to
    the protocol action, or None while a multi-step decision goes on."""

    size: int
    actions: int
    low: float

    def vector(self, observation: Mapping, seat: int) -> np.ndarray: ...
    def mask(self, observation: Mapping, seat: int) -> np.ndarray: ...
    def take(self, observation: Mapping, seat: int, number: int) -> dict | None: ...
    def describe(self, number: int) -> str: ...
    def reset(self) -> None: ...

    def numbers(self, observation: Mapping, seat: int, action: Mapping) -> list[int]:
        """The action numbers that take the protocol ``action`` (trajectories)."""


class Interop(Protocol):
    """What the PettingZoo and OpenSpiel bridges need of a game."""

    def codec(self, players: int, slots: int) -> Codec:
        """A new codec for a match of ``players`` (``slots``: Arschmallows' action row size,
        ignored by a game without one)."""

    def chance_kinds(self) -> tuple:
        """Every kind of card the game shuffles (OpenSpiel draws a shuffle card by card, an
        outcome being a kind's index)."""

    def openspiel_defaults(self) -> dict[str, Any]:
        """OpenSpiel's parameters with their defaults (``players`` among them)."""

    def openspiel_options(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The game's option overrides from OpenSpiel's parameters."""

    def max_game_length(self, options: Mapping[str, Any], players: int, slots: int) -> int:
        """An upper bound of a match's length in OpenSpiel steps (chance included)."""

    def decisions(self, state: Any, event: Mapping) -> list[tuple[int, dict, dict]]:
        """``(seat, observation, action)`` of each decision a record's ``event`` holds (none
        for an event that is not one), applied to ``state`` (trajectories)."""


class Faces:
    """A game without faces; a game's ``FACES`` overrides what it has."""

    #: the bots a candidate is measured against (``mallows compare``), the play page's
    #: suggestions
    reference_bots: tuple[str, ...] = ("random",)

    def text(self) -> TextView | None:
        return None

    def replay(self) -> ReplayView | None:
        return None

    def web(self) -> WebView | None:
        return None

    def interop(self) -> Interop | None:
        return None


class PackageFaces(Faces):
    """Faces kept as modules of the game's package, imported when first asked for: ``view``
    (``text``), ``frames`` (``replay``), ``web`` and ``codec`` (``interop``); ``modules``
    names them otherwise, or leaves a face out."""

    MODULES = {"text": "view", "replay": "frames", "web": "web", "interop": "codec"}

    def __init__(
        self,
        package: str,
        reference_bots: tuple[str, ...] = ("random",),
        modules: Mapping[str, str] | None = None,
    ):
        self.package = package
        self.reference_bots = tuple(reference_bots)
        self.modules = dict(self.MODULES if modules is None else modules)

    def _load(self, face: str) -> Any:
        name = self.modules.get(face)
        return None if name is None else importlib.import_module(f"{self.package}.{name}")

    def text(self) -> TextView | None:
        return self._load("text")

    def replay(self) -> ReplayView | None:
        return self._load("replay")

    def web(self) -> WebView | None:
        return self._load("web")

    def interop(self) -> Interop | None:
        return self._load("interop")


NO_FACES = Faces()

#: face -> how the message names it
WORDS = {
    "text": "text view",
    "replay": "replay table",
    "web": "web view",
    "interop": "codec for the learning bridges (PettingZoo, OpenSpiel)",
}


def faces_of(game: str) -> Faces:
    """The faces of registered game ``game`` (``GameConfigError`` for an unknown id)."""
    from mallows.games import get_game

    found = getattr(get_game(game), "FACES", None)
    return found if isinstance(found, Faces) else NO_FACES


def _missing(game: str, face: str) -> MissingFace:
    return MissingFace(
        f"game {game!r} has no {WORDS[face]}: its package gives none "
        f"(mallows.games.faces.Faces.{face})"
    )


def replay_view(game: str) -> ReplayView:
    """The replay face of ``game``, or ``MissingFace``."""
    found = faces_of(game).replay()
    if found is None:
        raise _missing(game, "replay")
    return found


def web_view(game: str) -> WebView:
    """The web play face of ``game``, or ``MissingFace``."""
    found = faces_of(game).web()
    if found is None:
        raise _missing(game, "web")
    return found


def interop_of(game: str) -> Interop:
    """The learning bridges' face of ``game``, or ``MissingFace``."""
    found = faces_of(game).interop()
    if found is None:
        raise _missing(game, "interop")
    return found
