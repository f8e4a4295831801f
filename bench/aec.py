"""Agent steps per second of random legal play: hilo_env's AEC env against PettingZoo's poker.

Every env is driven by the same loop (``agent_iter`` + ``last`` + a uniform legal action from
the mask), so the wrapped ``env()`` of each is compared with the wrapped ``env()`` of the other,
and ``raw_env()`` with ``raw_env()``. Agent steps count only decisions of live players.
Median of ``--repeats`` runs of ``--seconds`` each, all in one process; the envs take turns, run
by run, so that a change in the machine's load (a shared machine) affects them alike. Each env
first plays untimed for ``--warmup`` seconds, so one-time costs (hilo_env builds its solver
tables on first use) are left out, as compile time is for jitted peers.

A last row, ``no-op env()``, is the ceiling of any env through this loop and PettingZoo's
wrappers: an env that does no work (two agents taking turns, hands of ``--noop-hand``
decisions, one cached observation of hilo_env's size) under the same three wrappers.

    .venv/bin/python bench/aec.py            # needs the bench extra: pip install -e ".[bench]"
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import hilo_env
from hilo_env.envs.pettingzoo_wrappers import wrap


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


def timed_runs(envs: dict[str, Callable[[], object]], seconds: float, repeats: int,
               warmup: float) -> dict[str, list[float]]:
    """Each env's steps per second over ``repeats`` runs of ``seconds``, the envs taking turns
    run by run, after ``warmup`` seconds of untimed play each."""
    for make in envs.values():
        steps_per_second(make, warmup)
    runs: dict[str, list[float]] = {name: [] for name in envs}
    for i in range(repeats):
        for name, make in envs.items():
            runs[name].append(steps_per_second(make, seconds, seed=i))
    return runs


class NoOpEnv(AECEnv):
    """Two agents taking turns for ``hand`` decisions, then the hand ends; no game at all."""

    metadata: ClassVar[dict[str, Any]] = {"name": "noop", "render_modes": []}

    def __init__(self, hand: int) -> None:
        super().__init__()
        self.hand = hand
        self.possible_agents = ["player_0", "player_1"]
        like = hilo_env.raw_env()
        space = like.observation_space("player_0")
        self._obs = {"observation": np.zeros(space["observation"].shape, np.float32),
                     "action_mask": np.ones(space["action_mask"].shape, np.int8)}
        self.action_spaces = {a: like.action_space(a) for a in self.possible_agents}

    def action_id(self, action: Any) -> int:
        """The action as an int: what the wrappers ask of every raw env (no check here)."""
        return int(action)

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observation_space(self, agent: str) -> spaces.Space:
        raise NotImplementedError

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection, self.decisions = "player_0", 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._obs

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent]:
            self._was_dead_step(action)
            return
        self.decisions += 1
        self._cumulative_rewards[agent] = 0.0
        if self.decisions == self.hand:
            self.terminations = dict.fromkeys(self.agents, True)
            self.rewards = {"player_0": 1.0, "player_1": -1.0}
            self._accumulate_rewards()
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[self.decisions % 2]


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
    parser.add_argument("--noop-hand", type=int, default=6,
                        help="decisions per hand of the no-op env (hilo_env's random play: ~6)")
    args = parser.parse_args()
    envs = {"hilo_env env()": hilo_env.env, "hilo_env raw_env()": hilo_env.raw_env, **peers(),
            "no-op env()": lambda: wrap(NoOpEnv(args.noop_hand))}
    runs = timed_runs(envs, args.seconds, args.repeats, args.warmup)
    results = {}
    for name, env_runs in runs.items():
        results[name] = statistics.median(env_runs)
        print(f"{name:<36} {results[name]:>10,.0f} steps/s  (runs: "
              + ", ".join(f"{r:,.0f}" for r in env_runs) + ")", flush=True)
    for kind in ("env()", "raw_env()"):
        peer = results.get(f"texas_holdem_no_limit_v6 {kind}")
        if peer:
            print(f"hilo_env {kind} / texas_holdem_no_limit_v6 {kind}: "
                  f"{results[f'hilo_env {kind}'] / peer:.2f}x")
    peer = results.get("texas_holdem_no_limit_v6 env()")
    if peer:
        floor = 1e6 / results["no-op env()"]
        print(f"the wrappers and loop alone take {floor:.1f} us a step (no-op env()), "
              f"{results['no-op env()'] / peer:.1f}x texas env(); 3x texas env() leaves "
              f"{1e6 / (3 * peer) - floor:.1f} us a step for the env's own work; hilo_env "
              f"takes {1e6 / results['hilo_env env()'] - floor:.1f}")


if __name__ == "__main__":
    main()
