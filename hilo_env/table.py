"""One description of a table, for every game and every view of it: what a spectator or one
player sees, as plain data.

A game's ``table.py`` builds a :class:`Table` from its engine's state (``describe(state,
viewer)``); the ``rgb_array`` picture (:mod:`hilo_env.picture`) draws it and the web table
(``hilo serve``) gets it as JSON (:meth:`Table.to_json`), so a video and the page show the
same names, stacks, cards and actions. ``viewer`` is the seat whose hidden cards show (None: a
spectator, who sees none until a showdown shows them).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

CARD_COLOURS = ("gold", "silver", "bronze", "black", "red", "blue", "purple", "green", "grey")
"""The colours a card's text is drawn in (a card back has none: ``hidden``)."""


@dataclass(frozen=True)
class Card:
    """A card as a viewer sees it: its face (``text`` in ``colour``) or its back
    (``hidden``); ``private``: face up for the viewer alone (their hidden card, their hand)."""

    text: str = ""
    colour: str = "black"
    hidden: bool = False
    private: bool = False

    def __post_init__(self) -> None:
        if self.colour not in CARD_COLOURS:
            raise ValueError(f"card colour {self.colour!r} is not one of {CARD_COLOURS}")


def count(number: int, noun: str) -> str:
    """``1 card``, ``3 cards``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


BACK = Card(hidden=True)
"""A card face down."""


@dataclass(frozen=True)
class Seat:
    """One seat: its name, the facts people read (``stack 40``, ``bet 3``, ``bid High``), its
    cards, whether it is to act, its marks (``dealer``) and whether it is out of the play."""

    name: str
    facts: tuple[str, ...] = ()
    cards: tuple[Card, ...] = ()
    to_act: bool = False
    marks: tuple[str, ...] = ()
    out: bool = False
    note: str = ""
    """A line under the seat: its declaration and equation at a showdown, a game won..."""


@dataclass(frozen=True)
class Action:
    """A legal action: its id and text; ``amount`` for one of a range (raises), which a page
    may offer as a slider of its ``group``."""

    id: int
    text: str
    group: str = ""
    amount: int | None = None


@dataclass(frozen=True)
class Table:
    """The table (module docstring). ``headline``: the round and the pot in words;
    ``centre``: the cards in the middle (lo-hi's pile, Hi MiLo!'s trick) under
    ``centre_label``; ``status``: who is to act and for what; ``result``: the end of an
    episode in words."""

    game: str
    title: str
    headline: str
    seats: tuple[Seat, ...]
    viewer: int | None = None
    to_act: int | None = None
    pot: int | None = None
    centre_label: str = ""
    centre: tuple[Card, ...] = ()
    status: str = ""
    legal: tuple[Action, ...] = ()
    result: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """The table as JSON-ready data (dicts, lists, strings, numbers)."""
        return json.loads(json.dumps(asdict(self)))
