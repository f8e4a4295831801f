"""``hilo strength``: one strength table of every shipped agent of every game, written to
``docs/strength.md`` with a plot.

For each game of the registry (:func:`hilo_env.games.names`) and each table size at which the
game's ``ppo`` is shipped (else the game's smallest table), the shipped agents that can sit at
it (:func:`agents.registry.names`, the ``PREFIX:PATH`` forms, Equation Hi-Lo's gauntlet
styles and aliases of one model file left out) play a duplicate round robin
(:func:`training.evaluate.tournament`): head to head at 2 players, each agent's overall score
at larger tables, and in a cooperative game (Hi MiLo!) each agent's team win rate and the
ad-hoc rows (one agent among another's partners). On Equation Hi-Lo's standard rules at 2
players each agent also gets

* the best gauntlet player against it (:func:`training.gauntlet.gauntlet`; players it trained
  against are marked *in sample*),
* the LBR bound (:func:`training.lbr.lbr_match`; it trains nothing, so it is out of sample),
* with ``response_decisions``, the RL best responses' bounds (:func:`training.exploit.exploit`,
  fresh weights, ``response_seeds`` of them from seed :data:`RESPONSE_SEED` on, seeds no
  shipped run used: the bound's spread over seeds), on the JAX trainer where the agent has a
  jitted form and the ``jax`` extra is installed, else MaskablePPO (:func:`response_backend`);

at each larger Equation Hi-Lo table the agents of ``table_lbr_agents`` get their LBR bound
there (LBR in one seat, the agent in every other: :class:`training.lbr.TableLBR`);

and on ``tiny`` the exact NashConv (:func:`envs.openspiel_policy.exact_exploitability`, with
the ``openspiel`` extra) beside LBR's bound. Each trained model's training opponents are read
from its config (:func:`trained_against`). Budgets are duplicate deals and decisions, never
minutes; the document records the command, the machine and the minutes it took.

    from hilo_env.training.strength import Budget, build, write
    report = build(Budget(deals=1_000, lbr_deals=1_000))
    write(report, "docs/strength.md", "docs/strength.png")
"""

from __future__ import annotations

import functools
import importlib.util
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from hilo_env import agents, games
from hilo_env.agents.gauntlet import GauntletPlayer
from hilo_env.agents.registry import PPO_PREFIX
from hilo_env.training.evaluate import TournamentResult, tournament

RESPONSE_SEED = 7
"""The first RL best response's seed (the others follow it): no shipped model's training or
response used these."""
BACKEND_NAMES = {"jax": "JAX trainer", "sb3": "MaskablePPO"}
"""How the page names each trainer of a best response."""
SHIPPED = "ppo"
"""The agent name whose model files decide the table sizes of a game."""
DOC, PLOT = Path("docs/strength.md"), Path("docs/strength.png")


@dataclass(frozen=True)
class Budget:
    """What ``hilo strength`` spends, in duplicate deals and decisions."""

    deals: int = 1_000
    """Duplicate deals of each head-to-head table (every game, every size)."""
    gauntlet_deals: int = 500
    """Duplicate deals of each gauntlet match (Equation Hi-Lo, 2 players)."""
    lbr_deals: int = 1_000
    """Duplicate deals of each LBR match (Equation Hi-Lo: standard at every table size, tiny)."""
    response_decisions: int = 0
    """Decisions of each RL best response; 0 leaves the RL bound out."""
    response_seeds: int = 2
    """RL best responses to each agent, one per seed: the bound's spread."""
    table_lbr_agents: tuple[str, ...] = ("heuristic", "ppo")
    """The agents whose LBR bound each larger Equation Hi-Lo table measures (``ppo``: the
    model shipped for that size). An agent LBR refuses (no action probabilities) is listed
    as refused."""
    seed: int = 0


class Response(NamedTuple):
    """One RL best response's result against an agent."""

    mean: float
    """Its chips per hand against the agent."""
    ci: float
    decisions: int
    seed: int
    backend: str
    """The trainer: ``jax`` or ``sb3`` (:data:`BACKEND_NAMES`)."""


