"""The game of Hi MiLo!: one round (bids, passing, 14 tricks, the team outcome) and the match.

This module is the rules of ``docs/himilo.md`` and nothing else: no Gymnasium, no PettingZoo.
A :class:`Round` is one episode. Chance is data: the round is fixed by its deck and its line
of Win Cards, stacked or drawn from the ``numpy.random.Generator`` passed in. Players decide
through :meth:`Round.step` with an action id of :mod:`himilo.actions`, in three phases:

* ``BID``: one public bid each, clockwise from the dealer's left, while its slot is free;
* ``PASS``: from the High bidder clockwise, each player sets ``pass_cards`` cards aside one
  at a time; they reach the left neighbour together after the last;
* ``PLAY``: 14 tricks, one card each clockwise from the leader, under the line's Win Cards.

A :class:`Match` is the seed's "best of five": rounds with the dealer moving one seat
clockwise, until the team has won or lost a majority.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

from hilo_env.himilo import actions as A
from hilo_env.himilo import cards, tricks
from hilo_env.himilo.rules import HAND_SIZE, RuleSet

ACTION_TYPES = (int, np.integer)
"""What an action id may be: a Python or NumPy integer (``bool`` excluded)."""
LOW, MIDDLE, HIGH = 0, 1, 2
"""Bids as the state stores them (``action - A.BID_LOW``)."""
NO_BID = -1
WIN, LOSS = 1, -1
"""The team outcome of a round."""
MATCH_ROUNDS = 5
"""Rounds in a match ("best of five")."""


class Phase(IntEnum):
    """What the round is waiting for."""

    BID = 0
    PASS = 1
    PLAY = 2
    ROUND_OVER = 3


# Bound once: Python 3.11 looks enum members up slowly, and these are read at every step.
_BID, _PASS, _PLAY, _OVER = Phase.BID, Phase.PASS, Phase.PLAY, Phase.ROUND_OVER


class Event(NamedTuple):
    """One line of the round's history: what happened, to whom, with what."""

    kind: str
    """``round`` (data: deck, line, dealer), ``action`` (the action id), ``deliver`` (the
    passed cards reach ``seat``), ``trick`` (data: trick index, Win Card, cards in play
    order; seat: the winner), ``end`` (data: the team outcome)."""
    seat: int
    """The seat concerned, or -1 for the table."""
    data: Any


_NOT_COMPARED = ("_legal",)
"""What ``==`` leaves out: the cache of the legal actions."""


