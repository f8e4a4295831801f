"""A MaskablePPO model (sb3-contrib) as an agent of any registered game; torch and
stable-baselines3 load when an agent is made, not when this module is imported.

A model keeps the game and rules it was trained under beside it: ``model.zip`` has
``model.rules.yaml`` (:func:`save_model` writes both; ``game:`` names the game, Equation Hi-Lo
when absent). An agent made for another game is refused; one made for other rules is refused,
naming the fields that differ, unless ``allow_other_rules`` is set (the CLI's
``--allow-other-rules``). Fields that change only the rewards (the spec's ``reward_fields``:
lo-hi's ``round_reward``, Hi MiLo!'s ``shaping``) may differ: a model trained on shaped rewards
plays the unshaped game. Fields that set only a match's length (the spec's ``match_fields``:
Equation Hi-Lo's ``hands_per_episode``) may differ too: a model trained on one-hand matches
plays each hand of a three-hand match, with a note (:attr:`Agent.rules_note`; what it costs is
measured in docs/benchmarks.md, "Longer matches"). A model without the file is checked by
its spaces alone, and its note says it is assumed to have been trained under the rules it
plays.

For games whose spec names an ``observation_layout`` (Equation Hi-Lo, lo-hi), a model also
keeps the observation slices it reads, ``model.observation.yaml`` (the layout's names, in
order). The observation grows when the game shows more (Equation Hi-Lo's ``round_raises``
slice came after ``ppo`` was trained): a model reads the slices it was trained on out of
today's vector, and a learner that starts from it gets zero weights for the rest
(:meth:`PPOAgent.whole_observation_parameters`), so the model plays as it was trained. Other
games' models read the whole vector.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from hilo_env import games
from hilo_env.agents.base import ModelAgent, check_observations
from hilo_env.equation_hilo.rules import read_yaml_mapping
from hilo_env.game_spec import GameSpec, load

INSTALL_HINT = "pip install -e '.[train]'  (torch, stable-baselines3, sb3-contrib)"
RULES_SUFFIX = ".rules.yaml"
OBSERVATION_SUFFIX = ".observation.yaml"
GAME_KEY = "game"
"""The key of ``model.rules.yaml`` that names the game (absent: Equation Hi-Lo)."""
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


def game_of(rules: Any) -> GameSpec:
    """The registered game whose rule sets are of ``rules``' type (the first, in registry
    order); ValueError if none is."""
    for name in games.names():
        spec = games.get(name)
        if type(spec.rules()) is type(rules):
            return spec
    raise ValueError(f"{type(rules).__name__} is the rule set of no registered game "
                     f"({', '.join(games.names())})")


def rules_record(rules: Any, game: GameSpec) -> dict[str, Any]:
    """``rules`` as ``model.rules.yaml`` keeps them: the game's name, then one key per field."""
    fields = rules.to_dict() if hasattr(rules, "to_dict") else dataclasses.asdict(rules)
    return {GAME_KEY: game.name, **fields}


def read_rules(path: str | Path) -> tuple[GameSpec, Any]:
    """The game and rules a ``model.rules.yaml`` records; ValueError naming the file."""
    data = read_yaml_mapping(path, "rule fields")
    try:
        game = games.get(data.pop(GAME_KEY, games.DEFAULT))
        return game, game.resolve(game.default_rules, **data)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{path}: {exc}") from None


def save_model(model: Any, path: str | Path, rules: Any, game: str | None = None) -> Path:
    """Save an SB3 model at ``path``, and beside it the game and rules it was trained under
    and, for games with an observation layout, the slices it reads (all of today's).
    ``game``: the game's name (None: the game of ``rules``' type)."""
    spec = game_of(rules) if game is None else games.get(game)
    path = Path(path)
    model.save(path)
    rules_path(path).write_text(yaml.safe_dump(rules_record(rules, spec), sort_keys=False))
    if spec.observation_layout:
        where = load(spec.observation_layout)(rules)
        observation_path(path).write_text(yaml.safe_dump(list(where), sort_keys=False))
    return path


DEFAULT_REWARD_SCALE = 0.1
"""The factor the trainers multiply rewards by unless a config says otherwise (``TrainConfig``
reads it from here, so a run's config without the field had this one)."""


