"""The overlapped training loop (``collectors``, ``training.overlap``; ``update_precision``):
it trains, snapshots reach the collector processes, ``train`` stops and evaluates as the
serial loop does, a collector's failure is raised in the learner, bad values are refused, and
no process is left behind. Each test starts collector processes (a few seconds each)."""

from __future__ import annotations

import csv
import dataclasses
import multiprocessing
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from stable_baselines3.common.callbacks import CallbackList  # noqa: E402

from hilo_env.agents.ppo import save_model  # noqa: E402
from hilo_env.training.config import TrainConfig  # noqa: E402
from hilo_env.training.selfplay import (  # noqa: E402
    add_snapshot,
    make_learner,
    train,
    unchecked_distributions,
)

TINY = TrainConfig(num_envs=8, n_steps=8, batch_size=32, n_epochs=2, net_arch=[16],
                   baselines=["random", "caller"], seed=5, collectors=2, eval_hands=20)
ROLLOUT = TINY.num_envs * TINY.n_steps


def no_collectors_left() -> bool:
    return not [p for p in multiprocessing.active_children()
                if p.name.startswith("hilo-collector")]


def test_the_overlapped_loop_trains_and_snapshots_reach_the_collectors(tmp_path: Path) -> None:
    config = dataclasses.replace(TINY, output_dir=str(tmp_path))
    model, env, pool = make_learner(config, config.rule_set())
    try:
        before = [p.detach().clone() for p in model.policy.parameters()]
        with unchecked_distributions():
            model.learn(total_timesteps=3 * ROLLOUT)
        assert model.num_timesteps == 3 * ROLLOUT
        assert not all(torch.equal(a, p) for a, p in zip(before, model.policy.parameters(),
                                                         strict=True))
        buffer = model.rollout_buffer
        assert buffer.full and torch.isfinite(torch.as_tensor(buffer.log_probs)).all()
        assert env.requested  # the next rollout is played while the learner is idle here
        assert env.opponents == [["random", "caller"]] * 2
        assert not model.autocast_updates  # float32 unless update_precision says bfloat16

        path = tmp_path / "snapshot_1.zip"
        save_model(model, path, config.rule_set())
        add_snapshot(config, env, pool, path)
        with unchecked_distributions():  # the rollout under way, then one with the snapshot
            model.learn(total_timesteps=2 * ROLLOUT, reset_num_timesteps=False)
        assert all("snapshot_1" in names for names in env.opponents)
    finally:
        env.close()
    assert not any(p.is_alive() for p in env.processes)
    assert no_collectors_left()


def test_the_update_is_taken_against_the_current_weights(tmp_path: Path) -> None:
    """Decoupled PPO: the buffer's log-probabilities are the learner's weights' at the
    update's start, and each advantage is GAE's times the importance weight of those
    weights over the ones that played (SB3's returns are GAE's plus the values)."""
    config = dataclasses.replace(TINY, output_dir=str(tmp_path), collectors=1)
    model, env, _ = make_learner(config, config.rule_set())
    try:
        with unchecked_distributions():
            model.learn(total_timesteps=2 * ROLLOUT)  # weights moved since the rollout played
            arrived = []
            receive = env.receive
            env.receive = lambda: arrived.append(receive()) or arrived[-1]
            callback = CallbackList([])
            callback.init_callback(model)
            buffer = model.rollout_buffer
            assert model.collect_rollouts(env, callback, buffer, config.n_steps)
            with torch.no_grad():
                _, log_probs, _ = model.policy.evaluate_actions(
                    torch.as_tensor(buffer.observations.reshape(-1, buffer.obs_shape[0])),
                    torch.as_tensor(buffer.actions.reshape(-1)),
                    action_masks=buffer.action_masks.reshape(-1, buffer.action_masks.shape[-1]))
    finally:
        env.close()
    np.testing.assert_allclose(buffer.log_probs.reshape(-1), log_probs.numpy(), rtol=1e-5,
                               atol=1e-6)
    behaviour = arrived[0]["log_probs"]
    assert not np.allclose(buffer.log_probs, behaviour)  # one update of lag
    weights = np.exp(buffer.log_probs - behaviour)
    np.testing.assert_allclose(buffer.advantages, (buffer.returns - buffer.values) * weights,
                               rtol=1e-4, atol=1e-5)


