"""The AIVAT-style control variate's variance reduction (``training.aivat``): one duplicate
match of two agents (``ppo`` against ``heuristic`` by default, standard rules), its plain and
corrected estimates per deal, for each number of fresh deals (``--resamples``), with the
seconds each took and those of the plain match alone (``training.evaluate.play_table``).

Prints, per resample count: both estimates with their 95% CI, the variance ratio (plain over
corrected: how many times fewer hands the corrected estimate needs for the same CI width) and
the seconds, against the plain match's seconds on the same deals. A variance ratio over the
deals of one seed: rerun with other ``--seed`` values for its spread.

    .venv/bin/python bench/aivat.py --deals 1000 --resamples 4 8 16
"""

from __future__ import annotations

import argparse
import platform
import time

from hilo_env import agents
from hilo_env.training.aivat import aivat_match
from hilo_env.training.evaluate import mean_ci, play_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs=2, default=["ppo", "heuristic"])
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--deals", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resamples", type=int, nargs="+", default=[4, 8, 16])
    args = parser.parse_args()
    players = [agents.make(name, args.rules, seed=i) for i, name in enumerate(args.agents)]
    print(f"{' vs '.join(args.agents)}, {args.rules} rules, {args.deals:,} duplicate deals, "
          f"seed {args.seed}; {platform.processor() or platform.machine()}")
    start = time.perf_counter()
    plain = play_table(players, args.rules, args.deals, args.seed)
    mean, ci = mean_ci(plain.per_deal[:, 0])
    print(f"plain match (play_table): {mean:+.3f} ± {ci:.3f} in "
          f"{time.perf_counter() - start:.1f}s")
    for resamples in args.resamples:
        result = aivat_match(players, args.rules, args.deals, args.seed, resamples=resamples)
        (pm, pc), (cm, cc) = mean_ci(result.plain), mean_ci(result.corrected)
        print(f"resamples {resamples:>2}: plain {pm:+.3f} ± {pc:.3f}, AIVAT {cm:+.3f} ± "
              f"{cc:.3f}, variance ratio {result.variance_ratio():.2f}, "
              f"{result.seconds:.1f}s", flush=True)


if __name__ == "__main__":
    main()