@dataclass
class Bounds:
    """One agent's exploitability evidence on Equation Hi-Lo's standard rules, 2 players."""

    gauntlet: tuple[str, float, float] | None = None
    """(best gauntlet player, the agent's chips per hand against it, CI)."""
    lbr: tuple[float, float] | None = None
    lbr_seconds: float = 0.0
    responses: list[Response] = field(default_factory=list)
    """The RL best responses, one per seed."""


@dataclass
class TableBound:
    """One agent's LBR bound at a larger Equation Hi-Lo table: LBR in one seat, the agent in
    every other, seats rotated."""

    players: int
    agent: str
    lbr: tuple[float, float] | None = None
    """LBR's chips per hand and its CI; None where LBR refuses the agent."""
    deals: int = 0
    seconds: float = 0.0


@dataclass
class Report:
    """Everything ``docs/strength.md`` shows."""

    budget: Budget
    tournaments: list[TournamentResult] = field(default_factory=list)
    bounds: dict[str, Bounds] = field(default_factory=dict)
    tiny: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    """Agent -> (exact NashConv, LBR's chips per hand on tiny, CI)."""
    table_bounds: list[TableBound] = field(default_factory=list)
    """The LBR bounds at 3 or more players (:attr:`Budget.table_lbr_agents`)."""
    notes: list[str] = field(default_factory=list)
    trained: dict[str, list[str]] = field(default_factory=dict)
    """Model agent (``game/name``) -> its training config's opponents."""
    seconds: float = 0.0
    command: str = ""


def table_sizes(game: str) -> list[int]:
    """The table sizes at which ``game``'s ``ppo`` can be made (a model shipped for them),
    else the game's smallest table."""
    spec = games.get(game)
    sizes = [n for n in range(spec.min_players, spec.max_players + 1)
             if SHIPPED in agents.names(game) and _makes(SHIPPED, spec.rules(None, n), game)]
    return sizes or [spec.min_players]


def _makes(name: str, rules: Any, game: str) -> Any:
    """The agent ``name`` made for ``rules``, or None when it cannot sit there (other rules,
    no model file)."""
    try:
        return agents.make(name, rules, seed=0, game=game)
    except (ValueError, FileNotFoundError, ImportError):
        return None


def seated_agents(game: str, rules: Any) -> list[str]:
    """The shipped agents of ``game`` that can sit at a table of ``rules``, one name per model
    file, the gauntlet's scripted styles left out."""
    names, models = [], set()
    for name in agents.names(game):
        if ":" in name:
            continue
        agent = _makes(name, rules, game)
        if agent is None or isinstance(agent, GauntletPlayer):
            continue
        model = getattr(agent, "path", None)
        if model is not None and model in models:
            continue
        models.add(model)
        names.append(name)
    return names


def trained_against(game: str, name: str, rules: Any) -> list[str] | None:
    """The opponents (and partners) a model agent trained against, from the bundled config
    named as its model file (``ppo_3p.zip``: ``ppo_3p``; ``lohi_ppo_2p.zip``: ``lohi_2p``)
    and its later stages, the configs named after it (``himilo_4p_adhoc`` after
    ``himilo_4p``): their baselines and, where they have them, snapshots of itself and
    self-play (a value agent's: the agent that played its first iteration, and itself after).
    None for an agent without a model file or config."""
    from hilo_env.training.config import TrainConfig, bundled_configs

    agent = _makes(name, rules, game)
    path = getattr(agent, "path", None)
    if path is None:
        return None
    configs = bundled_configs()
    stem = Path(path).stem
    first = stem if stem in configs else stem.replace(f"{PPO_PREFIX[:-1]}_", "")
    if first not in configs:
        return None
    out: list[str] = []
    for config in [first, *sorted(c for c in configs if c.startswith(f"{first}_"))]:
        loaded = TrainConfig.from_yaml(configs[config])
        if loaded.algorithm == "value":  # its baselines are partners in evaluations only
            out += [loaded.imitate or "random"]
            if loaded.total_timesteps > loaded.iteration_decisions:
                out.append("itself in every seat (self-play)")
            continue
        out += loaded.baselines
        if loaded.snapshot_every:
            out.append("snapshots of itself")
        if loaded.selfplay_share and (loaded.backend == "rllib"
                                      or games.get(loaded.game).cooperative):
            out.append("itself in every seat (self-play)")
    if stem == "ppo_population":
        out.append("best responses to its past selves (hilo population)")
    return list(dict.fromkeys(out))


