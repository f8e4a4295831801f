"""The game of Equation Hi-Lo: state, legal actions, transitions and payout.

This module is the rules of ``docs/rules.md`` and nothing else: no Gymnasium, no PettingZoo.
A :class:`Game` is one episode (a match of ``hands_per_episode`` hands); chance comes only from
the ``numpy.random.Generator`` passed in, so the same generator state, stacked deck and
actions give the same game. Players decide at three kinds of points, all through
:meth:`Game.step` with an action id of :mod:`equation_hilo.actions`:

* betting (``fold``, ``check``, ``call``, ``raise N``),
* the forced discard right after a × and its extra number card (``discard +``/``-``/``x``),
* the secret declaration after the last betting round (``low``, ``high``, ``swing``).

Everything else (ante, deals, specials, showdown, payout, the button) happens by itself.
The deck is a list in draw order reversed: ``deck[-1]`` is the top card. A hand's chance is
data: its deck order and ``hand_seed``, which fixes every reshuffle the rules call for.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import compress
from operator import sub
from typing import Any, NamedTuple

import numpy as np

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo import showdown as S
from hilo_env.equation_hilo.rules import BET, HIDDEN, UP, RuleSet
from hilo_env.equation_hilo.solver import Solution, solve_unchecked

BASE_OPERATORS = ("+", "-", "/")
"""The operators every player starts a hand with under the default ``base_operators``
(the batch simulators support only these); a game reads its rule set's."""
ACTION_TYPES = (int, np.integer)
"""What an action id may be: a Python or NumPy integer."""
SIDE_NAMES = ("low", "high")
"""The sides as the hand history and :class:`Solution` name them, in showdown's side order."""


class Phase(IntEnum):
    """What the game is waiting for."""

    BET = 0
    DISCARD = 1
    DECLARE = 2
    HAND_OVER = 3
    MATCH_OVER = 4


# Bound once: Python 3.11 looks enum members up slowly, and these are read at every step.
_BET, _DISCARD, _DECLARE, _HAND_OVER, _MATCH_OVER = Phase


_new_tuple = tuple.__new__  # builds an Event from its fields' tuple (see Game._log)


class Event(NamedTuple):
    """One line of the hand history: what happened, to whom, with what."""

    kind: str
    """``hand``, ``ante``, ``deal``, ``set_aside``, ``return``, ``round``, ``action``,
    ``equation``, ``fold_out``, ``payout``, ``house``, ``eliminated``."""
    seat: int
    """The seat concerned, or -1 for the table."""
    data: Any


@dataclass
class HandResult:
    """How a hand ended: who declared what, the equations, and the chips moved."""

    payouts: list[int]
    """Chips each seat received from the pot."""
    net: list[int]
    """Each seat's chip change over the hand (payout minus wager)."""
    house: int
    """Chips the house took (odd chips)."""
    declarations: list[int | None]
    """Each seat's declaration action, ``None`` for seats that did not reach it."""
    solutions: list[Solution | None]
    """Each seat's optimal equations at showdown, ``None`` without a showdown."""
    low_winner: int | None = None
    high_winner: int | None = None
    failed_swing: list[int] = field(default_factory=list)
    fold_out: bool = False


@functools.cache
def _seat_orders(num_players: int) -> tuple[tuple[int, ...], ...]:
    """:func:`showdown.seat_orders` as tuples of Python ints, which the engine's loops read
    fastest."""
    return tuple(map(tuple, S.seat_orders(num_players).tolist()))


_CARD_IDS = np.arange(cards.DECK_SIZE, dtype=np.uint64)
"""Every card id, whose reshuffle keys order the deck: a constant array costs less to key
than the deck's list of ids, and one of the keys' type is keyed without a conversion."""

_NOT_COMPARED = ("rng", "_legal", "_options")
"""What :meth:`Game.__eq__` leaves out: the generator (its state is compared instead) and the
per-state caches of the legal actions and the bet options."""


