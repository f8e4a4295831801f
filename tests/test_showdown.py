"""The showdown rules (docs/rules.md sections 5-7) as batched array functions: each case is
checked on its own (a batch of one game) and inside a batch of all of them."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pytest

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.showdown import (
    HIGH,
    LOW,
    NO_DECLARATION,
    NO_SEAT,
    key_card_rank,
    seat_orders,
    side_winners,
    split_pot,
    suit_rank,
    tiebreak_rank,
)
from hilo_env.equation_hilo.solver import TIE_TOLERANCE

INF = math.inf
DECLARATION = {"L": A.DECLARE_LOW, "H": A.DECLARE_HIGH, "S": A.DECLARE_SWING,
               "-": NO_DECLARATION}
"""One letter per seat: Low, High, Swing, or ``-`` for a seat that folded."""


class Case(NamedTuple):
    """One showdown: declarations, distances and pot; what rules section 7 pays."""

    declared: str
    low: list[float]
    high: list[float]
    pot: int
    payouts: list[int]
    house: int
    low_winner: int
    high_winner: int
    failed: list[int]
    low_rank: list[int] | None = None
    """Tie-break ranks (larger wins); by default seat order, which no case depends on."""
    high_rank: list[int] | None = None


CASES = {
    "both sides contested: a half each":
        Case("LH", [0, 5], [9, 0], 10, [5, 5], 0, 0, 1, []),
    "the odd chip of a split goes to the house":
        Case("LHH", [0.5, INF, INF], [INF, 1, 2], 11, [5, 5, 0], 1, 0, 1, []),
    "one side has no contenders: its winner takes the whole pot":
        Case("HH", [0, 0], [1, 2], 7, [7, 0], 0, NO_SEAT, 0, []),
    "Swing wins both sides: the whole pot, odd chip included":
        Case("SL", [0, 1], [0, INF], 9, [9, 0], 0, 0, 0, []),
    "failed Swing: each half to the best contender who did not fail":
        Case("SHL", [0, INF, 1], [1, 0, INF], 10, [0, 5, 5], 0, 2, 1, [0]),
    "Swing alone on Low still has to win High; the orphan half goes to the High winner":
        Case("SH", [0, INF], [1, 0], 9, [0, 8], 1, NO_SEAT, 1, [0]),
    "Swing without a valid equation fails":
        Case("SL", [INF, 1], [INF, INF], 6, [0, 6], 0, 1, NO_SEAT, [0]),
    "Swing that loses a tie-break fails":
        Case("SL", [0, 0], [0, INF], 8, [0, 8], 0, 1, NO_SEAT, [0], low_rank=[1, 2]),
    "of two Swings the one that wins both takes the pot, the other fails":
        Case("SSL", [0, 1, 2], [0, 1, INF], 9, [9, 0, 0], 0, 0, 0, [1]),
    "every Swing fails: house rule among the seats still in, remainder to the house":
        Case("SS-", [0, 1, 2], [1, 0, 2], 9, [4, 4, 0], 1, NO_SEAT, NO_SEAT, [0, 1]),
    "no valid equation anywhere: house rule":
        Case("LHL", [INF, INF, INF], [INF, INF, INF], 10, [3, 3, 3], 1, NO_SEAT, NO_SEAT, []),
    "a contested side nobody can win still splits the pot":
        Case("LH", [INF, INF], [INF, 3], 5, [0, 4], 1, NO_SEAT, 1, []),
    "tie within the tolerance: the larger rank wins":
        Case("LL", [0.5, 0.5 + TIE_TOLERANCE / 2], [0, 0], 4, [0, 4], 0, 1, NO_SEAT, [],
             low_rank=[3, 7]),
    "beyond the tolerance there is no tie":
        Case("LL", [0.5, 0.5 + 2 * TIE_TOLERANCE], [0, 0], 4, [4, 0], 0, 0, NO_SEAT, [],
             low_rank=[3, 7]),
    "High tie: the larger High rank wins, whatever the Low ranks":
        Case("HHL", [INF, INF, 2], [1, 1, INF], 6, [3, 0, 3], 0, 2, 0, [],
             low_rank=[0, 9, 5], high_rank=[8, 2, 0]),
}


def _arrays(case: Case, seats: int) -> tuple:
    """A case as :func:`split_pot`'s arrays, padded with folded seats up to ``seats``."""
    pad = seats - len(case.declared)
    default_rank = list(range(len(case.declared)))
    live = np.array([d != "-" for d in case.declared] + [False] * pad)
    declarations = np.array([DECLARATION[d] for d in case.declared] + [NO_DECLARATION] * pad)
    distances = np.array([case.low + [INF] * pad, case.high + [INF] * pad])
    ranks = np.array([(case.low_rank or default_rank) + [0] * pad,
                      (case.high_rank or default_rank) + [0] * pad])
    return case.pot, live, declarations, distances, ranks


def _expected(case: Case, seats: int) -> tuple:
    pad = seats - len(case.payouts)
    failed = [seat in case.failed for seat in range(seats)]
    return (case.payouts + [0] * pad, case.house, case.low_winner, case.high_winner, failed)


