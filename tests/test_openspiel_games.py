"""python_lohi and python_himilo, lo-hi and Hi MiLo! as OpenSpiel games (the ``openspiel``
extra), through the checks python_hilo passes: OpenSpiel's ``games_sim_test`` and random
simulation with serialization, playthroughs that replay identically, every rule field a
parameter, exact chance, information states that hide what they should, refused moves that
change nothing, and the same play as each game's AEC env."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from absl import flags  # noqa: E402
from open_spiel.python.algorithms import generate_playthrough  # noqa: E402
from open_spiel.python.tests import games_sim_test  # noqa: E402

from hilo_env.envs import openspiel_himilo as H  # noqa: E402
from hilo_env.envs import openspiel_lohi as L  # noqa: E402
from hilo_env.envs.himilo_aec import raw_env as himilo_env  # noqa: E402
from hilo_env.envs.lohi_aec import raw_env as lohi_env  # noqa: E402
from hilo_env.himilo import actions as HA  # noqa: E402
from hilo_env.himilo.cards import NUM_WIN_CARDS, cards_in_play  # noqa: E402
from hilo_env.himilo.rules import PRESETS as HIMILO_PRESETS  # noqa: E402
from hilo_env.himilo.rules import RuleSet as HimiloRules  # noqa: E402
from hilo_env.lohi import engine as LE  # noqa: E402
from hilo_env.lohi.cards import DECK_SIZE  # noqa: E402
from hilo_env.lohi.rules import PRESETS as LOHI_PRESETS  # noqa: E402
from hilo_env.lohi.rules import RuleSet as LohiRules  # noqa: E402
from tests.helpers import random_history  # noqa: E402

MODULES = {L.SHORT_NAME: L, H.SHORT_NAME: H}
PLAYTHROUGH = Path(__file__).resolve().parent / "data" / "python_lohi_single_round.txt"
LIBRARIES = Path(__file__).resolve().parent.parent / "docs" / "libraries.md"
"""OpenSpiel's record of one random game of python_lohi(preset=single_round), seed 0."""

SIMULATED = {  # game string -> simulations
    "python_lohi(preset=single_round)": 6,
    "python_lohi(preset=single_round,players=5,min_run=4)": 3,
    "python_lohi(players=3,max_turns=120,round_reward=0.5)": 3,  # cut off, rewards per round
    "python_lohi(start_cards=2,final_cards=3,pickups_to_turn=1)": 3,
    "python_himilo": 2,
    "python_himilo(preset=hardcore,players=5,dealer=1)": 1,
    "python_himilo(players=3,pass_cards=0,shaping=constraints,visible_win_cards=1)": 2,
}


def parse_absl_flags() -> None:
    """generate_playthrough reads an absl flag, which OpenSpiel's tests parse at start."""
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()


def write_playthrough() -> None:
    """Rewrite the kept lo-hi playthrough after a deliberate change of the game:
    ``python -c "from tests.test_openspiel_games import write_playthrough; write_playthrough()"``.
    """
    parse_absl_flags()
    PLAYTHROUGH.write_text(generate_playthrough.playthrough(
        f"{L.SHORT_NAME}(preset=single_round)", action_sequence=None, seed=0))


# ---- OpenSpiel's own tests ---------------------------------------------------------------------


@pytest.mark.parametrize("name", SIMULATED)
def test_random_simulation_with_serialization_and_cloning(name):
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=SIMULATED[name], serialize=True,
                            verbose=False)


@pytest.mark.parametrize("short_name", MODULES)
def test_games_sim_test_on_the_default_game_and_every_player_count(short_name):
    """games_sim_test's test_game_sim (the short name alone) and test_multiplayer_game (each
    player count with ``players``)."""
    info = next(g for g in pyspiel.registered_games() if g.short_name == short_name)
    games_sim_test.GamesSimTest().sim_game(pyspiel.load_game(short_name))
    for players in range(info.min_num_players, min(info.max_num_players, 6) + 1):
        game = pyspiel.load_game(short_name, {"players": players})
        assert game.num_players() == players == game.rules.num_players
        games_sim_test.GamesSimTest().sim_game(game)


def test_lohi_playthrough_replays_identically():
    """OpenSpiel's playthrough test: the kept file's game and actions, replayed, give it."""
    parse_absl_flags()
    original, new = generate_playthrough.replay(str(PLAYTHROUGH))
    assert "game: python_lohi(preset=single_round)" in original
    assert "IsTerminal() = True" in original and new == original


