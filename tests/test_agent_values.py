"""An agent's value: a trained policy's value head in the game's own score unit, Hi MiLo!'s
``value`` agent's chance of a team win, and none (``NoValue``) for the others; the web table's
watch mode shows it beside the move."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml

from hilo_env import agents, games
from hilo_env.agents.base import NoValue
from hilo_env.agents.convert import convert
from hilo_env.agents.jax_policy import JaxPolicyAgent, mlp
from hilo_env.agents.ppo import PPOAgent, trained_reward_scale
from hilo_env.agents.registry import SHIPPED_PPO
from hilo_env.training.config import TrainConfig, bundled_configs
from tests.test_convert import needs_train_extra, random_decisions, sb3_model_with_rules


def first_decision(game: str, rules, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    env = games.get(game).raw_env(rules)
    env.reset(seed=seed)
    seen = env.observe(env.agent_selection)
    return seen["observation"], seen["action_mask"]


def test_the_shipped_ppo_values_a_decision_in_chips_by_the_scale_it_was_trained_with():
    spec = games.get("hilo")
    rules = spec.resolve("standard")
    agent = agents.make("ppo", rules)
    observation, mask = first_decision("hilo", rules)
    scale = TrainConfig.from_yaml(bundled_configs()[SHIPPED_PPO.stem]).reward_scale
    read = observation if agent.columns is None else observation[agent.columns]
    head = mlp(agent.load()["value"], read.astype(np.float32))[0]
    value = agent.value(observation, mask)
    assert math.isfinite(value) and scale != 1.0
    assert value == pytest.approx(float(head) / scale, rel=1e-6)
    assert agent.value_label == "expected chips"


def test_a_run_s_config_beside_the_model_or_above_its_checkpoint_gives_its_reward_scale(tmp_path):
    (tmp_path / "checkpoints").mkdir()
    for model in ("model.npz", "checkpoints/model_100.zip"):
        (tmp_path / model).write_bytes(b"")
    assert trained_reward_scale(tmp_path / "model.npz") == 1.0
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"reward_scale": 0.25}))
    assert trained_reward_scale(tmp_path / "model.npz") == 0.25
    assert trained_reward_scale(tmp_path / "checkpoints" / "model_100.zip") == 0.25
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"seed": 1}))
    assert trained_reward_scale(tmp_path / "model.npz") == TrainConfig.reward_scale
    assert trained_reward_scale(tmp_path / "elsewhere.npz") == 1.0  # no such file


def test_an_sb3_model_and_its_conversion_give_the_same_value_in_the_game_s_unit(tmp_path):
    needs_train_extra()
    import torch

    rules, model, path = sb3_model_with_rules(tmp_path)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"reward_scale": 0.5}))
    sb3 = PPOAgent(rules, path)
    numpy = JaxPolicyAgent(rules, convert(path))
    for observation, mask in zip(*random_decisions(rules, count=5), strict=True):
        tensor, _ = model.policy.obs_to_tensor(observation[None])
        with torch.no_grad():
            raw = float(model.policy.predict_values(tensor)[0, 0])
        assert sb3.value(observation, mask) == pytest.approx(raw / 0.5, rel=1e-5)
        assert numpy.value(observation, mask) == pytest.approx(raw / 0.5, rel=1e-4, abs=1e-6)


def test_the_himilo_value_agent_gives_the_chance_of_its_best_action_without_changing_its_play():
    spec = games.get("himilo")
    rules = spec.resolve(spec.default_rules)
    asked, silent = (agents.make("value", rules, seed=5, game="himilo") for _ in range(2))
    env = spec.raw_env(rules)
    env.reset(seed=1)
    values = []
    while env.agent_selection and not (env.terminations[env.agent_selection]
                                       or env.truncations[env.agent_selection]):
        seen = env.observe(env.agent_selection)
        values.append(asked.value(seen["observation"], seen["action_mask"]))
        action = asked.act(seen["observation"], seen["action_mask"])
        assert action == silent.act(seen["observation"], seen["action_mask"])
        env.step(action)
    assert len(values) > 20 and all(0.0 <= v <= 1.0 for v in values)
    assert asked.value_label == "chance the team wins"


@pytest.mark.parametrize(("game", "name"), [("hilo", "random"), ("hilo", "heuristic"),
                                            ("lohi", "heuristic"), ("himilo", "team")])
def test_an_agent_without_a_value_says_so(game, name):
    spec = games.get(game)
    rules = spec.resolve(spec.default_rules)
    agent = agents.make(name, rules, game=game)
    with pytest.raises(NoValue, match=name):
        agent.value(*first_decision(game, rules))


def test_watching_a_value_bearing_agent_shows_its_value_beside_the_move():
    pytest.importorskip("starlette", reason="the web extra: pip install -e '.[web]'")
    pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the dev extra)")
    from starlette.testclient import TestClient

    from hilo_env.web.app import create_app
    from tests.test_web_defects import BASE, new, post

    client = TestClient(create_app(), base_url=BASE)
    for name, label in (("ppo", "expected chips"), ("random", None)):
        key, view = new(client, game="hilo", rules="standard", players=2, mode="watch",
                        seed=4, agents=name)
        thought = post(client, key, "advance", version=view["version"]).json()["thought"]
        assert thought["agent"] == name and thought["probabilities"]
        if label is None:
            assert "value" not in thought and "value_label" not in thought
        else:
            assert math.isfinite(thought["value"]) and thought["value_label"] == label
    key, view = new(client, game="himilo", players=4, mode="watch", seed=4, agents="value")
    thought = post(client, key, "advance", version=view["version"]).json()["thought"]
    assert thought["probabilities"] == []  # it cannot say a distribution, only its value
    assert 0.0 <= thought["value"] <= 1.0 and thought["value_label"] == "chance the team wins"
