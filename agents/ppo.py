"""A MaskablePPO model (sb3-contrib) as an agent; torch and stable-baselines3 load lazily."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hilo_env.agents.base import Agent
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.observation import observation_size
from hilo_env.equation_hilo.rules import RuleSet

INSTALL_HINT = "pip install -e '.[train]'  (torch, stable-baselines3, sb3-contrib)"


class PPOAgent(Agent):
    """Plays a saved MaskablePPO policy; the model loads on the first decision.

    The model must have been trained on this rule set's observation: either the flat vector
    (a ``Box``) or a ``Dict`` with ``observation`` and ``action_mask`` keys. ``deterministic``
    picks the most likely legal action; otherwise actions are sampled (seeded by ``seed``).
    :meth:`of_model` plays a model already in memory (a frozen snapshot during training).
    """

    def __init__(self, rules: RuleSet, path: str | Path, seed: int | None = 0,
                 deterministic: bool = True) -> None:
        super().__init__(rules, seed)
        self.path = Path(path)
        self.name = f"ppo:{path}"
        self.deterministic = deterministic
        self._model: Any = None
        self._dict_obs = False

    @classmethod
    def of_model(cls, rules: RuleSet, model: Any, name: str = "ppo",
                 deterministic: bool = False) -> PPOAgent:
        """An agent playing ``model`` as it is (copy or reload it first to freeze it); its
        actions are sampled from the model's own random state unless ``deterministic``."""
        agent = cls(rules, name, seed=None, deterministic=deterministic)
        agent.name = name
        agent._model = agent._checked(model)
        return agent

    def load(self) -> Any:
        """The model, loaded on first use; ImportError with the install line if sb3 is missing."""
        if self._model is not None:
            return self._model
        try:
            import torch
            from sb3_contrib import MaskablePPO
        except ImportError as exc:
            raise ImportError(f"agent {self.name!r} needs the training extra: "
                              f"{INSTALL_HINT}") from exc
        if not self.path.is_file():
            raise FileNotFoundError(f"agent {self.name!r}: no model file {str(self.path)!r}")
        if torch.get_num_threads() > 1:  # one small forward pass at a time: threads only contend
            torch.set_num_threads(1)
        model = MaskablePPO.load(str(self.path), device="cpu")
        if self.seed is not None:
            model.set_random_seed(self.seed)
        self._model = self._checked(model)
        return self._model

    def _checked(self, model: Any) -> Any:
        """``model``, once its spaces are found to fit these rules."""
        space = model.observation_space
        self._dict_obs = hasattr(space, "spaces") and "observation" in space.spaces
        shape = space["observation"].shape if self._dict_obs else space.shape
        size = observation_size(self.rules)
        if tuple(shape) != (size,):
            raise ValueError(f"agent {self.name!r}: the model observes shape {tuple(shape)}, "
                             f"but these rules give observations of shape ({size},)")
        actions = A.num_actions(self.rules.max_cap)
        if getattr(model.action_space, "n", None) != actions:
            raise ValueError(f"agent {self.name!r}: the model chooses among "
                             f"{getattr(model.action_space, 'n', model.action_space)} actions, "
                             f"but these rules have {actions} (raises up to {self.rules.max_cap})")
        return model

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        model = self.load()
        obs: Any = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        if self._dict_obs:
            obs = {"observation": obs, "action_mask": masks.astype(np.int8)}
        actions, _ = model.predict(obs, action_masks=masks, deterministic=self.deterministic)
        return np.asarray(actions, dtype=np.int64).reshape(-1)
