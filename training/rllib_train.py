"""Self-play PPO with a league on Ray RLlib (new API stack). Reads top to bottom.

    hilo train rllib_league            # a config whose backend is rllib

1. Ray: joins the cluster that ``RAY_ADDRESS`` names, or the one ``ray start --head`` started
   on this machine, else starts a local instance (``ray.init``'s own order); the config is
   logged (``config.yaml``, TensorBoard);
2. the games: the config's game (any of the registry: ``game``), its AEC env as RLlib's
   turn-based multi-agent env (:mod:`hilo_env.envs.rllib_env`), ``num_envs`` per env runner,
   ``num_env_runners`` runners and ``num_learners`` learners (0: on the driver);
3. the league, through RLlib's policy mapping: one policy, ``shared``
   (:class:`~hilo_env.agents.rllib.MaskedPPOModule`), plays every seat of ``selfplay_share``
   of the games; in the others it holds one seat and the pool the rest: the baseline agents
   as fixed modules (:class:`~hilo_env.agents.rllib.AgentModule`) and, once there are any,
   frozen snapshots of ``shared`` (``snapshot_share`` of the pool's seats), taken every
   ``snapshot_every`` decisions, the oldest replaced after ``max_snapshots``; only ``shared``
   learns (in a cooperative game the pool's seats are its partners);
4. every ``eval_every`` decisions ``shared`` plays duplicate deals in one seat, each baseline
   in the others (the game's score per deal, 95% CI, in ``evaluations.csv`` and
   TensorBoard); checkpoints of the whole algorithm every ``checkpoint_every`` decisions and
   at the end (``checkpoint/``), and the policy alone in ``policy/``, which
   ``agents.make("rllib:<run>/policy", game=...)`` plays.
"""

from __future__ import annotations

import csv
import math
import os
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from hilo_env import agents, games
from hilo_env.agents.rllib import SHARED, AgentModule, MaskedPPOModule, save_policy
from hilo_env.envs.rllib_env import RLlibHiLoEnv
from hilo_env.training.config import TrainConfig
from hilo_env.training.evaluate import play_table, seat_count

SNAPSHOT = "snapshot_{}"
"""The module ids of the frozen snapshots, by slot."""


@dataclass(frozen=True)
class LeagueMapping:
    """RLlib's agent-to-module mapping: who plays each seat of a game, drawn once per game
    from its episode id (so every seat of one game agrees, on any env runner)."""

    num_players: int
    baselines: tuple[str, ...]
    snapshots: tuple[str, ...]
    selfplay_share: float
    snapshot_share: float
    seed: int

    def seats(self, episode_id: str) -> list[str]:
        """The module id of every seat in the game ``episode_id``."""
        rng = np.random.default_rng([zlib.crc32(episode_id.encode()), self.seed])
        if rng.random() < self.selfplay_share:
            return [SHARED] * self.num_players
        learner = int(rng.integers(self.num_players))
        seats = []
        for seat in range(self.num_players):
            if seat == learner:
                seats.append(SHARED)
            elif self.snapshots and rng.random() < self.snapshot_share:
                seats.append(self.snapshots[int(rng.integers(len(self.snapshots)))])
            else:
                seats.append(self.baselines[int(rng.integers(len(self.baselines)))])
        return seats

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        return self.seats(episode.id_)[int(agent_id.rsplit("_", 1)[1])]


def baseline_id(name: str) -> str:
    """A baseline agent's module id (RLlib's ids are paths' parts: no ``:`` or ``/``)."""
    return "baseline_" + "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def learner_threads(config: TrainConfig) -> int:
    """Torch threads for a learner on the driver (``num_learners: 0``): the machine's cores
    less one per env runner. Torch's default takes every core, and on a small machine its
    threads fight the runners' (bench/rllib.py measures both)."""
    return max(1, (os.cpu_count() or 1) - config.num_env_runners)


