"""Learner decisions per second of the self-play training loop, and where the time goes.

Builds the learner as ``hilo train`` does (``training.selfplay.make_learner``: MaskablePPO on
``HiLoVectorEnv`` against the config's opponent pool; default config ``ppo_standard``, the
shipped agent's run) and times ``learn`` over a few whole rollouts, after one rollout of
warm-up. The variants run side by side in one process, in turn, each figure the median of
``--repeats`` runs:

| variant         | what changes                                                          |
|-----------------|-----------------------------------------------------------------------|
| ``as shipped``  | the loop as the shipped agent was trained (torch's distribution      |
|                 | argument checks on, one torch thread throughout)                     |
| ``unchecked``   | ``selfplay.unchecked_distributions``: the checks off (same numbers,  |
|                 | bit for bit), as ``hilo train`` runs now                             |
| ``+2 threads``  | also two torch threads for the gradient steps (``update_threads: 2``)|

Columns: wall-clock decisions/s; the share of wall time in PPO's gradient steps (``update``)
and in the opponents' ``act_batch`` (``opponents``); the rest is the simulator, the policy's
forward passes and SB3's rollout bookkeeping. CPU time is shown too: on a shared machine it
says what the process got. ``--profile`` prints pyinstrument's tree of one ``unchecked`` run.

    .venv/bin/python bench/train.py                   # about four minutes
    .venv/bin/python bench/train.py --snapshots 3     # with frozen snapshots in the pool
    .venv/bin/python bench/train.py --profile
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback

from hilo_env.agents.ppo import save_model
from hilo_env.training.config import TrainConfig
from hilo_env.training.selfplay import make_learner, phase_threads, unchecked_distributions

VARIANTS = ("as shipped", "unchecked", "+2 threads")


class TimedOpponent:
    """An opponent whose ``act_batch`` time is added up."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.observes = getattr(agent, "observes", True)
        self.seconds = 0.0

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        start = time.perf_counter()
        try:
            return self.agent.act_batch(observations, masks)
        finally:
            self.seconds += time.perf_counter() - start


class UpdateClock(BaseCallback):
    """Wall time between the end of each rollout and the start of the next: PPO's update."""

    def __init__(self) -> None:
        super().__init__()
        self.seconds = 0.0
        self.ended: float | None = None

    def _on_rollout_start(self) -> None:
        if self.ended is not None:
            self.seconds += time.perf_counter() - self.ended
            self.ended = None

    def _on_rollout_end(self) -> None:
        self.ended = time.perf_counter()

    def _on_step(self) -> bool:
        return True

    def finish(self) -> None:
        """The update after the last rollout ends with ``learn``."""
        self._on_rollout_start()


class Run:
    """One variant's learner, timed a few rollouts at a time."""

    def __init__(self, variant: str, config: TrainConfig, snapshots: int, folder: str) -> None:
        self.variant = variant
        threads = 2 if variant == "+2 threads" else config.torch_threads
        self.config = dataclasses.replace(config, update_threads=threads)
        rules = self.config.rule_set()
        self.model, self.env, pool = make_learner(self.config, rules)
        for k in range(snapshots):  # frozen copies of the (untrained) learner, as training adds
            path = Path(folder) / f"snapshot_{k}.zip"
            save_model(self.model, path, rules)
            pool.add_snapshot(path)
        timed = {id(a): TimedOpponent(a) for a in pool.opponents(self.config.num_envs)}
        self.opponents = list(timed.values())
        self.env.set_opponents([timed[id(a)] for a in pool.opponents(self.config.num_envs)])
        self.rollout = self.config.num_envs * self.config.n_steps
        self.learn(1)  # warm-up

    def learn(self, rollouts: int) -> dict[str, float]:
        clock = UpdateClock()
        for o in self.opponents:
            o.seconds = 0.0
        checks = (contextlib.nullcontext() if self.variant == "as shipped"
                  else unchecked_distributions())
        callbacks = [clock] + ([phase_threads(self.config)] if self.variant == "+2 threads"
                               else [])
        torch.set_num_threads(self.config.torch_threads)
        wall, cpu = time.perf_counter(), time.process_time()
        with checks:
            self.model.learn(total_timesteps=rollouts * self.rollout, callback=callbacks,
                             reset_num_timesteps=False)
        clock.finish()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        torch.set_num_threads(self.config.torch_threads)
        decisions = rollouts * self.rollout
        return {"rate": decisions / wall, "cpu_rate": decisions / cpu,
                "update": clock.seconds / wall,
                "opponents": sum(o.seconds for o in self.opponents) / wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", default="ppo_standard",
                        help="training config name or path (default: %(default)s)")
    parser.add_argument("--rollouts", type=int, default=2,
                        help="rollouts per timed run (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per variant (median)")
    parser.add_argument("--snapshots", type=int, default=0,
                        help="frozen snapshots in the pool, as after the first "
                             "snapshot_every decisions (default: %(default)s)")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--profile", action="store_true",
                        help="pyinstrument of one 'unchecked' run instead of the table")
    args = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="bench_train_")  # the snapshots' files
    config = TrainConfig.from_yaml(args.config, output_dir=folder)
    print(f"training loop of {args.config}: {config.num_envs} games, rollouts of "
          f"{config.num_envs * config.n_steps:,} decisions, {config.n_epochs} epochs of "
          f"minibatches of {config.batch_size:,}, net {config.net_arch}, opponents "
          f"{config.baselines} + {args.snapshots} snapshots")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.processor() or ''}"
          f" python {platform.python_version()}, torch {torch.__version__}; load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    if args.profile:
        from pyinstrument import Profiler

        run = Run("unchecked", config, args.snapshots, folder)
        with Profiler(interval=0.002) as prof:
            run.learn(args.rollouts)
        print(prof.output_text(unicode=False, color=False))
        return
    runs = [Run(v, config, args.snapshots, folder) for v in args.variants]
    results: dict[str, list[dict[str, float]]] = {v: [] for v in args.variants}
    for _ in range(args.repeats):
        for run in runs:  # in turn, so a busy moment of the machine hits every variant
            results[run.variant].append(run.learn(args.rollouts))
    print(f"\n{args.repeats} runs of {args.rollouts} rollouts each, medians; load average "
          f"{os.getloadavg()[0]:.1f} at the end\n")
    head = (f"{'variant':<12}  {'decisions/s':>11}  {'x':>5}  {'update':>6}  {'opponents':>9}"
            f"  {'decisions/CPU-s':>15}")
    print(head)
    print("-" * len(head))
    base = None
    for variant, rows in results.items():
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        base = base or med["rate"]
        print(f"{variant:<12}  {med['rate']:>11,.0f}  {med['rate'] / base:>5.2f}  "
              f"{med['update']:>6.0%}  {med['opponents']:>9.0%}  {med['cpu_rate']:>15,.0f}")


if __name__ == "__main__":
    main()
