"""Stable-Baselines3's view of :class:`~hilo_env.envs.vector_env.HiLoVectorEnv`: a ``VecEnv``
with ``action_masks()``, which sb3-contrib's ``MaskablePPO`` takes as it is. Needs the
``train`` extra (stable-baselines3)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from hilo_env.envs.vector_env import HiLoVectorEnv


class HiLoSB3VecEnv(VecEnv):
    """A :class:`HiLoVectorEnv` as an SB3 ``VecEnv``; ``env_method("action_masks")`` returns
    each game's mask, as sb3-contrib's ``get_action_masks`` expects."""

    def __init__(self, env: HiLoVectorEnv) -> None:
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        obs, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        obs, rew, term, trunc, info = self.env.step(self._actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if "episode" in info:
            ep = info["episode"]
            for i in term.nonzero()[0]:
                infos[i]["episode"] = {"r": float(ep["r"][i]), "l": int(ep["l"][i])}
        return obs, rew, term | trunc, infos

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def _indices(self, indices: Any) -> list[int]:
        return list(self._get_indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self.env, attr_name)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        idx = self._indices(indices)
        if attr_name == "render_mode":
            return [None] * len(idx)
        if not hasattr(self.env, attr_name):
            raise AttributeError(f"HiLoVectorEnv has no attribute {attr_name!r}")
        return [getattr(self.env, attr_name)] * len(idx)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list[Any]:
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in idx]
        out = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [out] * len(idx)

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper],
                       indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))


def make_sb3_vec_env(env: HiLoVectorEnv) -> HiLoSB3VecEnv:
    """``env`` as a Stable-Baselines3 ``VecEnv`` with ``action_masks()`` (for MaskablePPO)."""
    return HiLoSB3VecEnv(env)
