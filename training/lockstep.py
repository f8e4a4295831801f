"""Many episodes of any game's PettingZoo AEC env played in lockstep, so each agent decides for
a whole batch of tables at once (one ``act_batch`` call per agent and step, as a torch policy
wants) instead of once per decision.

``lanes`` envs run side by side; at every step the live envs are grouped by the agent whose
seat is to act, each group is one ``act_batch`` call, and an env whose episode ends takes the
next episode of the list. An agent with ``observes = False`` gets ``None`` for observations
(and no observation is encoded for it).
Every episode is independent of the lane and the order it is played in (each is its own
``reset(seed=...)`` and each agent acts on its own observations only), so the returns equal
those of the episodes played one by one, up to the agents' own random draws.

    returns = play_episodes(lambda: spec.raw_env(rules), players,
                            [(seed, (0, 1)), (seed, (1, 0))])   # (2 episodes, 2 seats)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hilo_env.agents.base import Agent

LANES = 64
"""Envs played side by side: the batch an agent decides for at most, per step."""

Episode = tuple[int, Sequence[int]]
"""``(seed, seating)``: the env is reset with ``seed``, seat ``s`` is held by
``players[seating[s]]``."""


def play_episodes(make_env: Callable[[], Any], players: Sequence[Agent],
                  episodes: Sequence[Episode], *, lanes: int = LANES,
                  on_episode: Callable[[int], None] | None = None,
                  actions: list[list[int]] | None = None) -> np.ndarray:
    """Play every episode; returns ``(episodes, seats)``: each seat's summed reward.
    ``on_episode(1)`` is called as each episode ends; ``actions``, when given (empty), gets
    each episode's actions in order (a replay's)."""
    if lanes < 1:
        raise ValueError(f"lanes must be at least 1, not {lanes}")
    envs = [make_env() for _ in range(max(1, min(lanes, len(episodes))))]
    seat_of = {agent: s for s, agent in enumerate(envs[0].possible_agents)}
    for episode, (_, seating) in enumerate(episodes):
        if sorted(seat_of.values()) != sorted(range(len(seating))) or not all(
                0 <= p < len(players) for p in seating):
            raise ValueError(f"episode {episode}: seating {list(seating)} does not seat "
                             f"{len(seat_of)} of the {len(players)} players")
    returns = np.zeros((len(episodes), len(seat_of)))
    if actions is not None:
        actions.extend([] for _ in episodes)
    playing = [-1] * len(envs)  # lane -> the episode it plays
    queued = iter(range(len(episodes)))

    def deal(lane: int) -> bool:
        """Start the next episode on ``lane``; False when none is left."""
        episode = next(queued, None)
        if episode is None:
            return False
        playing[lane] = episode
        envs[lane].reset(seed=episodes[episode][0])
        return _settle(envs[lane]) or deal(lane)

    live = [lane for lane in range(len(envs)) if deal(lane)]
    while live:
        groups: dict[int, list[int]] = {}
        for lane in live:
            env = envs[lane]
            seat = seat_of[env.agent_selection]
            groups.setdefault(episodes[playing[lane]][1][seat], []).append(lane)
        ended = set()
        for player, group in groups.items():
            agent = players[player]
            if agent.observes:
                seen = [envs[lane].observe(envs[lane].agent_selection) for lane in group]
                observations = np.stack([o["observation"] for o in seen])
                masks = np.stack([o["action_mask"] for o in seen])
            else:
                observations, masks = None, np.stack([_mask(envs[lane]) for lane in group])
            chosen = agent.act_batch(observations, masks)
            for lane, action in zip(group, chosen.tolist(), strict=True):
                env = envs[lane]
                env.step(int(action))
                if actions is not None:
                    actions[playing[lane]].append(int(action))
                row = returns[playing[lane]]
                for name, reward in env.rewards.items():
                    row[seat_of[name]] += reward
                if not _settle(env):
                    if on_episode is not None:
                        on_episode(1)
                    if not deal(lane):
                        ended.add(lane)
        live = [lane for lane in live if lane not in ended]
    return returns


def _mask(env: Any) -> np.ndarray:
    """The action mask of the agent to act, without its observation where the env is a
    :class:`~hilo_env.envs.card_game_env.CardGameEnv` (its ``mask_of(game)``)."""
    mask_of = getattr(type(env), "mask_of", None)
    if mask_of is not None and getattr(env, "game", None) is not None:
        return mask_of(env.game)
    return env.observe(env.agent_selection)["action_mask"]


def _settle(env: Any) -> bool:
    """Step the finished agents out (``step(None)``, PettingZoo's way) until a live agent is to
    act; False when the episode is over (every agent terminated or truncated)."""
    while env.agents:
        done = [env.terminations[a] or env.truncations[a] for a in env.agents]
        if all(done):
            return False
        agent = env.agent_selection
        if not (env.terminations[agent] or env.truncations[agent]):
            return True
        env.step(None)
    return False