def trained_reward_scale(model_path: str | Path) -> float:
    """The factor the trainer multiplied rewards by when it trained the model saved at
    ``model_path``: its value head predicts returns in that unit. Read from the training run's
    ``config.yaml`` beside the model or one folder up (a checkpoint), else from the bundled
    training config named as the model file (the shipped ``ppo_standard.npz``:
    ``configs/train/ppo_standard.yaml``); 1.0 (rewards as the game gives them) when there is
    neither, or no such model file (a model in memory). A config without the field had the
    trainer's default."""
    import importlib.resources

    path = Path(model_path)
    if not path.is_file():
        return 1.0
    bundled = Path(str(importlib.resources.files("hilo_env.configs") / "train"))
    stem = path.name.removesuffix(".zip").removesuffix(".npz")
    for config in (path.parent / "config.yaml", path.parent.parent / "config.yaml",
                   bundled / f"{stem}.yaml"):
        if config.is_file():
            data = read_yaml_mapping(config, "training fields")
            return float(data.get("reward_scale", DEFAULT_REWARD_SCALE))
    return 1.0


def observation_columns(where: dict[str, slice], names: list[str]) -> np.ndarray:
    """The entries of the observation vector laid out as ``where`` that the slices ``names``
    cover, in that order; a ValueError names a slice the observation does not have."""
    unknown = [name for name in names if name not in where]
    if unknown:
        raise ValueError(f"observation slices {unknown} are not in this observation "
                         f"(its slices: {list(where)})")
    return np.concatenate([np.arange(where[name].start, where[name].stop) for name in names])


def rule_differences(trained: Any, asked: Any,
                     ignored: tuple[str, ...] = ()) -> dict[str, tuple[Any, Any]]:
    """The fields on which two rule sets differ, except ``ignored``: name -> (trained,
    asked)."""
    return {f.name: (getattr(trained, f.name), getattr(asked, f.name))
            for f in dataclasses.fields(trained)
            if f.name not in ignored and getattr(trained, f.name) != getattr(asked, f.name)}


def trained_rules_note(name: str, spec: GameSpec, trained: Any, asked: Any,
                       allow_other_rules: bool = False) -> str:
    """The note an agent ``name`` trained under ``trained`` carries when made for ``asked``
    ("" when they agree but for reward fields); ValueError naming the differing fields
    unless they are all match fields or ``allow_other_rules``."""
    differences = rule_differences(trained, asked, spec.reward_fields)
    if not differences:
        return ""
    fields = ", ".join(f"{field}: trained {a!r}, asked {b!r}"
                       for field, (a, b) in differences.items())
    if not (allow_other_rules or set(differences) <= set(spec.match_fields)):
        raise ValueError(f"agent {name!r} was trained under other rules ({fields}); play it "
                         "anyway with --allow-other-rules (in Python: allow_other_rules=True)")
    return f"{name} plays under other rules than it was trained under ({fields})"


def rules_name(game: GameSpec, rules: Any) -> str:
    """``rules`` as people name them: the preset they are at their player count (``standard
    rules, 2 players``), else ``rules of no preset, N players``."""
    players = rules.num_players
    for preset in game.presets:
        try:
            if game.rules(preset, players) == rules:
                return f"{preset} rules, {players} players"
        except ValueError:  # a preset that does not seat that many
            continue
    return f"rules of no preset, {players} players"


def model_rules_note(model_path: str | Path, name: str, game: GameSpec, rules: Any,
                     allow_other_rules: bool = False) -> str:
    """The note agent ``name`` of ``game`` carries when it plays the model saved at
    ``model_path`` under ``rules`` (:func:`trained_rules_note`; for a model that keeps no
    rules beside it, what it is assumed to have been trained under: the rules it plays);
    ValueError for a model of another game, or of other rules (unless they differ only in
    reward and match fields, or ``allow_other_rules``)."""
    path = rules_path(model_path)
    if not path.is_file():
        return (f"{name} keeps no rules file ({path.name}): it is assumed to have been trained "
                f"for {game.title} under the rules it plays ({rules_name(game, rules)})")
    try:
        trained_game, trained = read_rules(path)
    except ValueError as exc:
        raise ValueError(f"agent {name!r}: {exc}") from None
    if trained_game.name != game.name:
        raise ValueError(f"agent {name!r} was trained for {trained_game.title} "
                         f"(game {trained_game.name!r}), not {game.title} "
                         f"(game {game.name!r})")
    return trained_rules_note(name, game, trained, rules, allow_other_rules)


