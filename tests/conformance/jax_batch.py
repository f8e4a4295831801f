"""The JAX backend behind the batch API the conformance suite drives (``VectorGame``'s
``observe``, ``action_masks``, ``step``, ``current_player``, ``reset(decks=, hand_seeds=)``):
``jit(vmap(...))`` of :class:`EquationHiLo`'s functions; a finished match restarts in the same
step (as pgx's ``auto_reset`` does, and the NumPy simulator) from the ``deal_source``.

The ``deal_source`` is asked for every game's next deck at every step; a game uses it only if
its hand or match ends there (so its record of the last deal is the one used)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from hilo_env.equation_hilo.jax_backend import EquationHiLo, State
from hilo_env.equation_hilo.jax_chance import hand_seed_words
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.equation_hilo.vector import StepResult

FAST_COMPILE = {"xla_llvm_disable_expensive_passes": True, "xla_backend_optimization_level": 0}
"""XLA options that halve the compile of a rule set (slower code, but tests run few steps)."""


@functools.cache
def compiled(rules: RuleSet) -> tuple[EquationHiLo, Callable, Callable]:
    """(env, play, observe) batched and jitted, once per rule set: ``play`` serves the first
    deal, the steps and the restarts, so the deal loop is compiled once."""
    env = EquationHiLo(rules)
    return env, *(jax.jit(jax.vmap(f), compiler_options=FAST_COMPILE)
                  for f in (env.play, env.observe))


@jax.jit
def where_games(over: jax.Array, a: State, b: State) -> State:
    """``a`` in the games that are ``over``, ``b`` in the others."""
    return jax.tree_util.tree_map(
        lambda x, y: jnp.where(over.reshape(over.shape + (1,) * (x.ndim - 1)), x, y), a, b)


class JaxBatch:
    """``num_games`` matches of the JAX backend, as the suite drives a batch backend."""

    def __init__(self, rules: RuleSet, num_games: int,
                 deal_source: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None,
                 seed: int = 0) -> None:
        self.env, self._play, self._observe = compiled(rules)
        self.num_games = num_games
        self.num_actions = self.env.num_actions
        rng = np.random.default_rng(seed)
        self.deal_source = deal_source or (lambda g: (
            np.argsort(rng.random((g.size, 52)), axis=1), rng.integers(0, 2**63, g.size)))
        decks, seeds = self._deal()
        shapes = jax.eval_shape(jax.vmap(self.env.init_from_deal), decks, seeds)
        self.state = jax.tree_util.tree_map(lambda a: jnp.zeros(a.shape, a.dtype), shapes)
        self._restart(np.ones(num_games, bool), decks, seeds)

    def _deal(self) -> tuple[np.ndarray, np.ndarray]:
        decks, seeds = self.deal_source(np.arange(self.num_games))
        return np.asarray(decks, np.int32), hand_seed_words(seeds)

    def _restart(self, over: np.ndarray, decks: np.ndarray, seeds: np.ndarray) -> None:
        """New matches in the games that are ``over``."""
        fresh = self._play(self.state, np.zeros(self.num_games, np.int32), decks, seeds, over)
        self.state = fresh if over.all() else where_games(over, fresh, self.state)

    def reset(self, decks: np.ndarray | None = None, hand_seeds: np.ndarray | None = None) -> None:
        dealt_decks, dealt_seeds = self._deal()
        if decks is not None:
            dealt_decks = np.asarray(decks, np.int32)
        if hand_seeds is not None:
            dealt_seeds = hand_seed_words(hand_seeds)
        self._restart(np.ones(self.num_games, bool), dealt_decks, dealt_seeds)

    @property
    def current_player(self) -> np.ndarray:
        return np.asarray(self.state.current_player)

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.state.legal_action_mask).astype(np.int8)

    def observe(self, games: np.ndarray | None = None, seats: np.ndarray | None = None) -> Any:
        if games is None:
            return np.asarray(self.state.observation)
        picked = jax.tree_util.tree_map(lambda a: a[np.asarray(games)], self.state)
        return np.asarray(self._observe(picked, np.asarray(seats, np.int32)))

    def step(self, actions: np.ndarray) -> StepResult:
        decks, seeds = self._deal()
        self.state = state = self._play(self.state, np.asarray(actions, np.int32), decks, seeds,
                                        np.zeros(self.num_games, bool))
        over = np.asarray(state.terminated)
        if over.any():
            self._restart(over, decks, seeds)
        return StepResult(np.asarray(state.rewards).astype(np.int64),
                          np.asarray(state.hand_over), over)