def test_himilo_playthrough_replays_identically(tmp_path):
    """A Hi MiLo! playthrough is too large to keep (its information-state tensors), so one is
    written and replayed here."""
    parse_absl_flags()
    path = tmp_path / "python_himilo.txt"
    path.write_text(generate_playthrough.playthrough(
        f"{H.SHORT_NAME}(players=3,pass_cards=0)", action_sequence=None, seed=1))
    original, new = generate_playthrough.replay(str(path))
    assert "IsTerminal() = True" in original and "GameType.utility = Utility.IDENTICAL" \
        in original
    assert new == original


# ---- parameters and type ----------------------------------------------------------------------


@pytest.mark.parametrize("module, presets, rules_class, changed", [
    (L, LOHI_PRESETS, LohiRules, {"num_players": 4, "min_run": 5, "round_reward": 0.25,
                                  "max_turns": 300, "pickups_to_turn": 2}),
    (H, HIMILO_PRESETS, HimiloRules, {"num_players": 5, "visible_win_cards": 4, "pass_cards": 0,
                                      "dealer": 2, "shaping": "constraints"}),
])
def test_parameters_are_the_rule_fields(module, presets, rules_class, changed):
    for name, rules in presets.items():
        game = pyspiel.load_game(f"{module.SHORT_NAME}(preset={name})")
        assert game.rules == rules == module.load(name).rules
        assert pyspiel.load_game(str(game)).rules == rules  # the game string reads back
    fields = set(rules_class().__dataclass_fields__)
    assert set(module.PARAMETERS.specification()) == {"preset", "players", *fields}
    rules = rules_class(**changed)
    game = pyspiel.load_game(module.SHORT_NAME, module.PARAMETERS.params_of(rules))
    assert game.rules == rules == module.load(rules).rules
    assert pyspiel.load_game(str(game)).rules == rules
    with pytest.raises(ValueError, match="num_players"):
        pyspiel.load_game(module.SHORT_NAME, {"num_players": 9})
    with pytest.raises(ValueError, match="disagree"):
        pyspiel.load_game(module.SHORT_NAME, {"players": 3, "num_players": 4})
    with pytest.raises(ValueError, match=r"unknown .* preset"):
        pyspiel.load_game(module.SHORT_NAME, {"preset": "nonesuch"})
    with pytest.raises(TypeError, match="RuleSet or a preset name"):
        module.load(3)


@pytest.mark.parametrize("module, presets", [(L, LOHI_PRESETS), (H, HIMILO_PRESETS)])
def test_every_parameter_given_is_honoured_even_at_its_standard_value(module, presets):
    """A preset overridden by a field's standard value: pyspiel hands the game every
    parameter, the given ones first, and the given one wins over the preset."""
    standard = module.PARAMETERS.params_of(presets["standard"])
    checked = 0
    for name, rules in presets.items():
        for field, value in standard.items():
            if module.PARAMETERS.params_of(rules)[field] == value:
                continue
            game = pyspiel.load_game(module.SHORT_NAME, {"preset": name, field: value})
            assert game.rules == rules.replace(**{field: getattr(presets["standard"], field)})
            assert pyspiel.load_game(str(game)).rules == game.rules
            checked += 1
    assert checked


def test_himilo_dealer_minus_one_is_the_default_dealer():
    assert pyspiel.load_game("python_himilo(dealer=-1)").rules.dealer is None
    assert "dealer=-1" in str(H.load("standard"))
    assert pyspiel.load_game("python_himilo(dealer=0,players=3)").rules.dealer == 0


def test_game_types_are_honest():
    utility, rewards = pyspiel.GameType.Utility, pyspiel.GameType.RewardModel
    lohi = L.load("standard")
    assert lohi.get_type().utility == utility.ZERO_SUM and lohi.utility_sum() == 0.0
    assert lohi.get_type().reward_model == rewards.TERMINAL
    assert not lohi.get_type().provides_information_state_tensor
    assert (lohi.min_utility(), lohi.max_utility()) == (-1.0, 1.0)
    assert L.load(LohiRules(round_reward=0.5)).get_type().reward_model == rewards.REWARDS
    himilo = H.load("standard")
    assert himilo.get_type().utility == utility.IDENTICAL
    assert (himilo.min_utility(), himilo.max_utility()) == (-1.0, 1.0)
    assert himilo.num_distinct_actions() == HA.NUM_ACTIONS
    assert himilo.max_chance_outcomes() == cards_in_play(4)
    shaped = pyspiel.load_game("python_himilo(shaping=constraints)")
    assert shaped.get_type().reward_model == rewards.REWARDS


