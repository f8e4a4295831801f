"""The equation solver: the best Low and High equation of any hand, from a precomputed table.

A hand holds 4 number cards (0..10, repeats possible), exactly 3 binary operators (a multiset
over ``+ - * /``) and 0..3 roots; under the ``base_operators`` rule field a smaller hand holds 2
or 3 numbers and one operator fewer than numbers (searched directly, never tabulated). An
equation uses every number and every operator once, ``[√]n o [√]n o [√]n o [√]n``, each √ on
a different number, no brackets; √ binds first, then × and ÷ left to right, then + and −
left to right. Dividing by zero (by √0 too) makes an equation invalid. The optimum for a
target (Low 1, High 20) is the valid equation with the smallest ``|value − target|``. With
``integer_results`` (classic rules) only equations whose result is a whole number (within
``TIE_TOLERANCE``) are valid; their value is reported rounded to that whole number.

Public API
==========

``solve(numbers, operators, roots=0, *, integer_results=False) -> Solution``
    The best Low and High equation of one hand: a table lookup for 4 numbers and a tabulated
    operator set, a direct vectorised search otherwise (2 or 3 numbers, other operators).
    The last 2,048 solutions are kept (solutions are immutable), so a repeated hand costs a
    dictionary lookup (``bench/solver.py`` times it).
``solve_unchecked(numbers, operators, roots, integer_results) -> Solution``
    ``solve`` for a hand known to be valid (the engine's showdown): 2 to 4 values and one
    ASCII operator fewer, in any order, no checks.
``Solution``
    Frozen: ``numbers`` (sorted), ``operators`` (canonical), ``roots``, ``integer_results``,
    ``low``, ``high``; each side an ``Equation``, or ``None`` when no equation is valid.
``Equation``
    Frozen: ``target``, ``value``, ``distance``, ``equation`` (text such as
    ``√4 ÷ 7 + 9 − 8``), and the cards in equation order: ``numbers``, ``rooted``, ``operators``.
``evaluate(text) -> float``
    The value of an equation written as text; NaN when it divides by zero.
``hand_operator_sets(rules) -> tuple[str, ...]``
    The operator multisets a hand of a rule set can hold (``hilo solve`` notes others).
``OPSETS``, ``opset_id(operators) -> int``, ``canonical_operators(operators) -> str``
    The tabulated operator multisets (an opset id indexes ``OPSETS``); the id of a multiset in
    any spelling (ValueError if not tabulated); a multiset of 1 to 3 operators as ASCII
    characters in ``+ - * /`` order.
``signature(numbers, operators, roots) -> int``
    The table row of one hand (numbers in any order).
``signatures(numbers, opset_ids, roots) -> ndarray``
    The table rows of many hands at once: ``(N, 4)``, ``(N,)``, ``(N,)`` -> int64 ``(N,)``.
``lookup_distances(sig_ids, integer_results=False) -> (low, high)``
    Best distances of many signatures, float64, ``inf`` where no equation is valid: one
    gather each.
``signature_unchecked(numbers, operators, roots) -> int``
    :func:`signature` of one valid hand of a tabulated opset, no checks (the observation's
    solver slice).
``search(numbers, operators, roots, integer_results) -> (low, high)``
    The best equations of one sorted hand without the table (any operator multiset, 2 to 4
    numbers).
``build_tables()``, ``tables_built()``, ``clear_cache()``, ``table_nbytes()``
    Build the tables now, whether they are built, drop them and the kept solutions
    (benchmarks), their size in bytes.
``LOW_TARGET``, ``HIGH_TARGET``, ``TIE_TOLERANCE``, ``NUM_SIGNATURES``, ``OP_SYMBOLS``
    1, 20, 1e-9, 16,016, and the symbols ``+ − × ÷`` of the ASCII operators.

Operators may be written ``+ - * /`` or ``+ − × ÷`` (``x`` for ×), as a string or a sequence.

The tables
==========

Four operator multisets can occur: every player starts with ``+ − ÷`` and ÷ is never
discarded; a × replaces + or − (``− × ÷``, ``+ × ÷``); under the classic rules a second ×
may replace the other of + and − (``× × ÷``). So ``OPSETS = ("+-/", "-*/", "+*/", "**/")``;
standard and duel hands use the first three, classic hands all four. Other multisets (say
``+++``) are not tabulated; ``solve()`` searches them directly with the same kernel.

The table has a row, a *signature*, for every sorted number multiset (1001) × opset (4) ×
root count (0..3), 16,016 rows, laid out as::

    signature = (multiset_id * NUM_OPSETS + opset_id) * (MAX_ROOTS + 1) + roots

where ``multiset_id`` numbers the sorted 4-tuples of values 0..10 in lexicographic order
(``(0,0,0,0)`` is 0, ``(10,10,10,10)`` is 1000). Each row holds, per mode (real, whole) and
per target, the best distance, its value and the winning equation (decoded to text on demand).

The build has three stages, each vectorised (loops run over opsets, operator orders and root
counts only, never over equations):

1. every ordered 4-tuple of *rooted values* (``0..10`` then ``√0..√10``: a 22**4 grid, by
   broadcasting) under every operator order of every opset (21 orders, 4.9 M equations): the
   best distance per tuple, opset, mode and target;
2. per signature, the first best of the tuples it can form (24 number orders × the choices of
   rooted positions), a gather and an argmin;
3. the 64,064 winning tuples again, to recover the winning operator order and value.

It runs on first use (``import`` stays cheap) and is cached in the module.

Ties
====

The reported equation is the one with the smallest distance as computed in float64; among
exactly equal distances, the first in this order: number order (``itertools.permutations``
of the numbers sorted ascending), then rooted positions (``itertools.combinations`` of the 4
positions), then operator order (the distinct permutations of the operators, sorted by
``+ − × ÷``). Distances within ``TIE_TOLERANCE`` count as equal when players are compared
(``docs/rules.md`` section 5); that is the engine's business, not the solver's.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.cards import NUM_VALUES
from hilo_env.equation_hilo.rules import RuleSet

__all__ = [
    "HIGH_TARGET", "LOW_TARGET", "MAX_ROOTS", "MIN_NUMBERS", "NUM_MULTISETS", "NUM_NUMBERS",
    "NUM_OPERATOR_KINDS", "NUM_OPSETS", "NUM_SIGNATURES",
    "OPERATORS", "OPSETS", "OP_SYMBOLS", "TARGETS", "TIE_TOLERANCE", "Equation", "Solution",
    "build_tables", "canonical_operators", "clear_cache", "evaluate", "lookup_distances",
    "opset_id", "opset_ids_of_counts", "search", "signature", "signature_unchecked",
    "signatures", "solve", "solve_unchecked", "table_nbytes", "tables_built",
]

LOW_TARGET = 1
HIGH_TARGET = 20
TARGETS = (LOW_TARGET, HIGH_TARGET)
TIE_TOLERANCE = 1e-9
"""Distances this close are equal; a result this close to a whole number is whole."""

NUM_NUMBERS = 4
NUM_OPERATORS = NUM_NUMBERS - 1
MAX_ROOTS = 3
MAX_VALUE = NUM_VALUES - 1

OPERATORS = "+-*/"
"""The binary operators in ASCII, in canonical order (also the tie order)."""
NUM_OPERATOR_KINDS = len(OPERATORS)
OPSETS: tuple[str, ...] = ("+-/", "-*/", "+*/", "**/")
"""The tabulated operator multisets; an opset id is an index into this tuple."""
NUM_OPSETS = len(OPSETS)
NUM_MULTISETS = math.comb(NUM_VALUES + NUM_NUMBERS - 1, NUM_NUMBERS)  # 1001
NUM_SIGNATURES = NUM_MULTISETS * NUM_OPSETS * (MAX_ROOTS + 1)  # 16,016

ROOT_SYMBOL = cards.ROOT_SYMBOL
_OP_ALIASES = {"+": "+", "-": "-", "−": "-", "*": "*", "×": "*", "x": "*", "X": "*",
               "/": "/", "÷": "/"}
OP_SYMBOLS = {"+": "+", "-": "−", "*": "×", "/": "÷"}
"""ASCII operator -> the symbol used in equation text."""

_NUM_ROOTED = 2 * NUM_VALUES  # rooted-value domain: n (0..10), then √n at n + 11
_NUM_TUPLES = _NUM_ROOTED ** NUM_NUMBERS  # 234,256 ordered tuples of rooted values
MIN_NUMBERS = 2
"""The fewest numbers of a hand (a ``base_operators`` of one operator)."""


def _places(count: int) -> np.ndarray:
    """The place values of a tuple of ``count`` rooted values as one base-22 code."""
    return np.array([_NUM_ROOTED ** (count - 1 - i) for i in range(count)])


_PLACES = _places(NUM_NUMBERS)
_DIGIT_PLACES = {count: tuple(_places(count).tolist())
                 for count in range(MIN_NUMBERS, NUM_NUMBERS + 1)}
"""``{count: places}``: :func:`_places` as Python ints, made once: :func:`_decode` reads one
code at a time (on every solution the cache does not hold)."""
_CODE_PLACES = np.array([NUM_VALUES ** (NUM_NUMBERS - 1 - i) for i in range(NUM_NUMBERS)])
_FLOAT, _WHOLE = 0, 1  # table modes: real results, whole-number results only


def _op_orders(ops: str) -> tuple[str, ...]:
    """The distinct orders of an operator multiset, sorted by ``+ − × ÷`` (the tie order)."""
    return tuple(sorted({"".join(p) for p in itertools.permutations(ops)},
                        key=lambda s: [OPERATORS.index(c) for c in s]))


_ORDERS = tuple(_op_orders(o) for o in OPSETS)
_OPSET_IDS = {o: i for i, o in enumerate(OPSETS)}
_CANONICAL = {"".join(p): "".join(sorted(p, key=OPERATORS.index))
              for k in range(MIN_NUMBERS - 1, NUM_OPERATORS + 1)
              for p in itertools.product(OPERATORS, repeat=k)}
"""Any 1 to 3 ASCII operators, in any order -> the multiset in canonical order."""
_MULTISET_IDS = {m: i for i, m in enumerate(
    itertools.combinations_with_replacement(range(NUM_VALUES), NUM_NUMBERS))}
"""Sorted 4-tuple of values -> its multiset id (lexicographic order)."""
_SOLUTION_CACHE_SIZE = 8192  # about 1.2 kB each: a 6-player engine game meets ~5,600 distinct hands


# ---------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class Equation:
    """One equation of a hand and how far its value lies from the target."""

    target: int
    """The target it was chosen for: 1 (Low) or 20 (High)."""
    value: float
    """Its result (whole-number results are exact integers in ``integer_results`` mode)."""
    distance: float
    """``|value − target|``."""
    equation: str
    """Text form, tokens separated by spaces: ``√4 ÷ 7 + 9 − 8``."""
    numbers: tuple[int, ...]
    """The number cards' values, in equation order."""
    rooted: tuple[bool, ...]
    """Which of those numbers carry a √."""
    operators: str
    """The operators between them, in order, in ASCII (``/+-``)."""

    def __str__(self) -> str:
        return f"{self.equation} = {self.value:.10g}"

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for JSON)."""
        d = asdict(self)
        d["numbers"], d["rooted"] = list(self.numbers), list(self.rooted)
        return d


@dataclass(frozen=True)
class Solution:
    """The best Low and High equations of a hand; ``None`` where no equation is valid."""

    numbers: tuple[int, ...]
    """The hand's numbers, sorted ascending."""
    operators: str
    """The hand's operators, canonical (``canonical_operators``)."""
    roots: int
    """How many √ the hand holds."""
    integer_results: bool
    """Whether only whole-number results were valid."""
    low: Equation | None
    """The best equation for target 1."""
    high: Equation | None
    """The best equation for target 20."""

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for JSON); a side with no valid equation is ``None``."""
        return {"numbers": list(self.numbers), "operators": self.operators, "roots": self.roots,
                "integer_results": self.integer_results,
                "low": None if self.low is None else self.low.to_dict(),
                "high": None if self.high is None else self.high.to_dict()}


# ---------------------------------------------------------------------------------------------
# Input checks


def canonical_operators(operators: str | Sequence[str]) -> str:
    """An operator multiset of 1 to 3 operators as ASCII characters in ``+ - * /`` order:
    ``"÷+−"`` -> ``"+-/"``.

    Accepts a string (spaces and commas ignored) or a sequence of one-character strings, in
    ASCII or the symbols ``− × ÷`` (``x`` for ×). Raises ValueError on anything else.
    """
    if isinstance(operators, str):
        items: list[Any] = [c for c in operators if c not in " ,\t"]
    elif isinstance(operators, Sequence):
        items = [c.strip() if isinstance(c, str) else c for c in operators]
    else:
        raise ValueError(f"operators must be a string or a sequence, got {operators!r}")
    out = []
    for c in items:
        op = _OP_ALIASES.get(c) if isinstance(c, str) else None
        if op is None:
            raise ValueError(f"unknown operator {c!r}: use + - * / (or − × ÷, x for ×)")
        out.append(op)
    if not MIN_NUMBERS - 1 <= len(out) <= NUM_OPERATORS:
        raise ValueError(f"a hand has {MIN_NUMBERS - 1} to {NUM_OPERATORS} operators, got "
                         f"{len(out)} ({''.join(out) or 'none'})")
    return "".join(sorted(out, key=OPERATORS.index))


def hand_operator_sets(rules: RuleSet) -> tuple[str, ...]:
    """The operator multisets a hand of ``rules`` can hold (canonical, ``+ - * /`` order):
    its ``base_operators`` after each × it kept (one per face-up deal at most, and at most
    ``max_multiply``) replaced one of the ``discardable_operators`` it held. Standard and duel
    rules: ``+-/``, ``+*/``, ``-*/``; classic adds ``**/``."""
    kept = len(rules.base_operators) if rules.max_multiply is None else \
        min(rules.max_multiply, len(rules.base_operators))
    found, frontier = {rules.base_operators}, {rules.base_operators}
    for _ in range(kept if rules.deck_multiply else 0):
        frontier = {canonical_operators(ops.replace(op, "", 1) + "*") for ops in frontier
                    for op in set(rules.discardable_operators) & set(ops)}
        found |= frontier
    return tuple(sorted(found, key=lambda ops: [OPERATORS.index(c) for c in ops]))


def opset_id(operators: str | Sequence[str]) -> int:
    """The id (index into ``OPSETS``) of a tabulated operator multiset, in any spelling."""
    ops = canonical_operators(operators)
    if ops not in _OPSET_IDS:
        raise ValueError(f"operators {ops!r} are not tabulated; tabulated: {list(OPSETS)} "
                         "(solve() handles any multiset)")
    return _OPSET_IDS[ops]


def _opset_of_counts() -> np.ndarray:
    table = np.full((NUM_OPERATORS + 1,) * NUM_OPERATORS, -1, dtype=np.int64)
    for i, ops in enumerate(OPSETS):
        table[tuple(ops.count(op) for op in OPERATORS[:NUM_OPERATORS])] = i
    return table


_OPSET_OF_COUNTS = _opset_of_counts()


def opset_ids_of_counts(counts: np.ndarray) -> np.ndarray:
    """Opset ids of operator multisets given as counts ``(..., 4)`` in :data:`OPERATORS` order
    (the ÷ count follows from the others); -1 for a multiset that is not tabulated."""
    counts = np.asarray(counts)
    return _OPSET_OF_COUNTS[counts[..., 0], counts[..., 1], counts[..., 2]]


def _check_numbers(numbers: Sequence[int], count: int = NUM_NUMBERS) -> tuple[int, ...]:
    """``count`` card values, sorted."""
    try:
        items = list(numbers)
    except TypeError:
        raise ValueError(f"numbers must be a sequence of {count} integers, "
                         f"got {numbers!r}") from None
    if len(items) != count:
        raise ValueError(f"a hand with {count - 1} operator(s) has exactly {count} numbers, "
                         f"got {len(items)}")
    for n in items:
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 0 <= n <= MAX_VALUE:
            raise ValueError(f"number {n!r} is not a card value (an integer 0..{MAX_VALUE})")
    return tuple(sorted(int(n) for n in items))


def _check_roots(roots: int, count: int = NUM_NUMBERS) -> int:
    """A root count for a hand of ``count`` numbers: each √ prefixes a different number."""
    most = min(MAX_ROOTS, count)
    if isinstance(roots, bool) or not isinstance(roots, int | np.integer) \
            or not 0 <= roots <= most:
        raise ValueError(f"roots must be an integer 0..{most}, got {roots!r}")
    return int(roots)


# ---------------------------------------------------------------------------------------------
# The kernel


def _evaluate(ops: str, a: Any, *rest: Any) -> np.ndarray:
    """``a o1 b o2 c o3 d`` (one number more than ``ops``) elementwise (NumPy broadcasting)
    under the rules' precedence.

    Keeps a running sum of finished terms and the term being built by × and ÷; a + or −
    finishes the term. NaN where the equation divides by zero. Call under ``np.errstate``.
    """
    acc: Any = None
    negative = False
    term: Any = a
    for op, x in zip(ops, rest, strict=True):
        if op == "*":
            term = term * x
        elif op == "/":
            term = term / np.where(x == 0, np.nan, x)
        else:
            acc = term if acc is None else (acc - term if negative else acc + term)
            negative, term = op == "-", x
    if acc is None:
        return np.asarray(term, dtype=np.float64)
    return acc - term if negative else acc + term


def _whole_only(values: np.ndarray) -> np.ndarray:
    """Values rounded where whole (within ``TIE_TOLERANCE``), NaN (invalid) elsewhere."""
    whole = np.rint(values)
    return np.where(np.abs(values - whole) <= TIE_TOLERANCE, whole + 0.0, np.nan)


def _best_order(values: np.ndarray, target: int) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the smallest distance to ``target`` over the rows (operator orders).

    Returns ``(distance, row)``: ``inf`` and 0 where every row is NaN (invalid); among equal
    distances the first row wins.
    """
    dist = np.abs(values - target)
    dist[np.isnan(dist)] = np.inf
    row = dist.argmin(axis=0)
    return np.take_along_axis(dist, row[None], axis=0)[0], row


