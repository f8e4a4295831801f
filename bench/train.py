"""Learner decisions per second of the self-play training loop, and where the time goes.

Builds the learner as ``hilo train`` does (``training.selfplay.make_learner``: MaskablePPO on
``HiLoVectorEnv`` against the config's opponent pool; default config ``ppo_standard``, the
shipped agent's run) and times ``learn`` over a few whole rollouts, after two rollouts of
warm-up. The variants run side by side in one process, in turn, each figure the median of
``--repeats`` runs:

| variant         | what changes                                                          |
|-----------------|-----------------------------------------------------------------------|
| ``as shipped``  | the loop as the shipped agent was trained (torch's distribution      |
|                 | argument checks on, one torch thread throughout)                     |
| ``unchecked``   | ``selfplay.unchecked_distributions``: the checks off (same numbers,  |
|                 | bit for bit), as ``hilo train`` runs now                             |
| ``+2 threads``  | also two torch threads for the gradient steps (``update_threads: 2``)|
| ``overlap``     | ``collectors: 1``: a worker process plays the games while the        |
|                 | learner updates (``training.overlap``; one update of policy lag,      |
|                 | corrected as decoupled PPO does)                                      |
| ``overlap x2``  | ``collectors: 2``: two workers, half the games each                  |
| ``overlap bf16``| ``overlap`` with ``update_precision: bfloat16``: the learner's passes |
|                 | under bfloat16 autocast (configs/train/ppo_overlap.yaml)              |
| ``overlap x2    | both: two workers, the learner's passes in bfloat16                   |
|   bf16``        |                                                                       |

Each run times whole rollout cycles in the steady state: from the end of its first rollout to
the end of its last (so a rollout the collectors played while other variants ran is not
counted). Columns: wall-clock decisions/s; the share of that time in PPO's gradient steps
(``update``) and in collecting (``collect``: for the overlapped loop, the learner waiting for
its collectors); the opponents' ``act_batch`` share of the whole run (the serial loop only:
the overlapped loop's opponents play in other processes). The rest of ``collect`` is the
simulator, the policy's forward passes and SB3's bookkeeping. CPU seconds per rollout, of
this process (``CPU-s learner``) and of the collector processes together (``collectors``),
say what the loop costs whatever the machine's load: on two free cores the overlapped loop
takes about the larger of the two per rollout (with two collectors, about half their sum).
``--profile`` prints pyinstrument's tree of one ``unchecked`` run.

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
from hilo_env.training.selfplay import (
    add_snapshot,
    make_learner,
    phase_threads,
    unchecked_distributions,
)

VARIANTS = ("as shipped", "unchecked", "+2 threads", "overlap", "overlap x2", "overlap bf16",
            "overlap x2 bf16")
COLLECTORS = {"overlap": 1, "overlap x2": 2, "overlap bf16": 1, "overlap x2 bf16": 2}
"""The overlapped variants' ``collectors``."""


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


class PhaseClock(BaseCallback):
    """When each rollout started and ended: between an end and the next start PPO updates."""

    def __init__(self) -> None:
        super().__init__()
        self.starts: list[float] = []
        self.ends: list[float] = []

    def _on_rollout_start(self) -> None:
        self.starts.append(time.perf_counter())

    def _on_rollout_end(self) -> None:
        self.ends.append(time.perf_counter())

    def _on_step(self) -> bool:
        return True

    def steady(self) -> tuple[float, float, float]:
        """(wall, update, collect) seconds from the first rollout's end to the last's."""
        wall = self.ends[-1] - self.ends[0]
        pairs = zip(self.ends[:-1], self.starts[1:], strict=True)
        update = sum(start - end for end, start in pairs)
        return wall, update, wall - update


