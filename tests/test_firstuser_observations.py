"""A rule-based agent fed another table's observations says so (issue 31 item 16).

An agent made for one player count reads its observation vector by that count's layout; given
the vector of another count (or another game) it must refuse it with a ValueError naming the
size it reads and the size it got, not misread the fields and play on.
"""

from __future__ import annotations

import importlib.util

import pytest

from hilo_env import games
from hilo_env.agents import make

CASES = [("lohi", "heuristic", 2, 4), ("lohi", "heuristic", 4, 2), ("himilo", "team", 3, 5),
         ("himilo", "team", 5, 4), ("hilo", "heuristic", 2, 4), ("hilo", "caller", 3, 2),
         ("hilo", "tight", 2, 3)]
TRAINED = [("hilo", "ppo", 2, 3), ("hilo", "ppo", 4, 2), ("lohi", "ppo", 2, 4),
           ("himilo", "ppo", 4, 5)]
"""Shipped models (the train extra): refused before torch reads the vector."""
CASES += [pytest.param(*case, marks=pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="needs the train extra"))
    for case in TRAINED]


def first_observation(game: str, players: int) -> tuple:
    spec = games.get(game)
    env = spec.raw_env(spec.rules(None, players))
    env.reset(seed=0)
    seen = env.observe(env.agent_selection)
    return seen["observation"], seen["action_mask"]


@pytest.mark.parametrize(("game", "name", "made_for", "given"), CASES)
def test_another_player_counts_observation_is_refused(game: str, name: str, made_for: int,
                                                      given: int) -> None:
    spec = games.get(game)
    agent = make(name, spec.rules(None, made_for), game=game)
    own, _ = first_observation(game, made_for)
    obs, mask = first_observation(game, given)
    expected = f"reads observations of {own.size} numbers .* got {obs.size} numbers"
    with pytest.raises(ValueError, match=expected):
        agent.act(obs, mask)
    with pytest.raises(ValueError, match=expected):
        agent.act_batch(obs[None], mask[None])


@pytest.mark.parametrize(("game", "name", "made_for", "given"), CASES)
def test_own_observations_still_play(game: str, name: str, made_for: int, given: int) -> None:
    spec = games.get(game)
    agent = make(name, spec.rules(None, made_for), game=game)
    obs, mask = first_observation(game, made_for)
    assert mask[agent.act(obs, mask)]
    assert mask[int(agent.act_batch(obs[None], mask[None])[0])]
