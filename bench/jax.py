"""Throughput of the JAX backend (``hilo_env.equation_hilo.jax_backend``), random legal play.

Agent steps per second (decisions of a live player, observation of the next one included) at
batch sizes 1,024 to 65,536, in one process, against the NumPy batch simulator and pgx's
``leduc_holdem`` (a far smaller game) on the same machine. Each figure is the median of
``--repeats`` runs of about ``--seconds`` each; compile time (the first call at each batch size)
is reported apart. Rules: the standard preset (2 players, 100 chips, 109 actions).

| column          | what is timed per batch step                                             |
|-----------------|--------------------------------------------------------------------------|
| ``numpy +obs``  | ``VectorGame``: ``action_masks()``, a uniform legal action, ``step()``,  |
|                 | ``observe()`` of the player to act (``bench/vector.py``'s ``+obs``)      |
| ``jax``         | ``jit(vmap(env.play_from_key))`` with a uniform legal action drawn in    |
|                 | the same jit: a match that ended is restarted at the next step (which    |
|                 | counts no decision for it), a deck drawn where a hand starts only (as    |
|                 | ``step`` does); the state carries the acting player's observation        |
| ``jax learner`` | ``JaxLearnerEnv`` with random opponents: learner steps/s (each one runs  |
|                 | the opponents' decisions too)                                             |
| ``pgx leduc``   | pgx's leduc_holdem, ``jit(vmap(step))``, restarted as pgx's auto_reset   |
|                 | does (its ``init`` in every step, selected where a game ended)           |

    .venv/bin/python bench/jax.py                      # the table, CPU (a few minutes)
    .venv/bin/python bench/jax.py --batches 1024 65536 --seconds 0.5
    .venv/bin/python bench/jax.py --skip learner            # columns by name: numpy jax
                                                            # learner pgx
    .venv/bin/python bench/jax.py --shares 8/128/32/4/8 4/8/4/4/8   # the batching
                                   # rules' shares (deal loop/reshuffle/new deck/opponents'
                                   # turns/showdown), one table each

jax and pgx come with the ``jax`` and ``bench`` extras; without pgx its column says why.
This file is named as the issue asks; it takes its own folder off ``sys.path`` so that
``import jax`` finds the library, not itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import argparse  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from hilo_env.agents import sample_legal  # noqa: E402
from hilo_env.envs import jax_learner  # noqa: E402
from hilo_env.envs.jax_learner import JaxLearnerEnv  # noqa: E402
from hilo_env.equation_hilo import jax_backend, jax_chance, solver  # noqa: E402
from hilo_env.equation_hilo.jax_backend import EquationHiLo, random_policy  # noqa: E402
from hilo_env.equation_hilo.vector import VectorGame  # noqa: E402

BATCHES = (1024, 4096, 16384, 65536)
COLUMNS = ("numpy", "jax", "learner", "pgx")
"""The columns by the names ``--skip`` takes."""
SHARED = (jax_backend.ADVANCE_SHARE, jax_chance.COMPACT_SHARE, jax_chance.DEAL_SHARE,
          jax_learner.OPPONENT_SHARE, jax_backend.SHOWDOWN_SHARE)
"""The batching rules' shares that ``--shares`` sets, in its order."""
SHARE_NAMES = "ADVANCE/RESHUFFLE/DEAL/OPPONENT/SHOWDOWN"
"""``--shares``'s form: one divisor for each of :data:`SHARED`."""
Runner = Callable[[float], tuple[int, float]]
"""``run(seconds) -> (agent steps, elapsed)``."""


