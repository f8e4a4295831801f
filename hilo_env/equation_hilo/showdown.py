"""The showdown: the decision-free rule math of ``docs/rules.md`` sections 5 to 7, written once.

Everything after the declarations is arithmetic on arrays, so it lives here as pure functions
over a **batch**: leading axes ``...`` index games, the last axis indexes seats. The engine
calls them on a batch of one game, the NumPy batch simulator on many games at once, and the
heuristic agent's equity table on synthetic games. Nothing branches on array values, and the
functions take the array module ``xp`` (NumPy by default), so a JAX simulator can pass
``jax.numpy``.

| name                  | rules     | per game                                                  |
|-----------------------|-----------|-----------------------------------------------------------|
| :func:`seat_orders`   | section 4 | for each dealer, the seats from its left, clockwise       |
| :func:`key_card_rank` | section 6 | each hand's ``key_card`` tie-break rank on a side         |
| :func:`suit_rank`     | section 6 | each hand's ``suit`` tie-break rank                       |
| :func:`tiebreak_rank` | section 6 | each seat's rank under a rule set's ``tiebreak``, per side |
| :func:`side_winners`  | section 6 | a side's winner: the closest equation, then the tie-break |
| :func:`split_pot`     | section 7 | payouts, house chips, side winners, failed Swings         |
| :func:`odd_chips`     | sec. 10   | the odd chips of a split given to players (``odd_chip``)  |

Conventions:

* **Shapes.** Per-seat arrays are ``(..., seats)``. Where both sides come together they are
  stacked just before the seat axis, ``(..., 2, seats)``, Low first: :data:`LOW` and
  :data:`HIGH` index that axis. A simulator that stores seat-major ``(seats, games)`` arrays
  transposes them.
* **Ranks: larger wins.** A tie-break rank is a non-negative integer per hand; among tied
  contenders the largest rank takes the side. No two seats share a card, so tied seats never
  share a rank (if they did, the lowest seat would win).
* **Distances** are each hand's best distance to a side's target (from the solver): ``inf``
  means no valid equation, and distances within :data:`solver.TIE_TOLERANCE` of the best are
  tied.
* **Seats and declarations** are integers: :data:`NO_SEAT` where a side has no winner; the
  declaration action ids of :mod:`actions` (``DECLARE_LOW``, ``DECLARE_HIGH``,
  ``DECLARE_SWING``), and :data:`NO_DECLARATION` for a seat that did not declare.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.rules import ODD_CHIP_RULES, TIEBREAKS
from hilo_env.equation_hilo.solver import TIE_TOLERANCE

Array = Any
"""A NumPy array, or an array of the module passed as ``xp``."""

LOW, HIGH = 0, 1
"""The sides: where each lies on a stacked side axis ``(..., 2, seats)``."""
SIDES = (LOW, HIGH)
KEY_CARD, SUIT = TIEBREAKS
"""The :attr:`RuleSet.tiebreak` names."""
HOUSE, LOW_WINNER, HIGH_WINNER = ODD_CHIP_RULES
"""The :attr:`RuleSet.odd_chip` names: the house, the Low half's winner, the High half's."""
NO_SEAT = -1
"""The winner of a side that nobody can win (no contender has a valid equation)."""
NO_DECLARATION = -1
"""The declaration of a seat that did not declare (it folded, or is out of the match)."""

_VALUE, _SUIT = np.divmod(np.arange(cards.NUM_NUMBER_CARDS), cards.NUM_SUITS)
_HIGH_KEY = _VALUE * cards.NUM_SUITS + (cards.NUM_SUITS - 1 - _SUIT)
_KEY_RANK = np.stack([cards.NUM_NUMBER_CARDS - 1 - _HIGH_KEY, _HIGH_KEY])
"""``[side, card]``: a number card's place in the side's key-card order, best last. High goes
by value, then Gold > Silver > Bronze > Black; Low is the High order reversed."""
_SUIT_RANK = (cards.NUM_SUITS - 1 - _SUIT) * cards.NUM_VALUES + _VALUE
"""``[card]``: a number card's place in the ``suit`` order, best last: by suit (Gold
strongest), then by value."""
_SUIT_RANKS = np.stack([_SUIT_RANK] * len(SIDES))
"""``[side, card]``: :data:`_SUIT_RANK` for each side (the ``suit`` order is the same on
both), laid out as :data:`_KEY_RANK` so that :func:`tiebreak_rank` reads either in one call."""

# Scalars as 0-d arrays: a ufunc whose other operands are 0-d arrays, or arrays of its own
# shape and type, takes NumPy's fast path, which a Python scalar leaves. (The engine calls
# these functions on one game, where such overheads are most of the cost.)
_INF = np.array(np.inf)
_TIE_TOLERANCE = np.array(TIE_TOLERANCE)
_NO_SEAT = np.array(NO_SEAT)
_NOT_TIED = np.array(-1)
"""The rank the seats not tied for the best distance compete with: below every tie-break
rank, so :func:`side_winners` picks among the tied seats only."""
_NO_EQUATION = np.array(1e30)
"""The distance of a contender without a valid equation inside :func:`split_pot`: finite, so
that a side contested only by such seats is told from a side without contenders (``inf``),
and beyond any equation's distance, so that it never wins (a float32 holds it too)."""
_SWING = np.array(A.DECLARE_SWING)
_ONE = np.int64(1)
"""One as a NumPy integer: NumPy multiplies a Python int by a bool scalar slowly, and an int
scalar by it quickly."""

