"""The one interface every policy of every game implements.

An agent is built for one game's rule set (it fixes the observation and action spaces) and a
``seed`` (its only source of randomness), then asked for actions::

    agent.act(observation, action_mask) -> int           # one decision
    agent.act_batch(observations, masks) -> np.ndarray   # (B, D), (B, A) -> (B,)
    agent.action_probabilities(observation, action_mask) -> np.ndarray  # (A,), sums to 1
    agent.value(observation, action_mask) -> float       # its estimate of how it stands

``observation`` is the flat float32 vector the game's env gives the agent's seat (its
``observation.py``) and ``action_mask`` the int8 mask of legal action ids. An agent must return
a legal action. How a game's agents read the vector back is theirs (Equation Hi-Lo's:
:mod:`agents.table_view`).

``action_probabilities`` is the distribution the agent plays at one observation (zero on
illegal actions): what a local best response (:mod:`training.lbr`) and exact exploitability
(:mod:`envs.openspiel_policy`) read. An agent that declares itself ``deterministic`` gets it
from ``act`` (all on the action it picks); a stochastic agent gives its own or is refused
(:class:`NoProbabilities`).

``value`` is, for an agent that learned one, its own estimate of how its seat stands at one
observation, in the unit its :attr:`Agent.value_label` names (a trained policy's value head:
the game's score it expects to the end of the episode; Hi MiLo!'s ``value`` agent: the chance
its team wins). Any other agent raises :class:`NoValue`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

PPO_PREFIX = "ppo:"
"""``ppo:PATH``: a saved MaskablePPO model (:mod:`agents.ppo`)."""
RLLIB_PREFIX = "rllib:"
"""``rllib:PATH``: an RLlib policy folder or checkpoint (:mod:`agents.rllib`)."""
JAX_PREFIX = "jax:"
"""``jax:PATH``: a network saved by the JAX trainer (:mod:`agents.jax_policy`)."""


class NoProbabilities(NotImplementedError):
    """Raised by an agent that cannot say the distribution it plays (stochastic, without an
    ``action_probabilities`` of its own)."""


class NoValue(NotImplementedError):
    """Raised by an agent that has no estimate of its own position (no value head)."""


class Agent(ABC):
    """A policy for one rule set of one game: ``act`` for one decision, ``act_batch`` for
    many. The game's observation and mask are all it sees."""

    name: str = "agent"
    observes: bool = True
    """False for an agent that ignores observations: batch callers may then pass none."""
    deterministic: bool = False
    """True for an agent whose action is a function of the observation and mask alone (no
    random draw): its :meth:`action_probabilities` is then ``act``'s action with probability 1."""
    rules_note: str = ""
    """How the rules it plays differ from those it was trained under (a trained model made for
    a longer match, or with ``allow_other_rules``): a line tools print beside its results."""
    value_label: str = ""
    """What :meth:`value` estimates, in a few words (``expected chips``); empty without one."""

    def __init__(self, rules: Any, seed: int | None = 0) -> None:
        """``rules``: the game's rule set (its ``rules.py``'s ``RuleSet``)."""
        self.rules = rules
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action id for one observation and its action mask."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for a batch: ``(B, D)`` observations, ``(B, A)`` masks -> int64 ``(B,)``."""
        return np.array([self.act(o, m) for o, m in zip(observations, masks, strict=True)],
                        dtype=np.int64)

    def action_probabilities(self, observation: np.ndarray,
                             action_mask: np.ndarray) -> np.ndarray:
        """The distribution it plays at one observation, over the action space (float64, zero
        on illegal actions). The default serves deterministic agents only; any other raises
        :class:`NoProbabilities` naming the agent."""
        if not self.deterministic:
            raise NoProbabilities(f"agent {self.name!r} ({type(self).__name__}) cannot give the "
                                  "probabilities of its actions: it is not deterministic and "
                                  "has no action_probabilities of its own")
        out = np.zeros(np.shape(action_mask)[-1])
        out[int(self.act(observation, action_mask))] = 1.0
        return out

    def action_probabilities_batch(self, observations: np.ndarray,
                                   masks: np.ndarray) -> np.ndarray:
        """:meth:`action_probabilities` of a batch: ``(B, D)``, ``(B, A)`` -> ``(B, A)``; a
        deterministic agent's from one ``act_batch`` call."""
        masks = np.asarray(masks)
        if self.deterministic:
            out = np.zeros(masks.shape)
            out[np.arange(len(masks)), self.act_batch(observations, masks)] = 1.0
            return out
        return np.array([self.action_probabilities(o, m)
                         for o, m in zip(observations, masks, strict=True)]).reshape(masks.shape)

    def value(self, observation: np.ndarray, action_mask: np.ndarray) -> float:
        """Its estimate of how its seat stands at one observation (:attr:`value_label` says
        in what unit). The default raises :class:`NoValue` naming the agent."""
        raise NoValue(f"agent {self.name!r} ({type(self).__name__}) has no value: it learned "
                      "no estimate of how its seat stands")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seed={self.seed!r})"


class ModelAgent(Agent):
    """An agent whose policy is a model run on batches (:meth:`model_actions`): ``act`` is
    one row of it and ``act_batch`` the batch, unless a subclass replaces ``act``, whose own
    policy batch play then asks row by row (:func:`overrides_act`)."""

    @abstractmethod
    def model_actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The model's actions for a batch: ``(B, D)``, ``(B, A)`` -> int64 ``(B,)``."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.model_actions(np.asarray(observation)[None],
                                      np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if overrides_act(self, ModelAgent):
            return super().act_batch(observations, masks)
        return self.model_actions(observations, masks)


def overrides_act(agent: Agent, base: type[Agent]) -> bool:
    """Whether ``agent``'s class replaces ``base``'s ``act``: then ``base``'s batch fast path
    would play ``base``'s policy, not the subclass's, so batch play must go through ``act``."""
    return type(agent).act is not base.act


def check_observations(agent: Agent, observations: np.ndarray, size: int) -> np.ndarray:
    """``observations`` (one vector or a batch) as an array whose rows are ``size`` long, else
    a ValueError naming both sizes: an agent fed another table's observations (another player
    count) would misread every field of them."""
    obs = np.asarray(observations)
    if obs.ndim == 0 or obs.shape[-1] != size:
        got = f"{obs.shape[-1]} numbers" if obs.ndim else f"the scalar {obs!r}"
        raise ValueError(f"agent {agent.name!r} reads observations of {size} numbers (its "
                         f"rules seat {agent.rules.num_players} players), got {got}: an "
                         "observation of another player count or game?")
    return obs