def test_collect_plays_and_scores_as_sb3s_distribution_does() -> None:
    """``collect`` skips sb3-contrib's distribution objects: the same log-probabilities of
    the actions it played, and the same first draw from torch's random state."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from hilo_env.training.overlap import collect
    from hilo_env.training.selfplay import OpponentPool, learner_env

    rules = TINY.rule_set()
    env = learner_env(rules, 8, OpponentPool(TINY, rules).baselines, 3)
    policy = MaskableActorCriticPolicy(env.single_observation_space, env.single_action_space,
                                       lambda _: 0.0, net_arch=[16])
    observations, _ = env.reset(seed=3)
    first_masks = env.action_masks()
    torch.manual_seed(4)
    rollout = collect(env, policy, 6, 1.0, observations, np.ones(8, bool))
    torch.manual_seed(4)
    with torch.no_grad():
        first = policy.get_distribution(torch.as_tensor(observations),
                                        action_masks=first_masks).get_actions()
        dist = policy.get_distribution(
            torch.as_tensor(rollout["observations"].reshape(48, -1)),
            action_masks=rollout["masks"].reshape(48, -1))
        log_probs = dist.log_prob(torch.as_tensor(rollout["actions"].reshape(-1)))
    np.testing.assert_array_equal(rollout["actions"][0], first.numpy())
    np.testing.assert_array_equal(rollout["log_probs"].reshape(-1), log_probs.numpy())


def test_bfloat16_gradient_steps_run_on_the_weights_they_update(tmp_path: Path) -> None:
    """autocast caches its bfloat16 copies of the weights while its context lasts: the
    learner's context must not, or every step of an update runs on its first weights."""
    config = dataclasses.replace(TINY, output_dir=str(tmp_path), collectors=1,
                                 update_precision="bfloat16")
    model, env, _ = make_learner(config, config.rule_set())
    env.close()
    observations = torch.as_tensor(np.random.default_rng(0).random(
        (4, model.observation_space.shape[0]), dtype=np.float32))
    outputs = []
    with model.precision():
        for _ in range(2):
            values = model.policy.predict_values(observations)
            outputs.append(values.detach().float().clone())
            model.policy.optimizer.zero_grad()
            values.float().sum().backward()
            model.policy.optimizer.step()
    assert not torch.equal(outputs[0], outputs[1])


def test_train_with_collectors_snapshots_evaluates_and_stops(tmp_path: Path) -> None:
    """Also with the gradient steps under bfloat16 autocast."""
    config = dataclasses.replace(TINY, output_dir=str(tmp_path), total_timesteps=4 * ROLLOUT,
                                 snapshot_every=2 * ROLLOUT, eval_every=2 * ROLLOUT,
                                 checkpoint_every=0, collectors=1,
                                 update_precision="bfloat16")
    heard = []
    final = train(config, progress=False, on_eval=lambda step, scores, s: heard.append(step))
    assert final.is_file()
    assert (config.run_dir / "checkpoints" / f"snapshot_{2 * ROLLOUT}.zip").is_file()
    assert heard == [2 * ROLLOUT, 4 * ROLLOUT]
    with open(config.run_dir / "evaluations.csv") as f:
        assert {row["opponent"] for row in csv.DictReader(f)} == {"random", "caller"}
    assert no_collectors_left()

    stopped = dataclasses.replace(config, name="stopped", total_timesteps=1_000 * ROLLOUT)
    heard.clear()
    train(stopped, progress=False, seconds=0.0,
          on_eval=lambda step, scores, s: heard.append(step))
    # a time budget evaluates first (how long one takes); stopped at its first step, evaluated
    assert heard == [0, TINY.num_envs]
    assert no_collectors_left()


def test_a_collector_failure_is_raised_and_ends_the_collectors(tmp_path: Path) -> None:
    config = dataclasses.replace(TINY, collectors=1)
    model, env, _ = make_learner(config, config.rule_set())
    try:
        with unchecked_distributions():
            model.learn(total_timesteps=ROLLOUT)
            env.add_snapshot(tmp_path / "missing.zip")
            with pytest.raises(RuntimeError, match="collector 0 failed"):
                model.learn(total_timesteps=3 * ROLLOUT, reset_num_timesteps=False)
    finally:
        env.close()
    assert not any(p.is_alive() for p in env.processes)
    assert no_collectors_left()


@pytest.mark.parametrize("fields, message", [
    ({"collectors": -1}, "'collectors' = -1"),
    ({"collectors": True}, "'collectors' = True"),
    ({"collectors": 1.5}, "'collectors' = 1.5"),
    ({"collectors": 3, "num_envs": 16}, "a divisor of num_envs"),
    ({"collectors": 1, "backend": "rllib"}, "backend 'rllib'"),
    ({"collectors": 1, "update_precision": "float16"}, "'update_precision' = 'float16'"),
    ({"update_precision": "bfloat16"}, "float32 unless collectors >= 1"),
])
def test_bad_collectors_are_refused(fields: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TrainConfig(**fields)
