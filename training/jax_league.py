"""Agents with a jitted form: the opponents the JAX trainer (:mod:`training.jax_ppo`) plays
inside its compiled program. A jitted form is ``(play, data)`` (:func:`jitted_form`):
``play(data, observation, legal_action_mask, key) -> action`` for one game, and ``data`` the
arrays it reads (a network's weights, the caller's tables), which a compiled program takes as
arguments: baked into it as constants, a network's weights kept the JAX trainer compiling for
over two minutes on an H200 (docs/benchmarks.md, "GPU figures").
:func:`jitted_policy` binds the data: ``policy(observation, legal_action_mask, key)``
(:data:`~hilo_env.equation_hilo.jax_backend.Policy`).

| agent name                          | jitted form                                         |
|-------------------------------------|-----------------------------------------------------|
| ``random``                          | the backend's ``random_policy``                     |
| ``ppo:PATH`` of a ``.zip``          | the MaskablePPO model's MLP weights in the trainer's|
|                                     | network (:func:`sb3_params`), the most likely legal |
|                                     | action, as the agent plays (needs the train extra)  |
| ``ppo``, ``ppo_standard``, ... ,    | the saved network (the shipped policies are kept    |
| ``ppo:PATH`` of an ``.npz``,        | converted), the most likely legal action            |
| ``jax:PATH``                        |                                                     |
| ``caller``                          | :func:`caller_form`: the caller's rules on the      |
|                                     | observation, its discards from the solver's table   |
| ``heuristic``, the gauntlet's       | :func:`host_play`: the NumPy agent itself, asked    |
| styles, any other registered agent  | from the program through ``jax.pure_callback``,     |
|                                     | where it is deterministic (the heuristic is)        |

A host agent costs a round trip to the host and the agent's own Python speed at each opponent
turn, and under ``vmap`` a ``switch`` runs every opponent for every game: in a league it plays
for all the league's games, its own or not. :func:`jitted_form` refuses an agent that is not
deterministic under the rules (a registered agent that samples its actions) and the
``rllib:`` models. A frozen snapshot of the learner is played by sampling its network
(``training.jax_ppo.league_view``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from hilo_env import agents, games
from hilo_env.agents.convert import sb3_params
from hilo_env.agents.jax_policy import JAX_PREFIX, JaxPolicyAgent, Params, masked_log_probs, mlp
from hilo_env.agents.registry import PPO_PREFIX, RLLIB_PREFIX, needs_extra, shipped_networks
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards, solver
from hilo_env.equation_hilo.batch_state import NUMBERS_PER_HAND
from hilo_env.equation_hilo.jax_backend import Policy, multiset_of_code, random_policy
from hilo_env.equation_hilo.observation import layout
from hilo_env.equation_hilo.rules import RuleSet

_DISCARDS = (A.DISCARD_PLUS, A.DISCARD_MINUS, A.DISCARD_MULTIPLY)

def log_probs(params: Params, observation: jax.Array, mask: jax.Array) -> jax.Array:
    """The network's log-probabilities of every action (illegal ones masked)."""
    return masked_log_probs(mlp(params["policy"], observation, jnp), mask, jnp)


def value(params: Params, observation: jax.Array) -> jax.Array:
    """The network's value of an observation (its last axis dropped)."""
    return mlp(params["value"], observation, jnp)[..., 0]


Play = Callable[[Any, jax.Array, jax.Array, jax.Array], jax.Array]
"""``play(data, observation, legal_action_mask, key) -> action``: one game's decision by a
jitted form that reads its arrays from ``data``."""


def play_network(params: Params, observation: jax.Array, mask: jax.Array,
                 key: jax.Array) -> jax.Array:
    """A network's most likely legal action (a :data:`Play` whose data is the network)."""
    return jnp.argmax(log_probs(params, observation, mask)).astype(jnp.int32)


def play_random(data: Any, observation: jax.Array, mask: jax.Array, key: jax.Array
                ) -> jax.Array:
    """A uniform legal action (a :data:`Play` that reads no data)."""
    return random_policy(observation, mask, key)