@pytest.mark.parametrize("name", list(CASES))
def test_split_pot_batch_of_one(name: str) -> None:
    case = CASES[name]
    seats = len(case.declared)
    got = split_pot(*_arrays(case, seats))
    assert got.payouts.shape == (seats,) and got.failed_swing.shape == (seats,)
    assert got.house.shape == got.low_winner.shape == ()
    assert tuple(x.tolist() for x in got) == _expected(case, seats)
    assert got.payouts.sum() + got.house == case.pot


@pytest.mark.parametrize("leading", [(len(CASES),), (1, len(CASES))])
def test_split_pot_batch_of_all_cases(leading: tuple[int, ...]) -> None:
    """All cases at once, padded with folded seats to the largest table, on one or two
    leading (game) axes."""
    seats = max(len(c.declared) for c in CASES.values())
    columns = zip(*(_arrays(c, seats) for c in CASES.values()), strict=True)
    got = split_pot(*(np.reshape(col, (*leading, *np.shape(col[0]))) for col in columns))
    assert got.payouts.shape == got.failed_swing.shape == (*leading, seats)
    assert got.house.shape == got.low_winner.shape == got.high_winner.shape == leading
    payouts, failed = (np.reshape(x, (len(CASES), seats)) for x in (got.payouts,
                                                                      got.failed_swing))
    house, low, high = (np.ravel(x) for x in got[1:4])
    for i, (name, case) in enumerate(CASES.items()):
        row = (payouts[i].tolist(), house[i], low[i], high[i], failed[i].tolist())
        assert row == _expected(case, seats), name


def test_side_winners_on_a_side_axis() -> None:
    contending = np.array([[True, True, False], [False, True, True]])
    distances = np.array([[1.0, 1.0, 0.0], [INF, INF, INF]])
    ranks = np.array([[5, 6, 9], [1, 2, 3]])
    assert side_winners(contending, distances, ranks).tolist() == [1, NO_SEAT]


def _hand(*texts: str) -> list[int]:
    return [cards.parse_card(t) for t in texts]


def test_key_card_examples_of_the_rules() -> None:
    # High: highest cards 9S and 9G, the tie goes to 9G; Low: lowest 2G and 2K, it goes to 2K
    high = np.array([_hand("9S", "1G", "4G", "5G"), _hand("9G", "1S", "4S", "5S")])
    assert key_card_rank(high, HIGH).argmax() == 1
    low = np.array([_hand("2G", "8G", "9G", "10G"), _hand("2K", "3K", "4K", "5K")])
    assert key_card_rank(low, LOW).argmax() == 1
    # a lower value beats a higher one on Low whatever the suits, and the reverse on High
    assert key_card_rank(np.array(_hand("3G", "9G", "9S", "9B")), LOW) < \
        key_card_rank(np.array(_hand("2G", "4K", "5K", "6K")), LOW)
    assert key_card_rank(np.array(_hand("10K", "0G", "1G", "2G")), HIGH) > \
        key_card_rank(np.array(_hand("9G", "0S", "1S", "2S")), HIGH)


def test_suit_examples_of_the_rules() -> None:
    # best cards 3G beat 10S, and lose to 9G; the same on both sides
    three_gold = _hand("3G", "4S", "5B", "6K")
    ten_silver = _hand("10S", "2S", "5K", "7B")
    nine_gold = _hand("9G", "0S", "1B", "2K")
    ranks = suit_rank(np.array([three_gold, ten_silver, nine_gold]))
    assert ranks[0] > ranks[1] and ranks[0] < ranks[2]
    both = tiebreak_rank(np.array([three_gold, ten_silver, nine_gold]), "suit")
    assert both.tolist() == [ranks.tolist(), ranks.tolist()]


@pytest.mark.parametrize("tiebreak", ["key_card", "suit"])
def test_tiebreak_rank_decides_a_tie_from_the_cards(tiebreak: str) -> None:
    # both seats exact on High; 10G beats 10S by key card, Gold beats Silver by suit
    numbers = np.array([_hand("10S", "10B", "0S", "5S"), _hand("10G", "10K", "0B", "5B")])
    ranks = tiebreak_rank(numbers, tiebreak)
    assert ranks.shape == (2, 2)
    got = split_pot(2, np.array([True, True]), np.array([A.DECLARE_HIGH] * 2),
                    np.array([[INF, INF], [0.0, 0.0]]), ranks)
    assert got.high_winner == 1 and got.payouts.tolist() == [0, 2]


def test_seat_orders() -> None:
    orders = seat_orders(3)
    assert orders.tolist() == [[1, 2, 0], [2, 0, 1], [0, 1, 2]]
    assert not orders.flags.writeable