class Game:
    """One episode of Equation Hi-Lo: the state, the legal actions and the transitions."""

    def __init__(self, rules: RuleSet, rng: np.random.Generator,
                 deck: Sequence[int | str] | None = None) -> None:
        """Start a match and deal its first hand; ``deck`` stacks its top cards (top first)."""
        n = rules.num_players
        self.rules = rules
        self.num_players = n
        self._orders = _seat_orders(n)
        self._deck_ids = cards.deck_ids(rules.deck_values, rules.deck_suits,
                                        rules.deck_multiply, rules.deck_roots)
        self.rng = rng
        self.rng_start = rng.bit_generator.state
        self.stacks = [rules.starting_stack] * n
        self.eliminated = [False] * n
        self.house = 0
        self.button = n - 1
        self.hand_number = 0
        self.log: list[Event] = []
        self.result: HandResult | None = None
        self._start_hand(stacked_deck(deck))

    # ---- queries -------------------------------------------------------------------------

    @property
    def pot(self) -> int:
        """Chips wagered in this hand (zero once it is paid out)."""
        return 0 if self.phase >= _HAND_OVER else sum(self.wagers)

    @property
    def highest_wager(self) -> int:
        return max(self.wagers)

    def order(self) -> list[int]:
        """Seats from the dealer's left, clockwise: the order of dealing, betting, declaring."""
        return list(self._orders[self.button])

    def number_cards(self, seat: int) -> list[int]:
        """The seat's number cards: the hidden one first, then the face-up ones."""
        return [self.hidden[seat], *filter(cards.is_number, self.up[seat])]

    def legal_actions(self) -> list[int]:
        """The acting player's legal action ids (empty once the hand is over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def bet_options(self) -> tuple[int, int, int]:
        """At a betting decision: check or call (whichever applies), and the lowest and
        highest raise actions (lowest > highest when the cap leaves no room); computed once
        per state, as the mask and the legality check both ask."""
        if self._options is None:
            high = max(self.wagers)
            check_or_call = A.CHECK if self.wagers[self.current_player] == high else A.CALL
            self._options = check_or_call, A.raise_to(high + 1), A.raise_to(self.cap)
        return self._options

    def is_legal(self, action: Any) -> bool:
        """Whether the acting player may take ``action`` now."""
        if self.phase == _BET and self.current_player is not None:
            if not isinstance(action, ACTION_TYPES):
                return False
            check_or_call, lowest, highest = self.bet_options()
            return action in (A.FOLD, check_or_call) or lowest <= action <= highest
        return action in self.legal_actions()

    # ---- the one entry point for decisions -----------------------------------------------

    def step(self, action: int) -> None:
        """Apply the current player's action; an illegal one raises and changes nothing."""
        if isinstance(action, bool) or not isinstance(action, ACTION_TYPES):
            raise TypeError(f"an action is an integer action id, not {action!r} "
                            f"({type(action).__name__})")
        if not self.is_legal(action):
            self._reject(action, self.legal_actions())
        seat = self.current_player
        self._log("action", seat, int(action))
        self._legal = self._options = None
        if self.phase == _BET:
            self._bet(seat, action)
        elif self.phase == _DISCARD:
            self._discard(seat, action)
        else:
            self._declare(seat, action)

    def start_next_hand(self, deck: Sequence[int | str] | None = None) -> None:
        """Move the button and deal the next hand of the match."""
        if self.phase != Phase.HAND_OVER:
            raise ValueError(f"the next hand starts only after a hand is over (phase is "
                             f"{self.phase.name})")
        stacked = stacked_deck(deck)  # checked before anything changes
        cards.check_in_deck(stacked, self._deck_ids)
        n = self.num_players
        self.button = next(s for s in ((self.button + i) % n for i in range(1, n + 1))
                           if not self.eliminated[s])
        self._start_hand(stacked)

    def clone(self) -> Game:
        """An independent copy; a clone compares equal to its original until either moves."""
        return copy.deepcopy(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        mine = {k: v for k, v in vars(self).items() if k not in _NOT_COMPARED}
        theirs = {k: v for k, v in vars(other).items() if k not in _NOT_COMPARED}
        return (mine == theirs
                and self.rng.bit_generator.state == other.rng.bit_generator.state)

    __hash__ = None  # type: ignore[assignment]

    # ---- a hand ---------------------------------------------------------------------------

    def _log(self, kind: str, seat: int, data: Any) -> None:
        """Append ``Event(kind, seat, data)`` to the history. ``tuple.__new__`` builds it,
        skipping the NamedTuple constructor's Python layer: a hand logs dozens of events."""
        self.log.append(_new_tuple(Event, (kind, seat, data)))

    def _start_hand(self, deck: list[int]) -> None:
        n = self.num_players
        shuffled = cards.shuffled_deck(self.rng, deck, self._deck_ids)  # a bad deck raises here
        self.hand_number += 1
        self.deck = shuffled[::-1]
        self.hand_seed = int(self.rng.integers(0, 2**63))
        self.reshuffles = 0
        self.in_hand = [not e for e in self.eliminated]
        self.hidden: list[int] = [-1] * n
        self.up: list[list[int]] = [[] for _ in range(n)]
        self.set_aside: list[int] = []
        self.operators = [list(self.rules.base_operators) for _ in range(n)]
        self.roots = [0] * n
        self.multiplies = [0] * n
        self.declarations: list[int | None] = [None] * n
        self.result = None
        self.cap = min(compress(self.stacks, self.in_hand))
        self.round = -1
        self.round_wagers: list[list[int]] = []
        self.round_raises: list[list[int]] = []
        self.acted = [False] * n
        self.phase = _BET
        self.current_player: int | None = None
        self._schedule = 0
        self._deal_queue: list[int] = []
        self._declare_queue: list[int] = []
        self._legal: list[int] | None = None
        self._options: tuple[int, int, int] | None = None
        self._log("hand", -1, {"number": self.hand_number, "button": self.button,
                               "cap": self.cap, "deck": deck})
        ante = min(self.rules.ante, self.cap)
        self.wagers = [ante if live else 0 for live in self.in_hand]
        for seat in self._live_order():
            self.stacks[seat] -= ante
            self._log("ante", seat, ante)
        self._advance()

    def _advance(self) -> None:
        """Run the hand forward until a player must decide or the hand is over."""
        while True:
            while self._deal_queue:
                seat = self._deal_queue.pop(0)
                if self._deal_up(seat):
                    self.phase, self.current_player = _DISCARD, seat
                    return
            if self._schedule == len(self.rules.deal):
                self._start_declaration()
                return
            step = self.rules.deal[self._schedule]
            self._schedule += 1
            if step == HIDDEN:
                for seat in self._live_order():
                    self._deal_hidden(seat)
            elif step == UP:
                self._deal_queue = self._live_order()
            elif step == BET and self._start_betting():
                return

    def _live_order(self) -> list[int]:
        return [s for s in self._orders[self.button] if self.in_hand[s]]

    # ---- dealing --------------------------------------------------------------------------

    def _draw(self) -> int:
        return self.deck.pop()

    def _put_back(self, seat: int, card: int) -> None:
        """A special that may not be kept goes back into the deck, which is reshuffled: the
        cards in descending order of their keys, so that the last (the top) has the smallest."""
        self.deck.append(card)
        keys = cards.reshuffle_keys(self.hand_seed, self.reshuffles, _CARD_IDS).tolist()
        self.deck.sort(key=keys.__getitem__, reverse=True)  # keys are distinct: no ties
        self.reshuffles += 1
        self._log("return", seat, card)

    def _deal_hidden(self, seat: int) -> None:
        card = self._draw()
        while not cards.is_number(card):
            self._put_back(seat, card)
            card = self._draw()
        self.hidden[seat] = card
        self._log("deal", seat, ("hidden", card))

    def _deal_extra(self, seat: int) -> None:
        """The extra card of a √ or ×: specials are set aside until a number comes."""
        card = self._draw()
        while not cards.is_number(card):
            self.set_aside.append(card)
            self._log("set_aside", seat, card)
            card = self._draw()
        self.up[seat].append(card)
        self._log("deal", seat, ("extra", card))

    def _deal_up(self, seat: int) -> bool:
        """Deal one face-up card with the special rules; True when a × discard is pending."""
        limit = self.rules.max_multiply
        while True:
            card = self._draw()
            multiply = cards.is_multiply(card)
            if multiply and limit is not None and self.multiplies[seat] >= limit:
                self._put_back(seat, card)
                continue
            self.up[seat].append(card)
            self._log("deal", seat, ("up", card))
            if multiply:
                self.multiplies[seat] += 1
                self._deal_extra(seat)
                return True
            if cards.is_root(card):
                self.roots[seat] += 1
                self._deal_extra(seat)
            return False

    def _discard(self, seat: int, action: int) -> None:
        self.operators[seat].remove(A.DISCARDED_OPERATOR[action])
        self.operators[seat].append("*")
        self._advance()

    # ---- betting --------------------------------------------------------------------------

    def _start_betting(self) -> bool:
        """Open a betting round; False when it is skipped (everyone still in is at the cap)."""
        self.round += 1
        self.round_wagers.append([0] * self.num_players)
        self.round_raises.append([0] * self.num_players)
        self.acted = [False] * self.num_players
        first = self._next_bettor(self.button)
        skipped = first is None
        self._log("round", -1, {"round": self.round, "skipped": skipped})
        if skipped:
            return False
        self.phase, self.current_player = _BET, first
        return True

    def _next_bettor(self, after: int) -> int | None:
        """The next seat clockwise that still has to act in this round, if any."""
        wagers, cap, high = self.wagers, self.cap, max(self.wagers)
        for s in self._orders[after]:  # the seats from its left, clockwise, itself last
            w = wagers[s]
            if self.in_hand[s] and w < cap and (not self.acted[s] or w < high):
                return s
        return None

    def _bet(self, seat: int, action: int) -> None:
        self.acted[seat] = True
        if action == A.FOLD:
            self.in_hand[seat] = False
            if sum(self.in_hand) == 1:
                self._fold_out()
                return
        elif action != A.CHECK:
            total = self.highest_wager if action == A.CALL else A.raise_total(action)
            if action != A.CALL:
                self.acted = [False] * self.num_players
                self.acted[seat] = True
                self.round_raises[self.round][seat] += 1
            chips = total - self.wagers[seat]
            self.wagers[seat] = total
            self.stacks[seat] -= chips
            self.round_wagers[self.round][seat] += chips
        nxt = self._next_bettor(seat)
        if nxt is None:
            self._advance()
        else:
            self.current_player = nxt

    # ---- declaration, showdown, payout ----------------------------------------------------

    def _start_declaration(self) -> None:
        self._declare_queue = self._live_order()
        self.phase = _DECLARE
        self.current_player = self._declare_queue.pop(0)

    def _declare(self, seat: int, action: int) -> None:
        self.declarations[seat] = action
        if self._declare_queue:
            self.current_player = self._declare_queue.pop(0)
        else:
            self._showdown()

    def _fold_out(self) -> None:
        winner = self.in_hand.index(True)
        self._log("fold_out", winner, self.pot)
        payouts = [0] * self.num_players
        payouts[winner] = self.pot
        self._pay(payouts, house=0, solutions=[None] * self.num_players, fold_out=True)

    def _showdown(self) -> None:
        """Solve every hand still in, log its equations and split the pot (rules sections 5-7,
        :func:`showdown.split_pot` on a batch of one game)."""
        n, rules, live = self.num_players, self.rules, self._live_order()
        solutions: list[Solution | None] = [None] * n
        distances = [[math.inf] * n, [math.inf] * n]  # [side][seat]
        hands = [(0,) * rules.numbers_per_hand] * n  # seats out: ranks never compared
        for seat in live:
            hand = hands[seat] = self.number_cards(seat)
            sol = solutions[seat] = solve_unchecked([c // cards.NUM_SUITS for c in hand],
                                                    self.operators[seat], self.roots[seat],
                                                    rules.integer_results)
            for side, eq in enumerate((sol.low, sol.high)):
                if eq is not None:
                    distances[side][seat] = eq.distance
                    self._log("equation", seat,
                              (SIDE_NAMES[side], eq.equation, eq.value, eq.distance))
        declarations = [S.NO_DECLARATION if d is None else d for d in self.declarations]
        split = S.split_pot(self.pot, np.array(self.in_hand), np.array(declarations),
                            np.array(distances), S.tiebreak_rank(np.array(hands), rules.tiebreak),
                            odd_chip=rules.odd_chip)
        low_w, high_w = int(split.low_winner), int(split.high_winner)
        failed = split.failed_swing.tolist()
        self._pay(split.payouts.tolist(), int(split.house), solutions,
                  low_winner=None if low_w == S.NO_SEAT else low_w,
                  high_winner=None if high_w == S.NO_SEAT else high_w,
                  failed_swing=[s for s in live if failed[s]])

    def _pay(self, payouts: list[int], house: int, solutions: list[Solution | None],
             **outcome: Any) -> None:
        for seat, chips in enumerate(payouts):
            self.stacks[seat] += chips
            if chips:
                self._log("payout", seat, chips)
        if house:
            self.house += house
            self._log("house", -1, house)
        net = list(map(sub, payouts, self.wagers))
        self.result = HandResult(payouts=payouts, net=net, house=house,
                                 declarations=list(self.declarations), solutions=solutions,
                                 **outcome)
        self.wagers = [0] * self.num_players
        self.current_player = None
        for seat, chips in enumerate(self.stacks):
            if chips == 0 and not self.eliminated[seat]:
                self.eliminated[seat] = True
                self._log("eliminated", seat, self.hand_number)
        over = (self.hand_number >= self.rules.hands_per_episode
                or self.eliminated.count(False) <= 1)
        self.phase = _MATCH_OVER if over else _HAND_OVER

    # ---- legal actions --------------------------------------------------------------------

    def _compute_legal(self) -> list[int]:
        seat = self.current_player
        if seat is None:
            return []
        if self.phase == _BET:
            check_or_call, lowest, highest = self.bet_options()
            return [A.FOLD, check_or_call, *range(lowest, highest + 1)]
        if self.phase == _DISCARD:
            held = self.operators[seat]
            return [A.DISCARDS[op] for op in self.rules.discardable_operators if op in held]
        return [A.DECLARE_LOW, A.DECLARE_HIGH] + ([A.DECLARE_SWING] if self.rules.swing else [])

    def _reject(self, action: int, legal: list[int]) -> None:
        size = A.num_actions(self.rules.max_cap)
        if not 0 <= action < size:
            raise ValueError(f"action {action!r} is outside the action space 0..{size - 1}")
        who = "nobody" if self.current_player is None else f"player_{self.current_player}"
        raise ValueError(f"illegal action {A.action_to_string(int(action))!r} ({action!r}) for "
                         f"{who} in phase {self.phase.name}; legal: {A.describe_legal(legal)}")


def stacked_deck(deck: Iterable[int | str] | None) -> list[int]:
    """The top of a hand's deck asked for (None: nothing stacked) as distinct card ids, top
    first: any sequence, array or iterator of ids or texts (an unordered set or dict is
    refused: it has no top); a bad card raises ValueError."""
    if deck is None:
        return []
    if isinstance(deck, str | bytes):
        raise TypeError(f"a deck is a sequence of card ids or texts, not the string {deck!r}")
    if isinstance(deck, AbstractSet | Mapping):
        raise TypeError(f"a deck is an ordered sequence of card ids or texts, not a "
                        f"{type(deck).__name__}")
    try:
        return cards.parse_deck(list(deck))
    except TypeError:
        raise TypeError(f"a deck is a sequence of card ids or texts, not "
                        f"{type(deck).__name__}") from None


def replay(log: Sequence[Event], rules: RuleSet, rng_state: dict) -> Game:
    """Rebuild a game from its history: the generator's starting state, the stacked decks
    of each hand and the actions taken."""
    rng = np.random.Generator(getattr(np.random, rng_state["bit_generator"])())
    rng.bit_generator.state = rng_state
    hands = [e.data["deck"] for e in log if e.kind == "hand"]
    if not hands:
        raise ValueError("the history has no hand to replay")
    game = Game(rules, rng, hands[0])
    next_hand = 1
    for event in log:
        if event.kind == "hand" and event.data["number"] > 1:
            game.start_next_hand(hands[next_hand])
            next_hand += 1
        elif event.kind == "action":
            game.step(event.data)
    return game