def trained_key(game: str, name: str, players: int) -> str:
    """How :attr:`Report.trained` names an agent at a table size (``hilo/ppo, 2 players``):
    one name may play another model at each size."""
    return f"{game}/{name}, {players} players"


def build(budget: Budget, on_step: Callable[[str], None] | None = None,
          command: str = "", jobs: int = 1) -> Report:
    """Play everything :data:`DOC` shows under ``budget``; ``on_step`` hears each step. With
    ``jobs`` above 1 the steps (each match, each agent's bounds, tiny) run in that many
    processes at once: the same seeds, hence the same figures, in less time."""
    say = on_step or (lambda text: None)
    report = Report(budget=budget, command=command)
    start = time.perf_counter()
    steps: list[Step] = []
    for game in games.names():
        spec = games.get(game)
        for n in table_sizes(game):
            rules = spec.rules(None, n)
            names = seated_agents(game, rules)
            for name in names:
                trained = trained_against(game, name, rules)
                if trained is not None:
                    report.trained[trained_key(game, name, n)] = trained
            if len(names) < 2 and not spec.cooperative:
                report.notes.append(f"{spec.title}, {n} players: fewer than two agents")
                continue
            play = functools.partial(tournament, game=game, progress=False,
                                     rules_name=f"{spec.default_rules}, {n} players")
            steps.append(Step(f"{spec.title}, {n} players: {', '.join(names)}", play,
                              (names, rules, budget.deals * n, budget.seed),
                              report.tournaments.append))
    hilo = games.get(games.DEFAULT)
    standard = hilo.rules(None, 2)
    for name in seated_agents(games.DEFAULT, standard):
        steps.append(Step(f"gauntlet, LBR and RL responses against {name}", _bounds,
                          (name, standard, budget), functools.partial(report.bounds.__setitem__,
                                                                      name)))
    for n in table_sizes(games.DEFAULT):
        if n > 2:
            rules = hilo.rules(None, n)
            steps += [Step(f"LBR against {name}, {n} players", table_bound,
                           (name, rules, budget), report.table_bounds.append)
                      for name in seated_agents(games.DEFAULT, rules)
                      if name in budget.table_lbr_agents]
    steps.append(Step("tiny: exact NashConv and LBR", _tiny, (budget,),
                      lambda found: (report.tiny.update(found[0]), report.notes.extend(found[1]))))
    for step, result in zip(steps, run(steps, jobs, say), strict=True):
        step.keep(result)
    report.seconds = time.perf_counter() - start
    return report


class Step(NamedTuple):
    """One independent piece of :func:`build`: ``function(*args)``, whose result ``keep``
    puts in the report."""

    what: str
    """What it plays, for the progress lines."""
    function: Callable[..., Any]
    """A function at a module's top level, or a partial of one (a worker process imports it
    by name)."""
    args: tuple
    keep: Callable[[Any], Any]


def run(steps: list[Step], jobs: int, say: Callable[[str], None] = lambda text: None
        ) -> list[Any]:
    """Each step's result, in the steps' order: one by one here, or in ``jobs`` fresh
    processes (spawned, so no thread pool or JAX state is forked), each step once."""
    if jobs <= 1:
        out = []
        for step in steps:
            say(step.what)
            out.append(step.function(*step.args))
        return out
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_one_thread) as pool:
        futures = {pool.submit(step.function, *step.args): step.what for step in steps}
        say(f"{len(steps)} steps in {jobs} processes")
        for done in as_completed(futures):
            say(f"done: {futures[done]}")
        return [future.result() for future in futures]


