"""Hi MiLo!'s agents, team evaluation, ``hilo play/tournament --game himilo``: legal actions,
scripted input, bad input and exit codes."""

from __future__ import annotations

import io
import itertools
import sys

import numpy as np
import pytest

from hilo_env.agents.himilo import TeamAgent, card_power, make, names
from hilo_env.agents.play_himilo import parse_command, play
from hilo_env.cli import main
from hilo_env.himilo import actions as A
from hilo_env.himilo import cards
from hilo_env.himilo.engine import Round
from hilo_env.himilo.observation import Encoder, action_mask
from hilo_env.himilo.rules import RuleSet
from hilo_env.training.evaluate_himilo import evaluate


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("name", ["random", "team"])
def test_agents_play_legal_actions(n: int, name: str) -> None:
    rules = RuleSet(num_players=n, visible_win_cards=5)
    team = [make(name, rules, seed=s) for s in range(n)]
    encoder = Encoder(rules)
    for r in range(3):
        game = Round(rules, np.random.default_rng(r))
        while game.current_player is not None:
            seat = game.current_player
            mask = action_mask(game)
            action = team[seat].act(encoder.encode(game, seat), mask)
            assert mask[action] == 1
            game.step(action)


def test_registry() -> None:
    assert names() == ["random", "team"]
    assert isinstance(make("team", "hardcore"), TeamAgent)
    with pytest.raises(ValueError, match="choose from random, team"):
        make("heuristic")


def test_card_power_follows_the_win_cards() -> None:
    power = card_power([cards.parse_win_card("KS")], 15)
    assert power[cards.card_id(15, 0)] == 1.0 and power[cards.card_id(15, 1)] < 1.0
    power = card_power([cards.parse_win_card("JH")], 15)
    assert power[cards.card_id(1, 1)] == 0.0 and power[cards.card_id(1, 0)] == 1.0


def test_team_beats_random() -> None:
    rules = RuleSet(num_players=3)
    team, rand = evaluate("team", rules, rounds=150), evaluate("random", rules, rounds=150)
    assert team.round_rate()[0] > rand.round_rate()[0]
    assert team.rounds == 150 and 0 <= team.match_rate()[0] <= 1


def test_parse_command() -> None:
    bids = [A.BID_LOW, A.BID_HIGH]
    assert parse_command("HIGH", bids) == A.BID_HIGH
    assert parse_command("bid low", bids) == A.BID_LOW
    with pytest.raises(ValueError, match=r"'bid middle' is not legal now\. Legal now: bid low"):
        parse_command("bid middle", bids)
    passes = [A.pass_card(3), A.pass_card(7)]
    assert parse_command("1d", passes) == A.pass_card(3)
    assert parse_command("play 2D", [A.play(7)]) == A.play(7)
    with pytest.raises(ValueError, match="not an action"):
        parse_command("fold", passes)


def test_play_scripted_round() -> None:
    """Help, a wrong command, then every bid word and card in turn: a wrong one is answered
    with the legal ones and the next line is read, so the round is played to its end."""
    out = io.StringIO()
    every = ["low", "middle", "high", *(cards.card_str(c) for c in range(48))]
    answers = itertools.chain(["help", "bogus"], itertools.cycle(every))
    won = play("team", RuleSet(num_players=3), rounds=1, seed=2,
               read_line=lambda prompt: next(answers), out=out)
    text = out.getvalue()
    assert "Legal now: bid low, bid middle, bid high" in text
    assert "'bogus' is not an action" in text
    assert "Round over" in text and f"The team won {won} of 1 round." in text


def run(capsys, monkeypatch, argv, stdin=""):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_tournament(capsys, monkeypatch) -> None:
    code, out, err = run(capsys, monkeypatch, ["tournament", "--game", "himilo", "random",
                                               "team", "--hands", "10", "--players", "3"])
    assert code == 0 and err == ""
    assert "random   3 players" in out and "team     3 players" in out and "95%" not in err


def test_cli_play_eof(capsys, monkeypatch) -> None:
    code, out, err = run(capsys, monkeypatch, ["play", "--game", "himilo", "--hands", "1"],
                         "bid high\n")
    assert code == 0 and err == "" and "Bye." in out and "team bots" in out


@pytest.mark.parametrize("argv, message", [
    (["tournament", "--game", "himilo", "heuristic"], "unknown Hi MiLo! agent 'heuristic'"),
    (["tournament", "--game", "himilo", "team", "--hands", "0"], "--hands must be at least 1"),
    (["tournament", "--game", "himilo", "team", "--rules", "classic"], "not a Hi MiLo! preset"),
    (["play", "--game", "himilo", "--players", "6"], "'num_players' = 6"),
    (["play", "--game", "himilo", "--seat", "4"], "--seat must be 0..3"),
    (["play", "--game", "himilo", "--opponent", "caller"], "unknown Hi MiLo! agent"),
])
def test_cli_bad_input(capsys, monkeypatch, argv: list[str], message: str) -> None:
    code, _, err = run(capsys, monkeypatch, argv)
    assert code == 2 and err.startswith("hilo: error: ") and message in err
    assert err.count("\n") == 1
