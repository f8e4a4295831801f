"""RLlib sampling throughput and the time to the first iteration, on this machine.

Env steps per second (decisions of every seat) sampled by 1 and 2 env runners of the
``rllib_league`` config, all of them at once, with the policy acting (exploration, torch on
the CPU), timed after a warm-up; each figure is the median of ``--repeats`` samples of
``--steps`` decisions per runner, in one run. Side by side in the same runners, samples
alternating: RLlib's default ``episodes_to_numpy=True`` (its runner numpy'izes every episode
finished so far in a sample after each env step) and the project's ``False``. Two mappings:
every seat played by the learning policy (``selfplay_share: 1``), and the bundled league
(half the games against the baselines and snapshots, the heuristic's equity computed in the
runners). The raw AEC env's steps per
second with random legal actions, in this process, is the reference. Then the time from
building the algorithm to the end of its first PPO iteration (the default rollout of the
config, 4,096 decisions), whole iterations' decisions per second by the driver's torch
threads (torch's default against ``learner_threads``), as configured and with a cheaper
update (one epoch of one minibatch), and Ray's start-up on its own.

    python bench/rllib.py                 # needs the rllib extra; about three minutes

Ray is started locally with as many CPUs as the env runners need (2); on a 2-core machine the
driver, its learner and two runners share two cores, so 2 runners cannot double 1.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np
import ray
import torch

import hilo_env
from hilo_env.training.config import TrainConfig
from hilo_env.training.rllib_train import build_algorithm, learner_threads


def aec_steps_per_second(seconds: float) -> float:
    """The raw AEC env, random legal actions: decisions per second."""
    env = hilo_env.raw_env()
    rng = np.random.default_rng(0)
    steps, start, seed = 0, time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed)
        seed += 1
        while env.agents:
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(
                obs["action_mask"]))))
            steps += 1
    return steps / (time.perf_counter() - start)


def sampling_rates(config: TrainConfig, steps: int, repeats: int) -> dict[bool, float]:
    """Median env steps per second of all runners sampling ``steps`` decisions each at once,
    by ``episodes_to_numpy`` (True: RLlib's default; False: the project's), alternating."""
    algo = build_algorithm(config, config.rule_set())
    try:
        group = algo.env_runner_group

        def sample(to_numpy: bool) -> float:
            def run(runner: object) -> int:
                runner.episodes_to_numpy = to_numpy
                return sum(e.env_steps() for e in runner.sample(num_timesteps=steps))
            start = time.perf_counter()
            episodes = group.foreach_env_runner(run, local_env_runner=False)
            return sum(episodes) / (time.perf_counter() - start)

        sample(False)  # warm-up: the first forward passes, the envs' first resets
        rates: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(repeats):
            for to_numpy in (True, False):
                rates[to_numpy].append(sample(to_numpy))
        return {k: statistics.median(v) for k, v in rates.items()}
    finally:
        algo.stop()


def training_rates(config: TrainConfig, repeats: int) -> dict[int, float]:
    """Median decisions per second of whole ``train()`` iterations (sampling and the PPO
    update on the driver), by the driver's torch threads: torch's default (every core) and
    ``learner_threads``, alternating in one algorithm."""
    algo = build_algorithm(config, config.rule_set())
    try:
        counts = sorted({os.cpu_count() or 1, learner_threads(config)}, reverse=True)
        algo.train()  # warm-up
        rates: dict[int, list[float]] = {k: [] for k in counts}
        for _ in range(repeats):
            for threads in counts:
                torch.set_num_threads(threads)
                start = time.perf_counter()
                result = algo.train()
                seconds = time.perf_counter() - start
                rates[threads].append(result["env_runners"]["num_env_steps_sampled"] / seconds)
        return {k: statistics.median(v) for k, v in rates.items()}
    finally:
        algo.stop()


def first_iteration_seconds(config: TrainConfig) -> tuple[float, float]:
    """(seconds to build the algorithm, seconds of its first ``train()``)."""
    start = time.perf_counter()
    algo = build_algorithm(config, config.rule_set())
    built = time.perf_counter()
    try:
        algo.train()
        return built - start, time.perf_counter() - built
    finally:
        algo.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2000, help="decisions per runner sample")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"python {platform.python_version()}, ray {ray.__version__}")
    print(f"raw AEC env, random legal actions: {aec_steps_per_second(3.0):,.0f} steps/s")

    start = time.perf_counter()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"ray.init (local, 2 CPUs): {time.perf_counter() - start:.1f} s")
    league = TrainConfig.from_yaml("rllib_league", output_dir="/tmp/hilo_bench_rllib")
    print("\nenv steps/s sampled (median of "
          f"{args.repeats} x {args.steps:,} decisions per runner), episodes_to_numpy "
          "True (RLlib's default) / False (the project's)")
    print(f"{'mapping':<22}{'runners':>8}{'True':>10}{'False':>10}{'ratio':>8}")
    for label, share in (("self-play (all shared)", 1.0), ("league (bundled)", 0.5)):
        for k in (1, 2):
            rates = sampling_rates(league.__class__(**{**league.to_dict(), "num_env_runners": k,
                                                       "selfplay_share": share}),
                                   args.steps, args.repeats)
            print(f"{label:<22}{k:>8}{rates[True]:>10,.0f}{rates[False]:>10,.0f}"
                  f"{rates[False] / rates[True]:>8.2f}")
    rates = training_rates(league, args.repeats)
    print(f"\nrllib_league train() decisions/s (1 runner, median of {args.repeats}), by the "
          "driver's torch threads: " + ", ".join(f"{k}: {v:,.0f}" for k, v in rates.items()))
    cheap = league.__class__(**{**league.to_dict(), "n_epochs": 1,
                                "batch_size": league.n_steps * league.num_envs})
    rates = training_rates(cheap, args.repeats)
    print(f"the same with a cheaper update (1 epoch, one minibatch of {cheap.batch_size:,}): "
          + ", ".join(f"{k}: {v:,.0f}" for k, v in rates.items()))
    build, first = first_iteration_seconds(league)
    rollout = league.n_steps * league.num_envs
    print(f"\nfirst iteration of rllib_league (1 runner, {rollout:,} decisions): build "
          f"{build:.1f} s + train() {first:.1f} s = {build + first:.1f} s")
    ray.shutdown()


if __name__ == "__main__":
    main()