def _multisets() -> np.ndarray:
    """The 1001 sorted number multisets, shape ``(1001, 4)``, in multiset-id order."""
    return np.array(list(itertools.combinations_with_replacement(range(NUM_VALUES),
                                                                 NUM_NUMBERS)), dtype=np.int64)


def _tuple_codes(multisets: np.ndarray, roots: int) -> np.ndarray:
    """The ordered rooted-value tuples each multiset of ``k`` numbers (``(M, k)``) forms with
    ``roots`` roots, as codes.

    Shape ``(M, k! * C(k, roots))``, in tie order: number order major, rooted positions minor.
    """
    k = multisets.shape[1]
    perms = np.array(list(itertools.permutations(range(k))))
    subsets = np.zeros((math.comb(k, roots), k), dtype=np.int64)
    for i, chosen in enumerate(itertools.combinations(range(k), roots)):
        subsets[i, list(chosen)] = NUM_VALUES
    digits = multisets[:, perms][:, :, None, :] + subsets  # (M, k!, C, k)
    return (digits @ _places(k)).reshape(len(multisets), -1)


def _rooted_values() -> np.ndarray:
    """The 22 rooted values: 0..10, then √0..√10."""
    n = np.arange(NUM_VALUES, dtype=np.float64)
    return np.concatenate([n, np.sqrt(n)])


