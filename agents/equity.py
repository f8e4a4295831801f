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
from typing import NamedTuple

import numpy as np

from hilo_env.agents.table_view import TableView
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
_SHARED: dict[tuple[RuleSet, int], Estimator] = {}
"""The estimators of :meth:`Estimator.shared`, by rule set and sample count."""


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
    """Side states of every pair: ``ours`` ``(..., K)`` against ``theirs`` ``(..., J)`` ->
    ``(..., K, J)`` (leading axes broadcast: both sides of a hand in one call)."""
    d, e = ours[..., :, None], theirs[..., None, :]
    return _states(d, d - TOL, _offset(d), e, e - TOL, _offset(e))


def _offset(distances: np.ndarray) -> np.ndarray:
    """:data:`TIED` for a valid distance, ``TIED + 3`` for none (``inf``): the state of a
    comparison before its winner is known (see :func:`_states`)."""
    return np.where(np.isfinite(distances), TIED, TIED + 3)


def _states(d: np.ndarray, d_below: np.ndarray, d_offset: np.ndarray,
            e: np.ndarray, e_below: np.ndarray, e_offset: np.ndarray) -> np.ndarray:
    """:func:`compare` of distances ``d`` against ``e`` (broadcast together), given each
    less :data:`TOL` and its :func:`_offset` (the pieces a cached distribution keeps).

    Both valid: ``TIED`` less 2 when we are better, less 1 when they are (WE_BETTER 0,
    THEY_BETTER 1, TIED 2). Else the same arithmetic plus 3, which an infinite side's offset
    brings: only we are valid 3, only they are 4, neither 5 (inf < inf fails both ways)."""
    state = np.maximum(d_offset, e_offset)
    better = d < e_below
    state -= better
    state -= better
    state -= e < d_below
    return state


def opponent_pick(low: np.ndarray, high: np.ndarray, swing: bool) -> np.ndarray:
    """The opponent model's declaration ``(J,)`` for opponents with these best distances: the
    side whose distance is smaller, Swing when both are exact (then mixed with a uniform
    choice, see :data:`UNIFORM_MIX`)."""
    pick = np.where(low <= high, LOW, HIGH)
    if swing:
        pick = np.where((low <= TOL) & (high <= TOL), SWING, pick)
    return pick


