"""RLlib's view of a game's AEC env: a turn-based ``MultiAgentEnv`` (Ray RLlib's new API
stack). Needs the ``rllib`` extra (``ray[rllib]``).

Each step returns the observation of the agent to act next only, as a dict under the keys
RLlib's action-masking modules read: ``{"observations": Box(float32), "action_mask":
Box(0, 1, float32)}`` (:data:`OBS_KEY`, :data:`MASK_KEY`). Rewards go to every agent in the
step that earns them (a hand's net chips reach all seats when it ends, acting or not); RLlib
adds them to the agent's pending transition. An agent that finishes (the episode ends, or it
is eliminated earlier) gets its last observation with its termination: without one, RLlib's
episode drops the transition of an agent that acted only once. Infos are the AEC env's
(numbers only).

    from hilo_env.envs.rllib_env import RLlibHiLoEnv
    env = RLlibHiLoEnv({"rules": "standard"})   # env_config, as RLlib passes it

RLlib's own route takes any game's AEC env under :func:`rllib_observations`, which gives it
the observation keys and the float mask of RLlib's ``ActionMaskingTorchRLModule``:

    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    env = PettingZooEnv(rllib_observations(hilo_env.env()))

RLlib's own env checker (``check_multiagent_environments``, run when an algorithm builds its
env runners) steps random actions drawn without the mask, which every game refuses by default
(ValueError; RLlib reports it as an env that "does not abide to the new gymnasium-style
API"). Either make the env with ``illegal_action="lose"`` (``env_config={"illegal_action":
"lose"}``; a raw env made so for :class:`TurnBasedRLlibEnv`): an illegal action ends the
episode, the offender -1, and the checker passes; or keep the strict env and build with
``.environment(..., disable_env_checking=True)``, as ``hilo train rllib_league`` does (its
learners keep to the mask). See ``docs/libraries.md``. ``reward_scale`` must be a finite
number (ValueError otherwise: an infinite scale makes every reward NaN).

:class:`TurnBasedRLlibEnv` wraps any raw AEC env of this package (the three games);
:class:`RLlibHiLoEnv` builds one from an ``env_config`` dict (any game of the registry).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from hilo_env import games
from hilo_env.envs.card_game_env import CardGameEnv, finite_number
from hilo_env.rllib_obs import MASK_KEY, OBS_KEY

ENV_CONFIG_KEYS = ("game", "rules", "reward_scale", "overrides", "illegal_action")
"""The keys of :class:`RLlibHiLoEnv`'s ``env_config``."""


def masked_observation_space(aec_space: spaces.Dict) -> spaces.Dict:
    """An AEC env's ``{"observation", "action_mask"}`` space under RLlib's keys, the mask as
    float32 (RLlib's modules take its log)."""
    n = aec_space["action_mask"].shape[0]
    return spaces.Dict({OBS_KEY: aec_space["observation"],
                        MASK_KEY: spaces.Box(0.0, 1.0, (n,), np.float32)})


def rllib_observation(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """An AEC env's observation under RLlib's keys, the mask as float32."""
    return {OBS_KEY: obs["observation"], MASK_KEY: obs["action_mask"].astype(np.float32)}


class RLlibObservations(BaseWrapper):
    """An AEC env of this package (wrapped or raw) with RLlib's observation keys and float
    mask, for RLlib's ``PettingZooEnv`` and ``ActionMaskingTorchRLModule``."""

    def observation_space(self, agent: str) -> spaces.Space:
        return masked_observation_space(self.env.observation_space(agent))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return rllib_observation(self.env.observe(agent))


def rllib_observations(env: AECEnv) -> RLlibObservations:
    """``env`` as RLlib's own PettingZoo route and masking module read it."""
    return RLlibObservations(env)


class TurnBasedRLlibEnv(MultiAgentEnv):
    """A raw AEC env (a :class:`CardGameEnv`) as RLlib's turn-based ``MultiAgentEnv``."""

    def __init__(self, aec_env: CardGameEnv, reward_scale: float = 1.0) -> None:
        """``reward_scale`` multiplies every reward (chips per hand are large for PPO)."""
        super().__init__()
        self.aec = aec_env
        self.reward_scale = finite_number("reward_scale", reward_scale)
        self.possible_agents = list(aec_env.possible_agents)
        self.agents = self.possible_agents[:]
        self.observation_spaces = {a: masked_observation_space(aec_env.observation_space(a))
                                   for a in self.possible_agents}
        self.action_spaces = {a: aec_env.action_space(a) for a in self.possible_agents}

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        return rllib_observation(self.aec.observe(agent))

    def reset(self, *, seed: int | None = None,
              options: dict | None = None) -> tuple[dict, dict]:
        """A new episode of the AEC env (``options`` as its reset takes them)."""
        self.aec.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Play the acting agent's action; returns the next acting agent's observation."""
        aec = self.aec
        agent = aec.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{agent!r} is to act, but the actions are for "
                             f"{sorted(action_dict)}")
        aec.step(action_dict[agent])
        scale = self.reward_scale
        rewards = {a: float(aec.rewards[a]) * scale for a in aec.agents}
        terminated = {a: True for a in aec.agents if aec.terminations[a]}
        truncated = {a: True for a in aec.agents if aec.truncations[a]}
        # a finished agent gets a last observation: RLlib bootstraps a truncated agent's value
        # from it, and drops the only transition of an agent that acted once without it
        observations = {a: self._observe(a) for a in (*terminated, *truncated)}
        # PettingZoo asks a None step of each finished agent before play goes on
        while aec.agents and (aec.terminations[aec.agent_selection]
                              or aec.truncations[aec.agent_selection]):
            aec.step(None)
        over = not aec.agents
        # agents that finish in this step stay listed until the next: RLlib's env checker
        # wants every agent of a step's dicts in ``agents``
        self.agents = [a for a in self.possible_agents if a in aec.agents or a in observations]
        infos = {}
        if not over:
            nxt = aec.agent_selection
            observations[nxt] = self._observe(nxt)
            infos[nxt] = aec.infos[nxt]
        terminated["__all__"] = over and not truncated
        truncated["__all__"] = over and bool(truncated)
        return observations, rewards, terminated, truncated, infos


class RLlibHiLoEnv(TurnBasedRLlibEnv):
    """A game of the registry for RLlib, built from an ``env_config``: ``game`` (a name of
    ``hilo_env.games``; Equation Hi-Lo when absent), ``rules`` (a preset name, YAML path or
    RuleSet; the game's default when absent), ``reward_scale``, ``overrides`` (rule fields)
    and ``illegal_action`` (``"raise"``, the default, or ``"lose"``: see the module
    docstring)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = dict(config or {})
        unknown = set(config) - set(ENV_CONFIG_KEYS)
        if unknown:
            raise ValueError(f"unknown env_config key(s) {sorted(unknown)}; keys are "
                             f"{list(ENV_CONFIG_KEYS)}")
        spec = games.get(config.get("game"))
        super().__init__(spec.raw_env(config.get("rules"),
                                      illegal_action=config.get("illegal_action", "raise"),
                                      **config.get("overrides", {})),
                         config.get("reward_scale", 1.0))
