"""Every game of the registry: agent steps per second of its AEC env against PettingZoo's
classic card games, and its rule-based baseline against random with 95% CIs.

Every env is driven by the same loop (``bench/aec.py``'s ``timed_runs``: ``agent_iter``
+ ``last`` + a uniform legal action from the mask); each game's wrapped ``env()`` is compared
with the peers' ``env()`` and ``raw_env()`` with their ``raw_env()``, at the default preset's
table and at the game's largest. Median of ``--repeats`` runs of ``--seconds`` each, all in
one process, the envs taking turns run by run so that a change in the machine's load affects
them alike, after ``--warmup`` seconds of untimed play each. Then each game's ``baseline``
plays ``random`` through the one tournament runner (``training.evaluate.tournament``:
duplicate deals; a cooperative game seats each as a whole team and each among the other's
team), ``--count`` episodes a table (default: the unit's ``DEFAULT_COUNTS``), under the
default preset or, with ``--presets all``, every preset.

    .venv/bin/python bench/games.py                      # every game
    .venv/bin/python bench/games.py --games lohi --presets all --skip-steps
    # PettingZoo's peers need pettingzoo[classic] (rlcard): pip install -e ".[bench]"
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from collections.abc import Callable

from aec import timed_runs  # bench/ is on the path when this script runs

from hilo_env import games
from hilo_env.envs.pettingzoo_wrappers import wrap
from hilo_env.training.evaluate import tournament

PEERS = ("leduc_holdem_v4", "texas_holdem_v4", "texas_holdem_no_limit_v6", "gin_rummy_v4")
"""PettingZoo's classic card games, each measured when this PettingZoo has it."""


def candidates(names: list[str]) -> dict[str, Callable[[], object]]:
    """label -> env factory: each game's two at its default and largest table, then each
    installed peer's two."""
    makers: dict[str, Callable[[], object]] = {}
    for name in names:
        spec = games.get(name)
        default = spec.rules()
        for n in dict.fromkeys((default.num_players, spec.max_players)):
            rules = spec.rules(None, n)
            makers[f"{name} env() {n}p"] = lambda spec=spec, rules=rules: wrap(
                spec.raw_env(rules))
            makers[f"{name} raw_env() {n}p"] = lambda spec=spec, rules=rules: spec.raw_env(
                rules)
    for peer in PEERS:
        try:
            module = importlib.import_module(f"pettingzoo.classic.{peer}")
        except ImportError:
            print(f"({peer} is not installed here: skipped)")
            continue
        makers[f"{peer} env()"] = module.env
        makers[f"{peer} raw_env()"] = module.raw_env
    return makers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", choices=games.names(), default=games.names(),
                        help="the games measured (default: all)")
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per env (median)")
    parser.add_argument("--warmup", type=float, default=0.5,
                        help="untimed play per env first (Equation Hi-Lo builds its solver "
                             "tables on first use)")
    parser.add_argument("--count", type=int, default=None,
                        help="episodes per table of the baseline against random (default: "
                             "the game's unit's DEFAULT_COUNTS)")
    parser.add_argument("--presets", choices=("default", "all"), default="default",
                        help="rules of the baseline's tournaments (default: the default)")
    parser.add_argument("--skip-steps", action="store_true", help="only the tournaments")
    args = parser.parse_args()

    if not args.skip_steps:
        rates = timed_runs(candidates(args.games), args.seconds, args.repeats, args.warmup)
        print(f"agent steps/s, random legal play, median of {args.repeats} runs of "
              f"{args.seconds:g} s:")
        for name, values in rates.items():
            print(f"  {name:<36} {statistics.median(values):>10,.0f}   "
                  f"(runs {min(values):,.0f}..{max(values):,.0f})", flush=True)

    for name in args.games:
        spec = games.get(name)
        for preset in spec.presets if args.presets == "all" else spec.presets[:1]:
            start = time.perf_counter()
            result = tournament([spec.baseline, "random"], preset, args.count, seed=0,
                                game=name, progress=False)
            print(f"\n{spec.title}, {preset} ({time.perf_counter() - start:.0f} s):")
            print(result.table(), flush=True)


if __name__ == "__main__":
    main()
