"""PPO in JAX (training.jax_ppo): a short run learns to beat random play, its policy plays
legal actions in the AEC env by name (jax:PATH), the shipped MaskablePPO weights convert to
the same action probabilities, and a best response on the JAX trainer beats random.

The runs are tiny (a few thousand decisions, a [32, 32] network): compiling one iteration is
most of their time."""

from __future__ import annotations

import numpy as np
import pytest

from hilo_env import agents, games
from hilo_env.agents.jax_policy import JaxPolicyAgent, save_policy
from hilo_env.training.config import TrainConfig
from hilo_env.training.evaluate import play_table
from tests.helpers import record_aec, registered_coin

pytest.importorskip("jax")
pytest.importorskip("optax")

RULES = games.get(None).rules("standard")
DEALS = 1_000
"""Duplicate deals of each check against random: about ±0.3 chips per hand of 95% CI."""


def _score(path, seed: int = 7) -> tuple[float, float]:
    """The policy's chips per hand against random, duplicate deals, its actions sampled as
    in training (an untrained network then plays about as random does)."""
    learner = JaxPolicyAgent(RULES, path, seed=seed, deterministic=False)
    return play_table([learner, agents.make("random", RULES, seed=seed + 1)], RULES,
                      deals=DEALS, seed=seed).score(0)


@pytest.fixture(scope="module")
def response(tmp_path_factory):
    """A best response to random on the JAX trainer (hilo exploit --backend jax), and an
    untrained network of the same shape."""
    import jax

    from hilo_env.training import jax_ppo
    from hilo_env.training.exploit import exploit

    out = tmp_path_factory.mktemp("jax_ppo")
    fields = TrainConfig.from_yaml("jax_smoke").to_dict()
    small = {k: fields[k] for k in ("num_envs", "n_steps", "batch_size", "n_epochs",
                                    "learning_rate", "net_arch")}
    result = exploit("random", "standard", decisions=fields["total_timesteps"], seed=0,
                     hands=200, evals=1, output_dir=str(out), backend="jax", **small)
    fresh = jax_ppo.init_params(jax.random.PRNGKey(1), 240, 109, small["net_arch"])
    untrained = save_policy(jax.device_get(fresh), out / "untrained.npz", RULES)
    return result, untrained


@pytest.mark.slow
def test_a_short_run_beats_random_and_improves_on_its_start(response):
    result, untrained = response
    before, before_ci = _score(untrained)
    after, ci = _score(result.model_path)
    assert after - ci > 0, (after, ci)
    assert after - ci > before + before_ci, (before, before_ci, after, ci)


@pytest.mark.slow
def test_the_best_response_reports_a_bound_against_random(response):
    result, _ = response
    assert result.model_path.name == "model.npz"
    assert result.bound.decisions >= 4096
    assert result.bound.mean - result.bound.ci > 0, result.table()
    assert (result.run_dir / "evaluations.csv").is_file()
    assert (result.run_dir / "learning_curve.png").is_file()
    assert (result.run_dir / "progress.csv").read_text().count("\n") >= 2


def test_the_saved_policy_plays_legal_actions_in_the_aec_env(response):
    result, _ = response
    greedy = agents.make(f"jax:{result.model_path}", RULES, seed=0)
    assert isinstance(greedy, JaxPolicyAgent)
    sampling = JaxPolicyAgent(RULES, result.model_path, seed=1, deterministic=False)
    observations, masks, actions = _play_aec(greedy, sampling, episodes=40)
    assert len(actions) > 100  # both seats, about four decisions a hand
    assert masks[np.arange(len(actions)), actions].all()
    probs = sampling.action_probabilities_batch(observations, masks)
    assert (probs[~masks] == 0).all() and np.allclose(probs.sum(axis=1), 1, atol=1e-9)


def test_a_policy_for_other_rules_is_refused(response):
    result, _ = response
    with pytest.raises(ValueError, match="other rules"):
        agents.make(f"jax:{result.model_path}", games.get(None).rules("classic"))
    with pytest.raises(ValueError, match="no model file"):
        agents.make("jax:nowhere.npz", RULES)