class Round:
    """One round of Hi MiLo!: the state, the legal actions and the transitions."""

    def __init__(self, rules: RuleSet, rng: np.random.Generator,
                 deck: Sequence[int | str] | None = None,
                 line: Sequence[int | str] | None = None, dealer: int | None = None) -> None:
        """Deal a round. ``deck`` stacks the cards in play (top first), ``line`` the 14 Win
        Cards (trick 1's first), ``dealer`` overrides ``rules.dealer``; what is not stacked
        is drawn from ``rng``, which the round keeps no reference to: once dealt, its whole
        chance is in ``log[0]``."""
        n = rules.num_players
        if dealer is not None:
            rules.replace(dealer=dealer)  # checks the seat
        self.rules = rules
        self.num_players = n
        self.dealer = rules.dealer_seat if dealer is None else int(dealer)
        deck_ids = cards.deck_order(n, deck, rng)
        self.line = cards.line_order(line, rng)
        self.log: list[Event] = [Event("round", -1, {"deck": deck_ids, "line": list(self.line),
                                                      "dealer": self.dealer})]
        first = (self.dealer + 1) % n
        self.hands: list[list[int]] = [[] for _ in range(n)]
        dealt = HAND_SIZE * n
        for i, card in enumerate(deck_ids[:dealt]):
            self.hands[(first + i) % n].append(card)
        for hand in self.hands:
            hand.sort()
        self.undealt = deck_ids[dealt:]
        self.bids = [NO_BID] * n
        self.passed: list[list[int]] = [[] for _ in range(n)]
        """Per seat, the cards it passed (the current passer's chosen ones included)."""
        self.received: list[list[int]] = [[] for _ in range(n)]
        self.pass_queue: list[int] = []
        self.trick = 0
        """Index of the current trick, 0..13 (14 once the round is over)."""
        self.leader = first
        self.trick_cards: list[int] = []
        """The cards of the current trick, in play order from the leader."""
        self.played: list[list[int]] = [[] for _ in range(n)]
        """Per seat, every card it played to a trick, in order (the current trick's too)."""
        self.taken: list[list[int]] = [[] for _ in range(n)]
        """Per seat, the Win Cards it took (one per trick won)."""
        self.decisions = 0
        self.outcome = 0
        """``WIN`` or ``LOSS`` once the round is over, 0 before."""
        self.phase = _BID
        self.current_player: int | None = first
        self._legal: list[int] | None = None

    # ---- queries -------------------------------------------------------------------------

    @property
    def win_card(self) -> int | None:
        """The current trick's Win Card (None once the round is over)."""
        return self.line[self.trick] if self.trick < HAND_SIZE else None

    def visible_line(self) -> list[int]:
        """The Win Cards face up: the next ``visible_win_cards`` of the line."""
        return self.line[self.trick:self.trick + self.rules.visible_win_cards]

    def tricks_won(self) -> list[int]:
        """Per seat, the tricks won so far."""
        return [len(t) for t in self.taken]

    def failed_constraints(self) -> int:
        """How many of the 2n-3 inequalities of a team win fail on the tricks so far
        (all of them before the bids are complete)."""
        if NO_BID in self.bids:
            return tricks.num_constraints(self.num_players)
        return tricks.failed_constraints(self.tricks_won(), self.bids.index(HIGH),
                                         self.bids.index(LOW))

    def legal_actions(self) -> list[int]:
        """The acting player's legal action ids in id order (empty once the round is over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def legal(self) -> list[str]:
        """The legal actions as texts, in id order."""
        return [A.action_to_string(a) for a in self.legal_actions()]

    def is_legal(self, action: Any) -> bool:
        """Whether the acting player may take ``action`` now."""
        return (isinstance(action, ACTION_TYPES) and not isinstance(action, bool)
                and action in self.legal_actions())

    # ---- the one entry point for decisions -----------------------------------------------

    def step(self, action: int) -> None:
        """Apply the current player's action. A non-integer raises TypeError, an illegal
        action ValueError; either way nothing changes."""
        if not isinstance(action, ACTION_TYPES) or isinstance(action, bool):
            raise TypeError(f"a Hi MiLo! action is an integer id (0..{A.NUM_ACTIONS - 1}), "
                            f"not {action!r} of type {type(action).__name__}")
        action = int(action)
        legal = self.legal_actions()
        if action not in legal:
            self._reject(action, legal)
        seat = self.current_player
        self.log.append(Event("action", seat, action))
        self.decisions += 1
        self._legal = None
        if self.phase == _PLAY:
            self._play(seat, action)
        elif self.phase == _PASS:
            self._pass(seat, action)
        else:
            self._bid(seat, action)

    def clone(self) -> Round:
        """An independent copy; it compares equal to its original until either moves."""
        return copy.deepcopy(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Round):
            return NotImplemented
        mine = {k: v for k, v in vars(self).items() if k not in _NOT_COMPARED}
        theirs = {k: v for k, v in vars(other).items() if k not in _NOT_COMPARED}
        return mine == theirs

    __hash__ = None  # type: ignore[assignment]

    # ---- bids ----------------------------------------------------------------------------

    def _free_bids(self) -> list[int]:
        n, bids = self.num_players, self.bids
        free = []
        if LOW not in bids:
            free.append(A.BID_LOW)
        if bids.count(MIDDLE) < n - 2:
            free.append(A.BID_MIDDLE)
        if HIGH not in bids:
            free.append(A.BID_HIGH)
        return free

    def _bid(self, seat: int, action: int) -> None:
        n = self.num_players
        self.bids[seat] = action - A.BID_LOW
        if NO_BID in self.bids:
            self.current_player = (seat + 1) % n
            return
        high = self.bids.index(HIGH)
        if self.rules.pass_cards:
            self.phase = _PASS
            self.pass_queue = [(high + i) % n for i in range(n)]
            self.current_player = self.pass_queue.pop(0)
        else:
            self._start_play()

    # ---- passing -------------------------------------------------------------------------

    def _pass(self, seat: int, action: int) -> None:
        card = A.card_of(action)
        self.hands[seat].remove(card)
        chosen = self.passed[seat]
        chosen.append(card)
        if len(chosen) < self.rules.pass_cards:
            return
        left = (seat + 1) % self.num_players
        self.received[left].extend(chosen)
        self.hands[left].extend(chosen)
        self.hands[left].sort()
        self.log.append(Event("deliver", left, list(chosen)))
        if self.pass_queue:
            self.current_player = self.pass_queue.pop(0)
        else:
            self._start_play()

    # ---- tricks --------------------------------------------------------------------------

    def _start_play(self) -> None:
        self.phase = _PLAY
        self.current_player = self.leader

    def _play(self, seat: int, action: int) -> None:
        self.hands[seat].remove(action)
        self.played[seat].append(action)
        self.trick_cards.append(action)
        n = self.num_players
        if len(self.trick_cards) < n:
            self.current_player = (seat + 1) % n
            return
        win_card = self.line[self.trick]
        winner = (self.leader + tricks.trick_winner(self.trick_cards, win_card)) % n
        self.taken[winner].append(win_card)
        self.log.append(Event("trick", winner, (self.trick, win_card, list(self.trick_cards))))
        self.trick += 1
        self.trick_cards = []
        self.leader = winner
        if self.trick < HAND_SIZE:
            self.current_player = winner
            return
        won = tricks.team_won(self.tricks_won(), self.bids.index(HIGH), self.bids.index(LOW))
        self.outcome = WIN if won else LOSS
        self.phase = _OVER
        self.current_player = None
        self.log.append(Event("end", -1, self.outcome))

    # ---- legal actions -------------------------------------------------------------------

    def _compute_legal(self) -> list[int]:
        seat = self.current_player
        if seat is None:
            return []
        if self.phase == _PLAY:
            return tricks.follows(self.hands[seat], self.line[self.trick])
        if self.phase == _PASS:
            return [A.FIRST_PASS + c for c in self.hands[seat]]
        return self._free_bids()

    def _reject(self, action: int, legal: list[int]) -> None:
        try:
            name = repr(A.action_to_string(action))
        except ValueError:
            name = f"id {action} (outside 0..{A.NUM_ACTIONS - 1})"
        who = "nobody" if self.current_player is None else f"player_{self.current_player}"
        raise ValueError(f"illegal Hi MiLo! action {name} for {who} in phase "
                         f"{self.phase.name}; legal: {[A.action_to_string(a) for a in legal]}")


def replay(log: Sequence[Event], rules: RuleSet) -> Round:
    """Rebuild a round from its history: the deck, line and dealer it logged, then its
    actions (no generator is needed: everything random is in the log); ``rules`` are the
    round's own."""
    if not log or log[0].kind != "round":
        raise ValueError("a Hi MiLo! history starts with its 'round' event")
    start = log[0].data
    game = Round(rules, np.random.default_rng(0), start["deck"], start["line"], start["dealer"])
    for event in log[1:]:
        if event.kind == "action":
            game.step(event.data)
    return game