def model_params(name: str, rules: Any, game: str | None = None) -> Params:
    """The network of a registered model agent: a MaskablePPO one (``ppo``, ``ppo_standard``,
    ``ppo:PATH``...; converted by :func:`sb3_params`) or ``jax:PATH``, as a function of
    today's whole observation. ValueError for any other agent."""
    agent = agents.make(name, rules, seed=0, game=game)
    if isinstance(agent, JaxPolicyAgent):
        return agent.whole_observation_parameters()
    if needs_extra(name, game) != "train":
        raise ValueError(f"agent {name!r} is no network (a MaskablePPO or jax: model)")
    policy = agent.whole_observation_parameters()["policy"]
    return sb3_params({k: v.detach().cpu().numpy() for k, v in policy.items()})


def caller_form(rules: RuleSet) -> tuple[Play, dict[str, jax.Array]]:
    """The jitted form of :class:`~agents.baselines.CallerAgent` under ``rules``: checks or
    calls; declares High when its High distance is the smaller (the observation's ``solver``
    slice), else Low; after a ×, gives up the operator whose loss leaves the best equation
    (the smallest of Low and High distances in the solver's table, the first on a tie) once
    its four numbers are known, else the first it may; otherwise its first legal action."""
    where = layout(rules)
    up_deals = len(rules.base_operators)
    low, high = solver.lookup_distances(np.arange(solver.NUM_SIGNATURES), rules.integer_results)
    # each signature's best distance as its rank among them all: float64's order in int32
    order = jnp.asarray(np.unique(np.minimum(low, high), return_inverse=True)[1]
                        .astype(np.int32))
    opset = np.full((solver.MAX_ROOTS + 1,) * solver.NUM_OPERATOR_KINDS, -1, np.int32)
    for counts in np.ndindex(opset.shape):  # counts of + - * / -> the tabulated set's id
        ops = "".join(op * k for op, k in zip(solver.OPERATORS, counts, strict=True))
        if 1 <= len(ops) <= solver.NUM_OPERATORS and \
                solver.canonical_operators(ops) in solver.OPSETS:
            opset[counts] = solver.opset_id(ops)
    tables = {"order": order, "opsets": jnp.asarray(opset),
              "multisets": jnp.asarray(multiset_of_code())}
    discards = jnp.array(_DISCARDS, jnp.int32)
    given_up = jnp.array([solver.OPERATORS.index(A.DISCARDED_OPERATOR[a]) for a in _DISCARDS])
    times = solver.OPERATORS.index("*")
    places = jnp.array([cards.NUM_VALUES ** k for k in range(NUMBERS_PER_HAND)][::-1])

    def play(data: dict[str, jax.Array], observation: jax.Array, mask: jax.Array,
             key: jax.Array) -> jax.Array:
        legal = mask.astype(bool)
        sol = observation[where["solver"]]
        low_d = jnp.where(sol[1] > 0.5, sol[2], jnp.inf)
        high_d = jnp.where(sol[3] > 0.5, sol[4], jnp.inf)
        declare = jnp.where((sol[0] > 0.5) & (high_d < low_d), A.DECLARE_HIGH, A.DECLARE_LOW)
        up = observation[where["face_up"]][:cards.DECK_SIZE]
        held = observation[where["hidden"]] + up[:cards.NUM_NUMBER_CARDS]
        by_value = held.reshape(cards.NUM_VALUES, cards.NUM_SUITS).sum(axis=1)
        values = jnp.repeat(jnp.arange(cards.NUM_VALUES), jnp.rint(by_value).astype(jnp.int32),
                            total_repeat_length=NUMBERS_PER_HAND)
        ops = jnp.rint(observation[where["operators"]][:solver.NUM_OPERATOR_KINDS]
                       ).astype(jnp.int32)
        roots = jnp.rint(observation[where["roots"]][0] * solver.MAX_ROOTS).astype(jnp.int32)
        after = ops[None] - jax.nn.one_hot(given_up, solver.NUM_OPERATOR_KINDS, dtype=jnp.int32)
        after = jnp.clip(after.at[:, times].add(1), 0, solver.MAX_ROOTS)
        ids = data["opsets"][after[:, 0], after[:, 1], after[:, 2], after[:, 3]]
        signature = (data["multisets"][values @ places] * solver.NUM_OPSETS + ids) \
            * (solver.MAX_ROOTS + 1) + roots
        may = legal[discards]
        rank = jnp.where((ids >= 0) & may, data["order"][signature],
                         jnp.iinfo(jnp.int32).max)
        known = jnp.rint(up[:cards.NUM_NUMBER_CARDS].sum()) >= up_deals
        discard = jnp.where(known, discards[jnp.argmin(rank)], discards[jnp.argmax(may)])
        return jnp.select(
            [legal[A.CHECK], legal[A.CALL], legal[A.DECLARE_LOW], may.any()],
            [A.CHECK, A.CALL, declare, discard], jnp.argmax(legal)).astype(jnp.int32)

    return play, tables


