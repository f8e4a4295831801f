"""The JAX backend under misuse (issue 31, items 7 and 8): a bad deck is refused before any
trace and cannot hang a traced step; float and bool actions are refused when tracing; a seat
outside the table is an error, not another seat's observation; an action outside the space is
the illegal action whatever its integer type, never an id it wraps onto."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="jax is not importable: pip install -e '.[jax]'")

import jax.numpy as jnp  # noqa: E402

from hilo_env.equation_hilo import jax_chance as C  # noqa: E402
from hilo_env.equation_hilo.jax_backend import EquationHiLo, check_deal  # noqa: E402
from tests.conformance.jax_batch import FAST_COMPILE  # noqa: E402
from tests.test_jax_backend import standard  # noqa: E402

SEED = C.hand_seed_words(np.uint64(7))
BAD_DECKS = {"specials only": np.full(52, 44), "ids past 51": np.arange(52) + 10,
             "a card twice": np.r_[0, np.arange(51)], "51 cards": np.arange(51),
             "floats": np.arange(52) + 0.5, "a scalar": np.int32(3)}


@pytest.mark.parametrize("name", BAD_DECKS)
def test_a_bad_deck_is_refused_before_any_trace(name, monkeypatch) -> None:
    env = EquationHiLo("standard")

    def never(*args: object) -> None:
        raise AssertionError("the bad deck reached the transition")

    monkeypatch.setattr(env, "_play", never)  # a regression fails here instead of hanging
    bad = BAD_DECKS[name]
    with pytest.raises(ValueError, match="a deck "):
        env.init_from_deal(bad, SEED)
    with pytest.raises(ValueError, match="a deck "):
        env.step_with_deal(None, 0, bad, SEED)
    with pytest.raises(ValueError, match="a deck "):
        env.play(None, 0, bad, SEED, True)
    with pytest.raises(ValueError, match="hand seed"):
        env.init_from_deal(np.arange(52), np.array([1, 2, 3]))
    check_deal(np.stack([np.arange(52)] * 3), np.stack([SEED] * 3))  # a batch of good ones


def test_a_traced_bad_deck_cannot_hang_a_step() -> None:
    """Under jit the deck is not checked; every loop is bounded, so the step ends. Run in a
    subprocess with a timeout, so that a regression fails instead of hanging the suite."""
    script = textwrap.dedent("""
        import jax, jax.numpy as jnp, numpy as np
        from hilo_env.equation_hilo.jax_backend import EquationHiLo
        from hilo_env.equation_hilo import jax_chance as C
        env = EquationHiLo("standard")
        seed = jnp.asarray(C.hand_seed_words(np.uint64(7)))
        state = jax.jit(env.init_from_deal)(jnp.full(52, 44, jnp.int32), seed)
        jax.block_until_ready(state)
        print("ended")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=400)
    assert done.returncode == 0 and "ended" in done.stdout, done.stderr[-2000:]


@pytest.mark.parametrize("bad", [2.7, -0.5, float("nan"), True, np.float32(1.0),
                                 jnp.array(1.0), jnp.array(True)])
def test_a_float_or_bool_action_is_refused_when_tracing(bad) -> None:
    env, init, step = standard()
    state = init(jax.random.PRNGKey(0))
    with pytest.raises(TypeError, match="an action must be an integer"):
        step(state, bad, jax.random.PRNGKey(1))
    with pytest.raises(TypeError, match="an action must be an integer"):
        jax.jit(env.step_with_deal)(state, bad, *C.deal(jax.random.PRNGKey(2)))


def test_a_seat_outside_the_table_is_an_error() -> None:
    env, init, _ = standard()
    state = init(jax.random.PRNGKey(0))
    for bad in (99, -1, 2, np.array([0, 5])):
        with pytest.raises(ValueError, match=r"player must be a seat 0\.\.1"):
            env.observe(state, bad)
    with pytest.raises(TypeError, match="player must be an integer"):
        env.observe(state, 1.0)
    observe = jax.jit(env.observe)
    assert bool(jnp.isnan(observe(state, 99)).all())  # traced: NaNs, never another seat's
    for seat in (0, 1):
        seen = observe(state, seat)
        assert not bool(jnp.isnan(seen).any())
        np.testing.assert_array_equal(seen, env.observe(state, np.int64(seat)))
    np.testing.assert_array_equal(env.observe(state), env.observe(state, state.current_player))


OUTSIDE = [np.int64(2**32), np.int64(2**32 + 1), np.int64(-2**32), 2**31, 10**20, -1, 109,
           np.uint64(2**64 - 1), np.uint32(2**32 - 1), np.int8(-1), np.array([2**32, 3])]
"""Actions outside the standard rules' space (0..108), of every integer type: a plain cast to
int32 wraps some onto ids of the space (2**32 onto 0, fold) and overflows on others."""


def test_an_action_outside_the_space_is_no_id_whatever_its_integer_type() -> None:
    env, _, _ = standard()
    for bad in OUTSIDE:
        expected = np.where(np.asarray(bad) == 3, 3, -1)  # 3 is inside: it stays
        np.testing.assert_array_equal(env.action_id(bad), expected)
        assert env.action_id(bad).dtype == jnp.int32
    for good in (0, np.int64(108), np.uint8(5), jnp.int32(7)):
        assert int(env.action_id(good)) == int(good)
    traced = jax.jit(env.action_id)(jnp.array([-5, 0, 108, 109], jnp.int32))
    np.testing.assert_array_equal(traced, [-1, 0, 108, -1])


def test_a_64_bit_action_beyond_int32_is_the_illegal_action_not_a_fold() -> None:
    """The action given as a NumPy int64, as the step sees it outside ``jit`` (here a
    constant of the compiled function): the match ends with the offender's penalty, where a
    fold (2**32 wrapped to 0) would cost one ante."""
    env, init, _ = standard()
    state = init(jax.random.PRNGKey(0))
    assert bool(state.legal_action_mask[0])  # a fold is legal: a wrapped action would play
    step = jax.jit(lambda s, k: env.step(s, np.int64(2**32), k), compiler_options=FAST_COMPILE)
    after = step(state, jax.random.PRNGKey(1))
    stack = env.rules.starting_stack
    assert bool(after.terminated)
    assert float(after.rewards[state.current_player]) == -stack


def test_pgx_refuses_no_python_integer_beyond_int32() -> None:
    pytest.importorskip("pgx", reason="pgx is not installed (pip install -e '.[libraries]')")
    from hilo_env.envs.pgx_env import PgxEquationHiLo

    env = PgxEquationHiLo("standard")
    state = jax.jit(env.init, compiler_options=FAST_COMPILE)(jax.random.PRNGKey(0))
    step = jax.jit(lambda s, k: env.step(s, 2**31, k), compiler_options=FAST_COMPILE)
    after = step(state, jax.random.PRNGKey(1))
    assert bool(after.terminated)
    assert float(after.rewards[state.current_player]) == -env.game.rules.starting_stack
