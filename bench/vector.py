"""Throughput of the batched simulator (``hilo_env.equation_hilo.vector``), random legal play.

Agent steps per second (decisions of a live player) at batch sizes 1, 256, 4,096, 8,192, 16,384
against the AEC env (``hilo_env.env()``, one game in Python) and pgx's ``leduc_holdem`` on the
CPU (JAX, ``jit(vmap(step))`` with auto-reset, compile excluded). Each figure is the median of
5 repeats of about ``--seconds`` each, in one process. Rules: the standard preset (2 players,
100 chips, 109 actions).

| column          | what is timed per batch step                                           |
|-----------------|------------------------------------------------------------------------|
| ``step+mask``   | ``action_masks()``, a uniform legal action per game, ``step()`` (checked) |
| ``+obs``        | the same, plus ``observe()`` of the player to act (float32, 240 values)  |
| ``env learner`` | ``HiLoVectorEnv`` (learner and opponents random): learner steps/s, and   |
| ``env all``     | all decisions/s (learner and opponents), observations included          |

    .venv/bin/python bench/vector.py             # the table (about two minutes)
    .venv/bin/python bench/vector.py --profile   # pyinstrument of the 16,384 batch loop

pgx and jax come with the ``bench`` extra (``pip install -e ".[bench]"``); without them the
pgx rows say why and the rest still runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from aec import steps_per_second  # bench/aec.py: the AEC loop, the same for every env

import hilo_env
from hilo_env.agents import RandomAgent, sample_legal
from hilo_env.envs.vector_env import HiLoVectorEnv
from hilo_env.equation_hilo import solver
from hilo_env.equation_hilo.vector import VectorGame

BATCHES = (1, 256, 4096, 8192, 16384)  # 8,192: pgx's batch in PEERS.md
REPEATS = 5
TARGET_STEPS_PER_S = 2_000_000
TARGET_VS_AEC = 100


def median_rate(run: Callable[[float], tuple[int, float]], seconds: float) -> float:
    """Median of ``REPEATS`` rates; ``run(seconds)`` returns (agent steps, elapsed)."""
    rates = []
    for _ in range(REPEATS):
        steps, elapsed = run(seconds)
        rates.append(steps / elapsed)
    return statistics.median(rates)


def vector_runner(batch: int, with_obs: bool) -> Callable[[float], tuple[int, float]]:
    sim = VectorGame("standard", batch, seed=0)
    rng = np.random.default_rng(1)

    def one() -> None:
        masks = sim.action_masks()
        if with_obs:
            sim.observe()
        sim.step(sample_legal(masks, rng))

    for _ in range(3):
        one()

    def run(seconds: float) -> tuple[int, float]:
        n, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            one()
            n += 1
        return n * batch, elapsed

    return run


def env_runner(batch: int) -> tuple[Callable[[float], tuple[int, float]],
                                    Callable[[float], tuple[int, float]]]:
    """(learner steps, all decisions) runners for HiLoVectorEnv with random players."""
    env = HiLoVectorEnv("standard", num_envs=batch, seed=0,
                        opponents=RandomAgent(hilo_env.RuleSet(), 2))
    env.reset(seed=0)
    rng = np.random.default_rng(3)
    counts = {"learner": 0, "all": 0}
    game_step = env.game.step

    def counting_step(actions: np.ndarray, games: np.ndarray | None = None) -> object:
        counts["all"] += len(actions)
        return game_step(actions, games)

    env.game.step = counting_step  # count every decision, the opponents' too

    def run_for(key: str, seconds: float) -> tuple[int, float]:
        counts["learner"] = counts["all"] = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            env.step(sample_legal(env.action_masks(), rng))
            counts["learner"] += batch
        return counts[key], elapsed

    return (lambda s: run_for("learner", s)), (lambda s: run_for("all", s))


def pgx_runners() -> tuple[dict[int, Callable[[float], tuple[int, float]]], str]:
    """Runners per batch size, or an empty dict and the reason pgx cannot run."""
    # This folder is first on sys.path, and its jax.py (bench/jax.py) would stand in for the
    # jax library: look for jax elsewhere (the sibling import of aec.py is done by now).
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    try:
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset
    except ImportError as e:
        return {}, f"not installed ({e}); pip install -e '.[bench]'"
    try:
        env = pgx.make("leduc_holdem")
        step = jax.vmap(auto_reset(env.step, env.init))
        init = jax.jit(jax.vmap(env.init))

        @jax.jit
        def play(state: pgx.State, key: jax.Array) -> pgx.State:
            k_act, k_step = jax.random.split(key)
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(k_act, logits, axis=-1)
            keys = jax.random.split(k_step, action.shape[0])
            return step(state, action, keys)

        runners = {}
        for batch in BATCHES:
            key = jax.random.PRNGKey(batch)
            state = init(jax.random.split(key, batch))
            state = play(state, key)  # compile
            jax.block_until_ready(state)

            def run(seconds: float, state=state, key=key, batch=batch) -> tuple[int, float]:
                n, start = 0, time.perf_counter()
                while time.perf_counter() - start < seconds:
                    for _ in range(10):
                        key, sub = jax.random.split(key)
                        state = play(state, sub)
                    jax.block_until_ready(state)
                    n += 10
                return n * batch, time.perf_counter() - start

            runners[batch] = run
        return runners, f"pgx {pgx.__version__}, jax {jax.__version__} ({jax.devices()[0]})"
    except Exception as e:  # a broken install: say why, report the rest
        return {}, f"could not run: {type(e).__name__}: {e}"


def profile(seconds: float) -> None:
    from pyinstrument import Profiler

    run = vector_runner(16384, with_obs=True)
    prof = Profiler(interval=0.0005)
    prof.start()
    run(seconds)
    prof.stop()
    print(prof.output_text(unicode=False, show_all=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one repeat")
    parser.add_argument("--profile", action="store_true", help="profile the 16,384 loop")
    args = parser.parse_args()
    if args.profile:
        profile(args.seconds * 3)
        return
    solver.build_tables()
    fmt = "{:>8}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}"
    print("Equation Hi-Lo, random legal play, standard rules (2 players, 100 chips); "
          f"agent steps/s, median of {REPEATS} x {args.seconds:g} s")
    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, NumPy {np.__version__}; load average "
          f"{os.getloadavg()[0]:.2f} at start")
    pgx_run, pgx_note = pgx_runners()
    print(fmt.format("batch", "step+mask", "+obs", "env learner", "env all", "pgx leduc"))
    best = {"step+mask": 0.0, "+obs": 0.0, "pgx": 0.0}
    for batch in BATCHES:
        seconds = args.seconds
        plain = median_rate(vector_runner(batch, with_obs=False), seconds)
        full = median_rate(vector_runner(batch, with_obs=True), seconds)
        learner_run, all_run = env_runner(batch)
        learner = median_rate(learner_run, seconds)
        everyone = median_rate(all_run, seconds)
        pgx_rate = median_rate(pgx_run[batch], seconds) if batch in pgx_run else float("nan")
        best["step+mask"] = max(best["step+mask"], plain)
        best["+obs"] = max(best["+obs"], full)
        best["pgx"] = max(best["pgx"], 0.0 if np.isnan(pgx_rate) else pgx_rate)
        print(fmt.format(f"{batch:,}", f"{plain:,.0f}", f"{full:,.0f}", f"{learner:,.0f}",
                         f"{everyone:,.0f}", "n/a" if np.isnan(pgx_rate) else f"{pgx_rate:,.0f}"),
              flush=True)
    aec = statistics.median(steps_per_second(hilo_env.env, args.seconds * 2, seed=i)
                            for i in range(REPEATS))
    print(f"hilo_env.env() (AEC, wrappers, observation every decision): {aec:,.0f} steps/s")
    print(f"pgx: {pgx_note}")
    sim = VectorGame("standard", 4096, seed=0)
    state = sim.nbytes_per_game()
    step_out = sim.obs_size * 4 + sim.num_actions
    table = 0 if sim.mask_table.table is None else sim.mask_table.table.nbytes
    print(f"memory per game: {state:.0f} B of state, {step_out} B of observation and mask per "
          f"step; shared: mask table {table / 2**20:.1f} MiB, solver tables "
          f"{solver.table_nbytes() / 2**20:.1f} MiB")
    for name in ("step+mask", "+obs"):
        rate = best[name]
        print(f"{name:>9}: best {rate:,.0f} steps/s; {rate / TARGET_STEPS_PER_S:.2f}x the "
              f"2,000,000 target; {rate / aec:,.0f}x hilo_env.env() (target "
              f"{TARGET_VS_AEC}x); "
              + (f"{rate / best['pgx']:.2f}x pgx leduc's best" if best["pgx"] else "pgx n/a"))


if __name__ == "__main__":
    main()
