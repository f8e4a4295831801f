"""Random legal hands per second of the rules engine alone (no observations), per preset.

    .venv/bin/python bench/engine.py
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.rules import RuleSet


def hands_per_second(rules: RuleSet, seconds: float, seed: int) -> tuple[float, float]:
    """Random legal hands for about ``seconds``; returns (hands/s, decisions/s)."""
    rng = np.random.default_rng(seed)
    hands = decisions = 0
    start = time.perf_counter()
    while True:
        game = Game(rules, rng)
        while game.phase < Phase.HAND_OVER:
            legal = game.legal_actions()
            game.step(legal[int(rng.integers(len(legal)))])
            decisions += 1
        hands += 1
        elapsed = time.perf_counter() - start
        if hands % 64 == 0 and elapsed >= seconds:
            return hands / elapsed, decisions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per preset; median counts")
    args = parser.parse_args()
    for preset in ("standard", "classic", "duel"):
        for players in (2, 6) if preset != "duel" else (2,):
            rules = RuleSet.preset(preset, num_players=players)
            runs = [hands_per_second(rules, args.seconds, seed) for seed in range(args.repeats)]
            hands = statistics.median(r[0] for r in runs)
            decisions = statistics.median(r[1] for r in runs)
            print(f"{preset:<9} {players} players: {hands:>9,.0f} hands/s "
                  f"{decisions:>10,.0f} decisions/s (median of {args.repeats})", flush=True)


if __name__ == "__main__":
    main()
