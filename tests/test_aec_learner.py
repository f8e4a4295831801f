"""The learner view over the AEC env (envs/aec_learner.py) on tiny, which the batch simulator
refuses: legal episodes whose rewards are the learner's net chips, seats in turn, the vector
form, lo-hi's and Hi MiLo!'s AEC envs too; and a few hundred MaskablePPO decisions on tiny
through ``hilo train``. About 10 s of CPU (25 s wall on the shared 2-core box)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hilo_env import agents, raw_env
from hilo_env.envs.aec_learner import AECLearnerEnv, AECLearnerVectorEnv
from hilo_env.equation_hilo.rules import RuleSet

TINY = RuleSet.preset("tiny")


def play(env: AECLearnerEnv, steps: int, seed: int) -> list[tuple[str, float, int]]:
    """Random legal play; per finished episode: the learner, its rewards' sum, its chips."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset()
    episodes, total = [], 0.0
    for _ in range(steps):
        mask = env.action_masks()
        assert obs.shape == env.observation_space.shape and obs.dtype == np.float32
        assert mask.any() and (mask == info["action_mask"].astype(bool)).all()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        assert not truncated
        if terminated:
            seat = env.env.possible_agents.index(env.learner)
            net = env.env.game.stacks[seat] - TINY.starting_stack
            episodes.append((env.learner, total, net))
            total = 0.0
            obs, info = env.reset()
    return episodes


@pytest.mark.parametrize("opponent", ["random", "heuristic", "cfr_tiny"])
def test_legal_episodes_pay_the_learners_net_chips(opponent: str) -> None:
    env = AECLearnerEnv(raw_env(TINY), opponent=agents.make(opponent, TINY, seed=1), seed=0)
    episodes = play(env, 400, seed=2)
    assert len(episodes) > 100
    assert all(total == net for _, total, net in episodes)
    assert {round(t) for _, t, _ in episodes} > {0}  # chips change hands
    learners = [a for a, _, _ in episodes]
    assert set(learners) == {"player_0", "player_1"}
    # an episode is skipped only when the first player folds before the learner acts: the
    # learner wins the ante, 1 chip, kept apart from the rewards
    skipped = env.episodes - 1 - len(episodes)
    assert env.skipped_chips == skipped


@pytest.mark.parametrize("game", ["lohi", "himilo"])
def test_other_games_aec_envs(game: str) -> None:
    import importlib

    make = importlib.import_module(f"hilo_env.{game}_v0").raw_env
    env = AECLearnerEnv(make(), seed=0)
    obs, _ = env.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        obs, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert obs.shape == env.observation_space.shape
        if terminated:
            ended += 1
            env.reset()
    assert ended >= 1


def test_random_seats_and_refusals() -> None:
    env = AECLearnerEnv(raw_env(TINY), seat="random", seed=3)
    seats = {e[0] for e in play(env, 200, seed=4)}
    assert seats == {"player_0", "player_1"}
    with pytest.raises(ValueError, match="seat is one of"):
        AECLearnerEnv(raw_env(TINY), seat="left")
    fresh = AECLearnerEnv(raw_env(TINY))
    with pytest.raises(RuntimeError, match="call reset"):
        fresh.step(0)
    fresh.reset(seed=0)
    illegal = int(np.flatnonzero(~fresh.action_masks())[0])
    with pytest.raises(ValueError):
        fresh.step(illegal)
    with pytest.raises(ValueError, match="opponent is an agent"):
        fresh.set_opponent("heuristic")


@pytest.mark.parametrize("seat", ["alternate", "random"])
def test_a_seeded_reset_replays_as_a_new_env_would(seat: str) -> None:
    """reset(seed=s) after episodes played gives the episodes a new env's reset(seed=s)
    gives: the same seats, deals, opponent's moves and rewards for the same actions."""

    def record(env: AECLearnerEnv, seed: int) -> list:
        out, rng = [], np.random.default_rng(9)
        obs, _ = env.reset(seed=seed)
        for _ in range(40):
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            out.append((env.learner, obs.tobytes(), action))
            obs, reward, done, _, _ = env.step(action)
            out.append(reward)
            if done:
                obs, _ = env.reset()
        return out

    used = AECLearnerEnv(raw_env(TINY), seat=seat, seed=1)
    record(used, 3)
    record(used, 4)
    assert record(used, 11) == record(AECLearnerEnv(raw_env(TINY), seat=seat), 11)
    assert len({step[0] for step in record(used, 11)[::2]}) == 2  # both seats were played


