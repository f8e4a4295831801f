"""Hard to misuse: copies play on like their originals, bad input raises naming the problem and
changes nothing, stacked decks come in any sequence form."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from pettingzoo.test.render_test import render_test

import hilo_env
from hilo_env.agents import sample_legal
from hilo_env.envs.vector_env import HiLoVectorEnv
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.engine import Game, replay
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.equation_hilo.vector import VectorGame
from hilo_env.picture import CARD_BACK, COLOURS, height
from tests.test_engine import HIGH20, LOW1, deal


def pickled(env: object) -> object:
    return pickle.loads(pickle.dumps(env))


def play_along(envs: list, steps: int, seed: int) -> None:
    """The same random legal actions in every env, checking that they all show the same
    observations, rewards and ends at every step."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        first = envs[0]
        if not first.agents:
            for env in envs:
                assert not env.agents
            return
        for env in envs:
            assert env.agent_selection == first.agent_selection
            for agent in first.agents:
                mine, theirs = env.observe(agent), first.observe(agent)
                np.testing.assert_array_equal(mine["observation"], theirs["observation"])
                np.testing.assert_array_equal(mine["action_mask"], theirs["action_mask"])
            assert env.rewards == first.rewards and env.terminations == first.terminations
        obs, _, term, trunc, _ = first.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        for env in envs:
            env.step(action)


@pytest.mark.parametrize("copier", [copy.deepcopy, pickled], ids=["deepcopy", "pickle"])
def test_a_copied_env_plays_on_like_its_original(copier) -> None:
    for hands in (1, 3):
        before = hilo_env.raw_env(hands_per_episode=hands, num_players=3)
        twin = copier(before)
        before.reset(seed=5)
        twin.reset(seed=5)
        play_along([before, twin], 400, seed=1)
        mid = hilo_env.raw_env(hands_per_episode=hands, num_players=3)
        mid.reset(seed=6)
        play_along([mid], 7, seed=2)
        play_along([mid, copier(mid)], 400, seed=3)


def test_a_failed_reset_changes_nothing() -> None:
    env = hilo_env.raw_env()
    env.reset(seed=1)
    env.step(env.string_to_action("check"))
    twin = copy.deepcopy(env)
    for options in ({"deck": ["10G", "10G"]}, {"deck": ["zz"]}, {"deck": "10G"},
                    {"deck": 5}, ["deck"]):
        with pytest.raises((TypeError, ValueError)):
            env.reset(seed=99, options=options)
    with pytest.raises((TypeError, ValueError)):
        env.reset(seed=-1)
    assert env.game == twin.game
    play_along([env, twin], 50, seed=4)
    env.reset()
    twin.reset()
    assert env.game == twin.game  # the generator was not re-seeded by the failed resets


@pytest.mark.parametrize("bad", [1.7, "1", 6.9, math.nan, math.inf, None, True, [1],
                                 np.float32(1.0), np.array([1])])
def test_actions_are_integers(bad) -> None:
    env = hilo_env.raw_env()
    env.reset(seed=0)
    before = env.game.clone()
    with pytest.raises(TypeError, match="integer action id"):
        env.step(bad)
    assert env.game == before


def test_integer_kinds_are_accepted_and_the_space_is_checked() -> None:
    env = hilo_env.raw_env()
    env.reset(seed=0, options={"deck": deal(HIGH20, LOW1)})
    env.step(np.int64(1))  # check
    env.step(np.array(1))  # check, as a 0-d array
    before = env.game.clone()
    with pytest.raises(ValueError, match=r"outside the action space 0\.\.108"):
        env.step(500)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(-1)
    assert env.game == before


def test_stacked_decks_in_any_sequence_form() -> None:
    top = deal(HIGH20, LOW1)
    ids = cards.parse_deck(top)
    reference = hilo_env.raw_env()
    reference.reset(seed=3, options={"deck": top})
    for form in (ids, tuple(ids), np.array(ids), np.array(ids, dtype=np.int8), np.array(top),
                 (c for c in ids), iter(top)):
        env = hilo_env.raw_env()
        env.reset(seed=3, options={"deck": form})
        assert env.game == reference.game
        rebuilt = replay(env.game.log, env.rules, env.game.rng_start)
        assert rebuilt == env.game  # the log holds the deck, whatever form it came in


@pytest.mark.parametrize("unordered", [set(range(10)), frozenset(range(10)),
                                       dict.fromkeys(range(10))])
def test_an_unordered_deck_is_refused(unordered) -> None:
    env = hilo_env.raw_env()
    with pytest.raises(TypeError, match="an ordered sequence"):
        env.reset(seed=0, options={"deck": unordered})
    with pytest.raises(TypeError, match="an ordered sequence"):
        Game(RuleSet(), np.random.default_rng(0), unordered)


def test_reset_options_are_checked() -> None:
    env = hilo_env.raw_env()
    with pytest.raises(TypeError, match="must be a dict"):
        env.reset(options=["deck"])
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['dek'\]; known: \['deck'\]"):
        env.reset(seed=0, options={"dek": [1, 2]})


def test_human_render_shows_no_hidden_card_and_no_mode_warns(capsys) -> None:
    env = hilo_env.raw_env(render_mode="human")
    env.reset(seed=0, options={"deck": deal(HIGH20, LOW1)})
    env.render()
    text = capsys.readouterr().out
    assert "[??]" in text and "[10G]" not in text and "[1G]" not in text
    quiet = hilo_env.raw_env()
    quiet.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert quiet.render() is None


# ---- the batched simulator and its training view ---------------------------------------------


