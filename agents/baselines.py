"""Baseline policies: ``random``, ``caller`` and the solver-informed ``heuristic``.

All three read only their own observation and always return a legal action. Each plays a
batch faster than ``act`` row by row, and does so only while ``act`` is its own: a subclass
that overrides ``act`` is played through that ``act`` in batch play too (tournaments, the
gauntlet, ``HiLoVectorEnv``), observations included (:func:`~agents.base.overrides_act`).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np

from hilo_env.agents.base import Agent, check_observations, overrides_act
from hilo_env.agents.equity import Estimator
from hilo_env.agents.table_view import (
    TableReader,
    TableView,
    read_observation,
    read_observations,
)
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards, solver
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.sampling import sample_legal

_DISCARD_ACTIONS = (A.DISCARD_PLUS, A.DISCARD_MINUS, A.DISCARD_MULTIPLY)
_RECENT = 4096
"""Equity results the heuristic keeps for the cards it saw last: enough for every table of a
training batch (one heuristic plays 64-128 games at once), not only for one game's."""


def after_discard(ops: str, action: int) -> str:
    """Operators (canonical ASCII) once ``action`` has given one up for the new ×."""
    left = ops.replace(A.DISCARDED_OPERATOR[action], "", 1)
    return solver.canonical_operators(left + "*")


def _legal(mask: np.ndarray) -> np.ndarray:
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise ValueError("the action mask allows no action: nobody may act in this state")
    return legal


class RandomAgent(Agent):
    """Uniform over the legal actions (every raise size counts as one action, so it raises
    most of the time and rarely folds or calls). It reads no observation."""

    name = "random"

    @property
    def observes(self) -> bool:  # type: ignore[override]
        """False: batch callers may pass no observations; True for a subclass's own ``act``,
        which may read them."""
        return overrides_act(self, RandomAgent)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(sample_legal(np.asarray(action_mask)[None], self.rng)[0])

    def act_batch(self, observations: np.ndarray | None, masks: np.ndarray) -> np.ndarray:
        if overrides_act(self, RandomAgent):
            return super().act_batch(observations, masks)
        return sample_legal(masks, self.rng)

    def action_probabilities(self, observation: np.ndarray | None,
                             action_mask: np.ndarray) -> np.ndarray:
        """The distribution it plays: uniform over the legal actions (for exact
        exploitability, ``envs.openspiel_policy``)."""
        legal = np.asarray(action_mask, dtype=bool)
        return legal / legal.sum()


