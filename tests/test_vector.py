"""The batched simulator's bad input, copies and seeds, and the single-agent vector env with its
Stable-Baselines3 adapter (the simulator against the engine: ``tests/conformance/``)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from hilo_env.agents import RandomAgent, sample_legal
from hilo_env.envs.vector_env import HiLoVectorEnv
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.engine import Phase
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.equation_hilo.vector import VectorGame
from tests.conformance.harness import Dealer, engine_for, engine_mask

# ---- bad input ------------------------------------------------------------------------------


def test_bad_input_names_the_game_and_changes_nothing() -> None:
    sim = VectorGame("standard", 6, seed=3, num_players=3, starting_stack=10)
    for _ in range(5):
        sim.step(sample_legal(sim.action_masks(), np.random.default_rng(0)))
    before = sim.clone()
    masks = sim.action_masks()
    good = sample_legal(masks, np.random.default_rng(1))
    bad = good.copy()
    bad[4] = int(np.flatnonzero(masks[4] == 0)[0])
    with pytest.raises(ValueError, match=r"illegal action .* in game 4 for player_\d"):
        sim.step(bad)
    bad[4] = sim.num_actions
    with pytest.raises(ValueError, match="in game 4"):
        sim.step(bad)
    with pytest.raises(ValueError, match="shape"):
        sim.step(good[:5])
    with pytest.raises(ValueError, match="shape"):
        sim.step(good[None])
    with pytest.raises(ValueError, match="game 2"):
        sim.step(np.where(np.arange(6) == 2, 0.5, good))
    with pytest.raises(ValueError, match="appears twice"):
        sim.step(good[[1, 1]], games=[1, 1])
    with pytest.raises(ValueError, match="out of range"):
        sim.step(good[:1], games=[6])
    decks = np.tile(np.arange(52), (6, 1))
    decks[5, 0] = 1
    with pytest.raises(ValueError, match="deck of game 5"):
        sim.reset(decks=decks)
    assert sim == before
    sim.step(good[[0, 4]], games=[0, 4])  # a subset steps; the other games do not move
    assert sim != before
    for name in ("stacks", "wagers", "face_up", "phase"):
        assert np.array_equal(getattr(sim.state, name)[..., [1, 2, 3, 5]] if name != "face_up"
                              else sim.state.face_up[:, [1, 2, 3, 5]],
                              getattr(before.state, name)[..., [1, 2, 3, 5]]
                              if name != "face_up" else before.state.face_up[:, [1, 2, 3, 5]])


def test_clone_and_seed() -> None:
    def run(seed: int) -> VectorGame:
        sim = VectorGame("classic", 16, seed=seed, num_players=4, starting_stack=6,
                         hands_per_episode=3)
        rng = np.random.default_rng(seed)
        for _ in range(40):
            sim.step(sample_legal(sim.action_masks(), rng))
        return sim

    a, b = run(7), run(7)
    assert a == b and a != run(8)
    twin = a.clone()
    assert twin == a
    twin.step(sample_legal(twin.action_masks(), np.random.default_rng(0)))
    assert twin != a
    assert (np.sort(a.state.deck, axis=1) == np.arange(52)).all()
    assert a.nbytes_per_game() < 2048


# ---- the single-agent vector env ------------------------------------------------------------


def caller(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Checks or calls, discards +, declares High: never folds, never raises."""
    order = (A.CHECK, A.CALL, A.DECLARE_HIGH, A.DISCARD_PLUS, A.DISCARD_MINUS)
    out = np.full(len(masks), -1)
    for a in reversed(order):
        out = np.where(masks[:, a] == 1, a, out)
    return out


