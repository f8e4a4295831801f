"""Hi MiLo!'s agents and ``hilo play --game himilo``: legal actions, scripted input (team
evaluation and the command's bad input: tests/test_games.py)."""

from __future__ import annotations

import io
import itertools
import sys

import numpy as np
import pytest

from hilo_env.agents.himilo import TeamAgent, card_power
from hilo_env.agents.play import play
from hilo_env.agents.registry import MODELS, make, names
from hilo_env.cli import main
from hilo_env.himilo import actions as A
from hilo_env.himilo import cards
from hilo_env.himilo.engine import Round
from hilo_env.himilo.observation import Encoder, action_mask
from hilo_env.himilo.rules import RuleSet
from hilo_env.himilo.terminal import parse_command


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("name", ["random", "team"])
def test_agents_play_legal_actions(n: int, name: str) -> None:
    rules = RuleSet(num_players=n, visible_win_cards=5)
    team = [make(name, rules, seed=s, game="himilo") for s in range(n)]
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
    assert names("himilo")[:2] == ["random", "team"]
    assert isinstance(make("team", "hardcore", game="himilo"), TeamAgent)
    with pytest.raises(ValueError, match="choose from random, team"):
        make("heuristic", game="himilo")


def test_card_power_follows_the_win_cards() -> None:
    power = card_power([cards.parse_win_card("KS")], 15)
    assert power[cards.card_id(15, 0)] == 1.0 and power[cards.card_id(15, 1)] < 1.0
    power = card_power([cards.parse_win_card("JH")], 15)
    assert power[cards.card_id(1, 1)] == 0.0 and power[cards.card_id(1, 0)] == 1.0


def test_parse_command() -> None:
    bids = [A.BID_LOW, A.BID_HIGH]
    assert parse_command("HIGH", bids) == A.BID_HIGH
    assert parse_command("bid low", bids) == A.BID_LOW
    assert parse_command("h", bids) == A.BID_HIGH and parse_command("L", bids) == A.BID_LOW
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
    won = play("team", RuleSet(num_players=3), 1, seed=2, game="himilo",
               read_line=lambda prompt: next(answers), out=out)
    text = out.getvalue()
    assert "Legal now: bid low, bid middle, bid high" in text
    assert "'bogus' is not an action" in text
    assert "Round over" in text and f"The team won {won} of 1 round." in text
    assert "  You bid " in text and " takes trick 1 under " in text
    assert "(team) passes a card" in text  # the cards others pass stay hidden


def run(capsys, monkeypatch, argv, stdin=""):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_play_eof(capsys, monkeypatch) -> None:
    code, out, err = run(capsys, monkeypatch, ["play", "--game", "himilo", "--rounds", "1"],
                         "bid high\n")
    assert code == 0 and err == "" and "Bye." in out and "team bots" in out


def test_a_value_network_with_weights_that_are_not_finite_is_refused(tmp_path) -> None:
    from hilo_env.agents import himilo_value

    rules = RuleSet(num_players=4)
    shipped = himilo_value.load(MODELS / "himilo_value_4p.npz", 4)
    broken = [(np.full_like(w, np.nan), b) for w, b in shipped]
    path = himilo_value.save(broken, tmp_path / "nan.npz", rules)
    with pytest.raises(ValueError, match=r"layer value\.0 holds weights that are not finite"):
        make(f"value:{path}", rules, game="himilo")


def test_the_value_agent_multiplies_on_one_blas_thread(monkeypatch) -> None:
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from hilo_env.agents import himilo_value

    seen = []

    def counting(layers, x, xp=np):
        seen.extend(lib["num_threads"] for lib in threadpoolctl.threadpool_info()
                    if lib["user_api"] == "blas")
        return himilo_value.mlp.__wrapped__(layers, x, xp)

    counting.__wrapped__ = himilo_value.mlp
    monkeypatch.setattr(himilo_value, "mlp", counting)
    rules = RuleSet(num_players=4)
    bot = make("value", rules, game="himilo")
    env_round = Round(rules, np.random.default_rng(0))
    encoder = Encoder(rules)
    seat = env_round.current_player
    with threadpoolctl.threadpool_limits(2, user_api="blas"):  # more than one outside it
        bot.act(encoder.encode(env_round, seat), action_mask(env_round))
    assert seen and set(seen) == {1}