def _decode(code: int, ops: str, value: float, target: int) -> Equation:
    digits = [int(code) // p % _NUM_ROOTED for p in _DIGIT_PLACES[len(ops) + 1]]
    numbers = tuple([x % NUM_VALUES for x in digits])
    rooted = tuple([x >= NUM_VALUES for x in digits])
    tokens = [(ROOT_SYMBOL if r else "") + str(n) for n, r in zip(numbers, rooted, strict=True)]
    text = tokens[0]
    for op, tok in zip(ops, tokens[1:], strict=True):
        text += f" {OP_SYMBOLS[op]} {tok}"
    value = float(value) + 0.0
    return Equation(target=target, value=value, distance=abs(value - target), equation=text,
                    numbers=numbers, rooted=rooted, operators=ops)


# ---------------------------------------------------------------------------------------------
# The tables


@dataclass(frozen=True)
class _Tables:
    """Per mode (real, whole), target (Low, High) and signature: the best equation."""

    distance: np.ndarray  # (2, 2, NUM_SIGNATURES) float64, inf: no valid equation
    value: np.ndarray  # (2, 2, NUM_SIGNATURES) float64, NaN: no valid equation
    code: np.ndarray  # (2, 2, NUM_SIGNATURES) int32: the rooted-value tuple, in order
    order: np.ndarray  # (2, 2, NUM_SIGNATURES) int8: index into _ORDERS[opset]

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.distance, self.value, self.code, self.order))


