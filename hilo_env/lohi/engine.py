"""The game of lo-hi: state, legal actions and transitions (``docs/lohi.md``), no RL imports.

A :class:`Game` is one episode: rounds until a seat wins one it started with ``final_cards``
cards (or the ``max_turns`` cut-off). Players decide through :meth:`Game.step` with an action
id of :mod:`lohi.actions` at three kinds of points (:class:`Phase`):

* ``PLAY``: play a set, play a run, or pick up;
* ``CHOOSE``: ``higher`` or ``lower`` after making a double (not of 2s or Aces);
* ``CALL``: ``call 2`` .. ``call A`` after making a triple.

Dealing, turning a card over after three pick ups, reshuffles, the end of a round and the next
deal happen by themselves. Chance is data: round 1's deck may be stacked (52 ids, top first),
and every later shuffle, each reshuffle of the discard pile and each later round's deck, is one
call of the ``shuffle`` hook: ``shuffle(cards ascending) -> the same cards, top first``
(:class:`SeededShuffle` is the seeded default). The same deck, hook and actions give the
same game; :func:`replay` rebuilds a game from its log alone. A step whose hook raises or
returns other cards raises and changes nothing.

Piles are lists whose last item is the top: ``stock[-1]`` is drawn next, ``pile[-1]`` is the
top of the discard pile. A hand is kept per rank, each rank's card ids ascending, so playing a
rank takes its lowest ids (section 1).
"""

from __future__ import annotations

import copy
from bisect import insort
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

from hilo_env.lohi import actions as A
from hilo_env.lohi.cards import ACE, DECK_SIZE, NUM_RANKS, NUM_SUITS, TWO, parse_deck
from hilo_env.lohi.rules import RuleSet

Shuffle = Callable[[list[int]], list[int]]
"""The chance hook: the given cards (ascending ids) in a new order, top first."""
INTEGER_TYPES = (int, np.integer)
"""What an action id or a win count may be: a Python or NumPy integer (a bool is refused)."""
CLOCKWISE, COUNTERCLOCKWISE = 1, -1
NO_RANK = -1
"""``called`` when the need is not EXACT."""
ALL_CARDS = tuple(range(DECK_SIZE))


class Phase(IntEnum):
    """What the game is waiting for."""

    PLAY = 0
    CHOOSE = 1
    CALL = 2
    GAME_OVER = 3


class Need(IntEnum):
    """What the first card of the next play must be, against the top card's rank t."""

    ANY = 0
    HIGHER = 1
    """rank >= t"""
    LOWER = 2
    """rank <= t"""
    EXACT = 3
    """rank == the called rank"""


# Bound once: Python 3.11 looks enum members up slowly, and these are read at every step.
_PLAY, _CHOOSE, _CALL, _OVER = Phase.PLAY, Phase.CHOOSE, Phase.CALL, Phase.GAME_OVER
_ANY, _HIGHER, _LOWER, _EXACT = Need.ANY, Need.HIGHER, Need.LOWER, Need.EXACT
_ALL_RANKS = range(NUM_RANKS)

# Event kinds of the history.
ROUND = "round"
"""A round is dealt: ``{"number", "deck" (top first), "wins", "first"}``."""
ACTION = "action"
"""A decision: the action id."""
DRAW = "draw"
"""A picked-up card (private to its seat; ``None``: nothing to draw, a pass)."""
TURN = "turn"
"""The card turned over after the pick ups in a row."""
RESHUFFLE = "reshuffle"
"""The discard pile under its top card became the stock: the new stock, top first."""
ROUND_WON = "round_won"
GAME_WON = "game_won"
TRUNCATED = "truncated"


class Event(NamedTuple):
    """One line of the history: what happened, to whom (-1: the table), with what."""

    kind: str
    seat: int
    data: Any


class SeededShuffle:
    """The default chance hook: a permutation drawn from a NumPy generator."""

    def __init__(self, rng: np.random.Generator | int | None = None) -> None:
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)

    def __call__(self, cards: list[int]) -> list[int]:
        return [cards[i] for i in self.rng.permutation(len(cards)).tolist()]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeededShuffle):
            return NotImplemented
        return self.rng.bit_generator.state == other.rng.bit_generator.state

    __hash__ = None  # type: ignore[assignment]