def _one_thread() -> None:
    """A worker of :func:`run`: one thread for torch, as the processes share the cores."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def _bounds(name: str, rules: Any, budget: Budget) -> Bounds:
    from hilo_env.training.gauntlet import gauntlet
    from hilo_env.training.lbr import gives_probabilities, lbr_match

    out = Bounds()
    result = gauntlet(name, rules, budget.gauntlet_deals * 2, budget.seed)
    best = result.best_exploit()
    out.gauntlet = (best, *result.score(best))
    if gives_probabilities(agents.make(name, rules, seed=0)):
        match = lbr_match(name, rules, budget.lbr_deals, budget.seed)
        out.lbr, out.lbr_seconds = match.score(0), match.seconds
    if budget.response_decisions:
        from hilo_env.training.exploit import exploit

        backend = response_backend(name)
        for seed in range(RESPONSE_SEED, RESPONSE_SEED + budget.response_seeds):
            bound = exploit(name, "standard", decisions=budget.response_decisions, seed=seed,
                            hands=budget.lbr_deals, evals=1, output_dir="runs/strength",
                            name=f"response_{name}_{seed}", backend=backend).bound
            out.responses.append(Response(bound.mean, bound.ci, bound.decisions, seed,
                                          backend))
    return out


def response_backend(name: str) -> str:
    """The trainer of the RL responses to ``name``: ``jax`` (faster here than SB3's loop:
    docs/benchmarks.md, "PPO in JAX") where it plays in the JAX trainer and jax and optax are
    installed, else ``sb3``."""
    if all(importlib.util.find_spec(m) for m in ("jax", "optax")):
        from hilo_env.training.jax_league import has_jitted_form

        if has_jitted_form(name):
            return "jax"
    return "sb3"


def table_bound(name: str, rules: Any, budget: Budget) -> TableBound:
    """``name``'s LBR bound at a table of ``rules`` (3 or more players), ``budget.lbr_deals``
    duplicate deals; none where LBR refuses the agent."""
    from hilo_env.training.lbr import gives_probabilities, lbr_match

    n = rules.num_players
    if not gives_probabilities(agents.make(name, rules, seed=0)):
        return TableBound(n, name)
    match = lbr_match(name, rules, budget.lbr_deals, budget.seed)
    return TableBound(n, name, match.score(0), match.deals, match.seconds)


def _tiny(budget: Budget) -> tuple[dict[str, tuple[float, float, float]], list[str]]:
    """Exact NashConv and LBR on tiny, for the agents that sit there (:attr:`Report.tiny`),
    and the page's notes."""
    from hilo_env.training.lbr import lbr_match

    try:
        import pyspiel  # noqa: F401

        from hilo_env.envs.openspiel_policy import exact_exploitability
    except ImportError:
        return {}, ["tiny: the openspiel extra is not installed, no exact NashConv"]
    tiny = games.get(games.DEFAULT).rules("tiny")
    out = {}
    for name in seated_agents(games.DEFAULT, tiny):
        exact = exact_exploitability(name, tiny).nash_conv
        mean, ci = lbr_match(name, tiny, budget.lbr_deals, budget.seed).score(0)
        out[name] = (exact, mean, ci)
    return out, []


# ---- the document --------------------------------------------------------------------------


def _cell(mean: float, ci: float, percent: bool = False) -> str:
    if percent:
        return f"{mean:.1%} ± {ci:.1%}" if math.isfinite(ci) else f"{mean:.1%}"
    return f"{mean:+.2f} ± {ci:.2f}" if math.isfinite(ci) else f"{mean:+.2f}"


def head_to_head(result: TournamentResult) -> dict[tuple[str, str], tuple[float, float]]:
    """(row agent, column agent) -> the row agent's score against the column agent and its
    CI, from a 2-player round robin."""
    out = {}
    for t in result.tables:
        for i, name in enumerate(t.names):
            out[name, t.names[1 - i]] = t.score(i)
    return out


