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
| ``jax plain``  | the same program with every batching rule off (each loop a batched      |
|                | ``while_loop``, the snapshot's turns a select): what the rules earn     |

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

from hilo_env.envs import jax_learner  # noqa: E402
from hilo_env.equation_hilo import jax_backend, jax_chance  # noqa: E402
from hilo_env.training import jax_ppo  # noqa: E402
from hilo_env.training.config import TrainConfig  # noqa: E402
from hilo_env.training.jax_ppo import check_config, make_learner, with_snapshots  # noqa: E402

VARIANTS = ("sb3", "sb3 overlap", "jax", "jax plain")
SB3_VARIANTS = {"sb3": "unchecked", "sb3 overlap": "overlap"}
"""Each SB3 variant's name in ``bench/train.py``."""
RULES = (jax_backend.ADVANCE_SHARE, jax_backend.SHOWDOWN_SHARE, jax_chance.COMPACT_SHARE,
         jax_chance.DEAL_SHARE, jax_learner.OPPONENT_SHARE, jax_ppo.SNAPSHOT_SHARE)
"""Every batching rule's shares, which ``jax plain`` sets to 0 while it compiles."""


def sb3_bench() -> Any:
    """``bench/train.py`` as a module (its ``Run`` times the SB3 loops)."""
    spec = importlib.util.spec_from_file_location("bench_train", HERE / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class JaxRun:
    """The JAX trainer's iteration, timed a few iterations at a time; ``plain``: compiled
    with every batching rule off."""

    def __init__(self, config: TrainConfig, snapshots: int, plain: bool = False) -> None:
        self.variant = "jax plain" if plain else "jax"
        saved = [dict(rule) for rule in RULES]
        if plain:
            for rule in RULES:
                rule.update(dict.fromkeys(rule, 0))
        try:
            self.compile_seconds = self.build(config, snapshots)
        finally:
            for rule, shares in zip(RULES, saved, strict=True):
                rule.update(shares)

    def build(self, config: TrainConfig, snapshots: int) -> float:
        """Makes the iteration and the league; compiles and warms up (returns seconds)."""
        config = dataclasses.replace(config, snapshot_every=1 if snapshots else 0,
                                     max_snapshots=max(snapshots, 1))
        env = check_config(config)
        self.iteration, self.learner, league = make_learner(config, config.rule_set(), env)
        if snapshots:  # frozen copies of the (untrained) learner, as training adds them
            league = with_snapshots(league, [jax.device_get(self.learner.params)] * snapshots)
        self.league = league
        began = time.perf_counter()
        self.learn(2)  # compiles, and warms up
        return time.perf_counter() - began

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
        for variant in ("jax", "jax plain"):
            if variant in args.variants:
                runs.append(JaxRun(config, args.snapshots, plain=variant == "jax plain"))
                print(f"{variant}: compiled and warmed up in {runs[-1].compile_seconds:.1f} s",
                      flush=True)
        results: dict[str, list[dict[str, float]]] = {run.variant: [] for run in runs}
        for repeat in range(args.repeats):
            for run in runs:
                results[run.variant].append(run.learn(args.iterations))
                print(f"run {repeat + 1}, {run.variant}: "
                      f"{results[run.variant][-1]['rate']:,.0f} decisions/s", flush=True)
    finally:
        for run in runs:
            run.close()
    print(f"\n{args.repeats} runs of {args.iterations} iterations each "
          f"({args.iterations - 1} timed), medians; load average {os.getloadavg()[0]:.1f} at "
          "the end\n")
    names = {v: k for k, v in SB3_VARIANTS.items()} | {"jax": "jax", "jax plain": "jax plain"}
    first = names[next(iter(results))]
    print(f"ratio: to {first}")
    head = f"{'variant':<12}  {'decisions/s':>11}  {'ratio':>6}  {'CPU-s/iteration':>15}"
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
