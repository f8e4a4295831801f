"""Agents: legal actions only, the observation reader, the equity model and the registry."""

from __future__ import annotations

import shutil
import sys

import numpy as np
import pytest

from hilo_env import agents
from hilo_env.agents.equity import (
    HIGH,
    LOW,
    NEITHER,
    ONLY_THEY,
    ONLY_WE,
    SHARE,
    SWING,
    THEY_BETTER,
    WE_BETTER,
    Estimator,
    compare,
)
from hilo_env.agents.ppo import PPOAgent, rules_path, save_model
from hilo_env.agents.table_view import read_observation
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards, showdown
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.observation import Encoder, action_mask
from hilo_env.equation_hilo.rules import RuleSet
from tests.helpers import record_aec

PRESETS = ("standard", "classic", "duel")
HANDS_PER_PAIRING = 700


def play_hands(rules: RuleSet, players: list[agents.Agent], hands: int, seed: int = 0):
    """Play single hands, asserting every action is legal; yields each finished game."""
    encoder = Encoder(rules)
    n = rules.num_players
    for h in range(hands):
        game = Game(rules, np.random.default_rng([seed, h]))
        while game.phase < Phase.HAND_OVER:
            seat = game.current_player
            agent = players[(seat + h) % n]
            mask = action_mask(game)
            action = agent.act(encoder.encode(game, seat), mask)
            assert isinstance(action, int)
            assert action in game.legal_actions(), (agent.name, A.action_to_string(action))
            game.step(action)
        yield game


@pytest.mark.parametrize("preset", PRESETS)
def test_baselines_only_take_legal_actions(preset):
    rules = RuleSet.preset(preset)
    pairings = [("heuristic", "random"), ("heuristic", "caller"), ("random", "caller")]
    declared = set()
    for i, (a, b) in enumerate(pairings):
        players = [agents.make(a, rules, seed=i), agents.make(b, rules, seed=i + 10)]
        for game in play_hands(rules, players, HANDS_PER_PAIRING, seed=i):
            assert sum(game.stacks) + game.house == 2 * rules.starting_stack
            declared.update(d for d in game.result.declarations if d is not None)
    assert {A.DECLARE_LOW, A.DECLARE_HIGH} <= declared
    assert (A.DECLARE_SWING in declared) == rules.swing


@pytest.mark.parametrize("players", [3, 5])
def test_baselines_legal_at_bigger_tables(players):
    rules = RuleSet.preset("standard", num_players=players, starting_stack=30, ante=2)
    names = ["heuristic", "random", "caller", "heuristic", "random"][:players]
    seated = [agents.make(nm, rules, seed=i) for i, nm in enumerate(names)]
    for game in play_hands(rules, seated, 150):
        assert game.phase >= Phase.HAND_OVER


def test_act_batch_is_legal():
    rules = RuleSet.preset("standard")
    encoder = Encoder(rules)
    obs, masks = [], []
    for h in range(60):
        game = Game(rules, np.random.default_rng(h))
        while game.phase < Phase.HAND_OVER:
            obs.append(encoder.encode(game, game.current_player))
            masks.append(action_mask(game))
            legal = game.legal_actions()
            game.step(A.CHECK if A.CHECK in legal else A.CALL if A.CALL in legal else legal[0])
    obs, masks = np.array(obs), np.array(masks)
    for name in ("random", "caller", "heuristic"):
        actions = agents.make(name, rules, seed=3).act_batch(obs, masks)
        assert actions.shape == (len(obs),)
        assert masks[np.arange(len(obs)), actions].all(), name


def test_random_is_seeded():
    rules = RuleSet.preset("standard")
    mask = np.zeros(A.num_actions(rules.max_cap), dtype=np.int8)
    mask[[A.FOLD, A.CALL, *range(A.raise_to(5), A.raise_to(100) + 1)]] = 1
    obs = np.zeros(Encoder(rules).size, dtype=np.float32)
    runs = [[agents.make("random", rules, seed=s).act(obs, mask) for _ in range(20)]
            for s in (1, 1, 2)]
    assert runs[0] == runs[1] != runs[2]


