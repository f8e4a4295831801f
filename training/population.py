"""``hilo population CONFIG``: a PSRO-style loop, agents trained against a growing population
of their own past selves and of best responses to them.

Self-play against the baselines and a few snapshots leaves holes that a best response finds
(``hilo exploit``). Policy-Space Response Oracles (Lanctot et al., 2017) close them in turn:

1. a best response to the current agent is trained (:func:`training.exploit.exploit`, started
   from the agent's weights, ``response_decisions`` of learning) and its duplicate-match
   winnings recorded: a lower bound on the agent's exploitability;
2. the agent and its response join the population;
3. the next agent starts from the current one's weights and trains
   (:func:`training.selfplay.train`, the config's ``total_timesteps``) against the config's
   baselines plus the whole population, every member dealt the same share of games (a
   uniform meta-strategy: fictitious play over the population); each response is listed
   ``response_weight`` times, so the holes just found weigh more than old agents.

The responses are trained exactly as ``hilo exploit AGENT --start AGENT --decisions N --seed S``
trains them (the same budget, seed and settings for every agent), so the bounds at each
iteration are comparable: together they are the learning curve of exploitability over the
training (``exploitability.csv``, ``exploitability.png``), and the first is the start agent's
own. The run folder ``<output_dir>/<name>/`` holds ``agent_<i>/`` and ``response_<i>/`` runs,
``population.yaml`` (the loop's settings) and ``model.zip``, the last agent. Needs the
``train`` extra. A config with ``backend: jax`` runs the loop on the JAX trainer
(:mod:`training.jax_ppo`): agents and responses are ``jax:`` policies (``model.npz``), the
population plays inside the compiled program (every member has a jitted form), and ``start``
may be a ``jax:PATH`` policy too.

    hilo population ppo_population --start ppo_standard   # the run that made today's ppo
"""

from __future__ import annotations

import csv
import dataclasses
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from hilo_env.agents.ppo import observation_path, rules_path
from hilo_env.agents.registry import JAX_PREFIX, PPO_PREFIX
from hilo_env.training.config import TrainConfig
from hilo_env.training.exploit import (
    CurvePoint,
    ExploitResult,
    check_start,
    exploit,
    model_file,
)
from hilo_env.training.gauntlet import interval


@dataclass(frozen=True)
class Iteration:
    """One turn of the loop: the agent, its best response's bound, and what it had cost."""

    index: int
    agent: str
    """The agent's name (``ppo`` or ``ppo:PATH``)."""
    decisions: int
    """Learner decisions the population's training had taken when the agent was saved."""
    bound: CurvePoint
    """The response's final evaluation against the agent: the exploitability bound."""
    response: str
    """The response, as an agent name (``ppo:PATH``, or ``jax:PATH`` on the JAX trainer)."""


@dataclass
class PopulationResult:
    """The loop's iterations, the first the start agent's."""

    run_dir: Path
    response_decisions: int
    hands: int
    iterations: list[Iteration] = field(default_factory=list)
    wall_seconds: float = 0.0
    suffix: str = ".zip"
    """The models' file suffix: ``.zip`` (MaskablePPO) or ``.npz`` (the JAX trainer's)."""

    @property
    def model_path(self) -> Path:
        """The last agent's model."""
        return self.run_dir / f"model{self.suffix}"

    def table(self) -> str:
        """The learning curve of exploitability, as text."""
        lines = [f"Exploitability over the population's training: each agent's best response "
                 f"({self.response_decisions:,} decisions, started from the agent's weights), "
                 f"its chips per hand against the agent, {self.hands:,} duplicate deals, 95% CI",
                 "", f"{'iteration':>9}  {'decisions':>11}  {'bound':>8}  {'95% CI':>17}  agent"]
        lines.append("-" * (len(lines[-1]) + 20))
        for it in self.iterations:
            lines.append(f"{it.index:>9}  {it.decisions:>11,}  {it.bound.mean:>+8.3f}  "
                         f"{interval(it.bound.mean, it.bound.ci):>17}  {it.agent}")
        lines += ["", f"last agent: {self.model_path} ({self.wall_seconds / 60:.1f} min in all)",
                  f"curve: {self.run_dir / 'exploitability.csv'}, "
                  f"{self.run_dir / 'exploitability.png'}"]
        return "\n".join(lines)