def build_algorithm(config: TrainConfig, rules: Any) -> Any:
    """The PPO algorithm of ``config`` on its game (``rules``: that game's RuleSet) with the
    league's modules; with the learner on the driver, its torch threads set to
    :func:`learner_threads`."""
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    env_config = {"game": config.game, "rules": rules, "reward_scale": config.reward_scale}
    probe = RLlibHiLoEnv(env_config)
    seat = probe.possible_agents[0]
    obs_space, act_space = probe.observation_spaces[seat], probe.action_spaces[seat]
    specs = {SHARED: RLModuleSpec(
        module_class=MaskedPPOModule, observation_space=obs_space, action_space=act_space,
        model_config=DefaultModelConfig(fcnet_hiddens=list(config.net_arch)))}
    for i, name in enumerate(dict.fromkeys(config.baselines)):
        specs[baseline_id(name)] = RLModuleSpec(
            module_class=AgentModule, observation_space=obs_space, action_space=act_space,
            model_config={"agent": name, "rules": rules, "seed": config.seed + i,
                          "game": config.game})
    mapping = league_mapping(config, rules, snapshots=())
    rollout = config.n_steps * config.num_envs * max(1, config.num_env_runners)
    ppo = (
        PPOConfig()
        # RLlib's env check steps unmasked random actions, which the env refuses as illegal
        .environment(RLlibHiLoEnv, env_config=env_config, disable_env_checking=True)
        # episodes_to_numpy=False: RLlib 2.60's runner numpy'izes every episode finished so
        # far in a sample after each env step, quadratic in the short hands of one sample
        # (bench/rllib.py: several times the decisions per second without it)
        .env_runners(num_env_runners=config.num_env_runners,
                     num_envs_per_env_runner=config.num_envs,
                     rollout_fragment_length=config.n_steps, episodes_to_numpy=False)
        .learners(num_learners=config.num_learners)
        .training(lr=config.learning_rate, gamma=config.gamma, lambda_=config.gae_lambda,
                  clip_param=config.clip_range, entropy_coeff=config.ent_coef,
                  vf_loss_coeff=config.vf_coef, grad_clip=config.max_grad_norm,
                  train_batch_size_per_learner=max(1, rollout // max(1, config.num_learners)),
                  minibatch_size=config.batch_size, num_epochs=config.n_epochs)
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping,
                     policies_to_train=[SHARED])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .debugging(seed=config.seed)
    )
    if config.num_learners == 0:
        torch.set_num_threads(learner_threads(config))
    return ppo.build_algo()


def league_mapping(config: TrainConfig, rules: Any,
                   snapshots: tuple[str, ...]) -> LeagueMapping:
    """The league's mapping with the snapshots there are now."""
    return LeagueMapping(rules.num_players, tuple(baseline_id(b) for b in config.baselines),
                         snapshots, config.selfplay_share, config.snapshot_share, config.seed)


def evaluate_policy(policy: str | Path, rules: Any, baselines: list[str], hands: int,
                    seed: int, game: str | None = None) -> dict[str, tuple[float, float]]:
    """The mean score per deal of a saved policy of ``game`` (and 95% CI) in one seat, each
    baseline in the others, duplicate deals."""
    spec = games.get(game)
    others = seat_count(spec, rules) - 1
    scores = {}
    for name in dict.fromkeys(baselines):
        learner = agents.make(f"rllib:{policy}", rules, seed=seed, game=spec.name)
        pool = [agents.make(name, rules, seed=seed + 1 + i, game=spec.name)
                for i in range(others)]
        table = play_table([learner, *pool], rules, deals=hands, seed=seed, game=spec.name)
        scores[name] = table.score(0)
    return scores


def scalars(result: dict[str, Any], prefix: str = "") -> dict[str, float]:
    """The numbers of an RLlib result, flattened to ``a/b/c`` names, for TensorBoard."""
    out = {}
    for key, value in result.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(scalars(value, name + "/"))
        elif (isinstance(value, int | float | np.number) and not isinstance(value, bool)
              and math.isfinite(value)):  # RLlib reports NaN for metrics with no data yet
            out[name] = float(value)
    return out


def returns_text(returns: dict[str, Any]) -> str:
    """RLlib's mean episode return per seat, for people: ``player_0 +0.25, player_1 -0.25``
    (``none yet`` before an episode has ended; ``n/a`` for a seat without one)."""
    if not returns:
        return "none yet"
    return ", ".join(f"{seat} {float(value):+.2f}" if math.isfinite(float(value))
                     else f"{seat} n/a" for seat, value in sorted(returns.items()))


