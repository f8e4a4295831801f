"""Each seat's rewards on its own transitions, through every multi-agent route of
docs/libraries.md, over the three games: credited rewards sum to the seat's env total, and none
lands on a step where the seat did not act; each seat's own rows end where its hand ends (its
end flag on its last decision) and look ahead to its own next decision. Each library's test
is skipped, naming it, where it is not installed (the ``libraries`` extra). About 20 s with
the libraries."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import hilo_env
from hilo_env import himilo_v0, lohi_v0
from hilo_env.envs.credit import NOBODY, SeatTransitions, credit_steps
from hilo_env.envs.mask_in_info import MASK_INFO, mask_in_info

RAW = {"hilo": hilo_env.raw_env, "lohi": lambda: lohi_v0.raw_env("single_round"),
       "himilo": himilo_v0.raw_env}
"""Each game's raw env, with rules short enough for many episodes (lo-hi: one round)."""


def needs(library: str) -> None:
    if importlib.util.find_spec(library) is None:
        pytest.skip(f"{library} is not installed (pip install -e '.[libraries]')")


def test_credit_steps_moves_rewards_to_each_seats_last_decision() -> None:
    """Two episodes: seat 1's chips of a hand seat 0 ends go to seat 1's last decision;
    seat 1's reward before its first decision of the second episode is unclaimed."""
    actors = [0, 1, 0, NOBODY, 0]
    rewards = [[0, 0], [0, 0], [5, -5], [0, 0], [-1, 1]]
    ends = [False, False, True, False, True]
    credit = credit_steps(actors, rewards, ends)
    assert credit.rewards.tolist() == [[0, 0], [0, -5], [5, 0], [0, 0], [-1, 0]]
    assert credit.unclaimed.tolist() == [0, 1]
    with pytest.raises(ValueError, match="actor is a seat"):
        credit_steps([2], [[1, 0]], [True])
    with pytest.raises(ValueError, match="rewards"):
        credit_steps([0, 1], [[1, 0]], [True])


def test_credit_steps_ends_each_seats_transitions_on_its_last_decision() -> None:
    """Seat 1's last decision of the first episode ends its transitions though seat 0 moved
    after it; the episode cut off by the end of the recording is truncated."""
    credit = credit_steps([0, 1, 0, 0, 1], np.zeros((5, 2)), [False, False, True, False, False])
    assert credit.terminated.tolist() == [[False, False], [False, True], [True, False],
                                          [False, False], [False, False]]
    assert credit.truncated.tolist() == [[False, False], [False, False], [False, False],
                                         [True, False], [False, True]]
    assert credit.closes.tolist() == [[1, NOBODY], [NOBODY, 2], [2, NOBODY], [4, NOBODY],
                                      [NOBODY, 4]]


