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

import itertools

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


def _operator_counts() -> dict[str, tuple[int, int, int, int]]:
    """Counts of ``+ - * /`` for every operator string a hand can hold, in any order."""
    out = {}
    for ops in itertools.product("+-*/", repeat=3):
        text = "".join(ops)
        out[text] = tuple(text.count(op) for op in "+-*/")
    return out


OPERATOR_COUNTS = _operator_counts()


class Encoder:
    """Builds observations for one rule set (the slice offsets computed once)."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.layout = layout(rules)
        self.size = list(self.layout.values())[-1].stop
        n = rules.num_players
        self._slots = [[(seat + k) % n for k in range(n)] for seat in range(n)]
        self._card_offsets = [self.layout["face_up"].start + k * cards.DECK_SIZE
                              for k in range(n)]
        self._tail_start = self.layout["operators"].start
        self._solver_cache: dict[tuple[int, int, int], list[float]] = {}

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """The observation of ``seat`` in ``game``."""
        rules, where = self.rules, self.layout
        n, stack = rules.num_players, float(rules.starting_stack)
        slots = self._slots[seat]
        # one-hot and card slices: the indices set to 1
        ones = [where["hidden"].start + game.hidden[seat]] if game.hidden[seat] >= 0 else []
        if game.phase < Phase.HAND_OVER:
            ones.append(where["phase"].start + int(game.phase))
        up = game.up
        for base, s in zip(self._card_offsets, slots, strict=True):
            ones += [base + c for c in up[s]]
        set_aside = where["set_aside"].start
        ones += [set_aside + c for c in game.set_aside]
        # everything from ``operators`` on, in layout order
        tail: list[float] = []
        operators = game.operators
        for s in slots:
            tail += OPERATOR_COUNTS["".join(operators[s])]
        roots, in_hand, stacks, wagers = game.roots, game.in_hand, game.stacks, game.wagers
        tail += [roots[s] / 3.0 for s in slots]
        tail += [float(in_hand[s]) for s in slots]
        tail += [stacks[s] / stack for s in slots]
        tail += [wagers[s] / stack for s in slots]
        for chips in game.round_wagers:
            tail += [chips[s] / stack for s in slots]
        tail += [0.0] * (n * (rules.num_bet_rounds - len(game.round_wagers)))
        button = [0.0] * n
        button[(game.button - seat) % n] = 1.0
        tail += button
        betting = [0.0] * rules.num_bet_rounds
        if game.phase == Phase.BET:
            betting[game.round] = 1.0
        tail += betting
        tail += (game.pot / stack, game.cap / stack, (max(wagers) - wagers[seat]) / stack)
        tail += self._solver(game, seat)
        tail.append((rules.hands_per_episode - game.hand_number) / rules.hands_per_episode)
        obs = np.zeros(self.size, dtype=np.float32)
        obs[ones] = 1.0
        obs[self._tail_start:] = tail
        return obs

    def _solver(self, game: Game, seat: int) -> list[float]:
        """Solver features, looked up once per full hand."""
        key = (id(game), game.hand_number, seat)
        feats = self._solver_cache.get(key)
        if feats is not None:
            return feats
        feats = solver_features(game, seat).tolist()
        if feats[0]:
            if len(self._solver_cache) > 64:
                self._solver_cache.clear()
            self._solver_cache[key] = feats
        return feats


def encode(game: Game, seat: int) -> np.ndarray:
    """The observation of ``seat`` (builds an :class:`Encoder`; reuse one in loops)."""
    return Encoder(game.rules).encode(game, seat)


def action_mask(game: Game, out: np.ndarray | None = None) -> np.ndarray:
    """int8 mask over the action space: 1 for each legal action of the acting player."""
    mask = np.zeros(A.num_actions(game.rules.starting_stack), dtype=np.int8) if out is None \
        else out
    if game.phase == Phase.BET and game.current_player is not None:
        check_or_call, lowest, highest = game.bet_options()
        mask[A.FOLD] = mask[check_or_call] = 1
        mask[lowest:highest + 1] = 1
    else:
        mask[game.legal_actions()] = 1
    return mask