class Run:
    """One variant's learner, timed a few rollouts at a time."""

    def __init__(self, variant: str, config: TrainConfig, snapshots: int, folder: str) -> None:
        self.variant = variant
        threads = 2 if variant == "+2 threads" else config.torch_threads
        precision = "bfloat16" if variant.endswith("bf16") else "float32"
        self.config = dataclasses.replace(config, update_threads=threads,
                                          collectors=COLLECTORS.get(variant, 0),
                                          update_precision=precision)
        rules = self.config.rule_set()
        self.model, self.env, pool = make_learner(self.config, rules)
        for k in range(snapshots):  # frozen copies of the (untrained) learner, as training adds
            path = Path(folder) / f"snapshot_{k}.zip"
            save_model(self.model, path, rules)
            add_snapshot(self.config, self.env, pool, path)
        self.opponents: list[TimedOpponent] = []
        if not self.config.collectors:
            timed = {id(a): TimedOpponent(a) for a in pool.opponents(self.config.num_envs)}
            self.opponents = list(timed.values())
            self.env.set_opponents([timed[id(a)] for a in pool.opponents(self.config.num_envs)])
        self.rollout = self.config.num_envs * self.config.n_steps
        self.learn(2)  # warm-up

    def learn(self, rollouts: int) -> dict[str, float]:
        clock = PhaseClock()
        for o in self.opponents:
            o.seconds = 0.0
        collected = getattr(self.env, "cpu_seconds", 0.0)
        checks = (contextlib.nullcontext() if self.variant == "as shipped"
                  else unchecked_distributions())
        callbacks = [clock] + ([phase_threads(self.config)] if self.variant == "+2 threads"
                               else [])
        torch.set_num_threads(self.config.torch_threads)
        whole, cpu = time.perf_counter(), time.process_time()
        with checks:
            self.model.learn(total_timesteps=rollouts * self.rollout, callback=callbacks,
                             reset_num_timesteps=False)
        whole, cpu = time.perf_counter() - whole, time.process_time() - cpu
        torch.set_num_threads(self.config.torch_threads)
        wall, update, collect = clock.steady()
        decisions = (rollouts - 1) * self.rollout
        return {"rate": decisions / wall, "update": update / wall, "collect": collect / wall,
                "opponents": sum(o.seconds for o in self.opponents) / whole,
                "cpu": cpu / rollouts,
                "collectors_cpu": (getattr(self.env, "cpu_seconds", 0.0) - collected) / rollouts}

    def close(self) -> None:
        self.env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", default="ppo_standard",
                        help="training config name or path (default: %(default)s)")
    parser.add_argument("--rollouts", type=int, default=3,
                        help="rollouts per run, the first untimed (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per variant (median)")
    parser.add_argument("--snapshots", type=int, default=0,
                        help="frozen snapshots in the pool, as after the first "
                             "snapshot_every decisions (default: %(default)s)")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--profile", action="store_true",
                        help="pyinstrument of one 'unchecked' run instead of the table")
    args = parser.parse_args()
    if args.rollouts < 2:
        parser.error("--rollouts: at least 2 (the first is not timed)")

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
    try:
        for _ in range(args.repeats):
            for run in runs:  # in turn, so a busy moment of the machine hits every variant
                results[run.variant].append(run.learn(args.rollouts))
    finally:
        for run in runs:
            run.close()
    print(f"\n{args.repeats} runs of {args.rollouts} rollouts each ({args.rollouts - 1} timed "
          f"cycles), medians; load average {os.getloadavg()[0]:.1f} at the end\n")
    head = (f"{'variant':<12}  {'decisions/s':>11}  {'x':>5}  {'update':>6}  {'collect':>7}  "
            f"{'opponents':>9}  {'CPU-s learner':>13}  {'collectors':>10}")
    print(head)
    print("-" * len(head))
    base = None
    for variant, rows in results.items():
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        base = base or med["rate"]
        overlapped = variant in COLLECTORS
        opponents = "-" if overlapped else f"{med['opponents']:.0%}"
        collectors = f"{med['collectors_cpu']:.2f}" if overlapped else "-"
        print(f"{variant:<12}  {med['rate']:>11,.0f}  {med['rate'] / base:>5.2f}  "
              f"{med['update']:>6.0%}  {med['collect']:>7.0%}  {opponents:>9}  "
              f"{med['cpu']:>13.2f}  {collectors:>10}")


if __name__ == "__main__":
    main()
