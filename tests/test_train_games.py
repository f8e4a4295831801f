"""Training and best responses for the games other than Equation Hi-Lo: a run of a few thousand
decisions of lo-hi and of Hi MiLo! (``configs/train/*_smoke.yaml``) writes a model that plays
legal actions in the game's AEC env by name (``ppo:PATH``), evaluated on the unshaped rules;
a model is refused for another game or other rules (not other reward shaping); the shipped
``ppo`` of each game is named per player count. About 30 s."""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import numpy as np
import pytest
import yaml

from hilo_env import games
from hilo_env.agents import registry
from hilo_env.training.config import TrainConfig

pytest.importorskip("sb3_contrib")

from hilo_env.agents.ppo import PPOAgent, read_rules, rules_path
from hilo_env.envs.aec_learner import AECLearnerVectorEnv
from hilo_env.training.exploit import exploit
from hilo_env.training.imitation import demonstrations
from hilo_env.training.lockstep import play_episodes
from hilo_env.training.selfplay import train

CONFIGS = Path(__file__).resolve().parent.parent / "configs" / "train"


def smoke_run(game: str, tmp_path: Path) -> tuple[TrainConfig, Path]:
    config = TrainConfig.from_yaml(CONFIGS / f"{game}_smoke.yaml", output_dir=str(tmp_path))
    return config, train(config, progress=False)


def play_legally(agent: PPOAgent, game: str, rules: object, episodes: int = 2) -> int:
    """Play ``episodes`` episodes with ``agent`` in every seat of the game's raw env (which
    raises ValueError on an illegal action); the decisions it made."""
    spec = games.get(game)
    seats = len(spec.raw_env(rules).possible_agents)
    actions: list[list[int]] = []
    play_episodes(lambda: spec.raw_env(rules), [agent],
                  [(seed, [0] * seats) for seed in range(episodes)], actions=actions)
    return sum(map(len, actions))


@pytest.mark.slow
@pytest.mark.parametrize("game", ["lohi", "himilo"])
def test_a_short_run_writes_a_model_that_plays_the_game(game: str, tmp_path: Path) -> None:
    config, model = smoke_run(game, tmp_path)
    assert model == tmp_path / f"{game}_smoke" / "model.zip" and model.is_file()
    recorded_game, trained = read_rules(rules_path(model))
    assert recorded_game.name == game and trained == config.rule_set()
    assert trained != games.get(game).rules(None, config.players)  # trained on shaped rewards
    plain = games.get(game).rules(None, config.players)  # ... and plays the game itself
    agent = registry.make(f"ppo:{model}", plain, seed=0, game=game)
    assert isinstance(agent, PPOAgent) and agent.game.name == game
    assert play_legally(agent, game, plain) > 0
    with open(tmp_path / f"{game}_smoke" / "evaluations.csv") as f:
        rows = list(csv.reader(f))
    score = "reward_per_game" if game == "lohi" else "team_win_per_round"
    assert rows[0] == ["timesteps", "opponent", score, "ci95"]
    steps = sorted({int(r[0]) for r in rows[1:]})
    assert steps == [1024, 2048] and {r[1] for r in rows[1:]} == set(config.baselines)
    low = 0.0 if game == "himilo" else -1.0  # a share of rounds won, a reward per game
    assert all(low <= float(r[2]) <= 1.0 and float(r[3]) >= 0 for r in rows[1:])
    assert (tmp_path / f"{game}_smoke" / "learning_curve.png").is_file()


def test_a_model_is_refused_for_another_game_or_other_rules(tmp_path: Path) -> None:
    _, model = smoke_run("lohi", tmp_path)
    himilo = games.get("himilo").rules()
    with pytest.raises(ValueError, match=r"trained for lo-hi .*not Hi MiLo!"):
        PPOAgent(himilo, model, game="himilo")
    with pytest.raises(ValueError, match="trained for lo-hi"):
        PPOAgent(himilo, model, game="himilo", allow_other_rules=True)
    with pytest.raises(ValueError, match="trained for lo-hi"):
        PPOAgent(games.get("hilo").rules(), model)
    four = games.get("lohi").rules(None, 4)
    with pytest.raises(ValueError, match="num_players: trained 2, asked 4"):
        registry.make(f"ppo:{model}", four, game="lohi")
    other = games.get("lohi").rules(None, 2).replace(min_run=4)
    with pytest.raises(ValueError, match="min_run"):
        PPOAgent(other, model)
    for shaping in (0.0, 1.5):  # reward fields only: the same game to play
        PPOAgent(other.replace(min_run=3, round_reward=shaping), model)


