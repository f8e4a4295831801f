"""Showdown equity: the share of the pot a hand can expect, from what its owner can see.

Used by the ``heuristic`` agent. Three pieces:

* :data:`SHARE`, the heads-up payout rules of ``docs/rules.md`` section 7 as a table: our
  fraction of the pot for each pair of declarations (ours, theirs) and each outcome of the
  Low and High comparisons (we are better, they are, a tie, only one of us has a valid
  equation, neither has). Built once by :func:`showdown.split_pot` on one synthetic
  showdown per entry; read by table lookups.
* :class:`Estimator`, the best-distance distributions of hands that are not fully known: an
  opponent's hand over the hidden cards it may hold (exact, with the tie-break, once its face-up
  cards are all dealt), and any hand with deals still to come (a fixed Monte Carlo sample
  of completions from a fresh deck, seeded by the hand itself so results never depend on call
  order). All distances come from the solver's precomputed table; results are cached.
* :meth:`Estimator.shares`, our expected share of the pot for each declaration, averaged over
  what we cannot see, against an opponent who declares the side its best distance is smaller
  on (Swing when both sides are exact), mixed with a little uniform noise.

With more than two players the opponents are folded into one "field" whose distances are the
best of theirs, sample by sample: a rough model, but enough for sensible play.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

import numpy as np

from hilo_env.agents.base import TableView
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards, solver
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.equation_hilo.showdown import split_pot, tiebreak_rank

LOW, HIGH, SWING = 0, 1, 2
"""Declaration indices (add :data:`equation_hilo.actions.DECLARE_LOW` for the action id)."""
NUM_DECLARATIONS = 3
WE_BETTER, THEY_BETTER, TIED, ONLY_WE, ONLY_THEY, NEITHER = range(6)
"""How one side compares between us and the opponent."""
NUM_STATES = 6
TOL = solver.TIE_TOLERANCE

NUM_SAMPLES = 64
"""Completions drawn for a hand with deals still to come."""
UNIFORM_MIX = 0.15
"""Weight of a uniformly random declaration in the opponent model."""
_MAX_DRAWS = 12
_OPSET_ID = {o: i for i, o in enumerate(solver.OPSETS)}
_CACHE_LIMIT = 200_000


_STATE_DISTANCES = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 0.0], [0.0, math.inf],
                             [math.inf, 0.0], [math.inf, math.inf]])
"""``[state]``: (our distance, theirs) on a side, realising each side state (``TIED``: equal
distances, left to the tie-break)."""
_TIEBREAK_WINNERS = np.array([[1, 0], [0, 1]])
"""(our tie-break rank, theirs): we win the tie-break, or they do."""
_SHARE_POT = 2
"""An even pot, so that no odd chip goes to the house."""


def _share_table() -> np.ndarray:
    """:data:`SHARE`, from :func:`showdown.split_pot` on a batch of heads-up showdowns (seat 0
    is us): one per pair of declarations, pair of side states (realised by distances) and
    pair of tie-break winners. A ``TIED`` state is a coin flip of the tie-break: the mean
    over who wins it."""
    ties = len(_TIEBREAK_WINNERS)
    ours, theirs, low, high, low_tie, high_tie = np.indices(
        (NUM_DECLARATIONS, NUM_DECLARATIONS, NUM_STATES, NUM_STATES, ties, ties))
    declarations = A.DECLARE_LOW + np.stack([ours, theirs], axis=-1)
    distances = np.stack([_STATE_DISTANCES[low], _STATE_DISTANCES[high]], axis=-2)
    ranks = np.stack([_TIEBREAK_WINNERS[low_tie], _TIEBREAK_WINNERS[high_tie]], axis=-2)
    payouts = split_pot(_SHARE_POT, np.ones(declarations.shape, bool), declarations, distances,
                        ranks).payouts
    return (payouts[..., 0] / _SHARE_POT).mean(axis=(-2, -1))


SHARE = _share_table()
"""``SHARE[ours, theirs, low_state, high_state]``: our fraction of the pot, heads-up."""


def _model_table(share: np.ndarray, swing: bool) -> np.ndarray:
    """``(3, 3 * 36)``: our share per declaration, indexed by ``pick * 36 + state`` where
    ``pick`` is the opponent's modelled choice and ``state = low_state * 6 + high_state``."""
    sides = NUM_DECLARATIONS if swing else 2
    probs = np.zeros((NUM_DECLARATIONS, NUM_DECLARATIONS))
    probs[:, :sides] = UNIFORM_MIX / sides
    probs[np.arange(NUM_DECLARATIONS), np.arange(NUM_DECLARATIONS)] += 1.0 - UNIFORM_MIX
    flat = share.reshape(NUM_DECLARATIONS, NUM_DECLARATIONS, NUM_STATES * NUM_STATES)
    return np.einsum("dos,po->dps", flat, probs).reshape(NUM_DECLARATIONS, -1)


