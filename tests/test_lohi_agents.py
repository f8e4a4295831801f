"""lo-hi agents and terminal play (tournaments and the ``hilo`` command: tests/test_games.py)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from hilo_env.agents import RandomAgent
from hilo_env.agents.play import play
from hilo_env.agents.registry import make, names
from hilo_env.lohi import actions as A
from hilo_env.lohi.observation import Encoder, action_mask
from hilo_env.lohi.terminal import parse_command
from tests.lohi_helpers import play as deal_and_play

P1 = ["2H", "4H", "5S", "QH", "AD"]


def decide(hands: list, face_up: str, moves: list[str]) -> str:
    """The heuristic's action text for the player to act after ``moves``."""
    game = deal_and_play(hands, face_up, moves)
    bot = make("heuristic", game.rules, game="lohi")
    seat = game.current_player
    return A.TEXTS[bot.act(Encoder(game.rules).encode(game, seat), action_mask(game))]


@pytest.mark.parametrize("hands, face_up, moves, expected", [
    ([["6S", "7H", "8C", "9D", "KD"], P1], "4D", [], "play 6 7 8 9"),  # the longest run
    ([["6S", "6H", "6C", "9D", "KD"], P1], "4D", [], "play 6 6 6"),  # the largest set
    ([["2S", "8H", "3C", "9D", "KD"], P1], "4D", [], "play 2"),  # one card: farthest from 8
    ([["3S", "7S", "9S", "9H", "KS"], ["2D", "3H", "4C", "5D", "6D"]], "6C",
     ["play K"], "play 6 5 4 3 2"),  # goes out
    ([["3S", "7S", "9S", "9H", "KS"], ["QD", "KH", "JC", "AS", "AC"]], "4C",
     ["play 3"], "play J Q K A"),  # a run of four beats a pair of Aces
    ([["3S", "7S", "9S", "9H", "KS"], ["2D", "3H", "4C", "5D", "6D"]], "8C",
     ["play 9"], "play 6 5 4 3 2"),  # goes out on a run down from 6 under LOWER
])
def test_heuristic_plays(hands: list, face_up: str, moves: list, expected: str) -> None:
    assert decide(hands, face_up, moves) == expected


def test_heuristic_picks_up_only_when_nothing_is_legal() -> None:
    assert decide([["3S", "7S", "9S", "9H", "KS"], ["2D", "3H", "4C", "5D", "6D"]], "6C",
                  ["play 3"]) == "play 3 4 5 6"  # HIGHER than 3: the longest run up
    assert decide([["3S", "7S", "9S", "9H", "KS"], ["2D", "3H", "4C", "5D", "6D"]], "2C",
                  ["play 9 9", "higher"]) == "pick up"


def test_heuristic_choice_and_call() -> None:
    """After a double it names the direction fewer unseen cards answer; after a triple the
    rank with the fewest unseen cards."""
    assert decide([["9S", "9H", "AS", "AH", "AC"], P1], "6D", ["play 9 9"]) == "higher"
    assert decide([["2S", "2H", "3S", "3H", "3C"], ["4H", "5S", "QH", "AD", "7D"]], "2D",
                  ["play 2 2"]) == "call 3"


def test_names_and_make() -> None:
    assert names("lohi")[:2] == ["random", "heuristic"]
    assert isinstance(make("random", "single_round", seed=3, game="lohi"), RandomAgent)
    with pytest.raises(ValueError, match="choose from random, heuristic"):
        make("caller", game="lohi")


def test_act_batch_returns_legal_actions() -> None:
    game = deal_and_play([["6S", "7H", "8C", "9D", "KD"], P1], "4D", [])
    obs = Encoder(game.rules).encode(game, 0)
    mask = action_mask(game)
    for name in ("random", "heuristic"):
        actions = make(name, game.rules, game="lohi").act_batch(np.stack([obs] * 3),
                                                                np.stack([mask] * 3))
        assert actions.shape == (3,) and mask[actions].all()


def test_parse_command() -> None:
    legal = [A.PICK_UP, A.string_to_action("play 7"), A.string_to_action("play 8 9 10")]
    assert parse_command("p", legal) == A.PICK_UP
    assert parse_command("  play  8 9 10 ", legal) == A.string_to_action("play 8 9 10")
    assert parse_command("7", legal) == A.string_to_action("play 7")
    with pytest.raises(ValueError, match=r"not legal now\. Legal now: pick up, play 7"):
        parse_command("play 2", legal)
    with pytest.raises(ValueError, match="is not an action"):
        parse_command("fold", legal)


def test_scripted_play_session() -> None:
    lines = iter(["help", "fold", "p", "quit"])
    out = io.StringIO()

    def read(prompt: str) -> str:
        return next(lines)

    total = play("heuristic", "single_round", 1, seed=0, game="lohi", read_line=read,
                 out=out)
    text = out.getvalue()
    assert "Legal now: pick up" in text and "'fold' is not an action" in text
    assert text.rstrip().endswith("Bye.") and total == 0.0


def test_a_played_game_tells_each_round_and_the_winner() -> None:
    """The person only picks up: the heuristic goes out, which a line says, and wins."""
    out = io.StringIO()
    total = play("heuristic", "single_round", 1, seed=2, game="lohi",
                 read_line=lambda prompt: "p", out=out)
    text = out.getvalue()
    assert "  You pick up" in text and "  player_1 (heuristic) plays " in text
    assert "  player_1 goes out and wins round 1." in text
    assert "player_1 wins the game (-1.00 for you)." in text and total == -1.0
    assert text.rstrip().endswith("Total over 1 game: -1.00")


def test_play_until_the_end_of_input() -> None:
    out = io.StringIO()

    def read(prompt: str) -> str:
        raise EOFError

    assert play("random", "single_round", 2, game="lohi", read_line=read, out=out) == 0.0
    assert "Bye." in out.getvalue()