# ---- chance ------------------------------------------------------------------------------------


def test_lohi_chance_is_the_cards_not_yet_drawn():
    """A deal's card is one of the 52 not dealt yet in the round; a pick up's or a turned
    card is one of the stock's; every outcome equally likely; the cards land where chance
    put them."""
    game = pyspiel.load_game("python_lohi(players=3,start_cards=3,final_cards=4,"
                             "pickups_to_turn=1)")
    rng = np.random.default_rng(5)
    kinds = set()
    for _ in range(4):
        _, seen = random_history(game.new_initial_state(), rng)
        for state in seen:
            if not state.is_chance_node():
                continue
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            assert len({p for _, p in outcomes}) == 1
            ids = sorted(c for c, _ in outcomes)
            draw = state.position.next_draw
            kinds.add(draw.kind)
            before = state.position.before
            if draw.kind in (L.DEAL, L.UP):
                this_round = [i for i, t in enumerate(state.tokens)
                              if t.kind == L.ROUND_SEPARATOR][-1]
                dealt = [t.value for t in state.tokens[this_round:] if t.kind in (L.DEAL, L.UP)]
                assert ids == sorted(set(range(DECK_SIZE)) - set(dealt))
            elif before.stock and draw.kind == L.DRAW:
                assert ids == sorted(before.stock)
            card = ids[-1]
            child = state.child(card)
            assert child.tokens[-1] == L.Token(draw.kind, draw.seat, card)
            if child.position.next_draw is None and draw.kind in (L.DEAL, L.DRAW):
                assert card in child.game.hand(draw.seat)
    assert kinds == {L.DEAL, L.UP, L.DRAW, L.TURN}


def test_himilo_chance_is_the_deal_then_each_win_card_as_it_turns_face_up():
    game = pyspiel.load_game("python_himilo(players=3,visible_win_cards=2)")
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    final, seen = random_history(state, rng)
    chance = [s for s in seen if s.is_chance_node()]
    assert len(chance) == 14 * 3 + NUM_WIN_CARDS
    for i, s in enumerate(chance[:42]):
        kind, seat, ids = s.next_draw()
        assert kind == H.DEAL and seat == s.fixed.deal_seats[i]
        assert ids == sorted(set(range(cards_in_play(3))) - set(s.position.deck))
    for s in chance[42:]:
        kind, seat, ids = s.next_draw()
        assert kind == H.LINE and ids == sorted(set(range(NUM_WIN_CARDS)) - set(s.position.line))
    first_bid = seen[44]
    assert not first_bid.is_chance_node() and len(first_bid.position.line) == 2
    for s in seen:  # every Win Card face up was chosen by chance
        if s.game is not None and not s.is_chance_node():
            assert s.game.visible_line() == list(s.position.line[s.game.trick:])[:2]
    assert [h for h in final.game.hands] == [[], [], []]
    assert sorted(final.position.deck) == sorted(c for p in final.game.played for c in p)


# ---- information states -------------------------------------------------------------------------


def test_lohi_information_state_hides_other_players_cards():
    game = L.load("single_round")
    state = game.new_initial_state()
    for _ in range(11):  # 2S 2H ... 4H to the seats in turn, then 4C face up
        state.apply_action(state.chance_outcomes()[0][0])
    mine, theirs = state.information_state_string(0), state.information_state_string(1)
    assert mine.startswith("player_0, | round 1, player_0 deal 2S, player_1 deal ?, "
                           "player_0 deal 2C, player_1 deal ?")
    assert theirs.startswith("player_1, | round 1, player_0 deal ?, player_1 deal 2H")
    assert mine.endswith("player_1 deal ?, up 4C")
    other = game.new_initial_state()
    for card in (0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 10):  # player_1's 5th card 4D, not 4H
        other.apply_action(card)
    assert other.information_state_string(0) == mine
    assert other.information_state_string(1) != theirs
    assert str(other) != str(state)


