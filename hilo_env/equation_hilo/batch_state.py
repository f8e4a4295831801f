"""The state of many games of Equation Hi-Lo at once, as one dataclass of NumPy arrays.

Every field of :class:`~hilo_env.equation_hilo.engine.Game` as an array, plus where each game
is in its deck and in its hand. Per-seat arrays are seat-major, ``(n, N)`` for ``n`` players
and ``N`` games, so a reduction over seats runs along axis 0. Copying, comparing and measuring
a state follow from its fields, so there is no second list of names to keep in step.

| field            | shape, dtype       | what                                                   |
|------------------|--------------------|--------------------------------------------------------|
| ``stacks``       | (n, N) int64       | chips behind                                           |
| ``eliminated``   | (n, N) bool        | out of the match (no chips left)                       |
| ``house``        | (N,) int64         | odd chips the house took this match                    |
| ``button``       | (N,) int64         | the dealer's seat                                      |
| ``hand_number``  | (N,) int64         | hands dealt in this match (1 in the first)             |
| ``deck``         | (N, 52) int8       | the hand's deck, top first (see ``draw_position``)     |
| ``draw_position``| (N,) int64         | how many cards of ``deck`` are drawn                   |
| ``hand_seed``    | (N,) uint64        | the seed of the hand's reshuffles                      |
| ``reshuffles``   | (N,) int64         | reshuffles so far this hand                            |
| ``in_hand``      | (n, N) bool        | not folded, not eliminated                             |
| ``hidden``       | (n, N) int64       | the hidden card, -1 before it is dealt                 |
| ``face_up``      | (n, N, 52) bool    | the face-up cards held (√ and × included)              |
| ``numbers``      | (n, N, 4) int8     | the number cards in the order received                 |
| ``number_count`` | (n, N) int64       | how many of ``numbers`` are dealt                      |
| ``set_aside``    | (N, 52) bool       | specials set aside this hand                           |
| ``operators``    | (n, N, 4) int8     | how many of each operator (``solver.OPERATORS`` order) |
| ``roots``        | (n, N) int64       | √ held                                                 |
| ``multiplies``   | (n, N) int64       | × held                                                 |
| ``declarations`` | (n, N) int64       | the declaration action, -1 before it                   |
| ``cap``          | (N,) int64         | the hand's betting cap                                 |
| ``round``        | (N,) int64         | the betting round, -1 before the first                 |
| ``round_wagers`` | (R, n, N) int64    | chips put in per betting round (R >= 1)                |
| ``round_raises`` | (R, n, N) int64    | raises made per betting round                          |
| ``acted``        | (n, N) bool        | has acted since the last raise in this round           |
| ``phase``        | (N,) int64         | a :class:`~hilo_env.equation_hilo.engine.Phase`        |
| ``current_player``| (N,) int64        | the seat to act, ``NO_SEAT`` when nobody               |
| ``schedule``     | (N,) int64         | the next step of ``rules.deal``                        |
| ``deal_position``| (N,) int64         | the next position (from the dealer's left) of a deal   |
|                  |                    | pass under way; ``n`` when none                        |
| ``wagers``       | (n, N) int64       | chips wagered this hand (ante included)                |
| ``net``          | (n, N) int64       | each seat's net chips of the hand that ended last      |
| ``hand_over``    | (N,) bool          | the last step ended a hand                             |
| ``match_over``   | (N,) bool          | the last step ended a match                            |
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from hilo_env.equation_hilo import solver
from hilo_env.equation_hilo.cards import DECK_SIZE, NUM_SUITS
from hilo_env.equation_hilo.rules import RuleSet

NUMBERS_PER_HAND = solver.NUM_NUMBERS
NUM_OPERATOR_KINDS = solver.NUM_OPERATOR_KINDS
PLUS, MINUS, TIMES, DIVIDE = (solver.OPERATORS.index(op) for op in "+-*/")
"""Operator slots of ``BatchState.operators``."""


@dataclass(frozen=True, eq=False)
class BatchState:
    """Seat-major arrays of ``N`` games (see the module docstring for every field)."""

    stacks: np.ndarray
    eliminated: np.ndarray
    house: np.ndarray
    button: np.ndarray
    hand_number: np.ndarray
    deck: np.ndarray
    draw_position: np.ndarray
    hand_seed: np.ndarray
    reshuffles: np.ndarray
    in_hand: np.ndarray
    hidden: np.ndarray
    face_up: np.ndarray
    numbers: np.ndarray
    number_count: np.ndarray
    set_aside: np.ndarray
    operators: np.ndarray
    roots: np.ndarray
    multiplies: np.ndarray
    declarations: np.ndarray
    cap: np.ndarray
    round: np.ndarray
    round_wagers: np.ndarray
    round_raises: np.ndarray
    acted: np.ndarray
    phase: np.ndarray
    current_player: np.ndarray
    schedule: np.ndarray
    deal_position: np.ndarray
    wagers: np.ndarray
    net: np.ndarray
    hand_over: np.ndarray
    match_over: np.ndarray

    @classmethod
    def zeros(cls, rules: RuleSet, num_games: int) -> BatchState:
        """A state of ``num_games`` games with every array allocated (nothing dealt)."""
        n, N, i64 = rules.num_players, num_games, np.int64
        return cls(
            stacks=np.zeros((n, N), i64), eliminated=np.zeros((n, N), bool),
            house=np.zeros(N, i64), button=np.zeros(N, i64), hand_number=np.zeros(N, i64),
            deck=np.zeros((N, DECK_SIZE), np.int8), draw_position=np.zeros(N, i64),
            hand_seed=np.zeros(N, np.uint64), reshuffles=np.zeros(N, i64),
            in_hand=np.zeros((n, N), bool), hidden=np.full((n, N), -1, i64),
            face_up=np.zeros((n, N, DECK_SIZE), bool),
            numbers=np.zeros((n, N, NUMBERS_PER_HAND), np.int8),
            number_count=np.zeros((n, N), i64), set_aside=np.zeros((N, DECK_SIZE), bool),
            operators=np.zeros((n, N, NUM_OPERATOR_KINDS), np.int8),
            roots=np.zeros((n, N), i64), multiplies=np.zeros((n, N), i64),
            declarations=np.full((n, N), -1, i64), cap=np.zeros(N, i64),
            round=np.zeros(N, i64),
            round_wagers=np.zeros((max(rules.num_bet_rounds, 1), n, N), i64),
            round_raises=np.zeros((max(rules.num_bet_rounds, 1), n, N), i64),
            acted=np.zeros((n, N), bool), phase=np.zeros(N, i64),
            current_player=np.zeros(N, i64), schedule=np.zeros(N, i64),
            deal_position=np.zeros(N, i64), wagers=np.zeros((n, N), i64),
            net=np.zeros((n, N), i64), hand_over=np.zeros(N, bool),
            match_over=np.zeros(N, bool))

    def arrays(self) -> dict[str, np.ndarray]:
        """Every field by name (the arrays themselves, not copies)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def copy(self) -> BatchState:
        """An independent copy."""
        return BatchState(**{name: a.copy() for name, a in self.arrays().items()})

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BatchState):
            return NotImplemented
        theirs = other.arrays()
        return all(np.array_equal(a, theirs[name]) for name, a in self.arrays().items())

    __hash__ = None  # type: ignore[assignment]

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays."""
        return sum(a.nbytes for a in self.arrays().values())

    def signatures(self, flat: np.ndarray) -> np.ndarray:
        """Solver signatures of full hands, by flat (seat * N + game) index."""
        values = self.numbers.reshape(-1, NUMBERS_PER_HAND).take(flat, axis=0) // NUM_SUITS
        held = self.operators.reshape(-1, NUM_OPERATOR_KINDS).take(flat, axis=0)
        return solver.signatures(values, solver.opset_ids_of_counts(held),
                                 self.roots.reshape(-1).take(flat))

