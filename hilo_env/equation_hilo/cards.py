"""Cards of Equation Hi-Lo: ids, text forms and the deck.

The ids are public API (observations, stacked decks, logs and the CLI all use them):

| id      | card                                   | text            |
|---------|----------------------------------------|-----------------|
| 0..43   | number card, value ``id // 4``, suit ``id % 4`` | ``7G``, ``10S``, ``0B``, ``3K`` |
| 44..47  | multiply (×)                            | ``x`` (or ``×``) |
| 48..51  | root (√)                                | ``r`` (or ``√``) |

Suits, strongest first for High ties: Gold (``G``), Silver (``S``), Bronze (``B``),
Black (``K``, "Dirt" in the classic rules).

A smaller deck (the rule fields ``deck_values``, ``deck_suits``, ``deck_multiply``,
``deck_roots``) is a subset of these ids, :func:`deck_ids`; no id or text changes.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import numpy as np

NUM_VALUES = 11
NUM_SUITS = 4
NUM_NUMBER_CARDS = NUM_VALUES * NUM_SUITS  # 44
FIRST_MULTIPLY = NUM_NUMBER_CARDS  # 44
FIRST_ROOT = FIRST_MULTIPLY + 4  # 48
DECK_SIZE = FIRST_ROOT + 4  # 52

GOLD, SILVER, BRONZE, BLACK = range(NUM_SUITS)
SUIT_LETTERS = "GSBK"

MULTIPLY_TEXT = "x"
ROOT_TEXT = "r"
MULTIPLY_SYMBOL = "×"
ROOT_SYMBOL = "√"
_SPECIAL_ALIASES = {"x": MULTIPLY_TEXT, MULTIPLY_SYMBOL: MULTIPLY_TEXT, "*": MULTIPLY_TEXT,
                    "r": ROOT_TEXT, ROOT_SYMBOL: ROOT_TEXT}


def is_number(card: int) -> bool:
    """True for a number card (ids 0..43)."""
    return 0 <= card < NUM_NUMBER_CARDS


def is_multiply(card: int) -> bool:
    """True for a × card (ids 44..47)."""
    return FIRST_MULTIPLY <= card < FIRST_ROOT


def is_root(card: int) -> bool:
    """True for a √ card (ids 48..51)."""
    return FIRST_ROOT <= card < DECK_SIZE


def value(card: int) -> int:
    """The value 0..10 of a number card."""
    if not is_number(card):
        raise ValueError(f"card {card} is not a number card (ids 0..43)")
    return card // NUM_SUITS


def suit(card: int) -> int:
    """The suit of a number card: 0 Gold, 1 Silver, 2 Bronze, 3 Black."""
    if not is_number(card):
        raise ValueError(f"card {card} is not a number card (ids 0..43)")
    return card % NUM_SUITS


def number_card(value: int, suit: int) -> int:
    """The id of the number card with this value and suit."""
    if not 0 <= value < NUM_VALUES or not 0 <= suit < NUM_SUITS:
        raise ValueError(f"no number card has value {value} and suit {suit}")
    return value * NUM_SUITS + suit


def card_str(card: int) -> str:
    """Text form of a card id: ``7G``, ``10S``, ``x``, ``r``."""
    if is_number(card):
        return f"{card // NUM_SUITS}{SUIT_LETTERS[card % NUM_SUITS]}"
    if is_multiply(card):
        return MULTIPLY_TEXT
    if is_root(card):
        return ROOT_TEXT
    raise ValueError(f"card id {card!r} is out of range 0..{DECK_SIZE - 1}")


def card_symbol(card: int) -> str:
    """A card as people read it on the table: ``7G``, ``10S``, ``×``, ``√``."""
    if is_multiply(card):
        return MULTIPLY_SYMBOL
    if is_root(card):
        return ROOT_SYMBOL
    return card_str(card)


def parse_card(text: str) -> int:
    """The card id of a text form.

    Specials (``x``, ``r``) have no suit, so this returns the first id of their kind;
    use :func:`parse_deck` to turn a list of texts into distinct ids.
    """
    t = text.strip()
    special = _SPECIAL_ALIASES.get(t.lower() if t.isascii() else t)
    if special == MULTIPLY_TEXT:
        return FIRST_MULTIPLY
    if special == ROOT_TEXT:
        return FIRST_ROOT
    if len(t) >= 2 and t[:-1].isdigit() and t[-1].upper() in SUIT_LETTERS:
        v = int(t[:-1])
        if v < NUM_VALUES:
            return number_card(v, SUIT_LETTERS.index(t[-1].upper()))
    raise ValueError(
        f"cannot read card {text!r}: expected a value 0..10 and a suit letter "
        f"(G, S, B, K), such as '7G' or '10S', or 'x' (×) or 'r' (√)"
    )


def holds_bool(values: object) -> bool:
    """Whether ``values`` (an array, or sequences nested in any depth) holds a bool, which
    NumPy would read as the card id 0 or 1: decks given as arrays refuse them with it."""
    if isinstance(values, np.ndarray):
        return values.dtype == np.bool_ or (values.dtype == object
                                            and any(holds_bool(v) for v in values.flat))
    if isinstance(values, list | tuple):
        return any(holds_bool(v) for v in values)
    return isinstance(values, bool | np.bool_)


def parse_deck(cards: Iterable[int | str]) -> list[int]:
    """Distinct card ids from ids or text forms, in order.

    Each ``x`` or ``r`` takes the next unused id of its kind, so ``["x", "x"]`` gives
    ``[44, 45]``. A repeated card, a fifth special of a kind or an item that is neither an id
    nor a text (a bool included: ``True`` is no card 1) raises ValueError.
    """
    out: list[int] = []
    used: set[int] = set()
    for item in cards:
        if isinstance(item, str):
            card = parse_card(item)
            if not is_number(card):
                last = card + 4
                while card in used and card < last:
                    card += 1
                if card == last:
                    raise ValueError(f"the deck has only 4 cards of kind {item!r}")
        elif isinstance(item, int | np.integer) and not isinstance(item, bool) and \
                0 <= int(item) < DECK_SIZE:
            card = int(item)
        else:
            raise ValueError(f"card {item!r} is not a card id 0..{DECK_SIZE - 1} or a card text")
        if card in used:
            raise ValueError(f"card {card_str(card)} (id {card}) appears twice in the deck")
        used.add(card)
        out.append(card)
    return out


MIX_GAMMA = 0x9E3779B97F4A7C15
MIX_ROUNDS = ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB))
MIX_FINAL_SHIFT = 31
"""SplitMix64's finaliser, which :func:`reshuffle_keys` applies: the increment, two (shift,
multiplier) rounds, the final shift. Every backend's reshuffle uses these numbers."""
# The same as 0-d arrays: a ufunc whose other operand is a 0-d array takes NumPy's fast path,
# which a NumPy scalar leaves (the engine keys one small deck at a time).
_GOLDEN_GAMMA = np.array(MIX_GAMMA, dtype=np.uint64)
_MIX_ROUNDS = tuple((np.array(shift, dtype=np.uint64), np.array(multiplier, dtype=np.uint64))
                    for shift, multiplier in MIX_ROUNDS)
