"""PPO in JAX, end to end: ``hilo train CONFIG`` with ``backend: jax`` (Equation Hi-Lo).

The learner plays one seat of ``num_envs`` games of the JAX backend's learner view
(:class:`~hilo_env.envs.jax_learner.JaxLearnerEnv`); the other seats are played inside the
same compiled step by opponents with a jitted form (:mod:`training.jax_league`): the config's
``baselines`` and, every ``snapshot_every`` decisions, a frozen snapshot of the learner (the
last ``max_snapshots`` kept; ``snapshot_share`` of the games play one of them, drawn anew each
iteration: :func:`playing_snapshot`). One iteration is one jitted program
(:func:`make_iteration`): ``n_steps`` learner decisions of every game in a
``lax.scan`` (actions sampled from the network, opponents stepped, rewards scaled by
``reward_scale``), GAE, then ``n_epochs`` passes of ``rollout // batch_size`` minibatches of
PPO's clipped loss under optax's Adam with gradient clipping. Nothing goes back to the host
between steps, and the same code runs on the CPU and on a GPU (whatever ``jax`` finds).

The network is SB3's ``MlpPolicy`` (:mod:`agents.jax_policy`), so a run reads like the sb3
path and the same config trains either way; ``init_model`` may name a MaskablePPO ``.zip`` of
the same ``net_arch`` (converted, :func:`agents.convert.sb3_params`) or a ``jax:``
policy ``.npz``. Between iterations, on the host: snapshots, checkpoints
(``checkpoints/model_<decisions>.npz``), evaluations (duplicate deals against each baseline,
:func:`training.selfplay.evaluate_model`, the policy played in NumPy as ``jax:PATH``), logs
(TensorBoard through torch's ``SummaryWriter`` when the train extra is installed, and always
``progress.csv``) and the final ``model.npz``, playable by name as ``jax:RUN/model.npz``.

:func:`train` has :func:`training.selfplay.train`'s signature, so ``hilo exploit --backend
jax`` trains its best responses here.
"""

from __future__ import annotations

import csv
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
import yaml
from jax import lax

from hilo_env import games
from hilo_env.agents.jax_policy import Params, save_policy
from hilo_env.agents.registry import JAX_PREFIX
from hilo_env.envs.jax_learner import JaxLearnerEnv, LearnerState
from hilo_env.equation_hilo.jax_backend import EquationHiLo, Policy
from hilo_env.equation_hilo.jax_batching import Shares, loop_where
from hilo_env.training import jax_league
from hilo_env.training.budget import RunClock
from hilo_env.training.config import TrainConfig
from hilo_env.training.selfplay import evaluate_model, plot_learning_curve, score_name

Scores = dict[str, tuple[float, float]]
HIDDEN_GAIN, POLICY_GAIN, VALUE_GAIN = math.sqrt(2), 0.01, 1.0
"""SB3's orthogonal initialisation gains: hidden layers, the action logits, the value."""
ADAM_EPS = 1e-5
"""Adam's epsilon, SB3's."""
SNAPSHOT_SHARE: Shares = {"cpu": 4, "default": 4}
"""The batching rule of the snapshot's turns (:func:`league_view`) takes up to ``batch //
SNAPSHOT_SHARE`` games per turn (and turns while games are left)."""
CURVE_TITLE = "PPO in JAX against the baselines, duplicate deals"


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class League:
    """Whom the learner plays, as arguments of the compiled iteration: ``baselines``, the
    data of the config's distinct baselines' jitted forms (:func:`jax_league.jitted_form`:
    a network's weights as constants of the program kept a GPU compiling for minutes), and
    the frozen snapshots of the learner, ``params`` stacked on a first axis of
    ``max_snapshots`` (unused slots zero), ``count`` of them in use."""

    baselines: tuple[Any, ...]
    params: Params
    count: jax.Array  # () int32


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Learner:
    """What an iteration carries: the network, its optimizer state, the games, a key."""

    params: Params
    opt_state: Any
    games: LearnerState  # batched over num_envs
    key: jax.Array


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Rollout:
    """``n_steps`` decisions of every game, time first: ``(n_steps, num_envs, ...)``."""

    observation: jax.Array
    mask: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array  # scaled
    done: jax.Array


