"""A budget given is the budget spent (issue 31 item 12).

``hilo train --total-timesteps N`` trains whole iterations, and its banner says how many
decisions that makes; a time budget (``hilo exploit --minutes``) holds the evaluations too. The
time budget is checked on a fake clock: no test here depends on the machine's speed.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hilo_env.cli import main
from hilo_env.training.config import TrainConfig

pytest.importorskip("sb3_contrib")

from hilo_env.training import budget as run_budget
from hilo_env.training import selfplay


def test_the_train_banner_says_the_decisions_trained(tmp_path, capsys):
    code = main(["train", "smoke", "--total-timesteps", "1000", "--output-dir", str(tmp_path),
                 "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    assert "training smoke: 1,024 decisions (1,000 asked, in whole iterations of 1,024)" in out
    assert "[1,024 decisions," in out  # the last evaluation, after the last iteration
    rows = (tmp_path / "smoke" / "evaluations.csv").read_text().splitlines()
    assert rows[-1].startswith("1024,")
    config = TrainConfig.from_yaml("smoke", total_timesteps=2048)
    assert config.planned_decisions == config.total_timesteps == 2048


class FakeClock:
    """``time`` for :mod:`training.budget`: a second passes at each reading, and an
    evaluation takes ``evaluation`` seconds."""

    def __init__(self, evaluation: float) -> None:
        self.now, self.evaluation, self.evaluated_at = 0.0, evaluation, []

    def perf_counter(self) -> float:
        self.now += 1.0
        return self.now

    def evaluate_model(self, path, rules, baselines, hands, seed, game=None):
        self.evaluated_at.append(self.now)
        self.now += self.evaluation
        return {name: (0.0, 0.0) for name in baselines}


@pytest.mark.parametrize(("budget", "evaluation"), [(400.0, 30.0), (400.0, 150.0)])
def test_a_time_budget_holds_the_evaluations(tmp_path, monkeypatch, budget, evaluation):
    clock = FakeClock(evaluation)
    monkeypatch.setattr(run_budget, "time", SimpleNamespace(perf_counter=clock.perf_counter))
    monkeypatch.setattr(selfplay, "evaluate_model", clock.evaluate_model)
    config = TrainConfig.from_yaml("smoke", total_timesteps=10**9, output_dir=str(tmp_path),
                                   eval_every=0)
    heard = []
    start = clock.now
    selfplay.train(config, progress=False, seconds=budget, eval_every_seconds=budget / 4,
                   on_eval=lambda step, scores, learned: heard.append(step))
    took = clock.now - start
    assert took <= budget + 60, (took, clock.evaluated_at)  # a minute: one rollout's readings
    assert heard[0] == 0 and heard[-1] > 0  # the first before learning, the last at its end
    assert len(heard) >= 2
    if evaluation * 3 > budget:  # no room for one in the middle: only the first and the last
        assert len(heard) == 2