class RecordedShuffle:
    """A hook that gives back recorded orders, in turn, then defers to ``then``."""

    def __init__(self, orders: Sequence[Sequence[int]], then: Shuffle | None = None) -> None:
        self.orders: Iterator[Sequence[int]] = iter(list(orders))
        self.then = then

    def __call__(self, cards: list[int]) -> list[int]:
        order = next(self.orders, None)
        if order is not None:
            return list(order)
        if self.then is None:
            raise ValueError("the recorded shuffles are used up and no hook follows them")
        return self.then(cards)


_NOT_COMPARED = ("shuffle", "_legal")
"""What ``==`` leaves out: the hook (the source of future chance, not part of the position)
and the cache of legal actions."""


class Game:
    """One episode of lo-hi: the state, the legal actions and the transitions."""

    def __init__(self, rules: RuleSet, shuffle: Shuffle,
                 deck: Sequence[int | str] | None = None,
                 wins: Sequence[int] | Mapping[int, int] | None = None) -> None:
        """Deal round 1 from ``deck`` (52 cards, top first) or from ``shuffle``; ``wins``
        are the seats' starting win counts (each 0..``rules.max_wins``), in seat order or by
        seat (``{seat: wins}``, the others 0)."""
        if not callable(shuffle):
            raise TypeError(f"the shuffle hook must be callable (cards ascending -> the same "
                            f"cards, top first), not {shuffle!r}")
        n = rules.num_players
        self.rules = rules
        self.num_players = n
        self.shuffle = shuffle
        self.wins = _check_wins(wins, rules) if wins is not None else [0] * n
        stacked = parse_deck(deck) if deck is not None else None
        self.round_number = 0
        self.turns = 0
        self.payoffs = [0.0] * n
        """Each seat's rewards so far: round rewards and, at the end, the game reward."""
        self.round_winners: list[int] = []
        self.winner: int | None = None
        self.truncated = False
        self.log: list[Event] = []
        self._legal: list[int] | None = None
        self._start_round(stacked)

    # ---- queries -------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase is _OVER

    @property
    def top_rank(self) -> int:
        """The rank of the discard pile's top card."""
        return self.pile[-1] // NUM_SUITS

    @property
    def top_count(self) -> int:
        """Cards of the top card's rank on top of the discard pile, counted down (1..4)."""
        return _same_rank_on_top(self.pile)

    def hand(self, seat: int) -> list[int]:
        """The seat's card ids, ascending."""
        return sorted(c for cards in self.hands[seat] for c in cards)

    def rank_counts(self, seat: int) -> list[int]:
        """How many cards of each rank the seat holds."""
        return [len(cards) for cards in self.hands[seat]]

    def can_draw(self) -> bool:
        """Whether a card can be taken: from the stock, or after reshuffling the discard pile."""
        return bool(self.stock) or len(self.pile) > 1

    def legal_actions(self) -> list[int]:
        """The acting player's legal action ids in id order (empty once the game is over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    # ---- the one entry point for decisions -----------------------------------------------

    def step(self, action: int) -> None:
        """Apply the current player's action; an illegal one raises and changes nothing."""
        if isinstance(action, bool) or not isinstance(action, INTEGER_TYPES):
            raise TypeError(f"an action is an integer id 0..{A.NUM_ACTIONS - 1}, not "
                            f"{action!r} ({type(action).__name__})")
        legal = self.legal_actions()
        if action not in legal:
            self._reject(action, legal)
        action = int(action)
        seat = self.current_player
        if not self._may_shuffle(action, seat):
            self._apply(action, seat)
            return
        before = self._copy_state()
        try:
            self._apply(action, seat)
        except BaseException:
            vars(self).update(vars(before))  # a failing hook leaves the step unapplied
            raise

    def _may_shuffle(self, action: int, seat: int) -> bool:
        """Whether the action may call the hook: a pick up with at most one card in the stock
        (a reshuffle), or a play of the seat's last cards (the next round's deal)."""
        if self.phase is not _PLAY:
            return False
        if action == A.PICK_UP:
            return len(self.stock) <= 1
        if action < A.FIRST_RUN:
            played = A.set_of(action)[1]
        else:
            first, last = A.RUNS[action - A.FIRST_RUN]
            played = abs(last - first) + 1
        return played == self.hand_sizes[seat]

    def _apply(self, action: int, seat: int) -> None:
        """The transition of a legal action."""
        self.log.append(Event(ACTION, seat, action))
        self.turns += 1
        self._legal = None
        phase = self.phase
        if phase is _CHOOSE:
            self.need, self.phase = (_HIGHER if action == A.HIGHER else _LOWER), _PLAY
            self._pass_turn(seat)
        elif phase is _CALL:
            self.need, self.called, self.phase = _EXACT, action - A.FIRST_CALL, _PLAY
            self._pass_turn(seat)
        elif action == A.PICK_UP:
            self._pick_up(seat)
        elif action < A.FIRST_RUN:
            self._play_set(seat, *A.set_of(action))
        else:
            self._play_run(seat, *A.RUNS[action - A.FIRST_RUN])
        if self.phase is not _OVER and self.turns >= self.rules.max_turns:
            self.truncated = True
            self._end_game()
            self.log.append(Event(TRUNCATED, -1, self.turns))

    def clone(self) -> Game:
        """An independent copy (its hook copied too); it equals the original until either
        moves, and the same actions then give both the same game."""
        other = self._copy_state()
        other.shuffle = copy.deepcopy(self.shuffle)
        return other

    def _copy_state(self) -> Game:
        """A copy of the position that shares the hook."""
        other = copy.copy(self)
        other.wins, other.payoffs = self.wins[:], self.payoffs[:]
        other.round_winners, other.log = self.round_winners[:], self.log[:]
        other.start_sizes, other.hand_sizes = self.start_sizes[:], self.hand_sizes[:]
        other.hands = [[cards[:] for cards in hand] for hand in self.hands]
        other.stock, other.pile = self.stock[:], self.pile[:]
        other._legal = None
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        mine = {k: v for k, v in vars(self).items() if k not in _NOT_COMPARED}
        theirs = {k: v for k, v in vars(other).items() if k not in _NOT_COMPARED}
        return mine == theirs

    __hash__ = None  # type: ignore[assignment]

    # ---- a round --------------------------------------------------------------------------

    def _shuffled(self, cards: list[int]) -> list[int]:
        """The hook's order of ``cards``, checked to hold the same cards."""
        order = [int(c) for c in self.shuffle(list(cards))]
        if sorted(order) != cards:
            raise ValueError(f"the shuffle hook must return the {len(cards)} cards it was "
                             f"given, reordered; it returned {order!r}")
        return order

    def _start_round(self, deck: list[int] | None) -> None:
        """Deal one card at a time from seat 0, passing over full hands; turn the next card
        face up; the seat with the fewest cards (lowest seat on a tie) acts first."""
        n = self.num_players
        if deck is None:
            deck = self._shuffled(list(ALL_CARDS))
        self.round_number += 1
        sizes = [self.rules.start_cards + w for w in self.wins]
        self.start_sizes = sizes
        self.hand_sizes = sizes[:]
        hands: list[list[list[int]]] = [[[] for _ in _ALL_RANKS] for _ in range(n)]
        dealt = [0] * n
        position = 0
        for _ in range(max(sizes)):
            for seat in range(n):
                if dealt[seat] < sizes[seat]:
                    card = deck[position]
                    hands[seat][card // NUM_SUITS].append(card)
                    dealt[seat] += 1
                    position += 1
        for hand in hands:
            for cards in hand:
                cards.sort()
        self.hands = hands
        self.pile = [deck[position]]
        self.stock = deck[:position:-1]  # the rest, its top card last
        self.need, self.called = _ANY, NO_RANK
        self.direction = CLOCKWISE
        self.pickups = 0
        self.phase = _PLAY
        self.current_player = min(range(n), key=lambda s: (sizes[s], s))
        self._legal = None
        self.log.append(Event(ROUND, -1, {"number": self.round_number, "deck": tuple(deck),
                                          "wins": tuple(self.wins),
                                          "first": self.current_player}))

    def _pass_turn(self, seat: int) -> None:
        self.current_player = (seat + self.direction) % self.num_players

    def _take(self) -> int | None:
        """The stock's top card, reshuffling the discard pile under its top card when the
        stock is empty; None when there is nothing to take."""
        if not self.stock:
            if len(self.pile) == 1:
                return None
            under = sorted(self.pile[:-1])
            self.stock = self._shuffled(under)[::-1]
            self.pile = self.pile[-1:]
            self.log.append(Event(RESHUFFLE, -1, tuple(self.stock[::-1])))
        return self.stock.pop()

    def _pick_up(self, seat: int) -> None:
        card = self._take()
        if card is not None:
            insort(self.hands[seat][card // NUM_SUITS], card)
            self.hand_sizes[seat] += 1
        self.log.append(Event(DRAW, seat, card))
        self.pickups += 1
        if self.pickups == self.rules.pickups_to_turn:
            self.pickups = 0
            turned = self._take()
            if turned is not None:
                self.pile.append(turned)
                self.log.append(Event(TURN, -1, turned))
        self._pass_turn(seat)

    def _play_set(self, seat: int, rank: int, count: int) -> None:
        cards = self.hands[seat][rank]
        self.pile += cards[:count]
        del cards[:count]
        self.pickups = 0
        self.hand_sizes[seat] -= count
        if not self.hand_sizes[seat]:
            self._round_won(seat)
            return
        self.called = NO_RANK
        same = _same_rank_on_top(self.pile)
        if same == 1:
            self.need = _LOWER if rank > self.pile[-2] // NUM_SUITS else _HIGHER
        elif same == 2:
            if rank in (TWO, ACE):
                self.need = _ANY
            else:
                self.phase = _CHOOSE
                return
        elif same == 3:
            self.phase = _CALL
            return
        else:  # four of a kind: "lo-hi!", the same player takes another full turn
            self.need = _ANY
            return
        self._pass_turn(seat)

    def _play_run(self, seat: int, first: int, last: int) -> None:
        hand = self.hands[seat]
        for rank in A.run_ranks(first, last):
            self.pile.append(hand[rank].pop(0))
        self.pickups = 0
        self.hand_sizes[seat] -= abs(last - first) + 1
        if not self.hand_sizes[seat]:
            self._round_won(seat)
            return
        self.called = NO_RANK
        self.need = _LOWER if last > first else _HIGHER
        self.direction = -self.direction
        self._pass_turn(seat)

    def _round_won(self, seat: int) -> None:
        """Pay the round reward; the game ends if the seat started with ``final_cards``,
        else its win count goes up and the next round is dealt from a fresh deck."""
        rules = self.rules
        self.round_winners.append(seat)
        self.log.append(Event(ROUND_WON, seat, self.round_number))
        if rules.round_reward:
            _pay(self.payoffs, seat, rules.round_reward)
        if self.start_sizes[seat] == rules.final_cards:
            _pay(self.payoffs, seat, 1.0)
            self.winner = seat
            self.log.append(Event(GAME_WON, seat, self.round_number))
            self._end_game()
            return
        self.wins[seat] += 1
        self._start_round(None)

    def _end_game(self) -> None:
        self.phase = _OVER
        self.current_player = None
        self._legal = None

    # ---- legal actions --------------------------------------------------------------------

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase is _PLAY:
            plays = self._plays(self.hands[self.current_player])
            if self.can_draw() or not plays:
                plays.insert(0, A.PICK_UP)
            return plays
        if phase is _CHOOSE:
            return [A.HIGHER, A.LOWER]
        if phase is _CALL:
            return list(range(A.FIRST_CALL, A.FIRST_CALL + NUM_RANKS))
        return []

    def _plays(self, hand: list[list[int]]) -> list[int]:
        """Every set and run the need allows, in id order (section 5.1, 5.2)."""
        need, top = self.need, self.pile[-1] // NUM_SUITS
        up = down = True
        if need is _HIGHER:
            starts: range | tuple[int, ...] = range(top, NUM_RANKS)
            down = False
        elif need is _LOWER:
            starts = range(top + 1)
            up = False
        elif need is _EXACT:
            starts = (self.called,)
        else:
            starts = _ALL_RANKS
        span = self.rules.min_run - 1
        out: list[int] = []
        runs: list[int] = []
        for f in starts:
            k = len(hand[f])
            if not k:
                continue
            first_set = A.FIRST_SET + f * A.MAX_SET
            out.extend(range(first_set, first_set + k))
            if down:
                last = f - 1
                while last >= 0 and hand[last]:
                    if f - last >= span:
                        runs.append(A.RUN_ID[f, last])
                    last -= 1
            if up:
                last = f + 1
                while last < NUM_RANKS and hand[last]:
                    if last - f >= span:
                        runs.append(A.RUN_ID[f, last])
                    last += 1
        if runs:
            runs.sort()
            out += runs
        return out

    def _reject(self, action: Any, legal: list[int]) -> None:
        try:
            name = repr(A.action_to_string(int(action)))
        except ValueError:
            name = "an id outside the action space"
        who = "nobody (the game is over)" if self.current_player is None else \
            f"player_{self.current_player}"
        raise ValueError(f"illegal action {action!r} ({name}) for {who} in phase "
                         f"{self.phase.name}; legal: {[A.TEXTS[a] for a in legal]}")


def _same_rank_on_top(pile: list[int]) -> int:
    """Cards of the top card's rank on top of ``pile``, counted down."""
    rank = pile[-1] // NUM_SUITS
    count = 1
    while count < len(pile) and pile[-1 - count] // NUM_SUITS == rank:
        count += 1
    return count


def _pay(payoffs: list[float], winner: int, amount: float) -> None:
    """Zero-sum: ``amount`` to the winner, ``amount / (n - 1)`` from every other seat."""
    loss = amount / (len(payoffs) - 1)
    for seat in range(len(payoffs)):
        payoffs[seat] += amount if seat == winner else -loss


def _check_wins(wins: Sequence[int] | Mapping[int, int], rules: RuleSet) -> list[int]:
    """Win counts in seat order, from a sequence in seat order or a mapping by seat."""
    n = rules.num_players
    if isinstance(wins, Mapping):
        seats = [s for s in wins if isinstance(s, bool) or not isinstance(s, INTEGER_TYPES)
                 or not 0 <= s < n]
        if seats:
            raise ValueError(f"wins by seat take seats 0..{n - 1} as keys, not {seats!r}")
        values: list = [wins.get(seat, 0) for seat in range(n)]
    elif isinstance(wins, Sequence | np.ndarray):
        values = list(wins)
    else:
        raise ValueError(f"wins must be a sequence in seat order or a dict by seat, not "
                         f"{wins!r}")
    if len(values) != rules.num_players or any(
            isinstance(w, bool) or not isinstance(w, INTEGER_TYPES) or not
            0 <= w <= rules.max_wins for w in values):
        raise ValueError(f"wins must be {rules.num_players} whole numbers, each "
                         f"0..{rules.max_wins} (final_cards - start_cards), not {wins!r}")
    return [int(w) for w in values]


def replay(log: Sequence[Event], rules: RuleSet, shuffle: Shuffle | None = None) -> Game:
    """Rebuild a game from its history alone: round 1's deck and win counts, every later
    shuffle's recorded order, and the actions. ``shuffle`` serves any chance after the log."""
    rounds = [e for e in log if e.kind == ROUND]
    if not rounds:
        raise ValueError("the history has no round to replay")
    first = rounds[0]
    orders = [e.data["deck"] if e.kind == ROUND else e.data for e in log
              if e.kind in (ROUND, RESHUFFLE) and e is not first]
    game = Game(rules, RecordedShuffle(orders, shuffle), first.data["deck"],
                first.data["wins"])
    for event in log:
        if event.kind == ACTION:
            game.step(event.data)
    return game
