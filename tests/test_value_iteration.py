"""Hi MiLo!'s ``value`` agent and its trainer: a run of a few hundred decisions
(``configs/train/himilo_value_smoke.yaml``) writes a network that plays legal actions at every
seat; the agent takes the action its network rates highest; networks and configs it cannot
use are refused, naming the problem."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import yaml

from hilo_env import agents, games
from hilo_env.agents.himilo_value import ValueAgent, features, load, num_features, save
from hilo_env.agents.ppo import rules_path
from hilo_env.himilo import actions as A
from hilo_env.himilo.engine import Round
from hilo_env.himilo.observation import layout
from hilo_env.himilo.rules import resolve
from hilo_env.training.config import TrainConfig
from hilo_env.training.evaluate import deal_seed
from hilo_env.training.lockstep import play_episodes

pytest.importorskip("torch")

from hilo_env.training.value_iteration import train, training_deal

CONFIGS = Path(__file__).resolve().parent.parent / "configs" / "train"


def test_a_short_run_writes_a_network_that_plays_every_seat(tmp_path: Path) -> None:
    config = TrainConfig.from_yaml(CONFIGS / "himilo_value_smoke.yaml", output_dir=str(tmp_path))
    path = train(config, progress=False)
    rules = resolve("standard", num_players=3)
    assert path.name == "model.npz" and rules_path(path).is_file()
    with open(path.parent / "evaluations.csv") as f:
        rows = list(csv.DictReader(f))
    assert {r["opponent"] for r in rows} == {"itself", "team", "random"}
    assert len(rows) == 3 * 2  # two iterations
    players = [agents.make(f"value:{path}", rules, seed=s, game="himilo") for s in range(3)]
    assert players[0].name == f"value:{path}" and isinstance(players[0], ValueAgent)
    returns = play_episodes(lambda: games.get("himilo").raw_env(rules), players,
                            [(seed, (0, 1, 2)) for seed in range(2)])
    assert returns.shape == (2, 3)  # the raw env raises on an illegal action


def network_for(n: int, column: int, weight: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """One layer: the logit is ``weight`` times feature ``column``."""
    w = np.zeros((num_features(n), 1), np.float32)
    w[column, 0] = weight
    return [(w, np.zeros(1, np.float32))]


@pytest.mark.parametrize(("weight", "bid"), [(10.0, A.BID_HIGH), (-10.0, A.BID_LOW)])
def test_the_agent_takes_the_bid_its_network_rates_highest(weight: float, bid: int) -> None:
    n, rules = 4, resolve("standard", num_players=4)
    env = games.get("himilo").raw_env(rules)
    env.reset(seed=0)
    seen = env.observe(env.agent_selection)
    probe = np.zeros((1, seen["observation"].size), np.float32)
    probe[0, layout(n)["bids"].start + 2] = 1.0  # slot 0 bids high
    column = int(np.flatnonzero(features(probe, n) != features(0 * probe, n))[0])
    agent = ValueAgent(rules, layers=network_for(n, column, weight))
    assert agent.act(seen["observation"], seen["action_mask"]) == bid


def test_networks_and_configs_it_cannot_use_are_refused(tmp_path: Path) -> None:
    three, four = resolve("standard", num_players=3), resolve("standard", num_players=4)
    path = save(network_for(3, 0, 1.0), tmp_path / "net.npz", three)
    with pytest.raises(ValueError, match="num_players: trained 3, asked 4"):
        ValueAgent(four, path)
    rules_path(path).write_text(yaml.safe_dump({"game": "lohi"}))
    with pytest.raises(ValueError, match="trained for lo-hi"):
        ValueAgent(three, path)
    save(network_for(4, 0, 1.0), path, three)  # a 4-player network beside 3-player rules
    with pytest.raises(ValueError, match="layer 0 does not fit"):
        load(path, 3)
    with pytest.raises(FileNotFoundError, match="no network file"):
        ValueAgent(three, tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="algorithm"):
        TrainConfig(game="lohi", algorithm="value")
    with pytest.raises(ValueError, match="visible_win_cards 14"):
        TrainConfig(game="himilo", rules="medium", algorithm="value", baselines=["team"])
    with pytest.raises(ValueError, match="one of"):
        TrainConfig(game="himilo", algorithm="dqn", baselines=["team"])


def test_no_training_round_is_a_deal_an_evaluation_plays() -> None:
    rules = resolve("standard", num_players=4)
    env = games.get("himilo").raw_env(rules)
    evaluated = set()
    for seed in range(3):
        for deal in range(50):
            env.reset(seed=deal_seed(seed, deal))
            evaluated.add(tuple(env.game.log[0].data["deck"]))
    trained = {tuple(Round(rules, training_deal(seed, index)).log[0].data["deck"])
               for seed in range(3) for index in range(50)}
    assert len(trained) == 150 and not trained & evaluated