class Estimator:
    """Best-distance distributions of partly known hands under one rule set, cached.

    Everything it caches depends only on the cards asked about (samples are seeded by the hand
    itself), so agents of one rule set may share one: :meth:`shared`.
    """

    @classmethod
    def shared(cls, rules: RuleSet, samples: int = NUM_SAMPLES) -> Estimator:
        """The process's one estimator of ``rules``: every heuristic-style agent of a rule
        set fills and reads the same caches (a training pool holds several such opponents,
        a table of heuristics one per seat)."""
        key = (rules, samples)
        got = _SHARED.get(key)
        if got is None:
            got = _SHARED[key] = cls(rules, samples)
        return got

    def __init__(self, rules: RuleSet, samples: int = NUM_SAMPLES) -> None:
        self.rules = rules
        self.samples = samples
        self.whole = rules.integer_results
        self.discardable = rules.discardable_operators
        self._deck = cards.deck_ids(rules.deck_values, rules.deck_suits, rules.deck_multiply,
                                    rules.deck_roots)
        self._numbers = np.array([c for c in self._deck if cards.is_number(c)], dtype=np.int64)
        self._cache: dict[tuple, tuple] = {}
        self._hands: dict[tuple, tuple[list[int], int, int]] = {}
        self._table_t = np.ascontiguousarray(_model_table(SHARE, rules.swing).T)

    # ---- distances of one hand ------------------------------------------------------------

    def _remember(self, key: tuple, value: tuple) -> tuple:
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

    def grouped(self, values: Sequence[int], ops: str, roots: int, multiplies: int,
                up_left: int, hidden_unknown: bool) -> Grouped:
        """:meth:`completions` as its distinct (Low, High) pairs (:func:`group`), cached: a
        sample of 64 completions holds a few dozen, so comparing pairs is cheaper."""
        key = ("grouped", tuple(sorted(values)), ops, roots, multiplies, up_left,
               hidden_unknown)
        got = self._cache.get(key)
        if got is None:
            got = self._remember(key, group(np.stack(self.completions(
                values, ops, roots, multiplies, up_left, hidden_unknown)), self.rules.swing))
        return got

    def _by_value(self, values: Sequence[int], ops: str, roots: int) -> Grouped:
        """:meth:`by_hidden_value` as a :class:`Grouped` of 11 entries, one per value."""
        key = ("by value", tuple(sorted(values)), ops, roots)
        got = self._cache.get(key)
        if got is None:
            got = self._remember(key, group(np.stack(self.by_hidden_value(values, ops, roots)),
                                            self.rules.swing, distinct=False))
        return got

    # ---- equity against the table ---------------------------------------------------------

    def _hand(self, view: TableView, slot: int) -> tuple[list[int], int, int]:
        """A slot's number values (:meth:`TableView.numbers`), × count and face-up deals to
        come, remembered by its cards (they change only when a card is dealt)."""
        cards_of = (view.face_up[slot], view.hidden if slot == 0 else -1)
        got = self._hands.get(cards_of)
        if got is None:
            if len(self._hands) >= _CACHE_LIMIT:
                self._hands.clear()
            got = self._hands[cards_of] = (
                [c // cards.NUM_SUITS for c in view.numbers(slot)], view.multiplies(slot),
                view.up_deals_left(slot))
        return got

    def _own(self, view: TableView, ops: str) -> Grouped:
        values, multiplies, up_left = self._hand(view, 0)
        return self.grouped(values, ops, view.roots[0], multiplies, up_left,
                            hidden_unknown=False)

    def _unseen(self, view: TableView) -> np.ndarray:
        """The deck's number cards the observer cannot see, in deck order."""
        seen = np.zeros(cards.DECK_SIZE, dtype=bool)
        seen[list(view.seen_cards())] = True
        return self._numbers[~seen[self._numbers]]

    def _tiebreaks(self, view: TableView, slot: int, candidates: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Per candidate hidden card of the opponent: do we win a Low tie, a High tie?"""
        ours = np.array([view.numbers(0)])
        visible = view.numbers(slot)
        theirs = np.empty((candidates.size, len(visible) + 1), dtype=np.int64)
        theirs[:, :-1] = visible
        theirs[:, -1] = candidates
        low_won, high_won = (tiebreak_rank(ours, self.rules.tiebreak)
                             > tiebreak_rank(theirs, self.rules.tiebreak))
        return low_won, high_won

    def _heads_up(self, view: TableView, slot: int, own: Grouped
                  ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, int]:
        """Against the one opponent in ``slot``, per column of its possible hands: where its
        entries of the share table begin (:attr:`Grouped.block`), how many hands the column
        stands for (None: one each), the side states ``(2, J, K)`` against each of our pairs;
        and how many hands it may hold in all.

        Columns are what the states depend on: the values of its hidden card (exact case,
        weighted by the unseen cards of each) or its distinct sampled pairs; one per
        candidate card when a tie-break decides (our hand full, its face-up cards all dealt,
        a side tied)."""
        values, multiplies, up_left = self._hand(view, slot)
        ops, roots = view.operators[slot], view.roots[slot]
        if up_left > 0:
            theirs = self.grouped(values, ops, roots, multiplies, up_left, hidden_unknown=True)
            return theirs.block, theirs.weight, self._states(theirs, own), theirs.inverse.size
        unseen = self._unseen(view)
        by_value = self._by_value(values, ops, roots)
        vals = unseen // cards.NUM_SUITS
        count = np.bincount(vals, minlength=cards.NUM_VALUES)
        states = self._states(by_value, own)
        if own.inverse.size > 1 or not count[(states == TIED).any(axis=(0, 2))].any():
            return by_value.block, count, states, unseen.size
        states = states[:, vals]  # per candidate card: its value's states, then tie-breaks
        won = np.stack(self._tiebreaks(view, slot, unseen))[:, :, None]
        return (by_value.block[vals], None,
                np.where(states == TIED, np.where(won, WE_BETTER, THEY_BETTER), states),
                unseen.size)

    def _field(self, view: TableView, opponents: list[int], rng: np.random.Generator
               ) -> Grouped:
        """The opponents as one field of :attr:`samples` entries: each entry the best of one
        random hand of each (a hidden value of an unseen card, or a sampled completion),
        drawn from ``rng`` opponent by opponent.

        The draws are one call with a bound per opponent: NumPy draws broadcast bounds
        element by element in row order, the numbers of one call per opponent in turn."""
        unseen_values = self._unseen(view) // cards.NUM_SUITS
        hands, columns = [], []
        for slot in opponents:
            values, multiplies, up_left = self._hand(view, slot)
            ops, roots = view.operators[slot], view.roots[slot]
            if up_left == 0:  # per unseen card: its value's column
                hands.append(self._by_value(values, ops, roots))
                columns.append(unseen_values)
            else:  # per sampled completion: its pair's column
                hands.append(self.grouped(values, ops, roots, multiplies, up_left,
                                          hidden_unknown=True))
                columns.append(hands[-1].inverse)
        sizes = np.array([c.size for c in columns])[:, None]
        picks = rng.integers(0, sizes, (len(opponents), self.samples))
        field = hands[0].sides.take(columns[0][picks[0]], axis=1)
        for hand, column, pick in zip(hands[1:], columns[1:], picks[1:], strict=True):
            field = np.minimum(field, hand.sides.take(column[pick], axis=1))
        return group(field, self.rules.swing, distinct=False)

    @staticmethod
    def _states(theirs: Grouped, own: Grouped) -> np.ndarray:
        """:func:`compare` of our pairs against theirs, both sides: ``(2, J, K)``."""
        return _states(own.sides[:, None, :], own.below[:, None, :], own.offset[:, None, :],
                       theirs.sides[:, :, None], theirs.below[:, :, None],
                       theirs.offset[:, :, None])

    def shares(self, view: TableView, ops: str | None = None,
               rng: np.random.Generator | None = None) -> np.ndarray:
        """Our expected share of the pot ``(K, 3)`` per completion of our hand (one row when
        it is full) and per declaration (Low, High, Swing), averaged over the opponents'
        unknown cards. ``ops`` overrides our operators (to weigh a × discard).

        The states are counted once per distinct pair of our distances and per column of
        the opponent's (:meth:`_heads_up`), weighted by how many hands each stands for: the
        same counts, hence the same numbers, as one per completion and hand."""
        ops = view.operators[0] if ops is None else ops  # TableView's are canonical
        own = self._own(view, ops)
        opponents = [s for s in range(1, view.num_players) if view.in_hand[s]]
        if not opponents:
            return np.ones((own.inverse.size, NUM_DECLARATIONS))
        if len(opponents) == 1:
            block, weight, states, total = self._heads_up(view, opponents[0], own)
        else:
            theirs = self._field(view, opponents, rng or np.random.default_rng(0))
            block, weight, total = theirs.block, None, self.samples
            states = self._states(theirs, own)
        index = states[0] * NUM_STATES  # (J, K): the table entry of each pair of pairs
        index += states[1]
        index += block[:, None]
        index += own.rows  # and our pair's row of counts
        k, width = own.rows.size, _WIDTH
        flat = index.ravel()
        if weight is None:
            counts = np.bincount(flat, minlength=k * width)
        else:  # whole numbers of hands: exact in float64, back to the unweighted dtype
            counts = np.bincount(flat, weight.repeat(k), k * width).astype(np.int64)
        counts = counts.reshape(k, width)
        if own.inverse.size > 1:
            counts = counts[own.inverse]
        out = counts @ self._table_t / total
        if not self.rules.swing:
            out[:, SWING] = -math.inf
        return out


class Grouped(NamedTuple):
    """A list of (Low, High) best distances as its distinct pairs, with the pieces comparing
    them needs (:func:`_states`' and the share table's), computed once."""

    sides: np.ndarray
    """``(2, U)`` float: the distinct pairs, Low distances first."""
    below: np.ndarray
    """``(2, U)``: ``sides - TOL``."""
    offset: np.ndarray
    """``(2, U)`` int64: :func:`_offset` of each distance."""
    block: np.ndarray
    """``(U,)`` int64: where the share table's entries for each pair, were it an opponent's,
    begin: :func:`opponent_pick` times the 36 pairs of side states."""
    rows: np.ndarray
    """``(U,)`` int64: where each pair's counts begin, were it ours (a table row apart)."""
    weight: np.ndarray
    """``(U,)`` int64: how many entries of the list each pair stands for."""
    inverse: np.ndarray
    """``(N,)`` int64: each entry's pair (``sides[:, inverse]`` is the list)."""


_BLOCK = NUM_STATES * NUM_STATES
"""Share table entries per opponent pick: one per pair of side states."""
_WIDTH = NUM_DECLARATIONS * _BLOCK
"""Share table entries per declaration of ours (``Estimator._table_t`` rows)."""


def group(sides: np.ndarray, swing: bool, distinct: bool = True) -> Grouped:
    """The distinct pairs of a list ``(2, N)`` of (Low, High) distances (with ``distinct``
    False, or for one entry: the list as it is); ``swing``: the rules allow Swing (for the
    pick)."""
    n = sides.shape[1]
    if n == 1 or not distinct:
        weight, inverse = np.ones(n, np.int64), np.arange(n)
    else:
        pairs, inverse, weight = np.unique(sides.T, axis=0, return_inverse=True,
                                           return_counts=True)
        sides, inverse = np.ascontiguousarray(pairs.T), inverse.reshape(-1)
    return Grouped(sides, sides - TOL, _offset(sides),
                   opponent_pick(sides[0], sides[1], swing) * _BLOCK,
                   np.arange(sides.shape[1]) * _WIDTH, weight, inverse)
