"""Swap as a plain PettingZoo AEC env (no hilo_env base class: any AEC env will do)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tests.toy_game import game as G


class raw_env(AECEnv):
    """Swap, masked actions; rewards at the end."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": [], "name": "swap_v0",
                                          "is_parallelizable": False}

    def __init__(self, rules: str | G.RuleSet = "standard", **overrides: Any) -> None:
        super().__init__()
        self.rules = G.resolve(rules, **overrides)
        self.possible_agents = [f"player_{s}" for s in range(self.rules.num_players)]
        self.agents = self.possible_agents[:]
        space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.rules.deck_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (G.NUM_ACTIONS,), np.int8)})
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: spaces.Discrete(G.NUM_ACTIONS) for a in self.possible_agents}
        self.game: G.Game | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.game = G.Game(self.rules, np.random.default_rng(seed))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        mask = G.action_mask(self.game) if self.game.current_player == seat else \
            np.zeros(G.NUM_ACTIONS, dtype=np.int8)
        return {"observation": G.encode(self.game, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.game.step(int(action))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: self.game.payoffs[s] for s, a in enumerate(self.possible_agents)}
        self._accumulate_rewards()
        if self.game.current_player is None:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