_ROUNDS = 2
"""The rounds of :func:`split_pot`: round 0 counts every contender, round 1 leaves out the
Swing seats."""
_CONTENDS = np.zeros((_ROUNDS, len(SIDES), A.DECLARE_SWING + 2), dtype=bool)
"""``[round, side, declaration]``: whether a seat of that declaration (an action id; the last
column, which :data:`NO_DECLARATION` reads, is nobody's) contends the side in the round."""
_CONTENDS[:, LOW, A.DECLARE_LOW] = _CONTENDS[:, HIGH, A.DECLARE_HIGH] = True
_CONTENDS[0, :, A.DECLARE_SWING] = True
_OUTSIDE = np.where(_CONTENDS, 0.0, np.inf)
""":data:`_CONTENDS` as a distance to add: 0 for a contender, ``inf`` (never the closest)
for the others."""


@functools.cache
def _seat_numbers(num_seats: int) -> np.ndarray:
    """``(num_seats,)``: the seat numbers, made once per table size."""
    return np.arange(num_seats)


@functools.cache
def _axes_moving(source: int, destination: int, ndim: int) -> tuple[int, ...]:
    """The ``transpose`` axes of ``moveaxis(source, destination)`` on ``ndim`` axes."""
    axes = list(range(ndim))
    axes.insert(destination % ndim, axes.pop(source % ndim))
    return tuple(axes)


def _sides_first(x: Array) -> Array:
    """``(..., 2, seats)`` -> ``(2, ..., seats)``: a view, or ``x`` itself for one game."""
    return x if x.ndim == 2 else x.transpose(_axes_moving(-2, 0, x.ndim))


def _sides_before_seats(x: Array) -> Array:
    """``(2, ..., seats)`` -> ``(..., 2, seats)``: a view, or ``x`` itself for one game."""
    return x if x.ndim == 2 else x.transpose(_axes_moving(0, -2, x.ndim))


def _per_seat(x: Array) -> Array:
    """``(...)`` -> broadcastable against ``(..., seats)``: ``x[..., None]``, or ``x`` itself for
    one game, whose 0-d operand keeps the ufunc on its fast path (a ``(1,)`` one would
    broadcast)."""
    return x if x.ndim == 0 else x[..., None]


