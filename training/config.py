"""The training run's settings: one dataclass, one docstring per field, read from YAML.

Every field is checked before any work starts, so a typo fails in a second, not an hour in:
types (a bool is not an integer), ranges with an upper bound as well as a lower one (the
``MAX_*`` constants), finiteness (``.inf`` and ``.nan`` are refused). A config file is read
with the rule files' bounds (``rules.read_yaml_mapping``: at most 64 KiB, no YAML aliases, no
field twice; ``3e-4`` is a number, and a whole one such as ``2e6`` fills an integer field),
and its errors name the file and the field.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hilo_env import agents, games
from hilo_env.agents.ppo import DEFAULT_REWARD_SCALE
from hilo_env.equation_hilo.rules import read_yaml_mapping, short_repr, short_text
from hilo_env.himilo.cards import NUM_WIN_CARDS

BACKENDS = ("sb3", "rllib", "jax")
"""The libraries ``hilo train`` trains with (the config's ``backend``)."""
ALGORITHMS = ("ppo", "value")
"""What ``hilo train`` learns (the config's ``algorithm``)."""
UPDATE_PRECISIONS = ("float32", "bfloat16")
"""The config's ``update_precision``: of PPO's gradient steps in the overlapped loop."""
MAX_DECISIONS = 10**12
"""The most decisions a budget counts (``total_timesteps``, the ``*_every`` fields, ``hilo
exploit --decisions``...): past any run's length, refused before a counter or an array is
sized by it."""
MAX_EPISODES = 10_000_000
"""The most episodes (or duplicate deals) one evaluation or match plays (``eval_hands``, the
command line's ``--hands``): each keeps a row of results per seat in memory."""
MAX_NUM_ENVS = 1 << 20
"""The most games simulated at once (``num_envs``) on a game's NumPy batch simulator and
the JAX backend (``jax_gpu`` plays 65,536)."""
MAX_AEC_NUM_ENVS = 4096
"""The most games at once (``num_envs``) of a game with no batch simulator, played on its AEC env,
each a Python object of its own (the shipped configs play 64)."""
MAX_ROLLOUT = 1 << 22
"""The most decisions in one rollout (``n_steps * num_envs``) and one minibatch
(``batch_size``): the rollout's observations are held in memory at once."""
MAX_LAYERS, MAX_LAYER_SIZE = 8, 8192
"""``net_arch``: at most 8 hidden layers of at most 8,192 units (the shipped ones: 2 of 256)."""
MAX_THREADS = 256
"""The most threads or worker processes a field asks for (``torch_threads``,
``update_threads``, ``collectors``, ``num_env_runners``, ``num_learners``)."""
MAX_REPEATS = 1_000
"""The most passes or copies a field asks for (``n_epochs``, ``imitate_epochs``,
``max_snapshots``)."""
MAX_LOOKAHEAD_SAMPLES = 256
"""The most guesses of the later players' cards per legal card (``lookahead_samples``): each
decision costs that many after-states per card."""
MAX_SEED = 2**32 - 1
"""The largest ``seed``: Stable-Baselines3 seeds NumPy's global generator, which takes 32
bits."""


@dataclass(frozen=True)
class TrainConfig:
    """Self-play PPO against a pool of opponents, with Stable-Baselines3 or RLlib."""

    name: str = "selfplay"
    """Run name: outputs go to ``<output_dir>/<name>/``."""
    output_dir: str = "runs"
    """Folder for TensorBoard logs, checkpoints, evaluations and the final model."""
    game: str = games.DEFAULT
    """The game trained (``hilo_env.games``: ``hilo``, ``lohi``, ``himilo``). Equation Hi-Lo
    trains on its batch simulator; the others on their AEC env's games
    (:class:`~hilo_env.envs.aec_learner.AECLearnerVectorEnv`)."""
    rules: str = "standard"
    """Rule preset name (or, for Equation Hi-Lo, YAML path) the agent trains on."""
    reward_shaping: dict[str, Any] = field(default_factory=dict)
    """Reward fields of the rules set for training only (the game spec's ``reward_fields``:
    lo-hi's ``round_reward``, Hi MiLo!'s ``shaping``), such as ``{round_reward: 0.2}``; the
    learner is evaluated, and its model plays, under the rules without them."""
    players: int = 0
    """Players at the table, overriding the rules' ``num_players`` (0: the rules' own), as
    the command line's ``--players``."""
    seed: int = 0
    """Seeds the simulator, the opponents and the network initialisation."""
    total_timesteps: int = 2_000_000
    """Learner decisions to train for."""
    num_envs: int = 256
    """Games simulated at once (the learner sits in one seat of each)."""
    torch_threads: int = 1
    """Torch CPU threads while collecting rollouts; 1 suits small networks on a 2-core
    machine (a second thread only contends with the simulator)."""
    update_threads: int = 1
    """Torch CPU threads for PPO's gradient steps, when the simulator is idle: 2 made an
    update 1.8x faster with the second core free, and the loop 3x slower while other work held
    it (``bench/train.py``)."""
    collectors: int = 0
    """sb3: worker processes that play the learner's games while it runs its gradient steps
    (0: none, SB3's serial loop of collect, then update). With ``n`` of them, each plays
    ``num_envs / n`` games with the weights of the previous update and sends back each
    rollout, so the update of one rollout overlaps the collection of the next, on the other
    core: one update of policy lag, as in IMPALA and APPO, corrected as decoupled PPO does
    (the ratio and clip against the learner's weights, the advantages weighted by the
    importance of those weights over the ones that played). Snapshots reach the games from
    the next rollout. ``training.overlap``; configs/train/ppo_overlap.yaml."""
    update_precision: str = "float32"
    """With ``collectors``: ``bfloat16`` runs the learner's passes (the gradient steps and the
    log-probabilities and values of each arriving rollout) under torch's bfloat16 autocast
    (matrix products in bfloat16; parameters, optimiser and losses in float32), so the
    learner keeps up with its collector on CPUs with bfloat16 instructions (AVX512-BF16,
    AMX; measure before using it on others). The numbers change: a whole ``ppo_standard`` run
    with it and ``collectors: 1`` ended as strong against the baselines (the README's
    training speed)."""
    backend: str = "sb3"
    """Which library trains: ``sb3`` (MaskablePPO on the batched simulator, the learner in
    one seat; ``training.selfplay``) or ``rllib`` (PPO on Ray RLlib over the AEC env, one
    policy shared by every seat; ``training.rllib_train``, the ``rllib`` extra). With
    ``rllib``, ``num_envs`` is games per env runner, a rollout is ``n_steps * num_envs *
    max(1, num_env_runners)`` decisions of every seat, and ``total_timesteps`` and the
    ``*_every`` fields count those decisions. ``jax``: PPO in JAX on the JAX backend, one
    jitted program per iteration, on the CPU or a GPU (``training.jax_ppo``, the ``jax``
    extra; Equation Hi-Lo, baselines with a jitted form)."""
    algorithm: str = "ppo"
    """``ppo``: self-play PPO with ``backend``. ``value``: Hi MiLo!'s ``value`` agent, a
    network of the team's chance to win read one decision ahead, trained by approximate policy
    iteration (``training.value_iteration``): ``total_timesteps`` counts the decisions played
    at every seat, ``iteration_decisions`` of them per iteration; ``imitate`` plays the first
    iteration; ``learning_rate``, ``batch_size``, ``n_epochs`` (the most passes per fit) and
    ``net_arch`` shape each fit; the PPO fields are not read."""
    iteration_decisions: int = 1_000_000
    """value: decisions played (every seat's) per iteration."""
    explore: float = 0.1
    """value: share of the decisions played at random among the legal actions while
    training, so that the after-states of other choices are seen."""
    lookahead_samples: int = 6
    """value: guesses of the later players' cards per legal card in trick play."""
    num_env_runners: int = 1
    """rllib: Ray actors that play games (0: the driver plays them)."""
    num_learners: int = 0
    """rllib: Ray actors that learn (0: the driver learns)."""
    selfplay_share: float = 0.5
    """rllib, and sb3 in a cooperative game: share of games where every seat plays the
    learning policy (sb3: ``AECLearnerEnv``'s ``seat="every"``, the team's reward counted
    once); in the others it holds one seat and the pool (baselines and snapshots) the rest.
    sb3 ignores it in a competitive game."""
    # ---- PPO ----
    learning_rate: float = 3e-4
    """Adam step size."""
    n_steps: int = 64
    """Decisions collected per game between updates (rollout = n_steps * num_envs)."""
    batch_size: int = 4096
    """Minibatch size of each gradient step, at least 2."""
    n_epochs: int = 4
    """Passes over each rollout."""
    gamma: float = 1.0
    """Discount: a hand lasts a few decisions, and only its chips count."""
    gae_lambda: float = 0.95
    """GAE smoothing of advantages."""
    clip_range: float = 0.2
    """PPO's ratio clip."""
    ent_coef: float = 0.01
    """Entropy bonus, keeps the policy exploring early on."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradient clipping."""
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    """Hidden layer sizes of the policy and value networks."""
    init_model: str = ""
    """A saved MaskablePPO model (``.zip``, or converted to NumPy: ``.npz``,
    :mod:`agents.convert`; same rules and ``net_arch``) whose weights the learner starts from;
    empty: fresh weights."""
    imitate: str = ""
    """A registered agent of the game whose play the learner first copies (behaviour
    cloning, ``training.imitation``: it plays every seat of ``imitate_decisions`` decisions),
    before PPO goes on from there; empty: none."""
    imitate_decisions: int = 200_000
    """With ``imitate``: decisions of its play to copy."""
    imitate_epochs: int = 4
    """With ``imitate``: passes over those decisions."""
    reward_scale: float = DEFAULT_REWARD_SCALE
    """Rewards (net chips per hand) are multiplied by this for learning."""
    # ---- opponents ----
    baselines: list[str] = field(default_factory=lambda: ["random", "caller", "heuristic"])
    """Registered agents of the game always in the opponent pool (the default is Equation
    Hi-Lo's: other games' configs name theirs). In a cooperative game they are the learner's
    partners."""
    snapshot_every: int = 200_000
    """Decisions between frozen snapshots of the learner added to the pool (0: never)."""
    max_snapshots: int = 4
    """Snapshots kept in the pool (the oldest leave first)."""
    snapshot_share: float = 0.5
    """Share of games played against snapshots once there are any."""
    # ---- evaluation and checkpoints ----
    eval_every: int = 250_000
    """Decisions between evaluations against the baselines (0: only at the end)."""
    eval_hands: int = 2_000
    """Duplicate deals per baseline in each evaluation."""
    checkpoint_every: int = 500_000
    """Decisions between saved checkpoints (0: only the final model)."""

    def __post_init__(self) -> None:
        _require(self.game in games.names(), "game", self.game,
                 f"one of {games.names()}")
        for name in ("name", "output_dir", "rules"):
            _require(isinstance(getattr(self, name), str) and bool(getattr(self, name)), name,
                     getattr(self, name), "a non-empty text")
        _require("/" not in self.name and self.name not in (".", ".."), "name", self.name,
                 "a run name without '/' (a folder under output_dir)")
        max_envs = MAX_NUM_ENVS if games.get(self.game).can("numpy") else MAX_AEC_NUM_ENVS
        for name, most in (("total_timesteps", MAX_DECISIONS), ("num_envs", max_envs),
                           ("n_steps", MAX_ROLLOUT), ("batch_size", MAX_ROLLOUT),
                           ("n_epochs", MAX_REPEATS), ("eval_hands", MAX_EPISODES),
                           ("torch_threads", MAX_THREADS), ("update_threads", MAX_THREADS),
                           ("imitate_decisions", MAX_DECISIONS),
                           ("imitate_epochs", MAX_REPEATS),
                           ("iteration_decisions", MAX_DECISIONS),
                           ("lookahead_samples", MAX_LOOKAHEAD_SAMPLES)):
            _require_int(self, name, 1, most)
        _require(self.backend in BACKENDS, "backend", self.backend, f"one of {list(BACKENDS)}")
        _require(self.algorithm in ALGORITHMS, "algorithm", self.algorithm,
                 f"one of {list(ALGORITHMS)}")
        spec = games.get(self.game)
        _require(f"{self.backend}/{self.algorithm}" in spec.trainers,
                 "backend" if any(t.endswith(f"/{self.algorithm}") for t in spec.trainers)
                 else "algorithm", f"{self.backend}/{self.algorithm}",
                 f"a trainer of game {self.game!r} (backend/algorithm): "
                 f"{', '.join(spec.trainers) or 'it has none'}")
        for name, most in (("snapshot_every", MAX_DECISIONS), ("max_snapshots", MAX_REPEATS),
                           ("eval_every", MAX_DECISIONS), ("checkpoint_every", MAX_DECISIONS),
                           ("seed", MAX_SEED), ("num_env_runners", MAX_THREADS),
                           ("num_learners", MAX_THREADS), ("collectors", MAX_THREADS)):
            _require_int(self, name, 0, most)
        _require(_is_int(self.players) and self.players >= 0, "players", self.players,
                 "an integer >= 0 (0: the rules' own)")  # the game's range: rule_set() below
        # MaskablePPO asserts both; checked here so a run never starts only to fail in SB3
        _require(self.batch_size >= 2, "batch_size", self.batch_size, "an integer >= 2")
        _require(2 <= self.n_steps * self.num_envs <= MAX_ROLLOUT, "n_steps", self.n_steps,
                 f"2 to {MAX_ROLLOUT:,} decisions per rollout (n_steps * num_envs = "
                 f"{self.n_steps * self.num_envs:,})")
        _require(self.update_precision in UPDATE_PRECISIONS, "update_precision",
                 self.update_precision, f"one of {list(UPDATE_PRECISIONS)}")
        _require(self.update_precision == "float32" or self.collectors > 0, "update_precision",
                 self.update_precision, "float32 unless collectors >= 1 (the overlapped loop)")
        _require(self.collectors == 0 or spec.can("numpy"), "collectors", self.collectors,
                 f"0 for game {self.game!r} (collectors play a NumPy batch simulator)")
        if self.collectors:
            _require(self.backend == "sb3", "collectors", self.collectors,
                     "0 with backend 'rllib' (its env runners are its collectors)")
            _require(self.num_envs % self.collectors == 0, "collectors", self.collectors,
                     f"a divisor of num_envs ({self.num_envs}): each collector plays as many "
                     "games")
        for name in ("learning_rate", "clip_range", "vf_coef", "max_grad_norm", "reward_scale"):
            value = getattr(self, name)
            _require(_is_number(value) and value > 0, name, value, "a finite number > 0")
        for name in ("gamma", "gae_lambda", "snapshot_share", "selfplay_share", "explore"):
            value = getattr(self, name)
            _require(_is_number(value) and 0 <= value <= 1, name, value, "a number in [0, 1]")
        _require(_is_number(self.ent_coef) and self.ent_coef >= 0, "ent_coef", self.ent_coef,
                 "a finite number >= 0")
        _require(isinstance(self.net_arch, list) and 1 <= len(self.net_arch) <= MAX_LAYERS
                 and all(_is_int(h) and 1 <= h <= MAX_LAYER_SIZE for h in self.net_arch),
                 "net_arch", self.net_arch,
                 f"a list of 1 to {MAX_LAYERS} layer sizes of 1 to {MAX_LAYER_SIZE:,}, such as "
                 "[256, 256]")
        _require(isinstance(self.baselines, list) and bool(self.baselines)
                 and all(isinstance(b, str) for b in self.baselines), "baselines",
                 self.baselines,
                 f"a non-empty list of agent names from {agents.names(self.game)}")
        for name in self.baselines:
            try:
                agents.check(name, self.game)
            except ValueError as exc:
                raise ValueError(f"config field 'baselines': {exc}") from None
        _require(isinstance(self.imitate, str), "imitate", self.imitate,
                 "empty, or the name of an agent of the game")
        if self.imitate:
            _require(self.collectors == 0, "imitate", self.imitate,
                     "empty with collectors (they keep their own copy of the weights)")
            try:
                agents.check(self.imitate, self.game)
            except ValueError as exc:
                raise ValueError(f"config field 'imitate': {exc}") from None
        _require(isinstance(self.init_model, str)
                 and (not self.init_model or Path(self.init_model).is_file()), "init_model",
                 self.init_model, "empty, or the path of a saved model file")
        spec = games.get(self.game)
        _require(isinstance(self.reward_shaping, dict)
                 and set(self.reward_shaping) <= set(spec.reward_fields), "reward_shaping",
                 self.reward_shaping,
                 f"a mapping of {spec.title}'s reward fields {list(spec.reward_fields)}")
        try:
            rules = self.rule_set()  # a bad preset or rules file fails here
        except ValueError as exc:
            raise ValueError(f"config field 'rules': {exc}") from None
        if self.algorithm == "value":
            _require(rules.visible_win_cards == NUM_WIN_CARDS, "rules", self.rules,
                     "rules with every Win Card face up (visible_win_cards 14) for algorithm "
                     "'value': its after-states need the line")

    @property
    def rollout_decisions(self) -> int:
        """Decisions a training iteration collects (``n_steps * num_envs``, times the env
        runners under rllib). A run trains whole iterations, so its decisions are
        ``total_timesteps`` rounded up to a multiple of this: exactly under sb3; under jax (the
        learner's decisions of ``n_steps`` steps) and rllib (every seat's) about that."""
        if self.algorithm == "value":
            return self.iteration_decisions
        runners = max(1, self.num_env_runners) if self.backend == "rllib" else 1
        return self.n_steps * self.num_envs * runners

    @property
    def planned_decisions(self) -> int:
        """``total_timesteps`` rounded up to whole iterations (:attr:`rollout_decisions`)."""
        return math.ceil(self.total_timesteps / self.rollout_decisions) * self.rollout_decisions

    def rule_set(self) -> Any:
        """The game's RuleSet trained on: ``rules`` with ``players`` and ``reward_shaping``
        applied."""
        spec = games.get(self.game)
        rules = spec.rules(self.rules, self.players or None)
        return spec.resolve(rules, **self.reward_shaping) if self.reward_shaping else rules

    @property
    def run_dir(self) -> Path:
        return Path(self.output_dir) / self.name

    @classmethod
    def from_yaml(cls, path: str | Path, **overrides: Any) -> TrainConfig:
        """Read a config; unknown or ill-typed fields raise ValueError naming the file and
        the field (``overrides``, from the command line, are checked the same way)."""
        path = config_path(path)
        data = {name: _whole(value) if name in _INTEGER_FIELDS else value
                for name, value in read_yaml_mapping(path, "config fields").items()}
        data.update(overrides)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(short_text(k) for k in set(data) - known)
        if unknown:
            raise ValueError(f"{path}: unknown config field(s) {unknown}; fields are "
                             f"{sorted(known)}")
        try:
            return cls(**data)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def config_path(config: str | Path) -> Path:
    """The file of a training config: ``config`` itself when it is a file, else a bare name
    (no folder, no ``.yaml``) names a config bundled with the package, so ``hilo train smoke``
    reads ``configs/train/smoke.yaml`` from any folder. Anything else raises ValueError."""
    path = Path(config)
    if path.is_file():
        return path
    text = str(config)
    if path.name != text or path.suffix in (".yaml", ".yml"):
        raise ValueError(f"no training config at {short_repr(text)}")
    bundled = bundled_configs()
    if text not in bundled:
        raise ValueError(f"no training config {short_repr(text)}: give a YAML path or the "
                         f"name of a bundled config {sorted(bundled)}")
    return bundled[text]


def bundled_configs() -> dict[str, Path]:
    """The training configs installed with the package (``hilo_env.configs``, the
    repository's ``configs/train/``), by name."""
    folder = Path(str(importlib.resources.files("hilo_env.configs") / "train"))
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))}


_INTEGER_FIELDS = frozenset(f.name for f in dataclasses.fields(TrainConfig) if f.type == "int")
"""The config's integer fields, which a file may write as ``2e6`` (:func:`_whole`)."""


def _whole(value: Any) -> Any:
    """A whole float read from a file (``2e6``, ``64.0``) as the integer it is; anything else
    as it is, for the field's own check."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _require_int(config: TrainConfig, name: str, least: int, most: int) -> None:
    """A ValueError naming the field unless it is an integer in ``least..most``."""
    value = getattr(config, name)
    _require(_is_int(value) and least <= value <= most, name, value,
             f"an integer from {least} to {most:,}")


def _is_number(x: Any) -> bool:
    """A finite int or float, not a bool: ``.inf`` would train a model of NaNs."""
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _require(ok: bool, name: str, value: Any, allowed: str) -> None:
    if not ok:
        raise ValueError(f"config field {name!r} = {short_repr(value)} is not allowed: "
                         f"{allowed}")