class Match:
    """The seed's "best of five": rounds with the dealer moving one seat clockwise per round,
    until one side has a majority of ``rounds`` (with 5, the team wins the match with 3 round
    wins; 3 losses end it lost)."""

    def __init__(self, rules: RuleSet, rng: np.random.Generator,
                 rounds: int = MATCH_ROUNDS) -> None:
        if not isinstance(rounds, int) or rounds < 1 or rounds % 2 == 0:
            raise ValueError(f"a match is an odd number of rounds (best of N), not {rounds!r}")
        self.rules = rules
        self.rng = rng
        self.rounds = rounds
        self.earlier: list[int] = []
        """The outcomes of the rounds before the current one."""
        self.round = Round(rules, rng)

    @property
    def outcomes(self) -> list[int]:
        """The outcome of every finished round, the current one's once it is over."""
        return self.earlier + ([self.round.outcome] if self.round.phase == _OVER else [])

    @property
    def over(self) -> bool:
        """True once the team has won or lost a majority of the rounds."""
        outcomes, majority = self.outcomes, self.rounds // 2 + 1
        return max(outcomes.count(WIN), outcomes.count(LOSS)) >= majority

    @property
    def team_won(self) -> bool:
        """True once the team has won a majority of the rounds."""
        return self.outcomes.count(WIN) > self.rounds // 2

    def next_round(self, deck: Sequence[int | str] | None = None,
                   line: Sequence[int | str] | None = None) -> Round:
        """Deal the next round, the dealer one seat clockwise; only after a round is over
        and while the match is not decided."""
        if self.round.phase != _OVER:
            raise ValueError("the next round starts only after the current one is over")
        if self.over:
            raise ValueError("the match is over: one side has a majority")
        self.earlier.append(self.round.outcome)
        dealer = (self.round.dealer + 1) % self.rules.num_players
        self.round = Round(self.rules, self.rng, deck, line, dealer)
        return self.round