def init_params(key: jax.Array, observation_size: int, num_actions: int,
                net_arch: list[int]) -> Params:
    """Fresh weights, initialised as SB3 initialises its ``MlpPolicy``."""
    orthogonal = jax.nn.initializers.orthogonal

    def head(key: jax.Array, outputs: int, gain: float) -> list[tuple[jax.Array, jax.Array]]:
        sizes = [observation_size, *net_arch, outputs]
        gains = [HIDDEN_GAIN] * len(net_arch) + [gain]
        keys = jax.random.split(key, len(gains))
        return [(orthogonal(g)(k, (a, b), jnp.float32), jnp.zeros(b, jnp.float32))
                for k, a, b, g in zip(keys, sizes[:-1], sizes[1:], gains, strict=True)]

    policy_key, value_key = jax.random.split(key)
    return {"policy": head(policy_key, num_actions, POLICY_GAIN),
            "value": head(value_key, 1, VALUE_GAIN)}


def start_params(config: TrainConfig, rules: Any, env: EquationHiLo, key: jax.Array) -> Params:
    """The learner's first weights: ``config.init_model``'s (a MaskablePPO ``.zip`` or a
    ``jax:`` ``.npz``, same ``net_arch``) or fresh ones."""
    fresh = init_params(key, env.observation_shape[0], env.num_actions, list(config.net_arch))
    if not config.init_model:
        return fresh
    prefix = JAX_PREFIX if config.init_model.endswith(".npz") else "ppo:"
    start = jax_league.model_params(prefix + config.init_model, rules, config.game)
    shapes = jax.tree_util.tree_map(np.shape, start)
    if shapes != jax.tree_util.tree_map(np.shape, fresh):
        raise ValueError(f"init_model {config.init_model!r} does not fit net_arch "
                         f"{config.net_arch}")
    return jax.tree_util.tree_map(jnp.asarray, start)


def opponent_ids(config: TrainConfig, count: jax.Array) -> jax.Array:
    """Which opponent plays each game: the first ``snapshot_share`` of the games the
    iteration's snapshot once there are any, the others the config's baselines in turn, as
    ``training.selfplay.OpponentPool`` deals them out. Ids number the distinct baselines in
    their order (a baseline listed twice plays twice as many games, as one policy), then the
    snapshot."""
    distinct = list(dict.fromkeys(config.baselines))
    branch = jnp.array([distinct.index(name) for name in config.baselines], jnp.int32)
    i = jnp.arange(config.num_envs)
    against_snapshots = round(config.num_envs * config.snapshot_share)
    return jnp.where((count > 0) & (i < against_snapshots), len(distinct),
                     branch[i % len(config.baselines)])


def playing_snapshot(league: League, key: jax.Array) -> Params:
    """The snapshot an iteration's snapshot games play, drawn from the league: one network
    per opponent turn whatever the league's size (under ``vmap`` a ``switch`` over several
    would run every one of them for every game), a rollout against each in turn on average,
    as leagues commonly sample one opponent per rollout."""
    j = jax.random.randint(key, (), 0, jnp.maximum(league.count, 1))
    return jax.tree_util.tree_map(lambda x: x[j], league.params)


