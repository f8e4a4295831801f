"""The one interface every policy of every game implements.

An agent is built for one game's rule set (it fixes the observation and action spaces) and a
``seed`` (its only source of randomness), then asked for actions::

    agent.act(observation, action_mask) -> int           # one decision
    agent.act_batch(observations, masks) -> np.ndarray   # (B, D), (B, A) -> (B,)

``observation`` is the flat float32 vector the game's env gives the agent's seat (its
``observation.py``) and ``action_mask`` the int8 mask of legal action ids. An agent must return
a legal action. How a game's agents read the vector back is theirs (Equation Hi-Lo's:
:mod:`agents.table_view`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np


class Agent(ABC):
    """A policy for one rule set of one game: ``act`` for one decision, ``act_batch`` for
    many. The game's observation and mask are all it sees."""

    name: str = "agent"
    observes: bool = True
    """False for an agent that ignores observations: batch callers may then pass none."""

    def __init__(self, rules: Any, seed: int | None = 0) -> None:
        """``rules``: the game's rule set (its ``rules.py``'s ``RuleSet``)."""
        self.rules = rules
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action id for one observation and its action mask."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for a batch: ``(B, D)`` observations, ``(B, A)`` masks -> int64 ``(B,)``."""
        return np.array([self.act(o, m) for o, m in zip(observations, masks, strict=True)],
                        dtype=np.int64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seed={self.seed!r})"
