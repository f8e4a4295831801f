"""Gymnasium's own checker on the single-agent views (issue 31, item 9): ``reset`` seeds
gymnasium's ``np_random`` (``super().reset(seed=seed)``), and every check of ``check_env``
passes.

``check_env`` steps with ``action_space.sample()``, blind to the action mask, and these envs
raise on an illegal action (as they must: a masked learner never sends one). So
:func:`check_masked_env` runs each check of ``check_env`` itself, in its order, and hands its
two steps a legal action: the first legal one at the state stepped, the same action that
``check_env``'s step-determinism check would sample (a scripted ``sample()``), as the
Stable-Baselines maintainers advise for masked envs (sb3-contrib issue 145)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils import env_checker

import hilo_env
from hilo_env import himilo_v0, lohi_v0
from hilo_env.envs.aec_learner import AECLearnerEnv
from hilo_env.envs.single_env import HiLoEnv

DETERMINISM_SEED = 123
"""The seed ``check_step_determinism`` resets with."""


class Scripted(spaces.Discrete):
    """A ``Discrete(n)`` whose ``sample()`` is one given action."""

    def __init__(self, n: int, action: int) -> None:
        super().__init__(n)
        self.action = action

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        return np.int64(self.action)


def learner_mask(env: Any) -> np.ndarray:
    """The learner's legal actions now (``HiLoEnv`` keeps them in its vector env)."""
    if isinstance(env, HiLoEnv):
        return env.vector.action_masks()[0]
    return env.action_masks()


def first_legal(env: Any) -> int:
    return int(np.flatnonzero(learner_mask(env))[0])


def check_masked_env(env: Any) -> None:
    """Every check of ``gymnasium.utils.env_checker.check_env`` but the render ones (these envs
    have no render mode), with legal actions where it samples blind; warnings are errors, but
    the one that the env has no ``gymnasium.make`` spec."""
    c = env_checker
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c.check_action_space(env.action_space)
        c.check_space_limit(env.action_space, "action")
        c.check_observation_space(env.observation_space)
        c.check_space_limit(env.observation_space, "observation")
        c.check_seed_deprecation(env)
        c.check_reset_return_info_deprecation(env)
        c.check_reset_return_type(env)
        c.check_reset_seed_determinism(env)
        c.check_reset_options(env)
        c.env_reset_passive_checker(env)
        c.env_step_passive_checker(env, first_legal(env))
        env.reset(seed=DETERMINISM_SEED)
        space = env.action_space
        env.action_space = Scripted(int(space.n), first_legal(env))
        try:
            c.check_step_determinism(env, seed=DETERMINISM_SEED)
        finally:
            env.action_space = space


class FirstLegal:
    """A deterministic opponent: the first legal action."""

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[0])


def test_reset_seeds_gymnasiums_generator() -> None:
    for env in (HiLoEnv(seed=0), AECLearnerEnv(lohi_v0.raw_env(), seed=0)):
        env.reset(seed=7)
        first = env.np_random.random()
        env.reset(seed=7)
        assert env.np_random.random() == first
        env_checker.check_reset_seed_determinism(env)


@pytest.mark.parametrize("mask", ["info", "obs"])
def test_the_single_game_view_passes_every_check(mask) -> None:
    check_masked_env(HiLoEnv("standard", seed=0, mask=mask))


@pytest.mark.parametrize("make", [lambda: hilo_env.raw_env("tiny"), lohi_v0.raw_env,
                                  himilo_v0.raw_env], ids=["hilo", "lohi", "himilo"])
def test_the_aec_learner_view_passes_every_check(make) -> None:
    """Seated at random (a seeded reset draws the same seat) against a deterministic
    opponent, so that a seeded reset replays the same episode."""
    check_masked_env(AECLearnerEnv(make(), opponent=FirstLegal(), seat="random", seed=0))