def folder(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.where(masks[:, A.FOLD] == 1, A.FOLD, caller(observations, masks))


class Scripted:
    """An opponent that plays a function of the observations and masks."""

    def __init__(self, act_batch) -> None:
        self.act_batch = act_batch


@pytest.mark.parametrize("players, hands_per_episode", [(2, 1), (3, 4)])
def test_env_against_engine_twins(players: int, hands_per_episode: int) -> None:
    """The learner's rewards (opponents' actions included), observations and masks match
    engine games played with the same decks and the same policies."""
    rules = RuleSet.preset("standard", num_players=players, starting_stack=8,
                           hands_per_episode=hands_per_episode)
    dealer = Dealer(11)
    env = HiLoVectorEnv(rules, num_envs=16, opponents=Scripted(caller), deal_source=dealer)
    obs, _ = env.reset()
    rng = np.random.default_rng(12)
    engines = [engine_for(rules, dealer.last[g]) for g in range(16)]
    episodes = [0] * 16
    seen: Counter = Counter()

    def play_opponents(i: int) -> float:
        game, _ = engines[i]
        chips = 0.0
        while True:
            seat = (i + episodes[i]) % players
            if game.phase == Phase.HAND_OVER:
                chips += game.result.net[seat]
                if game.eliminated[seat]:
                    return chips  # the learner's episode ends; the match goes on without it
                deck, hand_seed = dealer.last[i]
                game.rng.seed = hand_seed
                game.start_next_hand(deck)
            if game.phase == Phase.MATCH_OVER or game.current_player == seat:
                return chips
            mask = engine_mask(game, env.game.num_actions)[None]
            game.step(int(caller(None, mask)[0]))

    for i in range(16):
        assert play_opponents(i) == 0.0
    for _ in range(60):
        masks = env.action_masks()
        for i, (game, enc) in enumerate(engines):
            seat = (i + episodes[i]) % players
            assert env.learner[i] == seat == game.current_player
            np.testing.assert_array_equal(obs[i], enc.encode(game, seat))
            np.testing.assert_array_equal(masks[i], engine_mask(game, env.game.num_actions))
        actions = sample_legal(masks, rng)
        obs, rewards, term, trunc, _ = env.step(actions)
        assert not trunc.any()
        for i, (game, _) in enumerate(engines):
            game.step(int(actions[i]))
            chips = play_opponents(i)
            if game.phase == Phase.MATCH_OVER:
                chips += game.result.net[(i + episodes[i]) % players]
            assert rewards[i] == chips
            seat = (i + episodes[i]) % players
            out = game.phase == Phase.HAND_OVER and game.eliminated[seat]
            assert term[i] == (game.phase == Phase.MATCH_OVER or out)
            seen["eliminated" if out else "match over" if term[i] else "go on"] += 1
            if term[i]:
                episodes[i] += 1
                engines[i] = engine_for(rules, dealer.last[i])
                assert play_opponents(i) == 0.0
    assert env.episodes.sum() > 16
    assert seen["eliminated"] > 0 or players == 2


def test_env_reward_when_an_opponent_ends_the_hand() -> None:
    def numbers_first(games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.tile(np.arange(52), (games.size, 1)), np.zeros(games.size, np.uint64)

    env = HiLoVectorEnv("standard", num_envs=4, opponents=Scripted(folder),
                        deal_source=numbers_first)
    env.reset()
    # seat 1 learners were folded to at once: skipped episodes, and they sit in seat 0 now
    assert (env.learner == 0).all()
    assert env.skipped_chips.tolist() == [0, 1, 0, 1]
    _, rewards, term, _, infos = env.step(np.full(4, A.raise_to(5)))
    assert term.all() and rewards.tolist() == [1.0] * 4  # the opponent folded to the raise
    assert infos["episode"]["r"].tolist() == [1.0] * 4


def test_maskable_ppo_learns_on_it() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks

    from hilo_env.envs.sb3 import make_sb3_vec_env

    venv = make_sb3_vec_env(HiLoVectorEnv("standard", num_envs=4, seed=0,
                                          opponents=[RandomAgent(RuleSet(), 1), Scripted(caller)]))
    masks = get_action_masks(venv)
    assert masks.shape == (4, venv.action_space.n) and masks.dtype == bool
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1,
                                    seed=0, verbose=0)
    model.learn(256)
    assert model.num_timesteps >= 256


def test_games_in_any_order() -> None:
    sim = VectorGame("standard", 5, seed=1, starting_stack=6)
    rng = np.random.default_rng(2)
    for _ in range(30):
        order = rng.permutation(5)
        masks = sim.action_masks()
        np.testing.assert_array_equal(sim.action_masks(order), masks[order])
        np.testing.assert_array_equal(sim.observe(order), sim.observe()[order])
        actions = sample_legal(masks, rng)
        twin = sim.clone()
        res = sim.step(actions[order], games=order)
        ref = twin.step(actions)
        assert sim == twin
        np.testing.assert_array_equal(res.rewards, ref.rewards[order])


def test_sample_legal_is_uniform_over_the_legal_actions() -> None:
    masks = np.zeros((5, 30), np.int8)
    masks[0, 7] = 1
    masks[1] = 1
    masks[2, [0, 29]] = 1
    masks[3, [0, 2, 25, 26, 27, 28, 29]] = 1
    masks[4, 6:9] = 1
    rng = np.random.default_rng(0)
    counts = np.zeros(masks.shape)
    for _ in range(4000):
        counts[np.arange(5), sample_legal(masks, rng)] += 1
    assert (counts[masks == 0] == 0).all()
    freq = counts / 4000
    expected = masks / masks.sum(1, keepdims=True)
    assert np.abs(freq - expected).max() < 0.04
    with pytest.raises(ValueError, match="no legal action"):
        sample_legal(np.zeros((2, 30), np.int8), rng)


def test_env_groups_a_policy_listed_per_game() -> None:
    calls = Counter()

    class Counting:
        def __init__(self, name: str) -> None:
            self.name = name

        def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
            calls[self.name] += 1
            return caller(observations, masks)

    a, b = Counting("a"), Counting("b")
    env = HiLoVectorEnv("standard", num_envs=64, seed=0,
                        opponents=[a if i % 3 else b for i in range(64)])
    assert len(env.opponents) == 2  # one agent listed for many games is one opponent
    env.reset()
    calls.clear()
    env.step(sample_legal(env.action_masks(), np.random.default_rng(0)))
    assert 1 <= calls["a"] <= 4 and 1 <= calls["b"] <= 4  # rounds of calls, not games
