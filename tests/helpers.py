"""Helpers for the tests: stacked-deck games driven by action strings."""

from __future__ import annotations

import numpy as np

from hilo_env.equation_hilo.actions import string_to_action
from hilo_env.equation_hilo.engine import Game
from hilo_env.equation_hilo.rules import RuleSet


def make_game(deck: list[str], preset: str = "standard", seed: int = 0, **overrides) -> Game:
    """A game of ``preset`` whose deck starts with ``deck`` (text forms, top first)."""
    return Game(RuleSet.preset(preset, **overrides), np.random.default_rng(seed), deck)


def play(game: Game, *moves: str) -> Game:
    """Apply action strings in order, failing loudly on an illegal one."""
    for move in moves:
        game.step(string_to_action(move))
    return game