def last_decisions(acted: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """(T, seats) bool: each seat's last decision before each episode end (and before the end
    of the recording), from the recorded steps alone."""
    last = np.zeros_like(acted)
    seen = np.zeros(acted.shape[1], dtype=bool)  # a later decision in the same episode
    for t in range(len(acted) - 1, -1, -1):
        if ends[t]:
            seen[:] = False
        last[t] = acted[t] & ~seen
        seen |= acted[t]
    return last


def next_decisions(acted: np.ndarray, ends: np.ndarray, seat: int) -> dict[int, int]:
    """A seat's decisions that are not its last of their episode: the step of its next."""
    following, pending = {}, None
    for t in range(len(acted)):
        if acted[t, seat]:
            if pending is not None:
                following[pending] = t
            pending = t
        if ends[t]:
            pending = None
    return following


def open_ends(flags: np.ndarray, last: np.ndarray) -> int:
    """Seats' last decisions of an episode whose own end flag is False (the issue's count)."""
    return int((last & ~flags).sum())


def assert_credited(credited: np.ndarray, acted: np.ndarray, totals: np.ndarray,
                    unclaimed: np.ndarray) -> None:
    """Credited rewards (T, seats) only where the seat acted, summing (with what no decision
    of the seat could take) to the env totals (seats,)."""
    assert not credited[~acted].any()
    np.testing.assert_allclose(credited.sum(axis=0) + unclaimed, totals, atol=1e-6)


@pytest.mark.parametrize("game", sorted(RAW))
def test_torchrl_rollout_ends_each_seats_rows_with_its_hand(game: str) -> None:
    """Rewards on the seat's own decisions; its own done, terminated and truncated flags on
    its last decision of each hand (TorchRL leaves them False where another seat's move ended
    the hand); each earlier decision's next observation is its own at its next decision."""
    needs("torchrl")
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    from hilo_env.envs.credit import credit_torchrl
    env = PettingZooWrapper(env=RAW[game](), use_mask=True, categorical_actions=True, seed=0)
    rollout = env.rollout(400, break_when_any_done=False)
    names = [(g, i) for g, agents in env.group_map.items() for i in range(len(agents))]

    def column(*key: str) -> np.ndarray:
        return np.stack([rollout[key[0], g, *key[1:]][:, i].numpy().ravel() if key[0] == "next"
                         else rollout[g, *key][:, i].numpy().ravel() for g, i in names], axis=1)

    acted = column("mask")
    ends = rollout["next", "done"].numpy().ravel()
    last = last_decisions(acted, ends)
    before = column("next", "reward")
    assert before[~acted].any()  # TorchRL's own placement: rewards where the seat did not act
    assert open_ends(column("next", "done"), last) > 0  # and its own flags
    credit = credit_torchrl(rollout, env.group_map)
    after = column("next", "reward")
    np.testing.assert_array_equal(after, credit.rewards)
    assert_credited(after, acted, before.sum(axis=0), credit.unclaimed)
    cut = last & (np.arange(len(ends)) > np.flatnonzero(ends).max())[:, None]
    for key, expected in (("done", last), ("terminated", last & ~cut), ("truncated", cut)):
        flags = column("next", key)
        assert open_ends(flags, expected) == 0, key
        assert not (flags & acted & ~expected).any(), key  # nor ends a transition early
    for seat, (g, i) in enumerate(names):
        for t, d in next_decisions(acted, ends, seat).items():
            assert torch.equal(rollout["next", g, "observation", "observation"][t, i],
                               rollout[g, "observation", "observation"][d, i])
    again = rollout.clone()
    credit_torchrl(again, env.group_map)
    assert (again == rollout).all()


@pytest.mark.parametrize("size", [20_000, 100])
@pytest.mark.parametrize("game", sorted(RAW))
def test_tianshou_buffer_ends_each_seats_rows_with_its_hand(game: str, size: int) -> None:
    """Rows in play order, in a buffer large enough and in one that wrapped around (its
    oldest episode cut: what came before a seat's first row there is unclaimed): rewards on
    the seat's own rows, its ``terminated`` on its last row of each hand (Tianshou sets it on
    the episode's last row only), each earlier row's ``obs_next`` its own at its next row;
    ``done`` stays the episodes' ends."""
    needs("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    from hilo_env.envs.credit import credit_tianshou
    env = PettingZooEnv(RAW[game]())
    agents = list(env.agents)
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)
                    for _ in agents], env=env)
    envs = DummyVectorEnv([lambda: PettingZooEnv(RAW[game]()) for _ in range(2)])
    buffer = VectorReplayBuffer(size, 2)
    collector = Collector(algorithm, envs, buffer)
    collector.reset()
    collector.collect(n_episode=20)
    rows = buffer.sample_indices(0)
    actors = np.array([agents.index(str(a)) for a in buffer.obs.agent_id[rows]])
    acted = actors[:, None] == np.arange(len(agents))
    done = buffer.done[rows].copy()
    last = last_decisions(acted, done).any(axis=1)  # the row's own seat's last
    before = buffer.rew[rows].copy()
    assert before[~acted].any()  # Tianshou's own placement: on the mover's row
    assert open_ends(buffer.terminated[rows], last) > 0  # and its end flag
    credit = credit_tianshou(buffer, agents)
    assert_credited(buffer.rew[rows], acted, before.sum(axis=0), credit.unclaimed)
    ends = buffer.terminated[rows] | buffer.truncated[rows]
    assert open_ends(ends, last) == 0
    assert not (ends & ~last).any()
    np.testing.assert_array_equal(buffer.done[rows], done)
    following = {t: d for seat in range(len(agents))
                 for t, d in next_decisions(acted, done, seat).items()}
    assert following
    for t, d in following.items():
        np.testing.assert_array_equal(buffer.obs_next.obs[rows[t]], buffer.obs.obs[rows[d]])
        assert buffer.obs_next.agent_id[rows[t]] == buffer.obs.agent_id[rows[t]]
    again = buffer[rows]
    credit_tianshou(buffer, agents)
    for key in ("rew", "terminated", "truncated", "done"):
        np.testing.assert_array_equal(buffer[rows][key], again[key], key)
    np.testing.assert_array_equal(buffer[rows].obs_next.obs, again.obs_next.obs)


