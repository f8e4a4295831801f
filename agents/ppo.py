"""A MaskablePPO model (sb3-contrib) as an agent; torch and stable-baselines3 load when an
agent is made, not when this module is imported.

A model keeps the rules it was trained under beside it: ``model.zip`` has ``model.rules.yaml``
(:func:`save_model` writes both). An agent made for other rules is refused, naming the fields
that differ, unless ``allow_other_rules`` is set; a model without the file is checked by its
spaces alone.

It also keeps the observation slices it reads, ``model.observation.yaml`` (the names of
:func:`observation.layout`, in order). The observation grows when the game shows more (the
``round_raises`` slice came after ``ppo`` was trained): a model reads the slices it was trained
on out of today's vector, and a learner that starts from it gets zero weights for the rest
(:meth:`PPOAgent.whole_observation_parameters`), so the model plays as it was trained.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from hilo_env.agents.base import Agent
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.observation import layout, observation_size
from hilo_env.equation_hilo.rules import RuleSet

INSTALL_HINT = "pip install -e '.[train]'  (torch, stable-baselines3, sb3-contrib)"
RULES_SUFFIX = ".rules.yaml"
OBSERVATION_SUFFIX = ".observation.yaml"
INPUT_LAYERS = ("mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight")
"""The weights of SB3's ``MlpPolicy`` that read the observation (features are the flat
vector itself)."""


def rules_path(model_path: str | Path) -> Path:
    """Where the rules of the model saved at ``model_path`` are kept: ``x.zip`` ->
    ``x.rules.yaml``."""
    path = Path(model_path)
    return path.with_name(path.name.removesuffix(".zip") + RULES_SUFFIX)


def observation_path(model_path: str | Path) -> Path:
    """Where the observation slices of the model saved at ``model_path`` are listed: ``x.zip``
    -> ``x.observation.yaml``."""
    path = Path(model_path)
    return path.with_name(path.name.removesuffix(".zip") + OBSERVATION_SUFFIX)


def save_model(model: Any, path: str | Path, rules: RuleSet) -> Path:
    """Save an SB3 model at ``path``, and beside it the rules it was trained under and the
    observation slices it reads (all of today's)."""
    path = Path(path)
    model.save(path)
    rules_path(path).write_text(yaml.safe_dump(rules.to_dict(), sort_keys=False))
    observation_path(path).write_text(yaml.safe_dump(list(layout(rules)), sort_keys=False))
    return path


def observation_columns(rules: RuleSet, names: list[str]) -> np.ndarray:
    """The entries of ``rules``' observation vector that the slices ``names`` cover, in that
    order; a ValueError names a slice the observation does not have."""
    where = layout(rules)
    unknown = [name for name in names if name not in where]
    if unknown:
        raise ValueError(f"observation slices {unknown} are not in this observation "
                         f"(its slices: {list(where)})")
    return np.concatenate([np.arange(where[name].start, where[name].stop) for name in names])


def rule_differences(trained: RuleSet, asked: RuleSet) -> dict[str, tuple[Any, Any]]:
    """The fields on which two rule sets differ: name -> (trained, asked)."""
    return {f.name: (getattr(trained, f.name), getattr(asked, f.name))
            for f in dataclasses.fields(trained)
            if getattr(trained, f.name) != getattr(asked, f.name)}


class PPOAgent(Agent):
    """Plays a saved MaskablePPO policy; the model loads, and is checked, when the agent is
    made.

    The model must have been trained on this rule set's observation: either the flat vector
    (a ``Box``) or a ``Dict`` with ``observation`` and ``action_mask`` keys. ``deterministic``
    picks the most likely legal action; otherwise actions are sampled (seeded by ``seed``).
    :meth:`of_model` plays a model already in memory (a frozen snapshot during training).
    """

    def __init__(self, rules: RuleSet, path: str | Path, seed: int | None = 0,
                 deterministic: bool = True, allow_other_rules: bool = False,
                 load: bool = True) -> None:
        super().__init__(rules, seed)
        self.path = Path(path)
        self.name = f"ppo:{path}"
        self.deterministic = deterministic
        self.allow_other_rules = allow_other_rules
        self._model: Any = None
        self._dict_obs = False
        self.columns: np.ndarray | None = None
        """The observation entries the model reads (its ``.observation.yaml``); None: all."""
        if load:
            self.load()

    @classmethod
    def of_model(cls, rules: RuleSet, model: Any, name: str = "ppo",
                 deterministic: bool = False) -> PPOAgent:
        """An agent playing ``model`` as it is (copy or reload it first to freeze it); its
        actions are sampled from the model's own random state unless ``deterministic``."""
        agent = cls(rules, name, seed=None, deterministic=deterministic, load=False)
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
        self._check_trained_rules()
        self._read_columns()
        if torch.get_num_threads() > 1:  # one small forward pass at a time: threads only contend
            torch.set_num_threads(1)
        try:
            model = MaskablePPO.load(str(self.path), device="cpu")
        except Exception as exc:  # SB3 raises whatever the zip and torch raise
            raise ValueError(f"agent {self.name!r}: cannot read the model file "
                             f"{str(self.path)!r} ({type(exc).__name__}: {exc})"[:500]) from exc
        if self.seed is not None:
            model.set_random_seed(self.seed)
        self._model = self._checked(model)
        return self._model

    def _check_trained_rules(self) -> None:
        """Refuse rules other than those the model was trained under (when they are known)."""
        path = rules_path(self.path)
        if self.allow_other_rules or not path.is_file():
            return
        trained = RuleSet.from_yaml(path)
        differences = rule_differences(trained, self.rules)
        if differences:
            fields = ", ".join(f"{name}: trained {a!r}, asked {b!r}"
                               for name, (a, b) in differences.items())
            raise ValueError(f"agent {self.name!r} was trained under other rules ({fields}); "
                             "pass allow_other_rules=True to play it anyway")

    def _read_columns(self) -> None:
        """The observation entries the model reads, from its ``.observation.yaml`` if any."""
        path = observation_path(self.path)
        if not path.is_file():
            return
        try:
            names = yaml.safe_load(path.read_text())
        except (OSError, yaml.YAMLError) as exc:
            raise ValueError(f"agent {self.name!r}: cannot read {str(path)!r}: {exc}") from None
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            raise ValueError(f"agent {self.name!r}: {str(path)!r} is not a list of observation "
                             f"slice names")
        try:
            columns = observation_columns(self.rules, names)
        except ValueError as exc:
            raise ValueError(f"agent {self.name!r}: {exc}") from None
        if not np.array_equal(columns, np.arange(observation_size(self.rules))):
            self.columns = columns  # else it reads the whole vector as it is

    def _checked(self, model: Any) -> Any:
        """``model``, once its spaces are found to fit these rules."""
        space = model.observation_space
        self._dict_obs = hasattr(space, "spaces") and "observation" in space.spaces
        shape = space["observation"].shape if self._dict_obs else space.shape
        size = observation_size(self.rules) if self.columns is None else self.columns.size
        if tuple(shape) != (size,):
            raise ValueError(f"agent {self.name!r}: the model observes shape {tuple(shape)}, "
                             f"but these rules give observations of shape ({size},)")
        actions = A.num_actions(self.rules.max_cap)
        if getattr(model.action_space, "n", None) != actions:
            raise ValueError(f"agent {self.name!r}: the model chooses among "
                             f"{getattr(model.action_space, 'n', model.action_space)} actions, "
                             f"but these rules have {actions} (raises up to {self.rules.max_cap})")
        return model

    def whole_observation_parameters(self) -> dict[str, Any]:
        """The policy's parameters for a model that reads today's whole observation: the same
        function of what this model reads, zero weights on the slices it does not (and no
        optimizer state, when it reads fewer)."""
        params = self.load().get_parameters()
        if self.columns is None:
            return params
        import torch

        policy = dict(params["policy"])
        for name in INPUT_LAYERS:
            old = policy[name]
            wide = torch.zeros((old.shape[0], observation_size(self.rules)), dtype=old.dtype)
            wide[:, torch.as_tensor(self.columns)] = old
            policy[name] = wide
        return {"policy": policy}

    def _model_input(self, observations: np.ndarray) -> np.ndarray:
        """The float32 observations as the model reads them (its slices only)."""
        obs = np.asarray(observations, dtype=np.float32)
        return obs if self.columns is None else obs[..., self.columns]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])

    def action_probabilities(self, observation: np.ndarray,
                             action_mask: np.ndarray) -> np.ndarray:
        """The distribution it plays at one observation (for exact exploitability,
        ``envs.openspiel_policy``): the model's masked action probabilities when it samples,
        all on the action :meth:`act` picks when ``deterministic``."""
        if self.deterministic:
            out = np.zeros(np.shape(action_mask)[-1])
            out[self.act(observation, action_mask)] = 1.0
            return out
        import torch

        model = self.load()
        mask = np.asarray(action_mask, dtype=bool)[None]
        obs: Any = self._model_input(observation)[None]
        if self._dict_obs:
            obs = {"observation": obs, "action_mask": mask.astype(np.int8)}
        tensor, _ = model.policy.obs_to_tensor(obs)
        with torch.no_grad():
            probs = model.policy.get_distribution(tensor, action_masks=mask).distribution.probs
        out = probs[0].cpu().numpy().astype(np.float64)
        return out / out.sum()  # float32 rounding

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        model = self.load()
        obs: Any = self._model_input(observations)
        masks = np.asarray(masks, dtype=bool)
        if not masks.any(axis=-1).all():
            raise ValueError("an action mask allows no action: nobody may act in this state")
        if self._dict_obs:
            obs = {"observation": obs, "action_mask": masks.astype(np.int8)}
            actions, _ = model.predict(obs, action_masks=masks, deterministic=self.deterministic)
            return np.asarray(actions, dtype=np.int64).reshape(-1)
        return policy_actions(model.policy, obs, masks, self.deterministic)


