"""What every tool needs to know of a game, declared once in the game's own ``spec.py``.

In the spirit of OpenSpiel's ``_GAME_TYPE`` and ``_GAME_INFO``: a game folder declares one
:class:`GameSpec` (name, rules, players, action texts, result), and the CLI, the agent
registry, the play loop, the tournament runner, training and the benches read it, so no tool
keeps a per-game twin. The layers above the game (its PettingZoo env, its agents, its terminal
view) are named by entry points, ``"module:attribute"`` strings as Gymnasium's registry takes
them, and imported only when asked for: a game folder imports no RL library.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

UNITS = ("hand", "game", "round")
"""What one deal of a match counts: ``--hands``, ``--games`` or ``--rounds`` on the CLI."""
BACKENDS = {
    "engine": "scalar engine and PettingZoo env",
    "numpy": "NumPy batch simulator",
    "jax": "JAX backend",
}
"""What a game may run on (a spec's ``backends``), each as an error names it."""
TOOLS = {
    "openspiel": "OpenSpiel game",
    "exact": "exact exploitability through OpenSpiel (small rules)",
    "lbr": "local best response",
    "records": "deal records (the evaluator's record=)",
}
"""The tools a game may offer (a spec's ``tools``)."""
TRAINERS = {
    "sb3/ppo": "MaskablePPO trainer (backend sb3, algorithm ppo)",
    "rllib/ppo": "RLlib PPO trainer (backend rllib, algorithm ppo)",
    "jax/ppo": "JAX PPO trainer (backend jax, algorithm ppo)",
    "sb3/value": "value-network trainer (backend sb3, algorithm value)",
}
"""The trainers a game may have (a spec's ``trainers``), ``backend/algorithm`` as a training
config names them."""
CAPABILITIES = {**BACKENDS, **TOOLS, **TRAINERS}
"""Every capability :meth:`GameSpec.require` knows, with the words an error uses."""


def load(entry_point: str) -> Any:
    """The object an entry point ``"package.module:attribute"`` names (imported now)."""
    module, _, attribute = entry_point.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attribute) if attribute else found