def test_vector_form_restarts_episodes_and_shares_opponents() -> None:
    caller, rand = agents.make("caller", TINY), agents.make("random", TINY, seed=0)
    env = AECLearnerVectorEnv(lambda: raw_env(TINY), 4, opponents=[caller, rand], seed=0)
    assert [g.opponent for g in env.games] == [caller, rand, caller, rand]
    obs, _ = env.reset(seed=5)
    assert obs.shape == (4, *env.single_observation_space.shape)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(50):
        masks = env.action_masks()
        assert masks.shape == (4, env.single_action_space.n) and masks.any(axis=1).all()
        actions = [rng.choice(np.flatnonzero(m)) for m in masks]
        obs, rewards, term, _, infos = env.step(np.asarray(actions))
        if term.any():
            # one hand per episode: the chips come at its last step, so the return is that
            assert (infos["episode"]["r"][term] == rewards[term]).all()
            assert not rewards[~term].any()
            assert (infos["episode"]["l"][term] >= 1).all()
            ended += int(term.sum())
    assert ended > 20


def test_hilo_train_runs_on_tiny(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from hilo_env.agents.ppo import PPOAgent
    from hilo_env.cli import main
    from hilo_env.training.config import TrainConfig
    from hilo_env.training.learner_games import batch_simulated
    from hilo_env.training.selfplay import make_learner

    assert batch_simulated(RuleSet.preset("standard")) and not batch_simulated(TINY)
    config = tmp_path / "tiny_smoke.yaml"
    config.write_text("name: tiny_smoke\nrules: tiny\ntotal_timesteps: 384\nnum_envs: 4\n"
                      "n_steps: 32\nbatch_size: 64\nn_epochs: 1\nnet_arch: [16]\n"
                      "baselines: [random, heuristic]\nsnapshot_every: 128\neval_every: 0\n"
                      "eval_hands: 20\ncheckpoint_every: 0\n")
    _, env, _ = make_learner(TrainConfig.from_yaml(config), TINY)
    assert isinstance(env, AECLearnerVectorEnv)
    assert main(["train", str(config), "--output-dir", str(tmp_path), "--no-progress"]) == 0
    run = tmp_path / "tiny_smoke"
    assert any((run / "checkpoints").glob("snapshot_*.zip"))  # self-play joined the pool
    for deterministic in (False, True):
        agent = PPOAgent(TINY, run / "model.zip", deterministic=deterministic)
        learner = AECLearnerEnv(raw_env(TINY), seed=1)
        obs, info = learner.reset()
        probs = agent.action_probabilities(obs, info["action_mask"])
        legal = info["action_mask"].astype(bool)
        assert probs.sum() == pytest.approx(1.0) and probs[~legal].sum() < 1e-6
        if deterministic:
            assert probs[agent.act(obs, info["action_mask"])] == 1.0


def test_the_envs_default_opponent_plays_as_the_random_agent() -> None:
    """The envs' own random opponent (they import no agent) draws what ``random`` draws from
    the same seed, one decision or a batch at a time."""
    from hilo_env.envs.vector_env import RandomOpponent

    rng = np.random.default_rng(0)
    masks = (rng.random((50, 12)) < 0.4).astype(np.int8)
    masks[:, 3] = 1
    own, agent = RandomOpponent(7), agents.make("random", seed=7)
    assert np.array_equal(own.act_batch(None, masks), agent.act_batch(None, masks))
    assert [own.act(None, m) for m in masks] == [agent.act(None, m) for m in masks]
    assert not own.observes and not agent.observes
