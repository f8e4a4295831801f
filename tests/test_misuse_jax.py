"""The JAX backend under misuse (issue 31, items 7 and 8): a bad deck is refused before any
trace and cannot hang a traced step; float and bool actions are refused when tracing; a seat
outside the table is an error, not another seat's observation."""

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
