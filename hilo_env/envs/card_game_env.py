"""What every game's PettingZoo AEC env shares, written once: spaces by agent, an observation
built at most once per state and agent, the render modes, and action texts.

A game's env subclasses :class:`CardGameEnv` and sets, besides the AEC attributes
(``possible_agents``, ``observation_spaces``, ``action_spaces``, ``agent_selection``...):
``game`` (its engine's state, with ``current_player`` and ``legal_actions()``), ``encoder``
(``encode(game, seat)``), ``_seats`` (agent -> seat), ``_num_actions``, ``_obs`` (emptied
whenever the state changes), and three class attributes: ``actions`` (the game's actions
module: ``action_to_string``, ``string_to_action``), ``mask_of`` (``action_mask(game)``),
``text_of`` (``render_text(game, viewer)``) and ``table_of`` (``describe(game, viewer)``: the
game's :class:`hilo_env.table.Table`, which ``rgb_array`` draws and the web table shows).

:meth:`CardGameEnv.step` is written once too: a game's env says what a played action means
for the AEC attributes in :meth:`~CardGameEnv._after_play` (rewards, infos, terminations, the
next agent), with what it needs of the state before the action from
:meth:`~CardGameEnv._before_play`.
"""

from __future__ import annotations

import math
import numbers
from types import ModuleType
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from hilo_env.picture import picture


def finite_number(name: str, value: Any) -> float:
    """``value`` as a float, if it is a finite real number (Python or NumPy, not a bool);
    otherwise a ValueError naming ``name``: an infinite or NaN weight would make every reward
    NaN."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real) or \
            not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, not {value!r}")
    return float(value)


ILLEGAL_ACTIONS = ("raise", "lose")
"""What a game's env does with an illegal action (see the module docstring)."""

ILLEGAL_PENALTY = -1.0
"""The offender's reward when an illegal action ends the episode (``illegal_action="lose"``),
as under PettingZoo's ``TerminateIllegalWrapper``."""


def illegal_action_policy(value: Any) -> str:
    """``value`` if it is one of :data:`ILLEGAL_ACTIONS`; otherwise a ValueError naming them."""
    if value not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action is one of {list(ILLEGAL_ACTIONS)}, not {value!r}")
    return value


def card_game_metadata(name: str) -> dict[str, Any]:
    """A game env's PettingZoo ``metadata``: its name (``lohi_v0``), the three render modes,
    turn-based (not parallelizable)."""
    return {"render_modes": ["human", "ansi", "rgb_array"], "name": name,
            "is_parallelizable": False, "render_fps": 1}


