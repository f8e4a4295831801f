"""Legal-action masks of many games at once, from one small integer per game: its mask code.

A game's legal set depends on little: the phase, and at a betting decision the highest wager,
the hand's cap and whether the player must call; after a × which operators the player holds.
So each game's legal set is one *mask code*:

| code                                      | legal set                                      |
|-------------------------------------------|------------------------------------------------|
| ``NO_CODE`` (0)                           | none (nobody acts)                             |
| 1..8                                      | a × discard: 1 + a bit each for + − × held     |
| ``DECLARE_CODE`` (9)                      | the declarations                               |
| ``BET_CODE + (high*(C+1) + cap)*2 + call``| a betting decision; ``C`` = ``rules.max_cap``  |

A table holds the mask row of every code when it is at most ``MASK_TABLE_BYTES`` (the
2-player presets at 100 chips: 2.2 MB); otherwise a row is the AND of a row of two small
tables, as fast at 16,384 games and a little slower than one lookup.
"""

from __future__ import annotations

import numpy as np

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.batch_state import MINUS, NUM_OPERATOR_KINDS, PLUS, TIMES, BatchState
from hilo_env.equation_hilo.engine import Phase
from hilo_env.equation_hilo.rules import RuleSet

NO_CODE, DECLARE_CODE, BET_CODE = 0, 9, 16
MASK_TABLE_BYTES = 8 << 20
DISCARD_ACTIONS = (A.DISCARD_PLUS, A.DISCARD_MINUS, A.DISCARD_MULTIPLY)
"""The discard actions of the bits of a discard code, in bit order."""
# NumPy compares arrays with plain ints several times faster than with enum members.
_BET, _DISCARD, _DECLARE = int(Phase.BET), int(Phase.DISCARD), int(Phase.DECLARE)


class MaskTable:
    """The mask rows of every mask code of one rule set."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.max_cap = rules.max_cap
        self.num_actions = A.num_actions(rules.max_cap)
        self.discard_times = "*" in rules.discardable_operators
        self._above, self._upto = self._factor_tables()
        rows = BET_CODE + 2 * (self.max_cap + 1) ** 2
        self.table: np.ndarray | None = None
        """The mask row of every code, or None when two smaller tables stand in for it."""
        if rows * self.num_actions <= MASK_TABLE_BYTES:  # else two lookups per row
            self.table = self.rows(np.arange(rows))

    def codes(self, state: BatchState, g: np.ndarray) -> np.ndarray:
        """Mask codes of games ``g``."""
        N, C = state.phase.size, self.max_cap
        ph = state.phase.take(g)
        fl = state.current_player.take(g) * N + g
        high = state.wagers.take(g, axis=1).max(0)
        must_call = state.wagers.reshape(-1).take(fl) < high
        code = (high * (C + 1) + state.cap.take(g)) * 2 + must_call + BET_CODE
        other = ph != _BET
        if other.any():
            i = other.nonzero()[0]
            code[i] = np.where(ph[i] == _DECLARE, DECLARE_CODE, NO_CODE)
            disc = i[ph[i] == _DISCARD]
            if disc.size:
                held = state.operators.reshape(-1, NUM_OPERATOR_KINDS).take(fl[disc], axis=0) > 0
                code[disc] = (1 + held[:, PLUS] + 2 * held[:, MINUS]
                              + 4 * (held[:, TIMES] & self.discard_times))
        return code

    def rows(self, code: np.ndarray) -> np.ndarray:
        """The int8 mask rows of mask codes (one table lookup, or two and an AND)."""
        if self.table is not None:
            return self.table.take(code, axis=0)
        i, j = self._factors(code)
        return (self._above.take(i, axis=0) & self._upto.take(j, axis=0)).view(np.int8)

    def legal(self, code: np.ndarray, a: np.ndarray) -> np.ndarray:
        """(k,) bool: action ``a`` (in range) is in the legal set of its code."""
        width = self.num_actions
        if self.table is not None:
            return self.table.reshape(-1).take(code * width + a).view(bool)
        i, j = self._factors(code)
        return (self._above.reshape(-1).take(i * width + a)
                & self._upto.reshape(-1).take(j * width + a))

    def _factor_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """Two tables whose rows ``above[i] & upto[j]`` make the mask row of every code (see
        ``_factors``). ``above``: the rows of the codes below BET_CODE, then per (highest
        wager h, must call) fold, check or call and the raises to more than h; ``upto``: per
        cap, everything but the raises above the cap, then a row of ones (other codes)."""
        C, width = self.max_cap, self.num_actions
        above = np.zeros((BET_CODE + 2 * (C + 1), width), bool)
        for code in range(1, 9):  # a × discard: 1 + a bit each for + − × held
            above[code, list(DISCARD_ACTIONS)] = [(code - 1) & 1, (code - 1) & 2, (code - 1) & 4]
        above[DECLARE_CODE, [A.DECLARE_LOW, A.DECLARE_HIGH]] = True
        above[DECLARE_CODE, A.DECLARE_SWING] = self.rules.swing
        ids, totals = np.arange(width), np.arange(C + 1)[:, None]
        bet = above[BET_CODE:].reshape(C + 1, 2, width)
        bet[:] = (ids >= A.FIRST_RAISE + totals)[:, None, :]
        bet[:, :, A.FOLD] = True
        bet[:, 0, A.CHECK] = True
        bet[:, 1, A.CALL] = True
        upto = np.ones((C + 2, width), bool)
        upto[:C + 1] = (ids < A.FIRST_RAISE) | (ids < A.FIRST_RAISE + totals)
        return above, upto

    def _factors(self, code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of ``_above`` and ``_upto`` whose AND is the mask row of each code."""
        C = self.max_cap
        c = code - BET_CODE
        bet = c >= 0
        h, cap = np.divmod(c >> 1, C + 1)
        return (np.where(bet, BET_CODE + 2 * h + (c & 1), code),
                np.where(bet, cap, C + 1))
