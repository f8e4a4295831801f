"""Cards of lo-hi: ids, ranks, texts and the checked stacked deck (``docs/lohi.md`` section 1).

A card id is ``0..51``: rank ``id // 4`` (0 = 2, ..., 8 = 10, 9 = J, 10 = Q, 11 = K, 12 = A),
suit ``id % 4`` (S H C D). Suits never affect play; only ranks do. Texts are rank then suit
(``2S``, ``10H``, ``AD``); rank texts alone (``7``, ``J``) are what actions name.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

NUM_RANKS = 13
NUM_SUITS = 4
DECK_SIZE = NUM_RANKS * NUM_SUITS
RANK_TEXTS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_TEXTS = "SHCD"
TWO, ACE = 0, NUM_RANKS - 1
"""The ranks whose double makes the need ANY (``docs/lohi.md`` section 5.5)."""
RANK_OF_TEXT = {text: r for r, text in enumerate(RANK_TEXTS)}
CARD_INTEGER_TYPES = (int, np.integer)
"""What a card id may be: a Python or NumPy integer (never a bool)."""


def rank(card: int) -> int:
    """The rank index (0 = 2 .. 12 = A) of a card id."""
    return card // NUM_SUITS


def card_text(card: int) -> str:
    """``7D``, ``10S``, ``AH``: rank text then suit letter."""
    return RANK_TEXTS[card // NUM_SUITS] + SUIT_TEXTS[card % NUM_SUITS]


def parse_rank(text: str) -> int:
    """The rank index of a rank text (``7``, ``10``, ``J``; case-insensitive)."""
    r = RANK_OF_TEXT.get(text.strip().upper())
    if r is None:
        raise ValueError(f"unknown rank {text!r}; ranks are {' '.join(RANK_TEXTS)}")
    return r


def parse_card(card: int | str) -> int:
    """A card id from an id or a text (``7D``, ``10s``); ValueError/TypeError otherwise."""
    if isinstance(card, str):
        text = card.strip().upper()
        if len(text) < 2 or text[-1] not in SUIT_TEXTS or text[:-1] not in RANK_OF_TEXT:
            raise ValueError(f"unknown card {card!r}; cards are written like 2S, 10H, QD, AC")
        return RANK_OF_TEXT[text[:-1]] * NUM_SUITS + SUIT_TEXTS.index(text[-1])
    if isinstance(card, bool) or not isinstance(card, CARD_INTEGER_TYPES):
        raise TypeError(f"a card is an id 0..{DECK_SIZE - 1} or a text like '7D', not "
                        f"{card!r}")
    if not 0 <= card < DECK_SIZE:
        raise ValueError(f"card id {card!r} is outside 0..{DECK_SIZE - 1}")
    return int(card)


def parse_deck(deck: Sequence[int | str]) -> list[int]:
    """A stacked deck, top first: all 52 cards once each, as ids or texts."""
    if isinstance(deck, str | bytes) or not isinstance(deck, Sequence | np.ndarray):
        raise TypeError(f"a deck is a sequence of {DECK_SIZE} cards, not {deck!r}")
    ids = [parse_card(c) for c in deck]
    if len(ids) != DECK_SIZE or len(set(ids)) != DECK_SIZE:
        seen: set[int] = set()
        repeated = sorted({c for c in ids if c in seen or seen.add(c)})
        missing = sorted(set(range(DECK_SIZE)) - set(ids))
        raise ValueError(f"a deck holds all {DECK_SIZE} cards once each; got {len(ids)} cards"
                         + (f", repeated {[card_text(c) for c in repeated]}" if repeated else "")
                         + (f", missing {[card_text(c) for c in missing]}" if missing else ""))
    return ids


def stack_deck(top: Sequence[int | str]) -> list[int]:
    """A full deck (ids, top first) with ``top`` on top and the other cards under it in
    ascending id order: scenarios name only the cards that matter."""
    first = [parse_card(c) for c in top]
    chosen = set(first)
    if len(chosen) != len(first):
        raise ValueError(f"a card appears twice in {list(top)!r}")
    return first + [c for c in range(DECK_SIZE) if c not in chosen]
