"""Exact exploitability on tiny (envs/openspiel_policy.py), the cfr_tiny agent, ``hilo exploit
AGENT --rules tiny``, and smoke runs of OpenSpiel's MCCFR and NFSP on the full python_hilo.

The tiny game is enumerated once per test session (about 10 s); every exact figure after that
is C++ (milliseconds)."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from hilo_env import cli  # noqa: E402
from hilo_env.agents import cfr_tiny  # noqa: E402
from hilo_env.agents.registry import make  # noqa: E402
from hilo_env.envs import openspiel_game as G  # noqa: E402
from hilo_env.envs import openspiel_policy as P  # noqa: E402
from hilo_env.envs.equation_hilo_aec import raw_env  # noqa: E402
from hilo_env.equation_hilo.rules import PRESETS, RuleSet  # noqa: E402

TINY = PRESETS["tiny"]


def test_exact_solvable_is_tiny_sized():
    assert P.exact_solvable(TINY) and P.exact_solvable("tiny")
    for rules in (PRESETS["standard"], TINY.replace(num_players=3),
                  TINY.replace(hands_per_episode=2), TINY.replace(starting_stack=20),
                  TINY.replace(deck_values=list(range(11)), deck_suits=4)):
        assert not P.exact_solvable(rules)
    with pytest.raises(ValueError, match="too large to enumerate"):
        P.exact_exploitability("random", "standard")


def test_the_tree_matches_python_hilo_exactly():
    """The EFG export against OpenSpiel's Python best response on python_hilo itself, on a
    4-card variant small enough to walk in Python."""
    from open_spiel.python.algorithms import exploitability

    small = TINY.replace(deck_values=[0, 1])
    game = G.load(small)
    agent = make("random", small)
    assert P.exact_exploitability(agent, small).nash_conv == pytest.approx(
        exploitability.nash_conv(game, P.agent_policy(game, agent)), abs=1e-12)


def test_tiny_tree_and_cfr_plus():
    exact = P.enumerate_game(TINY)
    assert exact.infosets_per_player() == [600, 600]
    # the observation tells every information set apart (perfect recall for an agent)
    shown = {cfr_tiny.observation_key(info.observation, info.mask) for info in exact.infosets}
    assert len(shown) == len(exact.infosets)
    assert dict(exact.histories) == {"chance": 157, "decision": 5760, "terminal": 11160}
    solved = P.solve_cfr_plus(TINY, 20, checkpoints=(1, 20))
    (_, first, _), (_, last, _) = solved.curve
    assert last < first / 5
    # after one iteration the average policy is uniform: random's NashConv
    assert first == pytest.approx(P.exact_exploitability("random", TINY).nash_conv)
    for info in exact.infosets[:50]:
        assert sum(solved.policy[info.key].values()) == pytest.approx(1.0)


def test_baselines_are_exploitable_and_cfr_tiny_is_close_to_nash():
    figures = cfr_tiny.read_model()
    assert figures["nash_conv_cfr"] < 1e-3
    results = {name: P.exact_exploitability(name, TINY) for name in
               ("random", "caller", "cfr_tiny")}
    assert results["cfr_tiny"].nash_conv == pytest.approx(figures["nash_conv_agent"])
    assert results["cfr_tiny"].nash_conv < 1e-3 < 0.05 < min(results["caller"].nash_conv,
                                                             results["random"].nash_conv)
    value = results["random"].game_value
    assert value == pytest.approx(figures["game_value"]) and abs(value) < 0.05
    assert results["caller"].agent_value == pytest.approx(0.0, abs=1e-12)  # both call down


def test_game_value_from_cfr_plus_and_from_the_lp():
    """CFR+ on the EFG tree against the sequence-form LP on python_hilo (a Python walk)."""
    value = P.lp_value(TINY)
    assert value == pytest.approx(cfr_tiny.read_model()["game_value"], abs=1e-4)
    assert value < -1e-3  # the second player's edge


def test_cfr_tiny_plays_tiny_only():
    with pytest.raises(ValueError, match="plays only the tiny rules"):
        make("cfr_tiny", "standard")
    env = raw_env(TINY)
    agent = make("cfr_tiny", TINY)
    for seed in range(30):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, done, trunc, _ = env.last()
            if done or trunc:
                env.step(None)
                continue
            action = agent.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)


def test_exploit_command_prints_the_exact_figures(capsys):
    assert cli.main(["exploit", "caller", "--rules", "tiny"]) == 0
    out = capsys.readouterr().out
    caller = P.exact_exploitability("caller", TINY).nash_conv
    assert f"exact NashConv of caller on tiny: {caller:.6f}" in out
    assert "game value for player 0: -0.005596" in out
    assert "information sets per player [600, 600]" in out


def test_mccfr_and_nfsp_run_on_the_full_game():
    """Seconds-long smoke runs on standard python_hilo: outcome-sampling MCCFR iterations and
    NFSP episodes (the PyTorch NFSP, from the train extra), with legal actions throughout."""
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = G.load(RuleSet())
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(30):
        solver.iteration()
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probs = solver.average_policy().action_probabilities(state)
    assert set(probs) == set(state.legal_actions())

    torch = pytest.importorskip("torch")
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp

    torch.manual_seed(0)
    env = rl_environment.Environment(game, seed=0)
    size = env.observation_spec()["info_state"][0]
    agents = [nfsp.NFSP(p, state_representation_size=size,
                        num_actions=env.action_spec()["num_actions"], hidden_layers_sizes=[8],
                        reservoir_buffer_capacity=64, anticipatory_param=0.1, batch_size=8,
                        min_buffer_size_to_learn=8, learn_every=4, seed=p) for p in (0, 1)]
    for _ in range(6):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            action = agents[player].step(step).action
            assert action in step.observations["legal_actions"][player]
            step = env.step([action])
        for agent in agents:
            agent.step(step)
        assert np.isclose(sum(step.rewards), 0.0)
