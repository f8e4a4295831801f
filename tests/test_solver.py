"""The equation solver against the rulebook, hand-picked hands and an independent brute force."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hilo_env.equation_hilo import solver
from hilo_env.equation_hilo.solver import (
    HIGH_TARGET,
    LOW_TARGET,
    NUM_SIGNATURES,
    OPSETS,
    evaluate,
    lookup_distances,
    opset_id,
    signature,
    signatures,
    solve,
)

TOL = 1e-9


# --- An independent brute force: every arrangement, written out, evaluated in plain Python. ---


def _plain_value(numbers: tuple[float, ...], ops: tuple[str, ...]) -> float | None:
    """Two passes, as taught at school: × and ÷ left to right, then + and − left to right."""
    terms, pending = [numbers[0]], []
    for op, x in zip(ops, numbers[1:], strict=True):
        if op == "*":
            terms[-1] = terms[-1] * x
        elif op == "/":
            if x == 0:
                return None
            terms[-1] = terms[-1] / x
        else:
            pending.append(op)
            terms.append(x)
    total = terms[0]
    for op, x in zip(pending, terms[1:], strict=True):
        total = total + x if op == "+" else total - x
    return total


def brute_force(numbers, ops, roots, integer_results=False):
    """Best (low, high) distances over every arrangement; ``inf`` when none is valid."""
    best = [math.inf, math.inf]
    for perm in itertools.permutations(numbers):
        for rooted in itertools.combinations(range(4), roots):
            vals = tuple(math.sqrt(n) if i in rooted else float(n) for i, n in enumerate(perm))
            for op_order in set(itertools.permutations(ops)):
                v = _plain_value(vals, op_order)
                if v is None:
                    continue
                if integer_results:
                    if abs(v - round(v)) > TOL:
                        continue
                    v = float(round(v))
                for k, target in enumerate((LOW_TARGET, HIGH_TARGET)):
                    best[k] = min(best[k], abs(v - target))
    return tuple(best)


def _dist(eq):
    return math.inf if eq is None else eq.distance


# --- The rulebook's examples ---------------------------------------------------------------


def test_rulebook_low_example():
    # The rulebook's Low example is a valid equation of the hand, but not its best one.
    example = evaluate("√4 ÷ 7 + 9 − 8")
    assert example == pytest.approx(1.2857142857142858, abs=1e-12)
    low = solve([4, 7, 9, 8], "/+-", 1).low
    assert low is not None
    assert low.distance <= abs(example - LOW_TARGET)
    assert low.value == pytest.approx(1 + 2 / 9, abs=1e-12)  # 8 + √4 ÷ 9 − 7
    assert low.equation == "√4 ÷ 9 + 8 − 7"  # the documented tie order picks this spelling
    assert evaluate(low.equation) == pytest.approx(low.value, abs=1e-12)


def test_rulebook_high_example():
    assert evaluate("8 × 3 ÷ 1 − 4") == 20.0
    high = solve([8, 3, 1, 4], "×÷−", 0).high
    assert high is not None
    assert high.value == 20.0 and high.distance == 0.0
    assert high.equation == "3 ÷ 1 × 8 − 4"
    assert sorted(high.numbers) == [1, 3, 4, 8] and sorted(high.operators) == sorted("*/-")


# --- Hand-picked hands ---------------------------------------------------------------------


@pytest.mark.parametrize("ops", [*OPSETS, "//-", "///"])
@pytest.mark.parametrize("roots", range(4))
@pytest.mark.parametrize("integer_results", [False, True])
def test_all_zeros_has_no_valid_equation(ops, roots, integer_results):
    # Every arrangement divides by 0 or √0.
    sol = solve([0, 0, 0, 0], ops, roots, integer_results=integer_results)
    assert sol.low is None and sol.high is None


def test_division_by_zero_is_invalid_not_infinite():
    # Every valid equation of 0 10 10 10 with × × ÷ keeps a factor 0: its value is 0.
    for roots in range(4):
        high = solve([0, 10, 10, 10], "**/", roots).high
        assert high is not None and high.value == 0.0 and high.distance == HIGH_TARGET
    assert math.isnan(evaluate("10 × 10 × 10 ÷ 0"))
    assert math.isnan(evaluate("10 × 10 × 10 ÷ √0"))


def test_division_chains_left_to_right():
    # 8 ÷ 4 ÷ 2 ÷ 1 = 1 and no arrangement exceeds 1; right to left, 8 ÷ (2 ÷ (1 ÷ 4)) = 16.
    sol = solve([8, 4, 2, 1], "///", 0)
    assert sol.low.distance == 0.0
    assert sol.high.value == 1.0
    assert evaluate("8 ÷ 4 ÷ 2") == 1.0


def test_subtraction_chains_left_to_right():
    # 9 − 5 − 3 − 0 = 1 is the largest value; right to left, 9 − (0 − (5 − 3)) = 11.
    sol = solve([9, 5, 3, 0], "---", 0)
    assert sol.low.distance == 0.0
    assert sol.high.value == 1.0
    assert evaluate("9 − 5 − 3") == 1.0


def test_multiplication_before_addition():
    # 2 + 3 × 4 − 1 = 13 is the best High; (2 + 3) × 4 − 1 = 19 would need brackets.
    high = solve([1, 2, 3, 4], "+*-", 0).high
    assert high.value == 13.0  # 3 × 4 + 2 − 1 or a reordering
    assert high.distance == 7.0


def test_integer_mode_only_whole_results():
    real = solve([1, 2, 3, 4], "-*/", 0)
    whole = solve([1, 2, 3, 4], "-*/", 0, integer_results=True)
    assert real.high.value == 11.5  # 4 × 3 − 1 ÷ 2
    assert whole.high.value == 10.0  # 4 × 3 ÷ 1 − 2
    assert whole.integer_results and not real.integer_results
    for eq in (whole.low, whole.high):
        assert float(eq.value).is_integer()


def test_integer_mode_accepts_results_whole_within_tolerance():
    # √2 × √2 is 2.0000000000000004 in floating point: whole within 1e-9, reported as 1 exactly.
    low = solve([0, 2, 2, 2], "+*/", 3, integer_results=True).low
    assert low.value == 1.0 and low.distance == 0.0
    assert evaluate(low.equation) == pytest.approx(1.0, abs=1e-12)


def test_integer_mode_with_no_whole_result():
    # 1 ÷ 3 ÷ 7 ÷ 9 and every rearrangement: never whole.
    sol = solve([1, 3, 7, 9], "///", 0, integer_results=True)
    assert sol.low is None and sol.high is None
    assert solve([1, 3, 7, 9], "///", 0).low is not None


def test_operator_spellings_and_sequences():
    ref = solve([4, 7, 9, 8], "/+-", 1)
    for ops in ("÷+−", "+ - /", ["/", "+", "-"], ("−", "÷", "+")):
        assert solve([8, 9, 7, 4], ops, 1) == ref
    assert solve([1, 2, 3, 4], "x-/", 0) == solve([1, 2, 3, 4], "×-/", 0)
    assert solver.canonical_operators("÷×−") == "-*/"


def test_equation_text_format():
    eq = solve([4, 7, 9, 8], "/+-", 1).low
    tokens = eq.equation.split(" ")
    assert len(tokens) == 7
    assert all(t.lstrip("√").isdigit() for t in tokens[::2])
    assert all(t in "+−×÷" for t in tokens[1::2])
    assert eq.numbers == (4, 9, 8, 7) and eq.rooted == (True, False, False, False)
    assert eq.operators == "/+-"
    assert str(eq).startswith("√4 ÷ 9 + 8 − 7 = 1.222")


@pytest.mark.parametrize("numbers, ops, roots, message", [
    ([1, 2, 3, 4, 5], "+-/", 0, "exactly 4 numbers"),
    ([1, 2, 3], "+-/", 0, "exactly 4 numbers"),
    ([1, 2, 3, 11], "+-/", 0, "not a card value"),
    ([1, 2, 3, -1], "+-/", 0, "not a card value"),
    ([1, 2, 3, 4.5], "+-/", 0, "not a card value"),
    ([1, 2, 3, True], "+-/", 0, "not a card value"),
    ([1, 2, 3, 4], "+-^", 0, "unknown operator"),
    ([1, 2, 3, 4], "+-", 0, "2 operator.s. has exactly 3 numbers"),
    ([1, 2, 3, 4], "+-/*", 0, "1 to 3 operators"),
    ([1, 2], "", 0, "1 to 3 operators"),
    ([1, 2], "/", 3, "roots must be an integer 0..2"),
    ([1, 2, 3, 4], "+-/", 4, "roots must be"),
    ([1, 2, 3, 4], "+-/", -1, "roots must be"),
    (5, "+-/", 0, "sequence"),
])
def test_bad_input_raises_value_error(numbers, ops, roots, message):
    with pytest.raises(ValueError, match=message):
        solve(numbers, ops, roots)


def test_untabulated_opset_rejected_by_signature_only():
    with pytest.raises(ValueError, match="not tabulated"):
        opset_id("+++")
    with pytest.raises(ValueError, match="not tabulated"):
        signature([1, 2, 3, 4], "++/", 0)
    assert solve([1, 2, 3, 4], "+++", 0).high.value == 10.0


def test_batched_input_checks():
    with pytest.raises(ValueError):
        signatures(np.zeros((3, 5), int), np.zeros(3, int), np.zeros(3, int))
    with pytest.raises(ValueError):
        signatures(np.full((3, 4), 11), np.zeros(3, int), np.zeros(3, int))
    with pytest.raises(ValueError):
        signatures(np.zeros((3, 4), int), np.full(3, 4), np.zeros(3, int))
    with pytest.raises(ValueError):
        lookup_distances(np.array([NUM_SIGNATURES]))
    with pytest.raises(ValueError):
        lookup_distances(np.array([-1]))


# --- The table against the brute force ----------------------------------------------------

multisets = st.lists(st.integers(0, 10), min_size=4, max_size=4)


@settings(max_examples=250, deadline=None)
@given(numbers=multisets, opset=st.sampled_from(OPSETS), roots=st.integers(0, 3),
       integer_results=st.booleans())
def test_table_matches_brute_force(numbers, opset, roots, integer_results):
    sig = signature(numbers, opset, roots)
    low, high = lookup_distances(np.array([sig]), integer_results=integer_results)
    want = brute_force(numbers, opset, roots, integer_results)
    for got, expected in ((low[0], want[0]), (high[0], want[1])):
        if math.isinf(expected):
            assert math.isinf(got)
        else:
            assert got == pytest.approx(expected, abs=TOL)


@settings(max_examples=100, deadline=None)
@given(numbers=multisets, ops=st.lists(st.sampled_from("+-*/"), min_size=3, max_size=3),
       roots=st.integers(0, 3), integer_results=st.booleans())
def test_solve_matches_brute_force_for_any_operators(numbers, ops, roots, integer_results):
    sol = solve(numbers, ops, roots, integer_results=integer_results)
    want = brute_force(numbers, ops, roots, integer_results)
    for eq, expected in ((sol.low, want[0]), (sol.high, want[1])):
        if math.isinf(expected):
            assert eq is None
            continue
        assert eq.distance == pytest.approx(expected, abs=TOL)
        # The reported equation is a real arrangement of the hand, and has the reported value.
        assert sorted(eq.numbers) == sorted(numbers) and sum(eq.rooted) == roots
        assert sorted(eq.operators) == sorted(solver.canonical_operators(ops))
        assert evaluate(eq.equation) == pytest.approx(eq.value, abs=TOL)


# --- Batched lookups agree with solve() ----------------------------------------------------


def test_signatures_are_a_bijection():
    ms = np.array(list(itertools.combinations_with_replacement(range(11), 4)))
    grid = np.array(list(itertools.product(range(len(ms)), range(len(OPSETS)), range(4))))
    sigs = signatures(ms[grid[:, 0]], grid[:, 1], grid[:, 2])
    assert np.array_equal(np.sort(sigs), np.arange(NUM_SIGNATURES))


def test_batched_lookup_agrees_with_solve():
    rng = np.random.default_rng(7)
    n = 400
    numbers = rng.integers(0, 11, size=(n, 4))
    opsets = rng.integers(0, len(OPSETS), size=n)
    roots = rng.integers(0, 4, size=n)
    sigs = signatures(numbers, opsets, roots)
    for integer_results in (False, True):
        low, high = lookup_distances(sigs, integer_results=integer_results)
        assert low.dtype == high.dtype == np.float64
        for i in range(n):
            ops = OPSETS[opsets[i]]
            assert sigs[i] == signature(numbers[i], ops, int(roots[i]))
            sol = solve(numbers[i], ops, int(roots[i]), integer_results=integer_results)
            assert low[i] == _dist(sol.low) and high[i] == _dist(sol.high)


def test_table_agrees_with_direct_search():
    # The table and the direct search (used for untabulated operators) pick the same equation.
    rng = np.random.default_rng(3)
    for _ in range(200):
        nums = tuple(sorted(int(x) for x in rng.integers(0, 11, size=4)))
        ops, roots, whole = OPSETS[rng.integers(4)], int(rng.integers(4)), bool(rng.integers(2))
        sol = solve(nums, ops, roots, integer_results=whole)
        assert (sol.low, sol.high) == solver.search(nums, ops, roots, whole)


def test_rebuild_is_deterministic():
    before = [solve([4, 7, 9, 8], ops, 2, integer_results=w) for ops in OPSETS for w in (0, 1)]
    solver.clear_cache()
    after = [solve([4, 7, 9, 8], ops, 2, integer_results=w) for ops in OPSETS for w in (0, 1)]
    assert before == after


def test_import_does_not_build_tables():
    code = "import hilo_env.equation_hilo.solver as s; assert not s.tables_built(); print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("text", ["4 7", "4 +", "", "4 ^ 2", "√ + 4"])
def test_evaluate_rejects_malformed_text(text):
    with pytest.raises(ValueError, match="cannot read equation"):
        evaluate(text)


def test_evaluate_ascii_spellings():
    assert evaluate("r4/7+9-8") == evaluate("√4 ÷ 7 + 9 − 8")
    assert evaluate("10 - 2 x 3 + 1") == 5.0
