"""Hi MiLo! as a PettingZoo AEC environment with masked actions: a cooperative team game.

| property     | value                                                                      |
|--------------|----------------------------------------------------------------------------|
| agents       | ``player_0`` .. ``player_{n-1}``, n = 3..5 (the dealer's left acts first)  |
| actions      | ``Discrete(147)``: ``play 7S`` 0..71, ``pass 7S`` 72..143, ``bid low``     |
|              | 144, ``bid middle`` 145, ``bid high`` 146 (:mod:`himilo.actions`)          |
| observations | ``{"observation": Box(0, 1, float32), "action_mask": Box(0, 1, int8)}``;  |
|              | every slice in :mod:`himilo.observation`                                   |
| rewards      | the team outcome: +1 to every player when the team wins, -1 when it loses, |
|              | at the end of the round; 0 at every other step                             |
| shaping      | off by default; with ``shaping="constraints"`` every player also gets      |
|              | ``shaping_weight`` × (F_before - F_after) / (2n-3) after each trick        |
|              | (F: failed inequalities of a team win; docs/himilo.md section 6)           |
| infos        | numbers only: ``team_outcome`` (0 until the end, then ±1, never shaped),   |
|              | ``shaping`` (this step's unweighted term), ``tricks_won``, ``trick``       |
| episode      | one round: n bids, n × pass_cards passes, 14 n plays                       |
| render modes | ``ansi`` (returns text), ``human`` (prints it), ``rgb_array`` (a spectator's |
|              | picture, uint8 H×W×3: :mod:`hilo_env.picture`)                             |

``reset(seed=..., options={"deck": [...], "line": [...], "dealer": 2})`` stacks the cards in
play (ids or texts, top first), the line of Win Cards (trick 1's first) and the dealer. The
raw env raises ``ValueError`` on an illegal action (``TypeError`` on a non-integer), or with
``illegal_action="lose"`` ends the episode, the offender -1 (:mod:`hilo_env.envs.card_game_env`);
:func:`env` adds PettingZoo's classic wrappers.

Versions: v0, first release.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv

from hilo_env.envs.card_game_env import CardGameEnv, card_game_metadata, finite_number
from hilo_env.envs.pettingzoo_wrappers import wrap
from hilo_env.envs.reset_options import reset_options, reset_seed
from hilo_env.himilo import actions as A
from hilo_env.himilo import tricks
from hilo_env.himilo.engine import Phase, Round
from hilo_env.himilo.observation import Encoder, action_mask
from hilo_env.himilo.render import player_name, render_text
from hilo_env.himilo.rules import CONSTRAINT_SHAPING, RuleSet, resolve
from hilo_env.himilo.spec import SPEC
from hilo_env.himilo.table import describe

RESET_OPTIONS = ("deck", "line", "dealer")
"""The keys ``reset(options=...)`` accepts."""
_PLAY, _OVER = Phase.PLAY, Phase.ROUND_OVER  # bound once: enum lookups are slow in 3.11


def env(rules: str | RuleSet = "standard", render_mode: str | None = None,
        shaping_weight: float = 1.0, **overrides: Any) -> AECEnv:
    """The Hi MiLo! AEC env with PettingZoo's wrappers for classic games."""
    return wrap(raw_env(rules, render_mode=render_mode, shaping_weight=shaping_weight,
                        **overrides))


class raw_env(CardGameEnv):
    """The unwrapped AEC environment over :class:`himilo.engine.Round`."""

    metadata: ClassVar[dict[str, Any]] = card_game_metadata(SPEC.pettingzoo_name)
    actions = A
    mask_of = staticmethod(action_mask)
    text_of = staticmethod(render_text)
    table_of = staticmethod(describe)

    def __init__(self, rules: str | RuleSet = "standard", render_mode: str | None = None,
                 shaping_weight: float = 1.0, illegal_action: str = "raise",
                 **overrides: Any) -> None:
        """``rules``: a preset name or a RuleSet, with field overrides (``num_players=5``);
        ``shaping_weight`` scales the shaping terms added to the rewards when
        ``shaping="constraints"``."""
        super().__init__()
        self.rules = resolve(rules, **overrides)
        self.shaping_weight = finite_number("shaping_weight", shaping_weight)
        self._shaping = self.rules.shaping == CONSTRAINT_SHAPING
        n = self.rules.num_players
        self._constraints = tricks.num_constraints(n)
        self._seat_players(render_mode, [player_name(i) for i in range(n)], Encoder(self.rules),
                           A.NUM_ACTIONS, 1.0, illegal_action)
        self._rng = np.random.default_rng()
        self.game: Round | None = None

    # ---- the AEC API ----------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new round; ``options`` may stack ``deck``, ``line`` and ``dealer``."""
        options = reset_options(options, RESET_OPTIONS)
        # a copy of the generator: a reset that raises leaves the env's as it was
        rng = copy.deepcopy(self._rng) if reset_seed(seed) is None else \
            np.random.default_rng(seed)
        self.game = Round(self.rules, rng, options.get("deck"), options.get("line"),
                          options.get("dealer"))
        self._rng = rng
        self._start_episode()
        self.infos = {a: self._info(0.0, 0.0) for a in self.agents}
        self._obs = {}
        self.agent_selection = self.possible_agents[self.game.current_player]

    def _before_play(self) -> tuple[int, int]:
        game = self.game
        return game.trick, game.failed_constraints() if self._shaping and game.phase == _PLAY \
            else 0

    def _after_play(self, before: tuple[int, int]) -> None:
        game, (trick, failed) = self.game, before
        term = 0.0
        if self._shaping and game.trick != trick:
            term = (failed - game.failed_constraints()) / self._constraints
        outcome = float(game.outcome)
        reward = outcome + self.shaping_weight * term
        self.rewards = dict.fromkeys(self.agents, reward)
        self.infos = {a: self._info(outcome, term, self._seats[a]) for a in self.agents}
        if game.phase == _OVER:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        self._accumulate_rewards()

    def _info(self, outcome: float, term: float, seat: int = 0) -> dict[str, float]:
        game = self.game
        return {"team_outcome": outcome, "shaping": term,
                "tricks_won": len(game.taken[seat]), "trick": game.trick}
