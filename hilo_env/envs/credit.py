"""Each seat's rewards on its own transitions, for any game's turn-based play: one place for
every library whose multi-agent route records the game step by step.

In a turn-based game a seat's transition runs from its decision to its next one (or to the
end): the chips of a hand that ends on another seat's move belong to it. Libraries that record
one row per env step put them elsewhere: TorchRL's ``PettingZooWrapper`` writes every seat's
reward on the step that earned it (mostly another seat's move, ``mask`` False), the parallel
view (``turn_based_aec_to_parallel``, AgileRL's and CleanRL-style loops) gives every seat a
transition at every step, and Tianshou's ``MultiAgentPolicyManager`` reads a seat's reward
only from rows where that seat acted. RLlib needs nothing: its ``MultiAgentEpisode`` adds a
reward that reaches an agent between its observations to that agent's pending transition.

:class:`SeatTransitions` keeps each seat's transition open until its next decision or its end
and adds every reward it receives meanwhile: fed step by step (the parallel recipe in
``docs/libraries.md``) it hands back only acting seats' transitions, each with its own
credit. :func:`credit_steps` applies it to recorded steps (arrays), :func:`credit_torchrl`
to a TorchRL rollout. A reward that reaches a seat before its first decision of an episode
(a hand everyone folded to it) has no transition: it is counted in ``unclaimed``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

NOBODY = -1
"""The actor id of a step where no seat decided."""


@dataclass
class Transition:
    """One seat's decision and what followed it until its next decision (or its end)."""

    agent: Any
    observation: Any
    action: Any
    step: int                     # the index of the step where the seat decided
    reward: float = 0.0           # every reward the seat received from then on
    next_observation: Any = None  # its observation at its next decision, or its last one
    terminated: bool = False
    truncated: bool = False


class SeatTransitions:
    """Each seat's open transition, fed in play order: :meth:`decide` when a seat acts,
    :meth:`receive` with every step's rewards (all seats), :meth:`finish` when a seat ends."""

    def __init__(self) -> None:
        self._open: dict[Any, Transition] = {}
        self.unclaimed: dict[Any, float] = {}
        """Rewards that reached a seat with no open transition (before its first decision)."""

    def decide(self, agent: Any, observation: Any, action: Any, step: int = 0) -> \
            Transition | None:
        """``agent`` acts: its previous transition, if any, closes on ``observation`` and is
        returned; a new one opens."""
        closed = self._open.pop(agent, None)
        if closed is not None:
            closed.next_observation = observation
        self._open[agent] = Transition(agent, observation, action, step)
        return closed

    def receive(self, rewards: Mapping[Any, float]) -> None:
        """Add one step's rewards, whoever acted, to each seat's open transition."""
        for agent, reward in rewards.items():
            if not reward:
                continue
            pending = self._open.get(agent)
            if pending is None:
                self.unclaimed[agent] = self.unclaimed.get(agent, 0.0) + float(reward)
            else:
                pending.reward += float(reward)

    def finish(self, agent: Any, observation: Any = None, terminated: bool = True,
               truncated: bool = False) -> Transition | None:
        """``agent``'s episode is over: its open transition, if any, closes as its last."""
        closed = self._open.pop(agent, None)
        if closed is not None:
            closed.next_observation = observation
            closed.terminated, closed.truncated = bool(terminated), bool(truncated)
        return closed

    def finish_all(self, truncated: bool = False) -> list[Transition]:
        """Every seat's episode is over (observations not kept): their last transitions."""
        return [t for t in (self.finish(a, None, not truncated, truncated)
                            for a in list(self._open)) if t is not None]


@dataclass(frozen=True)
class Credit:
    """Recorded steps' rewards moved onto the seats' own decisions."""

    rewards: np.ndarray    # (T, seats) float: non-zero only where the seat acted at that step
    unclaimed: np.ndarray  # (seats,) float: rewards before a seat's first decision of an episode


