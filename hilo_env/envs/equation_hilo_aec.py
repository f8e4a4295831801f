"""Equation Hi-Lo as a PettingZoo AEC environment with masked actions.

| property          | value                                                                    |
|-------------------|--------------------------------------------------------------------------|
| agents            | ``player_0`` .. ``player_{n-1}`` (seat 0 acts first in the first hand)   |
| actions           | ``Discrete(9 + rules.max_cap)``: see :mod:`equation_hilo.actions`        |
| observations      | ``{"observation": Box(float32), "action_mask": Box(int8)}``: see         |
|                   | :mod:`equation_hilo.observation` for every slice                         |
| rewards           | each player's net chip change, given when a hand ends; they sum to minus |
|                   | the chips the house took                                                 |
| episode           | one hand, or ``hands_per_episode`` hands with the button moving; a       |
|                   | player who runs out of chips is terminated                               |
| render modes      | ``ansi`` (text, as the player to act sees it), ``human`` (printed, as a  |
|                   | spectator sees it), ``rgb_array`` (a spectator's picture, uint8 H×W×3)   |

``infos`` hold numbers only, so libraries can store them in arrays; they describe the last
finished hand (zeros and -1 before one ends): ``hand``, ``declaration`` (the declaration
action id, ``-1`` for none), ``low_distance`` and ``high_distance`` (``-1`` without an equation),
``payout``, ``net``, ``house``. The texts (declaration name, the equations) come from
:meth:`raw_env.result_texts`.

``reset(seed=..., options={"deck": [...]})`` stacks the top of the first hand's deck (any
sequence or array of card ids or text forms, top first); other option keys are refused, naming
the known ones. A reset that raises changes nothing. The raw env takes Python
and NumPy integers as actions (a ``TypeError`` otherwise) and raises ``ValueError`` on an
action outside the space or an illegal one (``raw_env(illegal_action="lose")`` ends the
episode instead, the offender -1: see :mod:`hilo_env.envs.card_game_env`);
:func:`env` adds PettingZoo's classic wrappers, under which an illegal action ends the episode
with a penalty of -1 for the player who took it.

Versions: v0, first release.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv

from hilo_env.envs.card_game_env import CardGameEnv, card_game_metadata
from hilo_env.envs.pettingzoo_wrappers import wrap
from hilo_env.envs.reset_options import reset_options, reset_seed
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.engine import Game, HandResult, Phase, stacked_deck
from hilo_env.equation_hilo.observation import Encoder, action_mask
from hilo_env.equation_hilo.render import DECLARATION_NAMES, player_name, render_text
from hilo_env.equation_hilo.rules import RuleSet, resolve
from hilo_env.equation_hilo.showdown import NO_DECLARATION
from hilo_env.equation_hilo.spec import SPEC
from hilo_env.equation_hilo.table import describe

_HAND_OVER = Phase.HAND_OVER  # bound once: Python 3.11 looks enum members up slowly


def env(rules: str | RuleSet = "standard", render_mode: str | None = None,
        **overrides: Any) -> AECEnv:
    """The Equation Hi-Lo AEC env with PettingZoo's wrappers for classic games."""
    return wrap(raw_env(rules, render_mode=render_mode, **overrides))


RESET_OPTIONS = ("deck",)
"""The keys ``reset(options=...)`` reads."""


