"""Agents and RLlib's modules, both ways (Ray RLlib's new API stack); needs the ``rllib``
extra. Ray and torch load with this module, which the registry imports only when an
``rllib:`` agent is made.

| name                     | what                                                            |
|--------------------------|-----------------------------------------------------------------|
| :class:`MaskedPPOModule` | RLlib's default PPO torch module with illegal actions masked:   |
|                          | it reads ``{"observations", "action_mask"}`` (:data:`OBS_KEY`,  |
|                          | :data:`MASK_KEY`), builds its networks for the observation only |
|                          | and sets the logits of illegal actions to the lowest float      |
| :class:`AgentModule`     | a registered agent (``heuristic``, ``caller``, ``random``) as a |
|                          | fixed RLlib module: actions straight from ``act_batch``         |
| :class:`RLlibAgent`      | a saved :class:`MaskedPPOModule` as an agent: ``rllib:PATH``    |

``rllib:PATH`` takes the folder of a saved module (:func:`save_policy` writes it, with the
game and rules it was trained under as ``rules.yaml`` inside) or an RLlib algorithm checkpoint
(the module ``shared`` inside it is played), of any game of the registry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
import yaml
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from hilo_env.agents.base import ModelAgent, check_observations
from hilo_env.agents.ppo import game_of, read_rules, rules_record, trained_rules_note
from hilo_env.rllib_obs import MASK_KEY, OBS_KEY

SHARED = "shared"
"""The module id of the policy that every seat shares and that learns."""
RULES_FILE = "rules.yaml"
"""The game and rules a saved policy was trained under, inside its folder (absent game:
Equation Hi-Lo)."""
MODULE_IN_CHECKPOINT = Path("learner_group", "learner", "rl_module", SHARED)
"""Where an algorithm checkpoint keeps the shared policy's module."""


