"""Batch play honours a subclass's own ``act`` (issue 31 item 18).

A subclass of ``random``, ``caller``, ``heuristic`` or a trained model's agent (``PPOAgent``)
that overrides ``act`` must be played by
that ``act`` wherever agents play in batches (a tournament's and the gauntlet's lockstep
tables, ``HiLoVectorEnv``'s opponents), not by its parent's batch fast path; a subclass that
overrides only helpers its parent's ``act`` calls keeps the fast path.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

from hilo_env import games
from hilo_env.agents.baselines import CallerAgent, HeuristicAgent, RandomAgent
from hilo_env.agents.table_view import TableView
from hilo_env.envs.vector_env import HiLoVectorEnv
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.rules import resolve
from hilo_env.training.evaluate import tournament
from hilo_env.training.gauntlet import gauntlet


def first_legal(cls: type) -> type:
    """A subclass of ``cls`` whose own ``act`` plays the first legal action, counting its calls
    and the observations it was shown."""

    class FirstLegal(cls):
        calls: ClassVar[int] = 0
        seen: ClassVar[list[int]] = []

        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            type(self).calls += 1
            type(self).seen.append(np.asarray(observation).size)
            return int(np.flatnonzero(action_mask)[0])

    return FirstLegal


@pytest.mark.parametrize("parent", [RandomAgent, CallerAgent, HeuristicAgent])
def test_act_batch_goes_through_an_overridden_act(parent: type) -> None:
    rules = resolve("standard")
    env = HiLoVectorEnv(rules, num_envs=4, seed=0)
    observations, _ = env.reset(seed=0)
    masks = env.action_masks().astype(np.int8)
    agent = first_legal(parent)(rules, 0)
    got = agent.act_batch(observations, masks)
    assert got.tolist() == [int(np.flatnonzero(m)[0]) for m in masks]
    assert agent.calls == len(masks)


@pytest.mark.parametrize("parent", [RandomAgent, CallerAgent, HeuristicAgent])
def test_vector_env_opponent_subclass_is_played_by_its_act(parent: type) -> None:
    cls = first_legal(parent)
    rules = resolve("standard")
    env = HiLoVectorEnv(rules, num_envs=8, opponents=cls(rules, 1), seed=2)
    env.reset(seed=2)
    for _ in range(20):
        env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
    assert cls.calls > 0
    assert set(cls.seen) == {env.game.obs_size}  # observations given, also under random


def test_random_subclass_is_played_by_its_act_in_a_lohi_tournament(
        monkeypatch: pytest.MonkeyPatch) -> None:
    cls = first_legal(RandomAgent)
    monkeypatch.setitem(games.get("lohi").agent_factories(), "first", cls)
    result = tournament(["first", "heuristic"], "single_round", games=8, seed=0, game="lohi")
    assert cls.calls > 0 and min(cls.seen) > 0
    assert result.names == ("first", "heuristic")


def test_random_subclass_is_played_by_its_act_in_a_himilo_gauntlet(
        monkeypatch: pytest.MonkeyPatch) -> None:
    cls = first_legal(RandomAgent)
    monkeypatch.setitem(games.get("himilo").agent_factories(), "first", cls)
    gauntlet("first", None, rounds=6, game="himilo", players=["random"])
    assert cls.calls > 0 and min(cls.seen) > 0


def test_heuristic_subclass_is_played_by_its_act_in_a_hilo_tournament_and_gauntlet(
        monkeypatch: pytest.MonkeyPatch) -> None:
    cls = first_legal(HeuristicAgent)
    monkeypatch.setitem(games.get().agent_factories(), "first", cls)
    tournament(["first", "caller"], "standard", hands=4, seed=0)
    gauntlet("first", "standard", hands=4, players=["caller"])
    assert cls.calls > 0


def test_a_subclass_of_helpers_keeps_the_fast_path() -> None:
    """The gauntlet's players override the heuristic's helpers, not ``act``: one batch call
    decodes the batch once, and plays as ``act`` does."""

    class Folder(HeuristicAgent):
        def _bet(self, view: TableView, legal: np.ndarray) -> int:
            return A.FOLD if A.FOLD in legal else int(legal[0])

    rules = resolve("standard")
    env = HiLoVectorEnv(rules, num_envs=6, seed=1)
    observations, _ = env.reset(seed=1)
    masks = env.action_masks().astype(np.int8)
    batch, rows = Folder(rules, 3), Folder(rules, 3)
    assert batch.act_batch(observations, masks).tolist() == \
        [rows.act(o, m) for o, m in zip(observations, masks, strict=True)]
    assert not RandomAgent(rules, 0).observes


def test_a_trained_models_subclass_is_played_by_its_act() -> None:
    """``PPOAgent``'s batch path runs the model, and a subclass's own ``act`` replaces it;
    ``JaxPolicyAgent`` (a PPOAgent playing another kind of network) keeps its fast path."""
    from hilo_env.agents.jax_policy import JaxPolicyAgent
    from hilo_env.agents.ppo import PPOAgent
    from hilo_env.agents.registry import SHIPPED_PPO

    rules = resolve("standard")
    env = HiLoVectorEnv(rules, num_envs=4, seed=0)
    observations, _ = env.reset(seed=0)
    masks = env.action_masks().astype(np.int8)
    cls = first_legal(JaxPolicyAgent)
    agent = cls(rules, SHIPPED_PPO)
    assert agent.act_batch(observations, masks).tolist() == \
        [int(np.flatnonzero(m)[0]) for m in masks]
    assert cls.calls == len(masks)
    model = JaxPolicyAgent(rules, SHIPPED_PPO)
    assert model.act_batch(observations, masks).tolist() == \
        [model.act(o, m) for o, m in zip(observations, masks, strict=True)]
    assert JaxPolicyAgent.act is PPOAgent.act  # its act_batch is the fast path of ModelAgent
