"""python_hilo under misuse: a refused action or chance outcome changes nothing,
OpenSpiel's own tools run on the game unchanged, every parameter given is honoured."""

import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from hilo_env.envs import openspiel_game as G  # noqa: E402
from hilo_env.equation_hilo import actions as A  # noqa: E402
from hilo_env.equation_hilo import cards  # noqa: E402
from hilo_env.equation_hilo.rules import PRESETS  # noqa: E402


def _snapshot(state) -> tuple:
    """What a state shows: its text, serialization, history and next moves."""
    moves = state.chance_outcomes() if state.is_chance_node() else state.legal_actions()
    return (str(state), state.serialize(), state.history(), state.current_player(), moves,
            str(state.clone()))


def _refused(state, action: int) -> None:
    before = _snapshot(state)
    with pytest.raises(ValueError, match=r"not legal|not a chance outcome"):
        state.apply_action(action)
    assert _snapshot(state) == before


def test_a_refused_move_changes_nothing() -> None:
    game = G.load("tiny")
    state = game.new_initial_state()
    first = state.chance_outcomes()[0][0]
    _refused(state, 10**6)
    _refused(state, 51)  # a card not in the tiny deck
    state.apply_action(first)
    _refused(state, first)  # the same card dealt twice
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    legal = state.legal_actions()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    _refused(state, illegal)
    _refused(state, -2)
    state.apply_action(legal[0])  # play goes on after refusals
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        moves = ([c for c, _ in state.chance_outcomes()] if state.is_chance_node()
                 else state.legal_actions())
        state.apply_action(int(rng.choice(moves)))
    _refused(state, A.FOLD)
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.returns() == state.returns()
    assert pickle.loads(pickle.dumps(state)).returns() == state.returns()


def test_openspiel_tools_run_on_the_game_unchanged() -> None:
    from open_spiel.python.algorithms import generate_playthrough

    text = generate_playthrough.playthrough("python_hilo(preset=tiny)", action_sequence=None,
                                            alsologtostdout=False)
    assert "GameType.short_name" in text and "IsTerminal() = True" in text
    state = G.load("tiny").new_initial_state()
    dealt = [c for c, _ in state.chance_outcomes()[:2]]
    for card in dealt:
        state.apply_action(card)
    assert state.history() == dealt
    assert state.clone().history() == dealt
    assert [cards.card_str(c) for c in dealt] == str(state).split("|")[0].split()[1:]


def test_every_parameter_given_is_honoured() -> None:
    game = pyspiel.load_game("python_hilo(preset=classic,swing=true,integer_results=false)")
    assert game.rules.swing is True and game.rules.integer_results is False
    assert pyspiel.load_game(str(game)).rules == game.rules
    standard = G.params_of(PRESETS["standard"])
    for name, rules in PRESETS.items():
        for field, value in standard.items():
            if G.params_of(rules)[field] == value:
                continue
            params = {"preset": name, field: value}
            try:
                expected = rules.replace(**{field: getattr(PRESETS["standard"], field)})
            except ValueError:  # not a rule set with this one field changed: refused
                with pytest.raises(ValueError, match="rule field"):
                    pyspiel.load_game(G.SHORT_NAME, params)
                continue
            assert pyspiel.load_game(G.SHORT_NAME, params).rules == expected, params
    tiny = G.load("tiny")
    assert "preset=standard" not in str(tiny)
    assert pyspiel.load_game(str(tiny)).rules == tiny.rules


@pytest.mark.parametrize("bad", [3, None, 2.5])
def test_load_refuses_what_is_not_rules(bad) -> None:
    with pytest.raises(TypeError, match="RuleSet or a preset name"):
        G.load(bad)