class raw_env(CardGameEnv):
    """The unwrapped AEC environment over :class:`equation_hilo.engine.Game`."""

    metadata: ClassVar[dict[str, Any]] = card_game_metadata(SPEC.pettingzoo_name)
    actions = A
    mask_of = staticmethod(action_mask)
    text_of = staticmethod(render_text)
    table_of = staticmethod(describe)

    def __init__(self, rules: str | RuleSet = "standard", render_mode: str | None = None,
                 illegal_action: str = "raise", **overrides: Any) -> None:
        super().__init__()
        self.rules = resolve(rules, **overrides)
        n = self.rules.num_players
        self._seat_players(render_mode, [player_name(i) for i in range(n)], Encoder(self.rules),
                           A.num_actions(self.rules.max_cap), float(max(n, 3)), illegal_action)
        self._rng = np.random.default_rng()
        self.game: Game | None = None
        self._result: HandResult | None = None

    # ---- the AEC API ----------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new episode; ``options`` may hold ``deck`` (see the module docstring). Everything
        is checked first: a reset that raises changes nothing, the generator included."""
        deck = stacked_deck(reset_options(options, RESET_OPTIONS).get("deck"))
        rng = self._rng if reset_seed(seed) is None else np.random.default_rng(seed)
        self.game = Game(self.rules, rng, deck)
        self._rng = rng
        self._start_episode()
        self._result: HandResult | None = None
        self.infos: dict[str, dict] = {a: self._info(a) for a in self.agents}
        self._obs = {}
        self._hand_ended = False
        self.agent_selection = self.possible_agents[self.game.current_player]

    def _after_dead_step(self) -> None:
        selected, kept = self.agent_selection, self._obs.get(self.agent_selection)
        if kept is not None and self._seats[selected] == self.game.current_player and \
                not self._forfeited:
            # selected again to act in the same state: the kept mask is all zeros
            self._obs[selected] = {**kept, "action_mask": action_mask(self.game)}

    def _after_play(self, before: None) -> None:
        game = self.game
        if game.phase >= _HAND_OVER:
            self._end_hand()
            self._accumulate_rewards()
            self._deads_step_first()
        else:  # mid-hand: no rewards, nobody terminated
            if self._hand_ended:
                self.rewards = dict.fromkeys(self.agents, 0.0)
                self._hand_ended = False
            self.agent_selection = self.possible_agents[game.current_player]

    def _end_hand(self) -> None:
        """Rewards and infos of a finished hand; the next hand of a match is dealt at once."""
        game = self.game
        res = game.result
        seats = self._seats
        self.rewards = {a: float(res.net[seats[a]]) for a in self.agents}
        self._hand_ended = True
        self._result = res
        self.infos = {a: self._info(a) for a in self.agents}
        if game.phase == Phase.MATCH_OVER:
            self.terminations = dict.fromkeys(self.agents, True)
            return
        for a in self.agents:
            if game.eliminated[seats[a]]:
                self.terminations[a] = True
        game.start_next_hand()
        self.agent_selection = self.possible_agents[game.current_player]

    def _info(self, agent: str) -> dict[str, float]:
        """The numbers of the last finished hand for ``agent`` (see the module docstring)."""
        res, seat = self._result, self._seats[agent]
        if res is None:
            return {"hand": 0, "declaration": NO_DECLARATION, "low_distance": -1.0,
                    "high_distance": -1.0, "payout": 0, "net": 0, "house": 0}
        sol = res.solutions[seat]
        low, high = (None, None) if sol is None else (sol.low, sol.high)
        declaration = res.declarations[seat]
        return {
            "hand": self.game.hand_number,
            "declaration": NO_DECLARATION if declaration is None else declaration,
            "low_distance": -1.0 if low is None else float(low.distance),
            "high_distance": -1.0 if high is None else float(high.distance),
            "payout": res.payouts[seat],
            "net": res.net[seat],
            "house": res.house,
        }

    def result_texts(self, agent: str) -> dict[str, str | None]:
        """The texts of ``agent``'s last finished hand, kept out of ``infos`` (numbers only):
        ``declaration`` (``Low``, ``High``, ``Swing``) and ``low_equation`` and
        ``high_equation``; None where there is none (no hand ended, no showdown, no valid
        equation)."""
        res = self._result
        if res is None:
            return {"declaration": None, "low_equation": None, "high_equation": None}
        seat = self._seats[agent]
        sol = res.solutions[seat]
        low, high = (None, None) if sol is None else (sol.low, sol.high)
        return {"declaration": DECLARATION_NAMES.get(res.declarations[seat]),
                "low_equation": None if low is None else low.equation,
                "high_equation": None if high is None else high.equation}
