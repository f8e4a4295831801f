"""The JAX backend behind the batch API the conformance suite drives (``VectorGame``'s
``observe``, ``action_masks``, ``step``, ``current_player``, ``reset(decks=, hand_seeds=)``):
``jit(vmap(...))`` of :class:`EquationHiLo`'s functions, a finished match restarted in the same
step (pgx's auto-reset) from the ``deal_source``'s deck and seed, as the NumPy simulator does.

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


@functools.cache
def compiled(rules: RuleSet) -> tuple[EquationHiLo, Callable, Callable, Callable]:
    """(env, init, step, observe) batched and jitted, once per rule set."""
    env = EquationHiLo(rules)
    init = jax.jit(jax.vmap(env.init_from_deal))

    @jax.jit
    def step(state: State, actions: jax.Array, decks: jax.Array,
             seeds: jax.Array) -> tuple[State, State]:
        stepped = jax.vmap(env.step_with_deal)(state, actions, decks, seeds)
        fresh = jax.vmap(env.init_from_deal)(decks, seeds)
        over = stepped.terminated
        return jax.tree_util.tree_map(
            lambda a, b: jnp.where(over.reshape(over.shape + (1,) * (a.ndim - 1)), a, b),
            fresh, stepped), stepped

    observe = jax.jit(jax.vmap(env.observe))
    return env, init, step, observe


class JaxBatch:
    """``num_games`` matches of the JAX backend, as the suite drives a batch backend."""

    def __init__(self, rules: RuleSet, num_games: int,
                 deal_source: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None,
                 seed: int = 0) -> None:
        self.env, self._init, self._step, self._observe = compiled(rules)
        self.num_games = num_games
        self.num_actions = self.env.num_actions
        rng = np.random.default_rng(seed)
        self.deal_source = deal_source or (lambda g: (
            np.argsort(rng.random((g.size, 52)), axis=1), rng.integers(0, 2**63, g.size)))
        self.reset()

    def _deal(self) -> tuple[np.ndarray, np.ndarray]:
        decks, seeds = self.deal_source(np.arange(self.num_games))
        return np.asarray(decks, np.int32), hand_seed_words(seeds)

    def reset(self, decks: np.ndarray | None = None, hand_seeds: np.ndarray | None = None) -> None:
        dealt_decks, dealt_seeds = self._deal()
        if decks is not None:
            dealt_decks = np.asarray(decks, np.int32)
        if hand_seeds is not None:
            dealt_seeds = hand_seed_words(hand_seeds)
        self.state = self._init(dealt_decks, dealt_seeds)

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
        self.state, stepped = self._step(self.state, np.asarray(actions, np.int32), *self._deal())
        return StepResult(np.asarray(stepped.rewards).astype(np.int64),
                          np.asarray(stepped.hand_over), np.asarray(stepped.match_over))