def markdown(report: Report) -> str:
    """``docs/strength.md``'s text."""
    b = report.budget
    lines = ["# Strength of the shipped agents", "",
             "Every shipped agent of every game, measured by the `strength` command of "
             "`hilo` (one command rebuilds this page and `docs/strength.png`; "
             "`training/strength.py`). Duplicate "
             "deals, seats rotated, 95% confidence intervals over deals. Scores are in each "
             "game's unit: chips per hand (Equation Hi-Lo), reward per game (lo-hi), the "
             "team's win rate per round (Hi MiLo!).", "",
             f"- command: `.venv/bin/{report.command}`",
             f"- machine: {machine()}, {platform.system()}, Python "
             f"{platform.python_version()}",
             f"- took {report.seconds / 60:.1f} minutes",
             f"- budgets: {b.deals:,} duplicate deals per head-to-head table, "
             f"{b.gauntlet_deals:,} per gauntlet match, {b.lbr_deals:,} per LBR match (at "
             f"3+ players against {', '.join(b.table_lbr_agents) or 'none'}); RL best "
             "responses: " + (f"{b.response_decisions:,} decisions each, fresh weights, "
                              + (f"seeds {RESPONSE_SEED} to {RESPONSE_SEED + b.response_seeds - 1}"
                                 if b.response_seeds > 1 else f"seed {RESPONSE_SEED}")
                              if b.response_decisions else
                             "left out of this run (`--response-decisions N` adds it; below "
                             "1.5 M decisions a fresh response finds nothing, so it is not "
                             "run at a budget that cannot find anything)"),
             f"- seed {b.seed}", ""]
    for result in report.tournaments:
        lines += _tournament_section(result)
    lines += _bounds_section(report)
    lines += _table_bounds_section(report)
    lines += _tiny_section(report)
    lines += _trained_section(report)
    lines += _closing_section(report)
    if report.notes:
        lines += ["## Notes", "", *[f"- {n}" for n in report.notes], ""]
    return "\n".join(lines) + "\n"


def machine() -> str:
    """The processor's name (Linux's ``/proc/cpuinfo``, else the platform's) and its cores."""
    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} cores"


def _tournament_section(result: TournamentResult) -> list[str]:
    spec, n = result.spec, len(result.tables[0].names)
    lines = [f"## {spec.title}, {result.rules_name}", ""]
    if spec.cooperative:
        lines += ["| table | team win rate | rounds |", "|---|---|---|"]
        for match, _, mean, ci, t, _ in result.rows():
            lines.append(f"| {match} | {_cell(mean, ci, True)} | {t.episodes:,} |")
        return [*lines, "", "`A ×n`: A in every seat (the team); `A among B`: one A with "
                            "B partners (ad-hoc teamwork).", ""]
    names = list(result.names)
    if n == 2:
        pairs = head_to_head(result)
        lines += ["Row agent's score against the column agent.", "",
                  "| agent | " + " | ".join(names) + " | overall |",
                  "|---" * (len(names) + 2) + "|"]
        for row in names:
            cells = ["" if row == col else _cell(*pairs[row, col]) for col in names]
            mean, ci, _ = result.overall(row)
            lines.append(f"| {row} | " + " | ".join(cells) + f" | {_cell(mean, ci)} |")
    else:
        lines += ["Each agent's score over every table it sat at.", "",
                  "| agent | overall | episodes |", "|---|---|---|"]
        for name in sorted(names, key=lambda nm: -result.overall(nm)[0]):
            mean, ci, episodes = result.overall(name)
            lines.append(f"| {name} | {_cell(mean, ci)} | {episodes:,} |")
    return [*lines, ""]


