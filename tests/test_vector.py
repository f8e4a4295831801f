"""The batched simulator against the single-game engine (twin test), bad input, and the
single-agent vector env with its Stable-Baselines3 adapter."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest

from hilo_env.agents import RandomAgent, sample_legal
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.observation import Encoder
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.vector import HiLoVectorEnv, VectorGame, make_sb3_vec_env
from tests.test_engine import SCENARIOS, deal


class ScriptedRng:
    """Stands in for the engine's Generator: the deck is stacked whole, so the engine only
    asks for the hand seed, which this hands out."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.bit_generator = SimpleNamespace(state={})

    def permutation(self, rest: np.ndarray) -> np.ndarray:
        assert len(rest) == 0, "the whole deck is stacked"
        return np.asarray(rest)

    def integers(self, low: int, high: int) -> int:
        assert (low, high) == (0, 2**63)
        seed, self.seed = self.seed, None
        assert seed is not None, "one hand seed per hand"
        return seed


class Dealer:
    """A ``deal_source`` that remembers the last deck and seed it gave each game. A third of
    the decks have their specials pulled towards the top, so specials come often: hidden
    specials, chains, a second ×."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.last: dict[int, tuple[list[int], int]] = {}

    def __call__(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = games.size
        keys = self.rng.random((k, cards.DECK_SIZE))
        pull = self.rng.choice([1.0, 1.0, 0.3, 0.08], size=k)
        keys[:, cards.FIRST_MULTIPLY:] *= pull[:, None]
        decks = np.argsort(keys, axis=1)
        seeds = self.rng.integers(0, 2**63, size=k, dtype=np.uint64)
        for i, g in enumerate(games.tolist()):
            self.last[g] = (decks[i].tolist(), int(seeds[i]))
        return decks, seeds


def engine_for(rules: RuleSet, dealt: tuple[list[int], int]) -> tuple[Game, Encoder]:
    deck, seed = dealt
    # One Encoder per Game: Encoder caches solver features by id(game), which a new Game can
    # reuse (see the report for issue #6).
    return Game(rules, ScriptedRng(seed), deck), Encoder(rules)


def engine_mask(game: Game, num_actions: int) -> np.ndarray:
    legal = game.legal_actions()
    assert max(legal) < num_actions, (legal, num_actions)  # every legal action has an id
    mask = np.zeros(num_actions, np.int8)
    mask[legal] = 1
    return mask


def run_twin(rules: RuleSet, num_games: int, min_hands: int, seed: int,
             seen: Counter) -> int:
    """Play random legal actions in the simulator and in one engine per game, comparing
    observations, masks, rewards, stacks and the house at every step."""
    dealer = Dealer(seed)
    sim = VectorGame(rules, num_games, deal_source=dealer)
    engines = [engine_for(rules, dealer.last[g]) for g in range(num_games)]
    rng = np.random.default_rng(seed + 1)
    n, num_actions = rules.num_players, sim.num_actions
    hands = 0
    while hands < min_hands:
        obs, masks = sim.observe(), sim.action_masks()
        all_seats = sim.observe(np.repeat(np.arange(2), n), np.tile(np.arange(n), 2))
        for i, (game, enc) in enumerate(engines):
            seat = game.current_player
            assert sim.current_player[i] == seat and sim.state.phase[i] == game.phase
            np.testing.assert_array_equal(obs[i], enc.encode(game, seat), err_msg=f"game {i}")
            np.testing.assert_array_equal(masks[i], engine_mask(game, num_actions))
            if game.phase == Phase.BET and game.cap > rules.starting_stack:
                seen["cap above the starting stack"] += 1
            if game.phase == Phase.BET and max(game.wagers) == game.cap:
                seen["cap reached"] += 1
            if i < 2:
                for s in range(n):
                    np.testing.assert_array_equal(all_seats[i * n + s], enc.encode(game, s))
        actions = sample_legal(masks, rng)
        result = sim.step(actions)
        for i, (game, _) in enumerate(engines):
            game.step(int(actions[i]))
            over = game.phase >= Phase.HAND_OVER
            assert result.hand_over[i] == over
            assert result.match_over[i] == (game.phase == Phase.MATCH_OVER)
            if not over:
                assert not result.rewards[i].any()
                continue
            hands += 1
            assert result.rewards[i].tolist() == game.result.net
            _count(seen, game)
            if game.phase == Phase.MATCH_OVER:
                engines[i] = engine_for(rules, dealer.last[i])
            else:
                deck, hand_seed = dealer.last[i]
                game.rng.seed = hand_seed
                game.start_next_hand(deck)
            assert sim.state.stacks[:, i].tolist() == engines[i][0].stacks
            assert sim.state.house[i] == engines[i][0].house
    return hands


def _count(seen: Counter, game: Game) -> None:
    """What the finished hand exercised (for the coverage assertions)."""
    res = game.result
    seen.update(e.kind for e in game.log[-60:]
                if e.kind in ("return", "set_aside", "eliminated"))
    seen["fold-out" if res.fold_out else "showdown"] += 1
    if game.cap <= game.rules.ante:
        seen["all-in on the ante"] += 1
    if res.house:
        seen["odd chip"] += 1
    if res.failed_swing:
        seen["failed swing"] += 1
    if A.DECLARE_SWING in res.declarations and not res.failed_swing:
        seen["swing won"] += 1
    if max(game.multiplies) > 1:
        seen["second ×"] += 1


TWIN_CONFIGS = {
    # preset: [(num_players, starting_stack, hands_per_episode, num_games, hands)]
    "standard": [(2, 3, 1, 96, 2000), (3, 5, 6, 64, 1600), (4, 2, 8, 48, 1400),
                 (5, 12, 3, 48, 1000), (6, 1, 1, 32, 600), (8, 4, 10, 32, 1000),
                 (2, 40, 1, 96, 1600), (7, 6, 20, 32, 800)],
    "classic": [(2, 3, 1, 96, 2000), (3, 5, 6, 64, 1600), (4, 2, 8, 48, 1400),
                (5, 12, 3, 48, 1000), (6, 1, 1, 32, 600), (8, 4, 10, 32, 1000),
                (2, 40, 1, 96, 1600), (7, 6, 20, 32, 800)],
    "duel": [(2, 3, 1, 128, 3000), (2, 6, 10, 128, 3000), (2, 1, 1, 64, 1000),
             (2, 30, 4, 128, 3000)],
}


@pytest.mark.parametrize("preset", list(TWIN_CONFIGS))
def test_twin_of_the_engine(preset: str) -> None:
    seen: Counter = Counter()
    total = 0
    for j, (players, stack, hands_per_episode, games, hands) in enumerate(TWIN_CONFIGS[preset]):
        rules = RuleSet.preset(preset, num_players=players, starting_stack=stack,
                               hands_per_episode=hands_per_episode)
        total += run_twin(rules, games, hands, seed=1000 * j + len(preset), seen=seen)
    assert total >= 10_000
    for what in ("return", "set_aside", "eliminated", "fold-out", "showdown", "cap reached",
                 "all-in on the ante"):
        assert seen[what] > 0, (what, seen)
    assert seen["odd chip"] > 0 or preset == "duel", seen  # 2 players: the pot is even
    # after an elimination (3+ players) a cap can exceed the starting stack: raises up to it
    assert seen["cap above the starting stack"] > 0 or preset == "duel", seen
    if preset != "classic":
        assert seen["failed swing"] > 0 and seen["swing won"] > 0, seen
    else:
        assert seen["second ×"] > 0, seen


# ---- stacked decks: the engine's scenarios, replayed in one batch -------------------------


def full_deck(top: list[str], seed: int) -> list[int]:
    return cards.shuffled_deck(np.random.default_rng(seed), top)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_engine_scenarios_in_a_batch(name: str) -> None:
    hands, moves, overrides, stacks, house = SCENARIOS[name]
    rules = RuleSet.preset("standard", **overrides)
    games = 3  # the same hand three times, the rest of each deck shuffled differently
    sim = VectorGame(rules, games)
    sim.reset(decks=np.array([full_deck(deal(*hands), i) for i in range(games)]),
              hand_seeds=np.arange(games))
    for move in moves:
        result = sim.step(np.full(games, A.string_to_action(move)))
    assert result.hand_over.all() and result.match_over.all()
    assert (result.rewards == np.array(stacks) - rules.starting_stack).all()
    assert (-result.rewards.sum(1) == house).all()  # chips the house took


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
