"""Helpers for the tests: stacked-deck games driven by action strings, recorded AEC games, and
a registered agent that samples its actions, random play of an OpenSpiel state."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from hilo_env import agents
from hilo_env.agents.base import Agent
from hilo_env.agents.registry import unregister
from hilo_env.equation_hilo.actions import string_to_action
from hilo_env.equation_hilo.engine import Game
from hilo_env.equation_hilo.rules import RuleSet


def make_game(deck: list[str], preset: str = "standard", seed: int = 0, **overrides) -> Game:
    """A game of ``preset`` whose deck starts with ``deck`` (text forms, top first)."""
    return Game(RuleSet.preset(preset, **overrides), np.random.default_rng(seed), deck)


def play(game: Game, *moves: str) -> Game:
    """Apply action strings in order, failing loudly on an illegal one."""
    for move in moves:
        game.step(string_to_action(move))
    return game


def record_aec(rules: RuleSet, players: list, episodes: int = 1
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every decision of ``episodes`` AEC games (reset with seeds 0, 1, ...), seat ``i``
    played by ``players[i]``: ``(observations, masks, actions)``, one row per decision."""
    from hilo_env import env as make_env

    aec = make_env(rules=rules)
    table = dict(zip(aec.possible_agents, players, strict=True))
    observations, masks, actions = [], [], []
    for episode in range(episodes):
        aec.reset(seed=episode)
        for name in aec.agent_iter():
            obs, _, term, trunc, _ = aec.last()
            if term or trunc:
                aec.step(None)
                continue
            observations.append(obs["observation"])
            masks.append(obs["action_mask"])
            actions.append(int(table[name].act(obs["observation"], obs["action_mask"])))
            aec.step(actions[-1])
    return np.array(observations), np.array(masks, dtype=bool), np.array(actions)


class Coin(Agent):
    """A stochastic agent without probabilities of its own: what needs them must refuse it."""

    name = "coin"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(action_mask)))


@contextmanager
def registered_coin() -> Iterator[str]:
    """:class:`Coin` registered as ``coin`` for the block; its name."""
    agents.register(Coin.name, Coin)
    try:
        yield Coin.name
    finally:
        unregister(Coin.name)


def random_history(state, rng):
    """Play on at random; the final state and every state passed."""
    seen = []
    while not state.is_terminal():
        seen.append(state.clone())
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state, seen