def train(config: TrainConfig, progress: bool = True,
          on_eval: Callable[[int, dict[str, tuple[float, float]], float], None] | None = None,
          ) -> Path:
    """Train as ``config`` says (``backend: rllib``); returns the saved policy's folder.
    ``on_eval(decisions, scores, seconds)`` hears each evaluation (seconds of training)."""
    if config.backend != "rllib":
        raise ValueError(f"config {config.name!r} has backend {config.backend!r}; this trainer "
                         "is for backend 'rllib' (training.selfplay trains 'sb3')")
    import ray
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME
    from tensorboardX import SummaryWriter

    torch.set_num_threads(config.torch_threads)

    # ---- 1. Ray, the output folder, logging ---------------------------------------------------
    if not ray.is_initialized():
        ray.init()  # RAY_ADDRESS, else a `ray start` cluster on this machine, else local
    rules = config.rule_set()
    run_dir = config.run_dir.resolve()
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    writer = SummaryWriter(str(run_dir / "tb"))
    writer.add_text("config", "\n".join(f"    {k}: {v}" for k, v in config.to_dict().items()))
    evals_path = run_dir / "evaluations.csv"
    with open(evals_path, "w", newline="") as f:
        csv.writer(f).writerow(["timesteps", "opponent", "chips_per_hand", "ci95"])

    # ---- 2. and 3. the games, the league and PPO ----------------------------------------------
    algo = build_algorithm(config, rules)
    snapshots: list[str] = []
    taken = 0

    def take_snapshot() -> None:
        """Freeze ``shared`` into the next snapshot slot (a new module until there are
        ``max_snapshots``, then the oldest slot)."""
        nonlocal taken
        slot = SNAPSHOT.format(taken % config.max_snapshots)
        taken += 1
        shared = algo.get_module(SHARED)
        if slot not in snapshots:
            snapshots.append(slot)
            algo.add_module(module_id=slot, module_spec=RLModuleSpec.from_module(shared),
                            new_agent_to_module_mapping_fn=league_mapping(
                                config, rules, tuple(snapshots)),
                            new_should_module_be_updated=[SHARED])
        algo.learner_group.set_state({"learner": {"rl_module": {slot: shared.get_state()}}})
        algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group,
                                           policies=[slot], inference_only=True)

    def evaluate(step: int) -> None:
        path = save_policy(algo.get_module(SHARED), run_dir / "checkpoints" / "eval_policy",
                           rules)
        scores = evaluate_policy(path, rules, config.baselines, config.eval_hands, config.seed,
                                 config.game)
        with open(evals_path, "a", newline="") as f:
            for name, (mean, ci) in scores.items():
                writer.add_scalar(f"eval/{name}_chips_per_hand", mean, step)
                writer.add_scalar(f"eval/{name}_ci95", ci, step)
                csv.writer(f).writerow([step, name, f"{mean:.4f}", f"{ci:.4f}"])
        if on_eval is not None:
            on_eval(step, scores, time.perf_counter() - start)

    # ---- 4. learn, snapshot, evaluate, checkpoint -----------------------------------------------
    start, steps = time.perf_counter(), 0
    while steps < config.total_timesteps:
        result = algo.train()
        before, steps = steps, int(result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])
        for name, value in scalars(result).items():
            writer.add_scalar(name, value, steps)
        if progress:
            ret = result[ENV_RUNNER_RESULTS].get("agent_episode_returns_mean", {})
            print(f"[iteration {algo.iteration}] {steps:,} decisions, "
                  f"{time.perf_counter() - start:.0f} s, mean returns {returns_text(ret)}",
                  flush=True)

        def crossed(every: int, now: int = steps, was: int = before) -> bool:
            return every > 0 and now // every > was // every

        if crossed(config.snapshot_every) and config.max_snapshots > 0:
            take_snapshot()
        if crossed(config.checkpoint_every):
            algo.save_to_path(run_dir / "checkpoints" / f"algo_{steps}")
        if crossed(config.eval_every):
            evaluate(steps)
    algo.save_to_path(run_dir / "checkpoint")
    final = save_policy(algo.get_module(SHARED), run_dir / "policy", rules)
    writer.add_scalar("time/train_seconds", time.perf_counter() - start, steps)
    evaluate(steps)
    writer.close()
    algo.stop()
    return final
