"""A learner against agents over any game's AEC env, for rules the batch simulator refuses
(smaller decks such as ``tiny``: :class:`~hilo_env.equation_hilo.vector.VectorGame` plays only
the standard deck fields).

:class:`AECLearnerEnv` is one game as a ``gymnasium.Env``; :class:`AECLearnerVectorEnv` is
``num_envs`` of them as a Gymnasium ``VectorEnv`` with the surface of
:class:`~hilo_env.envs.vector_env.HiLoVectorEnv` (``action_masks()``, ``set_opponents``,
``infos["episode"]``), so ``envs.sb3.make_sb3_vec_env`` and the training code take either.

    env = AECLearnerEnv(raw_env("tiny"), opponent=agents.make("heuristic", "tiny"), seed=0)
    obs, info = env.reset()          # obs: (obs_size,) float32, info["action_mask"]: (n,) int8
    obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))

The learner holds one seat, the same seat after seat each episode (``seat="alternate"``) or
one drawn at random (``seat="random"``); the opponent agent plays every other seat through the
AEC env's public API (``observe``, ``step``, ``rewards``, ``terminations``). In a cooperative
game the learner may also play every seat (``seat="every"``: self-play of a team whose seats
share one reward): each decision of any seat is a learner's step, seen from that seat, and
the team's reward is counted once. The observation is
the learner's flat observation vector; a step's reward is the learner's net chips of the hands
that ended between its decision and its next (or the end of its episode), opponents' actions
included, so an episode's rewards sum to its net chips. An episode is the AEC env's episode
and ends for the learner when it is terminated (the match is over, or it is out of chips). A
match that ends before the learner's first decision (everyone folded to it) is no episode: the
next one is dealt, and its chips go to ``skipped_chips``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from pettingzoo import AECEnv

from hilo_env.envs.vector_env import RandomOpponent, episode_infos

SEATINGS = ("alternate", "random", "every")
"""How :class:`AECLearnerEnv` picks the learner's seat each episode (``every``: all of them,
for cooperative games)."""


class AECLearnerEnv(gymnasium.Env):
    """A learner against an opponent agent in one game of an AEC env (see the module
    docstring). ``env`` is a raw AEC env of this package (``hilo_env.raw_env(rules)``, or
    lo-hi's or Hi MiLo!'s); ``opponent`` an agent made for its rules (default: random)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(self, env: AECEnv, opponent: Any = None, seat: str = "alternate",
                 seed: int | None = None) -> None:
        if seat not in SEATINGS:
            raise ValueError(f"seat is one of {list(SEATINGS)}, not {seat!r}")
        self.env = env
        self.seat = seat
        first = env.possible_agents[0]
        self.observation_space = env.observation_space(first)["observation"]
        self.action_space = env.action_space(first)
        self.opponent = opponent if opponent is not None else RandomOpponent(
            None if seed is None else seed + 1)
        self._own_opponent = opponent is None  # the env's own: reset(seed) re-seeds it
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self.episodes = 0
        self.learner = env.possible_agents[0]
        self.skipped_chips = 0.0
        self._pending = 0.0
        self._started = False

    def set_opponent(self, opponent: Any) -> None:
        """The agent that plays every other seat from the next decision on."""
        if not callable(getattr(opponent, "act", None)):
            raise ValueError(f"an opponent is an agent with act(observation, mask), not "
                             f"{opponent!r:.100}")
        self.opponent = opponent
        self._own_opponent = False

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """A new episode, the learner to act; ``seed`` re-seeds the deals, the seating (it
        starts over, as in a new env) and the env's own random opponent, so that the same
        seed and actions replay the same episodes; an opponent handed in keeps its own
        randomness. ``options`` go to the AEC env's reset."""
        super().reset(seed=seed)  # gymnasium's np_random, seeded as its checker expects
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self.episodes = 0
            if self._own_opponent:
                self.opponent.rng = np.random.default_rng(seed + 1)
        elif not self._started:
            seed = self._seed
        self._started = True
        while True:
            self._new_episode(seed, options)
            seed = options = None  # an episode skipped: the next one deals from the same rng
            if not self._learner_done():
                return self._observation()
            self.skipped_chips += self._pending

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The learner's action -> (observation, reward, terminated, truncated, info)."""
        if not self._started or self._learner_done() \
                or self.env.agent_selection != self.learner:
            raise RuntimeError("the learner has no decision to make: call reset()")
        self._act(action)
        self._play_opponents()
        reward, self._pending = self._pending, 0.0
        obs, info = self._observation()
        return obs, float(reward), self._learner_done(), False, info

    def action_masks(self) -> np.ndarray:
        """(n_actions,) bool: the learner's legal actions now (sb3-contrib's MaskablePPO)."""
        return self.env.observe(self.learner)["action_mask"].astype(bool)

    # ---- internals ------------------------------------------------------------------------

    def _new_episode(self, seed: int | None, options: dict[str, Any] | None) -> None:
        agents = self.env.possible_agents
        if self.seat == "random":
            self.learner = agents[int(self._rng.integers(len(agents)))]
        else:
            self.learner = agents[self.episodes % len(agents)]
        self.episodes += 1
        self._pending = 0.0
        self.env.reset(seed=seed, options=options)
        self._play_opponents()

    def _learner_done(self) -> bool:
        env = self.env
        if self.seat == "every":
            return all(env.terminations[a] or env.truncations[a] for a in env.agents)
        return self.learner not in env.agents or env.terminations[self.learner] \
            or env.truncations[self.learner]

    def _act(self, action: Any) -> None:
        self.env.step(action)
        self._pending += float(self.env.rewards.get(self.learner, 0.0))

    def _play_opponents(self) -> None:
        """Opponents act (and finished seats leave) until the learner is to act or done."""
        env = self.env
        while env.agents and not self._learner_done():
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            if self.seat == "every":
                self.learner = agent
            if agent == self.learner:
                return
            seen = env.observe(agent)
            self._act(int(self.opponent.act(seen["observation"], seen["action_mask"])))

    def _observation(self) -> tuple[np.ndarray, dict[str, Any]]:
        seen = self.env.observe(self.learner)
        return seen["observation"], {"action_mask": seen["action_mask"]}