def split_observation(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(the action mask, a shallow copy of ``batch`` whose observation is the observation
    alone): the batch itself is left as it is, for the other calls that read it."""
    obs = batch[Columns.OBS]
    return obs[MASK_KEY], {**batch, Columns.OBS: obs[OBS_KEY]}


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module (torch) on the observation, its logits masked.

    The networks are built for ``observation_space[OBS_KEY]``; ``observation_space`` stays
    the dict, so the module's spec and checkpoints rebuild the same module.
    """

    def __init__(self, *, observation_space: gym.spaces.Dict | None = None,
                 **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or {OBS_KEY, MASK_KEY} - set(
                observation_space.spaces):
            raise ValueError(f"MaskedPPOModule needs a Dict observation space with keys "
                             f"{OBS_KEY!r} and {MASK_KEY!r}, not {observation_space}")
        self.masked_space = observation_space
        super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        super().setup()  # builds the networks for the observation alone
        self.observation_space = self.masked_space

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = split_observation(batch)
        return self._masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = split_observation(batch)
        return self._masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if embeddings is None and isinstance(batch[Columns.OBS], dict):
            batch = split_observation(batch)[1]
        return super().compute_values(batch, embeddings)

    @staticmethod
    def _masked(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        """Illegal actions' logits at the lowest float: they are never sampled."""
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = torch.where(mask > 0.5, logits,
                                                      torch.full_like(logits, FLOAT_MIN))
        return out


def to_numpy(x: Any) -> np.ndarray:
    """A torch tensor or an array as a NumPy array."""
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


class AgentModule(RLModule):
    """A registered agent as a fixed RLlib module (never trained: leave it out of
    ``policies_to_train``). ``model_config``: ``agent`` (a name), ``rules`` (a RuleSet or a
    preset), ``seed``, ``game`` (absent: Equation Hi-Lo)."""

    def setup(self) -> None:
        from hilo_env.agents.registry import make  # the registry imports this module lazily

        config = dict(self.model_config or {})
        self.agent = make(config["agent"], config.get("rules"), seed=config.get("seed", 0),
                          game=config.get("game"))

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        actions = self.agent.act_batch(to_numpy(obs[OBS_KEY]).astype(np.float32),
                                       to_numpy(obs[MASK_KEY]).astype(np.int8))
        return {Columns.ACTIONS: np.asarray(actions, np.int64)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError(f"{self.agent.name!r} is a fixed opponent: leave it out of "
                                  "policies_to_train")


def save_policy(module: RLModule, path: str | Path, rules: Any) -> Path:
    """Save a trained module in the folder ``path``, with the game and rules (any game's
    RuleSet) it was trained under."""
    path = Path(path).resolve()
    module.save_to_path(path)
    (path / RULES_FILE).write_text(yaml.safe_dump(rules_record(rules, game_of(rules)),
                                                  sort_keys=False))
    return path


def module_folder(path: str | Path) -> Path:
    """The folder of the module saved at ``path``: a module folder itself, or the shared
    policy's inside an algorithm checkpoint."""
    path = Path(path)
    inside = path / MODULE_IN_CHECKPOINT
    return inside if inside.is_dir() else path


class RLlibAgent(ModelAgent):
    """Plays a saved :class:`MaskedPPOModule`; it loads, and is checked, when the agent is
    made. ``deterministic`` picks the most likely legal action; otherwise actions are sampled
    (seeded by ``seed``). ``rules`` is a RuleSet of any game: the policy plays that game. A
    policy of another game is refused, and one trained under other rules (naming the fields)
    unless they differ only in match fields or ``allow_other_rules`` (as :mod:`agents.ppo`)."""

    def __init__(self, rules: Any, path: str | Path, seed: int | None = 0,
                 deterministic: bool = True, allow_other_rules: bool = False) -> None:
        super().__init__(rules, seed)
        self.game = game_of(rules)
        env = self.game.raw_env(rules)
        seat = env.possible_agents[0]
        self._size = env.observation_space(seat)["observation"].shape[0]
        self._actions = int(env.action_space(seat).n)
        self.path = Path(path)
        self.name = f"rllib:{path}"
        self.deterministic = deterministic
        folder = module_folder(path)
        if not folder.is_dir():
            raise FileNotFoundError(f"agent {self.name!r}: no saved policy folder "
                                    f"{str(self.path)!r}")
        self._check_rules(folder, allow_other_rules)
        if torch.get_num_threads() > 1:  # one small forward pass at a time
            torch.set_num_threads(1)
        try:
            self.module = RLModule.from_checkpoint(folder.resolve())
        except Exception as exc:  # RLlib raises whatever the files and torch raise
            raise ValueError(f"agent {self.name!r}: cannot read the policy in "
                             f"{str(folder)!r} ({type(exc).__name__}: {exc})"[:500]) from exc
        self.module.eval()
        self._check_spaces()
        self._generator = torch.Generator().manual_seed(0 if seed is None else seed)

    def _check_rules(self, folder: Path, allow_other_rules: bool) -> None:
        path = folder / RULES_FILE
        if path.is_file():
            game, trained = read_rules(path)
            if game.name != self.game.name:
                raise ValueError(f"agent {self.name!r} is a policy of {game.title}, not of "
                                 f"{self.game.title}")
            self.rules_note = trained_rules_note(self.name, game, trained, self.rules,
                                                 allow_other_rules)

    def _check_spaces(self) -> None:
        space = self.module.observation_space
        shape = space[OBS_KEY].shape if isinstance(space, gym.spaces.Dict) else None
        size, actions = self._size, self._actions
        if shape != (size,) or getattr(self.module.action_space, "n", None) != actions:
            raise ValueError(f"agent {self.name!r}: the policy observes {space} and chooses "
                             f"among {self.module.action_space}, but these rules give "
                             f"observations of shape ({size},) and {actions} actions")

    def model_actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's actions for a batch (what :meth:`act` and :meth:`act_batch` play)."""
        observations = check_observations(self, observations, self._size)
        masks = np.asarray(masks)
        if not masks.any(axis=-1).all():
            raise ValueError("an action mask allows no action: nobody may act in this state")
        batch = {Columns.OBS: {OBS_KEY: torch.as_tensor(np.asarray(observations, np.float32)),
                               MASK_KEY: torch.as_tensor(masks.astype(np.float32))}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
            if self.deterministic:
                actions = logits.argmax(dim=-1)
            else:
                actions = torch.multinomial(torch.softmax(logits, -1), 1,
                                            generator=self._generator)[:, 0]
        return actions.numpy().astype(np.int64)
