"""The decision-free rule math of Hi MiLo!, written once: the follow rule, the ranking of a
trick's cards, the trick winner, and the team outcome (``docs/himilo.md`` sections 4 and 6).

The engine calls these on every trick and the rule-based agent on the tricks it imagines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hilo_env.himilo.cards import HI, LO, NO_SUIT, NUM_SUITS, win_rank, win_suit

MI_PLACE: dict[int, tuple[int, int, int, int]] = {
    3: (1, 1, 1, 1),
    4: (1, 2, 1, 2),
    5: (2, 2, 2, 2),
}
"""Under a Q (Mi): the winning place from the highest (0-based), per player count and per
Win Card suit ♠ ♥ ♣ ♦ (with 4 players Q♠ and Q♣ take the 2nd highest, Q♥ and Q♦ the 3rd)."""
COLOUR_BONUS = 1_000
"""Added to the rank key of a card of the Win Card's suit: above every off-colour card."""
POSITION_SLOTS = 8
"""Room in the rank key for the play position (more than the 5 seats), so equal off-colour
values rank the earlier card higher."""


def follows(hand: Sequence[int], win_card: int) -> list[int]:
    """The cards of ``hand`` that may be played under ``win_card``, in hand order: the cards
    of its suit when the Win Card is coloured and the hand holds one, else the whole hand."""
    colour = win_suit(win_card)
    if colour != NO_SUIT:
        same = [c for c in hand if c % NUM_SUITS == colour]
        if same:
            return same
    return list(hand)


def rank_key(card: Any, position: Any, colour: int) -> Any:
    """A key that orders a trick's cards as the rules rank them (larger ranks higher): the
    Win Card's colour above all, then value, then the earlier play among equal off-colour
    values. ``colour`` is the Win Card's suit or ``NO_SUIT``. ``card`` and ``position`` are
    ints, or NumPy arrays for many cards at once."""
    value = card // NUM_SUITS
    same = card % NUM_SUITS == colour
    return same * (COLOUR_BONUS + value * POSITION_SLOTS) \
        + (1 - same) * (value * POSITION_SLOTS + POSITION_SLOTS - 1 - position)


def winning_place(win_card: int, num_players: int) -> int:
    """Which place, counted from the highest-ranked card (0), wins under ``win_card``."""
    rank = win_rank(win_card)
    if rank == HI:
        return 0
    if rank == LO:
        return num_players - 1
    return MI_PLACE[num_players][win_suit(win_card)]


def trick_winner(played: Sequence[int], win_card: int) -> int:
    """The position (0 = the leader) of the card that wins a full trick of ``played`` cards,
    in play order, under ``win_card``."""
    colour = win_suit(win_card)
    keys = [rank_key(card, pos, colour) for pos, card in enumerate(played)]
    ranked = sorted(range(len(played)), key=keys.__getitem__, reverse=True)
    return ranked[winning_place(win_card, len(played))]


def trick_winners(played: np.ndarray, win_card: int) -> np.ndarray:
    """:func:`trick_winner` of each row of ``played`` ``(B, n)`` (full tricks in play order,
    all under ``win_card``): ``(B,)`` positions. Keys within a trick are distinct."""
    keys = rank_key(played, np.arange(played.shape[1]), win_suit(win_card))
    return np.argsort(-keys, axis=1)[:, winning_place(win_card, played.shape[1])]


def failed_constraints(tricks: Sequence[int], high: int, low: int) -> int:
    """How many of the 2n-3 strict inequalities of a team win fail on trick counts
    ``tricks`` (per seat): High above each other player (n-1), and Low below each player
    other than Low and High (n-2)."""
    top, bottom = tricks[high], tricks[low]
    failed = 0
    for seat, count in enumerate(tricks):
        if seat != high:
            failed += top <= count
            if seat != low:
                failed += bottom >= count
    return failed


def num_constraints(num_players: int) -> int:
    """The 2n-3 strict inequalities a team win needs."""
    return 2 * num_players - 3


def team_won(tricks: Sequence[int], high: int, low: int) -> bool:
    """The team wins when the High bidder took strictly the most tricks and the Low bidder
    strictly the fewest."""
    return failed_constraints(tricks, high, low) == 0
