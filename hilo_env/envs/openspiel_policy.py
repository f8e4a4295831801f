"""Exact exploitability of any agent on rules small enough to enumerate (the ``tiny`` preset),
through OpenSpiel (the ``openspiel`` extra).

:func:`exact_solvable` says which rules qualify (it needs no OpenSpiel). For those,
:func:`enumerate_game` walks ``python_hilo`` (:mod:`envs.openspiel_game`) once and writes the
game tree in Gambit's EFG format, which OpenSpiel loads as a C++ game, so that its CFR+ solver,
best responses and NashConv run at C++ speed; each information set keeps the AEC env's
observation and mask of a state in it, which is all an agent of our interface sees.

* :class:`AgentPolicy` adapts any :class:`hilo_env.agents.Agent` to an OpenSpiel policy on
  ``python_hilo``; :func:`agent_probabilities` is the distribution it plays, the agent's
  ``action_probabilities(observation, mask)``: its own where it has one (random, cfr_tiny,
  sampling models), a deterministic agent's ``act`` as a pure policy, and a refusal naming a
  stochastic agent that cannot say.
* :func:`exact_exploitability(agent, rules)` -> :class:`Exploitability`: the exact NashConv of
  the agent playing every seat, and the game value for player 0 (from CFR+).
* :func:`solve_cfr_plus(rules, iterations)` -> :class:`Solved`: OpenSpiel's CFR+ average policy,
  its NashConv and value, with NashConv at checkpoints.
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.rules import PRESETS, RuleSet, resolve

MAX_EXACT_STACK = 4
"""The largest starting stack :func:`exact_solvable` accepts (betting sequences grow fast)."""
MAX_EXACT_DEALS = 20_000
"""The most ordered deals of the number cards :func:`exact_solvable` accepts (tiny: 360)."""
VALUE_ITERATIONS = 1_000
"""CFR+ iterations behind the game value of rules without a shipped solution."""


def exact_solvable(rules: RuleSet | str) -> bool:
    """Whether OpenSpiel can enumerate these rules here, so that :func:`exact_exploitability`
    applies: 2 players, one hand, no specials (×, √), a starting stack of at most
    :data:`MAX_EXACT_STACK` and at most :data:`MAX_EXACT_DEALS` ordered deals of the number
    cards. ``tiny`` qualifies (360 deals, about 17,000 histories)."""
    rules = resolve(rules)
    numbers = len(rules.deck_values) * rules.deck_suits
    dealt = rules.num_players * rules.numbers_per_hand
    return (rules.num_players == 2 and rules.hands_per_episode == 1
            and rules.deck_multiply == 0 and rules.deck_roots == 0
            and rules.starting_stack <= MAX_EXACT_STACK
            and math.perm(numbers, dealt) <= MAX_EXACT_DEALS)


@dataclass(frozen=True)
class InfoSet:
    """One information set of the enumerated game."""

    player: int
    key: str
    """python_hilo's information-state string."""
    actions: tuple[int, ...]
    """The legal action ids, ascending."""
    observation: np.ndarray = field(repr=False)
    """The AEC env's observation of the player at a state of the set."""
    mask: np.ndarray = field(repr=False)
    """The AEC env's action mask there."""


@dataclass
class ExactGame:
    """A rule set's game tree, enumerated: the C++ EFG game and our information sets."""

    rules: RuleSet
    efg_game: Any
    """``pyspiel.load_efg_game`` of the tree; its information set ``i`` is ``infosets[i]``."""
    infosets: list[InfoSet]
    efg_keys: list[str] = field(default_factory=list)
    """Per information set, the EFG game's information-state string."""
    efg_actions: list[tuple[int, ...]] = field(default_factory=list)
    """Per information set, the EFG game's ids of its actions (in ``actions`` order)."""
    histories: Counter = field(default_factory=Counter)
    """Histories by kind: ``chance``, ``decision``, ``terminal``."""

    def infosets_per_player(self) -> list[int]:
        count = Counter(s.player for s in self.infosets)
        return [count[p] for p in range(self.rules.num_players)]

    def tabular(self, probabilities: Callable[[InfoSet], np.ndarray]) -> dict[str, list]:
        """An OpenSpiel tabular policy of the EFG game: ``probabilities(infoset)`` gives the
        probability of each legal action of a set (in ``actions`` order)."""
        table = {}
        for info, key, ids in zip(self.infosets, self.efg_keys, self.efg_actions, strict=True):
            probs = np.asarray(probabilities(info), dtype=np.float64)
            table[key] = list(zip(ids, probs.tolist(), strict=True))
        return table


