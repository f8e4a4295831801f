"""The training loop's speed settings change no result: with torch's distribution checks off
the learner's parameters come out the same bit for bit, and the checks come back after; the
thread callback sets each phase's threads. About 10 s."""

from __future__ import annotations

import contextlib

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from torch.distributions import Distribution  # noqa: E402

from hilo_env.training.config import TrainConfig  # noqa: E402
from hilo_env.training.selfplay import (  # noqa: E402
    make_learner,
    phase_threads,
    unchecked_distributions,
)

SMALL = TrainConfig(num_envs=16, n_steps=16, batch_size=64, net_arch=[32],
                    baselines=["random", "caller"], seed=3)


def test_unchecked_distributions_learn_the_same_parameters() -> None:
    checks = Distribution._validate_args
    params = []
    for checked in (True, False):
        model, _, _ = make_learner(SMALL, SMALL.rule_set())
        with contextlib.nullcontext() if checked else unchecked_distributions():
            model.learn(total_timesteps=3 * 16 * 16)
        params.append([p.detach().clone() for p in model.policy.parameters()])
    assert all(torch.equal(a, b) for a, b in zip(*params, strict=True))
    assert Distribution._validate_args is checks  # restored


def test_phase_threads() -> None:
    config = TrainConfig(torch_threads=1, update_threads=2)
    callback = phase_threads(config)
    before = torch.get_num_threads()
    try:
        callback.on_rollout_end()
        assert torch.get_num_threads() == 2
        callback.on_rollout_start()
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
    with pytest.raises(ValueError, match="update_threads"):
        TrainConfig(update_threads=0)