def policy_log_probs(policy: Any, observations: Any, masks: np.ndarray) -> Any:
    """The log-probabilities of every action that sb3-contrib's ``MaskableActorCriticPolicy``
    gives flat ``observations`` under ``masks``, as a torch tensor, without its per-call
    machinery (checks, two distribution objects): the same logits, normalised, masked and
    normalised again as ``MaskableCategorical`` does, so the same numbers. A frozen snapshot
    and the collector's policy play small batches, where that machinery cost most of a call."""
    import torch

    with torch.no_grad():
        features = policy.extract_features(torch.as_tensor(observations),
                                           policy.pi_features_extractor)
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
        logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        allowed = torch.as_tensor(masks, dtype=torch.bool).reshape(logits.shape)
        logits = torch.where(allowed, logits, torch.tensor(-1e8, dtype=logits.dtype))
        return logits - logits.logsumexp(dim=-1, keepdim=True)


def sample_actions(log_probs: Any) -> Any:
    """One action per row drawn as torch's ``Categorical.sample`` draws it (the same draw from
    torch's random state)."""
    import torch

    return torch.multinomial(torch.softmax(log_probs, dim=-1), 1, True).T.reshape(-1)


def policy_actions(policy: Any, observations: np.ndarray, masks: np.ndarray,
                   deterministic: bool) -> np.ndarray:
    """The actions ``MaskableActorCriticPolicy.predict`` picks (:func:`policy_log_probs`): the
    same argmax of the probabilities, or the same draw."""
    import torch

    log_probs = policy_log_probs(policy, observations, masks)
    actions = (torch.softmax(log_probs, dim=-1).argmax(dim=1) if deterministic
               else sample_actions(log_probs))
    return actions.numpy().astype(np.int64)
