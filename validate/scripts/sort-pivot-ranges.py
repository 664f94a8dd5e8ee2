#!/usr/bin/env python3
"""How evenly select_pivots' pivots split one group of a sort/multiway pass.

Draws d runs of L uniform 32-bit keys, takes per_run evenly spaced samples of
each run (multiway.cuh's select_pivots), sorts them by (key, run, position),
takes P - 1 of them evenly spaced as pivots and counts each range's elements
as split_search does (a run's elements before the pivot in (key, run,
position) order). Prints the ranges' mean, maximum and 99th percentile.

    validate/scripts/sort-pivot-ranges.py --parts 8192   # a pivot per sample
    validate/scripts/sort-pivot-ranges.py --parts 2048   # one per d samples

The defaults are the last pass of 2^26 keys on the H100 (d = 4 runs of 2^24,
2048 samples a run: the 8192-sample cap): a pivot per sample gives ranges up
to 3.98x the mean, one per d samples 1.03x (kernels/sort/README.md; the
plan's rule since session 12). Needs numpy (Debian: python3-numpy); about
10 s and 1 GB at the defaults.
"""
import argparse
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("sort-pivot-ranges.py: needs numpy (apt-get install python3-numpy)")


def ranges(runs, per_run, parts):
    d, length = len(runs), len(runs[0])
    j = np.arange(per_run)
    pos = (j * length) // per_run
    keys = np.concatenate([r[pos] for r in runs])
    run = np.repeat(np.arange(d), per_run)
    at = np.tile(pos, d)
    order = np.lexsort((at, run, keys))
    keys, run, at = keys[order], run[order], at[order]
    q = np.arange(1, parts)
    pick = (q * d * per_run) // parts
    pk, pr, pp = keys[pick], run[pick], at[pick]
    before = np.zeros(parts - 1, dtype=np.int64)
    for r, data in enumerate(runs):
        le = np.searchsorted(data, pk, side="right")
        lt = np.searchsorted(data, pk, side="left")
        before += np.where(pr == r, pp, np.where(r < pr, le, lt))
    return np.diff(np.concatenate(([0], before, [d * length])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=4, help="runs in the group")
    ap.add_argument("--run-log2", type=int, default=24, help="log2 of each run's length")
    ap.add_argument("--per-run", type=int, default=2048, help="samples of each run")
    ap.add_argument("--parts", type=int, default=8192, help="ranges (P)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.d < 1 or a.run_log2 < 1 or a.per_run < 1 or a.parts < 2 or a.per_run > (1 << a.run_log2):
        sys.exit("sort-pivot-ranges.py: need d >= 1, run-log2 >= 1, 1 <= per-run <= 2^run-log2, parts >= 2")
    rng = np.random.default_rng(a.seed)
    runs = [np.sort(rng.integers(0, 1 << 32, 1 << a.run_log2, dtype=np.uint64)) for _ in range(a.d)]
    sizes = ranges(runs, a.per_run, a.parts)
    mean = sizes.mean()
    print(f"d={a.d} L=2^{a.run_log2} per_run={a.per_run} P={a.parts}: mean {mean:.0f}, max {sizes.max()} "
          f"({sizes.max() / mean:.2f}x), 99th percentile {np.percentile(sizes, 99):.0f}, empty {(sizes == 0).sum()}")


if __name__ == "__main__":
    main()