_lock = threading.Lock()
_tables: _Tables | None = None
_multiset_of_code: np.ndarray | None = None


def _multiset_ids() -> np.ndarray:
    """Multiset id of every ordered 4-tuple of values, indexed by its base-11 code (14,641)."""
    global _multiset_of_code
    if _multiset_of_code is None:
        tuples = np.indices((NUM_VALUES,) * NUM_NUMBERS).reshape(NUM_NUMBERS, -1).T
        _, ids = np.unique(np.sort(tuples, axis=1) @ _CODE_PLACES, return_inverse=True)
        _multiset_of_code = ids.astype(np.int32)
    return _multiset_of_code


def _build() -> _Tables:
    """Evaluate every equation shape once and reduce to the best equation per signature."""
    rv = _rooted_values()
    win = np.empty((2, 2, NUM_OPSETS, NUM_MULTISETS, MAX_ROOTS + 1), dtype=np.int64)
    distance, value = np.empty(win.shape), np.empty(win.shape)
    order = np.empty(win.shape, dtype=np.int8)
    with np.errstate(all="ignore"):
        # Stage 1: per mode, target, opset and ordered tuple of rooted values (a 22**4 grid,
        # by broadcasting), the best distance over the operator orders.
        axes = [rv.reshape([-1 if i == j else 1 for j in range(NUM_NUMBERS)])
                for i in range(NUM_NUMBERS)]
        tuple_dist = np.empty((2, 2, NUM_OPSETS, _NUM_TUPLES))
        for o, orders in enumerate(_ORDERS):
            real = np.stack([_evaluate(ops, *axes).ravel() for ops in orders])
            buf = np.empty_like(real)
            for mode, vals in ((_FLOAT, real), (_WHOLE, _whole_only(real))):
                for t, target in enumerate(TARGETS):
                    np.abs(np.subtract(vals, target, out=buf), out=buf)
                    tuple_dist[mode, t, o] = np.fmin.reduce(buf, axis=0)  # NaN: all invalid
        tuple_dist[np.isnan(tuple_dist)] = np.inf
        # Stage 2: per signature, the first of the tuples it can form with the best distance.
        multisets = _multisets()
        for roots in range(MAX_ROOTS + 1):
            codes = _tuple_codes(multisets, roots)  # (M, K)
            best = tuple_dist[..., codes].argmin(axis=-1)  # (mode, target, opset, M)
            win[..., roots] = codes[np.arange(NUM_MULTISETS), best]
        # Stage 3: only the winning tuples again, for the winning operator order and value.
        for o, orders in enumerate(_ORDERS):
            cols = [rv[win[:, :, o] // p % _NUM_ROOTED] for p in _PLACES]
            real = np.stack([_evaluate(ops, *cols) for ops in orders])  # (orders, mode, ...)
            for mode, vals in ((_FLOAT, real[:, _FLOAT]), (_WHOLE, _whole_only(real[:, _WHOLE]))):
                for t, target in enumerate(TARGETS):
                    dist, row = _best_order(vals[:, t], target)
                    distance[mode, t, o], order[mode, t, o] = dist, row
                    value[mode, t, o] = np.take_along_axis(vals[:, t], row[None], axis=0)[0]
    # Signature layout: (mode, target, multiset, opset, roots), flattened per mode and target.
    flat = (2, 2, NUM_SIGNATURES)
    return _Tables(*(np.ascontiguousarray(a.transpose(0, 1, 3, 2, 4)).reshape(flat)
                     for a in (distance, value, win.astype(np.int32), order)))


def _get_tables() -> _Tables:
    global _tables
    if _tables is None:
        with _lock:
            if _tables is None:
                _tables = _build()
    return _tables


def tables_built() -> bool:
    """Whether the tables are built (they are on first use, not on import)."""
    return _tables is not None


def build_tables() -> None:
    """Build the tables now (they are otherwise built on first use); a no-op when cached."""
    _get_tables()


def clear_cache() -> None:
    """Drop the cached tables and solutions, so the next use rebuilds them (for benchmarks
    and tests)."""
    global _tables
    with _lock:
        _tables = None
    _solve.cache_clear()


def table_nbytes() -> int:
    """Bytes held by the tables (building them if needed), the multiset index included."""
    return _get_tables().nbytes + _multiset_ids().nbytes


# ---------------------------------------------------------------------------------------------
# Lookups


def signature(numbers: Sequence[int], operators: str | Sequence[str], roots: int) -> int:
    """The table row of a hand (numbers in any order; operators of a tabulated opset)."""
    return _signature(_check_numbers(numbers), opset_id(operators), _check_roots(roots))


def _signature(nums: tuple[int, ...], oid: int, roots: int) -> int:
    """The table row of a checked hand (``nums`` sorted)."""
    return (_MULTISET_IDS[nums] * NUM_OPSETS + oid) * (MAX_ROOTS + 1) + roots


def signatures(numbers: np.ndarray, opset_ids: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """Table rows of many hands: ``numbers`` ``(N, 4)`` values 0..10 in any order,
    ``opset_ids`` ``(N,)`` indices into ``OPSETS``, ``roots`` ``(N,)`` 0..3 -> int64 ``(N,)``.
    """
    nums, ops, r = (np.asarray(x) for x in (numbers, opset_ids, roots))
    if nums.ndim != 2 or nums.shape[1] != NUM_NUMBERS or ops.shape != nums.shape[:1] \
            or r.shape != nums.shape[:1]:
        raise ValueError(f"expected numbers (N, {NUM_NUMBERS}), opset_ids (N,), roots (N,); "
                         f"got {nums.shape}, {ops.shape}, {r.shape}")
    for name, x, hi in (("numbers", nums, MAX_VALUE), ("opset_ids", ops, NUM_OPSETS - 1),
                        ("roots", r, MAX_ROOTS)):
        if x.size and (not np.issubdtype(x.dtype, np.integer) or x.min() < 0 or x.max() > hi):
            raise ValueError(f"{name} must be integers 0..{hi}")
    mid = _multiset_ids()[nums.astype(np.int64) @ _CODE_PLACES].astype(np.int64)
    return (mid * NUM_OPSETS + ops) * (MAX_ROOTS + 1) + r


def lookup_distances(sig_ids: np.ndarray,
                     integer_results: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Best Low and High distances (float64, ``inf``: no valid equation) of many signatures."""
    sig = np.asarray(sig_ids)
    if sig.size and (not np.issubdtype(sig.dtype, np.integer) or sig.min() < 0
                     or sig.max() >= NUM_SIGNATURES):
        raise ValueError(f"signature ids must be integers 0..{NUM_SIGNATURES - 1}")
    table = _get_tables().distance[_WHOLE if integer_results else _FLOAT]
    return table[0].take(sig), table[1].take(sig)


def solve(numbers: Sequence[int], operators: str | Sequence[str], roots: int = 0, *,
          integer_results: bool = False) -> Solution:
    """The best Low and High equations of a hand.

    ``numbers``: 4 values 0..10; ``operators``: 3 of ``+ - * /`` (any spelling, any order);
    ``roots``: 0..3. Smaller hands (a ``base_operators`` rule field of 1 or 2 operators): 2 or
    3 numbers, one operator fewer, at most as many roots as numbers. Tabulated operator sets of
    4 numbers are a table lookup; others are searched directly. Raises ValueError, saying what
    is wrong, for a hand that cannot exist.
    """
    ops = canonical_operators(operators)
    count = len(ops) + 1
    nums, r = _check_numbers(numbers, count), _check_roots(roots, count)
    return _solve(nums, ops, r, bool(integer_results))


def solve_unchecked(numbers: Sequence[int], operators: Sequence[str], roots: int,
                    integer_results: bool) -> Solution:
    """:func:`solve` for a hand known to be valid, such as the engine's: 2 to 4 values 0..10
    and one ASCII operator fewer, each in any order. Nothing is checked."""
    return _solve(tuple(sorted(numbers)), _CANONICAL["".join(operators)], roots,
                  integer_results)


def signature_unchecked(numbers: Sequence[int], operators: Sequence[str], roots: int) -> int:
    """:func:`signature` of one valid hand of a tabulated opset: 4 values 0..10 and 3 ASCII
    operators, each in any order. Nothing is checked."""
    return _signature(tuple(sorted(numbers)), _OPSET_IDS[_CANONICAL["".join(operators)]], roots)


@functools.lru_cache(maxsize=_SOLUTION_CACHE_SIZE)
def _solve(nums: tuple[int, ...], ops: str, r: int, whole: bool) -> Solution:
    """The solution of a checked hand: ``nums`` sorted, ``ops`` canonical."""
    if ops in _OPSET_IDS:  # 3 operators, so 4 numbers
        oid = _OPSET_IDS[ops]
        sig = _signature(nums, oid, r)
        tables, mode, orders = _get_tables(), _WHOLE if whole else _FLOAT, _ORDERS[oid]
        low, high = (
            None if math.isinf(tables.distance[mode, t, sig])
            else _decode(tables.code[mode, t, sig], orders[tables.order[mode, t, sig]],
                         tables.value[mode, t, sig], target)
            for t, target in enumerate(TARGETS))
    else:
        low, high = search(nums, ops, r, whole)
    return Solution(numbers=nums, operators=ops, roots=r, integer_results=whole,
                    low=low, high=high)


def search(nums: tuple[int, ...], ops: str, roots: int,
           whole: bool) -> tuple[Equation | None, Equation | None]:
    """The best Low and High equations of one checked hand (``nums`` sorted, ``ops``
    canonical, one operator fewer than numbers) found without the table, with its kernel and
    tie order: how :func:`solve` handles untabulated operators and hands of 2 or 3 numbers,
    and a check on the table."""
    codes = _tuple_codes(np.array([nums]), roots)[0]
    orders = _op_orders(ops)
    rv = _rooted_values()
    cols = [rv[codes // p % _NUM_ROOTED] for p in _places(len(nums))]
    with np.errstate(all="ignore"):
        real = np.stack([_evaluate(o, *cols) for o in orders])
        vals = _whole_only(real) if whole else real
        out = []
        for target in TARGETS:
            dist, row = _best_order(vals, target)
            j = int(dist.argmin())
            out.append(None if math.isinf(dist[j])
                       else _decode(codes[j], orders[row[j]], vals[row[j], j], target))
    return out[0], out[1]


# ---------------------------------------------------------------------------------------------
# Text


_TOKEN = re.compile(r"\s*(?:(√|r|sqrt)\s*)?(\d+)\s*([-+*/x×÷−]?)", re.IGNORECASE)


def evaluate(text: str) -> float:
    """The value of an equation written as text (``√4 ÷ 7 + 9 − 8``; ASCII and ``r4`` too).

    Any count of numbers works; returns NaN when the equation divides by zero.
    """
    pos, numbers, ops = 0, [], []
    stripped = text.strip()
    while pos < len(stripped):
        m = _TOKEN.match(stripped, pos)
        if m is None or m.end() == pos or (ops and ops[-1] == ""):
            raise ValueError(f"cannot read equation {text!r} at {stripped[pos:]!r}")
        root, n, op = m.groups()
        numbers.append(math.sqrt(int(n)) if root else float(int(n)))
        ops.append(_OP_ALIASES.get(op, ""))
        pos = m.end()
    if not numbers or ops[-1] != "":
        raise ValueError(f"cannot read equation {text!r}: expected numbers joined by operators")
    ops.pop()
    acc, negative, term = 0.0, False, numbers[0]
    for op, x in zip(ops, numbers[1:], strict=True):
        if op == "*":
            term *= x
        elif op == "/":
            if x == 0:
                return math.nan
            term /= x
        else:
            acc, negative, term = acc - term if negative else acc + term, op == "-", x
    return acc - term if negative else acc + term
