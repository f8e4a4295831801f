"""lo-hi figures: agent steps per second of its AEC env against PettingZoo's classic card
games, and the heuristic player against random with a 95% CI.

Every env is driven by the same loop (``bench/aec.py``'s ``steps_per_second``: ``agent_iter``
+ ``last`` + a uniform legal action from the mask); ``env()`` is compared with the peers'
``env()`` and ``raw_env()`` with their ``raw_env()``. Median of ``--repeats`` runs of
``--seconds`` each, all in one process, the envs taking turns run by run so that a change in
the machine's load affects them alike.

    .venv/bin/python bench/lohi.py           # needs pettingzoo[classic] (and rlcard) installed
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time

from aec import steps_per_second  # bench/ is on the path when this script runs

from hilo_env import lohi_v0
from hilo_env.training.evaluate_lohi import tournament

PEERS = ("leduc_holdem_v4", "texas_holdem_v4", "texas_holdem_no_limit_v6", "gin_rummy_v4")
"""PettingZoo's classic card games, each measured when this PettingZoo has it."""


def candidates() -> dict[str, object]:
    """name -> env factory: lo-hi's two, then each installed peer's two."""
    makers: dict[str, object] = {"lohi_v0 env()": lohi_v0.env, "lohi_v0 raw_env()": lohi_v0.raw_env,
                                 "lohi_v0 env(), 5 players":
                                     lambda: lohi_v0.env(num_players=5)}
    for name in PEERS:
        try:
            module = importlib.import_module(f"pettingzoo.classic.{name}")
        except ImportError:
            print(f"({name} is not installed here: skipped)")
            continue
        makers[f"{name} env()"] = module.env
        makers[f"{name} raw_env()"] = module.raw_env
    return makers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per env (median)")
    parser.add_argument("--games", type=int, default=2_000, help="heuristic vs random games")
    args = parser.parse_args()

    makers = candidates()
    rates: dict[str, list[float]] = {name: [] for name in makers}
    for repeat in range(args.repeats):
        for name, make in makers.items():
            rates[name].append(steps_per_second(make, args.seconds, seed=repeat))
    print(f"agent steps/s, random legal play, median of {args.repeats} runs of "
          f"{args.seconds:g} s:")
    for name, values in rates.items():
        print(f"  {name:<36} {statistics.median(values):>10,.0f}   "
              f"(runs {min(values):,.0f}..{max(values):,.0f})")

    start = time.perf_counter()
    for rules in ("standard", "single_round"):
        result = tournament(["heuristic", "random"], rules, games=args.games, seed=0)
        print(f"\n{rules} rules ({time.perf_counter() - start:.0f} s so far):")
        print(result.table())


if __name__ == "__main__":
    main()
