"""Equation Hi-Lo's observation read back as cards and chips, for its rule-based agents.

:class:`TableView` is what one observation vector of :mod:`equation_hilo.observation` says
(seat slot 0 is the observer); :func:`read_observation` and :func:`read_observations` decode
one vector or a batch; :class:`TableReader` is the base of the agents that read them (it keeps
the observation layout of its rules).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from hilo_env.agents.base import Agent
from hilo_env.equation_hilo import cards, solver
from hilo_env.equation_hilo.engine import Phase
from hilo_env.equation_hilo.observation import (
    DISTANCE_SCALE,
    NUM_OPERATOR_KINDS,
    layout,
    observation_size,
)
from hilo_env.equation_hilo.rules import RuleSet


class TableReader(Agent):
    """An Equation Hi-Lo agent that reads its observations as :class:`TableView`."""

    @functools.cached_property
    def layout(self) -> dict[str, slice]:
        """The observation layout of its rules (:func:`equation_hilo.observation.layout`)."""
        return layout(self.rules)

    @functools.cached_property
    def observation_size(self) -> int:
        """The length of an observation vector of its rules."""
        return observation_size(self.rules)


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
    return read_observations(np.asarray(observation)[None], rules, where)[0]


def _first_hot(block: np.ndarray) -> list[int]:
    """Per row of a 2-D block, the index of its first nonzero entry, -1 for none."""
    hot = block != 0
    found = np.logical_or.reduce(hot, axis=1).tolist()  # hot.any without its Python wrapper
    return [i if f else -1 for i, f in zip(hot.argmax(axis=1).tolist(), found, strict=True)]


@functools.lru_cache(maxsize=4096)
def _operator_string(counts: tuple[int, ...]) -> str:
    """ASCII operators of per-kind counts in ``+-*/`` order (``(1, 1, 0, 1)`` -> ``"+-/"``)."""
    return "".join(ch * k for ch, k in zip(solver.OPERATORS, counts, strict=True))


def read_observations(observations: np.ndarray, rules: RuleSet,
                      where: dict[str, slice] | None = None) -> list[TableView]:
    """Decode ``(B, D)`` observation vectors of ``rules`` into B :class:`TableView`, exactly
    as :func:`read_observation` one at a time: each array operation runs once on the whole
    batch (a batch agent pays NumPy's per-call cost once, not once per row)."""
    where = where or layout(rules)
    obs = np.asarray(observations)
    b, n, stack = len(obs), rules.num_players, float(rules.starting_stack)
    if obs.ndim != 2:
        raise ValueError(f"observations must be 2-D (B, D), got shape {obs.shape}")

    chip_fields = ("stacks", "wagers", "round_wagers", "pot", "cap", "to_call")
    lo = min(where[f].start for f in chip_fields)  # one slice holds them all
    chips = np.rint(obs[:, lo:max(where[f].stop for f in chip_fields)] * stack)
    chips = chips.astype(np.int64).tolist()
    at = {f: where[f].start - lo for f in chip_fields}
    phases = _first_hot(obs[:, where["phase"]])
    hiddens = _first_hot(obs[:, where["hidden"]])
    rounds = _first_hot(obs[:, where["betting_round"]])
    ops = np.rint(obs[:, where["operators"]]).astype(np.int64)
    ops = ops.reshape(b, n, NUM_OPERATOR_KINDS).tolist()
    solver_rows = obs[:, where["solver"]].tolist()
    roots = np.rint(obs[:, where["roots"]] * 3).astype(np.int64).tolist()
    in_hand = (obs[:, where["in_hand"]] > 0.5).tolist()
    face_up: list[list[list[int]]] = [[[] for _ in range(n)] for _ in range(b)]
    up = obs[:, where["face_up"]].reshape(b, n, cards.DECK_SIZE)
    for row, slot, card in zip(*(i.tolist() for i in np.nonzero(up)), strict=True):
        face_up[row][slot].append(card)
    up_deals = len(rules.base_operators)
    views = []
    for i in range(b):
        low = high = float("nan")
        sol = solver_rows[i]
        if sol[0] > 0.5:
            low = sol[2] * DISTANCE_SCALE if sol[1] > 0.5 else float("inf")
            high = sol[4] * DISTANCE_SCALE if sol[3] > 0.5 else float("inf")
        rnd, phase, row = rounds[i], phases[i], chips[i]
        views.append(TableView(
            phase=Phase(phase) if phase >= 0 else -1,
            hidden=hiddens[i],
            face_up=tuple(tuple(f) for f in face_up[i]),
            operators=tuple(_operator_string(tuple(row)) for row in ops[i]),
            roots=tuple(roots[i]), in_hand=tuple(in_hand[i]),
            stacks=tuple(row[at["stacks"]:at["stacks"] + n]),
            wagers=tuple(row[at["wagers"]:at["wagers"] + n]),
            round_wager=row[at["round_wagers"] + rnd * n] if rnd >= 0 else 0,
            betting_round=rnd, pot=row[at["pot"]], cap=row[at["cap"]],
            to_call=row[at["to_call"]],
            low_distance=low, high_distance=high, up_deals=up_deals,
        ))
    return views