def _reference_split(pot: int, live: list[bool], declared: list[int], low: list[float],
                     high: list[float], low_rank: list[int], high_rank: list[int]) -> tuple:
    """Rules sections 6 and 7 for one game, in plain Python: the oracle of the random tests
    below (split_pot's array tricks must give the same numbers)."""
    n = len(live)
    seats_in = [s for s in range(n) if live[s]]
    swings = [s for s in seats_in if declared[s] == A.DECLARE_SWING]

    def winner(contenders: list[int], dist: list[float], rank: list[int]) -> int:
        valid = [s for s in contenders if dist[s] < INF]
        if not valid:
            return NO_SEAT
        best = min(dist[s] for s in valid)
        tied = [s for s in valid if dist[s] <= best + TIE_TOLERANCE]
        return max(tied, key=lambda s: (rank[s], -s))  # of equal ranks, the lowest seat

    low_side = [s for s in seats_in if declared[s] in (A.DECLARE_LOW, A.DECLARE_SWING)]
    high_side = [s for s in seats_in if declared[s] in (A.DECLARE_HIGH, A.DECLARE_SWING)]
    low_w, high_w = winner(low_side, low, low_rank), winner(high_side, high, high_rank)
    payouts = [0] * n
    if low_w != NO_SEAT and low_w == high_w:  # only a Swing contends both sides
        payouts[low_w] = pot
        return payouts, 0, low_w, high_w, [s in swings and s != low_w for s in range(n)]
    failed = [s in swings for s in range(n)]
    low_w = winner([s for s in low_side if s not in swings], low, low_rank)
    high_w = winner([s for s in high_side if s not in swings], high, high_rank)
    if low_w == high_w == NO_SEAT:
        share = pot // len(seats_in)
        for s in seats_in:
            payouts[s] = share
        return payouts, pot - share * len(seats_in), low_w, high_w, failed
    if low_side and high_side:
        half = pot // 2
        for w in (low_w, high_w):
            if w != NO_SEAT:
                payouts[w] += half if NO_SEAT not in (low_w, high_w) else 2 * half
        return payouts, pot - 2 * half, low_w, high_w, failed
    payouts[max(low_w, high_w)] = pot
    return payouts, 0, low_w, high_w, failed


_EDGE_DISTANCES = np.array([0, TIE_TOLERANCE / 2, TIE_TOLERANCE, 1.5 * TIE_TOLERANCE,
                            2 * TIE_TOLERANCE, 0.25, 0.25 + TIE_TOLERANCE, 1, INF, INF])
"""Distances within, at and beyond the tolerance of each other, and no valid equation."""


@pytest.mark.parametrize("leading", [(), (37,), (3, 5)])
def test_split_pot_matches_the_rules_on_random_showdowns(leading: tuple[int, ...]) -> None:
    """Random tables of 1 to 8 seats, declarations, distances at the tolerance's edges and
    shared ranks, on one game and on batches with one or two leading axes."""
    rng = np.random.default_rng(len(leading))
    for _ in range(150 if not leading else 20):
        seats = int(rng.integers(1, 9))
        live = rng.random((*leading, seats)) < rng.choice([0.5, 0.8, 1.0])
        live[(*np.indices(leading), rng.integers(seats, size=leading))] = True  # a seat in
        declared = np.where(live, rng.choice(list(A.DECLARATIONS), live.shape), NO_DECLARATION)
        distances = rng.choice(_EDGE_DISTANCES, (*leading, 2, seats))
        distances += rng.choice([0.0, 1 / 3], (*leading, 1, 1))  # away from 0 as well
        ranks = rng.integers(0, 4, (*leading, 2, seats))
        pot = rng.integers(0, 60, leading)
        got = split_pot(pot, live, declared, distances, ranks)
        assert got.payouts.shape == got.failed_swing.shape == live.shape
        assert np.shape(got.house) == np.shape(got.low_winner) == leading
        for game in np.ndindex(leading):
            expected = _reference_split(int(pot[game]), live[game].tolist(),
                                        declared[game].tolist(), *distances[game].tolist(),
                                        *ranks[game].tolist())
            row = (got.payouts[game].tolist(), int(got.house[game]), int(got.low_winner[game]),
                   int(got.high_winner[game]), got.failed_swing[game].tolist())
            assert row == expected, (game, expected, row)


@pytest.mark.parametrize("tiebreak", ["key_card", "suit"])
@pytest.mark.parametrize("leading", [(), (4,), (2, 3)])
def test_tiebreak_rank_per_game_on_any_leading_axes(tiebreak: str,
                                                    leading: tuple[int, ...]) -> None:
    rng = np.random.default_rng(0)
    numbers = rng.permuted(np.broadcast_to(np.arange(44), (*leading, 44)), axis=-1)
    numbers = numbers[..., :20].reshape(*leading, 5, 4)
    ranks = tiebreak_rank(numbers, tiebreak)
    assert ranks.shape == (*leading, 2, 5)
    per_hand = (np.stack([key_card_rank(numbers, LOW), key_card_rank(numbers, HIGH)], -2)
                if tiebreak == "key_card" else np.stack([suit_rank(numbers)] * 2, -2))
    assert np.array_equal(ranks, per_hand)
