"""Self-play MaskablePPO for any registered game: Equation Hi-Lo on the batched simulator (or,
for rules it refuses such as ``tiny``, on the AEC env's games), every other game on its AEC
env's games (:func:`learner_env`). Reads top to bottom, like CleanRL's scripts.

    hilo train configs/train/selfplay.yaml
    hilo train configs/train/lohi_2p.yaml     # game: lohi

1. the config is checked and logged (every hyperparameter, to TensorBoard and config.yaml);
2. the learner plays one seat of ``num_envs`` simulated games; the other seats are played by an
   opponent pool (in a cooperative game, its partners): the baseline agents, joined every
   ``snapshot_every`` decisions by a frozen
   copy of the learner (the oldest copies leave after ``max_snapshots``); with ``collectors``
   the games are played in worker processes while the learner updates (``training.overlap``);
3. every ``eval_every`` decisions the learner plays duplicate deals against each baseline and
   logs its score per unit (Equation Hi-Lo's chips per hand, lo-hi's reward per game, Hi
   MiLo!'s team wins per round) with a 95% confidence interval (``eval/<baseline>``);
4. checkpoints every ``checkpoint_every`` decisions, and ``model.zip`` at the end.

With ``imitate``, the learner first copies a registered agent's play (``training.imitation``).

``train(..., seconds=S)`` ends within about ``S`` seconds, evaluations included, as ``hilo
exploit --minutes`` asks (:mod:`training.budget`); ``eval_every_seconds`` evaluates on the same
clock.
"""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np
import yaml

from hilo_env import agents, games
from hilo_env.agents.convert import start_parameters
from hilo_env.agents.ppo import save_model
from hilo_env.envs.aec_learner import AECLearnerVectorEnv
from hilo_env.envs.sb3 import make_sb3_vec_env
from hilo_env.envs.vector_env import HiLoVectorEnv
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.game_spec import GameSpec
from hilo_env.training.budget import RunClock
from hilo_env.training.config import TrainConfig
from hilo_env.training.evaluate import play_table
from hilo_env.training.learner_games import OpponentPool, learner_env, unchecked_distributions

if TYPE_CHECKING:
    from hilo_env.training.overlap import Collectors

Games = Union[HiLoVectorEnv, AECLearnerVectorEnv, "Collectors"]
"""Where the learner's games are played: in this process, or in collector processes."""


def score_name(spec: GameSpec) -> str:
    """What an evaluation measures, as its column in ``evaluations.csv``: the game's score
    per unit (``chips_per_hand``, ``reward_per_game``, ``team_win_per_round``)."""
    return f"{spec.score}_per_{spec.unit}".replace(" ", "_")


def unshaped(rules: Any, spec: GameSpec) -> Any:
    """``rules`` with the game's reward fields (``spec.reward_fields``: shaping terms) at their
    defaults: a learner trained on shaped rewards is evaluated on the game itself."""
    defaults = {f.name: f.default for f in dataclasses.fields(rules)
                if f.name in spec.reward_fields}
    return spec.resolve(rules, **defaults) if defaults else rules


def evaluate_model(model_path: str | Path, rules: Any, baselines: list[str], hands: int,
                   seed: int, game: str | None = None, prefix: str = "ppo:"
                   ) -> dict[str, tuple[float, float]]:
    """Mean score per unit of a saved model (and 95% CI) against each baseline, duplicate
    deals: the model in one seat, the baseline in every other (as the learner trains). In a
    cooperative game the score is the share of rounds the team won, the baselines being the
    model's partners. ``prefix``: the agent name's prefix that plays the model file (``jax:``
    for the JAX trainer's)."""
    scores = {}
    for name in dict.fromkeys(baselines):  # a baseline listed twice weighs the pool, once here
        learner = agents.make(f"{prefix}{model_path}", rules, seed=seed, game=game)
        field = [agents.make(name, rules, seed=seed + 1, game=game)] * (rules.num_players - 1)
        table = play_table([learner, *field], rules, deals=hands, seed=seed, game=game)
        scores[name] = table.win_rate(0) if games.get(game).cooperative else table.score(0)
    return scores


