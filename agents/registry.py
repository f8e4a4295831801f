"""Agents by name, so tools and the CLI can say ``heuristic`` or ``ppo:runs/model.zip``.

Every game declares its agents by name in its :class:`~hilo_env.game_spec.GameSpec`
(``spec.agents``); :func:`make`, :func:`check`, :func:`names` and :func:`needs_extra` take a
``game`` (default: Equation Hi-Lo) and read that table, so a new game needs no edit here.
Equation Hi-Lo's table is :data:`AGENTS`:

| name            | agent                                                          |
|-----------------|----------------------------------------------------------------|
| ``random``      | :class:`agents.baselines.RandomAgent`                          |
| ``caller``      | :class:`agents.baselines.CallerAgent`                          |
| ``heuristic``   | :class:`agents.baselines.HeuristicAgent`                       |
| ``cfr_tiny``    | :class:`agents.cfr_tiny.CFRTinyAgent`: OpenSpiel's CFR+        |
|                 | solution of the ``tiny`` rules (those rules only)              |
| ``ppo``         | the shipped MaskablePPO policy: ``ppo_population`` (below) at  |
|                 | 2 players, ``ppo_3p`` ... ``ppo_6p`` at 3 to 6                 |
| ``ppo_population`` | ``agents/models/ppo_population.npz``: standard rules, 2     |
|                 | players; ``ppo_standard`` trained on by ``hilo population      |
|                 | ppo_population`` (PSRO-style, against past agents and best     |
|                 | responses to them)                                             |
| ``ppo_standard``| ``agents/models/ppo_standard.npz``: standard rules, 2 players; |
|                 | trained by ``hilo train ppo_standard`` (the ``ppo`` of earlier |
|                 | releases)                                                      |
| ``ppo_3p`` ...  | ``agents/models/ppo_3p.npz`` ... ``ppo_6p.npz``: standard      |
| ``ppo_6p``      | rules at 3 ... 6 players, one model per count; trained by      |
|                 | ``hilo train ppo_3p`` ... ``ppo_6p``                           |
| ``ppo:PATH``    | :class:`agents.ppo.PPOAgent`, a MaskablePPO model (needs the   |
|                 | ``train`` extra: torch, stable-baselines3, sb3-contrib); a     |
|                 | ``PATH`` ending in ``.npz`` is one converted to NumPy          |
|                 | (:mod:`agents.convert`), played as ``jax:PATH`` (no extra)     |
| ``rllib:PATH``  | :class:`agents.rllib.RLlibAgent`, an RLlib policy folder or    |
|                 | algorithm checkpoint (needs the ``rllib`` extra: ray, torch)   |
| ``jax:PATH``    | :class:`agents.jax_policy.JaxPolicyAgent`, a network saved by  |
|                 | the JAX trainer (``.npz``), played in NumPy (no extra)         |
| ``loose``,      | the gauntlet's scripted styles, :mod:`agents.gauntlet`         |
| ``tight``, ...  | (``gauntlet.STYLES``)                                          |

A game may also play saved models of its own kinds by prefix (its spec's ``model_agents``):
Hi MiLo!'s ``value:PATH`` is a network of :mod:`agents.himilo_value`.

The shipped MaskablePPO policies of every game are kept converted to NumPy
(:mod:`agents.convert`) and played by :class:`agents.jax_policy.JaxPolicyAgent`: they need no
extra, and a learner may start from them (:func:`shipped_networks`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hilo_env import games
from hilo_env.agents import gauntlet
from hilo_env.agents.base import JAX_PREFIX, PPO_PREFIX, RLLIB_PREFIX, Agent
from hilo_env.agents.baselines import CallerAgent, HeuristicAgent, RandomAgent
from hilo_env.agents.cfr_tiny import CFRTinyAgent
from hilo_env.equation_hilo.rules import RuleSet, short_repr
from hilo_env.game_spec import load

AgentFactory = Callable[[RuleSet, "int | None"], Agent]
MODEL_PREFIXES = {PPO_PREFIX: "sb3/ppo", RLLIB_PREFIX: "rllib/ppo", JAX_PREFIX: "jax/ppo"}
"""The saved models played by prefix, each with the trainer that saves them: a game takes
those its spec's ``trainers`` has."""
RLLIB_AGENT = "hilo_env.agents.rllib:RLlibAgent"
"""Entry point of the ``rllib:PATH`` agent, named rather than imported: that module makes its
fixed modules' agents with :func:`make`, so the registry stays below it."""
MODELS = Path(__file__).resolve().parent / "models"
SHIPPED_PPO = MODELS / "ppo_population.npz"
"""The trained policy behind the name ``ppo`` at two players."""
PPO_TABLES: dict[int, Path] = {n: MODELS / f"ppo_{n}p.npz" for n in range(3, 7)}
"""The model ``ppo`` plays at each larger table: one trained per player count."""
SHIPPED_MODELS: dict[str, Path] = {
    "ppo": SHIPPED_PPO,
    "ppo_population": SHIPPED_PPO,
    "ppo_standard": MODELS / "ppo_standard.npz",
    **{f"ppo_{n}p": path for n, path in PPO_TABLES.items()},
}
"""The trained MaskablePPO models shipped with the package (converted to NumPy), by agent
name; ``ppo`` names the one we stand behind at two players, and plays :data:`PPO_TABLES` at
larger tables."""