def test_caller_never_raises_or_folds():
    rules = RuleSet.preset("standard")
    caller = agents.make("caller", rules)
    seen = []

    class Spy(agents.Agent):
        def act(self, observation, action_mask):
            action = caller.act(observation, action_mask)
            seen.append(action)
            return action

    for _ in play_hands(rules, [Spy(rules), agents.make("random", rules)], 200):
        pass
    assert seen and not any(a == A.FOLD or a >= A.FIRST_RAISE for a in seen)


def test_the_generic_agent_carries_no_game_layout():
    """The observation layout belongs to Equation Hi-Lo's table readers, not to every agent;
    the reader's public names stay importable from ``hilo_env.agents``."""
    from hilo_env.agents import TableView as Exported
    from hilo_env.agents import read_observation as exported
    from hilo_env.agents.table_view import TableReader, TableView
    from hilo_env.equation_hilo.observation import layout

    lohi_bot = agents.make("heuristic", game="lohi")
    assert not hasattr(agents.Agent, "layout") and not hasattr(lohi_bot, "layout")
    bot = agents.make("heuristic", "classic")
    assert isinstance(bot, TableReader) and bot.layout == layout(bot.rules)
    assert Exported is TableView and exported is read_observation


def test_read_observation_matches_the_game():
    rules = RuleSet.preset("standard", num_players=3)
    encoder = Encoder(rules)
    for h in range(30):
        game = Game(rules, np.random.default_rng(h))
        while game.phase < Phase.HAND_OVER:
            seat = game.current_player
            view = read_observation(encoder.encode(game, seat), rules)
            n = rules.num_players
            slots = [(seat + k) % n for k in range(n)]
            assert view.hidden == game.hidden[seat]
            assert view.phase == int(game.phase)
            for k, s in enumerate(slots):
                assert view.face_up[k] == tuple(sorted(game.up[s]))
                assert sorted(view.operators[k]) == sorted(game.operators[s])
                assert view.roots[k] == game.roots[s]
                assert view.wagers[k] == game.wagers[s]
                assert view.stacks[k] == game.stacks[s]
                assert view.in_hand[k] == game.in_hand[s]
            assert view.pot == game.pot and view.cap == game.cap
            assert view.to_call == max(game.wagers) - game.wagers[seat]
            if game.phase == Phase.BET:
                assert view.round_wager == game.round_wagers[game.round][seat]
            legal = game.legal_actions()
            game.step(legal[h % len(legal)] if A.FOLD not in legal else legal[1])


def test_share_table_matches_the_engine_payout():
    """SHARE against the engine's own split of the pot, over random heads-up showdowns."""
    rules = RuleSet.preset("standard")
    rng = np.random.default_rng(0)
    checked = 0
    for h in range(400):
        game = Game(rules, np.random.default_rng(h))
        decl = [int(rng.integers(3)), int(rng.integers(3))]
        while game.phase < Phase.HAND_OVER:
            legal = game.legal_actions()
            if game.phase == Phase.DECLARE:
                game.step(A.DECLARE_LOW + decl[game.current_player])
            else:
                game.step(A.CHECK if A.CHECK in legal else legal[1] if A.FOLD in legal
                          else legal[0])
        sols = game.result.solutions
        hands = np.array([game.number_cards(0), game.number_cards(1)])
        ranks = showdown.tiebreak_rank(hands, rules.tiebreak)
        states = []
        for side, name in ((showdown.LOW, "low"), (showdown.HIGH, "high")):
            d = [getattr(sols[s], name) for s in (0, 1)]
            if d[0] is None or d[1] is None:
                states.append(NEITHER if d[0] is d[1] is None else
                              ONLY_WE if d[1] is None else ONLY_THEY)
            else:
                winner = showdown.side_winners(np.array([True, True]),
                                               np.array([d[0].distance, d[1].distance]),
                                               ranks[side])
                states.append(WE_BETTER if winner == 0 else THEY_BETTER)
        pot = sum(game.result.payouts) + game.result.house
        expected = SHARE[decl[0], decl[1], states[0], states[1]] * pot
        assert abs(game.result.payouts[0] - expected) <= 1, (decl, states)
        checked += 1
    assert checked == 400