def plot_learning_curve(evaluations: str | Path, path: str | Path,
                        title: str = "MaskablePPO against the baselines, duplicate deals"
                        ) -> Path:
    """The score against each baseline at each evaluation (95% CI), from a run's
    ``evaluations.csv`` (its third column), saved as a picture; returns its path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(evaluations) as f:
        reader = csv.DictReader(f)
        score = (reader.fieldnames or ["", "", "score"])[2]
        rows = list(reader)
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for name in dict.fromkeys(r["opponent"] for r in rows):
        mine = [r for r in rows if r["opponent"] == name]
        ax.errorbar([int(r["timesteps"]) for r in mine], [float(r[score]) for r in mine],
                    yerr=[float(r["ci95"]) for r in mine], marker="o", capsize=3, label=name)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set(xlabel="learner decisions", ylabel=f"{score.replace('_', ' ')} (95% CI)",
           title=title)
    ax.legend()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def _scaled_rewards(vec_env: Any, scale: float) -> Any:
    """The SB3 VecEnv with its rewards multiplied by ``scale``."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class ScaleReward(VecEnvWrapper):
        def reset(self) -> np.ndarray:
            return self.venv.reset()

        def step_wait(self) -> tuple:
            obs, rewards, dones, infos = self.venv.step_wait()
            return obs, rewards * scale, dones, infos

    return ScaleReward(vec_env)


def phase_threads(config: TrainConfig) -> Any:
    """An SB3 callback giving torch ``config.torch_threads`` threads while rollouts are
    collected and ``config.update_threads`` for the gradient steps in between."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    class PhaseThreads(BaseCallback):
        def _on_rollout_start(self) -> None:
            torch.set_num_threads(config.torch_threads)

        def _on_rollout_end(self) -> None:
            torch.set_num_threads(config.update_threads)

        def _on_step(self) -> bool:
            return True

    return PhaseThreads()


def make_learner(config: TrainConfig, rules: RuleSet) -> tuple[Any, Games, OpponentPool]:
    """The MaskablePPO learner on ``config.num_envs`` simulated games against the opponent
    pool, as :func:`train` runs it (``bench/train.py`` times its ``learn``). With
    ``config.collectors`` the games are played in worker processes
    (:class:`training.overlap.Collectors`, returned as the games; ``close()`` ends them) by
    an :class:`training.overlap.OverlappedPPO`, and the pool returned is not theirs: add
    snapshots with :func:`add_snapshot`."""
    import torch
    from sb3_contrib import MaskablePPO

    # small networks on a 2-core machine: one torch thread leaves the other core to the
    # simulator (two threads contend and run several times slower)
    torch.set_num_threads(config.torch_threads)
    pool = OpponentPool(config, rules)
    env: Games
    if config.collectors:
        from hilo_env.training.overlap import Collectors, OverlappedPPO

        env = vec_env = Collectors(config)  # the collectors scale the rewards
        algorithm: type[MaskablePPO] = OverlappedPPO
    else:
        env = learner_env(rules, config.num_envs, pool.opponents(config.num_envs), config.seed,
                          config.game, config.selfplay_share)
        vec_env = _scaled_rewards(make_sb3_vec_env(env), config.reward_scale)
        algorithm = MaskablePPO
    try:  # the collectors' processes end if the learner cannot be built
        model = build_model(algorithm, config, vec_env, rules)
        if config.collectors:
            model.autocast_updates = config.update_precision == "bfloat16"
    except BaseException:
        env.close()
        raise
    return model, env, pool


def build_model(algorithm: Any, config: TrainConfig, vec_env: Any, rules: RuleSet) -> Any:
    """``algorithm`` (MaskablePPO or a subclass) with ``config``'s hyperparameters on
    ``vec_env``, from ``config.init_model``'s weights if it names one."""
    model = algorithm(
        "MlpPolicy", vec_env, learning_rate=config.learning_rate, n_steps=config.n_steps,
        batch_size=config.batch_size, n_epochs=config.n_epochs, gamma=config.gamma,
        gae_lambda=config.gae_lambda, clip_range=config.clip_range, ent_coef=config.ent_coef,
        vf_coef=config.vf_coef, max_grad_norm=config.max_grad_norm,
        policy_kwargs={"net_arch": list(config.net_arch)}, seed=config.seed, device="cpu")
    if config.init_model:  # checked against the rules and spaces as an agent would be
        params = start_parameters(rules, config.init_model, config.game)
        try:
            model.set_parameters(params, exact_match="policy.optimizer" in params)
        except (RuntimeError, ValueError, KeyError) as exc:  # torch's shape or name mismatch
            raise ValueError(f"init_model {config.init_model!r} does not fit net_arch "
                             f"{config.net_arch}: {exc}"[:400]) from None
    return model


def add_snapshot(config: TrainConfig, env: Games, pool: OpponentPool, path: Path) -> None:
    """The learner saved at ``path`` joins the opponent pool of the games: ``pool`` and
    ``env`` as :func:`make_learner` returned them (with collectors, their own pools)."""
    if config.collectors:
        env.add_snapshot(path)
    else:
        pool.add_snapshot(path)
        env.set_opponents(pool.opponents(config.num_envs))