def shipped_path(name: str, rules: RuleSet) -> Path:
    """The model file the shipped agent ``name`` plays under ``rules``: ``ppo`` takes the one
    trained for the table's player count."""
    if name == "ppo":
        return PPO_TABLES.get(rules.num_players, SHIPPED_PPO)
    return SHIPPED_MODELS[name]


def shipped_model(name: str, tables: Mapping[int, Path] | None = None,
                  game: str | None = None) -> AgentFactory:
    """The factory of a shipped model's agent of ``game`` (None: Equation Hi-Lo), played in
    NumPy. ``tables``: the model file for each player count (a count without one:
    ValueError naming those with one); None: Equation Hi-Lo's :func:`shipped_path`."""

    def make(rules: Any, seed: int | None, allow_other_rules: bool = False) -> Agent:
        from hilo_env.agents.jax_policy import JaxPolicyAgent

        if tables is None:
            path = shipped_path(name, rules)
        elif rules.num_players in tables:
            path = tables[rules.num_players]
        else:
            raise ValueError(f"agent {name!r} of {games.get(game).title} has models for "
                             f"{', '.join(map(str, sorted(tables)))} players, not "
                             f"{rules.num_players}")
        agent = JaxPolicyAgent(rules, path, seed=seed, game=game, load=False,
                               allow_other_rules=allow_other_rules)
        agent.name = name
        agent.load()
        return agent

    make.network = True  # type: ignore[attr-defined]  # what shipped_networks reads
    make.trained = True  # type: ignore[attr-defined]  # takes allow_other_rules (make below)
    return make


AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "caller": CallerAgent,
    "heuristic": HeuristicAgent,
    "cfr_tiny": CFRTinyAgent,
    **{name: shipped_model(name) for name in SHIPPED_MODELS},
    **{name: gauntlet.factory(name) for name in gauntlet.STYLES},
}
"""Equation Hi-Lo's agents by name (its spec's ``agents``)."""


def _table(game: str | None) -> dict[str, AgentFactory]:
    return games.get(game).agent_factories()


def _prefixes(game: str | None) -> list[str]:
    """The ``PREFIX:PATH`` agents a game takes: the models of its trainers (MaskablePPO,
    RLlib, JAX: the spec's ``trainers``) and its own kinds (``spec.model_agents``)."""
    spec = games.get(game)
    trained = [prefix for prefix, trainer in MODEL_PREFIXES.items() if spec.can(trainer)]
    return [*trained, *(f"{prefix}:" for prefix, _ in spec.model_agents)]


def _model_agent(name: str, game: str | None) -> tuple[str, str] | None:
    """``(path, entry point)`` when ``name`` is one of the game's own ``prefix:PATH``."""
    for prefix, entry in games.get(game).model_agents:
        if name.startswith(f"{prefix}:"):
            return name[len(prefix) + 1:], entry
    return None


def names(game: str | None = None) -> list[str]:
    """The names ``make`` accepts for ``game`` (``ppo:PATH`` stands for any model file)."""
    return [*_table(game), *(f"{p}PATH" for p in _prefixes(game))]


_added: set[tuple[str, str]] = set()
"""``(game, name)`` of the agents added with :func:`register`."""


def register(name: str, factory: AgentFactory, game: str | None = None) -> None:
    """Add an agent of ``game`` under a new ``name``: ``factory(rules, seed)`` returns an
    :class:`Agent` (:func:`make` checks it does)."""
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(f"agent name {short_repr(name)} must be a non-empty text without ':'")
    if not callable(factory):
        raise ValueError(f"agent {name!r}: the factory is a callable factory(rules, seed), "
                         f"not {short_repr(factory)}")
    spec, table = games.get(game), _table(game)
    if name in table:
        raise ValueError(f"agent {name!r} of {spec.title} exists; unregister it first")
    table[name] = factory
    _added.add((spec.name, name))


def unregister(name: str, game: str | None = None) -> None:
    """Remove an agent added with :func:`register` (tests clean up with it); a built-in agent
    stays, with a ValueError."""
    spec, table = games.get(game), _table(game)
    if name in table and (spec.name, name) not in _added:
        raise ValueError(f"agent {name!r} of {spec.title} is built in; unregister removes only "
                         "agents added with register")
    table.pop(name, None)
    _added.discard((spec.name, name))