def credit_steps(actors: Iterable[int], rewards: Any, ends: Iterable[bool]) -> Credit:
    """Steps recorded in play order: ``actors`` (T,) the seat that acted at each step
    (:data:`NOBODY` for none), ``rewards`` (T, seats) what each seat received at that step,
    ``ends`` (T,) True where an episode ends after the step. Each seat's rewards go to its
    last decision in the same episode (at that step or before)."""
    actors = np.asarray(list(actors), dtype=np.int64)
    rewards = np.asarray(rewards, dtype=np.float64)
    ends = np.asarray(list(ends), dtype=bool)
    if rewards.ndim != 2 or actors.shape != (len(rewards),) or ends.shape != actors.shape:
        raise ValueError(f"actors and ends are (T,), rewards (T, seats); got {actors.shape}, "
                         f"{ends.shape} and {rewards.shape}")
    seats = rewards.shape[1]
    if ((actors < NOBODY) | (actors >= seats)).any():
        raise ValueError(f"an actor is a seat 0..{seats - 1} or {NOBODY}, not "
                         f"{sorted(set(actors[(actors < NOBODY) | (actors >= seats)]))}")
    credited = np.zeros_like(rewards)
    unclaimed = np.zeros(seats)
    transitions = SeatTransitions()
    for t in range(len(rewards)):
        if actors[t] != NOBODY:
            transitions.decide(int(actors[t]), None, None, t)
        transitions.receive(dict(enumerate(rewards[t])))
        if ends[t]:
            for done in transitions.finish_all():
                credited[done.step, done.agent] = done.reward
            for seat, reward in transitions.unclaimed.items():
                unclaimed[seat] += reward
            transitions = SeatTransitions()
    # an episode cut off by the end of the recording: its rewards so far, where they belong
    for done in transitions.finish_all(truncated=True):
        credited[done.step, done.agent] = done.reward
    for seat, reward in transitions.unclaimed.items():
        unclaimed[seat] += reward
    return Credit(credited, unclaimed)


def credit_torchrl(rollout: Any, group_map: Mapping[str, list[str]]) -> Credit:
    """A rollout of TorchRL's ``PettingZooWrapper`` (AEC env, ``use_mask=True``, one batch
    dimension: time) credited in place: each agent's ``("next", group, "reward")`` moved onto
    the steps where its ``(group, "mask")`` says it acted. ``group_map`` is the wrapper's
    ``group_map``; seats in the returned :class:`Credit` follow its order."""
    agents = [(group, i) for group, names in group_map.items() for i in range(len(names))]
    steps = rollout.batch_size[0]
    acted = np.zeros((steps, len(agents)), dtype=bool)
    rewards = np.zeros((steps, len(agents)))
    for seat, (group, i) in enumerate(agents):
        acted[:, seat] = rollout.get((group, "mask"))[:, i].cpu().numpy().reshape(steps)
        rewards[:, seat] = rollout.get(("next", group, "reward"))[:, i].cpu().numpy() \
            .reshape(steps)
    if (acted.sum(axis=1) > 1).any():
        raise ValueError("more than one agent acted in a step: not a turn-based rollout")
    actors = np.where(acted.any(axis=1), acted.argmax(axis=1), NOBODY)
    credit = credit_steps(actors, rewards, rollout.get(("next", "done")).cpu().numpy()
                          .reshape(steps))
    for seat, (group, i) in enumerate(agents):
        reward = rollout.get(("next", group, "reward"))
        column = reward[:, i]
        column.copy_(column.new_tensor(credit.rewards[:, seat]).reshape(column.shape))
    return credit


def credit_tianshou(buffer: Any, agents: list[str]) -> Credit:
    """A Tianshou replay buffer filled through its ``PettingZooEnv`` (rows in play order, each
    with ``obs.agent_id``, the reward vector of every seat and ``done``) credited in place:
    each seat's reward moved onto its own rows, the ones its ``MultiAgentPolicyManager``
    reads. ``agents`` is the env's ``possible_agents`` (the reward vector's order). Call it
    after ``collect(n_episode=...)``, so that every episode is whole; calling it again
    changes nothing."""
    seat_of = {a: i for i, a in enumerate(agents)}
    offsets = getattr(buffer, "_offset", [0])
    credited, unclaimed = [], np.zeros(len(agents))
    for offset, sub in zip(offsets, getattr(buffer, "buffers", [buffer]), strict=True):
        size = len(sub)
        if not size:
            continue
        start = sub._insertion_idx if size == sub.maxsize else 0  # a full one wraps
        rows = offset + (start + np.arange(size)) % sub.maxsize
        actors = [seat_of[str(a)] for a in buffer.obs.agent_id[rows]]
        credit = credit_steps(actors, buffer.rew[rows], buffer.done[rows])
        buffer.rew[rows] = credit.rewards
        credited.append(credit.rewards)
        unclaimed += credit.unclaimed
    return Credit(np.concatenate(credited) if credited else np.zeros((0, len(agents))),
                  unclaimed)
