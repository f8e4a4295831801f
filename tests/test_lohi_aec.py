"""The lo-hi PettingZoo AEC env: PettingZoo's own tests for 2, 3 and 5 players, scripted
games with exact rewards, the observation (what a player may know), options and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.render_test import render_test

from hilo_env import lohi_v0
from hilo_env.lohi import actions as A
from hilo_env.lohi.cards import card_text, parse_card
from hilo_env.lohi.engine import Need
from hilo_env.lohi.observation import layout
from tests.lohi_helpers import deck_for

P0 = ["3S", "7S", "9S", "9H", "KS"]
P1 = ["2H", "4H", "5S", "QH", "AD"]
WINNER = ["9S", "9H", "4C", "5C", "6C"]


def scripted(hands: list, face_up: str, moves: list[str], **kwargs: object) -> lohi_v0.raw_env:
    env = lohi_v0.raw_env(num_players=len(hands), **kwargs)
    env.reset(seed=0, options={"deck": deck_for(hands, face_up)})
    for move in moves:
        env.step(env.string_to_action(move))
    return env


@pytest.mark.parametrize("n", [2, 3, 5])
def test_pettingzoo_api(n: int) -> None:
    api_test(lohi_v0.env(num_players=n), num_cycles=1000)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_pettingzoo_seed(n: int) -> None:
    seed_test(lambda render_mode=None: lohi_v0.env(num_players=n, render_mode=render_mode),
              num_cycles=500)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_pettingzoo_render(n: int, capsys: pytest.CaptureFixture) -> None:
    render_test(lambda render_mode=None: lohi_v0.env(num_players=n, render_mode=render_mode))


@pytest.mark.parametrize("n, rewards", [(2, [1.0, -1.0]), (3, [1.0, -0.5, -0.5])])
def test_game_reward(n: int, rewards: list[float]) -> None:
    hands = [WINNER, P1, ["3D", "7H", "10C", "JC", "KC"]][:n]
    env = scripted(hands, "8D", ["play 6 5 4", *["pick up"] * (n - 1), "play 9 9"],
                   rules="single_round")
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert [env._cumulative_rewards[a] for a in env.possible_agents] == rewards
    assert env.infos["player_0"]["round_winner"] == 0 == env.game.round_winners[-1]
    assert env.infos["player_0"]["rounds_won"] == 1


def test_round_reward_is_paid_when_the_round_ends() -> None:
    env = scripted([WINNER, P1], "8D", ["play 6 5 4", "pick up", "play 9 9"],
                   round_reward=0.5)
    assert env.rewards == {"player_0": 0.5, "player_1": -0.5}
    assert not any(env.terminations.values())
    assert env.infos["player_1"] == {"round": 2, "round_winner": 0, "rounds_won": 0}
    assert all(type(v) is int for info in env.infos.values() for v in info.values())
    env.step(env.string_to_action("pick up"))
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_truncation_at_the_cut_off() -> None:
    env = scripted([P0, P1], "6D", ["pick up", "pick up"], max_turns=2)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert set(env._cumulative_rewards.values()) == {0.0}


def test_observation_holds_what_the_player_may_know() -> None:
    env = scripted([P0, P1], "6D", ["play 7"])
    where = layout(env.rules)
    obs = env.observe("player_1")
    o, mask = obs["observation"], obs["action_mask"]
    assert o.dtype == np.float32 and mask.dtype == np.int8
    assert [env.action_to_string(a) for a in np.flatnonzero(mask)] == [
        "pick up", "play 2", "play 4", "play 5"]
    hand = o[where["hand"]] * 4
    assert hand.tolist() == [1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1]  # 2 4 5 Q A
    assert (o[where["hand_sizes"]] * 52).round().tolist() == [5, 4]  # self first
    assert o[where["top"]].argmax() == 5 and o[where["top_count"]].tolist() == [1, 0, 0, 0]
    assert o[where["need"]].argmax() == Need.LOWER and not o[where["called"]].any()
    assert (o[where["pile"]] * 4).round().tolist()[4:6] == [1, 1]  # the 6 and the 7
    assert o[where["direction"]].tolist() == [1.0]
    other = env.observe("player_0")
    assert not other["action_mask"].any()
    assert (other["observation"][where["hand"]] * 4).round().tolist()[7] == 2  # two 9s


def test_the_observation_hides_suits_and_other_hands() -> None:
    """Two deals that differ only in the suits of the cards and in seat 1's cards give seat
    0 the same observation."""
    first = scripted([P0, P1], "6D", ["play 7"])
    second = scripted([["3D", "7H", "9C", "9D", "KH"], ["2S", "4S", "5D", "QS", "AH"]], "6C",
                      ["play 7"])
    assert np.array_equal(first.observe("player_0")["observation"],
                          second.observe("player_0")["observation"])


def test_action_strings() -> None:
    env = scripted([P0, P1], "6D", [])
    assert env.action_to_string(0) == "pick up"
    assert env.action_to_string(A.string_to_action("play 9 9")) == "play 9 9"
    assert env.string_to_action("play 9 9") == A.string_to_action("play 9 9")
    with pytest.raises(ValueError, match="not legal now"):
        env.string_to_action("play 2")
    with pytest.raises(ValueError, match="unknown action"):
        env.string_to_action("play 9 10")
    with pytest.raises(ValueError, match="outside"):
        env.action_to_string(200)


def test_reset_options() -> None:
    env = lohi_v0.raw_env(num_players=3)
    env.reset(seed=1, options={"wins": [2, 0, 1], "shuffle": lambda cards: cards})
    assert env.game.hand_sizes == [7, 5, 6] and env.agent_selection == "player_1"
    assert env.game.pile == [18]  # cards dealt in id order: the 19th card turns face up
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['dek'\]; known"):
        env.reset(options={"dek": list(range(52))})
    with pytest.raises(ValueError, match="52"):
        env.reset(options={"deck": ["AS"]})


def test_illegal_action_raw_raises_wrapped_penalises() -> None:
    raw = scripted([P0, P1], "6D", [])
    before = raw.game.clone()
    with pytest.raises(ValueError, match="illegal"):
        raw.step(A.string_to_action("play 2"))
    with pytest.raises(TypeError):
        raw.step("pick up")  # type: ignore[arg-type]
    assert raw.game == before
    env = lohi_v0.env()
    env.reset(seed=0, options={"deck": deck_for([P0, P1], "6D")})
    env.step(A.string_to_action("play 2"))
    assert env.rewards["player_0"] == -1 and all(env.terminations.values())


def test_renders() -> None:
    env = lohi_v0.raw_env(render_mode="ansi")
    env.reset(seed=0, options={"deck": deck_for([P0, P1], "6D")})
    text = env.render()
    assert "player_0's hand: 3S 7S 9S 9H KS" in text and "any rank" in text
    assert "2H" not in text  # the other hand stays hidden
    with pytest.raises(ValueError, match="render_mode"):
        lohi_v0.raw_env(render_mode="video")


def test_stacked_deck_texts_and_ids_agree() -> None:
    deck = deck_for([P0, P1], "6D")
    by_text = lohi_v0.raw_env()
    by_text.reset(options={"deck": [card_text(c) for c in deck]})
    assert by_text.game.pile == [parse_card("6D")]