def _first_where(cond: Array, pair: Array, xp: ModuleType) -> Array:
    """``pair[0]`` where ``cond`` ``(...)``, else ``pair[1]``, for ``pair`` ``(2, ...)``. One
    game's 0-d ``cond`` picks by an index (a view), which costs a fraction of ``where``."""
    return pair[(~cond) * _ONE] if cond.ndim == 0 else xp.where(cond, pair[0], pair[1])


def _count(x: Array, xp: ModuleType) -> Array:
    """``(..., seats)`` bool -> ``(...)``: the True seats per game. ``count_nonzero`` of a whole
    array is one C call, so one game takes it; with an axis it is Python, slower than ``sum``."""
    return xp.count_nonzero(x) if x.ndim == 1 else x.sum(-1)


@functools.cache
def _suit_weights(num_cards: int) -> np.ndarray:
    """The place value of each card of a ranked hand in :func:`suit_rank`'s integer."""
    return cards.NUM_NUMBER_CARDS ** np.arange(num_cards)


class PotSplit(NamedTuple):
    """What :func:`split_pot` decides, per game (the leading axes ``...``)."""

    payouts: Array
    """``(..., seats)`` int: the chips each seat takes from the pot."""
    house: Array
    """``(...)`` int: the chips the house takes."""
    low_winner: Array
    """``(...)`` int: the seat paid for Low (failed Swings left out), or :data:`NO_SEAT`."""
    high_winner: Array
    """``(...)`` int: the seat paid for High, or :data:`NO_SEAT`."""
    failed_swing: Array
    """``(..., seats)`` bool: the seats whose Swing failed."""


@functools.cache
def seat_orders(num_players: int) -> np.ndarray:
    """``(num_players, num_players)`` int, read-only: row ``b`` lists the seats from the left
    of dealer ``b``, clockwise, the order of dealing, betting and declaring (rules section 4).
    """
    seats = np.arange(num_players)
    orders = (seats[:, None] + 1 + seats) % num_players
    orders.flags.writeable = False
    return orders


def key_card_rank(numbers: Array, side: Array, xp: ModuleType = np) -> Array:
    """The ``key_card`` tie-break (rules section 6) as one rank per hand; larger wins.

    ``numbers`` ``(..., cards)`` holds number-card ids, a hand on the last axis -> ``(...)``.
    ``side`` is :data:`LOW` or :data:`HIGH` (or an integer array of them that broadcasts with
    ``numbers``). A hand's key card is its highest card for High (between equal values Gold >
    Silver > Bronze > Black) and its lowest for Low (Black > Bronze > Silver > Gold); the rank
    is the key card's place in the side's order.
    """
    return xp.maximum.reduce(xp.asarray(_KEY_RANK)[side, numbers], -1)


def suit_rank(numbers: Array, xp: ModuleType = np) -> Array:
    """The ``suit`` tie-break (rules section 6; classic and duel) as one rank per hand, the same
    on both sides; larger wins.

    ``numbers`` ``(..., cards)`` holds number-card ids -> ``(...)``. The rulebook ranks each
    hand's cards by suit (Gold first), then by value (higher first), and compares the ranked
    lists card by card. The rank writes a ranked list as the digits of one integer, strongest
    card first (base :data:`cards.NUM_NUMBER_CARDS`), so integers compare as the lists do
    between hands of as many cards.
    """
    return _ranked_number(xp.asarray(_SUIT_RANK).take(numbers), xp)


def _ranked_number(places: Array, xp: ModuleType) -> Array:
    """Hands of card places in the ``suit`` order ``(..., cards)`` -> ``(...)``: each hand's
    places ranked, weakest first, and read as the digits of one integer, weakest last."""
    ranked = xp.sort(places, axis=-1)
    return ranked @ _suit_weights(ranked.shape[-1])


