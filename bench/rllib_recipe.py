"""RLlib's own route as docs/libraries.md's recipe writes it, against ``hilo train
rllib_league``: env steps per second sampled (decisions of every seat, the policy acting,
torch on the CPU), in one run, samples alternating between them.

Three setups, each sampling on the driver (``num_env_runners=0``, so that all three live at
once on a small machine): the recipe with RLlib's env-runner defaults (one game per runner,
``episodes_to_numpy=True``), the recipe as written (the project's settings: 16 games per
runner, ``episodes_to_numpy=False``), and the ``rllib_league`` config's algorithm as
``hilo train`` builds it (self-play in every game: no baseline's equity to compute). Each
figure is the median of ``--repeats`` samples of ``--steps`` decisions, after a warm-up.

    python bench/rllib_recipe.py          # needs the rllib extra; a few minutes
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ray

from hilo_env.training.config import TrainConfig
from hilo_env.training.rllib_train import build_algorithm

DOC = Path(__file__).resolve().parent.parent / "docs" / "libraries.md"


def recipe_config() -> Any:
    """The ``config`` that docs/libraries.md's RLlib recipe builds, run as written."""
    block = re.search(r"```python rllib\n(.*?)```", DOC.read_text(), re.DOTALL)
    if block is None:
        raise ValueError(f"no ```python rllib block in {DOC}")
    namespace: dict[str, Any] = {}
    exec(compile(block.group(1), f"{DOC.name} (rllib)", "exec"), namespace)
    return namespace["config"]


def setups() -> dict[str, Callable[[], Any]]:
    """Each setup's algorithm builder, sampling on the driver."""
    league = TrainConfig.from_yaml("rllib_league", output_dir="/tmp/hilo_bench_rllib",
                                   num_env_runners=0, selfplay_share=1.0)
    return {
        "recipe, RLlib's runner defaults": lambda: recipe_config().env_runners(
            num_env_runners=0, num_envs_per_env_runner=1, episodes_to_numpy=True).build_algo(),
        "recipe as written": lambda: recipe_config().env_runners(num_env_runners=0)
        .build_algo(),
        "hilo train rllib_league": lambda: build_algorithm(league, league.rule_set()),
    }


def sample_rate(algo: Any, steps: int) -> float:
    """Env steps per second of one sample of ``steps`` decisions by the driver's runner."""
    start = time.perf_counter()
    episodes = algo.env_runner_group.foreach_env_runner(
        lambda runner: sum(e.env_steps() for e in runner.sample(num_timesteps=steps)),
        local_env_runner=True)
    return sum(episodes) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2000, help="decisions per sample")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"load average {load:.1f} at the start, python {platform.python_version()}, "
          f"ray {ray.__version__}")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        algos = {name: build() for name, build in setups().items()}
        for algo in algos.values():
            sample_rate(algo, args.steps)  # warm-up: first forward passes and resets
        rates: dict[str, list[float]] = {name: [] for name in algos}
        for _ in range(args.repeats):
            for name, algo in algos.items():
                rates[name].append(sample_rate(algo, args.steps))
        print(f"\nenv steps/s sampled on the driver (median of {args.repeats} x "
              f"{args.steps:,} decisions, alternating; min-max)")
        for name, values in rates.items():
            print(f"  {name:<34}{statistics.median(values):>8,.0f}   "
                  f"({min(values):,.0f}-{max(values):,.0f})")
        for algo in algos.values():
            algo.stop()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
