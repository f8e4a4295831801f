"""Hi MiLo!'s PettingZoo AEC env: PettingZoo's own tests for 3-5 players, the team reward and
shaping, infos, reset options, the observation (layout, what it hides) and action texts."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.render_test import render_test

from hilo_env import himilo_v0
from hilo_env.himilo import actions as A
from hilo_env.himilo import cards, observation, tricks
from hilo_env.himilo.engine import LOSS, WIN, Round
from hilo_env.himilo.rules import RuleSet
from tests.test_himilo_engine import WIN_BIDS

PLAYERS = [3, 4, 5]


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_api(n: int) -> None:
    api_test(himilo_v0.env(num_players=n), num_cycles=300)
    api_test(himilo_v0.env("hardcore", num_players=n, shaping="constraints"), num_cycles=300)


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_seed(n: int) -> None:
    seed_test(lambda **kw: himilo_v0.env(num_players=n, **kw), num_cycles=100)


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_render(n: int, capsys: pytest.CaptureFixture) -> None:
    render_test(lambda render_mode=None: himilo_v0.env(num_players=n, render_mode=render_mode))


def seed0_round(**fields) -> himilo_v0.raw_env:
    """The engine test's seed-0 deal, 4 players, no passing, reset on a raw env."""
    rng = np.random.default_rng(0)
    deck, line = cards.deck_order(4, None, rng), cards.line_order(None, rng)
    env = himilo_v0.raw_env(num_players=4, pass_cards=0, **fields)
    env.reset(seed=0, options={"deck": deck, "line": line})
    return env


def play_first_legal(env: himilo_v0.raw_env, bids: list[str]) -> list[dict[str, float]]:
    """Bid as told, then play each player's first legal card; the rewards of every step."""
    rewards = []
    for bid in bids:
        env.step(env.string_to_action(bid))
        rewards.append(dict(env.rewards))
    while not all(env.terminations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
        rewards.append(dict(env.rewards))
    return rewards


@pytest.mark.parametrize("bids, outcome", [
    (WIN_BIDS, WIN), (["bid middle", "bid middle", "bid high", "bid low"], LOSS)])
def test_team_reward(bids: list[str], outcome: int) -> None:
    env = seed0_round()
    rewards = play_first_legal(env, bids)
    assert all(set(r.values()) == {0.0} for r in rewards[:-1])
    assert rewards[-1] == dict.fromkeys(env.possible_agents, float(outcome))
    assert env._cumulative_rewards == dict.fromkeys(env.possible_agents, float(outcome))
    for agent, info in env.infos.items():
        assert info["team_outcome"] == outcome and info["shaping"] == 0.0
        assert all(isinstance(v, (int, float)) for v in info.values())
        assert info["tricks_won"] == env.game.tricks_won()[int(agent[-1])]


@pytest.mark.parametrize("bids", [WIN_BIDS, ["bid middle", "bid middle", "bid high",
                                             "bid low"]])
@pytest.mark.parametrize("weight", [1.0, 0.5])
def test_shaping(bids: list[str], weight: float) -> None:
    env = seed0_round(shaping="constraints", shaping_weight=weight)
    rewards = play_first_legal(env, bids)
    game = env.game
    high, low = game.bids.index(2), game.bids.index(0)
    f_end = tricks.failed_constraints(game.tricks_won(), high, low)
    shaped = sum(r["player_0"] for r in rewards) - game.outcome
    assert shaped == pytest.approx(weight * (1 - f_end / tricks.num_constraints(4)))
    assert all(r["player_0"] == r["player_3"] for r in rewards)  # the same for everyone
    assert env.infos["player_0"]["team_outcome"] == game.outcome  # never shaped
    if game.outcome == WIN:
        assert shaped == pytest.approx(weight)


def test_random_rounds_rewards_and_masks() -> None:
    """The mask is the engine's legal actions at every step; rewards sum to the outcome
    plus the shaping terms, which sum to 1 - F_end / (2n-3)."""
    rng = np.random.default_rng(5)
    for n in PLAYERS:
        env = himilo_v0.raw_env(num_players=n, shaping="constraints")
        for episode in range(30):
            env.reset(seed=episode)
            steps, total = 0, 0.0
            while not all(env.terminations.values()):
                mask = env.observe(env.agent_selection)["action_mask"]
                assert np.flatnonzero(mask).tolist() == env.game.legal_actions()
                env.step(int(rng.choice(np.flatnonzero(mask))))
                total += env.rewards["player_0"]
                steps += 1
            game = env.game
            f_end = tricks.failed_constraints(game.tricks_won(), game.bids.index(2),
                                              game.bids.index(0))
            assert steps == env.rules.decisions_per_round
            assert total == pytest.approx(game.outcome + 1 - f_end / (2 * n - 3))


def test_reset_options() -> None:
    env = himilo_v0.raw_env(num_players=3)
    line = ["K*", "J*", *[cards.win_card_str(w) for w in range(12)]]
    deck = [cards.card_str(c) for c in reversed(range(48))]
    env.reset(options={"deck": deck, "line": line, "dealer": 0})
    assert env.agent_selection == "player_1" and env.game.win_card == cards.NEUTRAL_HI
    assert env.game.hands[1][-1] == 47  # the top card goes to the dealer's left
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['wins'\]; known: "
                                         r"\['deck', 'line', 'dealer'\]"):
        env.reset(options={"wins": []})
    with pytest.raises(ValueError, match="dealer"):
        env.reset(options={"dealer": 3})


