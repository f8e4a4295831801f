"""One game of :class:`~hilo_env.envs.vector_env.HiLoVectorEnv` as a plain ``gymnasium.Env``:
a learner against opponent agents, for libraries that build their own vector envs from
single ones (Tianshou's ``DummyVectorEnv``, CleanRL-style loops).

    env = HiLoEnv("standard", opponents=agents.make("heuristic"), seed=0, mask="obs")
    obs, info = env.reset()          # obs = {"obs": (obs_size,) float32, "mask": (n,) bool}

``mask`` says where the learner's legal actions go: ``"info"`` (the default): the observation
is the ``Box`` vector and ``info["action_mask"]`` the mask; ``"obs"``: the observation is
``{"obs": Box, "mask": MultiBinary}``, the names Tianshou's policies read (``batch.obs.mask``).
Rewards and episodes are the vector env's: net chips of the hands between two decisions of
the learner, whose seat rotates from one episode to the next. The env restarts a finished
episode at once, so ``reset()`` after one returns the next episode's first observation (it
re-deals only when given a ``seed`` or ``options``, or before the first episode).
``illegal_action`` is the AEC envs' option (:mod:`hilo_env.envs.card_game_env`): ``"raise"``
(the default) refuses an illegal action; ``"lose"`` ends the episode with a reward of
:data:`~hilo_env.envs.card_game_env.ILLEGAL_PENALTY` and deals the next, so that checkers and
random warm-ups that act without the mask (``check_env``, ``collect(random=True)``) run.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from hilo_env.envs.card_game_env import ILLEGAL_PENALTY, illegal_action_policy
from hilo_env.envs.reset_options import reset_seed
from hilo_env.envs.vector_env import HiLoVectorEnv, Opponent
from hilo_env.equation_hilo.rules import RuleSet

MASK_PLACES = ("info", "obs")
"""Where :class:`HiLoEnv` puts the action mask."""


class HiLoEnv(gymnasium.Env):
    """A learner against opponents in one game of Equation Hi-Lo (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (gymnasium's own form)

    def __init__(self, rules: str | RuleSet = "standard", opponents: Opponent | None = None,
                 seed: int | None = None, mask: str = "info", illegal_action: str = "raise",
                 **overrides: Any) -> None:
        if mask not in MASK_PLACES:
            raise ValueError(f"mask is one of {list(MASK_PLACES)}, not {mask!r}")
        self.illegal_action = illegal_action_policy(illegal_action)
        self.vector = HiLoVectorEnv(rules, 1, opponents=opponents, seed=seed, **overrides)
        self.mask = mask
        box = self.vector.single_observation_space
        self.action_space = self.vector.single_action_space
        self.observation_space = box if mask == "info" else spaces.Dict(
            {"obs": box, "mask": spaces.MultiBinary(int(self.action_space.n))})
        self._next: np.ndarray | None = None

    def _out(self, obs: np.ndarray) -> tuple[Any, dict[str, Any]]:
        """The observation (a copy: the env keeps its own for a ``reset()`` that does not
        re-deal) and the mask, where ``mask`` says."""
        obs, mask = obs.copy(), self.vector.action_masks()[0]
        if self.mask == "info":
            return obs, {"action_mask": mask}
        return {"obs": obs, "mask": mask}, {}

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=reset_seed(seed))  # gymnasium's np_random, as its checker expects
        if seed is not None or options is not None or self._next is None:
            self._next = self.vector.reset(seed=seed, options=options)[0][0]
        return self._out(self._next)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.illegal_action == "lose" and self._forfeits(action):
            self._next = self.vector.reset()[0][0]  # the next episode, dealt now
            out, info = self._out(self._next)
            return out, ILLEGAL_PENALTY, True, False, info
        obs, rewards, terminated, _, _ = self.vector.step(np.asarray([action]).reshape(1))
        self._next = obs[0]
        out, info = self._out(obs[0])
        return out, float(rewards[0]), bool(terminated[0]), False, info

    def _forfeits(self, action: Any) -> bool:
        """Whether ``action`` is an action id the learner may not play now (an action that is
        no id of the space is left to the vector env, which refuses it)."""
        mask = self.vector.action_masks()[0]
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action[()]
        return isinstance(action, int | np.integer) and not isinstance(action, bool) and \
            0 <= action < len(mask) and not mask[action]