def tiebreak_rank(numbers: Array, tiebreak: str, xp: ModuleType = np) -> Array:
    """Each seat's tie-break rank on each side under the :attr:`RuleSet.tiebreak` named
    ``tiebreak`` (``key_card`` or ``suit``), as :func:`split_pot` takes them: ``numbers``
    ``(..., seats, cards)`` number-card ids -> ``(..., 2, seats)``; larger wins.

    The ranks of :func:`key_card_rank` and :func:`suit_rank`, in few array calls: the engine
    calls this on every showdown, a batch of one game, where each call costs more than its
    arithmetic. (For more than one game the result is a view of an array laid out sides first.)
    """
    if tiebreak == KEY_CARD:  # both sides' places of every card: (side, ..., seats, cards)
        return _sides_before_seats(
            xp.maximum.reduce(xp.asarray(_KEY_RANK).take(numbers, axis=1), -1))
    if tiebreak == SUIT:
        return _sides_before_seats(_ranked_number(xp.asarray(_SUIT_RANKS).take(numbers, axis=1),
                                                  xp))
    raise ValueError(f"unknown tiebreak {tiebreak!r}; choose one of {list(TIEBREAKS)}")


def _closest(distances: Array, ranks: Array, xp: ModuleType) -> tuple[Array, Array]:
    """The rule of :func:`side_winners` on the seats of the last axis, where ``distances`` are
    ``inf`` for the seats that do not contend, and :data:`_NO_EQUATION` or ``inf`` for the
    contenders without a valid equation. Returns the winners (:data:`NO_SEAT` where no
    contender has a valid equation) and the best distances."""
    best = xp.minimum.reduce(distances, -1, keepdims=True)  # ndarray.min wraps this in Python
    seat = xp.where(distances <= best + _TIE_TOLERANCE, ranks, _NOT_TIED).argmax(-1)
    best = best[..., 0]
    return xp.where(best < _NO_EQUATION, seat, _NO_SEAT), best


def side_winners(contending: Array, distances: Array, ranks: Array,
                 xp: ModuleType = np) -> Array:
    """The winner of a side (rules section 6), per game -> ``(...)`` int.

    ``contending`` ``(..., seats)`` bool marks the contenders, ``distances`` ``(..., seats)``
    float their best distances to the side's target and ``ranks`` ``(..., seats)`` their
    tie-break ranks (the three broadcast together). The contender with the smallest distance
    wins; contenders within :data:`solver.TIE_TOLERANCE` of it are tied, and the largest rank
    among them wins (of equal ranks, the lowest seat's). :data:`NO_SEAT` where no contender
    has a valid equation. The leading axes may hold a side axis, ``(..., 2, seats)``, or
    anything else.
    """
    return _closest(xp.where(contending, distances, _INF), ranks, xp)[0]