def _play_aec(first, second, episodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations, masks and actions of every decision of ``episodes`` AEC games,
    ``first`` in seat 0 and ``second`` in seat 1."""
    return record_aec(RULES, [first, second], episodes)


def test_sb3_weights_convert_to_the_same_action_probabilities(tmp_path):
    """The shipped ppo model's network, jitted and in NumPy: the same probabilities as
    MaskablePPO's on the observations recorded from its play (tests/data, as
    tests/test_convert.py reads them)."""
    import jax
    import jax.numpy as jnp

    from hilo_env.training import jax_league
    from tests.test_convert import RECORDED

    assert agents.make("ppo", RULES).path.stem == "ppo_population"
    with np.load(RECORDED) as recorded:
        observations, masks, expected = (recorded[f"ppo_population.{key}"]
                                         for key in ("observations", "masks", "probabilities"))
    params = jax_league.model_params("ppo", RULES)
    jitted = np.exp(np.asarray(jax.jit(jax_league.log_probs)(
        jax.tree_util.tree_map(jnp.asarray, params), observations, masks)))
    np.testing.assert_allclose(jitted, expected, atol=2e-5)
    path = save_policy(params, tmp_path / "ppo.npz", RULES)
    sampling = JaxPolicyAgent(RULES, path, deterministic=False)
    mine = np.array([sampling.action_probabilities(o, m)
                     for o, m in zip(observations, masks, strict=True)])
    np.testing.assert_allclose(mine, expected, atol=2e-5)
    greedy = agents.make(f"jax:{path}", RULES)
    assert (greedy.act_batch(observations, masks) == expected.argmax(axis=1)).mean() > 0.98


@pytest.mark.parametrize("preset", ["standard", "classic", "duel"])
def test_the_jitted_caller_plays_as_the_caller(preset):
    """On every decision of 600 random-play hands (declarations and the discards after a ×
    among them), the jitted caller picks the NumPy caller's action."""
    import jax
    import jax.numpy as jnp

    from hilo_env.equation_hilo import actions as A
    from hilo_env.training.jax_league import jitted_policy

    rules = games.get(None).rules(preset)
    env = games.get(None).raw_env(rules)
    rng = np.random.default_rng(1)
    seen = []
    for hand in range(600):
        env.reset(seed=hand)
        while env.agents:
            observation, _, done, cut, _ = env.last()
            action = None
            if not (done or cut):
                seen.append((observation["observation"], observation["action_mask"]))
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(action)
    observations, masks = (np.stack(x) for x in zip(*seen, strict=True))
    discarding = masks[:, [A.DISCARD_PLUS, A.DISCARD_MINUS, A.DISCARD_MULTIPLY]].any(axis=1)
    assert discarding.sum() > 50 and masks[:, A.DECLARE_LOW].sum() > 200
    played = jax.jit(jax.vmap(jitted_policy("caller", rules), in_axes=(0, 0, None)))(
        jnp.asarray(observations), jnp.asarray(masks), jax.random.key(0))
    expected = agents.make("caller", rules).act_batch(observations, masks)
    assert np.array_equal(np.asarray(played), expected)


def test_opponent_networks_are_arguments_not_constants_of_the_iteration():
    """The opponents' arrays (ppo_standard's weights, the caller's tables) reach the compiled
    iteration as arguments: as constants folded into its kernels, a GPU compiled the program
    for minutes (docs/benchmarks.md, GPU figures)."""
    pytest.importorskip("sb3_contrib")
    import re

    import jax

    from hilo_env.training import jax_ppo

    config = TrainConfig(name="consts", output_dir="unused", rules="standard", backend="jax",
                         num_envs=8, n_steps=2, batch_size=16, n_epochs=1, net_arch=[32, 32],
                         baselines=["ppo_standard", "caller", "random"], snapshot_every=0)
    env = jax_ppo.check_config(config)
    iteration, learner, league = jax_ppo.make_learner(config, RULES, env)
    weights = {w.shape for w in jax.tree_util.tree_leaves(league.baselines[0])
               if np.ndim(w) == 2}
    assert (256, 256) in weights  # ppo_standard's hidden layer, in the league
    text = iteration.lower(learner, league).as_text()
    constants = set(re.findall(r"stablehlo\.constant dense<.*?> : tensor<(\d+)x(\d+)xf32>",
                               text))
    assert not {(int(a), int(b)) for a, b in constants} & weights


@pytest.fixture
def coin():
    with registered_coin() as name:
        yield name


