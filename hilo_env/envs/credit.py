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

A seat's transition also ends where its hand ends, not where the game's does: after a seat's
last decision of an episode, its row is the last of its own rows, so that row's own end flag
is set (GAE or TD over the seat's rows would otherwise bootstrap past the end of the hand),
and each earlier row's next observation is the seat's observation at its next decision (the
one its value is bootstrapped from), not the next mover's.

:class:`SeatTransitions` keeps each seat's transition open until its next decision or its end
and adds every reward it receives meanwhile: fed step by step (the parallel recipe in
``docs/libraries.md``) it hands back only acting seats' transitions, each with its own
credit. :func:`credit_steps` applies it to recorded steps (arrays), :func:`credit_torchrl`
to a TorchRL rollout and :func:`credit_tianshou` to a Tianshou buffer: rewards, end flags and
next observations, in place. A reward that reaches a seat before its first decision of an episode
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
    """Recorded steps' rewards moved onto the seats' own decisions, and where each seat's
    transitions end. The (T, seats) arrays hold a value only on the steps where the seat
    acted (elsewhere 0, False, :data:`NOBODY`). ``closes`` is a transition's last step: the
    one before the seat's next decision (whose observation is the transition's next one), or
    the last step of the episode (of the recording, where it was cut off)."""

    rewards: np.ndarray     # (T, seats) float: every reward from the decision to the next
    unclaimed: np.ndarray   # (seats,) float: rewards before a seat's first decision of an episode
    terminated: np.ndarray  # (T, seats) bool: the seat's last decision of an episode that ended
    truncated: np.ndarray   # (T, seats) bool: its last decision before the recording stopped
    closes: np.ndarray      # (T, seats) int: the transition's last step

    @property
    def ends(self) -> np.ndarray:
        """(T, seats) bool: the steps where a seat's own transitions end."""
        return self.terminated | self.truncated


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
    terminated = np.zeros(rewards.shape, dtype=bool)
    truncated = np.zeros(rewards.shape, dtype=bool)
    closes = np.full(rewards.shape, NOBODY, dtype=np.int64)

    def close(done: Transition, last_step: int) -> None:
        credited[done.step, done.agent] = done.reward
        terminated[done.step, done.agent] = done.terminated
        truncated[done.step, done.agent] = done.truncated
        closes[done.step, done.agent] = last_step

    transitions = SeatTransitions()
    for t in range(len(rewards)):
        if actors[t] != NOBODY:
            closed = transitions.decide(int(actors[t]), None, None, t)
            if closed is not None:
                close(closed, t - 1)
        transitions.receive(dict(enumerate(rewards[t])))
        if ends[t]:
            for done in transitions.finish_all():
                close(done, t)
            for seat, reward in transitions.unclaimed.items():
                unclaimed[seat] += reward
            transitions = SeatTransitions()
    # an episode cut off by the end of the recording: its rewards so far, where they belong
    for done in transitions.finish_all(truncated=True):
        close(done, len(rewards) - 1)
    for seat, reward in transitions.unclaimed.items():
        unclaimed[seat] += reward
    return Credit(credited, unclaimed, terminated, truncated, closes)


def credit_torchrl(rollout: Any, group_map: Mapping[str, list[str]]) -> Credit:
    """A rollout of TorchRL's ``PettingZooWrapper`` (AEC env, ``use_mask=True``, one batch
    dimension: time) credited in place, on the steps where each agent's ``(group, "mask")``
    says it acted: its ``("next", group, "reward")`` there holds every reward until its next
    decision; its ``("next", group, "done" | "terminated" | "truncated")`` are set on its last
    decision of an episode (and of the rollout, truncated); its ``("next", group,
    "observation")`` is its observation at its next decision (at its last, the one after the
    episode's last step). An agent's rows where it did not act are left as they were: select
    its acted rows for its transitions. ``group_map`` is the wrapper's ``group_map``; seats in
    the returned :class:`Credit` follow its order. Calling it again changes nothing."""
    import torch

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
        column = rollout.get(("next", group, "reward"))[:, i]
        column.copy_(column.new_tensor(credit.rewards[:, seat]).reshape(column.shape))
        rows = np.flatnonzero(acted[:, seat])
        flags = {"terminated": credit.terminated[rows, seat],
                 "truncated": credit.truncated[rows, seat], "done": credit.ends[rows, seat]}
        for key, values in flags.items():
            flag = rollout.get(("next", group, key))[:, i]
            flag[torch.as_tensor(rows)] = torch.as_tensor(values).reshape(
                (len(rows), *flag.shape[1:])).to(flag)
        # the next observation: the root one at the next decision, or the one after the end
        ending = credit.ends[rows, seat]
        closes = credit.closes[rows, seat]
        now = rollout.get((group, "observation"))[:, i]
        after = rollout.get(("next", group, "observation"))[:, i]
        following = torch.as_tensor(closes[~ending] + 1)
        last = torch.as_tensor(closes[ending])
        sources = (now[following].clone(), after[last].clone())
        after[torch.as_tensor(rows[~ending])] = sources[0]
        after[torch.as_tensor(rows[ending])] = sources[1]
    return credit


def credit_tianshou(buffer: Any, agents: list[str]) -> Credit:
    """A Tianshou replay buffer filled through its ``PettingZooEnv`` (rows in play order, each
    with ``obs.agent_id``, the reward vector of every seat and ``done``) credited in place,
    on each seat's own rows, the ones its ``MultiAgentPolicyManager`` reads: ``rew`` holds
    the seat's reward until its next decision; ``terminated`` (``truncated`` where the
    recording cut an episode off) is set on its last decision of an episode; ``obs_next`` is
    its observation at its next decision (elsewhere the next mover's). ``done`` stays the
    env's episode end, as the buffer and the collector read it (their episode boundaries);
    Tianshou's targets read ``terminated`` (the value mask) and, for GAE, ``terminated`` or
    ``truncated``. Multi-step returns (``n_step`` > 1) step through the buffer's rows, every
    seat's: keep one step. ``agents`` is the env's ``possible_agents`` (the reward vector's
    order). Call it after ``collect(n_episode=...)``, so that every episode is whole; calling
    it again changes nothing. The returned :class:`Credit`'s steps are the rows of each
    sub-buffer in play order, one sub-buffer after another."""
    seat_of = {a: i for i, a in enumerate(agents)}
    offsets = getattr(buffer, "_offset", [0])
    credits, position = [], 0
    for offset, sub in zip(offsets, getattr(buffer, "buffers", [buffer]), strict=True):
        size = len(sub)
        if not size:
            continue
        start = sub._insertion_idx if size == sub.maxsize else 0  # a full one wraps
        rows = offset + (start + np.arange(size)) % sub.maxsize
        actors = np.array([seat_of[str(a)] for a in buffer.obs.agent_id[rows]])
        credit = credit_steps(actors, buffer.rew[rows], buffer.done[rows])
        own = np.arange(size), actors  # each row's entries for the seat that acted there
        ending = credit.ends[own]
        buffer.rew[rows] = credit.rewards
        buffer.terminated[rows] = credit.terminated[own]
        buffer.truncated[rows] = credit.truncated[own]
        buffer.obs_next[rows[~ending]] = buffer.obs[rows[credit.closes[own][~ending] + 1]]
        credits.append(Credit(credit.rewards, credit.unclaimed, credit.terminated,
                              credit.truncated, np.where(credit.closes == NOBODY, NOBODY,
                                                         credit.closes + position)))
        position += size
    if not credits:
        return credit_steps([], np.zeros((0, len(agents))), [])
    return Credit(np.concatenate([c.rewards for c in credits]),
                  np.sum([c.unclaimed for c in credits], axis=0),
                  np.concatenate([c.terminated for c in credits]),
                  np.concatenate([c.truncated for c in credits]),
                  np.concatenate([c.closes for c in credits]))