class PPOAgent(ModelAgent):
    """Plays a saved MaskablePPO policy; the model loads, and is checked, when the agent is
    made.

    The model must have been trained on this game's observation under these rules: either the
    flat vector (a ``Box``) or a ``Dict`` with ``observation`` and ``action_mask`` keys.
    ``game``: the game's name (None: the game of ``rules``' type). ``deterministic``
    picks the most likely legal action; otherwise actions are sampled (seeded by ``seed``).
    :meth:`of_model` plays a model already in memory (a frozen snapshot during training).
    :meth:`value` is the model's value head in the game's own score unit
    (:func:`trained_reward_scale`).
    """

    def __init__(self, rules: Any, path: str | Path, seed: int | None = 0,
                 deterministic: bool = True, allow_other_rules: bool = False,
                 load: bool = True, game: str | None = None) -> None:
        super().__init__(rules, seed)
        self.game = game_of(rules) if game is None else games.get(game)
        self.path = Path(path)
        self.name = f"ppo:{path}"
        self.deterministic = deterministic
        self.allow_other_rules = allow_other_rules
        self._model: Any = None
        self._dict_obs = False
        self._sizes: tuple[int, int] | None = None
        self.columns: np.ndarray | None = None
        """The observation entries the model reads (its ``.observation.yaml``); None: all."""
        self.value_label = f"expected {self.game.score}"
        self._reward_scale: float | None = None
        self.other_rules = False
        """Whether its rules file names other rules than those it plays (the note says
        which)."""
        self.known_actions: int | None = None
        """The model's action count where rules it may play under (a longer match: Equation
        Hi-Lo's cap grows when players are knocked out) have more: it picks among the first
        ``known_actions`` only. None: the rules' own count."""
        if load:
            self.load()

    @classmethod
    def of_model(cls, rules: Any, model: Any, name: str = "ppo",
                 deterministic: bool = False, game: str | None = None) -> PPOAgent:
        """An agent playing ``model`` as it is (copy or reload it first to freeze it); its
        actions are sampled from the model's own random state unless ``deterministic``."""
        agent = cls(rules, name, seed=None, deterministic=deterministic, load=False, game=game)
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
        """Refuse another game, and rules other than those the model was trained under except
        in their reward and match fields (when they are known); note the differences."""
        self.rules_note = model_rules_note(self.path, self.name, self.game, self.rules,
                                           self.allow_other_rules)
        self.other_rules = rules_path(self.path).is_file() and bool(self.rules_note)

    def _read_columns(self) -> None:
        """The observation entries the model reads, from its ``.observation.yaml`` if any."""
        path = observation_path(self.path)
        if not self.game.observation_layout or not path.is_file():
            return
        try:
            names = yaml.safe_load(path.read_text())
        except (OSError, yaml.YAMLError) as exc:
            raise ValueError(f"agent {self.name!r}: cannot read {str(path)!r}: {exc}") from None
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            raise ValueError(f"agent {self.name!r}: {str(path)!r} is not a list of observation "
                             f"slice names")
        try:
            columns = observation_columns(load(self.game.observation_layout)(self.rules), names)
        except ValueError as exc:
            raise ValueError(f"agent {self.name!r}: {exc}") from None
        if not np.array_equal(columns, np.arange(self._spaces()[0])):
            self.columns = columns  # else it reads the whole vector as it is

    def _spaces(self) -> tuple[int, int]:
        """The size of the observation vector and the number of actions of these rules, as
        the game's AEC env declares them."""
        if self._sizes is None:
            env = self.game.raw_env(self.rules)
            first = env.possible_agents[0]
            self._sizes = (int(env.observation_space(first)["observation"].shape[0]),
                           int(env.action_space(first).n))
        return self._sizes

    def _checked(self, model: Any) -> Any:
        """``model``, once its spaces are found to fit these rules."""
        space = model.observation_space
        self._dict_obs = hasattr(space, "spaces") and "observation" in space.spaces
        shape = space["observation"].shape if self._dict_obs else space.shape
        if len(shape) != 1:
            whole, _ = self._spaces()
            raise ValueError(f"agent {self.name!r}: the model observes shape {tuple(shape)}, "
                             f"but these rules give observations of shape ({whole},)")
        known = getattr(model.action_space, "n", None)
        self._check_sizes(shape[0], known if isinstance(known, (int, np.integer))
                          else model.action_space)
        return model

    def _check_sizes(self, observes: int, chooses: Any, what: str = "model") -> None:
        """Refuse a ``what`` that reads ``observes`` numbers where these rules give another
        count, or chooses among ``chooses`` actions where they have another, unless it is
        made for other rules than its own (its :attr:`rules_note`) and chooses among fewer:
        then it picks among those (:attr:`known_actions`), and the note says so."""
        whole, actions = self._spaces()
        size = whole if self.columns is None else self.columns.size
        if observes != size:
            raise ValueError(f"agent {self.name!r}: the {what} observes shape ({observes},), "
                             f"but these rules give observations of shape ({size},)")
        if chooses == actions:
            return
        if not (self.other_rules and isinstance(chooses, (int, np.integer))
                and 0 < chooses < actions):
            raise ValueError(f"agent {self.name!r}: the {what} chooses among {chooses} "
                             f"actions, but these rules have {actions}")
        self.known_actions = known = int(chooses)
        last = self.game.action_to_string(known - 1)
        self.rules_note += (f"; it never chooses beyond {last!r}, the last of the {known} "
                            "actions it was trained with")

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
            wide = torch.zeros((old.shape[0], self._spaces()[0]), dtype=old.dtype)
            wide[:, torch.as_tensor(self.columns)] = old
            policy[name] = wide
        return {"policy": policy}

    def _model_input(self, observations: np.ndarray) -> np.ndarray:
        """The float32 observations as the model reads them (its slices only); ValueError for
        observations of another size (another player count's)."""
        obs = check_observations(self, observations, self._spaces()[0]).astype(np.float32)
        return obs if self.columns is None else obs[..., self.columns]

    def _model_masks(self, masks: np.ndarray) -> np.ndarray:
        """The boolean masks over the model's actions; ValueError where none is legal."""
        masks = np.asarray(masks, dtype=bool)
        if self.known_actions is not None:
            masks = masks[..., :self.known_actions]
        if not masks.any(axis=-1).all():
            raise ValueError("an action mask allows no action the model knows: nobody may act "
                             "in this state, or only beyond the actions it was trained with")
        return masks

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
        mask = self._model_masks(np.asarray(action_mask)[None])
        obs: Any = self._model_input(np.asarray(observation)[None])
        if self._dict_obs:
            obs = {"observation": obs, "action_mask": mask.astype(np.int8)}
        tensor, _ = model.policy.obs_to_tensor(obs)
        with torch.no_grad():
            probs = model.policy.get_distribution(tensor, action_masks=mask).distribution.probs
        out = np.zeros(np.shape(action_mask)[-1])
        out[:mask.shape[-1]] = probs[0].cpu().numpy()
        return out / out.sum()  # float32 rounding

    def value(self, observation: np.ndarray, action_mask: np.ndarray) -> float:
        """The model's value head at one observation: the score (the game's unit, chips in
        Equation Hi-Lo) it expects its seat to win from here to the end of the episode,
        shaping terms included where it was trained on shaped rewards; the head's output
        divided by the trainer's reward scale (:meth:`reward_scale`)."""
        import torch

        model = self.load()
        obs: Any = self._model_input(np.asarray(observation)[None])
        if self._dict_obs:
            mask = self._model_masks(np.asarray(action_mask)[None])
            obs = {"observation": obs, "action_mask": mask.astype(np.int8)}
        tensor, _ = model.policy.obs_to_tensor(obs)
        with torch.no_grad():
            value = float(model.policy.predict_values(tensor)[0, 0])
        return value / self.reward_scale()

    def reward_scale(self) -> float:
        """:func:`trained_reward_scale` of its model file, read once."""
        if self._reward_scale is None:
            self._reward_scale = trained_reward_scale(self.path)
        return self._reward_scale

    def model_actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The model's actions for a batch (what :meth:`act` and :meth:`act_batch` play):
        ``(B, D)``, ``(B, A)`` -> int64 ``(B,)``."""
        model = self.load()
        obs: Any = self._model_input(observations)
        masks = self._model_masks(masks)
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
