"""Training: the config is checked before any work, and a tiny run trains and evaluates."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from hilo_env.cli import main
from hilo_env.training.config import TrainConfig

SMOKE = Path(__file__).resolve().parent.parent / "configs" / "train" / "smoke.yaml"
SELFPLAY = SMOKE.with_name("selfplay.yaml")


def test_shipped_configs_are_valid() -> None:
    for path in SMOKE.parent.glob("*.yaml"):
        TrainConfig.from_yaml(path)


@pytest.mark.parametrize("text, message", [
    ("num_envs: 0\n", "'num_envs' = 0"),
    ("lr: 0.1\n", r"unknown config field\(s\) \['lr'\]"),
    ("gamma: 1.5\n", "'gamma' = 1.5"),
    ("net_arch: 64\n", "'net_arch' = 64"),
    ("baselines: [wizard]\n", "unknown agent 'wizard'"),
    ("rules: poker\n", "unknown rules 'poker'"),
    ("players: -1\n", "'players' = -1"),
    ("players: 9\n", "seats 2 to 8 players, not 9"),
    ("- a list\n", "expected a mapping"),
    ("seed: 1\nseed: 2\n", "line 2, column 1: key 'seed' is set twice"),
    ("reward_shaping: {round_reward: 1, round_reward: 2}\n", "'round_reward' is set twice"),
    ("net_arch: [100000]\n", "'net_arch' = \\[100000\\]"),
    ("net_arch: [8, 8, 8, 8, 8, 8, 8, 8, 8]\n", "'net_arch'"),
    ("torch_threads: 100000\n", "'torch_threads' = 100000 .* from 1 to 256"),
    ("lookahead_samples: 100000\n", "'lookahead_samples' = 100000 .* from 1 to 256"),
    ("game: lohi\nbaselines: [random]\nnum_envs: 100000\n",
     "'num_envs' = 100000 .* from 1 to 4,096"),
    ("game: himilo\nbaselines: [random]\nnum_envs: 100000\n", "'num_envs' = 100000"),
    ("total_timesteps: 1e15\n", "'total_timesteps' = 1000000000000000 .* 1,000,000,000,000"),
    ("total_timesteps: 25e-1\n", "'total_timesteps' = 2.5"),
    ("eval_hands: 100000000000\n", "'eval_hands'"),
    ("seed: 4294967296\n", "'seed'"),
])
def test_bad_config_fails_before_any_work(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        TrainConfig.from_yaml(path)


def test_numbers_in_exponent_form_are_read_as_numbers(tmp_path: Path) -> None:
    path = tmp_path / "exponents.yaml"
    path.write_text("learning_rate: 3e-4\ntotal_timesteps: 2e6\nent_coef: 1E-2\n"
                    "clip_range: +2.5e-1\n")
    config = TrainConfig.from_yaml(path)
    assert config.learning_rate == 3e-4 and config.ent_coef == 0.01
    assert config.clip_range == 0.25
    assert config.total_timesteps == 2_000_000 and isinstance(config.total_timesteps, int)


def test_cli_rejects_a_bad_config(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("total_timesteps: -5\n")
    assert main(["train", str(path), "--output-dir", str(tmp_path)]) == 2
    assert "'total_timesteps' = -5" in capsys.readouterr().err
    assert not (tmp_path / "selfplay").exists()
    assert main(["train", str(SMOKE), "--init-model", str(tmp_path / "none.zip")]) == 2
    assert "'init_model'" in capsys.readouterr().err


def test_smoke_training_run(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("sb3_contrib")
    assert main(["train", str(SMOKE), "--output-dir", str(tmp_path), "--no-progress"]) == 0
    run = tmp_path / "smoke"
    assert (run / "model.zip").is_file() and (run / "config.yaml").is_file()
    assert any((run / "tb").glob("events.out.tfevents.*"))
    assert any((run / "checkpoints").glob("snapshot_*.zip"))  # the pool got a snapshot
    with open(run / "evaluations.csv") as f:
        rows = list(csv.DictReader(f))
    assert {r["opponent"] for r in rows} == {"random", "caller"}
    assert all(float(r["ci95"]) > 0 for r in rows)
    assert "chips per hand against random" in capsys.readouterr().out
    # the trained model plays as a registered agent
    assert main(["tournament", f"ppo:{run / 'model.zip'}", "random", "--hands", "20",
                 "--no-progress"]) == 0


def test_a_run_at_a_larger_table(tmp_path: Path) -> None:
    # the learner in one seat, each baseline in all the others, in training and evaluation
    pytest.importorskip("sb3_contrib")
    from hilo_env.training.selfplay import train

    config = TrainConfig.from_yaml(SMOKE, players=3, output_dir=str(tmp_path),
                                   total_timesteps=2_048, snapshot_every=0, eval_hands=30)
    assert config.rule_set().num_players == 3 and TrainConfig().rule_set().num_players == 2
    model = train(config, progress=False)
    with open(tmp_path / "smoke" / "evaluations.csv") as f:
        rows = list(csv.DictReader(f))
    assert {r["opponent"] for r in rows} == {"random", "caller"}
    assert main(["gauntlet", f"ppo:{model}", "--players", "3", "--opponents", "random",
                 "--hands", "9"]) == 0


def test_shipped_ppo_agent_plays_legally_and_beats_random() -> None:
    pytest.importorskip("sb3_contrib")
    from hilo_env import agents
    from hilo_env.training.evaluate import tournament

    assert agents.registry.SHIPPED_PPO.is_file()
    result = tournament(["ppo", "random"], "standard", hands=400, seed=5, progress=False)
    mean, ci, hands = result.overall("ppo")
    assert hands == 400 and mean - ci > 0


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_ppo_plays_the_model_of_its_table_size_and_beats_random(players: int) -> None:
    pytest.importorskip("sb3_contrib")
    from hilo_env.agents.registry import PPO_TABLES, make
    from hilo_env.equation_hilo.rules import RuleSet
    from hilo_env.training.gauntlet import gauntlet

    rules = RuleSet(num_players=players)
    assert make("ppo", rules).path == PPO_TABLES[players] == make(f"ppo_{players}p", rules).path
    result = gauntlet("ppo", rules, hands=60 * players, seed=5, players=["random"])
    mean, ci = result.score("random")
    assert mean - ci > 0, result.table()


def test_ppo_refuses_a_table_it_has_no_model_for() -> None:
    pytest.importorskip("sb3_contrib")
    from hilo_env.agents.registry import make
    from hilo_env.equation_hilo.rules import RuleSet

    with pytest.raises(ValueError, match="num_players"):
        make("ppo", RuleSet(num_players=7))
