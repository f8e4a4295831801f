"""Infos hold numbers only, with the same keys at every step, in every game's AEC env:
libraries such as Tianshou and TorchRL store them in arrays (texts sit behind methods)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from hilo_env import hilo_v0, himilo_v0, lohi_v0

ENVS: dict[str, Callable] = {
    "hilo": lambda: hilo_v0.raw_env(num_players=3, hands_per_episode=5),
    "lohi": lambda: lohi_v0.raw_env(num_players=3),
    "himilo": lambda: himilo_v0.raw_env(num_players=4, shaping="constraints"),
}


@pytest.mark.parametrize("game", sorted(ENVS))
def test_infos_are_numbers_with_fixed_keys(game: str) -> None:
    env = ENVS[game]()
    rng = np.random.default_rng(0)
    for episode in range(3):
        env.reset(seed=episode)
        keys = {a: set(info) for a, info in env.infos.items()}
        while env.agents:
            for agent, info in env.infos.items():
                assert set(info) == keys[agent], (game, agent, info)
                assert all(type(v) in (int, float) for v in info.values()), (game, info)
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(
                obs["action_mask"])))
            env.step(action)