def test_a_config_names_its_game_its_agents_and_only_reward_shaping(tmp_path: Path) -> None:
    base = TrainConfig(game="lohi", baselines=["heuristic"])
    assert base.rule_set() == games.get("lohi").rules()
    for fields, message in [
        ({"game": "chess"}, "'game' = 'chess'"),
        ({"game": "lohi"}, "unknown agent 'caller'"),  # Equation Hi-Lo's default pool
        ({"game": "lohi", "baselines": ["team"]}, "unknown agent 'team'"),
        ({"game": "lohi", "baselines": ["heuristic"], "players": 6}, "2 to 5 players"),
        ({"game": "lohi", "baselines": ["heuristic"], "reward_shaping": {"min_run": 4}},
         "'reward_shaping'"),
        ({"game": "himilo", "baselines": ["team"], "collectors": 1, "num_envs": 16},
         "'collectors'"),
    ]:
        with pytest.raises(ValueError, match=message):
            TrainConfig(**fields)


@pytest.mark.parametrize("game, counts", [("lohi", (2, 4)), ("himilo", (4,))])
def test_the_shipped_ppo_of_a_game_is_named_per_table(game: str, counts: tuple[int, ...]) -> None:
    assert registry.needs_extra("ppo", game=game) is None  # played in NumPy
    spec = games.get(game)
    missing = next(n for n in range(spec.min_players, spec.max_players + 1) if n not in counts)
    with pytest.raises(ValueError, match=f"has models for {', '.join(map(str, counts))} "
                                         f"players, not {missing}"):
        registry.make("ppo", spec.rules(None, missing), game=game)
    for n in counts:
        agent = registry.make("ppo", spec.rules(None, n), seed=0, game=game)
        assert agent.game.name == game
        assert play_legally(agent, game, spec.rules(None, n), episodes=1) > 0


@pytest.mark.slow
def test_a_best_response_to_a_lohi_agent(tmp_path: Path) -> None:
    points = []
    result = exploit("random", decisions=2_048, seed=0, hands=10, evals=2, game="lohi",
                     output_dir=str(tmp_path), on_eval=points.append, num_envs=16, n_steps=64,
                     batch_size=256, net_arch=[64, 64])
    assert result.curve == points and [p.decisions for p in points] == [1_024, 2_048]
    assert all(np.isfinite(p.mean) and np.isfinite(p.ci) and p.ci >= 0 for p in points)
    assert result.score == "reward per game" and "reward/game" in result.table()
    assert (tmp_path / "exploit_random" / "learning_curve.png").is_file()
    config = yaml.safe_load((tmp_path / "exploit_random" / "config.yaml").read_text())
    assert config["game"] == "lohi" and config["baselines"] == ["random"]
    with pytest.raises(ValueError, match="cooperative"):
        exploit("team", decisions=5, game="himilo", output_dir=str(tmp_path))


def test_rules_records_of_equation_hilo_models_stay_readable(tmp_path: Path) -> None:
    rules = games.get("hilo").rules("duel")
    path = tmp_path / "old.rules.yaml"  # as models were saved before the game was recorded
    path.write_text(yaml.safe_dump(rules.to_dict(), sort_keys=False))
    game, read = read_rules(path)
    assert game.name == "hilo" and read == rules
    assert dataclasses.asdict(read) == dataclasses.asdict(rules)


def test_the_learner_may_play_every_seat_of_a_cooperative_game() -> None:
    rules = games.get("himilo").rules(None, 3)
    env = AECLearnerVectorEnv(lambda: games.get("himilo").raw_env(rules), 2, seed=0,
                              seat=["every", "alternate"])
    env.reset()
    rng = np.random.default_rng(0)
    ended: dict[int, list[tuple[float, int]]] = {0: [], 1: []}
    while min(len(v) for v in ended.values()) < 2:
        masks = env.action_masks()
        _, _, _, _, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for i in np.flatnonzero(infos.get("_episode", [])):
            ended[int(i)].append((float(infos["episode"]["r"][i]), int(infos["episode"]["l"][i])))
    assert {length for _, length in ended[0]} == {rules.decisions_per_round}  # every seat
    assert {length for _, length in ended[1]} == {rules.decisions_per_round // 3}  # one seat
    assert all(r in (-1.0, 1.0) for v in ended.values() for r, _ in v)  # the team's, once
    with pytest.raises(ValueError, match="one per game"):
        AECLearnerVectorEnv(lambda: games.get("himilo").raw_env(rules), 2, seat=["every"])


def test_imitation_copies_an_agent_and_its_returns() -> None:
    config = TrainConfig(game="himilo", players=3, baselines=["team"], imitate="team",
                         imitate_decisions=300, batch_size=64, n_steps=8, num_envs=2,
                         net_arch=[32], reward_scale=1.0)
    rules = config.rule_set()
    obs, masks, actions, returns = demonstrations(config, rules)
    assert len(obs) == len(masks) == len(actions) == len(returns) >= 300
    assert len(obs) % rules.decisions_per_round == 0  # whole rounds
    assert masks[np.arange(len(actions)), actions].all()
    rounds = returns.reshape(-1, rules.decisions_per_round)  # unshaped, gamma 1: the outcome
    assert set(np.unique(rounds)) <= {-1.0, 1.0} and (rounds == rounds[:, :1]).all()
    with pytest.raises(ValueError, match="'imitate'"):
        TrainConfig(game="himilo", baselines=["team"], imitate="heuristic")
