"""docs/libraries.md's recipes run as written (each when its library is importable), and the
two views they stand on: ``mask_in_info`` (PettingZoo's API tests, AEC and parallel, for the
three games) and ``HiLoEnv`` (one game as a gymnasium.Env). The learning recipes (TorchRL's PPO,
Tianshou's self-play) must beat ``random``; they take most of the time with the libraries
(several rollouts each). About 10 s without the libraries."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import hilo_env
from hilo_env import agents, himilo_v0, lohi_v0
from hilo_env.envs.mask_in_info import MASK_INFO, mask_in_info
from hilo_env.envs.single_env import HiLoEnv

DOC = Path(__file__).resolve().parent.parent / "docs" / "libraries.md"
RECIPES = dict(re.findall(r"```python (\w+)\n(.*?)```", DOC.read_text(), re.DOTALL))
NEEDS = {"torchrl": ("torchrl",), "torchrl_ppo": ("torchrl",), "tianshou": ("tianshou",),
         "tianshou_selfplay": ("tianshou",), "pgx": ("pgx", "mctx"), "parallel": (),
         "rllib": ("ray",)}
"""Each recipe's libraries (none: PettingZoo alone)."""
LEARNERS = ("torchrl_ppo", "tianshou_selfplay")
"""The recipes that train a policy and score it against ``random``: ``mean, ci``."""


def test_every_recipe_is_known() -> None:
    assert set(RECIPES) == set(NEEDS)


@pytest.mark.parametrize("name", sorted(NEEDS))
def test_recipe_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    missing = [lib for lib in NEEDS[name] if importlib.util.find_spec(lib) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (not a dependency of hilo_env; "
                    f"pip install -e '.[libraries]' to run this recipe)")
    namespace: dict = {}
    exec(compile(RECIPES[name], f"docs/libraries.md ({name})", "exec"), namespace)
    assert capsys.readouterr().out or name in ("tianshou", "rllib")  # these build, not run
    if name in LEARNERS:  # beats random: its 95% CI above zero
        assert namespace["mean"] - namespace["ci"] > 0, (namespace["mean"], namespace["ci"])


GAMES = {"hilo": hilo_env.env, "lohi": lohi_v0.env, "himilo": himilo_v0.env}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_mask_in_info_passes_pettingzoo_api_tests(game: str) -> None:
    env = mask_in_info(GAMES[game]())
    api_test(env, num_cycles=100)
    parallel_api_test(turn_based_aec_to_parallel(mask_in_info(GAMES[game]())), num_cycles=100)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_mask_in_info_plays_legal_hands(game: str) -> None:
    """Box observations; the mask in infos, non-zero for the agent to act only; the infos
    underneath stay numbers only, whatever the parallel wrapper writes into its copies."""
    env = turn_based_aec_to_parallel(mask_in_info(GAMES[game]().unwrapped))
    rng = np.random.default_rng(0)
    for episode in range(3):
        observations, infos = env.reset(seed=episode)
        while env.agents:
            for agent, obs in observations.items():
                assert env.observation_space(agent).contains(obs)
            acting = [a for a in env.agents if infos[a][MASK_INFO].any()]
            assert acting == [env.unwrapped.agent_selection]
            actions = {a: int(rng.choice(np.flatnonzero(infos[a][MASK_INFO])))
                       if a in acting else 0 for a in env.agents}
            observations, _, _, _, infos = env.step(actions)
            for info in env.unwrapped.infos.values():
                assert all(type(v) in (int, float) for v in info.values())


@pytest.mark.parametrize("mask", ["info", "obs"])
def test_single_env(mask: str) -> None:
    """Legal play to many episodes' ends, the mask where asked, the learner's seat rotating,
    and reset() after an episode continuing rather than re-dealing."""
    env = HiLoEnv(opponents=agents.make("caller"), seed=3, mask=mask)
    rng = np.random.default_rng(0)
    obs, info = env.reset()
    seats, episodes = set(), 0
    while episodes < 8:
        legal = info["action_mask"] if mask == "info" else obs["mask"]
        assert env.observation_space.contains(obs)
        seats.add(int(env.vector.learner[0]))
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(
            legal))))
        assert not truncated and isinstance(reward, float)
        if terminated:
            episodes += 1
            again = env.reset()[0]
            assert np.array_equal(again if mask == "info" else again["obs"],
                                  obs if mask == "info" else obs["obs"])
    assert seats == {0, 1}
    with pytest.raises(ValueError, match="mask is one of"):
        HiLoEnv(mask="both")