def shipped_networks(game: str | None = None) -> list[str]:
    """The names of ``game``'s shipped MaskablePPO policies (:func:`shipped_model`): networks
    a learner may start from, and the JAX trainer plays natively."""
    return [name for name, factory in _table(game).items() if getattr(factory, "network", False)]


def needs_extra(name: str, game: str | None = None) -> str | None:
    """The pip extra an agent's name needs (``train`` for ``ppo:PATH`` of a ``.zip``: torch
    and sb3-contrib; ``rllib`` for ``rllib:PATH``), or None; tools check it before any work
    starts."""
    check_name(name, game)
    if name.startswith(RLLIB_PREFIX):
        return "rllib"
    factory = _table(game).get(name)
    if (name.startswith(PPO_PREFIX) and not name.endswith(".npz")) \
            or getattr(factory, "extra", None) == "train":
        return "train"
    return None


def check_name(name: Any, game: str | None = None) -> None:
    """ValueError naming ``game``'s choices unless ``name`` is text."""
    if not isinstance(name, str):
        raise ValueError(f"an agent name is text, not {short_repr(name)}; choose from "
                         f"{', '.join(names(game))}")


def check(name: str, game: str | None = None) -> None:
    """Raise ValueError (naming the choices) unless ``name`` names an agent of ``game``;
    loads nothing."""
    spec = games.get(game)
    check_name(name, game)
    if name in _table(game):
        return
    prefixes = _prefixes(game)
    for prefix in (PPO_PREFIX, JAX_PREFIX):
        if prefix in prefixes and name.startswith(prefix):
            path = Path(name[len(prefix):])
            if not path.is_file():
                raise ValueError(f"agent {name!r}: no model file {str(path)!r}")
            return
    if RLLIB_PREFIX in prefixes and name.startswith(RLLIB_PREFIX):
        path = Path(name[len(RLLIB_PREFIX):])
        if not path.is_dir():
            raise ValueError(f"agent {name!r}: no policy folder {str(path)!r}")
        return
    own = _model_agent(name, game)
    if own is not None:
        if not Path(own[0]).is_file():
            raise ValueError(f"agent {name!r}: no model file {own[0]!r}")
        return
    raise ValueError(f"unknown agent {short_repr(name)}; choose from "
                     f"{', '.join(names(game))} (the {spec.title} agents)")


def make(name: str, rules: Any = None, seed: int | None = 0, game: str | None = None,
         allow_other_rules: bool = False) -> Agent:
    """A fresh agent of ``game`` by name for ``rules`` (a RuleSet, preset name or, for
    Equation Hi-Lo, a YAML path; None: the game's default preset). A trained model made for
    rules other than its own is refused unless ``allow_other_rules`` (:mod:`agents.ppo`)."""
    check(name, game)
    rules = games.get(game).rules(rules)
    own = _model_agent(name, game)
    if own is not None:
        return load(own[1])(rules, own[0], seed=seed, allow_other_rules=allow_other_rules)
    if name.startswith(PPO_PREFIX) and name.endswith(".npz"):
        from hilo_env.agents.jax_policy import JaxPolicyAgent

        agent = JaxPolicyAgent(rules, name[len(PPO_PREFIX):], seed=seed, load=False,
                               game=games.get(game).name, allow_other_rules=allow_other_rules)
        agent.name = name
        agent.load()
        return agent
    if name.startswith(PPO_PREFIX):
        from hilo_env.agents.ppo import (
            PPOAgent,  # torch stays unimported until a model is asked for
        )

        return PPOAgent(rules, name[len(PPO_PREFIX):], seed=seed, game=games.get(game).name,
                        allow_other_rules=allow_other_rules)
    if name.startswith(JAX_PREFIX):
        from hilo_env.agents.jax_policy import JaxPolicyAgent

        return JaxPolicyAgent(rules, name[len(JAX_PREFIX):], seed=seed,
                              game=games.get(game).name, allow_other_rules=allow_other_rules)
    if name.startswith(RLLIB_PREFIX):  # ray and torch load only now
        return load(RLLIB_AGENT)(rules, name[len(RLLIB_PREFIX):], seed=seed,
                                 allow_other_rules=allow_other_rules)
    factory = _table(game)[name]
    agent = factory(rules, seed, allow_other_rules=True) \
        if allow_other_rules and getattr(factory, "trained", False) else factory(rules, seed)
    if not isinstance(agent, Agent):
        raise ValueError(f"agent {name!r}: its factory returned {short_repr(agent)}, not an "
                         "Agent")
    agent.name = name
    return agent