@dataclass(frozen=True)
class GameSpec:
    """One game's facts (module docstring). Everything a tool asks of a game goes here."""

    name: str
    """The game's name on the command line (``--game``) and in configs (``game:``)."""
    title: str
    """The name people read: ``Equation Hi-Lo``, ``lo-hi``, ``Hi MiLo!``."""
    resolve: Callable[..., Any]
    """``resolve(rules, **overrides) -> RuleSet``: a preset name or RuleSet (and, where the
    game has them, a YAML path) with fields such as ``num_players`` overridden."""
    presets: tuple[str, ...]
    """The rule presets by name; the first is the default."""
    min_players: int
    max_players: int
    action_to_string: Callable[[int], str]
    """An action id's public text (``call``, ``play 7 7``, ``bid high``)."""
    env: str
    """Entry point of the PettingZoo AEC env class or factory: ``raw_env(rules) -> AECEnv``."""
    agents: str
    """Entry point of the game's agents by name: ``{name: factory(rules, seed) -> Agent}``."""
    terminal: str
    """Entry point of the terminal view that ``hilo play`` uses (``agents.play``)."""
    baseline: str
    """The rule-based agent: ``hilo play``'s default opponent (or partner)."""
    unit: str
    """What a match counts (one of :data:`UNITS`): one episode of the game's env."""
    score: str
    """What a seat's reward over one unit means, for tables: ``chips``, ``reward``..."""
    cooperative: bool = False
    """All seats share one reward (a team game): a tournament seats each agent as a whole
    team, and one agent among another's team (ad-hoc teamwork)."""
    description: str = ""
    """A line for ``--help`` and the docs."""
    reward_fields: tuple[str, ...] = ()
    """Rule fields that change only the rewards (shaping terms), not what a player sees or
    may do: a trained model plays under any value of them (``agents.ppo``), so a model
    trained on shaped rewards is evaluated under the unshaped preset."""
    match_fields: tuple[str, ...] = ()
    """Rule fields that set how long a match lasts, not how a deal is played: a trained model
    plays each deal of a longer or shorter match as it learned to, so it is made under any
    value of them, with a note saying so (its :attr:`~agents.base.Agent.rules_note`)."""
    model_agents: tuple[tuple[str, str], ...] = ()
    """The game's own kinds of saved model beyond MaskablePPO's ``ppo:PATH``: ``(prefix,
    entry point)`` pairs, the entry point a class made as ``cls(rules, path, seed=...,
    allow_other_rules=...)``; ``prefix:PATH`` plays the model at ``PATH`` (Hi MiLo!'s
    ``value:PATH``)."""
    observation_layout: str = ""
    """Entry point of ``layout(rules) -> {slice name: slice}``, the observation vector's
    named slices: a trained model records the slices it reads and reads them out of a later,
    larger observation (``agents.ppo``). Empty: a model reads the whole vector as it is."""
    backends: tuple[str, ...] = ("engine",)
    """What the game runs on (keys of :data:`BACKENDS`); every game has an engine."""
    tools: tuple[str, ...] = ()
    """The tools that serve the game (keys of :data:`TOOLS`)."""
    trainers: tuple[str, ...] = ()
    """How ``hilo train`` trains it, ``backend/algorithm`` (keys of :data:`TRAINERS`)."""
    gauntlet: str = ""
    """Entry point of the agent names ``hilo gauntlet`` sends against an agent when none are
    named, in order; empty: every other agent of the game."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"a game's name is a word of letters, digits and '_' (it is typed "
                             f"as --game), not {self.name!r}")
        for field in ("title", "env", "agents", "terminal", "baseline"):
            if not isinstance(getattr(self, field), str) or not getattr(self, field):
                raise ValueError(f"game {self.name!r}: {field} is a non-empty text, not "
                                 f"{getattr(self, field)!r}")
        if not (isinstance(self.presets, tuple) and self.presets
                and all(isinstance(p, str) and p for p in self.presets)):
            raise ValueError(f"game {self.name!r}: presets is a non-empty tuple of names, the "
                             f"default first, not {self.presets!r}")
        for field in ("min_players", "max_players"):
            if type(getattr(self, field)) is not int:
                raise ValueError(f"game {self.name!r}: {field} is an integer, not "
                                 f"{getattr(self, field)!r}")
        if self.unit not in UNITS:
            raise ValueError(f"game {self.name!r}: unit is one of {list(UNITS)}, not "
                             f"{self.unit!r}")
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(f"game {self.name!r}: players {self.min_players}.."
                             f"{self.max_players} is no range")
        for field, known in (("backends", BACKENDS), ("tools", TOOLS),
                             ("trainers", TRAINERS)):
            value = getattr(self, field)
            if not (isinstance(value, tuple) and all(isinstance(v, str) for v in value)
                    and set(value) <= set(known)):
                raise ValueError(f"game {self.name!r}: {field} is a tuple of names from "
                                 f"{list(known)}, not {value!r}")
        if "engine" not in self.backends:
            raise ValueError(f"game {self.name!r}: backends names 'engine' (every game has "
                             f"one), not only {self.backends!r}")

    @property
    def pettingzoo_name(self) -> str:
        """The PettingZoo env's name (its ``metadata["name"]``) and module under ``hilo_env``,
        an alias of :attr:`name`: ``hilo_v0`` (``from hilo_env import hilo_v0``)."""
        return f"{self.name}_v0"

    @property
    def openspiel_name(self) -> str:
        """The short name ``pyspiel.load_game`` takes, an alias of :attr:`name` for a game
        with the ``openspiel`` tool: ``python_hilo``."""
        return f"python_{self.name}"

    @property
    def capabilities(self) -> tuple[str, ...]:
        """Everything the game can do: its backends, tools and trainers."""
        return (*self.backends, *self.tools, *self.trainers)

    def can(self, capability: str) -> bool:
        """Whether the game has ``capability`` (a key of :data:`CAPABILITIES`)."""
        if capability not in CAPABILITIES:
            raise ValueError(f"unknown capability {capability!r}; choose from "
                             f"{list(CAPABILITIES)}")
        return capability in self.capabilities

    def require(self, capability: str) -> None:
        """ValueError naming the game and the capability unless the game has it."""
        if not self.can(capability):
            raise ValueError(f"{self.title} (game {self.name!r}) has no "
                             f"{CAPABILITIES[capability]} ({capability!r}); it has: "
                             f"{', '.join(self.capabilities)}")

    @property
    def default_rules(self) -> str:
        return self.presets[0]

    def rules(self, rules: Any = None, players: int | None = None) -> Any:
        """The RuleSet of ``rules`` (None: the default preset) with ``players`` seats when
        given; ValueError naming the game's range for a count it does not seat."""
        if players is not None and not (isinstance(players, int)
                                        and self.min_players <= players <= self.max_players):
            raise ValueError(f"{self.title} seats {self.min_players} to {self.max_players} "
                             f"players, not {players!r} (num_players)")
        rules = self.default_rules if rules is None else rules
        return self.resolve(rules) if players is None else self.resolve(rules,
                                                                        num_players=players)

    def raw_env(self, rules: Any = None, **kwargs: Any) -> Any:
        """A fresh PettingZoo AEC env of this game (no wrappers)."""
        return load(self.env)(self.default_rules if rules is None else rules, **kwargs)

    def agent_factories(self) -> Mapping[str, Callable[..., Any]]:
        """The game's agents by name (imports the agents module now)."""
        return load(self.agents)
