"""Agent steps per second of random legal play: Hi MiLo!'s AEC env against PettingZoo's
classic card games, in the same run.

Every env is driven by the same loop (``agent_iter`` + ``last`` + a uniform legal action from
the mask; a finished agent steps ``None``), so the wrapped ``env()`` of each is compared with
the wrapped ``env()`` of the others and ``raw_env()`` with ``raw_env()``. Agent steps count
only decisions. Median of ``--repeats`` runs of ``--seconds`` each; the envs take turns run
by run, so a change in the machine's load affects them alike.

    .venv/bin/python bench/himilo.py     # PettingZoo's envs need pettingzoo[classic] (rlcard)
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from pettingzoo.classic import leduc_holdem_v4, texas_holdem_no_limit_v6

from hilo_env import himilo_v0

ENVS: dict[str, Callable[[], object]] = {
    **{f"himilo_v0 env() {n}p": (lambda n=n: himilo_v0.env(num_players=n)) for n in (3, 4, 5)},
    **{f"himilo_v0 raw_env() {n}p": (lambda n=n: himilo_v0.raw_env(num_players=n))
       for n in (3, 4, 5)},
    "leduc_holdem_v4 env()": leduc_holdem_v4.env,
    "leduc_holdem_v4 raw_env()": leduc_holdem_v4.raw_env,
    "texas_holdem_no_limit_v6 env()": texas_holdem_no_limit_v6.env,
    "texas_holdem_no_limit_v6 raw_env()": texas_holdem_no_limit_v6.raw_env,
}


def steps_per_second(make: Callable[[], object], seconds: float, seed: int = 0) -> float:
    """Random legal play on ``make()`` for about ``seconds``; returns agent steps per second."""
    env = make()
    rng = np.random.default_rng(seed)
    steps, episode, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + episode)
        episode += 1
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per run (default 2)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per env (default 5)")
    args = parser.parse_args()
    runs: dict[str, list[float]] = {name: [] for name in ENVS}
    for repeat in range(args.repeats):
        for name, make in ENVS.items():
            runs[name].append(steps_per_second(make, args.seconds, seed=repeat))
    print(f"agent steps/s, median of {args.repeats} runs of {args.seconds:g} s "
          "(random legal play)")
    for name, values in runs.items():
        print(f"  {name:<36} {statistics.median(values):>10,.0f}   "
              f"(min {min(values):,.0f}, max {max(values):,.0f})")


if __name__ == "__main__":
    main()