def split_pot(pot: Array, live: Array, declarations: Array, distances: Array, ranks: Array,
              xp: ModuleType = np, odd_chip: str = HOUSE) -> PotSplit:
    """The payout of a showdown (rules section 7), per game.

    ``pot`` ``(...)`` int: the chips in the pot. ``live`` ``(..., seats)`` bool: the seats still
    in the hand. ``declarations`` ``(..., seats)`` int: their declaration action ids, and
    :data:`NO_DECLARATION` for every other seat (it is what keeps them out of the contest).
    ``distances`` ``(..., 2, seats)`` float: each seat's best Low and High distance (``inf``:
    no valid equation). ``ranks`` ``(..., 2, seats)`` int: the tie-break ranks
    (:func:`tiebreak_rank`).

    The rules, in order:

    1. The contenders of a side are the seats still in that declared it or Swing; each side's
       winner is found among them (:func:`side_winners`).
    2. A Swing seat that does not win both sides fails (a lost tie-break, or no valid
       equation, is a loss). A Swing seat that wins both takes the whole pot, odd chip
       included.
    3. Otherwise every Swing seat failed, and the side winners are found again among the
       other contenders.
    4. If both sides have contenders (failed Swings count), the pot is cut into halves of
       floor(pot / 2), the odd chip to the house, and a half nobody can win goes to the other
       half's winner. If one side has no contenders, the other side's winner takes the pot.
    5. House rule: if no side has a winner now, the pot is shared among all the seats still
       in, floor(pot / n) each, the remainder to the house.

    ``odd_chip`` (:attr:`RuleSet.odd_chip`) says where the chips left over in steps 4 and 5 go:
    ``house``, or to players (:func:`odd_chips`): ``high`` first to the seat paid the High half
    (else the Low half's), ``low`` the other way round.

    Steps 1 and 3 run as one batch, on a round axis (the contenders with and without the Swing
    seats) and a side axis laid out first, ``(round, side, ..., seats)``; step 2 picks the
    round. The engine calls this on every showdown, a batch of one game, where an array call
    costs far more than its arithmetic: hence few calls, table lookups, integer arithmetic in
    place of branches and masks, and operands of one shape wherever they give the same numbers.
    """
    # Each seat's distance to each side's target in each round: inf where it does not
    # contend, _NO_EQUATION where it contends without a valid equation.
    contenders = (_sides_first(xp.minimum(distances, _NO_EQUATION))
                  + xp.asarray(_OUTSIDE).take(declarations, axis=-1))
    rounds, best = _closest(contenders, _sides_first(ranks), xp)  # (round, side, ...)
    # Only a Swing seat contends both sides, so a seat that wins both in round 0 is a Swing
    # that won: it is paid for both. Where neither side has a winner in round 0, round 1
    # (fewer contenders) has none either, so round 0 may stand for it.
    winners = _first_where(rounds[0, LOW] == rounds[0, HIGH], rounds, xp)  # (side, ...)
    low, high = winners[LOW], winners[HIGH]
    paid = _seat_numbers(live.shape[-1]) == winners[..., None]  # (side, ..., seats)
    # Every Swing seat but the one paid for both sides failed.
    failed = (declarations == _SWING) > paid[LOW]
    # What is shared out (the pot, less the odd chip when it is cut in halves) goes in equal
    # parts: one to each seat paid (so a lone winner, or a Swing paid for both, takes it all);
    # under the house rule, one to each seat still in.
    nobody = (low == NO_SEAT) & (high == NO_SEAT)
    parts = paid[LOW] | paid[HIGH] | (live & _per_seat(nobody))
    count = _count(parts, xp)
    # Halves: both sides contested in round 0, and the sides paid to different seats (or one
    # paid, the other orphaned), so neither a Swing paid for both nor the house rule.
    halves = (best[0, LOW] < xp.inf) & (best[0, HIGH] < xp.inf) & (low != high)
    each = (pot - pot % 2 * _ONE * halves) // (count + (count == 0))  # no seat in: no parts
    payouts, left = parts * _per_seat(each), pot - count * each
    if odd_chip != HOUSE:
        side = HIGH if odd_chip == HIGH_WINNER else LOW
        extra = odd_chips(left, parts, paid[side], ranks[..., side, :], xp)
        payouts, left = payouts + extra, left - extra.sum(-1)
    return PotSplit(payouts, left, low, high, failed)


def odd_chips(left: Array, parts: Array, first: Array, ranks: Array,
              xp: ModuleType = np) -> Array:
    """The chips ``left`` ``(...)`` after an even split, given to players: one each to the
    seats with a part (``parts`` ``(..., seats)`` bool), those marked ``first`` (the seat paid
    the chosen side's half) before the others, then by larger ``ranks`` (that side's tie-break
    rank) -> ``(..., seats)`` int. Fewer chips are left than there are parts, so nobody gets
    two; the ranks of seats with a part differ (no two hands share a card)."""
    me_first, me_rank = first[..., :, None], ranks[..., :, None]
    them_first, them_rank = first[..., None, :], ranks[..., None, :]
    ahead = parts[..., None, :] & ((them_first > me_first)
                                   | ((them_first == me_first) & (them_rank > me_rank)))
    return (parts & (ahead.sum(-1) < left[..., None])) * _ONE
