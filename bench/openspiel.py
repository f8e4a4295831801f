"""Figures of the tiny rules through OpenSpiel (the ``openspiel`` extra), each printed with the
command that makes it: ``python bench/openspiel.py`` (``--write-model`` also rewrites
``agents/models/cfr_tiny.json``).

* the numbers of histories and information sets per player (``envs.openspiel_policy``'s
  enumeration of ``python_hilo``);
* CFR+ (OpenSpiel's C++ solver on the enumerated tree): NashConv after 1, 10, 100 and 1,000
  iterations with the solving time so far, and the game value for player 0; the value again,
  exactly, from the sequence-form LP;
* the exact NashConv of random, caller, heuristic and cfr_tiny (every seat played by the agent).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from hilo_env.agents import cfr_tiny
from hilo_env.envs import openspiel_policy as P
from hilo_env.equation_hilo.rules import PRESETS

CHECKPOINTS = (1, 10, 100, 1_000)
AGENTS = ("random", "caller", "heuristic", "cfr_tiny")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-model", action="store_true",
                        help=f"also solve and rewrite {cfr_tiny.MODEL}")
    args = parser.parse_args()
    rules = PRESETS["tiny"]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}")
    start = time.perf_counter()
    exact = P.enumerate_game(rules)
    print(f"tiny: {sum(exact.histories.values()):,} histories ({exact.histories['chance']:,} "
          f"chance, {exact.histories['decision']:,} decision, {exact.histories['terminal']:,} "
          f"terminal); information sets per player {exact.infosets_per_player()} "
          f"(enumerated in {time.perf_counter() - start:.1f} s)")
    solved = P.solve_cfr_plus(rules, CHECKPOINTS[-1], checkpoints=CHECKPOINTS)
    for iterations, nash_conv, seconds in solved.curve:
        print(f"CFR+ {iterations:>5,} iterations: NashConv {nash_conv:.6f}  ({seconds:.2f} s)")
    print(f"game value for player 0 (CFR+, {solved.iterations:,} iterations): "
          f"{solved.game_value:+.6f} chips per hand")
    start = time.perf_counter()
    value = P.lp_value(rules)
    print(f"game value for player 0 (sequence-form LP, SciPy HiGHS): {value:+.9f} chips per "
          f"hand ({time.perf_counter() - start:.1f} s)")
    if args.write_model:
        figures = P.write_cfr_tiny(cfr_tiny.MODEL, CHECKPOINTS[-1])
        print(f"wrote {cfr_tiny.MODEL}: {figures}")
    for name in AGENTS:
        result = P.exact_exploitability(name, rules)
        print(f"exact NashConv of {name:<9}: {result.nash_conv:.6f}  (player 0's return when "
              f"it plays both seats: {result.agent_value:+.4f})")


if __name__ == "__main__":
    main()
