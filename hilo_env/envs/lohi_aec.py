"""lo-hi as a PettingZoo AEC environment with masked actions (rules: ``docs/lohi.md``).

| property          | value                                                                    |
|-------------------|--------------------------------------------------------------------------|
| agents            | ``player_0`` .. ``player_{n-1}``, 2..5 (seat 0 acts first in round 1)    |
| actions           | ``Discrete(200)``: see :mod:`hilo_env.lohi.actions`                      |
| observations      | ``{"observation": Box(0, 1, float32), "action_mask": Box(0, 1, int8)}``: |
|                   | see :mod:`hilo_env.lohi.observation` for every slice                     |
| rewards           | at the game's end the winner +1, every other seat -1/(n-1); with         |
|                   | ``round_reward`` r, each round's winner also +r and the others -r/(n-1)  |
| episode           | rounds until a seat wins one it started with ``final_cards`` cards       |
|                   | (terminated), or ``max_turns`` decisions (truncated, no game reward)     |
| render modes      | ``ansi`` (returns text), ``human`` (prints it)                           |

``reset(seed=..., options=...)`` takes ``deck`` (round 1's 52 cards, ids or texts, top first),
``shuffle`` (the chance hook, ``cards -> order``, in place of the seeded one) and ``wins``
(starting win counts). The raw env raises ``ValueError`` on an illegal action; :func:`env`
adds PettingZoo's classic wrappers, under which an illegal action ends the episode with a
penalty of -1 for the player who took it. ``infos`` hold ``round`` and ``round_winners``.

Versions: v0, first release.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from hilo_env.envs.pettingzoo_wrappers import wrap
from hilo_env.envs.reset_options import reset_options
from hilo_env.lohi import actions as A
from hilo_env.lohi.engine import Game, SeededShuffle
from hilo_env.lohi.observation import Encoder, action_mask
from hilo_env.lohi.render import player_name, render_text
from hilo_env.lohi.rules import RuleSet, resolve

RESET_OPTIONS = ("deck", "shuffle", "wins")


def env(rules: str | RuleSet = "standard", render_mode: str | None = None,
        **overrides: Any) -> AECEnv:
    """The lo-hi AEC env with PettingZoo's wrappers for classic games."""
    return wrap(raw_env(rules, render_mode=render_mode, **overrides))


class raw_env(AECEnv):
    """The unwrapped AEC environment over :class:`hilo_env.lohi.engine.Game`."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "name": "lohi_v0",
                                          "is_parallelizable": False, "render_fps": 1}

    def __init__(self, rules: str | RuleSet = "standard", render_mode: str | None = None,
                 **overrides: Any) -> None:
        """``rules``: a preset name (``standard``, ``single_round``) or a RuleSet;
        ``overrides``: rule fields, such as ``num_players=3``."""
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of "
                             f"{self.metadata['render_modes']}")
        self.rules = resolve(rules, **overrides)
        self.render_mode = render_mode
        self.possible_agents = [player_name(i) for i in range(self.rules.num_players)]
        self.agents = self.possible_agents[:]
        self._seats = {a: i for i, a in enumerate(self.possible_agents)}
        self.encoder = Encoder(self.rules)
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (A.NUM_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(A.NUM_ACTIONS) for a in self.possible_agents}
        self._shuffle = SeededShuffle()
        self.game: Game | None = None
        self._obs: dict[str, dict[str, np.ndarray]] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ---- the AEC API ----------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game; ``seed`` reseeds the chance hook, ``options`` as the docstring."""
        options = reset_options(options, RESET_OPTIONS)
        seeded = self._shuffle if seed is None else SeededShuffle(seed)
        self.game = Game(self.rules, options.get("shuffle") or seeded, options.get("deck"),
                         options.get("wins"))
        self._shuffle = seeded  # only once the game is dealt: a reset that raises changes nothing
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: self._info() for a in self.agents}
        self._obs = {}
        self.agent_selection = self.possible_agents[self.game.current_player]

    def _info(self) -> dict[str, Any]:
        return {"round": self.game.round_number, "round_winners": list(self.game.round_winners)}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation and action mask (all zero unless it is to act)."""
        obs = self._obs.get(agent)
        if obs is None:
            seat = self._seats[agent]
            game = self.game
            if game.current_player == seat and agent == self.agent_selection:
                mask = action_mask(game)
            else:
                mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
            obs = self._obs[agent] = {"observation": self.encoder.encode(game, seat),
                                      "action_mask": mask}
        return obs

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        before = game.payoffs[:]
        rounds = game.round_number
        game.step(action)
        self._obs = {}
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: game.payoffs[i] - before[i]
                        for i, a in enumerate(self.possible_agents)}
        if game.round_number != rounds or game.over:
            self.infos = {a: self._info() for a in self.agents}
        self._accumulate_rewards()
        if game.over:
            self.terminations = dict.fromkeys(self.agents, not game.truncated)
            self.truncations = dict.fromkeys(self.agents, game.truncated)
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        text = render_text(self.game, self.game.current_player)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass

    # ---- action text ----------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """The text of an action id (``pick up``, ``play 7 7``, ``play 8 9 10``, ``call A``)."""
        return A.action_to_string(int(action))

    def string_to_action(self, text: str) -> int:
        """The id of an action text that is legal now; otherwise a ValueError naming the legal."""
        legal = self.game.legal_actions() if self.game is not None else []
        legal_text = [A.TEXTS[a] for a in legal]
        try:
            action = A.string_to_action(text)
        except ValueError:
            raise ValueError(f"unknown action {text!r}; legal now: {legal_text}") from None
        if action not in legal:
            raise ValueError(f"action {text!r} is not legal now; legal now: {legal_text}")
        return action
