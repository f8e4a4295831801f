"""What a player may know, as one flat float32 vector, and the mask of legal actions.

Seats are relative to the observer: seat slot 0 is the observer, slot k the k-th player to
their left (clockwise), so one policy can play any seat. ``n`` is ``num_players``, ``R`` the
number of betting rounds, ``S`` the starting stack; chip amounts are divided by ``S``.

| slice            | size   | content                                                             |
|------------------|--------|---------------------------------------------------------------------|
| ``phase``        | 3      | one-hot: betting, × discard, declaration (all 0 once the hand ends) |
| ``hidden``       | 44     | one-hot id of the observer's own hidden number card                 |
| ``face_up``      | n × 52 | per seat slot, the card ids it holds face up (√ and × included)     |
| ``set_aside``    | 52     | specials set aside this hand (extra cards that were not numbers)    |
| ``operators``    | n × 4  | per seat slot, how many of ``+ − × ÷`` it holds                     |
| ``roots``        | n      | per seat slot, √ held / 3                                           |
| ``in_hand``      | n      | per seat slot, 1 while it has not folded (0 when eliminated)        |
| ``stacks``       | n      | per seat slot, chips behind / S                                     |
| ``wagers``       | n      | per seat slot, chips wagered this hand (ante included) / S          |
| ``round_wagers`` | R × n  | per betting round, per seat slot, chips put in during it / S        |
| ``button``       | n      | one-hot seat slot of the dealer                                     |
| ``betting_round``| R      | one-hot current betting round (0 outside betting)                   |
| ``pot``          | 1      | chips in the pot / S                                                |
| ``cap``          | 1      | the hand's betting cap / S                                          |
| ``to_call``      | 1      | chips the observer must add to call / S                             |
| ``solver``       | 5      | own full hand: known; Low valid; Low distance; High valid; High |
|                  |        | distance (distances min(d, 20) / 20; all 0 until the hand is full) |
| ``hands_left``   | 1      | hands left in the episode after this one / hands_per_episode    |

Nothing here reveals another player's hidden card or declaration. The table is tested
against :func:`layout`.
"""

from __future__ import annotations

import numpy as np

from hilo_env import actions as A
from hilo_env import cards, solver
from hilo_env.engine import Game, Phase
from hilo_env.rules import RuleSet

NUM_OPERATOR_KINDS = 4
OPERATOR_SLOT = {"+": 0, "-": 1, "*": 2, "/": 3}
DISTANCE_SCALE = 20.0
SOLVER_FEATURES = 5


def layout(rules: RuleSet) -> dict[str, slice]:
    """Name -> slice of the observation vector, in order."""
    n, rounds = rules.num_players, rules.num_bet_rounds
    sizes = {
        "phase": 3, "hidden": cards.NUM_NUMBER_CARDS, "face_up": n * cards.DECK_SIZE,
        "set_aside": cards.DECK_SIZE, "operators": n * NUM_OPERATOR_KINDS, "roots": n,
        "in_hand": n, "stacks": n, "wagers": n, "round_wagers": rounds * n, "button": n,
        "betting_round": rounds, "pot": 1, "cap": 1, "to_call": 1, "solver": SOLVER_FEATURES,
        "hands_left": 1,
    }
    out, start = {}, 0
    for name, size in sizes.items():
        out[name] = slice(start, start + size)
        start += size
    return out


def hand_is_full(game: Game, seat: int) -> bool:
    """True once the seat holds its 4 numbers and its operators are settled."""
    pending = game.phase == Phase.DISCARD and game.current_player == seat
    return len(game.up[seat]) - game.roots[seat] - game.multiplies[seat] == 3 and not pending


def solver_features(game: Game, seat: int) -> np.ndarray:
    """The solver slice for one seat: its best distances once its hand is full."""
    out = np.zeros(SOLVER_FEATURES, dtype=np.float64)
    if not hand_is_full(game, seat):
        return out
    nums = [c // cards.NUM_SUITS for c in game.number_cards(seat)]
    sig = solver.signature(nums, game.operators[seat], game.roots[seat])
    low, high = solver.lookup_distances(np.array([sig]), game.rules.integer_results)
    out[0] = 1.0
    for i, d in ((1, low[0]), (3, high[0])):
        if np.isfinite(d):
            out[i], out[i + 1] = 1.0, min(d, DISTANCE_SCALE) / DISTANCE_SCALE
        else:
            out[i + 1] = 1.0
    return out


class Encoder:
    """Builds observations for one rule set (the slice offsets computed once)."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.layout = layout(rules)
        self.size = list(self.layout.values())[-1].stop
        self._solver_cache: dict[tuple[int, int], np.ndarray] = {}

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """The observation of ``seat`` in ``game``."""
        rules, where = self.rules, self.layout
        n, stack = rules.num_players, float(rules.starting_stack)
        obs = np.zeros(self.size, dtype=np.float32)
        slots = [(seat + k) % n for k in range(n)]
        if game.phase < Phase.HAND_OVER:
            obs[where["phase"].start + int(game.phase)] = 1.0
        if game.hidden[seat] >= 0:
            obs[where["hidden"].start + game.hidden[seat]] = 1.0
        face_up, ops = where["face_up"].start, where["operators"].start
        for k, s in enumerate(slots):
            for c in game.up[s]:
                obs[face_up + k * cards.DECK_SIZE + c] = 1.0
            for op in game.operators[s]:
                obs[ops + k * NUM_OPERATOR_KINDS + OPERATOR_SLOT[op]] += 1.0
        for c in game.set_aside:
            obs[where["set_aside"].start + c] = 1.0
        obs[where["roots"]] = [game.roots[s] / 3.0 for s in slots]
        obs[where["in_hand"]] = [float(game.in_hand[s]) for s in slots]
        obs[where["stacks"]] = [game.stacks[s] / stack for s in slots]
        obs[where["wagers"]] = [game.wagers[s] / stack for s in slots]
        rw = where["round_wagers"].start
        for r, chips in enumerate(game.round_wagers):
            obs[rw + r * n: rw + (r + 1) * n] = [chips[s] / stack for s in slots]
        obs[where["button"].start + (game.button - seat) % n] = 1.0
        if game.phase == Phase.BET:
            obs[where["betting_round"].start + game.round] = 1.0
        obs[where["pot"].start] = game.pot / stack
        obs[where["cap"].start] = game.cap / stack
        obs[where["to_call"].start] = (max(game.wagers) - game.wagers[seat]) / stack
        obs[where["solver"]] = self._solver(game, seat)
        obs[where["hands_left"].start] = ((rules.hands_per_episode - game.hand_number)
                                          / rules.hands_per_episode)
        return obs

    def _solver(self, game: Game, seat: int) -> np.ndarray:
        """Solver features, looked up once per full hand."""
        key = (id(game), game.hand_number, seat)
        if key in self._solver_cache:
            return self._solver_cache[key]
        feats = solver_features(game, seat)
        if feats[0]:
            if len(self._solver_cache) > 64:
                self._solver_cache.clear()
            self._solver_cache[key] = feats
        return feats


def encode(game: Game, seat: int) -> np.ndarray:
    """The observation of ``seat`` (builds an :class:`Encoder`; reuse one in loops)."""
    return Encoder(game.rules).encode(game, seat)


def action_mask(game: Game) -> np.ndarray:
    """int8 mask over the action space: 1 for each legal action of the acting player."""
    mask = np.zeros(A.num_actions(game.rules.starting_stack), dtype=np.int8)
    mask[game.legal_actions()] = 1
    return mask