class AECLearnerVectorEnv(VectorEnv):
    """``num_envs`` :class:`AECLearnerEnv` games stepped in turn, with the surface of
    :class:`~hilo_env.envs.vector_env.HiLoVectorEnv`: finished episodes restart in the same
    step (no final observation: a hand's end is no decision), ``action_masks()`` (N,
    n_actions) bool, ``set_opponents`` (one agent, or a list: game ``i`` uses ``i % len``),
    ``infos["episode"]`` with the return ``r`` and length ``l`` of episodes that ended.
    ``make_env()`` builds one raw AEC env; game ``i`` seeds its deals with ``seed + i``;
    ``seat``: one of :data:`SEATINGS` for every game, or one per game."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.SAME_STEP,
                                          "render_modes": []}

    def __init__(self, make_env: Any, num_envs: int, opponents: Any = None,
                 seed: int | None = None, seat: str | Sequence[str] = "alternate") -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        seats = [seat] * num_envs if isinstance(seat, str) else list(seat)
        if len(seats) != num_envs:
            raise ValueError(f"seat is one seating or one per game ({num_envs}), not "
                             f"{len(seats)}")
        self.games = [AECLearnerEnv(make_env(), seat=seats[i],
                                    seed=None if seed is None else seed + i)
                      for i in range(num_envs)]
        self.rules = self.games[0].env.rules
        self.num_envs = num_envs
        self.single_observation_space = self.games[0].observation_space
        self.single_action_space = self.games[0].action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        if opponents is not None:
            self.set_opponents(opponents)
        self.episode_return = np.zeros(num_envs)
        self.episode_length = np.zeros(num_envs, np.int64)

    @property
    def skipped_chips(self) -> np.ndarray:
        """(N,) chips of matches that ended before the learner's first decision."""
        return np.asarray([g.skipped_chips for g in self.games])

    def set_opponents(self, opponents: Any | Sequence[Any]) -> None:
        """One agent for every game, or a list: game ``i`` uses ``opponents[i % len]``."""
        listed = [opponents] if callable(getattr(opponents, "act", None)) else list(opponents)
        if not listed:
            raise ValueError("opponents must be an agent or a non-empty list of them")
        for i, game in enumerate(self.games):
            game.set_opponent(listed[i % len(listed)])

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """New episodes everywhere; a ``seed`` re-seeds game ``i`` with ``seed + i``."""
        if options:
            raise ValueError("AECLearnerVectorEnv.reset takes no options")
        obs = [g.reset(seed=None if seed is None else seed + i)[0]
               for i, g in enumerate(self.games)]
        self.episode_return[:] = 0
        self.episode_length[:] = 0
        return np.stack(obs), {}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray, dict[str, Any]]:
        """The learner's actions -> (observations, rewards, terminations, truncations, infos)."""
        actions = np.asarray(actions).reshape(self.num_envs)
        obs, rewards = [], np.zeros(self.num_envs, np.float32)
        term = np.zeros(self.num_envs, bool)
        for i, game in enumerate(self.games):
            o, rewards[i], term[i], _, _ = game.step(int(actions[i]))
            obs.append(game.reset()[0] if term[i] else o)
        self.episode_return += rewards
        self.episode_length += 1
        infos = episode_infos(term, self.episode_return, self.episode_length)
        return np.stack(obs), rewards, term, np.zeros(self.num_envs, bool), infos

    def action_masks(self) -> np.ndarray:
        """(N, n_actions) bool: each game's legal actions of the learner now."""
        return np.stack([g.action_masks() for g in self.games])

    def close(self, **kwargs: Any) -> None:
        self.closed = True