def league_view(env: EquationHiLo, baselines: tuple[Policy, ...], snapshot: Params | None,
                opponent: jax.Array) -> JaxLearnerEnv:
    """One game's learner view whose opponent is number ``opponent`` (a traced id,
    :func:`opponent_ids`): one of the distinct ``baselines``, or ``snapshot`` (None: no
    league), played by sampling its network. Under
    ``vmap`` the snapshot's network runs for the snapshot's games only
    (:func:`jax_batching.loop_where`, :data:`SNAPSHOT_SHARE` of the batch at a time), where a
    select would run it for every game."""
    last = len(baselines) - 1

    def policy(observation: jax.Array, mask: jax.Array, key: jax.Array) -> jax.Array:
        action = lax.switch(jnp.minimum(opponent, last), baselines, observation, mask, key)
        if snapshot is None:
            return action

        def snapshot_turn(_: jax.Array) -> tuple[jax.Array, jax.Array]:
            lp = jax_league.log_probs(snapshot, observation, mask)
            return jax.random.categorical(key, lp).astype(jnp.int32), jnp.bool_(False)

        return loop_where(snapshot_turn, SNAPSHOT_SHARE)(opponent > last, action)

    return JaxLearnerEnv(env, policy)


def decisions(mask: jax.Array) -> jax.Array:
    """1.0 for a step that was a decision, 0.0 for one without a legal action (a game's
    first step, from :meth:`JaxLearnerEnv.finished`): it weighs nothing in the loss."""
    return mask.any(-1).astype(jnp.float32)


def crossed(every: int, before: int, now: int) -> bool:
    """Whether a multiple of ``every`` (> 0) lies in ``(before, now]``."""
    return every > 0 and now // every > before // every


def with_snapshots(league: League, pool: list[Params]) -> League:
    """``league`` with the snapshots ``pool`` in its slots (the rest zero)."""
    slots = jax.tree_util.tree_leaves(league.params)[0].shape[0]
    empty = jax.tree_util.tree_map(np.zeros_like, pool[0])
    return League(league.baselines,
                  jax.tree_util.tree_map(lambda *xs: jnp.stack(xs),
                                         *pool, *[empty] * (slots - len(pool))),
                  jnp.int32(len(pool)))


