"""The masks in ``info``, the observations as plain ``Box`` vectors: the form that libraries
which refuse ``Dict`` observations read (SuperSuit's wrappers, AgileRL, PufferLib, CleanRL-style
loops), for the AEC env of any of the three games and for its parallel view.

    from pettingzoo.utils.conversions import turn_based_aec_to_parallel
    env = turn_based_aec_to_parallel(mask_in_info(hilo_env.env()))
    observations, infos = env.reset(seed=0)      # observations[agent]: (obs_size,) float32
    infos[agent]["action_mask"]                  # (num_actions,) int8, zeros unless it acts

``infos[agent]`` is the game's infos (numbers only) plus ``action_mask`` (read-only), a fresh
dict at every read: a wrapper that writes into it (``turn_based_aec_to_parallel`` adds
``active_agent``) changes nothing underneath.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

MASK_INFO = "action_mask"
"""The info key of the action mask."""


class MaskInInfo(BaseWrapper):
    """An AEC env with ``Dict(observation, action_mask)`` observations as one with ``Box``
    observations and the mask in ``infos[agent]["action_mask"]``."""

    def observation_space(self, agent: str) -> spaces.Space:
        return self.env.observation_space(agent)["observation"]

    def observe(self, agent: str) -> np.ndarray:
        return self.env.observe(agent)["observation"]

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self.masks: dict[str, np.ndarray] = {}
        """Each agent's last mask handed out, read-only: the same object while it holds, so
        that ``last()``'s info and ``infos[agent]`` compare equal (PettingZoo's api_test)."""

    def mask(self, agent: str) -> np.ndarray:
        """``agent``'s action mask now, read-only (a copy of the env's own)."""
        mask = self.env.observe(agent)["action_mask"]
        kept = self.masks.get(agent)
        if kept is None or not np.array_equal(kept, mask):
            mask.flags.writeable = False
            self.masks[agent] = kept = mask
        return kept

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        return {a: {**info, MASK_INFO: self.mask(a)} for a, info in self.env.infos.items()}


def mask_in_info(env: AECEnv) -> MaskInInfo:
    """``env`` (an AEC env of this package, wrapped or raw) with ``Box`` observations and the
    action mask in ``infos``."""
    return MaskInInfo(env)