def has_jitted_form(name: str, game: str | None = None) -> bool:
    """Whether :func:`jitted_form` may play agent ``name`` (loads nothing): a native form, a
    network, or another registered Equation Hi-Lo agent through :func:`host_play` (refused
    there if it is not deterministic under the rules)."""
    return games.get(game).can("jax") and not name.startswith(RLLIB_PREFIX) and (
        name.startswith((PPO_PREFIX, JAX_PREFIX)) or name in agents.names(game))


def is_network(name: str, game: str | None = None) -> bool:
    """Whether agent ``name`` is a network the JAX trainer plays natively (:func:`model_params`)."""
    return name.startswith((PPO_PREFIX, JAX_PREFIX)) or name in shipped_networks(game)


def host_play(agent: Any) -> Play:
    """A deterministic NumPy agent as a :data:`Play` that reads no data: the compiled program
    asks the agent itself for its actions through ``jax.pure_callback``, under ``vmap`` once
    for the whole batch (``act_batch``). Rows without a legal action get 0 unasked."""
    def actions(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        observation = np.asarray(observation, np.float32)
        mask = np.asarray(mask).astype(bool)
        rows, masks = observation.reshape(-1, observation.shape[-1]), mask.reshape(
            -1, mask.shape[-1])
        out = np.zeros(len(rows), np.int32)
        live = masks.any(axis=1)
        if live.any():
            out[live] = agent.act_batch(rows[live], masks[live])
        return out.reshape(observation.shape[:-1])

    def play(data: Any, observation: jax.Array, mask: jax.Array, key: jax.Array
             ) -> jax.Array:
        return jax.pure_callback(actions, jax.ShapeDtypeStruct((), jnp.int32), observation,
                                 mask, vmap_method="broadcast_all")

    return play


def jitted_form(name: str, rules: Any, game: str | None = None) -> tuple[Play, Any]:
    """The jitted form of the registered agent ``name`` under ``rules``, ``(play, data)``
    (see the module docstring); ValueError for an agent without one, naming those with
    one."""
    agents.check(name, game)
    games.get(game).require("jax")
    if not has_jitted_form(name, game):
        with_form = [n for n in agents.names(game) if has_jitted_form(n, game)]
        raise ValueError(f"agent {name!r} has no jitted form for the JAX trainer; these have "
                         f"one: {', '.join(with_form)}")
    if name == "random":
        return play_random, ()
    if name == "caller":
        return caller_form(games.get(game).rules(rules))
    if is_network(name, game):
        return play_network, jax.tree_util.tree_map(jnp.asarray,
                                                    model_params(name, rules, game))
    rule_set = games.get(game).rules(rules)
    agent = agents.make(name, rule_set, seed=0, game=game)
    if not agent.deterministic:
        raise ValueError(f"agent {name!r} is not deterministic at {rule_set.num_players} "
                         "players: the JAX trainer plays a NumPy agent through a host callback "
                         "only where its action is a function of its observation")
    return host_play(agent), ()


def jitted_policy(name: str, rules: Any, game: str | None = None) -> Policy:
    """:func:`jitted_form` with its data bound, ``policy(observation, legal_action_mask,
    key)``: a program that calls it holds the data as constants (fine for a small one)."""
    play, data = jitted_form(name, rules, game)
    return functools.partial(play, data)