_FINAL_SHIFT = np.array(MIX_FINAL_SHIFT, dtype=np.uint64)


def _mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on uint64 arrays, a fixed bijection that scrambles bits (uint64
    arithmetic wraps by design: callers silence NumPy's overflow warning where it can arise)."""
    z = x + _GOLDEN_GAMMA  # a new array: the rounds below may work in place
    for shift, multiplier in _MIX_ROUNDS:
        z ^= z >> shift
        z *= multiplier
    return z ^ (z >> _FINAL_SHIFT)


def reshuffle_keys(hand_seed: np.ndarray | int, count: np.ndarray | int,
                   card_ids: np.ndarray) -> np.ndarray:
    """Sort keys that reshuffle a deck: after the ``count``-th reshuffle of a hand, the
    undrawn cards lie in ascending order of their keys (top first).

    A reshuffle is a function of the hand's seed, so a hand is data (deck order and seed) and
    the batched simulator reproduces the engine's reshuffles exactly. Arrays of seeds and
    counts broadcast against ``card_ids``: ``(k, 1)`` each for ``k`` decks ``(k, 52)``.
    """
    ids = np.asarray(card_ids, dtype=np.uint64)
    if isinstance(hand_seed, int) and isinstance(count, int) and ids.ndim:
        # one hand's cards: array arithmetic wraps silently, no errstate needed
        return _mix64(ids + np.uint64((hand_seed + count * DECK_SIZE) % 2**64))
    base = np.asarray(hand_seed, dtype=np.uint64) + np.asarray(count, dtype=np.uint64) * \
        np.uint64(DECK_SIZE)
    with np.errstate(over="ignore"):
        return _mix64(base + ids)


@functools.cache
def deck_ids(values: Iterable[int] = range(NUM_VALUES), suits: int = NUM_SUITS,
             multiply: int = 4, roots: int = 4) -> tuple[int, ...]:
    """The ids of a deck, ascending: the number cards of ``values`` (a tuple or range) in the
    first ``suits`` suits (Gold first), the first ``multiply`` × ids and the first ``roots`` √
    ids. Made once per deck: the engine asks at every new game."""
    numbers = sorted(number_card(v, s) for v in values for s in range(suits))
    return (*numbers, *range(FIRST_MULTIPLY, FIRST_MULTIPLY + multiply),
            *range(FIRST_ROOT, FIRST_ROOT + roots))


FULL_DECK = deck_ids()
"""All 52 ids."""


def check_in_deck(stacked: Iterable[int], ids: tuple[int, ...]) -> None:
    """Raise ValueError naming the stacked cards that a deck of ``ids`` does not hold."""
    outside = [card_str(c) for c in stacked if c not in ids]
    if outside:
        raise ValueError(f"card(s) {outside} are not in this deck (its rules leave them out)")


def shuffled_deck(rng: np.random.Generator, top: Iterable[int | str] = (),
                  ids: tuple[int, ...] = FULL_DECK) -> list[int]:
    """The deck of ``ids`` (by default all 52 cards), ``top`` first (ids or texts, top first),
    the rest shuffled by ``rng``; a stacked card outside the deck raises ValueError.

    The returned list is in draw order: index 0 is the top card.
    """
    stacked = parse_deck(top)
    full = len(ids) == DECK_SIZE
    if not full:
        check_in_deck(stacked, ids)
    if not stacked:
        return (rng.permutation(DECK_SIZE) if full else rng.permutation(np.array(ids))).tolist()
    rest = np.setdiff1d(np.asarray(ids), np.asarray(stacked, dtype=np.int64))
    return stacked + rng.permutation(rest).tolist()
