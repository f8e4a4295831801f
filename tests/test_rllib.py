"""Ray RLlib: the turn-based env against RLlib's own episode bookkeeping, the league's policy
mapping, the missing extra named up front, and the proof run: a local Ray (2 CPUs), 2 PPO
iterations of the bundled league config, checkpoints, the policy reloaded as an agent and 50
hands through the AEC env with no illegal action; then the league on lo-hi and Hi MiLo! in
the same Ray session (about a minute on a 2-core machine)."""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import hilo_env
from hilo_env import agents, cli, games, himilo_v0, lohi_v0
from hilo_env.training.config import TrainConfig

pytestmark = [pytest.mark.filterwarnings("error:os.fork\\(\\) was called:RuntimeWarning"),
              pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")]
"""Nothing here forks the test process: where JAX is loaded (by other tests of the run) it
warns of a fork from its fork hook (whose warning pytest reports as unraisable); Ray starts
its processes that way, so Ray runs in a process of its own."""

ray = pytest.importorskip("ray", reason="needs the rllib extra: pip install -e '.[rllib]'")
pytest.importorskip("ray.rllib", reason="needs the rllib extra: pip install -e '.[rllib]'")

from ray.rllib.env.multi_agent_episode import MultiAgentEpisode  # noqa: E402

from hilo_env.agents.rllib import MASK_KEY, OBS_KEY, SHARED, RLlibAgent  # noqa: E402
from hilo_env.envs.rllib_env import RLlibHiLoEnv, TurnBasedRLlibEnv  # noqa: E402
from hilo_env.training.rllib_train import LeagueMapping, returns_text  # noqa: E402


def play_episode(env: RLlibHiLoEnv, seed: int, rng: np.random.Generator) -> MultiAgentEpisode:
    """One random episode, recorded by RLlib's MultiAgentEpisode (which checks every step)."""
    obs, info = env.reset(seed=seed)
    episode = MultiAgentEpisode(observations=[obs], infos=[info],
                                observation_space=env.observation_spaces,
                                action_space=env.action_spaces,
                                agent_to_module_mapping_fn=lambda agent, ep: SHARED)
    term: dict[str, bool] = {}
    while not episode.is_done:
        # turn-based: the agent to act observes, and agents that finished in the last step
        agent = env.aec.agent_selection
        assert set(obs) - {agent} <= {a for a, done in term.items() if done}
        for o in obs.values():
            assert set(o) == {OBS_KEY, MASK_KEY} and o[MASK_KEY].dtype == np.float32
            assert env.observation_spaces[agent].contains(o)
        action = int(rng.choice(np.flatnonzero(obs[agent][MASK_KEY])))
        obs, rewards, term, trunc, infos = env.step({agent: action})
        episode.add_env_step(obs, {agent: action}, rewards, infos, terminateds=term,
                             truncateds=trunc)
    return episode


@pytest.mark.parametrize("overrides", [{}, {"num_players": 4, "hands_per_episode": 6}])
def test_env_episodes_as_rllib_records_them(overrides: dict) -> None:
    """Every seat's return is its net chips (scaled), acting in the last hand or not; with
    eliminations mid-match too."""
    env = RLlibHiLoEnv({"overrides": overrides, "reward_scale": 0.5})
    rng = np.random.default_rng(0)
    for seed in range(30):
        episode = play_episode(env, seed, rng)
        stacks = env.aec.game.stacks
        start = env.aec.rules.starting_stack
        for agent, sa in episode.agent_episodes.items():
            seat = int(agent.rsplit("_", 1)[1])
            assert sa.get_return() == pytest.approx(0.5 * (stacks[seat] - start)), (seed, agent)


@pytest.mark.parametrize("game", ["lohi", "himilo"])
def test_the_other_games_as_rllib_envs(game: str) -> None:
    """lo-hi (truncated games included) and Hi MiLo! through the same wrapper: RLlib's
    episodes close for every agent, each with the game's own total for its seat."""
    rng = np.random.default_rng(1)
    for seed in range(5):
        if game == "lohi":
            env = TurnBasedRLlibEnv(lohi_v0.raw_env(num_players=3, max_turns=40))
        else:
            env = TurnBasedRLlibEnv(himilo_v0.raw_env(num_players=3))
        episode = play_episode(env, seed, rng)
        assert episode.agent_episodes and all(sa.is_done
                                              for sa in episode.agent_episodes.values())
        for agent, sa in episode.agent_episodes.items():
            seat = int(agent.rsplit("_", 1)[1])
            total = (env.aec.game.payoffs[seat] if game == "lohi"
                     else float(env.aec.game.outcome))
            assert sa.get_return() == pytest.approx(total), (game, seed, agent)


@pytest.mark.parametrize("game", ["lohi", "himilo"])
def test_the_league_env_takes_any_game_of_the_registry(game: str) -> None:
    """``env_config["game"]`` picks the game (its default rules, overrides applied): RLlib's
    episodes close for every seat, each with the game's total for it."""
    env = RLlibHiLoEnv({"game": game, "overrides": {"num_players": 3}})
    assert type(env.aec) is type(games.get(game).raw_env())
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    rng = np.random.default_rng(2)
    for seed in range(3):
        episode = play_episode(env, seed, rng)
        assert all(sa.is_done for sa in episode.agent_episodes.values())
        assert len(episode.agent_episodes) == 3


def test_env_refuses_a_wrong_agent_and_bad_config() -> None:
    env = RLlibHiLoEnv()
    obs, _ = env.reset(seed=0)
    other = next(a for a in env.possible_agents if a not in obs)
    with pytest.raises(ValueError, match="is to act"):
        env.step({other: 1})
    with pytest.raises(ValueError, match="unknown env_config key"):
        RLlibHiLoEnv({"rule": "standard"})


class Episode:
    def __init__(self, id_: str) -> None:
        self.id_ = id_


def test_league_mapping() -> None:
    """Every seat of a game agrees on the draw; ``shared`` is in every game, alone against
    the pool outside self-play; snapshots take their share of the pool's seats."""
    league = LeagueMapping(3, ("baseline_heuristic", "baseline_random"), ("snapshot_0",),
                           selfplay_share=0.25, snapshot_share=0.5, seed=0)
    games = [[league(f"player_{s}", Episode(f"ep{i}")) for s in range(3)] for i in range(400)]
    assert games[7] == [league(f"player_{s}", Episode("ep7")) for s in range(3)]
    selfplay = [g for g in games if g == [SHARED] * 3]
    assert 60 < len(selfplay) < 140
    against = [g for g in games if g != [SHARED] * 3]
    assert all(g.count(SHARED) == 1 for g in against)
    pool = [m for g in against for m in g if m != SHARED]
    assert 0.4 < pool.count("snapshot_0") / len(pool) < 0.6
    assert {"baseline_heuristic", "baseline_random"} <= set(pool)


def test_the_rllib_trainer_takes_rllib_configs_only() -> None:
    from hilo_env.training.rllib_train import train

    with pytest.raises(ValueError, match="backend 'sb3'; this trainer is for backend 'rllib'"):
        train(TrainConfig.from_yaml("smoke"))


def test_missing_rllib_extra_is_named_first(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.setattr(cli, "install_line", lambda extra: f"pip install 'hilo_env[{extra}]'")
    assert cli.main(["train", "rllib_league"]) == cli.EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "needs the 'rllib' extra (ray missing): pip install 'hilo_env[rllib]'" in captured.err


TRAIN_IN_ITS_OWN_PROCESS = """
import ast
import sys

import ray
from hilo_env.training.config import TrainConfig
from hilo_env.training.rllib_train import train
ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
try:
    for overrides in ast.literal_eval(sys.argv[1]):
        print(train(TrainConfig.from_yaml("rllib_league", **overrides), progress=True))
finally:
    ray.shutdown()
"""
"""League runs, one after another in one Ray session, in a fresh Python: Ray starts its
processes by forking, which JAX (imported by other tests of the same run) warns of in the
process that imported it."""

OTHER_GAMES = {"lohi": {"rules": "single_round", "baselines": ["heuristic", "random"]},
               "himilo": {"num_envs": 2, "baselines": ["team"]}}
"""The league on the other games, shrunk further: one iteration each."""


@pytest.fixture(scope="module")
def league_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[TrainConfig, Path, str,
                                                                   dict[str, Path]]:
    """The bundled league config, shrunk, on a new local Ray of 2 CPUs (not a cluster this
    machine may have, nor RAY_ADDRESS's) in its own process: 2 iterations of 256
    decisions on standard rules, a snapshot and a checkpoint after the first; then one
    iteration on lo-hi and on Hi MiLo! in the same Ray session. Returns the config, the saved
    policy's folder, what the runs printed and the other games' policy folders."""
    overrides = dict(output_dir=str(tmp_path_factory.mktemp("rllib")), total_timesteps=512,
                     num_envs=4, n_steps=64, batch_size=128, n_epochs=1, net_arch=[32, 32],
                     snapshot_every=256, eval_every=0, eval_hands=20, checkpoint_every=256)
    others = [{**overrides, "name": f"rllib_{game}", "game": game, "total_timesteps": 256,
               "snapshot_every": 0, "checkpoint_every": 0, "eval_hands": 5, **extra}
              for game, extra in OTHER_GAMES.items()]
    config = TrainConfig.from_yaml("rllib_league", **overrides)
    run = subprocess.run([sys.executable, "-c", TRAIN_IN_ITS_OWN_PROCESS,
                          repr([overrides, *others])],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    policies = [Path(line) for line in run.stdout.splitlines() if line.endswith("policy")]
    return config, policies[0], run.stdout, dict(zip(OTHER_GAMES, policies[1:], strict=True))


@pytest.mark.slow
def test_two_league_iterations_then_play_as_an_agent(
        league_run: tuple[TrainConfig, Path, str, dict[str, Path]]) -> None:
    """Checkpoints, logs and evaluations are written; the saved policy (and the same policy
    read from the algorithm checkpoint) plays 50 hands of the AEC env, never illegally."""
    config, policy, _, _ = league_run
    assert config.backend == "rllib" and config.rules == "standard"
    run = config.run_dir.resolve()
    assert policy == run / "policy"
    assert (run / "checkpoint" / "learner_group" / "learner" / "rl_module" / "snapshot_0").is_dir()
    assert any((run / "checkpoints").glob("algo_*"))
    assert any((run / "tb").iterdir())
    with open(run / "evaluations.csv") as f:
        rows = list(csv.DictReader(f))
    assert {r["opponent"] for r in rows} == {"heuristic", "caller", "random"}
    assert all(int(r["timesteps"]) >= 512 for r in rows)

    rules = hilo_env.RuleSet()
    greedy = agents.make(f"rllib:{policy}", rules, seed=0)
    sampling = RLlibAgent(rules, policy, seed=1, deterministic=False)
    from_checkpoint = agents.make(f"rllib:{run / 'checkpoint'}", rules, seed=0)
    env = hilo_env.raw_env(rules)  # raises on an illegal action
    decisions = 0
    for hand in range(50):
        env.reset(seed=hand)
        while env.agents:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            agent = greedy if env.agent_selection == "player_0" else sampling
            action = agent.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            if agent is greedy and decisions < 20:
                assert from_checkpoint.act(obs["observation"], obs["action_mask"]) == action
            env.step(action)
            decisions += 1
    assert decisions >= 50


@pytest.mark.slow
def test_a_policy_keeps_its_rules(league_run: tuple[TrainConfig, Path, str, dict[str, Path]],
                                  tmp_path: Path) -> None:
    _, policy, _, others = league_run
    with pytest.raises(ValueError, match="trained under other rules"):
        agents.make(f"rllib:{policy}", "classic")
    with pytest.raises(ValueError, match="no policy folder"):
        agents.make(f"rllib:{tmp_path / 'nothing'}")
    with pytest.raises(ValueError, match="a policy of lo-hi, not of Equation Hi-Lo"):
        RLlibAgent(hilo_env.RuleSet(), others["lohi"])


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(OTHER_GAMES))
def test_a_league_of_another_game_trains_evaluates_and_plays(
        league_run: tuple[TrainConfig, Path, str, dict[str, Path]], game: str) -> None:
    """lo-hi's and Hi MiLo!'s leagues write their evaluations against the game's baselines,
    and the saved policy plays the game's AEC env as ``rllib:PATH`` of that game, legally."""
    policy = league_run[3][game]
    with open(policy.parent / "evaluations.csv") as f:
        assert {r["opponent"] for r in csv.DictReader(f)} == set(OTHER_GAMES[game]["baselines"])
    spec = games.get(game)
    rules = spec.rules(OTHER_GAMES[game].get("rules"))
    learner = agents.make(f"rllib:{policy}", rules, game=game)
    env = spec.raw_env(rules)  # raises on an illegal action
    for episode in range(3):
        env.reset(seed=episode)
        while env.agents:
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else learner.act(obs["observation"],
                                                            obs["action_mask"]))


@pytest.mark.slow
def test_progress_prints_returns_as_numbers(
        league_run: tuple[TrainConfig, Path, str, dict[str, Path]]) -> None:
    """Each iteration's line gives each seat's mean return as a signed number (not NumPy's
    ``np.float64(...)``)."""
    first_run = league_run[2].split(str(league_run[1]))[0]
    lines = [ln for ln in first_run.splitlines() if ln.startswith("[iteration")]
    assert len(lines) == 2
    assert re.search(r"mean returns (none yet|player_0 [+-]\d+\.\d\d)", lines[-1]), lines
    assert "np." not in league_run[2] and "{" not in lines[-1]


@pytest.mark.parametrize(("returns", "text"), [
    ({}, "none yet"),
    ({"player_1": np.float64(-0.5), "player_0": np.float64(0.5)}, "player_0 +0.50, player_1 -0.50"),
    ({"player_0": np.float32("nan")}, "player_0 n/a"),
])
def test_returns_text(returns: dict, text: str) -> None:
    assert returns_text(returns) == text
