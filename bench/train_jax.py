"""Learner decisions per second of the JAX trainer (``training.jax_ppo``) against the SB3
loops, on one config (network, games, rollout, epochs, minibatches), side by side in one run.

| variant        | what runs                                                              |
|----------------|------------------------------------------------------------------------|
| ``sb3``        | MaskablePPO's serial loop as ``hilo train`` runs it (``bench/train.py``'s |
|                | ``unchecked``): the NumPy batch simulator, collect then update          |
| ``sb3 overlap``| ``collectors: 1``: a worker process plays while the learner updates      |
|                | (``bench/train.py``'s ``overlap``)                                      |
| ``jax``        | one jitted program per iteration on the JAX backend (whatever device     |
|                | ``jax`` finds: the CPU here, a GPU where its plugin is installed)       |

Every variant plays the config's baselines, which must have a jitted form (default:
``random``), with ``--snapshots`` frozen copies of the untrained learner in the league. Each
run times whole iterations (rollout and update) in the steady state, from the end of the first
to the end of the last; the figure is the median of ``--repeats`` runs, taken in turn so that a
busy moment of the machine hits every variant. ``compile s`` is the JAX program's first call
(tracing and XLA). The load average is printed: on a shared machine, compare ratios of one
run, never figures of different runs.

    .venv/bin/python bench/train_jax.py                         # ppo_standard's sizes, CPU
    python bench/train_jax.py --variants jax --num-envs 65536 --n-steps 16 --batch-size 65536 \
        --snapshots 3                                           # on a GPU
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# this folder's jax.py (bench/jax.py) must not stand in for the jax package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import jax  # noqa: E402

from hilo_env.training.config import TrainConfig  # noqa: E402
from hilo_env.training.jax_ppo import check_config, make_learner, stacked  # noqa: E402

VARIANTS = ("sb3", "sb3 overlap", "jax")
SB3_VARIANTS = {"sb3": "unchecked", "sb3 overlap": "overlap"}
"""Each SB3 variant's name in ``bench/train.py``."""


def sb3_bench() -> Any:
    """``bench/train.py`` as a module (its ``Run`` times the SB3 loops)."""
    spec = importlib.util.spec_from_file_location("bench_train", HERE / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class JaxRun:
    """The JAX trainer's iteration, timed a few iterations at a time."""

    variant = "jax"

    def __init__(self, config: TrainConfig, snapshots: int) -> None:
        config = dataclasses.replace(config, snapshot_every=1 if snapshots else 0,
                                     max_snapshots=max(snapshots, 1))
        env = check_config(config)
        self.iteration, self.learner, league = make_learner(config, config.rule_set(), env)
        if snapshots:  # frozen copies of the (untrained) learner, as training adds them
            league = stacked([jax.device_get(self.learner.params)] * snapshots, snapshots)
        self.league = league
        began = time.perf_counter()
        self.learn(2)  # compiles, and warms up
        self.compile_seconds = time.perf_counter() - began

    def learn(self, iterations: int) -> dict[str, float]:
        ends, decisions, cpu = [], 0, time.process_time()
        for _ in range(iterations):
            self.learner, metrics = self.iteration(self.learner, self.league)
            made = int(metrics["decisions"])  # waits for the iteration
            ends.append(time.perf_counter())
            decisions += made if ends[1:] else 0
        return {"rate": decisions / (ends[-1] - ends[0]),
                "cpu": (time.process_time() - cpu) / iterations}

    def close(self) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", default="ppo_standard",
                        help="training config name or path, its sizes used (default: "
                             "%(default)s)")
    parser.add_argument("--baselines", nargs="+", default=["random"],
                        help="the opponents, agents with a jitted form (default: random)")
    parser.add_argument("--num-envs", type=int, default=None, help="override num_envs")
    parser.add_argument("--n-steps", type=int, default=None, help="override n_steps")
    parser.add_argument("--batch-size", type=int, default=None, help="override batch_size")
    parser.add_argument("--iterations", type=int, default=3,
                        help="iterations (rollout and update) per run, the first untimed "
                             "(default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per variant (median)")
    parser.add_argument("--snapshots", type=int, default=0,
                        help="frozen snapshots in the league (default: %(default)s)")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    args = parser.parse_args()
    if args.iterations < 2:
        parser.error("--iterations: at least 2 (the first is not timed)")

    folder = tempfile.mkdtemp(prefix="bench_train_jax_")
    overrides = {"baselines": args.baselines, "output_dir": folder, "snapshot_every": 0}
    for name in ("num_envs", "n_steps", "batch_size"):
        if getattr(args, name):
            overrides[name] = getattr(args, name)
    config = TrainConfig.from_yaml(args.config, **overrides)
    print(f"training loop of {args.config}: {config.num_envs} games, rollouts of "
          f"{config.num_envs * config.n_steps:,} decisions, {config.n_epochs} epochs of "
          f"minibatches of {config.batch_size:,}, net {config.net_arch}, opponents "
          f"{config.baselines} + {args.snapshots} snapshots")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.processor() or ''}"
          f" python {platform.python_version()}, jax {jax.__version__} on "
          f"{jax.devices()[0].device_kind}; load average {os.getloadavg()[0]:.1f} at the start")
    runs: list[Any] = []
    try:
        if any(v in SB3_VARIANTS for v in args.variants):
            bench = sb3_bench()
            runs += [bench.Run(SB3_VARIANTS[v], config, args.snapshots, folder)
                     for v in args.variants if v in SB3_VARIANTS]
        if "jax" in args.variants:
            runs.append(JaxRun(config, args.snapshots))
            print(f"jax: compiled and warmed up in {runs[-1].compile_seconds:.1f} s")
        results: dict[str, list[dict[str, float]]] = {run.variant: [] for run in runs}
        for _ in range(args.repeats):
            for run in runs:
                results[run.variant].append(run.learn(args.iterations))
    finally:
        for run in runs:
            run.close()
    print(f"\n{args.repeats} runs of {args.iterations} iterations each "
          f"({args.iterations - 1} timed), medians; load average {os.getloadavg()[0]:.1f} at "
          "the end\n")
    names = {v: k for k, v in SB3_VARIANTS.items()} | {"jax": "jax"}
    head = f"{'variant':<12}  {'decisions/s':>11}  {'x sb3':>6}  {'CPU-s/iteration':>15}"
    print(head)
    print("-" * len(head))
    base = None
    for variant, rows in results.items():
        rate = statistics.median(r["rate"] for r in rows)
        base = base or rate
        cpu = statistics.median(r["cpu"] for r in rows)
        print(f"{names[variant]:<12}  {rate:>11,.0f}  {rate / base:>6.2f}  {cpu:>15.2f}")


if __name__ == "__main__":
    main()