def test_share_table_known_values():
    assert SHARE[LOW, HIGH, WE_BETTER, WE_BETTER] == 0.5
    assert SHARE[LOW, LOW, THEY_BETTER, WE_BETTER] == 0.0
    assert SHARE[SWING, LOW, WE_BETTER, ONLY_WE] == 1.0
    assert SHARE[SWING, HIGH, THEY_BETTER, WE_BETTER] == 1.0  # alone on Low, best on High
    assert SHARE[SWING, HIGH, WE_BETTER, THEY_BETTER] == 0.0  # failed: all to them
    assert SHARE[HIGH, SWING, THEY_BETTER, WE_BETTER] == 1.0  # their Swing fails: all to us
    assert SHARE[SWING, SWING, WE_BETTER, THEY_BETTER] == 0.5  # both fail: house-rule split


def test_compare_states():
    inf = np.inf
    got = compare(np.array([0.0, 1.0, inf]), np.array([0.5, 1.0, inf]))
    assert got.tolist() == [[0, 0, ONLY_WE], [1, 2, ONLY_WE], [ONLY_THEY, ONLY_THEY, NEITHER]]


def _key_card(number_cards: list[int], side: str) -> tuple[int, int]:
    """The rulebook's key card as (value, -suit): the bigger wins High, the smaller Low."""
    keys = [(c // cards.NUM_SUITS, -(c % cards.NUM_SUITS)) for c in number_cards]
    return max(keys) if side == "high" else min(keys)


def _suit_order(number_cards: list[int]) -> list[tuple[int, int]]:
    """Cards by suit (Gold first), then value (higher first): the smaller list wins a tie."""
    return sorted((c % cards.NUM_SUITS, -(c // cards.NUM_SUITS)) for c in number_cards)


def test_vectorised_tiebreaks_match_the_rulebook_orders():
    """The tie-break ranks the agent and the engine use, against the rulebook's orders."""
    rng = np.random.default_rng(1)
    for _ in range(300):
        hand = rng.choice(cards.NUM_NUMBER_CARDS, size=(2, 4), replace=False)
        a, b = hand[0].tolist(), hand[1].tolist()
        low = showdown.key_card_rank(hand, showdown.LOW)
        high = showdown.key_card_rank(hand, showdown.HIGH)
        assert (low[0] > low[1]) == (_key_card(a, "low") < _key_card(b, "low"))
        assert (high[0] > high[1]) == (_key_card(a, "high") > _key_card(b, "high"))
        suit = showdown.suit_rank(hand)
        assert (suit[0] > suit[1]) == (_suit_order(a) < _suit_order(b))


def test_estimator_samples_are_deterministic_and_cached():
    est = Estimator(RuleSet.preset("standard"))
    low, high = est.completions([3, 7], "+-/", 0, 0, up_left=2, hidden_unknown=False)
    again = Estimator(RuleSet.preset("standard")).completions([7, 3], "+-/", 0, 0, 2, False)
    assert low.shape == (64,) and np.array_equal(low, again[0]) and np.array_equal(high, again[1])
    assert np.all(low >= 0) and np.all(high >= 0)
    exact = est.completions([8, 3, 1, 4], "-*/", 0, 1, up_left=0, hidden_unknown=False)
    assert exact[0].tolist() == [0.0] and exact[1].tolist() == [0.0]


def test_the_heuristic_at_four_players_is_a_function_of_its_observation():
    """Its field of opponents is drawn from the cards on the table and its seed: the same
    observations in another order, to a fresh agent, get the same actions; another seed may
    differ. So LBR and the JAX trainer's host callback can ask it at any table size."""
    rules = RuleSet.preset("standard").replace(num_players=4)
    walkers = [agents.make("random", rules, seed=i) for i in range(4)]
    rows, masks, _ = record_aec(rules, walkers)
    heuristic = agents.make("heuristic", rules, seed=0)
    assert heuristic.deterministic and len(rows) > 8
    first = [heuristic.act(o, m) for o, m in zip(rows, masks, strict=True)]
    fresh = agents.make("heuristic", rules, seed=0)
    again = [fresh.act(o, m) for o, m in reversed(list(zip(rows, masks, strict=True)))]
    assert first == again[::-1]
    probabilities = heuristic.action_probabilities(rows[0], masks[0])
    assert probabilities[first[0]] == 1.0


def test_heuristic_declares_by_expected_value():
    """Both sides exact (8 3 1 4 with ×): Swing; and it never declares a side it cannot win."""
    rules = RuleSet.preset("standard")
    heuristic = agents.make("heuristic", rules)
    swings = 0
    for game in play_hands(rules, [heuristic, agents.make("caller", rules)], 300):
        res = game.result
        if res.fold_out:
            continue
        for seat in (0, 1):
            if res.declarations[seat] == A.DECLARE_SWING:
                swings += 1
                sol = res.solutions[seat]
                assert sol.low is not None and sol.high is not None
    assert swings > 0


def test_registry():
    assert agents.names()[:3] == ["random", "caller", "heuristic"]
    assert "ppo:PATH" in agents.names()
    assert agents.make("heuristic", "duel", seed=1).name == "heuristic"
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        agents.make("nope")
    with pytest.raises(ValueError, match="no model file"):
        agents.make("ppo:/no/such/model.zip")
    agents.register("always_fold", lambda rules, seed: _Folder(rules, seed))
    try:
        folder = agents.make("always_fold", "standard")
        assert folder.name == "always_fold"
    finally:
        agents.registry.unregister("always_fold")
    assert "always_fold" not in agents.names()


class _Folder(agents.Agent):
    def act(self, observation, action_mask):
        return A.FOLD if action_mask[A.FOLD] else int(np.flatnonzero(action_mask)[0])


def untrained_model(size: int, num_actions: int, seed: int = 0):
    """A MaskablePPO model with fresh weights for observations of ``size`` values."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    class Blank(gym.Env):
        observation_space = gym.spaces.Box(0.0, 3.0, (size,), np.float32)
        action_space = gym.spaces.Discrete(num_actions)

        def reset(self, seed=None, options=None):
            return np.zeros(size, np.float32), {}

        def step(self, action):
            return np.zeros(size, np.float32), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(num_actions, bool)

    return MaskablePPO("MlpPolicy", Blank(), n_steps=8, batch_size=8, seed=seed)


def test_ppo_agent_loads_when_made_and_plays_legally(tmp_path):
    pytest.importorskip("sb3_contrib")

    rules = RuleSet.preset("standard")
    size, num_actions = Encoder(rules).size, A.num_actions(rules.max_cap)
    path = tmp_path / "model.zip"
    model = untrained_model(size, num_actions)
    model.save(path)  # no rules beside it: checked by its spaces alone
    bot = agents.make(f"ppo:{path}", rules, seed=0)  # loaded and checked now
    for game in play_hands(rules, [bot, agents.make("caller", rules)], 20):
        assert game.phase >= Phase.HAND_OVER
    with pytest.raises(ValueError, match="shape"):
        agents.make(f"ppo:{path}", RuleSet.preset("standard", num_players=3))
    # the same observation, but raises only up to 50: 59 actions, not 109
    with pytest.raises(ValueError, match="109 actions, but these rules have 59"):
        agents.make(f"ppo:{path}", RuleSet.preset("standard", starting_stack=50))
    with pytest.raises(ValueError, match="allows no action"):
        bot.act(np.zeros(size, np.float32), np.zeros(num_actions, np.int8))
    # saved with its rules: other rules with the same spaces are refused, naming the fields
    save_model(model, path, rules)
    assert rules_path(path).is_file()
    with pytest.raises(ValueError, match=r"swing: trained True, asked False.*"
                                         r"--allow-other-rules.*allow_other_rules=True"):
        agents.make(f"ppo:{path}", RuleSet.preset("standard", swing=False))
    assert "swing: trained True, asked False" in PPOAgent(
        RuleSet.preset("standard", swing=False), path, allow_other_rules=True).rules_note
    assert "swing" in agents.make(f"ppo:{path}", RuleSet.preset("standard", swing=False),
                                  allow_other_rules=True).rules_note
    assert PPOAgent(rules, path).rules_note == ""
    with pytest.raises(ValueError, match="tiebreak: trained 'key_card', asked 'suit'"):
        agents.make("ppo", "duel")
    duel = agents.make("ppo", "duel", allow_other_rules=True)  # a shipped model, by name
    assert duel.name == "ppo" and duel.rules_note.startswith("ppo plays under other rules")


def test_a_trained_model_plays_a_longer_match_with_a_note():
    """A match field (Equation Hi-Lo's ``hands_per_episode``) sets only a match's length: a
    model trained on one-hand matches is made for three, and says so; any other field still
    needs allow_other_rules."""
    three = RuleSet.preset("standard", hands_per_episode=3)
    bot = agents.make("ppo", three)
    assert bot.rules_note == ("ppo plays under other rules than it was trained under "
                              "(hands_per_episode: trained 1, asked 3)")
    assert agents.make("ppo", "standard").rules_note == ""
    with pytest.raises(ValueError, match="swing: trained True, asked False"):
        agents.make("ppo", three.replace(swing=False))


def test_ppo_agent_picks_the_actions_sb3_predict_picks(tmp_path):
    """``act_batch`` skips sb3-contrib's ``predict`` for speed: the same argmax, and the same
    draws from torch's random state, on real observations of many decisions."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from hilo_env.agents.ppo import policy_actions

    rules = RuleSet.preset("standard")
    path = save_model(untrained_model(Encoder(rules).size, A.num_actions(rules.max_cap)),
                      tmp_path / "model.zip", rules)
    bot = agents.make(f"ppo:{path}", rules)
    observations, masks = [], []

    class Recorder(agents.Agent):
        def act(self, observation, action_mask):
            observations.append(observation)
            masks.append(action_mask)
            return bot.act(observation, action_mask)

    for game in play_hands(rules, [Recorder(rules), agents.make("heuristic", rules)], 40):
        assert game.phase >= Phase.HAND_OVER
    assert len(observations) > 100
    model = bot.load()
    obs = bot._model_input(np.stack(observations))
    for deterministic in (True, False):
        torch.manual_seed(3)
        expected, _ = model.predict(obs, action_masks=np.stack(masks),
                                    deterministic=deterministic)
        torch.manual_seed(3)
        np.testing.assert_array_equal(
            policy_actions(model.policy, obs, np.stack(masks), deterministic), expected)


def test_a_corrupt_model_is_refused_when_made(tmp_path):
    pytest.importorskip("sb3_contrib")
    path = tmp_path / "model.zip"
    path.write_bytes(b"not really a model")
    with pytest.raises(ValueError, match="cannot read the model file"):
        agents.make(f"ppo:{path}", "standard")


def test_ppo_agent_without_sb3_says_how_to_install(tmp_path, monkeypatch):
    path = tmp_path / "model.zip"
    path.write_bytes(b"not really a model")
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install -e '\.\[train\]'"):
        agents.make(f"ppo:{path}", "standard")


def test_a_model_reads_the_slices_it_was_trained_on(tmp_path):
    """A model trained before a slice was added reads its own slices out of today's vector,
    and a learner started from it gets the same policy over the whole vector."""
    pytest.importorskip("sb3_contrib")
    import yaml

    from hilo_env.agents.ppo import observation_path
    from hilo_env.equation_hilo.observation import layout, observation_size

    rules = RuleSet.preset("standard")
    old = [name for name in layout(rules) if name != "round_raises"]
    old_size = sum(layout(rules)[name].stop - layout(rules)[name].start for name in old)
    num_actions = A.num_actions(rules.max_cap)

    path = tmp_path / "old.zip"
    save_model(untrained_model(old_size, num_actions), path, rules)
    assert yaml.safe_load(observation_path(path).read_text()) == list(layout(rules))
    with pytest.raises(ValueError, match="shape"):  # it lists today's slices, reads fewer
        PPOAgent(rules, path)
    save_model(untrained_model(observation_size(rules), num_actions), tmp_path / "whole.zip",
               rules)
    assert PPOAgent(rules, tmp_path / "whole.zip").columns is None  # all of today's: as it is
    observation_path(path).write_text(yaml.safe_dump(old))
    sliced = PPOAgent(rules, path, deterministic=False)
    assert sliced.columns.size == old_size
    whole = untrained_model(observation_size(rules), num_actions, seed=1)
    whole.set_parameters(sliced.whole_observation_parameters(), exact_match=False)
    widened = PPOAgent.of_model(rules, whole)
    rng = np.random.default_rng(0)
    for _ in range(5):
        obs = rng.random(observation_size(rules)).astype(np.float32)
        mask = (rng.random(num_actions) < 0.5).astype(np.int8)
        mask[A.FOLD] = 1
        np.testing.assert_allclose(widened.action_probabilities(obs, mask),
                                   sliced.action_probabilities(obs, mask), rtol=1e-5)
    observation_path(path).write_text(yaml.safe_dump([*old, "no_such_slice"]))
    with pytest.raises(ValueError, match="no_such_slice"):
        PPOAgent(rules, path)


def test_the_shipped_ppo_standard_reads_the_observation_it_was_trained_on():
    from hilo_env.equation_hilo.observation import layout

    assert agents.make("ppo", "standard").columns is None  # ppo_population reads it all
    bot = agents.make("ppo_standard", "standard")
    where = layout(bot.rules)
    assert bot.columns is not None
    assert not set(range(where["round_raises"].start, where["round_raises"].stop)) & set(
        bot.columns.tolist())


def test_a_model_without_its_rules_file_says_what_rules_it_is_assumed_to_have(tmp_path):
    path = tmp_path / "model.npz"
    shutil.copyfile(agents.registry.SHIPPED_PPO, path)  # no rules file beside it
    bot = agents.make(f"ppo:{path}", "standard")
    assert bot.rules_note == (f"ppo:{path} keeps no rules file (model.npz.rules.yaml): it is "
                              "assumed to have been trained for Equation Hi-Lo under the rules "
                              "it plays (standard rules, 2 players)")
    assert "rules of no preset, 2 players" in agents.make(
        f"ppo:{path}", RuleSet.preset("standard", swing=False)).rules_note
    assert agents.make("ppo", "standard").rules_note == ""


@pytest.mark.parametrize("prefix", ["ppo", "jax"])
def test_a_network_with_weights_that_are_not_finite_is_refused(tmp_path, prefix):
    from hilo_env.agents.jax_policy import load_policy, save_policy

    params = load_policy(agents.registry.SHIPPED_PPO)
    w, b = params["policy"][1]
    params["policy"][1] = (w, np.full_like(b, np.inf))
    path = save_policy(params, tmp_path / "inf.npz", RuleSet.preset("standard"))
    with pytest.raises(ValueError, match=r"layer policy\.1 holds weights that are not finite"):
        agents.make(f"{prefix}:{path}", "standard")
