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

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from hilo_env import actions as A
from hilo_env import cards, solver
from hilo_env.engine import Game, Phase
from hilo_env.rules import RuleSet

NUM_OPERATOR_KINDS = 4
OPERATOR_SLOT = {"+": 0, "-": 1, "*": 2, "/": 3}
DISTANCE_SCALE = 20.0
SOLVER_FEATURES = 5

# The phases checked on every observation, bound once: Python 3.11 looks enum members up slowly.
_BET, _DISCARD, _HAND_OVER = Phase.BET, Phase.DISCARD, Phase.HAND_OVER


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
    pending = game.phase == _DISCARD and game.current_player == seat
    return len(game.up[seat]) - game.roots[seat] - game.multiplies[seat] == 3 and not pending


def solver_features(game: Game, seat: int) -> np.ndarray:
    """The solver slice for one seat: its best distances once its hand is full."""
    if not hand_is_full(game, seat):
        return np.zeros(SOLVER_FEATURES, dtype=np.float64)
    return np.array(_full_hand_features(game, seat), dtype=np.float64)


def _full_hand_features(game: Game, seat: int) -> list[float]:
    """The solver slice of a full hand, as plain floats."""
    nums = [c // cards.NUM_SUITS for c in game.number_cards(seat)]
    low, high = solver.distances_unchecked(nums, game.operators[seat], game.roots[seat],
                                           game.rules.integer_results)
    out = [1.0]
    for d in (low, high):
        out += (1.0, min(d, DISTANCE_SCALE) / DISTANCE_SCALE) if math.isfinite(d) else (0.0, 1.0)
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
    """Builds observations for one rule set (the slice offsets computed once).

    An observation is a copy of its seat's *template* with the chips, the phase and the
    betting round filled in. The template holds every other slice, which change only when a
    card is dealt, an operator discarded or a hand started. Templates are kept for the game
    last encoded and brought up to date when it has moved on: within a hand, a dealt card
    stays in view, so new cards are the ones past those already shown. The game must change
    only through its own methods.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.layout = where = layout(rules)
        self.size = list(where.values())[-1].stop
        n = rules.num_players
        self._slots = [[(seat + k) % n for k in range(n)] for seat in range(n)]
        # where the cards of each seat slot, then the set-aside cards, are one-hot
        self._pile_offsets = [where["face_up"].start + k * cards.DECK_SIZE for k in range(n)]
        self._pile_offsets.append(where["set_aside"].start)
        self._stack = float(rules.starting_stack)
        self._phase_at, self._betting_at = where["phase"].start, where["betting_round"].start
        self._chips_at, self._pot_at = where["in_hand"].start, where["pot"].start
        self._to_call_at = where["to_call"].start
        self._game: Game | None = None
        self._templates: dict[int, _Template] = {}

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """The observation of ``seat`` in ``game``."""
        if game is not self._game:
            self._game = game
            self._templates.clear()
        obs = self._template(game, seat).copy()
        if game.phase < _HAND_OVER:
            obs[self._phase_at + game.phase] = 1.0
            if game.phase == _BET:
                obs[self._betting_at + game.round] = 1.0
        # per seat slot: in_hand, then stacks, wagers and round_wagers (rounds begun) / S
        stack, wagers, slots = self._stack, game.wagers, self._slots[seat]
        values = [float(game.in_hand[s]) for s in slots]
        values += [row[s] / stack for row in (game.stacks, wagers, *game.round_wagers)
                   for s in slots]
        obs[self._chips_at:self._chips_at + len(values)] = values
        obs[self._pot_at] = game.pot / stack
        obs[self._to_call_at] = (max(wagers) - wagers[seat]) / stack
        return obs

    def _template(self, game: Game, seat: int) -> np.ndarray:
        """The seat's template, up to date."""
        template = self._templates.get(seat)
        if template is None or template.hand != game.hand_number:
            template = self._templates[seat] = self._new_template(game, seat)
        state = _template_state(game)
        if template.state != state:
            self._catch_up(template, game, seat)
            template.state = state
        return template.obs

    def _new_template(self, game: Game, seat: int) -> _Template:
        """A template for the hand being played: its button, cap and hands left."""
        where, rules = self.layout, self.rules
        obs = np.zeros(self.size, dtype=np.float32)
        obs[where["button"].start + (game.button - seat) % rules.num_players] = 1.0
        obs[where["cap"].start] = game.cap / self._stack
        obs[where["hands_left"].start] = ((rules.hands_per_episode - game.hand_number)
                                          / rules.hands_per_episode)
        return _Template(obs, game.hand_number, [0] * len(self._pile_offsets))

    def _catch_up(self, template: _Template, game: Game, seat: int) -> None:
        """Add the cards dealt or set aside since the template was last brought up to date,
        and write the operators, the roots and (once the hand is full) the solver slice."""
        where, obs, slots = self.layout, template.obs, self._slots[seat]
        if game.hidden[seat] >= 0:  # not dealt to a seat out of the match
            obs[where["hidden"].start + game.hidden[seat]] = 1.0
        piles = [game.up[s] for s in slots] + [game.set_aside]
        for k, (base, pile) in enumerate(zip(self._pile_offsets, piles, strict=True)):
            for card in pile[template.shown[k]:]:
                obs[base + card] = 1.0
            template.shown[k] = len(pile)
        counts: list[float] = []
        for s in slots:
            counts += OPERATOR_COUNTS["".join(game.operators[s])]
        counts += [game.roots[s] / 3.0 for s in slots]
        obs[where["operators"].start:where["roots"].stop] = counts
        if hand_is_full(game, seat):
            obs[where["solver"]] = _full_hand_features(game, seat)


@dataclass(slots=True, eq=False)
class _Template:
    """One seat's observation of a hand with every slice but the chips, phase and round."""

    obs: np.ndarray
    hand: int
    """The hand number."""
    shown: list[int]
    """How many cards of each seat slot's face-up pile, then of the set-aside pile, it shows."""
    state: tuple[int, bool] | None = None
    """The game's :func:`_template_state` when the template was last brought up to date."""


def _template_state(game: Game) -> tuple[int, bool]:
    """What the template of a hand depends on that can change: the cards dealt (each card
    drawn stays in view or goes back into the deck, so the deck's size tells how many are in
    view) and whether a discard is pending (the discard changes the operators)."""
    return len(game.deck), game.phase == _DISCARD


def encode(game: Game, seat: int) -> np.ndarray:
    """The observation of ``seat`` (builds an :class:`Encoder`; reuse one in loops)."""
    return Encoder(game.rules).encode(game, seat)


def action_mask(game: Game, out: np.ndarray | None = None) -> np.ndarray:
    """int8 mask over the action space: 1 for each legal action of the acting player (also
    set in ``out`` when given, which is then returned)."""
    size = A.num_actions(game.rules.max_cap)
    if game.phase == _BET and game.current_player is not None:
        bet = _bet_mask(size, *game.bet_options())
        if out is None:
            return bet.copy()
        out[bet == 1] = 1
        return out
    mask = np.zeros(size, dtype=np.int8) if out is None else out
    mask[game.legal_actions()] = 1
    return mask


@functools.lru_cache(maxsize=256)
def _bet_mask(size: int, check_or_call: int, lowest: int, highest: int) -> np.ndarray:
    """The (read-only) mask of a betting decision: fold, check or call, the raises."""
    mask = np.zeros(size, dtype=np.int8)
    mask[[A.FOLD, check_or_call]] = 1
    mask[lowest:highest + 1] = 1
    mask.flags.writeable = False
    return mask