def make_iteration(config: TrainConfig, env: EquationHiLo, baselines: tuple[jax_league.Play, ...],
                   snapshots: int, optimizer: optax.GradientTransformation
                   ) -> Callable[[Learner, League], tuple[Learner, dict[str, jax.Array]]]:
    """One PPO iteration as one jitted function: collect, GAE, update; ``baselines`` are the
    plays of the config's distinct baselines (:func:`opponent_ids`), their data the
    league's; returns the learner and the iteration's metrics."""
    n = config.num_envs
    rollout_size = config.n_steps * n
    minibatch = min(config.batch_size, rollout_size)
    minibatches = rollout_size // minibatch

    def step_games(games: LearnerState, actions: jax.Array, key: jax.Array,
                   league: League, snapshot: Params | None) -> LearnerState:
        ids = opponent_ids(config, league.count)
        policies = tuple(functools.partial(play, data)
                         for play, data in zip(baselines, league.baselines, strict=True))

        def one(state: LearnerState, action: jax.Array, key: jax.Array,
                opponent: jax.Array) -> LearnerState:
            return league_view(env, policies, snapshot, opponent).step(state, action, key)

        return jax.vmap(one)(games, actions, jax.random.split(key, n), ids)

    def collect(learner: Learner, league: League) -> tuple[Learner, Rollout]:
        key, pick_key = jax.random.split(learner.key)
        snapshot = playing_snapshot(league, pick_key) if snapshots else None

        def decide(carry: tuple[LearnerState, jax.Array], _: None) -> tuple[
                tuple[LearnerState, jax.Array], Rollout]:
            games, key = carry
            key, act_key, step_key = jax.random.split(key, 3)
            lp = jax_league.log_probs(learner.params, games.observation,
                                      games.legal_action_mask)
            action = jax.random.categorical(act_key, lp).astype(jnp.int32)
            after = step_games(games, action, step_key, league, snapshot)
            record = Rollout(games.observation, games.legal_action_mask, action,
                             jnp.take_along_axis(lp, action[:, None], axis=1)[:, 0],
                             jax_league.value(learner.params, games.observation),
                             after.reward * config.reward_scale, after.done)
            return (after, key), record

        (games, key), rollout = lax.scan(decide, (learner.games, key), None,
                                         length=config.n_steps)
        return Learner(learner.params, learner.opt_state, games, key), rollout

    def advantages(rollout: Rollout, last_value: jax.Array) -> jax.Array:
        def back(carry: tuple[jax.Array, jax.Array], t: tuple[jax.Array, ...]) -> tuple[
                tuple[jax.Array, jax.Array], jax.Array]:
            next_advantage, next_value = carry
            reward, value, done = t
            going = 1.0 - done.astype(jnp.float32)
            delta = reward + config.gamma * next_value * going - value
            advantage = delta + config.gamma * config.gae_lambda * going * next_advantage
            return (advantage, value), advantage

        return lax.scan(back, (jnp.zeros_like(last_value), last_value),
                        (rollout.reward, rollout.value, rollout.done), reverse=True)[1]

    def loss(params: Params, batch: dict[str, jax.Array]) -> tuple[jax.Array, dict]:
        lp = jax_league.log_probs(params, batch["observation"], batch["mask"])
        log_prob = jnp.take_along_axis(lp, batch["action"][:, None], axis=1)[:, 0]
        ratio = jnp.exp(log_prob - batch["log_prob"])
        weight = decisions(batch["mask"])

        def mean(x: jax.Array) -> jax.Array:  # over the decisions only
            return (x * weight).sum() / jnp.maximum(weight.sum(), 1.0)

        adv = batch["advantage"] - mean(batch["advantage"])
        adv = adv / (jnp.sqrt(mean(adv ** 2)) + 1e-8)
        clipped = jnp.clip(ratio, 1 - config.clip_range, 1 + config.clip_range)
        policy_loss = -mean(jnp.minimum(ratio * adv, clipped * adv))
        value_loss = mean((batch["return"] - jax_league.value(params, batch["observation"]))
                          ** 2)
        entropy = -mean(jnp.where(batch["mask"], jnp.exp(lp) * lp, 0.0).sum(-1))
        total = policy_loss + config.vf_coef * value_loss - config.ent_coef * entropy
        return total, {"policy_loss": policy_loss, "value_loss": value_loss,
                       "entropy": entropy, "approx_kl": mean((ratio - 1) - jnp.log(ratio)),
                       "clip_fraction": mean(jnp.abs(ratio - 1) > config.clip_range)}

    def update(learner: Learner, rollout: Rollout, advantage: jax.Array) -> tuple[
            Learner, dict[str, jax.Array]]:
        flat = {"observation": rollout.observation, "mask": rollout.mask,
                "action": rollout.action, "log_prob": rollout.log_prob,
                "advantage": advantage, "return": advantage + rollout.value}
        flat = jax.tree_util.tree_map(lambda x: x.reshape(rollout_size, *x.shape[2:]), flat)

        def gradient_step(carry: tuple[Params, Any], batch: dict) -> tuple[
                tuple[Params, Any], dict]:
            params, opt_state = carry
            grads, metrics = jax.grad(loss, has_aux=True)(params, batch)
            updates, opt_state = optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), metrics

        def epoch(carry: tuple[Params, Any, jax.Array], _: None) -> tuple[
                tuple[Params, Any, jax.Array], dict]:
            params, opt_state, key = carry
            key, shuffle_key = jax.random.split(key)
            order = jax.random.permutation(shuffle_key, rollout_size)[:minibatches * minibatch]
            batches = jax.tree_util.tree_map(
                lambda x: x[order].reshape(minibatches, minibatch, *x.shape[1:]), flat)
            (params, opt_state), metrics = lax.scan(gradient_step, (params, opt_state), batches)
            return (params, opt_state, key), metrics

        key, epoch_key = jax.random.split(learner.key)
        (params, opt_state, _), metrics = lax.scan(
            epoch, (learner.params, learner.opt_state, epoch_key), None, length=config.n_epochs)
        return Learner(params, opt_state, learner.games, key), jax.tree_util.tree_map(
            jnp.mean, metrics)

    @jax.jit
    def iteration(learner: Learner, league: League) -> tuple[Learner, dict[str, jax.Array]]:
        learner, rollout = collect(learner, league)
        last_value = jax_league.value(learner.params, learner.games.observation)
        advantage = advantages(rollout, last_value)
        learner, metrics = update(learner, rollout, advantage)
        made = decisions(rollout.mask)
        episodes = (rollout.done * made).sum()  # a first deal's step ends no episode
        return learner, {**metrics, "decisions": made.sum(),
                         "reward_per_episode": rollout.reward.sum() / config.reward_scale
                         / jnp.maximum(episodes, 1)}

    return iteration