def test_himilo_information_state_hides_hands_and_passes():
    game = pyspiel.load_game("python_himilo(players=3,pass_cards=1)")
    rng = np.random.default_rng(4)
    state = game.new_initial_state()
    while len(state.position.actions) < 4:  # three bids and the first pass
        if state.is_chance_node():
            state.apply_action(int(rng.choice([c for c, _ in state.chance_outcomes()])))
        else:
            state.apply_action(state.legal_actions()[0])
    passer = next(t for t in reversed(state.tokens) if t.kind == H.PASS).seat
    passed = HA.action_to_string(state.position.actions[-1])
    receiver, other = (passer + 1) % 3, (passer + 2) % 3
    assert f"player_{passer} {passed}" in state.information_state_string(passer)
    card = passed.split()[-1]
    assert state.information_state_string(receiver).endswith(
        f"player_{passer} passes, player_{receiver} receive {card}")
    assert state.information_state_string(other).endswith(
        f"player_{passer} passes, player_{receiver} receive ?")
    tensor = np.asarray(state.information_state_tensor(other))
    assert tensor.shape == (game.information_state_tensor_size(),)
    # another legal pass of the same passer: the same information state for the third player
    history = state.history()
    parent = game.new_initial_state()
    for move in history[:-1]:
        parent.apply_action(move)
    sibling = parent.child(next(a for a in parent.legal_actions() if a != history[-1]))
    assert sibling.information_state_string(other) == state.information_state_string(other)
    assert np.array_equal(sibling.information_state_tensor(other), tensor)
    for seat in (passer, receiver):
        assert sibling.information_state_string(seat) != state.information_state_string(seat)
        assert not np.array_equal(sibling.information_state_tensor(seat),
                                  state.information_state_tensor(seat))


# ---- misuse ------------------------------------------------------------------------------------


def play_as_the_aec_env(env, decisions: list, actions: list[int]) -> np.ndarray:
    """Step the AEC env ``env`` through ``actions``, checking at each of the OpenSpiel
    ``decisions`` that the same seat acts with the same legal actions and observation; each
    seat's summed reward."""
    totals = np.zeros(len(env.possible_agents))
    for state, action in zip(decisions, actions, strict=True):
        agent = env.agent_selection
        assert agent == f"player_{state.current_player()}"
        assert env.game.legal_actions() == state.legal_actions()
        assert np.array_equal(env.observe(agent)["observation"],
                              state.observation_tensor(state.current_player()))
        env.step(action)
        totals += [env.rewards[a] for a in env.possible_agents]
    return totals


def _snapshot(state) -> tuple:
    moves = state.chance_outcomes() if state.is_chance_node() else state.legal_actions()
    return (str(state), state.serialize(), state.history(), state.current_player(), moves,
            state.returns())


@pytest.mark.parametrize("name", ["python_lohi(preset=single_round)",
                                  "python_himilo(players=3,pass_cards=1)"])
def test_a_refused_move_changes_nothing(name):
    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    refused = 0
    while not state.is_terminal():
        if state.is_chance_node():
            ids = [c for c, _ in state.chance_outcomes()]
            bad = next(c for c in range(game.max_chance_outcomes() + 1) if c not in ids)
            pattern = "not a chance outcome"
        else:
            ids = state.legal_actions()
            bad = next(a for a in range(game.num_distinct_actions()) if a not in ids)
            pattern = "not legal"
        if refused < 40:
            before = _snapshot(state)
            with pytest.raises(ValueError, match=pattern):
                state.apply_action(bad)
            assert _snapshot(state) == before
            refused += 1
        state.apply_action(int(rng.choice(ids)))
    with pytest.raises(ValueError, match="not legal"):
        state.apply_action(0)
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.returns() == state.returns()


# ---- the same play as the AEC env -------------------------------------------------------------


@pytest.mark.parametrize("rules", [LOHI_PRESETS["single_round"],
                                   LohiRules(num_players=3, final_cards=6, pickups_to_turn=1),
                                   LohiRules(num_players=4, start_cards=3, final_cards=4,
                                             round_reward=0.5, max_turns=400)],
                         ids=["single_round", "three-players", "round-reward"])
def test_lohi_same_play_as_the_aec_env(rules):
    """The cards python_lohi's chance drew, stacked on the AEC env's decks and reshuffles, and
    the same actions: the same legal actions and observations at every decision, the same
    rewards."""
    game = L.load(rules)
    rng = np.random.default_rng(11)
    for episode in range(4):
        final, seen = random_history(game.new_initial_state(), rng)
        orders = _lohi_orders(final)
        env = lohi_env(rules)
        env.reset(seed=episode, options={"deck": orders[0],
                                         "shuffle": LE.RecordedShuffle(orders[1:])})
        decisions = [s for s in seen if not s.is_chance_node()]
        actions = [t.value for t in final.tokens if t.kind == L.ACTION]
        totals = play_as_the_aec_env(env, decisions, actions)
        assert env.game.over and env.game.truncated == final.game.truncated
        assert totals.tolist() == pytest.approx(final.returns())  # summed in another order


