"""Cards of Hi MiLo!: numbered cards, Win Cards, their ids and texts, and stacked decks.

The ids are public API (``docs/himilo.md`` section 1):

| ids      | card                                                   | text               |
|----------|--------------------------------------------------------|--------------------|
| 0..71    | numbered card, value ``id // 4 + 1``, suit ``id % 4``  | ``1S``, ``7H``, ``18D`` |
| Win 0..11| coloured Win Card, rank ``id // 4`` (J, Q, K), suit ``id % 4`` | ``JS`` .. ``KD`` |
| Win 12   | neutral J (Lo)                                          | ``J*``             |
| Win 13   | neutral K (Hi)                                          | ``K*``             |

Suits (the seed's colours): 0 ♠ ``S``, 1 ♥ ``H``, 2 ♣ ``C``, 3 ♦ ``D``. Numbered cards and Win
Cards are separate id spaces. Chance is data: a round is fixed by its ``deck`` (the cards in
play, top first) and its ``line`` (the 14 Win Cards, trick 1's first).
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

import numpy as np

NUM_SUITS = 4
SUIT_LETTERS = "SHCD"
SUIT_SYMBOLS = "♠♥♣♦"
MAX_VALUE = 18
NUM_CARD_IDS = MAX_VALUE * NUM_SUITS  # 72
VALUES_IN_PLAY = {3: 12, 4: 15, 5: 18}
"""Highest card value in play by player count."""

LO, MI, HI = 0, 1, 2
"""Win Card ranks: J (Lo), Q (Mi), K (Hi)."""
RANK_LETTERS = "JQK"
NUM_WIN_CARDS = 14
NEUTRAL_LO, NEUTRAL_HI = 12, 13
NEUTRAL_TEXT = "*"
NO_SUIT = -1
"""The suit of a neutral Win Card."""


def cards_in_play(num_players: int) -> int:
    """How many numbered cards a round uses (48, 60 or 72): ids ``0..cards_in_play-1``."""
    return VALUES_IN_PLAY[num_players] * NUM_SUITS


def card_id(value: int, suit: int) -> int:
    """The id of the numbered card of ``value`` (1..18) and ``suit`` (0..3)."""
    if not 1 <= value <= MAX_VALUE or not 0 <= suit < NUM_SUITS:
        raise ValueError(f"no numbered card has value {value} and suit {suit}")
    return NUM_SUITS * (value - 1) + suit


def value(card: int) -> int:
    """The value 1..18 of a numbered card id."""
    return card // NUM_SUITS + 1


def suit(card: int) -> int:
    """The suit 0..3 of a numbered card id."""
    return card % NUM_SUITS


def card_str(card: int) -> str:
    """Text of a numbered card id: ``7S``, ``12C``."""
    if not 0 <= card < NUM_CARD_IDS:
        raise ValueError(f"{card!r} is not a card id (0..{NUM_CARD_IDS - 1})")
    return f"{value(card)}{SUIT_LETTERS[suit(card)]}"


def parse_card(text: str | int) -> int:
    """The id of a numbered card given as text (``7S``, ``7♠``, case-insensitive) or an id."""
    if isinstance(text, (int, np.integer)) and not isinstance(text, bool):
        card = int(text)
        if not 0 <= card < NUM_CARD_IDS:
            raise ValueError(f"{card!r} is not a card id (0..{NUM_CARD_IDS - 1})")
        return card
    if not isinstance(text, str):
        raise TypeError(f"a card is an id or a text such as '7S', not {text!r}")
    t = text.strip().upper()
    letter = t[-1:]
    if letter in SUIT_SYMBOLS:
        letter = SUIT_LETTERS[SUIT_SYMBOLS.index(letter)]
    if letter not in SUIT_LETTERS or not t[:-1].isdigit():
        raise ValueError(f"cannot read card {text!r}: a value 1..18 then S, H, C or D")
    return card_id(int(t[:-1]), SUIT_LETTERS.index(letter))


def win_rank(win_card: int) -> int:
    """``LO``, ``MI`` or ``HI`` of a Win Card id."""
    if win_card == NEUTRAL_LO:
        return LO
    if win_card == NEUTRAL_HI:
        return HI
    return win_card // NUM_SUITS


def win_suit(win_card: int) -> int:
    """The suit of a coloured Win Card, ``NO_SUIT`` for the neutral ones."""
    return NO_SUIT if win_card >= NEUTRAL_LO else win_card % NUM_SUITS


def win_card_str(win_card: int) -> str:
    """Text of a Win Card id: ``JS``, ``QD``, ``J*``, ``K*``."""
    if not 0 <= win_card < NUM_WIN_CARDS:
        raise ValueError(f"{win_card!r} is not a Win Card id (0..{NUM_WIN_CARDS - 1})")
    suit_text = (NEUTRAL_TEXT if win_card >= NEUTRAL_LO
                 else SUIT_LETTERS[win_card % NUM_SUITS])
    return RANK_LETTERS[win_rank(win_card)] + suit_text


WIN_CARD_IDS = {win_card_str(w): w for w in range(NUM_WIN_CARDS)}


def parse_win_card(text: str | int) -> int:
    """The id of a Win Card given as text (``QH``, ``K*``, ``Q♥``) or an id."""
    if isinstance(text, (int, np.integer)) and not isinstance(text, bool):
        win = int(text)
        if not 0 <= win < NUM_WIN_CARDS:
            raise ValueError(f"{win!r} is not a Win Card id (0..{NUM_WIN_CARDS - 1})")
        return win
    if not isinstance(text, str):
        raise TypeError(f"a Win Card is an id or a text such as 'QH', not {text!r}")
    t = text.strip().upper().replace("★", NEUTRAL_TEXT)
    for symbol, letter in zip(SUIT_SYMBOLS, SUIT_LETTERS, strict=True):
        t = t.replace(symbol, letter)
    if t not in WIN_CARD_IDS:
        raise ValueError(f"cannot read Win Card {text!r}; Win Cards are {list(WIN_CARD_IDS)}")
    return WIN_CARD_IDS[t]


def _ordered(items: Any, what: str) -> Iterable:
    """``items`` if it has an order (a sequence, an array, an iterator); TypeError naming
    ``what`` for text, an unordered collection (a set, a dict) or a single value."""
    if isinstance(items, str | bytes | AbstractSet | Mapping) or not isinstance(items, Iterable):
        raise TypeError(f"a {what} is an ordered sequence of cards (ids or texts), not "
                        f"{type(items).__name__} {reprlib.repr(items)}")
    return items


def deck_order(num_players: int, deck: Sequence[int | str] | None,
               rng: np.random.Generator) -> list[int]:
    """The round's deck, top first: ``deck`` checked (a permutation of the cards in play,
    ids or texts), or a fresh shuffle from ``rng`` when it is None."""
    size = cards_in_play(num_players)
    if deck is None:
        return rng.permutation(size).tolist()
    order = [parse_card(c) for c in _ordered(deck, "stacked deck")]
    if sorted(order) != list(range(size)):
        raise ValueError(f"a stacked deck for {num_players} players must hold each card id "
                         f"0..{size - 1} exactly once (values 1..{VALUES_IN_PLAY[num_players]})"
                         f"; got {len(order)} cards")
    return order


def line_order(line: Sequence[int | str] | None, rng: np.random.Generator) -> list[int]:
    """The round's line of Win Cards, trick 1's first: ``line`` checked (a permutation of the
    14 Win Cards, ids or texts), or a fresh shuffle from ``rng`` when it is None."""
    if line is None:
        return rng.permutation(NUM_WIN_CARDS).tolist()
    order = [parse_win_card(w) for w in _ordered(line, "stacked line")]
    if sorted(order) != list(range(NUM_WIN_CARDS)):
        raise ValueError(f"a stacked line must hold each of the {NUM_WIN_CARDS} Win Cards "
                         f"exactly once; got {[win_card_str(w) for w in order]}")
    return order
