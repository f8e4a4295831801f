"""Library idioms that act without the mask, on the three games: ``illegal_action="lose"``
(PettingZoo's classic convention) lets gymnasium's ``check_env``, PettingZoo's API test,
Tianshou's ``collect(random=True)`` and RLlib's env checker run; the default stays strict and
its error names the option. Libraries absent are skipped, named. About 15 s."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import hilo_env
from hilo_env import agents, himilo_v0, lohi_v0
from hilo_env.envs.aec_learner import AECLearnerEnv
from hilo_env.envs.card_game_env import ILLEGAL_PENALTY
from hilo_env.envs.single_env import HiLoEnv
from tests.test_misuse_gym import FirstLegal

RAW = {"hilo": hilo_env.raw_env, "lohi": lohi_v0.raw_env, "himilo": himilo_v0.raw_env}


def illegal(env) -> int:
    """An action id the agent to act may not play now."""
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])


@pytest.mark.parametrize("game", sorted(RAW))
def test_lose_ends_the_episode_with_the_penalty(game: str) -> None:
    env = RAW[game](illegal_action="lose")
    env.reset(seed=1)
    offender = env.agent_selection
    env.step(illegal(env))
    assert all(env.terminations.values())
    assert env.rewards == {a: ILLEGAL_PENALTY if a == offender else 0.0 for a in env.agents}
    assert not any(env.observe(a)["action_mask"].any() for a in env.agents)
    while env.agents:
        assert env.last()[2]
        env.step(None)
    env.reset(seed=2)  # and the next episode plays as ever
    assert env.observe(env.agent_selection)["action_mask"].any()


@pytest.mark.parametrize("game", sorted(RAW))
def test_raise_is_the_default_and_names_the_option(game: str) -> None:
    env = RAW[game]()
    env.reset(seed=1)
    with pytest.raises(ValueError, match="illegal_action='lose'"):
        env.step(illegal(env))
    assert not any(env.terminations.values())
    with pytest.raises(ValueError, match="illegal_action is one of"):
        RAW[game](illegal_action="ignore")
    env = RAW[game](illegal_action="lose")
    env.reset(seed=1)
    with pytest.raises(TypeError, match="integer action id"):
        env.step(1.5)


@pytest.mark.parametrize("game", sorted(RAW))
def test_pettingzoo_api_test_with_lose(game: str) -> None:
    api_test(RAW[game](illegal_action="lose"), num_cycles=50)


@pytest.mark.parametrize("game", sorted(RAW))
def test_check_env_samples_blind_with_lose(game: str) -> None:
    """gymnasium's check_env as it is (its steps sample the action space, legal or not),
    against a deterministic opponent so that a seeded reset replays the same episode."""
    env = RAW[game](illegal_action="lose")
    for seed in range(5):
        check_env(AECLearnerEnv(env, opponent=FirstLegal(), seat="random", seed=seed),
                  skip_render_check=True)
        if game == "hilo":
            check_env(HiLoEnv(seed=seed, illegal_action="lose"), skip_render_check=True)


def test_hilo_env_lose_deals_the_next_episode() -> None:
    env = HiLoEnv(opponents=agents.make("caller"), seed=0, illegal_action="lose")
    _, info = env.reset()
    wrong = int(np.flatnonzero(~info["action_mask"])[0])
    _, reward, terminated, truncated, info = env.step(wrong)
    assert (reward, terminated, truncated) == (ILLEGAL_PENALTY, True, False)
    assert info["action_mask"].any()
    with pytest.raises(ValueError, match="illegal_action is one of"):
        HiLoEnv(illegal_action=None)


def test_tianshou_random_warm_up() -> None:
    if importlib.util.find_spec("tianshou") is None:
        pytest.skip("tianshou is not installed (pip install -e '.[libraries]')")
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.utils.net.common import Net

    envs = DummyVectorEnv([lambda i=i: HiLoEnv(opponents=agents.make("caller"), seed=i,
                                               mask="obs", illegal_action="lose")
                           for i in range(2)])
    space = envs.observation_space[0]
    policy = DiscreteQLearningPolicy(
        model=Net(state_shape=space["obs"].shape, action_shape=int(envs.action_space[0].n)),
        action_space=envs.action_space[0])
    collector = Collector(policy, envs, VectorReplayBuffer(2000, 2))
    collector.reset()
    stats = collector.collect(n_step=300, random=True)
    assert stats.n_collected_steps == 300 and stats.n_collected_episodes > 0


@pytest.mark.parametrize("game", sorted(RAW))
def test_rllib_env_checker(game: str) -> None:
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed (pip install -e '.[rllib]')")
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from hilo_env.envs.rllib_env import RLlibHiLoEnv, TurnBasedRLlibEnv
    env = TurnBasedRLlibEnv(RAW[game](illegal_action="lose"))
    for _ in range(5):
        check_multiagent_environments(env)
    if game == "hilo":
        check_multiagent_environments(RLlibHiLoEnv({"illegal_action": "lose"}))


OWN_ROUTE = """
import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

import hilo_env
from hilo_env.envs.rllib_env import rllib_observations

register_env("hilo_own_route", lambda _: PettingZooEnv(rllib_observations(hilo_env.env())))
config = (PPOConfig().environment("hilo_own_route")
          .multi_agent(policies={"shared"}, policy_mapping_fn=lambda *a, **k: "shared")
          .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule))
          .env_runners(num_env_runners=0)
          .training(train_batch_size=256, minibatch_size=64, num_epochs=1))
ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
try:
    algo = config.build_algo()
    result = algo.train()
    algo.stop()
finally:
    ray.shutdown()
print(result["env_runners"]["num_env_steps_sampled_lifetime"])
"""
"""RLlib's own route, in a fresh Python: Ray starts its processes by forking, which JAX
(imported by other tests of the same run) warns of in the process that imported it."""


@pytest.mark.slow
def test_rllib_own_route_trains() -> None:
    """RLlib's own PettingZoo route and its action-masking module, as its examples write them,
    on the AEC env under rllib_observations: one PPO iteration (about 20 s), in its own
    process."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed (pip install -e '.[rllib]')")
    run = subprocess.run([sys.executable, "-c", OWN_ROUTE], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert float(run.stdout.split()[-1]) >= 256