def make_learner(config: TrainConfig, rules: Any, env: EquationHiLo) -> tuple[
        Callable[[Learner, League], tuple[Learner, dict[str, jax.Array]]], Learner, League]:
    """The compiled iteration, the learner at its start and the empty league, as
    :func:`train` runs them (``bench/train_jax.py`` times the iteration)."""
    plays, data = zip(*(jax_league.jitted_form(name, rules, config.game)
                        for name in dict.fromkeys(config.baselines)), strict=True)  # one per name
    snapshots = config.max_snapshots if config.snapshot_every else 0
    key, init_key = jax.random.split(jax.random.PRNGKey(config.seed))
    params = start_params(config, rules, env, init_key)
    league = League(data, jax.tree_util.tree_map(
        lambda x: jnp.zeros((snapshots, *x.shape), x.dtype), params), jnp.int32(0))
    optimizer = optax.chain(optax.clip_by_global_norm(config.max_grad_norm),
                            optax.adam(config.learning_rate, eps=ADAM_EPS))
    start_games = jax.tree_util.tree_map(  # the first step of each deals its first match
        lambda x: jnp.broadcast_to(x, (config.num_envs, *x.shape)),
        JaxLearnerEnv(env).finished())
    learner = Learner(params, optimizer.init(params), start_games, key)
    return make_iteration(config, env, plays, snapshots, optimizer), learner, league


def check_config(config: TrainConfig) -> EquationHiLo:
    """The JAX backend of the config's rules; ValueError if the trainer cannot train it
    (another game, rules the backend refuses, a baseline without a jitted form)."""
    games.get(config.game).require("jax/ppo")
    for field in ("collectors", "imitate"):
        if getattr(config, field):
            raise ValueError(f"config field {field!r} is not supported with backend 'jax'")
    for name in config.baselines:
        if not jax_league.has_jitted_form(name, config.game):
            jax_league.jitted_form(name, config.rule_set(), config.game)  # names the ones
    try:
        return EquationHiLo(config.rule_set())
    except ValueError as exc:
        raise ValueError(f"backend 'jax': {exc}") from None