def _bounds_section(report: Report) -> list[str]:
    if not report.bounds:
        return []
    lines = ["## Equation Hi-Lo, standard rules, 2 players: exploitability bounds", "",
             "Lower bounds on what a best response wins per hand from each agent (higher: "
             "more exploitable). *Gauntlet*: the agent's score against the scripted player it "
             "does worst against (negative: that player beats it); *in sample* marks a player "
             "the agent trained against. *LBR*: the local best response's winnings "
             "(`hilo exploit AGENT --method lbr`), which trains nothing and so never met the "
             "agent: out of sample. *RL response*: the winnings of best responses from "
             "fresh weights, one per seed (their spread), each with its decisions and "
             "trainer.", "",
             "| agent | best gauntlet player | agent's score vs it | LBR bound | RL response |",
             "|---|---|---|---|---|"]
    none_found = []
    for name, b in report.bounds.items():
        trained = report.trained.get(trained_key(games.DEFAULT, name, 2), [])
        player, mean, ci = b.gauntlet
        tag = " (in sample)" if player in trained else ""
        lbr = f"{_cell(*b.lbr)} ({b.lbr_seconds:.0f}s)" if b.lbr else \
            "refused (no probabilities)"
        response = "not run"
        if b.responses:
            if all(r.mean - r.ci <= 0 for r in b.responses):
                none_found.append(name)
            response = "; ".join(
                f"{_cell(r.mean, r.ci)} (seed {r.seed}, {r.decisions:,} decisions, "
                f"{BACKEND_NAMES[r.backend]}{'' if r.mean - r.ci > 0 else ', none found'})"
                for r in b.responses)
        lines.append(f"| {name} | {player}{tag} | {_cell(mean, ci)} | {lbr} | {response} |")
    if none_found:
        lines += ["", f"*None found*: no RL response to {', '.join(none_found)} beats it at "
                      "this budget, so its bound is only exploitability >= 0. That says "
                      "little: a fresh response finds nothing below about 1.5 M decisions even "
                      "against agents a longer one beats."]
    if report.table_bounds:
        return [*lines, "", "The larger tables' agents: their LBR bounds in the next section.",
                ""]
    return [*lines, ""]


def _verdict(mean: float, ci: float) -> str:
    """The bound an LBR result gives: its CI's low end, or none found."""
    return (f"exploitability >= {mean - ci:+.2f}" if mean - ci > 0 else
            "no exploit found by LBR (the bound is only >= 0)")


def _table_bounds_section(report: Report) -> list[str]:
    if not report.table_bounds:
        return []
    sizes = sorted({b.players for b in report.table_bounds})
    lines = [f"## Equation Hi-Lo, standard rules, {sizes[0]}-{sizes[-1]} players: LBR bounds",
             "",
             "LBR in one seat and the agent in every other, seats rotated "
             "(`hilo exploit AGENT --method lbr --players N`): what one deviating seat wins "
             "per hand against N - 1 copies of the agent. Less its 95% CI it bounds the "
             "agent's one-seat exploitability from below (the agent's own table gives each "
             "seat at most 0, the house's odd chips aside). LBR trains nothing: out of "
             "sample.", "",
             "| players | agent | LBR bound | bound | deals | time |",
             "|---|---|---|---|---|---|"]
    for b in report.table_bounds:
        if b.lbr is None:
            lines.append(f"| {b.players} | {b.agent} | refused (it gives no action "
                         "probabilities) | | | |")
            continue
        lines.append(f"| {b.players} | {b.agent} | {_cell(*b.lbr)} | {_verdict(*b.lbr)} | "
                     f"{b.deals:,} | {b.seconds / 60:.1f} min |")
    return [*lines, ""]


def _tiny_section(report: Report) -> list[str]:
    if not report.tiny:
        return []
    lines = ["## Equation Hi-Lo, tiny rules: exact exploitability", "",
             "The exact NashConv (OpenSpiel, every information set) and what LBR wins per hand; "
             "tiny is zero-sum and seats are rotated, so an exact best response wins NashConv / "
             "2 per hand, LBR's upper limit.", "",
             "| agent | exact NashConv | exact best response / hand | LBR / hand |",
             "|---|---|---|---|"]
    for name, (exact, mean, ci) in report.tiny.items():
        lines.append(f"| {name} | {exact:.4f} | {exact / 2:+.4f} | {_cell(mean, ci)} |")
    return [*lines, ""]


def _trained_section(report: Report) -> list[str]:
    lines = ["## What each trained agent met in training", "",
             "From its training config (`configs/train/`): a scripted player or response "
             "listed here is in sample for that agent; LBR and the RL response above are "
             "not.", "", "| agent | trained against |", "|---|---|"]
    for key, opponents in report.trained.items():
        lines.append(f"| {key} | {', '.join(opponents)} |")
    return [*lines, ""]


