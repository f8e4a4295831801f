"""OpenSpiel's own tools on python_hilo, as OpenSpiel runs them on its games: the random
simulations of its ``games_sim_test`` (the default game, and every player count its multiplayer
test loads with ``players``), and a playthrough kept in the repository that
``generate_playthrough.replay`` regenerates identically (the ``openspiel`` extra). About 5 s.

After a deliberate change of the game, rewrite the playthrough with
``python -c "from tests.test_openspiel_tools import write_playthrough; write_playthrough()"``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")

from absl import flags  # noqa: E402
from open_spiel.python.algorithms import generate_playthrough  # noqa: E402
from open_spiel.python.tests import games_sim_test  # noqa: E402

from hilo_env.envs import openspiel_game as G  # noqa: E402

PLAYTHROUGH = Path(__file__).resolve().parent / "data" / "python_hilo_tiny.txt"
"""OpenSpiel's record of one random game of python_hilo(preset=tiny), seed 0."""


def parse_absl_flags() -> None:
    """generate_playthrough reads an absl flag, which OpenSpiel's tests parse at start."""
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()


def write_playthrough() -> None:
    parse_absl_flags()
    PLAYTHROUGH.write_text(generate_playthrough.playthrough(
        f"{G.SHORT_NAME}(preset=tiny)", action_sequence=None, seed=0))


def game_info() -> pyspiel.GameType:
    return next(g for g in pyspiel.registered_games() if g.short_name == G.SHORT_NAME)


def test_games_sim_test_default_game() -> None:
    """games_sim_test.test_game_sim: the game loaded by its short name alone."""
    game = pyspiel.load_game(G.SHORT_NAME)
    info = game_info()
    assert info.min_num_players <= game.num_players() <= info.max_num_players
    games_sim_test.GamesSimTest().sim_game(game)


@pytest.mark.parametrize("players", range(2, 7))
def test_games_sim_test_multiplayer(players: int) -> None:
    """games_sim_test.test_multiplayer_game: loaded with {"players": n}, n from 2 to
    min(max_num_players, 6)."""
    info = game_info()
    assert info.max_num_players > 2 and info.min_num_players <= players
    game = pyspiel.load_game(info.short_name, {"players": players})
    assert game.num_players() == players == game.rules.num_players
    games_sim_test.GamesSimTest().sim_game(game)


def test_players_is_num_players() -> None:
    game = pyspiel.load_game(f"{G.SHORT_NAME}(preset=classic,players=3)")
    assert game.rules.num_players == 3 and game.rules.deal == G.load("classic").rules.deal
    assert pyspiel.load_game(str(game)).rules == game.rules
    assert pyspiel.load_game(G.SHORT_NAME, {"players": 4, "num_players": 4}).num_players() == 4
    with pytest.raises(ValueError, match="disagree"):
        pyspiel.load_game(G.SHORT_NAME, {"players": 3, "num_players": 4})


def test_playthrough_replays_identically() -> None:
    """OpenSpiel's playthrough test: the file's game and actions, replayed, give the file."""
    parse_absl_flags()
    original, new = generate_playthrough.replay(str(PLAYTHROUGH))
    assert "game: python_hilo(preset=tiny)" in original and "IsTerminal() = True" in original
    assert new == original
