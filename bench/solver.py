"""Benchmark the equation solver: table build, the naive brute force it replaces, lookups.

Run: ``.venv/bin/python bench/solver.py`` (NumPy and hilo_env only). Prints

- the time to build every table of every preset (4 opsets × 1001 number multisets × roots 0..3,
  real and whole-number modes), median of several builds with the cache cleared in between;
- the naive brute force the duel rules propose (``itertools.permutations`` of numbers and
  operators, ``eval`` of each equation string, roots as ``math.sqrt`` in the string), timed on
  a random sample of signatures and *extrapolated* per signature to the full table;
- the lookup time per hand: one ``solve()`` call, and batched ``lookup_distances``;
- the tables' memory.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from hilo_env.equation_hilo import solver


def naive_solve(numbers, operators, roots):
    """The duel seed's solver: permutations, strings and ``eval`` (both modes from one pass)."""
    best = {(mode, t): math.inf for mode in (False, True) for t in solver.TARGETS}
    for perm in itertools.permutations(numbers):
        for ops in itertools.permutations(operators):
            for rooted in itertools.combinations(range(4), roots):
                parts = [f"math.sqrt({n})" if i in rooted else str(n) for i, n in enumerate(perm)]
                text = parts[0] + "".join(f" {o} {p}"
                                          for o, p in zip(ops, parts[1:], strict=True))
                try:
                    value = eval(text, {"math": math})
                except ZeroDivisionError:
                    continue
                whole = abs(value - round(value)) <= solver.TIE_TOLERANCE
                for t in solver.TARGETS:
                    d = abs(value - t)
                    best[False, t] = min(best[False, t], d)
                    if whole:
                        best[True, t] = min(best[True, t], abs(round(value) - t))
    return best


def time_builds(repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        solver.clear_cache()
        start = time.perf_counter()
        solver.build_tables()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="table builds to time")
    parser.add_argument("--samples", type=int, default=300, help="signatures for the brute force")
    parser.add_argument("--batch", type=int, default=1_000_000, help="hands per batched lookup")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    print(f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}, NumPy {np.__version__}")
    n_sig = solver.NUM_SIGNATURES

    # --- Build ---------------------------------------------------------------------------
    builds = time_builds(args.repeats)
    build = statistics.median(builds)
    print(f"\nTable build, every preset ({len(solver.OPSETS)} opsets x {solver.NUM_MULTISETS} "
          f"multisets x {solver.MAX_ROOTS + 1} root counts = {n_sig:,} signatures, "
          "real + whole modes):")
    print(f"  median of {args.repeats}: {build * 1e3:.1f} ms "
          f"(min {min(builds) * 1e3:.1f}, max {max(builds) * 1e3:.1f})")

    # --- Naive brute force, sampled and extrapolated --------------------------------------
    multisets = list(itertools.combinations_with_replacement(range(11), 4))  # id order
    sample = rng.choice(n_sig, size=args.samples, replace=False)
    hands = []
    for sig in sample:
        rest, roots = divmod(int(sig), solver.MAX_ROOTS + 1)
        mid, oid = divmod(rest, solver.NUM_OPSETS)
        hands.append((multisets[mid], solver.OPSETS[oid], roots))
    start = time.perf_counter()
    naive = [naive_solve(*hand) for hand in hands]
    naive_time = time.perf_counter() - start
    per_sig = naive_time / len(hands)
    extrapolated = per_sig * n_sig
    agree = 0
    for sig, result in zip(sample, naive, strict=True):
        for mode in (False, True):
            low, high = solver.lookup_distances(np.array([sig]), integer_results=mode)
            for got, want in ((low[0], result[mode, 1]), (high[0], result[mode, 20])):
                agree += (math.isinf(got) and math.isinf(want)) or abs(got - want) <= 1e-9
    print(f"\nNaive brute force (permutations + eval), both modes in one pass, on "
          f"{len(hands)} random signatures:")
    print(f"  measured: {naive_time:.2f} s, {per_sig * 1e3:.2f} ms per signature")
    print(f"  EXTRAPOLATED to all {n_sig:,} signatures: {extrapolated:.0f} s "
          f"(~{extrapolated / 60:.1f} min); not run in full")
    print(f"  ratio extrapolated naive / vectorised build: {extrapolated / build:,.0f}x")
    print(f"  agreement with the table on the sample: {agree}/{4 * len(hands)} distances")

    # --- Lookups --------------------------------------------------------------------------
    n_single = 20_000
    nums = rng.integers(0, 11, size=(n_single, 4)).tolist()
    ops = [solver.OPSETS[i] for i in rng.integers(0, solver.NUM_OPSETS, size=n_single)]
    roots = rng.integers(0, solver.MAX_ROOTS + 1, size=n_single).tolist()
    start = time.perf_counter()
    for n, o, r in zip(nums, ops, roots, strict=True):
        solver.solve(n, o, r)
    single = (time.perf_counter() - start) / n_single

    sig_ids = rng.integers(0, n_sig, size=args.batch)
    batched = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        solver.lookup_distances(sig_ids)
        batched.append(time.perf_counter() - start)
    per_hand = statistics.median(batched) / args.batch

    raw = rng.integers(0, 11, size=(args.batch, 4))
    oids = rng.integers(0, solver.NUM_OPSETS, size=args.batch)
    rts = rng.integers(0, solver.MAX_ROOTS + 1, size=args.batch)
    sig_times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        solver.signatures(raw, oids, rts)
        sig_times.append(time.perf_counter() - start)
    per_sig_id = statistics.median(sig_times) / args.batch

    print("\nLookups per hand:")
    print(f"  solve() (one hand, equations as text, {n_single:,} random hands): "
          f"{single * 1e6:.1f} us")
    print(f"  lookup_distances() on {args.batch:,} random signature ids (Low and High), "
          f"median of {args.repeats}: {per_hand * 1e9:.2f} ns")
    print(f"  signatures() from raw (N, 4) hands, {args.batch:,}: {per_sig_id * 1e9:.2f} ns")

    print(f"\nTable memory: {solver.table_nbytes():,} bytes")


if __name__ == "__main__":
    main()