class CardGameEnv(AECEnv):
    """The plumbing of a card game's AEC env (see the module docstring)."""

    actions: ClassVar[ModuleType]
    mask_of: ClassVar[Any]
    text_of: ClassVar[Any]
    table_of: ClassVar[Any]

    def _seat_players(self, render_mode: str | None, names: list[str], encoder: Any,
                      num_actions: int, observation_high: float,
                      illegal_action: str = "raise") -> None:
        """Check ``render_mode`` and ``illegal_action``; set the agents (one per name, seat
        order), the encoder, the spaces (``Dict`` of observation and mask;
        ``Discrete(num_actions)``) and an empty observation cache."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of "
                             f"{self.metadata['render_modes']}")
        self.illegal_action = illegal_action_policy(illegal_action)
        self._forfeited = False
        self.render_mode = render_mode
        self.possible_agents = list(names)
        self.agents = self.possible_agents[:]
        self._seats = {a: i for i, a in enumerate(self.possible_agents)}
        self.encoder = encoder
        self._num_actions = num_actions
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, observation_high, (encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._obs: dict[str, dict[str, np.ndarray]] = {}

    def _start_episode(self) -> None:
        """PettingZoo's per-episode bookkeeping at a reset: every agent back, no rewards yet,
        nobody terminated or truncated."""
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._forfeited = False

    def step(self, action: Any) -> None:
        """PettingZoo's step. A terminated or truncated agent's step removes it
        (``_was_dead_step``, then :meth:`_after_dead_step`); any other plays ``action``
        (:meth:`_play`) and, unless it forfeited the episode, hands the new state to
        :meth:`_after_play`. Before the first reset, or once every agent has left the
        episode, a RuntimeError says to reset."""
        self._check_under_way("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            self._after_dead_step()
            return
        before = self._before_play()
        if not self._play(action):
            return
        self._obs = {}
        self._cumulative_rewards[agent] = 0.0
        self._after_play(before)
        if self.render_mode == "human":
            self.render()

    def _before_play(self) -> Any:
        """What :meth:`_after_play` needs of the state before the action (here: nothing)."""
        return None

    def _after_play(self, before: Any) -> None:
        """Set ``rewards``, ``infos``, ``terminations``/``truncations`` and the next
        ``agent_selection`` after a played action, and accumulate the rewards."""
        raise NotImplementedError(f"{type(self).__name__} says what a played action means in "
                                  "_after_play")

    def _after_dead_step(self) -> None:
        """What a game adds to PettingZoo's removal of a finished agent (here: nothing)."""

    def _play(self, action: Any) -> bool:
        """Play the acting agent's ``action`` on the game. An illegal one raises (naming the
        option that ends the episode instead) or, under ``illegal_action="lose"``, ends the
        episode with the offender's penalty and returns False."""
        action = self.action_id(action)
        if self.illegal_action == "raise":
            try:
                self.game.step(action)
            except ValueError as e:
                raise ValueError(f"{e} (an env made with illegal_action='lose' ends the "
                                 f"episode instead, the offender's reward "
                                 f"{ILLEGAL_PENALTY:g})") from None
            return True
        if type(self).mask_of(self.game)[action]:
            self.game.step(action)
            return True
        agent = self.agent_selection
        self._forfeited = True
        self._obs = {}
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = ILLEGAL_PENALTY
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        return False

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _check_started(self, call: str) -> None:
        """A RuntimeError naming ``call`` before the first reset (there is no game yet)."""
        if self.game is None:
            raise RuntimeError(f"reset() needs to be called before {call}: no episode has "
                               "begun")

    def _check_under_way(self, call: str) -> None:
        """:meth:`_check_started`, and a RuntimeError naming ``call`` once every agent has
        left the episode (it is over: a new one needs a reset)."""
        self._check_started(call)
        if not self.agents:
            raise RuntimeError(f"{call} after the episode's end: every agent has left it; "
                               "reset() starts a new one")

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation and action mask (all zeros unless it is to act), built once
        per state and agent and handed out as copies: what a caller does to them changes
        nothing in the env. Before the first reset, a RuntimeError says to reset."""
        obs = self._observation(agent)
        return {"observation": obs["observation"].copy(),
                "action_mask": obs["action_mask"].copy()}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``: the selected agent's observation (a copy, as
        :meth:`observe`), cumulative reward, termination, truncation and info; a RuntimeError
        before the first reset or once the episode is over."""
        self._check_under_way("last()")
        return super().last(observe)

    def _observation(self, agent: str) -> dict[str, np.ndarray]:
        """The env's own observation and mask of ``agent`` for the state now (never handed
        out: :meth:`observe` copies them)."""
        obs = self._obs.get(agent)
        if obs is None:
            self._check_started("observe()")
            seat = self._seats.get(agent)
            if seat is None:
                raise ValueError(f"unknown agent {agent!r}; the agents are "
                                 f"{self.possible_agents}")
            game = self.game
            if game.current_player == seat and agent == self.agent_selection and \
                    not self._forfeited:
                mask = type(self).mask_of(game)
            else:
                mask = np.zeros(self._num_actions, dtype=np.int8)
            obs = self._obs[agent] = {"observation": self.encoder.encode(game, seat),
                                      "action_mask": mask}
        return obs

    def render(self) -> Any:
        """``ansi``: the table as the player to act sees it, returned; ``human``: printed as a
        spectator sees it (nobody's hidden cards); ``rgb_array``: a spectator's picture of the
        table (:mod:`hilo_env.picture`, names, stacks and cards written on it); with no render
        mode, a warning."""
        self._check_started("render()")
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any "
                                  "render mode: pass render_mode='ansi', 'human' or "
                                  "'rgb_array' to the env.")
            return None
        if self.render_mode == "rgb_array":
            return picture(type(self).table_of(self.game, None))
        if self.render_mode == "human":
            print(type(self).text_of(self.game, None) + "\n")
            return None
        return type(self).text_of(self.game, self.game.current_player)

    def close(self) -> None:
        pass

    def action_id(self, action: Any) -> int:
        """``action`` as an int: a Python or NumPy integer (or a 0-d integer array) inside the
        action space; anything else raises, naming the value, before the game changes."""
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action[()]
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise TypeError(f"an action is an integer action id, not {action!r} "
                            f"({type(action).__name__})")
        if not 0 <= action < self._num_actions:
            raise ValueError(f"action {action} is outside the action space "
                             f"0..{self._num_actions - 1}")
        return int(action)

    def action_to_string(self, action: int) -> str:
        """The text of an action id of this env's space."""
        return self.actions.action_to_string(self.action_id(action))

    def string_to_action(self, text: str) -> int:
        """The id of an action text that is legal now; otherwise a ValueError naming the legal."""
        if not isinstance(text, str):
            raise TypeError(f"an action text is a string, not {text!r}")
        legal = self.game.legal_actions() if self.game is not None else []
        legal_text = [self.actions.action_to_string(a) for a in legal]
        try:
            action = self.actions.string_to_action(text)
        except ValueError:
            raise ValueError(f"unknown action {text!r}; legal now: {legal_text}") from None
        if action not in legal:
            raise ValueError(f"action {text!r} is not legal now; legal now: {legal_text}")
        return action
