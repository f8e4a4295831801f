"""How an Equation Hi-Lo agent fares in matches longer than those it was trained on.

A model trained on one-hand matches (the shipped ``ppo``) is made under any
``hands_per_episode`` (a match field of the game's spec): in a longer match it meets stacks it
never saw after the first hand, and reads a ``hands_left`` entry it saw only at 0. This plays
AGENT against OPPONENT (every other seat) in matches of each length on the same duplicate
deals (seats rotated), through the AEC env, and prints AGENT's chips per hand with a 95% CI
beside its win rate of matches::

    python bench/match_length.py ppo heuristic --hands 1 3 --deals 10000
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from hilo_env import agents, games
from hilo_env.training.evaluate import deal_seed, interval, mean_ci
from hilo_env.training.lockstep import play_episodes


def match(agent: str, opponent: str, hands: int, deals: int, players: int,
          seed: int) -> tuple[np.ndarray, np.ndarray]:
    """AGENT's chips per hand and match won (1, 0.5 tied, 0) on each deal, averaged over
    the seats it holds in turn."""
    spec = games.get(games.DEFAULT)
    rules = spec.rules("standard", players).replace(hands_per_episode=hands)
    me = agents.make(agent, rules, seed=seed, allow_other_rules=False)
    others = agents.make(opponent, rules, seed=seed + 1)
    table = [me, others]
    rotations = [tuple(0 if s == r else 1 for s in range(players)) for r in range(players)]
    episodes = [(deal_seed(seed, d), seating) for d in range(deals) for seating in rotations]
    returns = play_episodes(lambda: spec.raw_env(rules), table, episodes)
    mine = returns[np.arange(len(episodes)), [seating.index(0) for _, seating in episodes]]
    best_other = np.array([max(r for s, r in enumerate(row) if seating[s] != 0)
                           for row, (_, seating) in zip(returns, episodes, strict=True)])
    won = np.where(mine > best_other, 1.0, np.where(mine == best_other, 0.5, 0.0))
    return (mine / hands).reshape(deals, players).mean(axis=1), \
        won.reshape(deals, players).mean(axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent")
    parser.add_argument("opponent")
    parser.add_argument("--hands", type=int, nargs="+", default=[1, 3],
                        help="match lengths to play (default: %(default)s)")
    parser.add_argument("--deals", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{args.agent} against {args.opponent}, standard rules, {args.players} players, "
          f"{args.deals:,} duplicate deals (seats rotated), seed {args.seed}; "
          f"{platform.processor() or platform.machine()}")
    print(f"{'hands':>5}  {'chips/hand':>10}  {'95% CI':>17}  {'matches won':>11}  "
          f"{'time':>6}")
    for hands in args.hands:
        start = time.perf_counter()
        chips, won = match(args.agent, args.opponent, hands, args.deals, args.players,
                           args.seed)
        mean, ci = mean_ci(chips)
        print(f"{hands:>5}  {mean:>+10.3f}  {interval(mean, ci):>17}  {won.mean():>11.1%}  "
              f"{time.perf_counter() - start:>5.0f}s", flush=True)


if __name__ == "__main__":
    main()