def train(config: TrainConfig, progress: bool = True,
          on_eval: Callable[[int, dict[str, tuple[float, float]], float], None] | None = None,
          *,
          seconds: float | None = None, eval_every_seconds: float | None = None,
          curve_title: str | None = None) -> Path:
    """Train as ``config`` says; returns the path of the final model. ``on_eval(decisions,
    scores, seconds)`` hears each evaluation (``seconds``: of learning so far). ``seconds``: the
    whole run's budget, evaluations included (module docstring), even before
    ``total_timesteps``; ``eval_every_seconds``: evaluate on that clock as well as every
    ``eval_every`` decisions; ``curve_title``: the learning curve's title."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import HParam, configure

    # ---- 1. config, output folder, logging ----------------------------------------------------
    rules = config.rule_set()
    spec = games.get(config.game)
    score = score_name(spec)
    run_dir = config.run_dir
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    logger = configure(str(run_dir / "tb"), ["tensorboard", "csv"])

    # ---- 2. the simulator, the opponents and the learner -------------------------------------
    model, env, pool = make_learner(config, rules)
    model.set_logger(logger)
    if config.imitate:  # behaviour cloning first: PPO goes on from the copy
        from hilo_env.training.imitation import clone

        for key, value in clone(model, config, rules).items():
            logger.record(f"imitation/{key}", value)
        logger.dump(0)
    evals_path = run_dir / "evaluations.csv"
    clock = RunClock(seconds, eval_every_seconds)

    def evaluate(step: int) -> None:
        with clock.evaluation() as learned:
            path = run_dir / "checkpoints" / "eval_model.zip"
            save_model(model, path, rules, config.game)
            scores = evaluate_model(path, unshaped(rules, spec), config.baselines,
                                    config.eval_hands, config.seed, config.game)
            with open(evals_path, "a", newline="") as f:
                writer = csv.writer(f)
                for name, (mean, ci) in scores.items():
                    logger.record(f"eval/{name}_{score}", mean)
                    logger.record(f"eval/{name}_ci95", ci)
                    writer.writerow([step, name, f"{mean:.4f}", f"{ci:.4f}"])
            logger.dump(step)
            if on_eval is not None:
                on_eval(step, scores, learned)

    class Schedule(BaseCallback):
        """Snapshots into the pool, evaluations and checkpoints, on their decision counts."""

        def _on_training_start(self) -> None:
            hparams = {k: str(v) if isinstance(v, list | dict) else v
                       for k, v in config.to_dict().items()}
            self.logger.record("hparams", HParam(hparams, {f"eval/{spec.baseline}_{score}": 0}),
                               exclude=("stdout", "csv"))

        def _on_step(self) -> bool:
            before, now = self.num_timesteps - self.training_env.num_envs, self.num_timesteps

            def crossed(every: int) -> bool:
                return every > 0 and now // every > before // every

            if crossed(config.snapshot_every):
                path = run_dir / "checkpoints" / f"snapshot_{now}.zip"
                save_model(self.model, path, rules, config.game)
                add_snapshot(config, env, pool, path)
            if crossed(config.checkpoint_every):
                save_model(self.model, run_dir / "checkpoints" / f"model_{now}.zip", rules,
                           config.game)
            on_clock = clock.due()
            last = now >= config.total_timesteps  # its evaluation comes after
            if (crossed(config.eval_every) or on_clock) and not last and clock.fits(2):
                evaluate(now)
            return clock.fits(1)  # else SB3 stops (its rollout under way is dropped)

    # ---- 3. learn, save, and a last evaluation --------------------------------------------------
    with open(evals_path, "w", newline="") as f:
        csv.writer(f).writerow(["timesteps", "opponent", score, "ci95"])
    clock.start()
    if seconds is not None:
        evaluate(0)
    try:
        with unchecked_distributions():
            model.learn(total_timesteps=config.total_timesteps,
                        callback=[Schedule(), phase_threads(config)], progress_bar=progress)
    finally:
        env.close()  # with collectors: their processes end here
    torch.set_num_threads(config.torch_threads)
    final = run_dir / "model.zip"
    save_model(model, final, rules, config.game)
    logger.record("time/train_seconds", clock.learning())
    evaluate(model.num_timesteps)
    plot_learning_curve(evals_path, run_dir / "learning_curve.png",
                        **({"title": curve_title} if curve_title else {}))
    return final