def _require_solvable(rules: RuleSet) -> None:
    if not exact_solvable(rules):
        raise ValueError("these rules are too large to enumerate exactly (exact_solvable: 2 "
                         f"players, one hand, no × or √, starting_stack <= {MAX_EXACT_STACK}, "
                         f"at most {MAX_EXACT_DEALS:,} deals); the tiny preset qualifies")


@functools.lru_cache(maxsize=4)
def enumerate_game(rules: RuleSet) -> ExactGame:
    """Walk python_hilo under ``rules`` once: every history, every information set (with an
    observation and mask for agents), and the tree as a C++ EFG game (seconds for tiny)."""
    import pyspiel

    from hilo_env.envs import openspiel_game as G
    from hilo_env.equation_hilo.observation import action_mask

    _require_solvable(rules)
    game = G.load(rules)
    index: dict[str, int] = {}
    infosets: list[InfoSet] = []
    numbers: dict[str, int] = {}  # EFG numbers each player's information sets from 1
    per_player = Counter()
    histories: Counter = Counter()
    lines = [f'EFG 2 R "{G.SHORT_NAME} {_efg_text(str(rules))}" {{ "player_0" "player_1" }}']
    counters = {"chance": 0, "terminal": 0}

    def walk(state: Any, depth: int) -> None:
        pad = " " * depth
        if state.is_terminal():
            histories["terminal"] += 1
            counters["terminal"] += 1
            returns = " ".join(f"{r:g}" for r in state.returns())
            lines.append(f'{pad}t "" {counters["terminal"]} "" {{ {returns} }}')
            return
        if state.is_chance_node():
            histories["chance"] += 1
            counters["chance"] += 1
            outcomes = state.chance_outcomes()
            items = " ".join(f'"{state.action_to_string(pyspiel.PlayerId.CHANCE, a)}" '
                             f"1/{len(outcomes)}" for a, _ in outcomes)
            lines.append(f'{pad}c "" {counters["chance"]} "" {{ {items} }} 0')
            for action, _ in outcomes:
                walk(state.child(action), depth + 1)
            return
        histories["decision"] += 1
        player = state.current_player()
        key = state.information_state_string(player)
        observation = np.asarray(state.observation_tensor(player), np.float32)
        mask = action_mask(state.game)
        if key not in index:
            index[key] = len(infosets)
            per_player[player] += 1
            numbers[key] = per_player[player]
            infosets.append(InfoSet(player, key, tuple(state.legal_actions()), observation,
                                    mask))
        names = " ".join(f'"{A.action_to_string(a)}"' for a in state.legal_actions())
        lines.append(f'{pad}p "" {player + 1} {numbers[key]} "{index[key]}" {{ {names} }} 0')
        for action in state.legal_actions():
            walk(state.child(action), depth + 1)

    walk(game.new_initial_state(), 0)
    efg = pyspiel.load_efg_game("\n".join(lines) + "\n")
    exact = ExactGame(rules, efg, infosets, histories=histories)
    _index_efg(exact)
    return exact


def _efg_text(text: str) -> str:
    """Text safe inside an EFG quoted label."""
    return text.replace('"', "'")


def _index_efg(exact: ExactGame) -> None:
    """Find each information set's EFG key and action ids by walking the EFG game."""
    keys: list[str | None] = [None] * len(exact.infosets)
    ids: list[tuple[int, ...] | None] = [None] * len(exact.infosets)

    def walk(state: Any) -> None:
        if state.is_terminal():
            return
        if not state.is_chance_node():
            key = state.information_state_string()
            i = int(key.rsplit("-", 1)[-1])
            if keys[i] is None:
                keys[i] = key
                by_name = {state.action_to_string(a): a for a in state.legal_actions()}
                ids[i] = tuple(by_name[A.action_to_string(a)] for a in exact.infosets[i].actions)
        for action in state.legal_actions():
            walk(state.child(action))

    walk(exact.efg_game.new_initial_state())
    exact.efg_keys, exact.efg_actions = keys, ids


# ---- agents as policies --------------------------------------------------------------------