class Logs:
    """TensorBoard (torch's ``SummaryWriter``, when installed) and ``progress.csv`` (a row
    per iteration)."""

    def __init__(self, run_dir: Path, config: TrainConfig) -> None:
        self.path = run_dir / "progress.csv"
        self.path.write_text("")
        self.columns: list[str] | None = None
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:
            self.writer = None
        else:
            self.writer = SummaryWriter(str(run_dir / "tb"))
            self.writer.add_text("config", yaml.safe_dump(config.to_dict(), sort_keys=False))

    def record(self, step: int, values: dict[str, float]) -> None:
        """Values to TensorBoard."""
        if self.writer is not None:
            for key, value in values.items():
                self.writer.add_scalar(key, value, step)

    def iteration(self, step: int, values: dict[str, float]) -> None:
        """An iteration's values, to TensorBoard and ``progress.csv``."""
        self.record(step, values)
        row = {"timesteps": step, **values}
        with open(self.path, "a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=self.columns or list(row),
                                    extrasaction="ignore")
            if self.columns is None:
                self.columns = list(row)
                writer.writeheader()
            writer.writerow(row)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def train(config: TrainConfig, progress: bool = True,
          on_eval: Callable[[int, Scores, float], None] | None = None, *,
          seconds: float | None = None, eval_every_seconds: float | None = None,
          curve_title: str | None = None) -> Path:
    """Train as ``config`` says (``backend: jax``); returns the path of the final policy.
    The arguments are :func:`training.selfplay.train`'s: ``on_eval(decisions, scores,
    seconds)`` hears each evaluation, ``seconds`` is the whole run's budget, evaluations
    included (:mod:`training.budget`), ``eval_every_seconds`` evaluates on that clock too;
    ``progress`` prints a line per iteration."""
    # ---- 1. config, output folder, logging ----------------------------------------------------
    env = check_config(config)
    rules = config.rule_set()
    score = score_name(games.get(config.game))
    run_dir = config.run_dir
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    logs = Logs(run_dir, config)
    evals_path = run_dir / "evaluations.csv"
    with open(evals_path, "w", newline="") as f:
        csv.writer(f).writerow(["timesteps", "opponent", score, "ci95"])

    # ---- 2. opponents, the learner, the compiled iteration -----------------------------------
    iteration, learner, league = make_learner(config, rules, env)
    snapshots = jax.tree_util.tree_leaves(league.params)[0].shape[0]
    pool: list[Params] = []

    def save(path: Path) -> Path:
        return save_policy(jax.device_get(learner.params), path, rules, config.game)

    clock = RunClock(seconds, eval_every_seconds)

    def evaluate(step: int) -> None:
        with clock.evaluation() as learned:
            path = save(run_dir / "checkpoints" / "eval_model.npz")
            scores = evaluate_model(path, rules, config.baselines, config.eval_hands,
                                    config.seed, prefix=JAX_PREFIX)
            with open(evals_path, "a", newline="") as f:
                writer = csv.writer(f)
                for name, (mean, ci) in scores.items():
                    writer.writerow([step, name, f"{mean:.4f}", f"{ci:.4f}"])
            logs.record(step,
                        {f"eval/{name}_{score}": mean for name, (mean, _) in scores.items()}
                        | {f"eval/{name}_ci95": ci for name, (_, ci) in scores.items()})
            if on_eval is not None:
                on_eval(step, scores, learned)

    # ---- 3. learn: iterations, snapshots, checkpoints, evaluations ----------------------------
    clock.start()
    done = 0
    try:
        if seconds is not None:  # the curve's first point, and how long an evaluation takes
            evaluate(0)
        while done < config.total_timesteps:
            learner, metrics = iteration(learner, league)
            metrics = {f"train/{k}": float(v) for k, v in jax.device_get(metrics).items()}
            before, done = done, done + int(metrics.pop("train/decisions"))
            learned = clock.learning()
            logs.iteration(done, metrics | {"time/decisions_per_second": done / learned})
            if progress:
                print(f"[{done:,} decisions, {learned:.0f}s] reward per episode "
                      f"{metrics['train/reward_per_episode']:+.3f}, entropy "
                      f"{metrics['train/entropy']:.3f}", flush=True)

            if crossed(config.snapshot_every, before, done) and snapshots:
                save(run_dir / "checkpoints" / f"snapshot_{done}.npz")
                pool = [*pool, jax.device_get(learner.params)][-snapshots:]
                league = with_snapshots(league, pool)
            if crossed(config.checkpoint_every, before, done):
                save(run_dir / "checkpoints" / f"model_{done}.npz")
            on_clock = clock.due()
            if not clock.fits(1):  # the last evaluation must still fit
                break
            last = done >= config.total_timesteps  # its evaluation comes after
            if (crossed(config.eval_every, before, done) or on_clock) and not last and \
                    clock.fits(2):
                evaluate(done)
        # ---- 4. save, a last evaluation, the learning curve -------------------------------------
        final = save(run_dir / "model.npz")
        logs.record(done, {"time/train_seconds": clock.learning()})
        evaluate(done)
    finally:
        logs.close()
    plot_learning_curve(evals_path, run_dir / "learning_curve.png",
                        title=curve_title or CURVE_TITLE)
    return final