def _closing_section(report: Report) -> list[str]:
    """The bounds in one paragraph: LBR's on the 2-player agents, then at larger tables."""
    if not report.bounds:
        return []
    said = []
    for name, b in report.bounds.items():
        if b.lbr is None:
            continue
        said.append(f"`{name}` {_cell(*b.lbr)} ({_verdict(*b.lbr)})")
    big = sorted({len(r.tables[0].names) for r in report.tournaments
                  if r.spec.can("lbr")} - {2})
    text = (f"LBR bounds, chips per hand, standard rules, 2 players, "
            f"{report.budget.lbr_deals:,} duplicate deals each: " + "; ".join(said) + ". LBR's "
            "look-ahead assumes both players check or call to the end, so an agent that "
            "punishes passivity can hold it to a small bound while a trained response still "
            "wins more: a bound near zero is not a proof of strength.")
    tables = [f"`{b.agent}` at {b.players} players {_cell(*b.lbr)} ({_verdict(*b.lbr)})"
              for b in report.table_bounds if b.lbr is not None]
    if tables:
        deals = sorted({b.deals for b in report.table_bounds if b.lbr is not None})
        text += (" At larger tables, LBR in one seat against the agent in all the others, "
                 f"{', '.join(f'{d:,}' for d in deals)} duplicate deals each: "
                 + "; ".join(tables) + ".")
        refused = sorted({b.agent for b in report.table_bounds if b.lbr is None})
        if refused:
            text += (f" LBR refuses {', '.join(f'`{r}`' for r in refused)} there: no "
                     "action probabilities.")
    elif big:
        text += (f" The larger tables' agents (`ppo` at {', '.join(map(str, big))} players) "
                 "have no LBR bound in this run; their evidence is the multi-player tables "
                 "above.")
    return ["## Closing note", "", text, ""]


def plot(report: Report, path: str | Path) -> Path:
    """The 2-player Equation Hi-Lo head-to-head as a heat map, and each agent's bounds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    first = next(r for r in report.tournaments
                 if r.spec.can("lbr") and len(r.tables[0].names) == 2)
    names = list(first.names)
    pairs = head_to_head(first)
    grid = np.array([[np.nan if a == b else pairs[a, b][0] for b in names] for a in names])
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    limit = np.nanmax(np.abs(grid))
    image = left.imshow(grid, cmap="RdYlGn", vmin=-limit, vmax=limit)
    left.set_xticks(range(len(names)), names, rotation=30, ha="right")
    left.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            if i != j:
                left.text(j, i, f"{grid[i, j]:+.1f}", ha="center", va="center", fontsize=8)
    left.set_title("head to head: row's chips per hand vs column")
    fig.colorbar(image, ax=left, shrink=0.8)
    agents_with = [nm for nm, b in report.bounds.items() if b.lbr]
    y = np.arange(len(agents_with))
    lbr = [report.bounds[nm].lbr for nm in agents_with]
    right.barh(y, [m for m, _ in lbr], xerr=[c for _, c in lbr], color="tab:blue", capsize=3,
               label="LBR")
    worst = [-report.bounds[nm].gauntlet[1] for nm in agents_with]
    right.scatter(worst, y, color="tab:red", zorder=3, label="best gauntlet player's win")
    right.set_yticks(y, agents_with)
    right.invert_yaxis()
    right.axvline(0, color="black", lw=0.8)
    right.set_xlabel("chips per hand won from the agent (95% CI)")
    right.set_title("exploitability lower bounds, standard rules")
    right.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write(report: Report, doc: str | Path = DOC, picture: str | Path = PLOT) -> Path:
    """Write the document and the plot; returns the document's path."""
    doc = Path(doc)
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(markdown(report))
    plot(report, picture)
    return doc


def progress(text: str) -> None:
    """Print a step of :func:`build` on stderr."""
    print(f"[strength] {text}", file=sys.stderr, flush=True)