def median_rate(run: Runner, seconds: float, repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        steps, elapsed = run(seconds)
        rates.append(steps / elapsed)
    return statistics.median(rates)


def numpy_runner(batch: int) -> tuple[Runner, float]:
    sim = VectorGame("standard", batch, seed=0)
    rng = np.random.default_rng(1)

    def run(seconds: float) -> tuple[int, float]:
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            masks = sim.action_masks()
            sim.observe()
            sim.step(sample_legal(masks, rng))
            n += 1
        return n * batch, time.perf_counter() - start

    return run, 0.0


def random_actions(state: object, key: jax.Array) -> jax.Array:
    keys = jax.random.split(key, state.legal_action_mask.shape[0])
    return jax.vmap(random_policy)(state.observation, state.legal_action_mask, keys)


def hilo_play(env: EquationHiLo) -> Callable:
    """A jitted batch step of random play: ``env.play_from_key`` restarts the matches that
    ended in the last step (their action is ignored) and steps the others, one deal loop for
    both, a deck drawn from each game's key only where a hand starts (as ``step`` does);
    returns the state and how many decisions were taken."""

    @jax.jit
    def play(state: object, key: jax.Array) -> tuple[object, jax.Array]:
        act_key, deal_key = jax.random.split(key)
        batch = state.legal_action_mask.shape[0]
        new = state.terminated
        state = jax.vmap(env.play_from_key)(state, random_actions(state, act_key),
                                            jax.random.split(deal_key, batch), new)
        return state, (~new).sum()

    return play


def pgx_play(env: object) -> Callable:
    """The same for a pgx env, restarted as ``pgx.experimental.auto_reset`` does (``init``
    in the step that ends a game); every game decides at every step."""

    @jax.jit
    def play(state: object, key: jax.Array) -> tuple[object, jax.Array]:
        act_key, step_key, init_key = jax.random.split(key, 3)
        batch = state.legal_action_mask.shape[0]
        stepped = jax.vmap(env.step)(state, random_actions(state, act_key),
                                     jax.random.split(step_key, batch))
        fresh = jax.vmap(env.init)(jax.random.split(init_key, batch))
        over = stepped.terminated
        return jax.tree_util.tree_map(
            lambda a, b: jnp.where(over.reshape(over.shape + (1,) * (a.ndim - 1)), a, b),
            fresh, stepped), jnp.asarray(batch)

    return play


def compiled_runner(init: Callable, play: Callable, batch: int) -> tuple[Runner, float]:
    """A runner of ``state, decisions = play(state, key)``, and its compile time in
    seconds."""
    key = jax.random.PRNGKey(batch)
    state = jax.jit(jax.vmap(init))(jax.random.split(key, batch))
    jax.block_until_ready(state)
    start = time.perf_counter()
    state, _ = play(state, key)
    jax.block_until_ready(state)
    compile_s = time.perf_counter() - start
    box = {"state": state, "key": key}

    def run(seconds: float) -> tuple[int, float]:
        decisions, start = [], time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(5):
                box["key"], sub = jax.random.split(box["key"])
                box["state"], taken = play(box["state"], sub)
                decisions.append(taken)
            jax.block_until_ready(box["state"])
        return int(sum(int(d) for d in decisions)), time.perf_counter() - start

    return run, compile_s


def learner_runner(batch: int) -> tuple[Runner, float]:
    view = JaxLearnerEnv(EquationHiLo("standard"))

    @jax.jit
    def play(state: object, key: jax.Array) -> tuple[object, jax.Array]:
        act_key, step_key = jax.random.split(key)
        state = jax.vmap(view.step)(state, random_actions(state, act_key),
                                    jax.random.split(step_key, batch))
        return state, jnp.asarray(batch)

    return compiled_runner(view.reset, play, batch)


def pgx_env() -> tuple[object | None, str]:
    try:
        import pgx
    except ImportError as e:
        return None, f"not installed ({e}); pip install -e '.[bench]'"
    return pgx.make("leduc_holdem"), f"pgx {pgx.__version__}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--batches", type=int, nargs="+", default=list(BATCHES))
    parser.add_argument("--skip", nargs="+", default=[], choices=COLUMNS,
                        help="columns not to run (the learner is slow at large batches)")
    parser.add_argument("--shares", nargs="+", default=[],
                        metavar=SHARE_NAMES,
                        help="run the rows once per set of batching-rule shares (the "
                             "batch's divisors: jax_backend.ADVANCE_SHARE, "
                             "jax_chance.COMPACT_SHARE and DEAL_SHARE, "
                             "jax_learner.OPPONENT_SHARE, jax_backend.SHOWDOWN_SHARE; 0 "
                             "turns the whole batch, the rule off) instead of the "
                             "platform's own")
    args = parser.parse_args()
    try:
        shares = [tuple(int(x) for x in pair.split("/")) for pair in args.shares]
        if any(len(divisors) != len(SHARED) or min(divisors) < 0 for divisors in shares):
            raise ValueError
    except ValueError:
        parser.error(f"--shares takes {len(SHARED)} integers (0: the rule off) as {SHARE_NAMES}, "
                     f"not {' '.join(args.shares)}")
    solver.build_tables()
    print("Equation Hi-Lo, random legal play, standard rules (2 players, 100 chips); agent "
          f"steps/s, median of {args.repeats} x {args.seconds:g} s; compile s in brackets")
    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, NumPy {np.__version__}, jax {jax.__version__} "
          f"({jax.devices()[0]}); load average {os.getloadavg()[0]:.2f} at start")
    env = EquationHiLo("standard")
    leduc, pgx_note = pgx_env()
    print(f"pgx: {pgx_note}")
    for divisors in shares or [None]:
        if divisors is not None:
            for rule, share in zip(SHARED, divisors, strict=True):
                rule.update(dict.fromkeys(rule, share))
            parts = [f"1/{d}" if d else "off (all)" for d in divisors]
            print("shares: deal loop {} of the batch per turn, reshuffles {} of the deal "
                  "loop's, new decks {} of the batch, opponents' turns {} of the batch, "
                  "showdowns {} of the batch".format(*parts))
        table(args, env, leduc)


def table(args: argparse.Namespace, env: EquationHiLo, leduc: object | None) -> None:
    """One row per batch size, the columns not skipped."""
    fmt = "{:>8}  {:>12}  {:>22}  {:>22}  {:>22}"
    print(fmt.format("batch", "numpy +obs", "jax", "jax learner", "pgx leduc"))
    for batch in args.batches:
        cells = []
        makers = (numpy_runner,
                  lambda b: compiled_runner(env.init, hilo_play(env), b),
                  learner_runner,
                  None if leduc is None else lambda b: compiled_runner(leduc.init,
                                                                       pgx_play(leduc), b))
        for column, make in zip(COLUMNS, makers, strict=True):
            if column in args.skip:
                cells.append("skipped")
                continue
            if make is None:
                cells.append("n/a")
                continue
            run, compile_s = make(batch)
            rate = median_rate(run, args.seconds, args.repeats)
            cells.append(f"{rate:,.0f}" + (f" [{compile_s:.1f}]" if compile_s else ""))
        print(fmt.format(f"{batch:,}", *cells), flush=True)


if __name__ == "__main__":
    main()