def test_raw_env_refuses_bad_actions_and_changes_nothing() -> None:
    env = himilo_v0.raw_env()
    env.reset(seed=3)
    before = env.game.clone()
    with pytest.raises(TypeError, match="'bid low'"):
        env.step("bid low")
    with pytest.raises(ValueError, match="illegal"):
        env.step(A.play(0))
    assert env.game == before and env.agent_selection == "player_0"


def test_wrapped_env_ends_on_an_illegal_action() -> None:
    env = himilo_v0.env()
    env.reset(seed=0)
    env.step(A.play(0))  # PettingZoo logs a warning and ends the episode
    assert all(env.unwrapped.terminations.values())
    assert env.unwrapped._cumulative_rewards["player_0"] == -1


def test_action_strings() -> None:
    env = himilo_v0.raw_env()
    env.reset(seed=1)
    assert env.action_to_string(146) == "bid high" and env.action_to_string(76) == "pass 2S"
    assert env.string_to_action("Bid  High") == 146
    with pytest.raises(ValueError, match="not legal now"):
        env.string_to_action("play 1S")
    with pytest.raises(ValueError, match="unknown action"):
        env.string_to_action("double")


# ---- the observation -------------------------------------------------------------------------

def test_layout_matches_the_documented_table() -> None:
    doc = observation.__doc__
    rows = re.findall(r"^\| ``(\w+)``\s*\| ([^|]+?)\s*\|", doc, re.M)
    for n in PLAYERS:
        where = observation.layout(n)
        assert [name for name, _ in rows] == list(where)
        for name, size in rows:
            expr = size.replace("×", "*")
            assert eval(expr, {"n": n}) == where[name].stop - where[name].start, name
    env = himilo_v0.raw_env(num_players=5)
    env.reset(seed=0)
    obs = env.observe("player_0")["observation"]
    assert obs.shape == (observation.observation_size(5),) and obs.dtype == np.float32
    assert env.observation_space("player_0").contains(env.observe("player_0"))


def encode_start(deck: list[int], line: list[int], rules: RuleSet, seat: int) -> np.ndarray:
    game = Round(rules, np.random.default_rng(), deck, line)
    return observation.Encoder(rules).encode(game, seat)


def test_observation_hides_other_hands_undealt_cards_and_the_face_down_line() -> None:
    rules = RuleSet(num_players=4, visible_win_cards=3)
    deck, line = list(range(60)), list(range(14))
    other = deck[:]
    other[1], other[2] = other[2], other[1]          # two other players swap a card
    other[57], other[58] = other[58], other[57]      # the undealt cards' order
    hidden_line = line[:3] + line[3:][::-1]          # the face-down part of the line
    base = encode_start(deck, line, rules, 0)
    assert np.array_equal(base, encode_start(other, hidden_line, rules, 0))
    assert not np.array_equal(base, encode_start(other, line, rules, 1))  # seat 1's own hand


@pytest.mark.parametrize("preset, visible", [("standard", 14), ("hardcore", 3)])
def test_observation_shows_the_visible_line(preset: str, visible: int) -> None:
    env = himilo_v0.raw_env(preset)
    env.reset(seed=0)
    where = observation.layout(4)
    rows = env.observe("player_0")["observation"][where["line"]].reshape(14, 14)
    assert rows.sum(axis=1).tolist() == [1.0] * visible + [0.0] * (14 - visible)
    assert rows.argmax(axis=1)[:visible].tolist() == env.game.visible_line()
    assert env.observe("player_0")["observation"][where["win_left"]].sum() == 14


def test_observation_of_passing_and_tricks() -> None:
    env = himilo_v0.raw_env(num_players=3)
    env.reset(seed=2)
    for bid in ("bid high", "bid low", "bid middle"):
        env.step(env.string_to_action(bid))
    passed = env.game.hands[0][:3]
    for card in passed:
        env.step(A.pass_card(card))
    where = observation.layout(3)
    mine, left = env.observe("player_0")["observation"], env.observe("player_1")["observation"]
    assert np.flatnonzero(mine[where["passed"]]).tolist() == sorted(passed)
    assert np.flatnonzero(left[where["received"]]).tolist() == sorted(passed)
    assert mine[where["received"]].sum() == 0 and left[where["passed"]].sum() == 0
    bids = mine[where["bids"]].reshape(3, 3)
    assert bids.argmax(axis=1).tolist() == [2, 0, 1]  # slot 0 High, 1 Low, 2 Middle
    assert left[where["bids"]].reshape(3, 3).argmax(axis=1).tolist() == [0, 1, 2]


def test_render_modes(capsys: pytest.CaptureFixture) -> None:
    env = himilo_v0.raw_env(render_mode="ansi", num_players=3)
    env.reset(seed=0)
    text = env.render()
    assert "Win Cards" in text and "player_0's hand" in text and "player_1's hand" not in text
    human = himilo_v0.raw_env(render_mode="human", num_players=3)
    human.reset(seed=0)
    human.step(A.BID_LOW)
    assert "bid Low" in capsys.readouterr().out
    with pytest.raises(ValueError, match="render_mode"):
        himilo_v0.raw_env(render_mode="video")


def test_no_shared_folder_is_read() -> None:
    root = Path(__file__).resolve().parent.parent
    for path in [*root.joinpath("hilo_env", "himilo").glob("*.py"),
                 root / "hilo_env" / "envs" / "himilo_aec.py"]:
        assert "shared" not in path.read_text(), path
