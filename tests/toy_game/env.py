"""Swap as a PettingZoo AEC env over :class:`~hilo_env.envs.card_game_env.CardGameEnv` (the
spaces, ``observe`` and the action texts come from it; the game writes reset and step)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from hilo_env.envs.card_game_env import CardGameEnv
from tests.toy_game import game as G


class Encoder:
    """The observation of :func:`game.encode`, with its size (what ``CardGameEnv`` reads)."""

    def __init__(self, rules: G.RuleSet) -> None:
        self.size = rules.deck_size

    def encode(self, game: G.Game, seat: int) -> np.ndarray:
        return G.encode(game, seat)


class raw_env(CardGameEnv):
    """Swap, masked actions; rewards at the end."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "swap_v0",
                                          "is_parallelizable": False}
    actions = G
    mask_of = staticmethod(G.action_mask)
    text_of = staticmethod(lambda game, viewer: f"cards {game.cards}")

    def __init__(self, rules: str | G.RuleSet = "standard", render_mode: str | None = None,
                 **overrides: Any) -> None:
        super().__init__()
        self.rules = G.resolve(rules, **overrides)
        self._seat_players(render_mode, [f"player_{s}" for s in range(self.rules.num_players)],
                           Encoder(self.rules), G.NUM_ACTIONS, 1.0)
        self.game: G.Game | None = None

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.game = G.Game(self.rules, np.random.default_rng(seed))
        self._start_episode()
        self.infos = {a: {} for a in self.agents}
        self._obs = {}
        self.agent_selection = self.possible_agents[0]

    def _after_play(self, before: None) -> None:
        self.rewards = {a: self.game.payoffs[s] for s, a in enumerate(self.possible_agents)}
        self._accumulate_rewards()
        if self.game.current_player is None:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