def play_parallel(game: str, episodes: int) -> tuple[list, dict, dict, dict]:
    """The parallel recipe of docs/libraries.md: random legal play, each acting seat's
    transitions through SeatTransitions; returns them, each seat's env total, its decisions
    and its unclaimed rewards."""
    env = turn_based_aec_to_parallel(mask_in_info(RAW[game]()))
    rng = np.random.default_rng(0)
    memory: list = []
    totals = dict.fromkeys(env.possible_agents, 0.0)
    decisions = dict.fromkeys(env.possible_agents, 0)
    unclaimed = dict.fromkeys(env.possible_agents, 0.0)
    for episode in range(episodes):
        observations, infos = env.reset(seed=episode)
        seats = SeatTransitions()
        while env.agents:
            actor = next(a for a in env.agents if infos[a][MASK_INFO].any())
            action = int(rng.choice(np.flatnonzero(infos[actor][MASK_INFO])))
            decisions[actor] += 1
            memory.append(seats.decide(actor, observations[actor], action))
            observations, rewards, terminations, truncations, infos = env.step(
                {a: action if a == actor else 0 for a in env.agents})
            seats.receive(rewards)
            for agent, reward in rewards.items():
                totals[agent] += reward
            for agent in terminations:
                if terminations[agent] or truncations[agent]:
                    memory.append(seats.finish(agent, observations.get(agent),
                                               terminations[agent], truncations[agent]))
        for agent, reward in seats.unclaimed.items():
            unclaimed[agent] += reward
    return [t for t in memory if t is not None], totals, decisions, unclaimed


@pytest.mark.parametrize("game", sorted(RAW))
def test_parallel_recipe(game: str) -> None:
    """AgileRL's multi-agent loop (agilerl/training/train_multi_agent_off_policy.py) stores
    every agent's (obs, action, reward, next_obs, done) at every step of the parallel view;
    the recipe stores acting seats' transitions only, each with what followed its decision."""
    memory, totals, decisions, unclaimed = play_parallel(game, 30)
    for agent in totals:
        own = [t for t in memory if t.agent == agent]
        assert len(own) == decisions[agent]
        assert sum(t.reward for t in own) + unclaimed[agent] == pytest.approx(totals[agent])
    assert all(t.next_observation is not None or t.truncated for t in memory)
    assert sum(t.terminated for t in memory) > 0


@pytest.mark.parametrize("route", ["project", "own"])
@pytest.mark.parametrize("game", sorted(RAW))
def test_rllib_episode(game: str, route: str) -> None:
    """RLlib needs no credit, through the project's TurnBasedRLlibEnv or RLlib's own
    PettingZooEnv: its episode adds a reward given between an agent's observations to that
    agent's pending transition."""
    needs("ray")
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from hilo_env.agents.rllib import MASK_KEY
    from hilo_env.envs.rllib_env import TurnBasedRLlibEnv, rllib_observations
    if route == "project":
        env = TurnBasedRLlibEnv(RAW[game]())
        aec = env.aec
    else:
        env = PettingZooEnv(rllib_observations(RAW[game]()))
        aec = env.env
    rng = np.random.default_rng(0)
    for seed in range(15):
        obs, info = env.reset(seed=seed)
        episode = MultiAgentEpisode(observations=[obs], infos=[info],
                                    observation_space=env.observation_spaces,
                                    action_space=env.action_spaces)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        decisions = dict.fromkeys(env.possible_agents, 0)
        while not episode.is_done:
            agent = aec.agent_selection
            decisions[agent] += 1
            action = int(rng.choice(np.flatnonzero(obs[agent][MASK_KEY])))
            obs, rewards, term, trunc, infos = env.step({agent: action})
            for a, r in rewards.items():
                totals[a] += r
            episode.add_env_step(obs, {agent: action}, rewards, infos, terminateds=term,
                                 truncateds=trunc)
        for agent, single in episode.agent_episodes.items():
            assert len(single) == decisions[agent]
            assert sum(single.get_rewards()) == pytest.approx(totals[agent])
