"""Equation Hi-Lo's JAX backend as a ``pgx.Env`` (needs ``pgx``, the ``jax`` extra): pgx's own
tools (``pgx.api_test``, ``auto_reset``, ``save_svg``) and search libraries built on its API
(mctx) take it as one of pgx's games.

    env = PgxEquationHiLo("standard")
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    state = jax.jit(env.step)(state, action, key)    # key deals the next hand
    state.save_svg("table.svg")

A :class:`PgxState` has pgx's public fields only (``current_player``, ``observation``,
``rewards``, ``terminated``, ``truncated``, ``legal_action_mask``) and keeps the backend's
whole :class:`~hilo_env.equation_hilo.jax_backend.State` in ``_game``. The game is
:class:`~hilo_env.equation_hilo.jax_backend.EquationHiLo`'s, decision for decision: its step
already ends the match on an illegal action (the offender loses ``starting_stack``, the others
share it), so pgx's own penalty of -1 is not added. ``step`` needs a key (a hand that ends is
dealt again from it). pgx's ``api_test`` checks a state's ``env_id`` against the ids of pgx's
own games (``pgx.core.EnvId``, a fixed list): ``equation_hilo`` is not among them, so that one
check needs the id added (``tests/test_pgx.py`` shows how).
"""

from __future__ import annotations

import dataclasses
from html import escape
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pgx

from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo import jax_backend as J
from hilo_env.equation_hilo.rules import RuleSet

SVG_LINE = 18
"""Pixels between two lines of :meth:`PgxState.to_svg`."""
SVG_WIDTH = 560
SVG_GAMES = 8
"""The most games of a batch :meth:`PgxState.to_svg` draws (the first ones)."""


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class PgxState(pgx.State):
    """pgx's state of one game (``jax.vmap`` adds batch axes); ``_game`` is the backend's."""

    _game: J.State

    @property
    def env_id(self) -> str:
        return J.ENV_ID

    def to_svg(self, *, color_theme: str | None = None, scale: float | None = None) -> str:
        """The table as a spectator sees it (face-up cards, stacks, wagers, declarations;
        hidden cards as ``?``), one block per game of a batch (the first :data:`SVG_GAMES`)."""
        game = jax.tree_util.tree_map(np.asarray, self._game)
        batch = game.current_player.shape
        indices = list(np.ndindex(*batch))[:SVG_GAMES] if batch else [()]
        lines: list[str] = []
        for index in indices:
            one = jax.tree_util.tree_map(lambda x, i=index: x[i], game)
            lines.extend(table_lines(one))
            lines.append("")
        dark = color_theme == "dark"
        fg, bg = ("#eee", "#222") if dark else ("#111", "#fff")
        size = scale or 1.0
        height = SVG_LINE * (len(lines) + 1)
        texts = "".join(f'<text x="10" y="{SVG_LINE * (i + 1)}">{escape(line)}</text>'
                        for i, line in enumerate(lines))
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{SVG_WIDTH * size:g}" '
                f'height="{height * size:g}" viewBox="0 0 {SVG_WIDTH} {height}">'
                f'<rect width="100%" height="100%" fill="{bg}"/>'
                f'<g font-family="monospace" font-size="14" fill="{fg}">{texts}</g></svg>')

    def save_svg(self, filename: str | Path, *, color_theme: str | None = None,
                 scale: float | None = None) -> None:
        """:meth:`to_svg` written to ``filename`` (which must end in ``.svg``, as pgx's)."""
        if not str(filename).endswith(".svg"):
            raise ValueError(f"an SVG file name ends in .svg, not {str(filename)!r}")
        Path(filename).write_text(self.to_svg(color_theme=color_theme, scale=scale))


def table_lines(game: J.State) -> list[str]:
    """One game's table in text lines, from the backend's state (NumPy arrays)."""
    status = "match over" if game.match_over else f"seat {int(game.current_player)} to act"
    lines = [f"hand {int(game.hand_number)}   pot {int(game.wagers.sum())}   {status}"]
    for seat in range(game.stacks.shape[0]):
        shown = " ".join(cards.card_str(int(c)) for c in np.flatnonzero(game.face_up[seat]))
        state = "out" if game.eliminated[seat] else "in" if game.in_hand[seat] else "folded"
        lines.append(f"player_{seat}  {state:<6} stack {int(game.stacks[seat]):>3}  wager "
                     f"{int(game.wagers[seat]):>3}  ? {shown}")
    return lines


class PgxEquationHiLo(pgx.Env):
    """Equation Hi-Lo as a ``pgx.Env`` (see the module docstring); ``rules`` and
    ``overrides`` as :class:`~hilo_env.equation_hilo.jax_backend.EquationHiLo` takes them."""

    def __init__(self, rules: str | RuleSet = "standard", **overrides: Any) -> None:
        super().__init__()
        self.game = J.EquationHiLo(rules, **overrides)

    def step(self, state: PgxState, action: Any, key: jax.Array | None = None) -> PgxState:
        """pgx's step, the action first made an id of the space, or -1 where it lies outside
        (:meth:`~hilo_env.equation_hilo.jax_backend.EquationHiLo.action_id`): pgx indexes the
        mask with it, which a Python ``2**31`` would overflow."""
        return super().step(state, self.game.action_id(action), key)

    def _init(self, key: jax.Array) -> PgxState:
        return self._state(self.game.init(key), jax.numpy.int32(0))

    def _step(self, state: PgxState, action: jax.Array, key: jax.Array) -> PgxState:
        return self._state(self.game.step(state._game, action, key), state._step_count)

    def _observe(self, state: PgxState, player_id: jax.Array) -> jax.Array:
        return self.game.observe(state._game, player_id)

    def _step_with_illegal_action(self, state: PgxState, loser: jax.Array) -> PgxState:
        return state  # the game's step has ended the match with its own penalty

    @staticmethod
    def _state(game: J.State, step_count: jax.Array) -> PgxState:
        return PgxState(current_player=game.current_player, observation=game.observation,
                        rewards=game.rewards, terminated=game.terminated,
                        truncated=game.truncated, legal_action_mask=game.legal_action_mask,
                        _step_count=step_count, _game=game)

    @property
    def id(self) -> str:
        return self.game.id

    @property
    def version(self) -> str:
        return self.game.version

    @property
    def num_players(self) -> int:
        return self.game.num_players
