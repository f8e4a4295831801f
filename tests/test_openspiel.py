"""python_hilo, Equation Hi-Lo as an OpenSpiel game (the ``openspiel`` extra): pyspiel's random
simulation tests, exact chance, information states, and the same play as the AEC env."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from hilo_env.envs import openspiel_game as G  # noqa: E402
from hilo_env.envs.equation_hilo_aec import raw_env  # noqa: E402
from hilo_env.equation_hilo import actions as A  # noqa: E402
from hilo_env.equation_hilo import cards  # noqa: E402
from hilo_env.equation_hilo.observation import Encoder, action_mask  # noqa: E402
from hilo_env.equation_hilo.rules import PRESETS, RuleSet  # noqa: E402
from tests.helpers import random_history  # noqa: E402

SIMULATED = {  # rules -> simulations (a standard game with raises replays long histories)
    "standard": ({}, 4), "standard-3": ({"num_players": 3}, 3),
    "standard-6": ({"num_players": 6}, 2), "classic": ({"preset": "classic"}, 4),
    "duel": ({"preset": "duel"}, 4), "tiny": ({"preset": "tiny"}, 30),
    "match": ({"num_players": 3, "hands_per_episode": 3, "starting_stack": 4}, 3),
}


@pytest.mark.parametrize("name", SIMULATED)
def test_random_simulation_with_serialization_and_cloning(name):
    params, sims = SIMULATED[name]
    game = pyspiel.load_game(G.SHORT_NAME, params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_parameters_are_the_rule_fields():
    for name, rules in PRESETS.items():
        game = pyspiel.load_game(f"{G.SHORT_NAME}(preset={name})")
        assert game.rules == rules
        assert pyspiel.load_game(str(game)).rules == rules  # the game string reads back
        assert G.rules_from_params(G.params_of(rules)) == rules
    assert set(G.PARAMETER_SPECIFICATION) == {"preset", "players", *RuleSet().to_dict()}
    game = pyspiel.load_game(G.SHORT_NAME, {"num_players": 4, "odd_chip": "high",
                                            "base_operators": "plus div", "deck_roots": 0,
                                            "deal": "hidden up bet up bet"})
    assert game.rules == RuleSet(num_players=4, odd_chip="high", base_operators="+/",
                                 deck_roots=0, deal=("hidden", "up", "bet", "up", "bet"))
    with pytest.raises(ValueError, match="rule field 'deck_suits'"):
        pyspiel.load_game(G.SHORT_NAME, {"deck_suits": 9})


def test_game_type_is_honest():
    zero = pyspiel.GameType.Utility.ZERO_SUM
    assert pyspiel.load_game(G.SHORT_NAME).get_type().utility == zero
    house = pyspiel.load_game(G.SHORT_NAME, {"num_players": 3})
    assert house.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert pyspiel.load_game(G.SHORT_NAME, {"num_players": 3, "odd_chip": "low"}).get_type() \
        .utility == zero
    tiny = G.load("tiny")
    assert tiny.num_distinct_actions() == A.num_actions(2) and tiny.max_chance_outcomes() == 52
    assert (tiny.min_utility(), tiny.max_utility()) == (-2.0, 2.0)


@pytest.mark.parametrize("params", [{}, {"preset": "classic", "num_players": 4},
                                    {"max_multiply": 1, "deck_values": "0 1 2 3 4", "deck_suits": 2,
                                     "deck_roots": 4}])
def test_chance_outcomes_follow_the_rules(params):
    """Hidden cards are numbers; a player who holds the most × gets no × face up; the outcomes
    are the undrawn cards, equally likely; a special extra card is set aside."""
    game = pyspiel.load_game(G.SHORT_NAME, params)
    rules = game.rules
    rng = np.random.default_rng(3)
    for _ in range(15):
        _, seen = random_history(game.new_initial_state(), rng)
        for state in seen:
            if not state.is_chance_node():
                continue
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            ids = [c for c, _ in outcomes]
            assert not set(ids) & set(state.hand_cards[-1])
            kind, seat = state.draw_kind()
            if kind == "hidden":
                assert all(cards.is_number(c) for c in ids)
            held = sum(t.kind == "up" and t.seat == seat and cards.is_multiply(t.value)
                       for t in state.tokens[state.record.hand_tokens:])
            if kind == "up" and rules.max_multiply is not None and held >= rules.max_multiply:
                assert not any(cards.is_multiply(c) for c in ids)
            if kind == "extra":
                special = next((c for c in ids if not cards.is_number(c)), None)
                if special is not None:
                    child = state.child(special)
                    assert child.tokens[-1] == G.Token("set_aside", seat, special)


def test_information_state_is_perfect_recall_and_hides_what_it_should():
    game = G.load("tiny")
    state = game.new_initial_state()
    for card in (8, 0, 4, 1):  # 2G hidden to player_0, 0G to player_1, then 1G and 0S up
        state.apply_action(card)
    for action in (A.CHECK, A.CHECK, A.DECLARE_HIGH):
        state.apply_action(action)
    mine, theirs = state.information_state_string(0), state.information_state_string(1)
    assert mine == ("player_0, player_0 hidden 2G, player_1 hidden ?, player_0 up 1G, "
                    "player_1 up 0S, player_0 check, player_1 check, player_0 high")
    assert theirs.endswith("player_1 hidden 0G, player_0 up 1G, player_1 up 0S, "
                           "player_0 check, player_1 check, player_0 declares")
    assert "2G" not in theirs and "high" not in theirs
    tensor = np.asarray(state.information_state_tensor(1))
    assert tensor.shape == (game.information_state_tensor_size(),)
    other = game.new_initial_state()
    for move in (9, 0, 4, 1, A.CHECK, A.CHECK, A.DECLARE_LOW):  # another hidden card, action
        other.apply_action(move)
    assert other.information_state_string(1) == theirs
    assert np.array_equal(other.information_state_tensor(1), tensor)
    assert other.information_state_string(0) != mine
    # the observation is the AEC env's vector
    assert np.array_equal(state.observation_tensor(1), Encoder(game.rules).encode(state.game, 1))


@pytest.mark.parametrize("rules", [
    PRESETS["tiny"], PRESETS["standard"], RuleSet(num_players=3), PRESETS["classic"],
    PRESETS["duel"], RuleSet(num_players=3, deck_values=[0, 1, 7, 9], deck_suits=3,
                             base_operators="+/", deal=["hidden", "up", "bet", "up", "bet"]),
], ids=["tiny", "standard", "standard-3", "classic", "duel", "three-numbers"])
def test_same_play_as_the_aec_env(rules):
    """The cards python_hilo's chance dealt, stacked on the AEC env's deck, and the same
    actions: the same legal actions at every decision and the same returns."""
    game = pyspiel.load_game(G.SHORT_NAME, G.params_of(rules))
    rng = np.random.default_rng(11)
    for episode in range(12):
        final, seen = random_history(game.new_initial_state(), rng)
        env = raw_env(rules)
        env.reset(seed=episode, options={"deck": list(final.hand_cards[0])})
        decisions = [s for s in seen if not s.is_chance_node()]
        for state, action in zip(decisions, final.player_actions, strict=True):
            agent = env.agent_selection
            assert agent == f"player_{state.current_player()}"
            legal = np.flatnonzero(action_mask(env.game)).tolist()
            assert legal == state.legal_actions()
            assert np.array_equal(env.observe(agent)["observation"],
                                  state.observation_tensor(state.current_player()))
            env.step(action)
        assert all(env.terminations.values())
        assert [env._cumulative_rewards[a] for a in env.possible_agents] == final.returns()
        assert sum(final.returns()) == -env.game.house
