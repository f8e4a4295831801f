"""PettingZoo's wrappers for classic games, layered the same way on every game's AEC env."""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from hilo_env.envs.card_game_env import CardGameEnv


class ActionIdWrapper(wrappers.BaseWrapper):
    """Refuses an action that is no id of the action space before the wrappers below see it:
    a TypeError for a non-integer (``True``, ``2.5``, ``None`` from an agent still to act), a
    ValueError for an integer outside the space (``10**20`` included), each naming the value
    (PettingZoo's ``AssertOutOfBoundsWrapper`` fails on these with NumPy's errors). A finished
    agent's ``None`` passes.

    It also hands out copies of the observations from below: PettingZoo's
    ``TerminateIllegalWrapper`` keeps the last one it passed up and checks the next action
    against its mask, so a caller that changed that mask would change the check."""

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = super().observe(agent)
        return {"observation": obs["observation"].copy(),
                "action_mask": obs["action_mask"].copy()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if not (action is None and (self.terminations[agent] or self.truncations[agent])):
            action = self.unwrapped.action_id(action)
        super().step(action)


def wrap(raw: CardGameEnv) -> AECEnv:
    """``raw`` under PettingZoo's wrappers for classic games: an illegal action ends the
    episode with a penalty of -1, an action that is no id of the space raises
    (:class:`ActionIdWrapper`), and calls out of order raise."""
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = ActionIdWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
