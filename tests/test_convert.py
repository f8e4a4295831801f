"""MaskablePPO models in NumPy (agents.convert): the shipped policies play on the core install as
their SB3 models did, a user's model converts, and a learner starts from a converted network."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hilo_env import agents, games
from hilo_env.agents.convert import convert, main, sb3_parameters, start_parameters
from hilo_env.agents.jax_policy import JaxPolicyAgent
from hilo_env.agents.ppo import PPOAgent, read_rules, rules_path, save_model
from hilo_env.agents.registry import MODELS, shipped_networks
from hilo_env.equation_hilo.rules import RuleSet
from tests.test_agents import untrained_model

RECORDED = Path(__file__).parent / "data" / "ppo_probabilities.npz"
"""What the shipped models played as sb3-contrib computed it (data/record_ppo_probabilities.py)."""
SHIPPED_NETWORKS = sorted(p for p in MODELS.glob("*.npz") if "value" not in p.name)


def needs_train_extra() -> None:
    for module in ("torch", "sb3_contrib"):
        pytest.importorskip(module, reason="needs the train extra (pip install -e '.[train]')")


def test_every_shipped_policy_is_a_numpy_network_with_a_recording():
    with np.load(RECORDED) as recorded:
        stems = {key.split(".")[0] for key in recorded.files}
    assert [p.stem for p in SHIPPED_NETWORKS] == sorted(stems)
    assert not list(MODELS.glob("*.zip"))  # nothing needs SB3's files: none is shipped
    for game in games.names():
        for name in shipped_networks(game):
            assert agents.registry.needs_extra(name, game) is None


@pytest.mark.parametrize("path", SHIPPED_NETWORKS, ids=lambda p: p.stem)
def test_a_shipped_policy_plays_the_probabilities_its_sb3_model_played(path):
    game, rules = read_rules(rules_path(path))
    bot = JaxPolicyAgent(rules, path, deterministic=False, game=game.name)
    with np.load(RECORDED) as recorded:
        observations, masks, expected = (recorded[f"{path.stem}.{key}"]
                                         for key in ("observations", "masks", "probabilities"))
    got = np.array([bot.action_probabilities(o, m)
                    for o, m in zip(observations, masks, strict=True)])
    np.testing.assert_allclose(got, expected, atol=2e-6, rtol=1e-4)
    argmax = JaxPolicyAgent(rules, path, game=game.name)
    assert (argmax.act_batch(observations, masks) == expected.argmax(axis=1)).mean() >= 0.98


def test_the_shipped_ppo_agents_play_without_torch():
    code = ("import sys\nfrom hilo_env import agents, games\n"
            "for game, players in (('hilo', 2), ('hilo', 4), ('lohi', 2), ('himilo', 4)):\n"
            "    rules = games.get(game).rules(None, players)\n"
            "    bot = agents.make('ppo', rules, game=game)\n"
            "    assert type(bot).__name__ == 'JaxPolicyAgent', bot\n"
            "assert 'torch' not in sys.modules and 'sb3_contrib' not in sys.modules\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]


def sb3_model_with_rules(tmp_path, seed=0):
    rules = RuleSet.preset("standard")
    env = games.get("hilo").raw_env(rules)
    first = env.possible_agents[0]
    size = env.observation_space(first)["observation"].shape[0]
    model = untrained_model(size, env.action_space(first).n, seed=seed)
    path = save_model(model, tmp_path / "model.zip", rules)
    return rules, model, path


def random_decisions(rules, count=40, seed=0):
    env = games.get("hilo").raw_env(rules)
    first = env.possible_agents[0]
    rng = np.random.default_rng(seed)
    size = env.observation_space(first)["observation"].shape[0]
    masks = (rng.random((count, env.action_space(first).n)) < 0.3).astype(np.int8)
    masks[:, 0] = 1
    return rng.random((count, size)).astype(np.float32) * 2, masks


def test_a_converted_model_plays_the_probabilities_of_its_sb3_policy(tmp_path):
    needs_train_extra()
    rules, _, path = sb3_model_with_rules(tmp_path)
    out = convert(path)
    assert out == tmp_path / "model.npz" and rules_path(out).is_file()
    sb3 = PPOAgent(rules, path, deterministic=False)
    numpy = agents.make(f"ppo:{out}", rules)
    assert isinstance(numpy, JaxPolicyAgent) and numpy.name == f"ppo:{out}"
    assert agents.registry.needs_extra(f"ppo:{out}") is None
    numpy.deterministic = False
    for obs, mask in zip(*random_decisions(rules), strict=True):
        np.testing.assert_allclose(numpy.action_probabilities(obs, mask),
                                   sb3.action_probabilities(obs, mask), atol=2e-6, rtol=1e-4)


def test_a_learner_starts_from_a_converted_network_as_from_its_model(tmp_path):
    needs_train_extra()
    rules, model, path = sb3_model_with_rules(tmp_path, seed=1)
    params = start_parameters(rules, convert(path, tmp_path / "net.npz"))
    learner = untrained_model(model.observation_space.shape[0], model.action_space.n, seed=2)
    learner.set_parameters(params, exact_match=False)
    for name, tensor in model.policy.state_dict().items():
        assert np.array_equal(learner.policy.state_dict()[name].numpy(), tensor.numpy()), name
    assert set(sb3_parameters(JaxPolicyAgent(rules, tmp_path / "net.npz").load())["policy"]) \
        == set(model.policy.state_dict())


def test_convert_refuses_a_model_of_another_activation(tmp_path):
    needs_train_extra()
    import torch
    from sb3_contrib import MaskablePPO

    _, model, _ = sb3_model_with_rules(tmp_path)
    relu = MaskablePPO("MlpPolicy", model.env, policy_kwargs={"activation_fn": torch.nn.ReLU})
    relu.save(tmp_path / "relu.zip")
    with pytest.raises(ValueError, match="its activation is ReLU, not Tanh"):
        convert(tmp_path / "relu.zip")
    assert not (tmp_path / "relu.npz").exists()


def test_the_convert_command_names_the_train_extra_without_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if not installed
    assert main([str(tmp_path / "model.zip")]) == 2
    assert "needs the training extra" in capsys.readouterr().err
    assert main([str(tmp_path / "model.zip"), "-o", str(tmp_path / "x.zip")]) == 2
    assert "an .npz file" in capsys.readouterr().err
