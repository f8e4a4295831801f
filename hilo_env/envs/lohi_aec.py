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
| render modes      | ``ansi`` (returns text), ``human`` (prints it), ``rgb_array`` (a         |
|                   | spectator's picture, uint8 H×W×3: :mod:`hilo_env.picture`)               |

``reset(seed=..., options=...)`` takes ``deck`` (round 1's 52 cards, ids or texts, top first),
``shuffle`` (the chance hook, ``cards -> order``, in place of the seeded one) and ``wins``
(starting win counts, in seat order or by seat: ``{0: 2}``). The raw env raises
``ValueError`` on an illegal action (``illegal_action="lose"``: the episode ends, the
offender -1, as :mod:`hilo_env.envs.card_game_env` says); :func:`env` adds PettingZoo's
classic wrappers, under which an illegal action ends the episode with a penalty of -1 for the
player who took it.
``infos`` hold numbers only (libraries store them in arrays): ``round`` (the round under way),
``round_winner`` (the seat that won the last finished round, -1 before one ends) and
``rounds_won`` (the agent's own count); the whole list is ``env.game.round_winners``.

Versions: v0, first release.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from hilo_env.envs.card_game_env import CardGameEnv, card_game_metadata
from hilo_env.envs.pettingzoo_wrappers import wrap
from hilo_env.envs.reset_options import reset_options, reset_seed
from hilo_env.lohi import actions as A
from hilo_env.lohi.engine import Game, SeededShuffle
from hilo_env.lohi.observation import Encoder, action_mask
from hilo_env.lohi.render import player_name, render_text
from hilo_env.lohi.rules import RuleSet, resolve
from hilo_env.lohi.spec import SPEC
from hilo_env.lohi.table import describe

RESET_OPTIONS = ("deck", "shuffle", "wins")


def env(rules: str | RuleSet = "standard", render_mode: str | None = None,
        **overrides: Any) -> AECEnv:
    """The lo-hi AEC env with PettingZoo's wrappers for classic games."""
    return wrap(raw_env(rules, render_mode=render_mode, **overrides))


class raw_env(CardGameEnv):
    """The unwrapped AEC environment over :class:`hilo_env.lohi.engine.Game`."""

    metadata: ClassVar[dict[str, Any]] = card_game_metadata(SPEC.pettingzoo_name)
    actions = A
    mask_of = staticmethod(action_mask)
    text_of = staticmethod(render_text)
    table_of = staticmethod(describe)

    def __init__(self, rules: str | RuleSet = "standard", render_mode: str | None = None,
                 illegal_action: str = "raise", **overrides: Any) -> None:
        """``rules``: a preset name (``standard``, ``single_round``) or a RuleSet;
        ``overrides``: rule fields, such as ``num_players=3``."""
        super().__init__()
        self.rules = resolve(rules, **overrides)
        self._seat_players(render_mode,
                           [player_name(i) for i in range(self.rules.num_players)],
                           Encoder(self.rules), A.NUM_ACTIONS, 1.0, illegal_action)
        self._shuffle = SeededShuffle()
        self.game: Game | None = None

    # ---- the AEC API ----------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game; ``seed`` reseeds the chance hook, ``options`` as the docstring."""
        options = reset_options(options, RESET_OPTIONS)
        seeded = self._shuffle if reset_seed(seed) is None else SeededShuffle(seed)
        shuffle = options.get("shuffle")
        self.game = Game(self.rules, seeded if shuffle is None else shuffle,
                         options.get("deck"), options.get("wins"))
        self._shuffle = seeded  # only once the game is dealt: a reset that raises changes nothing
        self._start_episode()
        self.infos: dict[str, dict] = {a: self._info(a) for a in self.agents}
        self._obs = {}
        self.agent_selection = self.possible_agents[self.game.current_player]

    def _info(self, agent: str) -> dict[str, int]:
        winners = self.game.round_winners
        return {"round": self.game.round_number, "round_winner": winners[-1] if winners else -1,
                "rounds_won": winners.count(self._seats[agent])}

    def _before_play(self) -> tuple[list[float], int]:
        return self.game.payoffs[:], self.game.round_number

    def _after_play(self, before: tuple[list[float], int]) -> None:
        game, (payoffs, rounds) = self.game, before
        self.rewards = {a: game.payoffs[i] - payoffs[i]
                        for i, a in enumerate(self.possible_agents)}
        if game.round_number != rounds or game.over:
            self.infos = {a: self._info(a) for a in self.agents}
        self._accumulate_rewards()
        if game.over:
            self.terminations = dict.fromkeys(self.agents, not game.truncated)
            self.truncations = dict.fromkeys(self.agents, game.truncated)
        else:
            self.agent_selection = self.possible_agents[game.current_player]