class CallerAgent(TableReader):
    """A calling station: checks or calls, never raises or folds.

    Declares the side its own best distance is smaller on (Low on a tie, never Swing). After a
    ×, keeps the operators that give its best equation (the smallest of its Low and High
    distances) once its four numbers are known, else gives up the first legal operator.
    """

    name = "caller"
    deterministic = True

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        check_observations(self, observation, self.observation_size)
        return self._act(lambda: read_observation(observation, self.rules, self.layout),
                         action_mask)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions of :meth:`act` row by row, the observations of the rows that need
        them (declarations and discards) decoded all at once (:func:`read_observations`); a
        subclass's own ``act`` row by row."""
        if overrides_act(self, CallerAgent):
            return super().act_batch(observations, masks)
        check_observations(self, observations, self.observation_size)
        masks = np.asarray(masks)
        needs = (masks[:, A.DECLARE_LOW] != 0) | masks[:, list(_DISCARD_ACTIONS)].any(axis=1)
        rows = np.flatnonzero(needs)
        views = dict(zip(rows.tolist(), read_observations(
            np.asarray(observations)[rows], self.rules, self.layout) if rows.size else [],
            strict=True))
        return np.array([self._act(lambda i=i: views[i], m) for i, m in enumerate(masks)],
                        dtype=np.int64)

    def _act(self, view: Callable[[], TableView], action_mask: np.ndarray) -> int:
        """:meth:`act` given ``view()``, which reads the observation (only asked for when
        declaring or discarding)."""
        legal = _legal(action_mask)
        if A.CHECK in legal:
            return A.CHECK
        if A.CALL in legal:
            return A.CALL
        if action_mask[A.DECLARE_LOW]:
            seen = view()
            low, high = seen.low_distance, seen.high_distance
            return A.DECLARE_HIGH if high < low else A.DECLARE_LOW  # nan compares False
        discards = [a for a in _DISCARD_ACTIONS if action_mask[a]]
        if discards:
            return self._discard(view(), discards)
        return int(legal[0])

    def _discard(self, view: TableView, discards: list[int]) -> int:
        if view.up_deals_left(0) > 0:
            return discards[0]
        values = [c // cards.NUM_SUITS for c in view.numbers(0)]

        def best(action: int) -> float:
            sol = solver.solve(values, after_discard(view.operators[0], action), view.roots[0],
                               integer_results=self.rules.integer_results)
            return min((e.distance for e in (sol.low, sol.high) if e is not None),
                       default=float("inf"))

        return min(discards, key=best)


class HeuristicAgent(TableReader):
    """Rule-based and solver-informed: plays its showdown equity against what it can see.

    *Equity* is the expected share of the final pot, from :class:`agents.equity.Estimator`: its
    own best distances (exact once its hand is full, else over a seeded sample of the cards
    to come) against each opponent's distances over the hidden cards the opponent may hold
    (exact, tie-break included, once the opponent's face-up cards are all dealt), with the
    opponent declaring the side its distance is smaller on, and itself picking the best
    declaration for each of its possible hands.

    * **Bet.** Fold when calling loses money at the pot odds (equity below
      ``to_call / (pot + to_call)`` plus a margin); check when it may. Raise with equity of
      ``raise_equity`` or more, by half the pot (by the pot above ``pot_equity``), to the cap
      above ``shove_equity``; once it has put chips in this round it only calls a re-raise
      unless it would go to the cap.
    * **Discard (after a ×).** The operator whose loss leaves the higher equity.
    * **Declare.** Low, High or Swing, whichever has the highest expected share.
    """

    name = "heuristic"
    deterministic = True
    """Its actions are a function of its observation (and its seed): heads-up its equity is
    exact or sampled with seeds of the cards alone; against several opponents their field is
    drawn from a generator seeded by the cards on the table and its own seed."""

    def __init__(self, rules: RuleSet, seed: int | None = 0, *, raise_equity: float = 0.62,
                 pot_equity: float = 0.72, shove_equity: float = 0.85,
                 call_margin: float = 0.02) -> None:
        super().__init__(rules, seed)
        self.estimator = Estimator.shared(rules)
        self._salt = int(self.rng.integers(2**63))  # the seed's part of every field's seed
        self._recent: dict[tuple, np.ndarray] = {}
        self.raise_equity, self.pot_equity = raise_equity, pot_equity
        self.shove_equity, self.call_margin = shove_equity, call_margin

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        check_observations(self, observation, self.observation_size)
        return self._act(read_observation(observation, self.rules, self.layout), action_mask)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions of :meth:`act` row by row, in order (the same draws of its generator),
        with the observations decoded all at once (:func:`read_observations`); a subclass's
        own ``act`` row by row."""
        if overrides_act(self, HeuristicAgent):
            return super().act_batch(observations, masks)
        check_observations(self, observations, self.observation_size)
        views = read_observations(observations, self.rules, self.layout)
        return np.array([self._act(v, m) for v, m in zip(views, masks, strict=True)],
                        dtype=np.int64)

    def _act(self, view: TableView, action_mask: np.ndarray) -> int:
        legal = _legal(action_mask)
        if action_mask[A.DECLARE_LOW]:
            return self._declare(view, legal)
        discards = [a for a in _DISCARD_ACTIONS if action_mask[a]]
        if discards:
            return self._discard(view, discards)
        return self._bet(view, legal)

    def shares(self, view: TableView, ops: str | None = None) -> np.ndarray:
        """:meth:`Estimator.shares`, remembered for the cards on the table (a betting round
        and the declaration after it see the same cards). The opponents' field at 3+ players
        is drawn from a generator seeded by those cards and the agent's seed, so the same
        observation always gets the same equity (:attr:`deterministic`)."""
        key = (view.hidden, view.face_up, view.operators, view.roots, view.in_hand, ops)
        got = self._recent.get(key)
        if got is None:
            if len(self._recent) >= _RECENT:
                self._recent.clear()
            rng = np.random.default_rng([self._salt, zlib.crc32(repr(key).encode())])
            got = self._recent[key] = self.estimator.shares(view, ops, rng)
        return got

    def equity(self, view: TableView, ops: str | None = None) -> float:
        """Expected share of the final pot, choosing the best declaration for each of our
        possible hands."""
        best = np.maximum.reduce(self.shares(view, ops), axis=1)
        return float(np.add.reduce(best) / best.size)  # .mean()'s sum and division, unwrapped

    def _declare(self, view: TableView, legal: np.ndarray) -> int:
        shares = self.shares(view).mean(axis=0)
        options = [int(a) for a in legal if a in A.DECLARATIONS]
        return max(options, key=lambda a: shares[a - A.DECLARE_LOW])

    def _discard(self, view: TableView, discards: list[int]) -> int:
        return max(discards, key=lambda a: self.equity(view, after_discard(view.operators[0],
                                                                             a)))

    def _bet(self, view: TableView, legal: np.ndarray) -> int:
        eq = self.equity(view)
        pot, to_call, high = view.pot, view.to_call, view.highest_wager
        passive = A.CHECK if to_call == 0 else A.CALL
        if to_call > 0 and eq * (pot + to_call) < to_call + self.call_margin * (pot + to_call):
            return A.FOLD
        raises = legal[legal >= A.FIRST_RAISE]
        if raises.size == 0 or eq < self.raise_equity:
            return passive
        if eq >= self.shove_equity:
            total = view.cap
        elif view.round_wager > 0:
            return passive  # already in this round: no raise war short of the cap
        else:
            fraction = 1.0 if eq >= self.pot_equity else 0.5
            total = high + max(1, round((pot + to_call) * fraction))
        total = min(max(total, high + 1), view.cap)
        return A.raise_to(total)
