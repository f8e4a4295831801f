"""Decisions per second of the ``heuristic`` agent's ``act_batch``, on observations of the
NumPy batch simulator.

A trace of seeded play is recorded first: ``VectorGame(rules, --games)`` stepped ``--steps``
times, every game's player to act observed at each step, the actions taken by the heuristic
itself (``heuristic`` play, as in self-play against heuristic opponents) or uniformly at random
(``random`` play, more varied tables). Then fresh agents, one per seat as at a table of
heuristics, answer the whole trace in order; only their ``act_batch`` calls on it are timed,
so the figure is the agent's own cost per decision. Before that they answer ``--warmup`` steps
of other (random) play, untimed: their caches of hand distributions then hold what a while of
play puts there, as for an opponent some way into training (``--warmup 0``: cold caches, as
for a new opponent). Each figure is the median of ``--repeats`` runs on the same traces.

    .venv/bin/python bench/heuristic.py                  # about two minutes
    .venv/bin/python bench/heuristic.py --profile        # pyinstrument of one standard 2p run
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hilo_env.agents.base import Agent
from hilo_env.agents.baselines import HeuristicAgent, sample_legal
from hilo_env.agents.equity import Estimator
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.equation_hilo.vector import VectorGame

AgentFactory = Callable[[RuleSet, int], Agent]
SETTINGS = (("standard", 2), ("standard", 6))


@dataclass
class Trace:
    """Seeded play of one rule set: per step and seat, the rows that seat decided."""

    rules: RuleSet
    batches: list[tuple[int, np.ndarray, np.ndarray]]
    """(seat, observations (k, D), masks (k, A)) in the order they were decided."""
    actions: list[np.ndarray]
    """The actions taken on each batch (by the heuristic in ``heuristic`` play)."""

    @property
    def decisions(self) -> int:
        return sum(len(obs) for _, obs, _ in self.batches)


def record(rules: RuleSet, games: int, steps: int, play: str, seed: int = 0,
           make: AgentFactory = HeuristicAgent) -> Trace:
    """Play ``steps`` steps of ``games`` games; ``play`` is ``heuristic`` or ``random``."""
    game = VectorGame(rules, games, seed=seed)
    agents = [make(rules, seat) for seat in range(rules.num_players)]
    rng = np.random.default_rng(seed)
    batches, taken = [], []
    for _ in range(steps):
        obs, masks, seats = game.observe(), game.action_masks(), game.current_player.copy()
        actions = np.empty(games, dtype=np.int64)
        for seat in range(rules.num_players):
            rows = np.flatnonzero(seats == seat)
            if rows.size == 0:
                continue
            o, m = obs[rows], masks[rows]
            a = agents[seat].act_batch(o, m) if play == "heuristic" else sample_legal(m, rng)
            actions[rows] = a
            batches.append((seat, o, m))
            taken.append(np.asarray(a, dtype=np.int64))
        game.step(actions)
    return Trace(rules, batches, taken)


def fresh_agents(rules: RuleSet, make: AgentFactory = HeuristicAgent,
                 warmup: Trace | None = None) -> list[Agent]:
    """One new agent per seat, sharing one empty :class:`Estimator` (as a new process's
    ``Estimator.shared``); with ``warmup``, they answer that trace first (their caches then
    hold what a while of play puts there, as for an opponent some way into training)."""
    agents = [make(rules, seat) for seat in range(rules.num_players)]
    estimator = Estimator(rules)
    for agent in agents:
        if isinstance(getattr(agent, "estimator", None), Estimator):
            agent.estimator = estimator
    for seat, obs, masks in warmup.batches if warmup is not None else ():
        agents[seat].act_batch(obs, masks)
    return agents


def replay(trace: Trace, make: AgentFactory = HeuristicAgent, warmup: Trace | None = None
           ) -> tuple[float, list[np.ndarray]]:
    """Fresh agents (:func:`fresh_agents`, warmed by ``warmup``) answer the trace in order:
    (seconds in ``act_batch``, their actions)."""
    agents = fresh_agents(trace.rules, make, warmup)
    seconds, actions = 0.0, []
    for seat, obs, masks in trace.batches:
        start = time.perf_counter()
        actions.append(agents[seat].act_batch(obs, masks))
        seconds += time.perf_counter() - start
    return seconds, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=256, help="games stepped together")
    parser.add_argument("--steps", type=int, default=40, help="steps of the timed play")
    parser.add_argument("--warmup", type=int, default=80,
                        help="steps of untimed play answered first (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per trace; median counts")
    parser.add_argument("--profile", action="store_true",
                        help="pyinstrument of one run on standard 2p heuristic play")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} at the start; {args.games} games, "
          f"{args.warmup} steps of warm-up")
    settings = SETTINGS[:1] if args.profile else SETTINGS
    for preset, players in settings:
        rules = RuleSet.preset(preset, num_players=players)
        warmup = (record(rules, args.games, args.warmup, "random", seed=1) if args.warmup
                  else None)
        for play in ("heuristic", "random"):
            trace = record(rules, args.games, args.steps, play)
            if args.profile:
                from pyinstrument import Profiler

                agents = fresh_agents(rules, warmup=warmup)
                with Profiler(interval=0.0005) as prof:
                    for seat, obs, masks in trace.batches:
                        agents[seat].act_batch(obs, masks)
                print(prof.output_text(unicode=False, color=False))
                return
            runs = [trace.decisions / replay(trace, warmup=warmup)[0]
                    for _ in range(args.repeats)]
            print(f"{preset:<9} {players}p {play:<9} play: {trace.decisions:>6,} decisions, "
                  f"{statistics.median(runs):>7,.0f} decisions/s (median of {args.repeats}, "
                  f"min {min(runs):,.0f}, max {max(runs):,.0f})", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