def _lohi_orders(final) -> list[list[int]]:
    """Every deck and reshuffle of a python_lohi game as the AEC env's chance would give them:
    the cards chance chose from it, in draw order (read from the tokens), then the cards never
    drawn, ascending. The engine's log says where a deck or reshuffle starts."""
    chosen = iter([t for t in final.tokens if t.kind in (L.DEAL, L.UP, L.DRAW, L.TURN)])
    drawn: list[list[int]] = []
    pools: list[set[int]] = []
    for event in final.game.log:
        if event.kind == LE.ROUND:
            deal = [next(chosen).value for _ in range(sum(
                final.rules.start_cards + w for w in event.data["wins"]) + 1)]
            drawn.append(deal)
            pools.append(set(range(DECK_SIZE)))
        elif event.kind == LE.RESHUFFLE:
            drawn.append([])
            pools.append(set(event.data))
        elif (event.kind == LE.DRAW and event.data is not None) or event.kind == LE.TURN:
            card = next(chosen).value
            assert card == event.data  # the card chance chose is the card the engine drew
            drawn[-1].append(card)
    assert next(chosen, None) is None
    return [[*d, *sorted(p - set(d))] for d, p in zip(drawn, pools, strict=True)]


@pytest.mark.parametrize("rules", [HIMILO_PRESETS["standard"], HIMILO_PRESETS["hardcore"],
                                   HimiloRules(num_players=5, pass_cards=2, dealer=1,
                                               shaping="constraints"),
                                   HimiloRules(num_players=3, visible_win_cards=1)],
                         ids=["standard", "hardcore", "five-shaped", "three-one-face-up"])
def test_himilo_same_play_as_the_aec_env(rules):
    """The deck and line python_himilo's chance dealt, stacked on the AEC env's round, and the
    same actions: the same legal actions and observations at every decision, the same
    rewards."""
    game = H.load(rules)
    rng = np.random.default_rng(3)
    for _ in range(3):
        final, seen = random_history(game.new_initial_state(), rng)
        start = final.game.log[0].data
        deck, line = final.position.deck, final.position.line
        assert tuple(start["deck"][:len(deck)]) == deck and tuple(start["line"][:len(line)]) \
            == line  # the engine dealt the cards chance chose
        env = himilo_env(rules)
        env.reset(options={"deck": start["deck"], "line": start["line"]})
        decisions = [s for s in seen if not s.is_chance_node()]
        totals = play_as_the_aec_env(env, decisions, final.position.actions)
        assert all(env.terminations.values())
        assert totals.tolist() == final.returns()


def test_the_openspiel_recipe_of_docs_libraries_runs_as_written(capsys):
    section = LIBRARIES.read_text().split("\n## OpenSpiel\n")[1].split("\n## ")[0]
    recipe = section.split("```python\n")[1].split("```")[0]
    exec(compile(recipe, "docs/libraries.md (OpenSpiel)", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert [line.split("(")[0] for line in printed] == [
        "python_hilo", "python_lohi", "python_himilo"]


# ---- OpenSpiel's learning tools ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["python_lohi(preset=single_round,round_reward=0.5)",
                                  "python_himilo(players=3,pass_cards=0,shaping=constraints)"])
def test_rl_environment_and_mccfr_run_and_credit_every_reward(name):
    """OpenSpiel's rl_environment hands out rewards summing to the returns (mid-game rewards
    included), and outcome-sampling MCCFR iterates on the game."""
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    env = rl_environment.Environment(name)
    rng = np.random.default_rng(0)
    for _ in range(3):
        step = env.reset()
        totals = np.zeros(env.num_players)
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([int(rng.choice(step.observations["legal_actions"][player]))])
            totals += step.rewards
        assert totals.tolist() == pytest.approx(env.get_state.returns())
        assert any(totals)
    game = pyspiel.load_game(name)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(2):
        solver.iteration()
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probabilities = solver.average_policy().action_probabilities(state)
    assert set(probabilities) == set(state.legal_actions())
    assert sum(probabilities.values()) == pytest.approx(1.0)
