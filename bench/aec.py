"""Agent steps per second of random legal play: hilo_env's AEC env against PettingZoo's poker.

Every env is driven by the same loop (``agent_iter`` + ``last`` + a uniform legal action from
the mask), so the wrapped ``env()`` of each is compared with the wrapped ``env()`` of the other,
and ``raw_env()`` with ``raw_env()``. Agent steps count only decisions of live players.
Median of ``--repeats`` runs of ``--seconds`` each, all in one process; the envs take turns, run
by run, so that a change in the machine's load (a shared machine) affects them alike. Each env
first plays untimed for ``--warmup`` seconds, so one-time costs (hilo_env builds its solver
tables on first use) are left out, as compile time is for jitted peers.

    .venv/bin/python bench/aec.py            # needs the bench extra: pip install -e ".[bench]"
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import hilo_env


def steps_per_second(make: Callable[[], object], seconds: float, seed: int = 0) -> float:
    """Random legal play on ``make()`` for about ``seconds``; returns agent steps per second."""
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    while True:
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                steps += 1
            env.step(action)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed
        env.reset()


def peers() -> dict[str, Callable[[], object]]:
    """The PettingZoo classic poker envs, if the bench extra is installed."""
    try:
        from pettingzoo.classic import leduc_holdem_v4, texas_holdem_no_limit_v6
    except ImportError as e:  # the bench extra is missing
        print(f"(peers skipped: {e}; pip install -e '.[bench]')")
        return {}
    return {
        "texas_holdem_no_limit_v6 env()": texas_holdem_no_limit_v6.env,
        "texas_holdem_no_limit_v6 raw_env()": texas_holdem_no_limit_v6.raw_env,
        "leduc_holdem_v4 env()": leduc_holdem_v4.env,
        "leduc_holdem_v4 raw_env()": leduc_holdem_v4.raw_env,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per env; the median counts")
    parser.add_argument("--warmup", type=float, default=0.5, help="untimed play per env first")
    args = parser.parse_args()
    envs = {"hilo_env env()": hilo_env.env, "hilo_env raw_env()": hilo_env.raw_env, **peers()}
    runs: dict[str, list[float]] = {name: [] for name in envs}
    for make in envs.values():
        steps_per_second(make, args.warmup)
    for i in range(args.repeats):
        for name, make in envs.items():
            runs[name].append(steps_per_second(make, args.seconds, seed=i))
    results = {}
    for name, env_runs in runs.items():
        results[name] = statistics.median(env_runs)
        print(f"{name:<36} {results[name]:>10,.0f} steps/s  (runs: "
              + ", ".join(f"{r:,.0f}" for r in env_runs) + ")", flush=True)
    for kind in ("env()", "raw_env()"):
        peer = results.get(f"texas_holdem_no_limit_v6 {kind}")
        if peer:
            print(f"hilo_env {kind} / texas_holdem_no_limit_v6 {kind}: "
                  f"{results[f'hilo_env {kind}'] / peer:.1f}x")


if __name__ == "__main__":
    main()
