"""The JAX backend as a pgx.Env (the ``libraries`` extra: pgx; skipped without): pgx's own
``api_test`` and ``save_svg``. About 40 s, most of it compiling.

pgx 2.6's ``api_test`` needs two allowances, the same for pgx's own games: its
``act_randomly`` samples on axis 1, which one game's mask lacks under jax 0.10 (it fails on
``pgx.make("tic_tac_toe")`` too), so one game's actions are drawn on the last axis; and it
checks ``env_id`` against pgx's fixed list of its games (``pgx.core.EnvId``), to which the
test adds ``equation_hilo``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Literal, get_args

import pytest

pgx = pytest.importorskip("pgx", reason="pgx is not installed (pip install -e '.[libraries]')")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from pgx._src import api_test as pgx_api_test  # noqa: E402

from hilo_env.envs.pgx_env import PgxEquationHiLo, PgxState  # noqa: E402
from hilo_env.equation_hilo import jax_backend as J  # noqa: E402


def act_randomly(rng: jax.Array, mask: jax.Array) -> jax.Array:
    """pgx's act_randomly on the last axis: one game's mask or a batch's."""
    return jax.random.categorical(rng, jnp.log(mask.astype(jnp.float32)), axis=-1)


@pytest.mark.slow
def test_pgx_api_test(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pgx_api_test, "act_randomly", jax.jit(act_randomly))
    monkeypatch.setattr(pgx_api_test, "EnvId",
                        Literal[(*get_args(pgx.core.EnvId), J.ENV_ID)])
    env = PgxEquationHiLo("duel")
    assert isinstance(env, pgx.Env) and env.id == J.ENV_ID
    assert env.num_players == 2 and env.observation_shape == J.EquationHiLo("duel") \
        .observation_shape
    pgx.api_test(env, num=2)


@pytest.mark.slow
def test_the_game_is_the_backends(tmp_path: Path) -> None:
    """pgx's fields are the backend's state's; an illegal action ends the match with the
    backend's penalty (not pgx's -1 as well); save_svg draws a game and a batch."""
    env, game = PgxEquationHiLo("duel"), J.EquationHiLo("duel")
    key = jax.random.PRNGKey(3)
    state = jax.jit(env.init)(key)
    assert isinstance(state, PgxState) and state._step_count == 0
    assert (state.observation == state._game.observation).all()
    step = jax.jit(env.step)
    start = state
    for i in range(4):
        if state.terminated:
            break
        state = step(state, jnp.argmax(state.legal_action_mask), jax.random.PRNGKey(i))
        assert state._step_count == i + 1
        for name in ("current_player", "observation", "rewards", "terminated",
                     "legal_action_mask"):
            assert (getattr(state, name) == getattr(state._game, name)).all()
    illegal = jnp.argmin(start.legal_action_mask)
    assert not start.legal_action_mask[illegal]
    ended = step(start, illegal, key)
    offender = int(start.current_player)
    assert ended.terminated and float(ended.rewards[offender]) == -game.rules.starting_stack
    assert float(ended.rewards.sum()) == 0.0
    state.save_svg(tmp_path / "one.svg")
    batch = jax.jit(jax.vmap(env.init))(jax.random.split(key, 3))
    batch.save_svg(tmp_path / "batch.svg")
    for name, games in (("one.svg", 1), ("batch.svg", 3)):
        text = (tmp_path / name).read_text()
        ET.fromstring(text)  # well-formed SVG
        assert text.count("player_1") == games
    with pytest.raises(ValueError, match=r"ends in \.svg"):
        state.save_svg(tmp_path / "table.png")
