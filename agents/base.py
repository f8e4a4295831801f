"""The one interface every policy implements, and a reader for the observation vector.

An agent is built for a :class:`~equation_hilo.rules.RuleSet` (it needs the observation layout) and
a ``seed`` (its only source of randomness), then asked for actions::

    agent.act(observation, action_mask) -> int           # one decision
    agent.act_batch(observations, masks) -> np.ndarray   # (B, D), (B, A) -> (B,)

``observation`` is the flat float32 vector of :mod:`equation_hilo.observation` (seat slot 0 is the
agent itself) and ``action_mask`` the int8 mask of legal action ids. An agent must return a
legal action; :class:`TableView` turns the vector back into cards and chips for rule-based ones.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from hilo_env.equation_hilo import cards, solver
from hilo_env.equation_hilo.engine import Phase
from hilo_env.equation_hilo.observation import (
    DISTANCE_SCALE,
    NUM_OPERATOR_KINDS,
    layout,
)
from hilo_env.equation_hilo.rules import RuleSet


class Agent(ABC):
    """A policy for one rule set of one game: ``act`` for one decision, ``act_batch`` for
    many. The game's observation and mask are all it sees."""

    name: str = "agent"
    observes: bool = True
    """False for an agent that ignores observations: batch callers may then pass none."""

    def __init__(self, rules: Any, seed: int | None = 0) -> None:
        """``rules``: the game's rule set (for Equation Hi-Lo a :class:`RuleSet`)."""
        self.rules = rules
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    @functools.cached_property
    def layout(self) -> dict[str, slice]:
        """Equation Hi-Lo's observation layout for these rules (:func:`observation.layout`)."""
        return layout(self.rules)

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action id for one observation and its action mask."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for a batch: ``(B, D)`` observations, ``(B, A)`` masks -> int64 ``(B,)``."""
        return np.array([self.act(o, m) for o, m in zip(observations, masks, strict=True)],
                        dtype=np.int64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seed={self.seed!r})"


@dataclass(frozen=True)
class TableView:
    """What one observation says, in cards and chips. Seat slot 0 is the observer."""

    phase: int
    """A :class:`Phase` (``BET``, ``DISCARD``, ``DECLARE``), or -1 once the hand is over."""
    hidden: int
    """The observer's own hidden card id, -1 before it is dealt."""
    face_up: tuple[tuple[int, ...], ...]
    """Per seat slot, the card ids it holds face up (√ and × included), ascending."""
    operators: tuple[str, ...]
    """Per seat slot, its binary operators in ASCII, ``+-*/`` order (``"+-/"`` at the start)."""
    roots: tuple[int, ...]
    """Per seat slot, how many √ it holds."""
    in_hand: tuple[bool, ...]
    """Per seat slot, True while it has not folded."""
    stacks: tuple[int, ...]
    """Per seat slot, chips behind."""
    wagers: tuple[int, ...]
    """Per seat slot, chips wagered this hand (ante included)."""
    round_wager: int
    """Chips the observer put in during the current betting round."""
    betting_round: int
    """The current betting round (0-based), -1 outside betting."""
    pot: int
    cap: int
    to_call: int
    low_distance: float
    """The observer's best Low distance (``inf``: none valid; ``nan``: hand not full)."""
    high_distance: float
    """The observer's best High distance, capped at 20 like the observation."""
    up_deals: int = 3
    """Face-up deals a hand gets (``len(rules.base_operators)``; 3 by default)."""

    @property
    def num_players(self) -> int:
        return len(self.in_hand)

    def numbers(self, slot: int) -> list[int]:
        """The number cards a slot shows (the observer's own hidden card first)."""
        up = [c for c in self.face_up[slot] if cards.is_number(c)]
        return ([self.hidden] if slot == 0 and self.hidden >= 0 else []) + up

    def multiplies(self, slot: int) -> int:
        """How many × a slot holds face up."""
        return sum(cards.is_multiply(c) for c in self.face_up[slot])

    def up_deals_left(self, slot: int) -> int:
        """Face-up deals the slot has still to receive (each brings exactly one number)."""
        return self.up_deals - sum(cards.is_number(c) for c in self.face_up[slot])

    def seen_cards(self) -> set[int]:
        """Every card id the observer can see: its hidden card and all face-up cards."""
        seen = {c for up in self.face_up for c in up}
        if self.hidden >= 0:
            seen.add(self.hidden)
        return seen

    @property
    def highest_wager(self) -> int:
        return max(self.wagers)


def read_observation(observation: np.ndarray, rules: RuleSet,
                     where: dict[str, slice] | None = None) -> TableView:
    """Decode an observation vector of ``rules`` into a :class:`TableView`."""
    where = where or layout(rules)
    obs = np.asarray(observation)
    n, stack = rules.num_players, float(rules.starting_stack)

    scaled = np.rint(obs * stack).astype(np.int64)

    def chips(name: str) -> list[int]:
        return scaled[where[name]].tolist()

    phase_hot = np.flatnonzero(obs[where["phase"]])
    hidden_hot = np.flatnonzero(obs[where["hidden"]])
    up = obs[where["face_up"]].reshape(n, cards.DECK_SIZE)
    ops = np.rint(obs[where["operators"]]).astype(np.int64).reshape(n, NUM_OPERATOR_KINDS)
    round_hot = np.flatnonzero(obs[where["betting_round"]])
    rnd = int(round_hot[0]) if round_hot.size else -1
    solver_slice = obs[where["solver"]].tolist()
    low = high = float("nan")
    if solver_slice[0] > 0.5:
        low = solver_slice[2] * DISTANCE_SCALE if solver_slice[1] > 0.5 else float("inf")
        high = solver_slice[4] * DISTANCE_SCALE if solver_slice[3] > 0.5 else float("inf")
    round_wager = 0
    if rnd >= 0:
        round_wager = chips("round_wagers")[rnd * n]
    pot, cap, to_call = (chips(name)[0] for name in ("pot", "cap", "to_call"))
    rows, cols = np.nonzero(up)
    face_up: list[list[int]] = [[] for _ in range(n)]
    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
        face_up[r].append(c)
    return TableView(
        phase=Phase(int(phase_hot[0])) if phase_hot.size else -1,
        hidden=int(hidden_hot[0]) if hidden_hot.size else -1,
        face_up=tuple(tuple(f) for f in face_up),
        operators=tuple("".join(ch * k for ch, k in zip(solver.OPERATORS, row, strict=True))
                        for row in ops.tolist()),
        roots=tuple(np.rint(obs[where["roots"]] * 3).astype(np.int64).tolist()),
        in_hand=tuple((obs[where["in_hand"]] > 0.5).tolist()),
        stacks=tuple(chips("stacks")), wagers=tuple(chips("wagers")), round_wager=round_wager,
        betting_round=rnd, pot=pot, cap=cap, to_call=to_call, low_distance=low,
        high_distance=high, up_deals=len(rules.base_operators),
    )
