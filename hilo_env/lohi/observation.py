"""What one player may know of a lo-hi game, as a flat float32 vector, and the action mask.

Section 7 of ``docs/lohi.md``: public are every seat's hand size and win count, the round, the
top card, the need, the direction, the pick-up count, the stock size and the cards on the
discard pile; private is the player's own hand. Other hands, the stock's order and which card
another player picked up are hidden. Suits carry no meaning, so every card appears by rank
only (a played ``7D`` would otherwise tell that its player held no lower-id 7).

Seat slots are relative: slot 0 is the observer, slot i the seat i places clockwise. All
values lie in [0, 1]:

| slice         | size | value                                                          |
|---------------|------|----------------------------------------------------------------|
| ``phase``     | 3    | one-hot PLAY, CHOOSE, CALL (all zero once the game is over)    |
| ``hand``      | 13   | the observer's cards per rank / 4                              |
| ``hand_sizes``| n    | cards held per seat slot / 52                                  |
| ``wins``      | n    | rounds won per seat slot / ``max_wins`` (0 when that is 0)     |
| ``top``       | 13   | one-hot rank of the discard pile's top card                    |
| ``top_count`` | 4    | one-hot count of that rank on top of the pile (1..4)           |
| ``need``      | 4    | one-hot ANY, HIGHER, LOWER, EXACT                              |
| ``called``    | 13   | one-hot rank called by a triple (need EXACT), else zero        |
| ``direction`` | 1    | 1 clockwise, 0 counterclockwise                                |
| ``pickups``   | 1    | pick ups in a row / ``pickups_to_turn``                        |
| ``stock``     | 1    | cards in the stock / 52                                        |
| ``pile``      | 13   | cards on the discard pile per rank / 4                         |
| ``round``     | 1    | round number / ``max_rounds``                                  |

``top_count`` says whether a single of the top rank makes a double, triple or quadruple;
``pile`` with ``hand`` gives the ranks still unseen (4 - hand - pile, in other hands or the
stock). The order of play and who played what are in the game's history, not in the vector.
"""

from __future__ import annotations

import numpy as np

from hilo_env.lohi import actions as A
from hilo_env.lohi.cards import DECK_SIZE, NUM_RANKS, NUM_SUITS
from hilo_env.lohi.engine import CLOCKWISE, NO_RANK, Game, Need, Phase
from hilo_env.lohi.rules import RuleSet

PLAYING_PHASES = (Phase.PLAY, Phase.CHOOSE, Phase.CALL)
MAX_SAME_RANK = NUM_SUITS


def layout(rules: RuleSet) -> dict[str, slice]:
    """Where each part of the observation lies, in the table's order."""
    n = rules.num_players
    sizes = {"phase": len(PLAYING_PHASES), "hand": NUM_RANKS, "hand_sizes": n, "wins": n,
             "top": NUM_RANKS, "top_count": MAX_SAME_RANK, "need": len(Need),
             "called": NUM_RANKS, "direction": 1, "pickups": 1, "stock": 1, "pile": NUM_RANKS,
             "round": 1}
    out, start = {}, 0
    for name, size in sizes.items():
        out[name] = slice(start, start + size)
        start += size
    return out


class Encoder:
    """Builds observations of one rule set (the layout computed once)."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.where = layout(rules)
        self.size = self.where["round"].stop
        w = self.where
        self._phase, self._hand = w["phase"].start, w["hand"].start
        self._sizes, self._wins = w["hand_sizes"].start, w["wins"].start
        self._top, self._count = w["top"].start, w["top_count"].start
        self._need, self._called = w["need"].start, w["called"].start
        self._dir, self._pickups = w["direction"].start, w["pickups"].start
        self._stock, self._pile, self._round = w["stock"].start, w["pile"].start, \
            w["round"].start

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """The observation of ``seat`` (see the module's table)."""
        rules, n = self.rules, self.rules.num_players
        obs = np.zeros(self.size, dtype=np.float32)
        if game.phase in PLAYING_PHASES:
            obs[self._phase + game.phase] = 1.0
        obs[self._hand:self._hand + NUM_RANKS] = game.rank_counts(seat)
        obs[self._hand:self._hand + NUM_RANKS] /= NUM_SUITS
        order = [(seat + i) % n for i in range(n)]
        obs[self._sizes:self._sizes + n] = [game.hand_sizes[s] / DECK_SIZE for s in order]
        if rules.max_wins:
            obs[self._wins:self._wins + n] = [game.wins[s] / rules.max_wins for s in order]
        obs[self._top + game.top_rank] = 1.0
        obs[self._count + game.top_count - 1] = 1.0
        obs[self._need + game.need] = 1.0
        if game.called != NO_RANK:
            obs[self._called + game.called] = 1.0
        obs[self._dir] = float(game.direction == CLOCKWISE)
        obs[self._pickups] = game.pickups / rules.pickups_to_turn
        obs[self._stock] = len(game.stock) / DECK_SIZE
        pile = np.bincount(np.array(game.pile) // NUM_SUITS, minlength=NUM_RANKS)
        obs[self._pile:self._pile + NUM_RANKS] = pile / NUM_SUITS
        obs[self._round] = game.round_number / rules.max_rounds
        return obs


def action_mask(game: Game) -> np.ndarray:
    """int8 (200,): 1 for each legal action of the player to act, all zero once it is over."""
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[game.legal_actions()] = 1
    return mask