def compare(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Side states of every pair: ``ours`` ``(K,)`` against ``theirs`` ``(J,)`` -> ``(K, J)``."""
    d, e = ours[:, None], theirs[None, :]
    vd, ve = np.isfinite(d), np.isfinite(e)
    better, worse = d < e - TOL, e < d - TOL
    # both valid: WE_BETTER 0, THEY_BETTER 1, TIED 2; else ONLY_WE 3, ONLY_THEY 4, NEITHER 5
    return np.where(vd & ve, TIED - 2 * better - worse, NEITHER - 2 * vd - ve)


def opponent_pick(low: np.ndarray, high: np.ndarray, swing: bool) -> np.ndarray:
    """The opponent model's declaration ``(J,)`` for opponents with these best distances: the
    side whose distance is smaller, Swing when both are exact (then mixed with a uniform
    choice, see :data:`UNIFORM_MIX`)."""
    pick = np.where(low <= high, LOW, HIGH)
    if swing:
        pick = np.where((low <= TOL) & (high <= TOL), SWING, pick)
    return pick


class Estimator:
    """Best-distance distributions of partly known hands under one rule set, cached."""

    def __init__(self, rules: RuleSet, samples: int = NUM_SAMPLES) -> None:
        self.rules = rules
        self.samples = samples
        self.whole = rules.integer_results
        self.discardable = rules.discardable_operators
        self._deck = cards.deck_ids(rules.deck_values, rules.deck_suits, rules.deck_multiply,
                                    rules.deck_roots)
        self._cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._table_t = np.ascontiguousarray(_model_table(SHARE, rules.swing).T)

    # ---- distances of one hand ------------------------------------------------------------

    def _remember(self, key: tuple, value: tuple[np.ndarray, np.ndarray]
                  ) -> tuple[np.ndarray, np.ndarray]:
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = value
        return value

    def distances(self, numbers: np.ndarray, ops: Sequence[str], roots: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Best Low and High distances ``(N,)`` of full hands: ``numbers`` ``(N, k)`` values,
        ``ops`` N canonical operator strings, ``roots`` ``(N,)``. Hands of 4 numbers and a
        tabulated opset are table lookups; smaller hands (``base_operators``) are solved."""
        numbers, roots = np.asarray(numbers), np.asarray(roots)
        if numbers.shape[1] == solver.NUM_NUMBERS and all(o in _OPSET_ID for o in ops):
            sig = solver.signatures(numbers, np.array([_OPSET_ID[o] for o in ops]),
                                    np.minimum(roots, solver.MAX_ROOTS))
            return solver.lookup_distances(sig, self.whole)
        low, high = np.full(len(ops), np.inf), np.full(len(ops), np.inf)
        for i, (nums, o, r) in enumerate(zip(numbers.tolist(), ops, roots.tolist(),
                                             strict=True)):
            sol = solver.solve(nums, o, min(r, len(nums) - 1), integer_results=self.whole)
            low[i] = math.inf if sol.low is None else sol.low.distance
            high[i] = math.inf if sol.high is None else sol.high.distance
        return low, high

    def exact(self, values: Sequence[int], ops: str, roots: int) -> tuple[float, float]:
        """Best Low and High distances of a full hand (``inf``: no valid equation)."""
        key = ("exact", tuple(sorted(values)), ops, roots)
        got = self._cache.get(key)
        if got is None:
            got = self._remember(key, self.distances(np.array([values]), [ops], np.array([roots])))
        return float(got[0][0]), float(got[1][0])

    def by_hidden_value(self, visible: Sequence[int], ops: str, roots: int
                        ) -> tuple[np.ndarray, np.ndarray]:
        """Distances ``(11,)`` of a hand of known face-up numbers for each value of the
        hidden one."""
        key = ("hidden", tuple(sorted(visible)), ops, roots)
        got = self._cache.get(key)
        if got is None:
            nums = np.array([[*visible, v] for v in range(cards.NUM_VALUES)])
            got = self._remember(key, self.distances(nums, [ops] * cards.NUM_VALUES,
                                                     np.full(cards.NUM_VALUES, roots)))
        return got

    def completions(self, values: Sequence[int], ops: str, roots: int, multiplies: int,
                    up_left: int, hidden_unknown: bool) -> tuple[np.ndarray, np.ndarray]:
        """Distances ``(K,)`` of a hand with ``up_left`` face-up deals to come (and its hidden
        card unknown if ``hidden_unknown``): a seeded sample of completions from a fresh deck.

        A drawn × replaces each operator it may force out, and the best of the resulting hands
        counts per side (the owner picks the discard knowing its cards).
        """
        if up_left == 0 and not hidden_unknown:
            low, high = self.exact(values, ops, roots)
            return np.array([low]), np.array([high])
        key = ("sample", tuple(sorted(values)), ops, roots, multiplies, up_left, hidden_unknown)
        got = self._cache.get(key)
        if got is None:
            got = self._remember(key, self._sample(key))
        return got

    def _sample(self, key: tuple) -> tuple[np.ndarray, np.ndarray]:
        _, values, ops, roots, multiplies, up_left, hidden_unknown = key
        rng = np.random.default_rng(zlib.crc32(repr(key).encode()))
        k = self.samples
        if self.rules.full_deck:  # the full deck's draws as they always were
            draws = rng.integers(0, cards.DECK_SIZE, size=(k, _MAX_DRAWS))
            extras = rng.integers(0, cards.NUM_VALUES, size=(k, _MAX_DRAWS))
        else:
            draws = rng.choice(np.array(self._deck), size=(k, _MAX_DRAWS))
            extras = rng.choice(np.array(self.rules.deck_values), size=(k, _MAX_DRAWS))
        limit = self.rules.max_multiply
        rows, owner = [], []
        for i in range(k):
            nums, opsets, r, m, j = list(values), {ops}, roots, multiplies, 0
            if hidden_unknown:
                nums.append(int(extras[i, j]))
                j += 1
            for _ in range(up_left):
                while True:
                    if j >= _MAX_DRAWS:  # draws used up (never in practice): a number
                        nums.append(int(rng.integers(0, cards.NUM_VALUES)))
                        break
                    card, extra = int(draws[i, j]), int(extras[i, j])
                    j += 1
                    if cards.is_number(card):
                        nums.append(card // cards.NUM_SUITS)
                        break
                    if cards.is_multiply(card):
                        if limit is not None and m >= limit:
                            continue  # put back: the deal draws again
                        m += 1
                        opsets = {solver.canonical_operators(o.replace(d, "", 1) + "*")
                                  for o in opsets for d in self.discardable if d in o} or opsets
                    else:
                        r += 1
                    nums.append(extra)
                    break
            for o in opsets:
                rows.append((nums, o, r))
                owner.append(i)
        numbers, ops_of, roots_of = zip(*rows, strict=True)
        low_all, high_all = self.distances(np.array(numbers), list(ops_of), np.array(roots_of))
        low, high = np.full(k, np.inf), np.full(k, np.inf)
        np.minimum.at(low, owner, low_all)
        np.minimum.at(high, owner, high_all)
        return low, high

    # ---- equity against the table ---------------------------------------------------------

    def _own(self, view: TableView, ops: str) -> tuple[np.ndarray, np.ndarray]:
        values = [c // cards.NUM_SUITS for c in view.numbers(0)]
        return self.completions(values, ops, view.roots[0], view.multiplies(0),
                                view.up_deals_left(0), hidden_unknown=False)

    def _opponent(self, view: TableView, slot: int, unseen: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """An opponent's distances: per unseen hidden card (exact) when its face-up cards are
        all dealt, else per sampled completion; the candidate cards in the exact case."""
        values = [c // cards.NUM_SUITS for c in view.numbers(slot)]
        ops, roots = view.operators[slot], view.roots[slot]
        if view.up_deals_left(slot) == 0:
            low, high = self.by_hidden_value(values, ops, roots)
            vals = unseen // cards.NUM_SUITS
            return low[vals], high[vals], unseen
        low, high = self.completions(values, ops, roots,
                                     view.multiplies(slot), view.up_deals_left(slot),
                                     hidden_unknown=True)
        return low, high, None

    def _tiebreaks(self, view: TableView, slot: int, candidates: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Per candidate hidden card of the opponent: do we win a Low tie, a High tie?"""
        ours = np.array([view.numbers(0)])
        visible = np.array(view.numbers(slot), dtype=np.int64)
        theirs = np.concatenate([np.broadcast_to(visible, (candidates.size, visible.size)),
                                 candidates[:, None]], axis=1)
        low_won, high_won = (tiebreak_rank(ours, self.rules.tiebreak)
                             > tiebreak_rank(theirs, self.rules.tiebreak))
        return low_won, high_won

    def shares(self, view: TableView, ops: str | None = None,
               rng: np.random.Generator | None = None) -> np.ndarray:
        """Our expected share of the pot ``(K, 3)`` per completion of our hand (one row when
        it is full) and per declaration (Low, High, Swing), averaged over the opponents'
        unknown cards. ``ops`` overrides our operators (to weigh a × discard)."""
        ops = view.operators[0] if ops is None else ops  # TableView's are canonical
        low, high = self._own(view, ops)
        seen = view.seen_cards()
        unseen = np.array([c for c in self._deck if cards.is_number(c) and c not in seen])
        opponents = [s for s in range(1, view.num_players) if view.in_hand[s]]
        if not opponents:
            return np.ones((low.size, NUM_DECLARATIONS))
        if len(opponents) == 1:
            e_low, e_high, cand = self._opponent(view, opponents[0], unseen)
            low_state, high_state = compare(low, e_low), compare(high, e_high)
            if cand is not None and low.size == 1:
                low_won, high_won = self._tiebreaks(view, opponents[0], cand)
                low_state = _break_ties(low_state, low_won)
                high_state = _break_ties(high_state, high_won)
        else:
            rng = rng or np.random.default_rng(0)
            e_low, e_high = np.full(self.samples, np.inf), np.full(self.samples, np.inf)
            for slot in opponents:
                o_low, o_high, _ = self._opponent(view, slot, unseen)
                pick = rng.integers(0, o_low.size, self.samples)
                e_low, e_high = np.minimum(e_low, o_low[pick]), np.minimum(e_high, o_high[pick])
            low_state, high_state = compare(low, e_low), compare(high, e_high)
        pick = opponent_pick(e_low, e_high, self.rules.swing)
        index = pick[None, :] * (NUM_STATES * NUM_STATES) + low_state * NUM_STATES + high_state
        k, width = index.shape[0], self._table_t.shape[0]
        counts = np.bincount((index + np.arange(k)[:, None] * width).ravel(),
                             minlength=k * width).reshape(k, width)
        out = counts @ self._table_t / index.shape[1]
        if not self.rules.swing:
            out[:, SWING] = -math.inf
        return out


def _break_ties(state: np.ndarray, we_win: np.ndarray) -> np.ndarray:
    """Resolve ``TIED`` entries ``(1, J)`` with the known tie-break of each candidate."""
    return np.where(state == TIED, np.where(we_win[None, :], WE_BETTER, THEY_BETTER), state)
