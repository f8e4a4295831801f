"""``hilo population``: the PSRO-style loop on a budget of a few rollouts: each agent starts from
the last one's weights, trains against the baselines plus every past agent and response (each
response listed ``response_weight`` times), and its best response's bound lands in the curve;
bad input fails before any folder. About 20 s."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import yaml

from hilo_env import agents
from hilo_env.cli import main

pytest.importorskip("sb3_contrib")

from hilo_env.training.config import TrainConfig  # after the skip: needs the extra
from hilo_env.training.population import population

SMALL = {"num_envs": 16, "n_steps": 16, "batch_size": 128}
"""PPO settings for runs of a few hundred decisions (updates every 256)."""


def small_config(tmp_path: Path) -> TrainConfig:
    return TrainConfig.from_yaml("ppo_population", output_dir=str(tmp_path), name="pop",
                                 total_timesteps=256, eval_hands=10, **SMALL)


@pytest.mark.slow
def test_the_loop_grows_the_population(tmp_path: Path) -> None:
    heard = []
    result = population(small_config(tmp_path), start="ppo", iterations=2,
                        response_decisions=256, response_weight=2, hands=10,
                        response_settings=SMALL, on_iteration=heard.append)
    assert heard == result.iterations
    assert [it.index for it in heard] == [0, 1, 2]
    assert [it.decisions for it in heard] == [0, 256, 512]
    run = tmp_path / "pop"
    first, second = (f"ppo:{run / f'agent_{i}' / 'model.zip'}" for i in (1, 2))
    assert [it.agent for it in heard] == ["ppo", first, second]
    assert [it.response for it in heard] == [
        f"ppo:{run / f'response_{i}' / 'model.zip'}" for i in range(3)]
    # the second agent met the baselines, both earlier agents and both responses, twice each
    config = yaml.safe_load((run / "agent_2" / "config.yaml").read_text())
    base = small_config(tmp_path).baselines
    assert config["baselines"] == [*base, "ppo", *[heard[0].response] * 2,
                                   first, *[heard[1].response] * 2]
    assert config["init_model"] == first[len("ppo:"):]
    with open(run / "exploitability.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["decisions"]) for r in rows] == [0, 256, 512]
    assert [float(r["bound"]) for r in rows] == pytest.approx([it.bound.mean for it in heard],
                                                              abs=1e-4)
    assert (run / "exploitability.png").is_file() and (run / "population.yaml").is_file()
    # the last agent is the run's model, and plays legal actions as a registered agent
    for name in ("model.zip", "model.rules.yaml", "model.observation.yaml"):
        assert (run / name).read_bytes() == (run / "agent_2" / name).read_bytes()
    rules = small_config(tmp_path).rule_set()
    agent = agents.make(f"ppo:{result.model_path}", rules)
    from hilo_env.envs.vector_env import HiLoVectorEnv

    env = HiLoVectorEnv(rules, 4, seed=0)
    obs, _ = env.reset(seed=0)
    masks = env.action_masks()
    actions = agent.act_batch(obs, masks)
    assert masks[np.arange(4), actions].all()
    assert "Exploitability over the population's training" in result.table()


@pytest.mark.parametrize("kwargs, message", [
    ({"iterations": 0}, "iterations"), ({"response_decisions": 0}, "response_decisions"),
    ({"response_weight": True}, "response_weight"), ({"hands": 0}, "hands"),
    ({"start": "heuristic"}, "MaskablePPO agent"),
])
def test_bad_input_fails_before_any_folder(kwargs: dict, message: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=message):
        population(small_config(tmp_path), **kwargs)
    assert not any(tmp_path.iterdir())


def test_cli_refuses_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["population", "ppo_population", "--iterations", "0"]) == 2
    assert "--iterations must be at least 1" in capsys.readouterr().err
    assert main(["population", "ppo_population", "--start", "caller",
                 "--output-dir", str(tmp_path)]) == 2
    assert "MaskablePPO agent" in capsys.readouterr().err
    assert main(["population", "no_such_config"]) == 2
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
def test_the_loop_runs_on_the_jax_trainer(tmp_path: Path) -> None:
    """backend jax: the responses and the next agent are JAX-trained ``jax:`` policies that
    start from the last agent's weights (a shipped MaskablePPO model's, converted, at first),
    the population plays inside the compiled program, and the last agent plays by name."""
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    config = TrainConfig.from_yaml("jax_smoke", output_dir=str(tmp_path), name="pop",
                                   net_arch=[256, 256], total_timesteps=1024,
                                   baselines=["random", "caller"], snapshot_every=0)
    result = population(config, start="ppo_standard", iterations=1, response_decisions=1024,
                        response_weight=1, hands=10)
    run = tmp_path / "pop"
    assert [it.agent for it in result.iterations] == [
        "ppo_standard", f"jax:{run / 'agent_1' / 'model.npz'}"]
    assert [it.response for it in result.iterations] == [
        f"jax:{run / f'response_{i}' / 'model.npz'}" for i in range(2)]
    trained = yaml.safe_load((run / "agent_1" / "config.yaml").read_text())
    assert trained["backend"] == "jax"
    assert trained["baselines"] == ["random", "caller", "ppo_standard",
                                    result.iterations[0].response]
    assert result.model_path == run / "model.npz"
    assert (run / "model.npz").read_bytes() == (run / "agent_1" / "model.npz").read_bytes()
    rules = config.rule_set()
    agent = agents.make(f"jax:{result.model_path}", rules)
    from hilo_env.envs.vector_env import HiLoVectorEnv

    env = HiLoVectorEnv(rules, 4, seed=0)
    obs, _ = env.reset(seed=0)
    masks = env.action_masks()
    assert masks[np.arange(4), agent.act_batch(obs, masks)].all()
    with pytest.raises(ValueError, match="cannot start from 'jax:"):
        population(small_config(tmp_path / "sb3"), start=result.iterations[1].agent)
    assert not (tmp_path / "sb3").exists()  # refused before any folder