class FailingDealer:
    """A ``deal_source`` that deals well ``good`` times, then fails as ``how`` says."""

    def __init__(self, good: int, how: str) -> None:
        self.good, self.how, self.rng = good, how, np.random.default_rng(0)

    def __call__(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        decks = np.array([self.rng.permutation(cards.DECK_SIZE) for _ in games])
        seeds = np.arange(games.size, dtype=np.uint64)
        if self.good <= 0:
            if self.how == "raise":
                raise RuntimeError("the dealer fell over")
            decks[:, :2] = 0  # a card twice: not a deck
        self.good -= 1
        return decks, seeds


@pytest.mark.parametrize("how", ["raise", "bad deck"])
def test_a_batched_step_applies_to_every_game_or_to_none(how: str) -> None:
    dealer = FailingDealer(good=1, how=how)
    sim = VectorGame("standard", 8, deal_source=dealer, starting_stack=3)
    rng = np.random.default_rng(1)
    for _ in range(200):
        before = sim.clone()
        actions = sample_legal(sim.action_masks(), rng)
        try:
            result = sim.step(actions)
        except (RuntimeError, ValueError):
            assert sim == before  # no game moved, the generator did not either
            assert sim.action_masks().any(axis=1).all()
            break
        assert not result.hand_over.any()
    else:
        pytest.fail("the dealer never failed")


def test_a_failing_opponent_leaves_the_env_refusing_until_reset() -> None:
    class Fragile:
        calls = 0

        def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
            Fragile.calls += 1
            if Fragile.calls == 3:
                raise RuntimeError("the opponent crashed")
            return sample_legal(masks, np.random.default_rng(Fragile.calls))

    env = HiLoVectorEnv("standard", num_envs=4, opponents=Fragile(), seed=0)
    env.reset(seed=0)
    rng = np.random.default_rng(2)
    with pytest.raises(RuntimeError, match="opponent crashed"):
        for _ in range(10):
            env.step(sample_legal(env.action_masks(), rng))
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(np.zeros(4, np.int64))
    with pytest.raises(RuntimeError, match="call reset"):
        env.action_masks()
    env.reset(seed=1)
    env.step(sample_legal(env.action_masks(), rng))


@pytest.mark.parametrize("copier", [copy.deepcopy, pickled], ids=["deepcopy", "pickle"])
def test_a_copied_vector_env_plays_on_alone(copier) -> None:
    env = HiLoVectorEnv("standard", num_envs=8, seed=3)
    env.reset(seed=3)
    twin = copier(env)
    rng = np.random.default_rng(4)
    for _ in range(30):
        actions = sample_legal(env.action_masks(), rng)
        np.testing.assert_array_equal(twin.action_masks(), env.action_masks())
        a, b = env.step(actions), twin.step(actions)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    # the twin's random opponent has its own generator: moving one leaves the other alone
    env.opponents[0].rng.random(100)
    assert env.opponents[0].rng.random() != twin.opponents[0].rng.random()


def test_a_vector_game_too_big_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="GiB of state, over the bound"):
        VectorGame("standard", 10**9)
    with pytest.raises(ValueError, match="reset options"):
        HiLoVectorEnv("standard", num_envs=2).reset(options={"deck": [1]})


def test_rgb_array_render_is_a_spectators_picture() -> None:
    env = hilo_env.raw_env(render_mode="rgb_array", num_players=3)
    env.reset(seed=0, options={"deck": ["10S", "1S", "5S", "9G", "r", "2B", "x", "7K"]})
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] == height(3)
    assert (image == CARD_BACK).all(-1).any()  # hidden cards face down mid-hand
    assert (image == COLOURS["purple"]).all(-1).any()  # a √ face up
    assert (image == COLOURS["blue"]).all(-1).any()  # a ×
    assert (image == COLOURS["gold"]).all(-1).any()  # a Gold card face up
    render_test(lambda render_mode=None: hilo_env.env(render_mode=render_mode))


# ---- the engine ------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [1.7, "1", 6.9, math.nan, math.inf, None, True, np.float64(1)])
def test_the_engine_takes_integer_actions_only(bad) -> None:
    game = Game(RuleSet(), np.random.default_rng(0))
    before = game.clone()
    with pytest.raises(TypeError, match="integer action id"):
        game.step(bad)
    with pytest.raises(ValueError, match=r"outside the action space 0\.\.108"):
        game.step(500)
    assert game == before


def test_the_engine_takes_decks_in_any_sequence_form() -> None:
    top = deal(HIGH20, LOW1)
    ids = cards.parse_deck(top)
    reference = Game(RuleSet(), np.random.default_rng(2), top)
    for form in (np.array(ids), np.array(top), (c for c in ids), tuple(ids), np.array([0])[:0]):
        game = Game(RuleSet(), np.random.default_rng(2), form)
        if len(game.log[0].data["deck"]):
            assert game == reference
        assert replay(game.log, game.rules, game.rng_start) == game
    with pytest.raises(TypeError, match="not the string"):
        Game(RuleSet(), np.random.default_rng(2), "10G")


def test_a_bad_next_deck_changes_nothing() -> None:
    game = Game(RuleSet(hands_per_episode=2), np.random.default_rng(3), deal(HIGH20, LOW1))
    game.step(A.FOLD)
    before = game.clone()
    with pytest.raises(ValueError, match="appears twice"):
        game.start_next_hand(["10G", "10G"])
    assert game == before
    game.start_next_hand(np.array(cards.parse_deck(deal(LOW1, HIGH20))))
    hands = [event for event in game.log if event.kind == "hand"]
    assert hands[-1].data["deck"] == cards.parse_deck(deal(LOW1, HIGH20))
