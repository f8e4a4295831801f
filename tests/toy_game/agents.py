"""Swap's agents by name: ``random`` and the rule-based ``keeper``."""

from __future__ import annotations

import numpy as np

from hilo_env.agents.base import Agent
from hilo_env.agents.baselines import RandomAgent


class KeeperAgent(Agent):
    """Keeps a card in the top half of the deck, swaps a lower one."""

    name = "keeper"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        card = int(np.flatnonzero(observation)[0])
        return 0 if 2 * card >= self.rules.deck_size else 1


AGENTS = {"random": RandomAgent, "keeper": KeeperAgent}