def population(config: TrainConfig, *, start: str = "ppo", iterations: int = 3,
               response_decisions: int = 800_000,
               response_weight: int = 2, hands: int = 2_000,
               response_settings: dict[str, Any] | None = None, progress: bool = False,
               on_iteration: Callable[[Iteration], None] | None = None) -> PopulationResult:
    """Run the loop: ``iterations`` agents, each trained as ``config`` says (its
    ``total_timesteps``, settings and baselines) from the previous one (the first from
    ``start``: a shipped model's name, such as ``ppo_standard``, ``ppo:PATH`` or, on the JAX
    trainer, ``jax:PATH``) against the
    population; each agent's best response trained for ``response_decisions`` and evaluated
    on ``hands`` duplicate deals (seed ``config.seed``).
    ``response_settings``: :class:`TrainConfig` fields for the responses (``num_envs``,
    ``n_steps``...; default ``hilo exploit``'s). ``on_iteration`` hears each agent's bound as
    it is found."""
    for name, value, least in (("iterations", iterations, 1),
                               ("response_decisions", response_decisions, 1),
                               ("response_weight", response_weight, 1), ("hands", hands, 1)):
        if not (isinstance(value, int) and not isinstance(value, bool) and value >= least):
            raise ValueError(f"{name} must be an integer >= {least}, not {value!r}")
    rules = config.rule_set()
    model_file(start, rules)  # a trained agent whose file exists, before any work
    check_start(start, config.backend)
    run_dir = config.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    settings = {"start": start, "iterations": iterations,
                "response_decisions": response_decisions, "response_weight": response_weight,
                "hands": hands, "response_settings": response_settings or {},
                "train": config.to_dict()}
    (run_dir / "population.yaml").write_text(yaml.safe_dump(settings, sort_keys=False))
    jax = config.backend == "jax"
    prefix = JAX_PREFIX if jax else PPO_PREFIX
    result = PopulationResult(run_dir, response_decisions, hands, suffix=".npz" if jax else ".zip")
    began = time.perf_counter()
    members: list[str] = []

    def respond(index: int, agent: str, decisions: int) -> None:
        response: ExploitResult = exploit(
            agent, config.rules, decisions=response_decisions, seed=config.seed, hands=hands,
            output_dir=str(run_dir), name=f"response_{index}", start=agent, progress=progress,
            **{"net_arch": config.net_arch, "players": config.players,
               "backend": config.backend, **(response_settings or {})})
        it = Iteration(index, agent, decisions, response.bound,
                       f"{prefix}{response.model_path}")
        result.iterations.append(it)
        members.extend([agent, *[it.response] * response_weight])
        write_curve(result)
        if on_iteration is not None:
            on_iteration(it)

    agent, decisions = start, 0
    respond(0, agent, decisions)
    for index in range(1, iterations + 1):
        if jax:
            from hilo_env.training.jax_ppo import train
        else:
            from hilo_env.training.selfplay import train  # torch and SB3 load here

        trained = train(dataclasses.replace(
            config, name=f"agent_{index}", output_dir=str(run_dir),
            init_model=str(model_file(agent, rules)),
            baselines=[*config.baselines, *members], seed=config.seed + index),
            progress=progress)
        agent, decisions = f"{prefix}{trained}", decisions + config.total_timesteps
        respond(index, agent, decisions)
    last = model_file(agent, rules)
    for where in (Path, rules_path, observation_path):  # the model and what it keeps beside it
        if where(last).is_file():
            shutil.copyfile(where(last), where(result.model_path))
    result.wall_seconds = time.perf_counter() - began
    return result


def write_curve(result: PopulationResult) -> None:
    """``exploitability.csv`` and ``exploitability.png`` in the run folder: each agent's bound
    against the population's training decisions."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(result.run_dir / "exploitability.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["iteration", "decisions", "bound", "ci95", "agent", "response"])
        for it in result.iterations:
            writer.writerow([it.index, it.decisions, f"{it.bound.mean:.4f}",
                             f"{it.bound.ci:.4f}", it.agent, it.response])
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    ax.errorbar([it.decisions for it in result.iterations],
                [it.bound.mean for it in result.iterations],
                yerr=[it.bound.ci for it in result.iterations], marker="o", capsize=3)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set(xlabel="population training: learner decisions",
           ylabel="best response's chips per hand (95% CI)",
           title=f"Exploitability lower bound ({result.response_decisions:,}-decision "
                 "responses)")
    fig.savefig(result.run_dir / "exploitability.png", dpi=110, bbox_inches="tight")
    plt.close(fig)
