"""PPO's updates overlapped with the next rollout's games (``TrainConfig.collectors``).

SB3's MaskablePPO collects a rollout, then updates, then collects again: on a 2-core machine
one core idles through most of the loop. Here ``collectors`` worker processes play the
learner's games (the simulator, the opponents and the policy's forward passes) and send back
each rollout, while the main process runs the gradient steps on the one before:

    collectors:  play R1 (w0) | play R2 (w0)    | play R3 (w1)    | ...
    learner:     wait         | update on R1 -> w1 | update on R2 -> w2 | ...

Rollout ``k + 1`` is played with the weights of update ``k - 1``: one update of policy lag, as
IMPALA and APPO have. The update corrects for it as decoupled PPO does (Hilton et al., "Batch
size-invariance for policy optimization", 2022): when a rollout arrives the learner computes
its actions' log-probabilities and values with its current weights (it has the spare time),
PPO's ratio and clip are taken against those (the proximal policy: each update moves at most a
clip's width from where it starts, as in the serial loop), and each advantage is multiplied by
the importance weight of the current weights over the ones that played, so the gradient is
the current policy's. Taking the ratio against the weights that played instead, as SB3's
serial loop does, would clip away the samples the previous update already moved (a whole
run so learned less per decision: the README's training speed); dropping the importance
weight would make the gradient the playing weights'. Snapshots added to the opponent pool
(:meth:`Collectors.add_snapshot`) reach the games from the next rollout requested.

Collector ``i`` plays ``num_envs / collectors`` games seeded ``seed + SEED_STRIDE * i``, with
its own opponent pool built from the config as :func:`training.selfplay.make_learner` builds
one (so one collector plays the same deals as the serial loop).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import time
import traceback
import weakref
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv

from hilo_env.agents.ppo import policy_log_probs, sample_actions
from hilo_env.training.config import TrainConfig
from hilo_env.training.learner_games import OpponentPool, learner_env, unchecked_distributions

SEED_STRIDE = 1_000
"""Collector ``i`` seeds its deals, opponents and sampling with ``seed + SEED_STRIDE * i``."""
START_SECONDS = 300.0
"""How long a collector may take to start (import torch, build its games) before it counts
as failed."""

Rollout = dict[str, np.ndarray]
"""One rollout of a collector's games, time-major: ``observations`` (n_steps, N, obs_size),
``actions``, ``rewards`` (scaled), ``episode_starts``, ``log_probs`` (n_steps, N), ``masks``
(n_steps, N, n_actions) bool; ``last_observations`` (N, obs_size) and ``last_dones`` (N,) for
the bootstrap; ``episodes`` (E, 2): return and length of each episode that ended, in order."""
TIME_MAJOR = ("observations", "actions", "rewards", "episode_starts", "log_probs", "masks")
"""A rollout's (n_steps, N, ...) arrays: collectors' parts join on axis 1, the others on 0."""


def collect(env: Any, policy: MaskableActorCriticPolicy, n_steps: int, reward_scale: float,
            observations: np.ndarray, starts: np.ndarray) -> Rollout:
    """Play ``n_steps`` learner decisions in every game of ``env`` (a ``HiLoVectorEnv`` or
    ``AECLearnerVectorEnv``) from ``observations``; ``starts``: where an episode begins.

    Only the actor runs here (the learner recomputes the values), and nothing of SB3's
    per-step bookkeeping: this is the busier side of the overlapped loop."""
    n, size = observations.shape
    n_actions = int(env.single_action_space.n)
    out: Rollout = {
        "observations": np.empty((n_steps, n, size), np.float32),
        "actions": np.empty((n_steps, n), np.int64),
        "rewards": np.empty((n_steps, n), np.float32),
        "episode_starts": np.empty((n_steps, n), np.float32),
        "log_probs": np.empty((n_steps, n), np.float32),
        "masks": np.empty((n_steps, n, n_actions), bool),
    }
    episodes: list[np.ndarray] = []
    for t in range(n_steps):
        out["observations"][t] = observations
        out["episode_starts"][t] = starts
        masks = out["masks"][t] = env.action_masks()
        log_probs = policy_log_probs(policy, observations, masks)
        actions = sample_actions(log_probs)
        out["log_probs"][t] = log_probs.gather(-1, actions[:, None]).squeeze(-1).numpy()
        out["actions"][t] = actions = actions.numpy()
        observations, rewards, terminated, truncated, info = env.step(actions)
        out["rewards"][t] = rewards * reward_scale
        starts = terminated | truncated
        if "episode" in info:
            ended = info["_episode"]
            episodes.append(np.stack([info["episode"]["r"][ended],
                                      info["episode"]["l"][ended]], axis=1))
    out["last_observations"] = np.asarray(observations, np.float32)
    out["last_dones"] = np.asarray(starts, bool)
    out["episodes"] = np.concatenate(episodes) if episodes else np.zeros((0, 2))
    return out


def serve(conn: Connection, config: TrainConfig, index: int, games: int) -> None:
    """A collector process: builds its games and opponent pool, then answers the learner's
    messages in order until ``close``: ``("snapshot", path)`` adds a frozen learner to its
    pool, ``("collect", weights)`` plays one rollout with the policy's ``weights`` and sends
    it back with the CPU seconds it took and the names of the opponents it played
    (snapshots by their file's stem). A failure is sent back as ``("error",
    traceback)``."""
    try:
        torch.set_num_threads(config.torch_threads)
        seed = config.seed + SEED_STRIDE * index
        torch.manual_seed(seed)
        rules = config.rule_set()
        pool = OpponentPool(config, rules)
        env = learner_env(rules, games, pool.opponents(games), seed)
        policy = MaskableActorCriticPolicy(env.single_observation_space,
                                           env.single_action_space, lambda _: 0.0,
                                           net_arch=list(config.net_arch))
        policy.set_training_mode(False)
        observations, _ = env.reset(seed=seed)
        starts = np.ones(games, bool)
        conn.send(("ready", None))
        with unchecked_distributions():
            while True:
                kind, payload = conn.recv()
                if kind == "close":
                    return
                if kind == "snapshot":
                    pool.add_snapshot(payload)
                    env.set_opponents(pool.opponents(games))
                elif kind == "collect":
                    cpu = time.process_time()
                    policy.load_state_dict({k: torch.from_numpy(v) for k, v in payload.items()})
                    rollout = collect(env, policy, config.n_steps, config.reward_scale,
                                      observations, starts)
                    observations, starts = rollout["last_observations"], rollout["last_dones"]
                    conn.send(("rollout", (rollout, time.process_time() - cpu,
                                           [o.name for o in env.opponents])))
                else:
                    raise ValueError(f"unknown message {kind!r}")
    except Exception:  # the learner raises it, with this traceback
        conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


class Collectors(VecEnv):
    """The worker processes that play the learner's games, as the SB3 ``VecEnv`` the learner
    is built on (its spaces and ``num_envs``; its games are never stepped from here).

    ``request(weights)`` starts a rollout in every collector, ``receive()`` waits for them
    and returns it; ``add_snapshot(path)`` adds a frozen learner to every collector's pool;
    ``close()`` ends the processes (also when this object is collected, and at exit: the
    processes are daemons)."""

    def __init__(self, config: TrainConfig) -> None:
        rules = config.rule_set()
        probe = learner_env(rules, 1, OpponentPool(config, rules).baselines, config.seed)
        super().__init__(config.num_envs, probe.single_observation_space,
                         probe.single_action_space)
        self.config = config
        games = config.num_envs // config.collectors
        context = multiprocessing.get_context("spawn")  # fork is unsafe once torch has threads
        self.connections: list[Connection] = []
        self.processes: list[multiprocessing.process.BaseProcess] = []
        for i in range(config.collectors):
            mine, theirs = context.Pipe()
            process = context.Process(target=serve, args=(theirs, config, i, games),
                                      name=f"hilo-collector-{i}", daemon=True)
            process.start()
            theirs.close()
            self.connections.append(mine)
            self.processes.append(process)
        self.requested = False
        self.cpu_seconds = 0.0  # the collectors' CPU time playing rollouts, all of them
        self.opponents: list[list[str]] = []  # each collector's, in the last rollout
        self.finalizer = weakref.finalize(self, stop, self.connections, self.processes)
        for i in range(config.collectors):
            self.answer(i, "ready", START_SECONDS)

    def answer(self, i: int, expected: str, timeout: float | None = None) -> Any:
        """Collector ``i``'s next message, which must be ``expected``; a collector's error or
        death raises RuntimeError."""
        conn, process, waited = self.connections[i], self.processes[i], 0.0
        while not conn.poll(1.0):
            waited += 1.0
            if not process.is_alive() or (timeout is not None and waited > timeout):
                self.close()
                raise RuntimeError(f"collector {i} stopped answering (exit code "
                                   f"{process.exitcode})")
        try:
            kind, payload = conn.recv()
        except EOFError:
            self.close()
            raise RuntimeError(f"collector {i} ended (exit code {process.exitcode})") from None
        if kind == "error":
            self.close()
            raise RuntimeError(f"collector {i} failed:\n{payload}")
        if kind != expected:
            raise RuntimeError(f"collector {i} sent {kind!r}, expected {expected!r}")
        return payload

    def send(self, i: int, message: tuple[str, Any]) -> None:
        """Send collector ``i`` a message; if it has ended, raise the error it left instead."""
        try:
            self.connections[i].send(message)
        except OSError:
            self.answer(i, "error")  # raises RuntimeError with its traceback, or its end
            raise

    def request(self, weights: dict[str, np.ndarray]) -> None:
        """Every collector starts a rollout with the policy's ``weights``."""
        if self.requested:
            raise RuntimeError("a rollout is already under way")
        for i in range(len(self.connections)):
            self.send(i, ("collect", weights))
        self.requested = True

    def receive(self) -> Rollout:
        """The rollout under way, every collector's games side by side."""
        if not self.requested:
            raise RuntimeError("no rollout under way")
        answers = [self.answer(i, "rollout") for i in range(len(self.connections))]
        self.requested = False
        self.cpu_seconds += sum(cpu for _, cpu, _ in answers)
        self.opponents = [names for _, _, names in answers]
        parts = [rollout for rollout, _, _ in answers]
        if len(parts) == 1:
            return parts[0]
        return {key: np.concatenate([p[key] for p in parts], axis=1 if key in TIME_MAJOR else 0)
                for key in parts[0]}

    def add_snapshot(self, path: str | Path) -> None:
        """The learner saved at ``path`` joins every collector's opponent pool, from the next
        rollout requested."""
        for i in range(len(self.connections)):
            self.send(i, ("snapshot", Path(path)))

    def close(self) -> None:
        self.finalizer()

    # ---- what SB3 asks of a VecEnv ------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """Zeros: SB3 asks for first observations before learning, but the learner's
        rollouts come from the collectors, which reset their own games."""
        assert isinstance(self.observation_space, spaces.Box)
        return np.zeros((self.num_envs, *self.observation_space.shape), np.float32)

    def step_async(self, actions: np.ndarray) -> None:
        raise NotImplementedError("the collectors play the games (OverlappedPPO)")

    def step_wait(self) -> Any:
        raise NotImplementedError("the collectors play the games (OverlappedPPO)")

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "render_mode":  # SB3 asks; the games are not rendered
            return [None] * len(list(self._get_indices(indices)))
        raise AttributeError(f"the games live in the collector processes: no {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"the games live in the collector processes: no {attr_name!r}")

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list[Any]:
        raise AttributeError(f"the games live in the collector processes: no {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * self.num_envs


def stop(connections: list[Connection], processes: list[Any]) -> None:
    """Ask each collector to close, then end those that do not within a few seconds."""
    for conn in connections:
        with contextlib.suppress(OSError, ValueError):  # already closed, or ended
            conn.send(("close", None))
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.terminate()
            process.join(timeout=5)
    for conn in connections:
        conn.close()


class OverlappedPPO(MaskablePPO):
    """MaskablePPO whose rollouts come from :class:`Collectors`: the next rollout is played
    while this one's gradient steps run (module docstring). Same hyperparameters, same
    ``train``; callbacks hear ``on_step`` once per decision step of each rollout as it
    arrives (their ``locals`` are not filled in)."""

    env: Collectors
    autocast_updates = False
    """Whether the learner's passes run under bfloat16 autocast (``update_precision``)."""

    def precision(self) -> torch.autocast:
        """The context of the learner's passes: bfloat16 autocast if ``autocast_updates``.

        Without autocast's cache of the weights' bfloat16 copies: it lives as long as the
        context, so each gradient step after the first would run on the weights the update
        started from."""
        return torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.autocast_updates,
                              cache_enabled=False)

    def train(self) -> None:
        """MaskablePPO's gradient steps, under bfloat16 autocast if ``autocast_updates``."""
        with self.precision():
            super().train()

    def policy_weights(self) -> dict[str, np.ndarray]:
        """The policy's parameters as NumPy copies, to send to the collectors."""
        return {k: v.detach().cpu().numpy().copy() for k, v in self.policy.state_dict().items()}

    def collect_rollouts(self, env: VecEnv, callback: BaseCallback,  # type: ignore[override]
                         rollout_buffer: Any, n_rollout_steps: int,
                         use_masking: bool = True) -> bool:
        """Receive the rollout under way (requesting one first if none is), hear the
        callbacks, request the next with the current weights, and fill ``rollout_buffer``
        with the current weights' values and log-probabilities and the advantages weighted
        for the lag (module docstring)."""
        collectors = self.env
        callback.on_rollout_start()
        if not collectors.requested:
            collectors.request(self.policy_weights())
        rollout = collectors.receive()
        for _ in range(n_rollout_steps):
            self.num_timesteps += collectors.num_envs
            if not callback.on_step():
                return False  # as SB3 does, the rollout is dropped
        self.ep_info_buffer.extend({"r": float(r), "l": int(length)}
                                   for r, length in rollout["episodes"])
        collectors.request(self.policy_weights())  # played while this one trains

        self.policy.set_training_mode(False)
        rollout_buffer.reset()
        rollout_buffer.observations[:] = rollout["observations"]
        rollout_buffer.actions[:] = rollout["actions"][..., None]
        rollout_buffer.rewards[:] = rollout["rewards"]
        rollout_buffer.episode_starts[:] = rollout["episode_starts"]
        rollout_buffer.action_masks[:] = rollout["masks"]
        observations, masks = rollout["observations"], rollout["masks"]
        with torch.no_grad(), self.precision():
            values, log_probs, _ = self.policy.evaluate_actions(
                torch.as_tensor(observations.reshape(-1, observations.shape[-1])),
                torch.as_tensor(rollout["actions"].reshape(-1)),
                action_masks=masks.reshape(-1, masks.shape[-1]))
            last_values = self.policy.predict_values(
                torch.as_tensor(rollout["last_observations"]))
        shape = observations.shape[:2]
        rollout_buffer.values[:] = values.float().numpy().reshape(shape)
        rollout_buffer.pos, rollout_buffer.full = rollout_buffer.buffer_size, True
        rollout_buffer.compute_returns_and_advantage(last_values=last_values.float(),
                                                     dones=rollout["last_dones"])
        proximal = log_probs.float().numpy().reshape(shape)
        weights = np.exp(proximal - rollout["log_probs"])
        rollout_buffer.log_probs[:] = proximal
        rollout_buffer.advantages *= weights
        self.logger.record("train/behaviour_weight_mean", float(weights.mean()))
        self.logger.record("train/behaviour_weight_max", float(weights.max()))
        callback.on_rollout_end()
        return True