def agent_probabilities(agent: Any, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The distribution over the action space an agent plays at one observation, from the
    one public method every agent has (:meth:`agents.base.Agent.action_probabilities`: a
    deterministic agent's is all on its action; a stochastic agent without its own raises
    :class:`~agents.base.NoProbabilities`, naming it)."""
    return np.asarray(agent.action_probabilities(observation, mask), dtype=np.float64)


def _policy_class() -> type:
    from open_spiel.python import policy

    class AgentPolicy(policy.Policy):
        """Any agent of our interface as an OpenSpiel policy on python_hilo: at a state, the
        distribution :func:`agent_probabilities` gives for the AEC env's observation and mask
        of the player to act. Every player plays the agent."""

        def __init__(self, game: Any, agent: Any) -> None:
            super().__init__(game, list(range(game.num_players())))
            self.agent = agent

        def action_probabilities(self, state: Any, player_id: int | None = None) -> dict:
            from hilo_env.equation_hilo.observation import action_mask

            player = state.current_player() if player_id is None else player_id
            obs = np.asarray(state.observation_tensor(player), np.float32)
            probs = agent_probabilities(self.agent, obs, action_mask(state.game))
            return {a: float(probs[a]) for a in state.legal_actions(player)}

    return AgentPolicy


def agent_policy(game: Any, agent: Any) -> Any:
    """:class:`AgentPolicy` (an ``open_spiel.python.policy.Policy``) of ``agent`` on a
    python_hilo ``game``: what ``exploitability.nash_conv`` and the other Python algorithms
    take."""
    return _policy_class()(game, agent)


# ---- solving and measuring -----------------------------------------------------------------


@dataclass(frozen=True)
class Solved:
    """CFR+ on an enumerated game."""

    iterations: int
    nash_conv: float
    game_value: float
    """Player 0's expected return when both play the average policy."""
    policy: dict[str, dict[int, float]] = field(repr=False)
    """python_hilo information-state string -> action id -> probability."""
    curve: tuple[tuple[int, float, float], ...] = ()
    """(iterations, NashConv, seconds of solving so far) at the checkpoints asked for."""


def solve_cfr_plus(rules: RuleSet | str, iterations: int,
                   checkpoints: Sequence[int] = ()) -> Solved:
    """OpenSpiel's CFR+ (C++) for ``iterations`` on the enumerated game; NashConv measured at
    each checkpoint (the time excludes the measuring)."""
    import pyspiel

    exact = enumerate_game(resolve(rules))
    solver = pyspiel.CFRPlusSolver(exact.efg_game)
    curve, spent = [], 0.0
    for i in range(1, iterations + 1):
        start = time.perf_counter()
        solver.evaluate_and_update_policy()
        spent += time.perf_counter() - start
        if i in checkpoints:
            curve.append((i, pyspiel.nash_conv(exact.efg_game, solver.average_policy()), spent))
    average = solver.average_policy()
    policy = {}
    for info, key, ids in zip(exact.infosets, exact.efg_keys, exact.efg_actions, strict=True):
        probs = dict(average.get_state_policy(key))
        policy[info.key] = {a: float(probs.get(i, 0.0)) for a, i in zip(info.actions, ids,
                                                                           strict=True)}
    return Solved(iterations, pyspiel.nash_conv(exact.efg_game, average),
                  _value(exact, average), policy, tuple(curve))


def _value(exact: ExactGame, policy: Any) -> float:
    """Player 0's expected return when every player follows ``policy`` (an EFG policy)."""
    import pyspiel

    return float(pyspiel.expected_returns(exact.efg_game.new_initial_state(), policy, -1,
                                          True)[0])


@dataclass(frozen=True)
class Exploitability:
    """What :func:`exact_exploitability` measures."""

    nash_conv: float
    """The sum over players of what a best response to the agent gains (chips per hand): 0
    exactly at a Nash equilibrium."""
    game_value: float
    """Player 0's value of the game (CFR+ to NashConv below 1e-3; within that of exact)."""
    agent_value: float
    """Player 0's expected return when the agent plays both seats."""
    histories: int
    infosets: tuple[int, ...]
    """Information sets per player."""


def exact_exploitability(agent: Any, rules: RuleSet | str = "tiny") -> Exploitability:
    """The exact NashConv of ``agent`` (an :class:`Agent`, or a name for ``agents.make``)
    playing every seat of ``rules`` (which must be :func:`exact_solvable`), and the game
    value. Every information set asks the agent once (:func:`agent_probabilities`)."""
    import pyspiel

    rules = resolve(rules)
    _require_solvable(rules)
    if isinstance(agent, str):
        from hilo_env.agents.registry import make

        agent = make(agent, rules)
    elif getattr(agent, "rules", rules) != rules:
        raise ValueError(f"agent {getattr(agent, 'name', agent)!r} was made for other rules "
                         "than those it is measured on (make it for them)")
    exact = enumerate_game(rules)
    table = exact.tabular(lambda info: agent_probabilities(agent, info.observation,
                                                           info.mask)[list(info.actions)])
    policy = pyspiel.TabularPolicy(table)
    return Exploitability(nash_conv=float(pyspiel.nash_conv(exact.efg_game, policy)),
                          game_value=game_value(rules), agent_value=_value(exact, policy),
                          histories=sum(exact.histories.values()),
                          infosets=tuple(exact.infosets_per_player()))


@functools.lru_cache(maxsize=4)
def game_value(rules: RuleSet) -> float:
    """Player 0's value of ``rules`` from CFR+: for tiny, the value the shipped ``cfr_tiny``
    model records; otherwise CFR+ for :data:`VALUE_ITERATIONS` iterations, now."""
    from hilo_env.agents import cfr_tiny

    if rules == PRESETS[cfr_tiny.RULES] and cfr_tiny.MODEL.is_file():
        return float(cfr_tiny.read_model()["game_value"])
    return solve_cfr_plus(rules, VALUE_ITERATIONS).game_value


def lp_value(rules: RuleSet | str) -> float:
    """Player 0's value of a 2-player zero-sum game, exactly (to the LP solver's tolerance):
    the sequence-form linear program (Koller, Megiddo and von Stengel) on python_hilo, built
    with OpenSpiel's ``sequence_form_utils`` and solved by SciPy's HiGHS (OpenSpiel's own
    ``sequence_form_lp`` needs cvxopt). It walks python_hilo in Python: tens of seconds on
    tiny.

    Player 0 picks a realization plan x (E x = e, x >= 0) and q maximising f'q subject to
    F'q <= A'x: for a fixed x, the dual of player 1's best response min {x'A y : F y = f,
    y >= 0}."""
    from open_spiel.python.algorithms import sequence_form_utils as sf
    from scipy import optimize, sparse

    from hilo_env.envs import openspiel_game as G

    rules = resolve(rules)
    _require_solvable(rules)
    _, to_seq, action_maps, parent_map, payoff, _ = sf.construct_vars(G.load(rules))
    constraints = sf.construct_constraint_vars(parent_map, to_seq, action_maps)
    (E, e), (F, f) = constraints[0], constraints[1]
    A = sparse.csr_matrix(payoff[0])
    n0, m1 = A.shape[0], F.shape[0]
    cost = np.concatenate([np.zeros(n0), -f])  # minimise -f'q over (x, q)
    upper = sparse.hstack([-A.T, sparse.csr_matrix(F.T)])
    equal = sparse.hstack([sparse.csr_matrix(E), sparse.csr_matrix((E.shape[0], m1))])
    bounds = [(0, None)] * n0 + [(None, None)] * m1
    result = optimize.linprog(cost, A_ub=upper, b_ub=np.zeros(A.shape[1]), A_eq=equal,
                              b_eq=e, bounds=bounds, method="highs")
    if not result.success:
        raise RuntimeError(f"the sequence-form LP failed: {result.message}")
    return float(-result.fun)


def write_cfr_tiny(path: str | Path, iterations: int = 1_000) -> dict[str, Any]:
    """Solve tiny with CFR+ and write the ``cfr_tiny`` agent's model (see
    :mod:`agents.cfr_tiny`): the CFR+ policy keyed by the observation each information set
    shows, with the figures. Returns the figures. Raises if two information sets show the same
    observation (an agent could not then play the solved policy)."""
    from hilo_env.agents import cfr_tiny

    rules = PRESETS[cfr_tiny.RULES]
    exact = enumerate_game(rules)
    solved = solve_cfr_plus(rules, iterations)
    policy: dict[str, dict[str, float]] = {}
    for info in exact.infosets:
        key = cfr_tiny.observation_key(info.observation, info.mask)
        if key in policy:
            raise ValueError(f"information set {info.key!r} shows the same observation as "
                             "another: the observation does not tell them apart")
        policy[key] = {str(a): round(p, 12) for a, p in solved.policy[info.key].items()}
    figures = {"rules": cfr_tiny.RULES, "iterations": iterations,
               "nash_conv_cfr": solved.nash_conv, "game_value": solved.game_value}
    Path(path).write_text(json.dumps({**figures, "policy": policy}, indent=None))
    agent = cfr_tiny.CFRTinyAgent(rules, path=path)
    figures["nash_conv_agent"] = exact_exploitability(agent, rules).nash_conv
    Path(path).write_text(json.dumps({**figures, "policy": policy}, indent=None))
    return figures