def test_agents_without_a_jitted_form_are_refused(coin):
    from hilo_env.training import jax_league

    with pytest.raises(ValueError, match="'coin' is not deterministic at 3 players"):
        jax_league.jitted_policy(coin, games.get(None).rules("standard", 3))
    with pytest.raises(ValueError, match=r"lo-hi \(game 'lohi'\) has no JAX backend"):
        jax_league.jitted_policy("random", None, game="lohi")


def test_the_heuristic_plays_in_the_program_through_a_host_callback():
    """The heads-up heuristic (deterministic) inside a jitted, vmapped program: the NumPy
    agent's own actions, batch and single, and none asked where no action is legal."""
    import jax
    import jax.numpy as jnp

    from hilo_env.training.jax_league import jitted_policy

    observations, masks, _ = _play_aec(agents.make("random", RULES, seed=3),
                                       agents.make("random", RULES, seed=4), episodes=20)
    policy = jitted_policy("heuristic", RULES)
    played = jax.jit(jax.vmap(policy, in_axes=(0, 0, None)))(
        jnp.asarray(observations), jnp.asarray(masks), jax.random.key(0))
    expected = agents.make("heuristic", RULES).act_batch(observations, masks)
    assert len(expected) > 50 and np.array_equal(np.asarray(played), expected)
    assert int(jax.jit(policy)(observations[5], masks[5], jax.random.key(0))) == expected[5]
    empty = np.zeros_like(masks[:3])
    assert not np.asarray(jax.jit(jax.vmap(policy, in_axes=(0, 0, None)))(
        jnp.asarray(observations[:3]) * 0, jnp.asarray(empty), jax.random.key(0))).any()


def test_the_cli_refuses_what_the_jax_trainer_cannot_train(capsys, tmp_path, coin):
    from hilo_env.cli import EXIT_USAGE, main

    assert main(["exploit", coin, "--backend", "jax", "--decisions", "10", "--players",
                 "3"]) == EXIT_USAGE
    assert "--backend jax: agent 'coin' is not deterministic at 3 players" in \
        capsys.readouterr().err
    config = tmp_path / "lohi.yaml"
    config.write_text("game: lohi\nbackend: jax\nbaselines: [random]\n")
    assert main(["train", str(config)]) == EXIT_USAGE
    assert "a trainer of game 'lohi' (backend/algorithm): sb3/ppo" in capsys.readouterr().err


@pytest.mark.slow
def test_a_league_run_takes_snapshots_checkpoints_and_logs(tmp_path):
    """hilo train's path with a league: snapshots of the learner join its opponents (no
    recompile), checkpoints and the final policy are saved, every iteration is logged."""
    from hilo_env.training import jax_ppo

    config = TrainConfig.from_yaml("jax_smoke", output_dir=str(tmp_path), total_timesteps=3000,
                                   snapshot_every=1000, checkpoint_every=2000, eval_hands=20)
    heard = []
    final = jax_ppo.train(config, progress=False, on_eval=lambda *a: heard.append(a))
    run = tmp_path / "jax_smoke"
    assert final == run / "model.npz" and (run / "model.npz.rules.yaml").is_file()
    assert len(list((run / "checkpoints").glob("snapshot_*.npz"))) >= 2
    assert list((run / "checkpoints").glob("model_*.npz"))
    (step, scores, _), = heard  # eval_every 0: the final evaluation only
    # 32 games x 32 steps an iteration; each game's first step deals its first match
    assert step == 992 + 2 * 1024 and set(scores) == {"random"}
    rows = (run / "progress.csv").read_text().splitlines()
    assert len(rows) == 1 + 3 and "train/entropy" in rows[0]


def test_opponents_are_dealt_as_the_sb3_pool_deals_them():
    """Baselines in turn, a name listed twice as one policy twice as often; once there are
    snapshots, the first snapshot_share of the games play the iteration's snapshot."""
    from hilo_env.training.jax_ppo import opponent_ids

    config = TrainConfig(backend="jax", num_envs=6, snapshot_share=0.5,
                         baselines=["random", "random", "ppo:" + str(agents.registry.SHIPPED_PPO)])
    assert opponent_ids(config, 0).tolist() == [0, 0, 1, 0, 0, 1]
    assert opponent_ids(config, 2).tolist() == [2, 2, 2, 0, 0, 1]
