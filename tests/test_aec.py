"""The PettingZoo AEC env: PettingZoo's own tests, scripted hands, observations and masks."""

from __future__ import annotations

import re

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.render_test import render_test

import hilo_env
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.observation import layout
from hilo_env.equation_hilo.rules import RuleSet
from tests.test_engine import HIGH20, LOW1, VALID, ZEROS, deal


def scripted(deck: list[str], moves: list[str], **kwargs) -> hilo_env.raw_env:
    """Play ``moves`` (action strings) on a raw env with a stacked deck; return the env."""
    env = hilo_env.raw_env(**kwargs)
    env.reset(seed=0, options={"deck": deck})
    for move in moves:
        env.step(env.string_to_action(move))
    return env


@pytest.mark.parametrize("kwargs", [{}, {"rules": "classic"}, {"rules": "duel"},
                                    {"num_players": 5, "hands_per_episode": 4,
                                     "starting_stack": 6}])
def test_pettingzoo_api(kwargs: dict) -> None:
    api_test(hilo_env.env(**kwargs), num_cycles=500)


def test_pettingzoo_seed() -> None:
    seed_test(hilo_env.env, num_cycles=200)


def test_pettingzoo_render(capsys: pytest.CaptureFixture) -> None:
    render_test(lambda render_mode=None: hilo_env.env(render_mode=render_mode))


@pytest.mark.parametrize("name, deck, moves, rewards", [
    ("split pot", deal(HIGH20, LOW1), ["raise 4", "call", "check", "check", "high", "low"],
     [0.0, 0.0]),
    ("swing", deal(VALID, ZEROS), ["check", "raise 10", "call", "check", "check", "swing",
                                   "high"], [10.0, -10.0]),
    ("fold-out", deal(HIGH20, LOW1), ["raise 3", "bet 7", "fold"], [-3.0, 3.0]),
    ("× discard", ["8G", "0G", "x", "3G", "0S", "1G", "0B", "4G", "0K"],
     ["discard +", "check", "check", "check", "check", "high", "high"], [1.0, -1.0]),
])
def test_scripted_hands(name: str, deck: list[str], moves: list[str],
                        rewards: list[float]) -> None:
    env = scripted(deck, moves)
    assert all(env.terminations.values())
    assert [env._cumulative_rewards[a] for a in env.possible_agents] == rewards
    assert env.game.stacks == [100 + int(r) for r in rewards]


def test_split_pot_odd_chip_rewards_sum_to_minus_house() -> None:
    env = scripted(deal(HIGH20, LOW1, ["2G", "3G", "4G", "6G"]),
                   ["check"] * 6 + ["high", "low", "high"], num_players=3)
    total = sum(env._cumulative_rewards.values())
    assert total == -1.0 == -env.game.house


def test_infos_at_the_end() -> None:
    """Numbers in infos (tests/test_infos.py), the texts from result_texts."""
    assert hilo_env.raw_env().result_texts("player_0")["declaration"] is None
    env = scripted(["8G", "0G", "x", "3G", "0S", "1G", "0B", "4G", "0K"],
                   ["discard +", "check", "check", "check", "check", "high", "low"])
    info = env.infos["player_0"]
    assert info["declaration"] == A.DECLARE_HIGH and info["high_distance"] == 0.0
    assert info["payout"] == 2 and info["net"] == 1 and info["hand"] == 1
    texts = env.result_texts("player_0")
    assert texts["declaration"] == "High" and "×" in texts["high_equation"]
    assert env.infos["player_1"]["declaration"] == A.DECLARE_LOW
    assert env.infos["player_1"]["low_distance"] == -1  # four zeros: no valid equation
    texts = env.result_texts("player_1")
    assert texts["declaration"] == "Low" and texts["low_equation"] is None


def test_action_strings() -> None:
    env = hilo_env.raw_env()
    env.reset(seed=1, options={"deck": deal(HIGH20, LOW1)})
    assert env.string_to_action("raise 5") == A.raise_to(5) == env.string_to_action("BET 5")
    assert env.action_to_string(A.raise_to(5)) == "raise 5"
    assert [env.action_to_string(a) for a in range(9)] == [
        "fold", "check", "call", "discard +", "discard -", "discard x", "low", "high", "swing"]
    with pytest.raises(ValueError, match=r"not legal now; legal now: \['fold', 'check'"):
        env.string_to_action("call")
    with pytest.raises(ValueError, match="unknown action 'jump'"):
        env.string_to_action("jump")
    with pytest.raises(ValueError, match="not legal now"):
        env.string_to_action("raise 101")


def test_raw_env_rejects_illegal_actions() -> None:
    env = hilo_env.raw_env()
    env.reset(seed=2)
    before = env.game.clone()
    with pytest.raises(ValueError, match="illegal action"):
        env.step(A.CALL)
    assert env.game == before


def test_wrapped_env_penalises_illegal_actions(caplog: pytest.LogCaptureFixture) -> None:
    env = hilo_env.env()
    env.reset(seed=2)
    env.step(A.CALL)
    assert "Illegal move" in caplog.text
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -1


def test_mask_is_exactly_the_legal_actions() -> None:
    rng = np.random.default_rng(3)
    for preset in ("standard", "classic", "duel"):
        env = hilo_env.raw_env(preset, num_players=2 if preset == "duel" else 3,
                               starting_stack=12)
        for seed in range(200):
            env.reset(seed=seed)
            while not all(env.terminations.values()):
                agent = env.agent_selection
                mask = env.observe(agent)["action_mask"]
                assert set(np.flatnonzero(mask)) == set(env.game.legal_actions())
                for other in env.agents:
                    if other != agent:
                        assert not env.observe(other)["action_mask"].any()
                legal = np.flatnonzero(mask)
                env.step(int(legal[rng.integers(len(legal))]))


