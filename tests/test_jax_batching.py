"""The JAX backend's batching rules: ``loop_where`` under ``vmap`` gives each game its own
while loop, whatever the chunk a turn gathers (or none, the rule off), the games that need no
turn, or the arguments without a batch axis."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="jax is not importable: pip install -e '.[jax]'")

import jax.numpy as jnp  # noqa: E402

from hilo_env.equation_hilo.jax_batching import loop_where  # noqa: E402

SHARES = {"cpu": 4, "default": 4}


def collatz(carry: tuple[jax.Array, jax.Array],
            limit: jax.Array) -> tuple[tuple[jax.Array, jax.Array], jax.Array]:
    """One step of the Collatz map (and a count of steps), again while above ``limit``."""
    x, steps = carry
    x = jnp.where(x % 2 == 0, x // 2, 3 * x + 1)
    return (x, steps + 1), x > limit


def reference(need: np.ndarray, start: np.ndarray, limit: int) -> tuple[np.ndarray,
                                                                         np.ndarray]:
    xs, counts = start.copy(), np.zeros_like(start)
    for g in np.flatnonzero(need):
        again = True
        while again:
            (x, c), again = collatz((xs[g], counts[g]), limit)
            xs[g], counts[g], again = int(x), int(c), bool(again)
    return xs, counts


@pytest.mark.parametrize("share", [4, 0], ids=["gathered", "rule off"])
def test_loop_where_under_vmap_turns_each_game_as_its_own_loop(share: int) -> None:
    """A share gathers a chunk of the games per turn; 0 turns the whole batch (the select of
    a batched while loop): the same loops either way."""
    g = loop_where(collatz, {"cpu": share, "default": share})
    rng = np.random.default_rng(0)
    games = 4 * 5 + 3  # chunks of 5: more games than one turn takes
    start = rng.integers(2, 60, games).astype(np.int32)
    zeros = np.zeros(games, np.int32)
    batched = jax.jit(jax.vmap(g, in_axes=(0, 0, None)))
    for need in (np.zeros(games, bool), rng.random(games) < 0.2, np.ones(games, bool)):
        got_x, got_steps = batched(need, (start, zeros), 1)
        want_x, want_steps = reference(need, start, 1)
        np.testing.assert_array_equal(got_x, want_x)
        np.testing.assert_array_equal(got_steps, want_steps)
    assert int(np.asarray(got_steps).max()) > 10  # games took many turns, and different counts
    assert len(set(np.asarray(got_steps).tolist())) > 5
    # one game, no vmap: a plain while loop; need False leaves the carry
    x, steps = jax.jit(g)(True, (jnp.int32(27), jnp.int32(0)), 1)
    assert (int(x), int(steps)) == (1, 111)
    assert [int(v) for v in jax.jit(g)(False, (jnp.int32(27), jnp.int32(0)), 1)] == [27, 0]
    # a batched limit and an unbatched need (broadcast to the batch)
    limits = rng.integers(1, 5, games).astype(np.int32)
    got = jax.jit(jax.vmap(g, in_axes=(None, 0, 0)))(True, (start, zeros), limits)
    for i in range(games):
        want = reference(np.ones(1, bool), start[i:i + 1], int(limits[i]))
        assert (int(got[0][i]), int(got[1][i])) == (int(want[0][0]), int(want[1][0]))


def test_loop_where_body_may_close_over_arrays_in_a_cond_under_vmap() -> None:
    """A body that closes over a table (a constant) and over a value of the enclosing
    ``vmap``, called in a ``cond``'s branch under ``vmap`` (JAX then hands the batching rule
    every array the branch reads as batched): each game still runs as its own loop."""
    ones = np.ones(4, np.int32)  # a rule's table: 3x + 1 by lookup

    def play(flag: jax.Array, x: jax.Array, limit: jax.Array) -> tuple[jax.Array, jax.Array]:
        def body(carry: tuple[jax.Array, jax.Array]) -> tuple[tuple[jax.Array, jax.Array],
                                                               jax.Array]:
            x, steps = carry
            x = jnp.where(x % 2 == 0, x // 2, 3 * x + jnp.asarray(ones)[x % 4])
            return (x, steps + 1), x > limit

        g = loop_where(body, SHARES)
        return jax.lax.cond(flag, lambda: g(True, (x, jnp.int32(0))),
                            lambda: (x, jnp.int32(-1)))

    rng = np.random.default_rng(1)
    games = 23
    flags = rng.random(games) < 0.7
    start = rng.integers(2, 60, games).astype(np.int32)
    limits = rng.integers(1, 5, games).astype(np.int32)
    got_x, got_steps = jax.jit(jax.vmap(play))(flags, start, limits)
    for i in range(games):
        if flags[i]:
            want = reference(np.ones(1, bool), start[i:i + 1], int(limits[i]))
            assert (int(got_x[i]), int(got_steps[i])) == (int(want[0][0]), int(want[1][0]))
        else:
            assert (int(got_x[i]), int(got_steps[i])) == (int(start[i]), -1)
    assert flags.any() and not flags.all()