def test_observation_layout_matches_the_documented_table() -> None:
    doc = hilo_env.equation_hilo.observation.__doc__
    rows = re.findall(r"^\| ``(\w+)``\s*\| ([^|]+)\|", doc, re.MULTILINE)
    for n in (2, 5, 8):
        rules = RuleSet.preset(num_players=n)
        where = layout(rules)
        assert [name for name, _ in rows] == list(where)
        for name, size in rows:
            expected = eval(size.replace("×", "*"), {"n": n, "R": rules.num_bet_rounds})
            assert where[name].stop - where[name].start == expected, name
        env = hilo_env.raw_env(num_players=n)
        env.reset(seed=0)
        assert env.observe(env.agent_selection)["observation"].shape == (where["hands_left"].stop,)


def test_observation_shows_only_what_the_player_may_know() -> None:
    env = hilo_env.raw_env()
    env.reset(seed=0, options={"deck": deal(HIGH20, LOW1)})
    where = layout(env.rules)
    obs0 = env.observe("player_0")["observation"]
    obs1 = env.observe("player_1")["observation"]
    hidden0, hidden1 = cards.parse_card("10G"), cards.parse_card("1G")
    assert obs0[where["hidden"]][hidden0] == 1 and obs0[where["hidden"]].sum() == 1
    assert obs1[where["hidden"]][hidden1] == 1 and obs1[where["hidden"]].sum() == 1
    # nobody's observation holds another player's hidden card anywhere among the cards
    face_up0 = obs0[where["face_up"]].reshape(2, 52)
    assert face_up0[1, hidden1] == 0 and face_up0[0, cards.parse_card("10S")] == 1
    assert face_up0[1, cards.parse_card("0S")] == 1  # the opponent's face-up card, slot 1
    assert obs0[where["phase"]].tolist() == [1, 0, 0]


def test_multi_hand_episode_moves_the_button() -> None:
    env = hilo_env.raw_env(hands_per_episode=3)
    env.reset(seed=4)
    first_players = []
    hands_seen = set()
    total_reward = 0.0
    while not all(env.terminations.values()):
        hand = env.game.hand_number
        if hand not in hands_seen:
            hands_seen.add(hand)
            first_players.append(env.game.order()[0])
        env.step(env.string_to_action("fold") if env.game.phase == 0 else
                 env.game.legal_actions()[0])
        total_reward += sum(env.rewards.values())
    assert hands_seen == {1, 2, 3}
    assert first_players == [0, 1, 0]
    assert total_reward == -env.game.house
    assert sum(env.game.stacks) + env.game.house == 200


def test_render_ansi_hides_the_other_hidden_card() -> None:
    env = hilo_env.raw_env(render_mode="ansi")
    env.reset(seed=0, options={"deck": deal(HIGH20, LOW1)})
    text = env.render()
    assert "[10G]" in text and "[??]" in text and "player_0 to act" in text
    for move in ["check", "check", "check", "check", "high", "low"]:
        env.step(env.string_to_action(move))
    text = env.render()
    assert "[10G]" in text and "[1G]" in text and "pot 2" in text
    assert "High: 10 − 0 ÷ 5 + 10 = 20" in text and "Low to player_1; High to player_0" in text


def test_rules_argument_forms(tmp_path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("preset: duel\nante: 2\n")
    assert hilo_env.raw_env(str(path)).rules == RuleSet.preset("duel", ante=2)
    assert hilo_env.raw_env(RuleSet.preset("classic")).rules.integer_results
    with pytest.raises(ValueError, match="unknown rules 'poker'"):
        hilo_env.raw_env("poker")
    with pytest.raises(ValueError, match="num_players"):
        hilo_env.env(num_players=9)


@pytest.mark.parametrize("preset,players", [("standard", 3), ("classic", 2), ("duel", 2),
                                             ("standard", 6)])
def test_one_encoder_over_many_games_matches_a_fresh_one(preset: str, players: int) -> None:
    """The encoder's incremental updates (a lone bet, new cards, a new hand, another game)
    give what a full rebuild gives, for every seat at every state, finished hands included."""
    from hilo_env.equation_hilo.engine import Game, Phase
    from hilo_env.equation_hilo.observation import Encoder

    rules = RuleSet.preset(preset, num_players=players, hands_per_episode=3, starting_stack=6)
    shared = Encoder(rules)
    rng = np.random.default_rng(8)
    for seed in range(40):
        game = Game(rules, np.random.default_rng(seed))
        while True:
            for seat in range(players):
                assert np.array_equal(shared.encode(game, seat),
                                      Encoder(rules).encode(game, seat))
            if game.phase == Phase.MATCH_OVER:
                break
            if game.phase == Phase.HAND_OVER:
                game.start_next_hand()
                continue
            legal = game.legal_actions()
            game.step(legal[rng.integers(len(legal))])


def test_mask_after_an_elimination_with_every_agent_observed() -> None:
    env = hilo_env.raw_env(num_players=5, hands_per_episode=4, starting_stack=3)
    rng = np.random.default_rng(9)
    for seed in range(40):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            for other in env.agents:
                env.observe(other)
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert legal.tolist() == sorted(env.game.legal_actions())
            env.step(int(rng.choice(legal)))
