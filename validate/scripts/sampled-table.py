#!/usr/bin/env python3
"""The sampled-against-exact table of sim/README.md ("Sampled mode").

For each row runs `agpu simulate --mode exact` and `--mode sampled` (JSON,
--quiet, default threads), compares every counter of the totals, and prints
one Markdown row: wall seconds of both, the speed-up, the blocks recorded, the
time_steps error and its reported 95% error, the worst counter error and the
largest reported 95% error. Usage:

    validate/scripts/sampled-table.py [--agpu build/release/agpu] [--only SUBSTRING]
"""
import argparse
import json
import subprocess
import sys
import time

ROWS = [
    ("stats/pairwise", 4194304, []),
    ("stats/fused", 16777216, []),
    ("scan/hillis-steele", 4194304, []),
    ("scan/work-efficient", 16777216, []),
    ("rank/jacobson", 268435456, ["op=build"]),
    ("rank/jacobson", 67108864, ["op=rank1", "queries=1048576"]),
    ("rank/interleaved", 268435456, ["op=build"]),
    ("rank/interleaved", 67108864, ["op=rank1", "queries=1048576"]),
    ("sort/multiway", 1048576, []),
    ("sort/multiway", 1048576, ["parts=2"]),
    ("sort/multiway", 4194304, ["parts=4"]),
    ("sort/multiway", 1048576, ["values=1", "type=float"]),
    ("sort/pairwise", 1048576, []),
    ("sort/bitonic", 1048576, []),
    ("apsp/blocked", 1024, []),
    ("apsp/dpx", 1024, []),
    ("micro/global-stride", 4194304, ["stride=3"]),
    ("micro/shared-stride", 4194304, ["stride=6"]),
    ("micro/atomics", 4194304, ["distinct=5"]),
    ("stats/serial", 1048576, []),
    ("apsp/recursive", 1024, []),
    ("micro/broadcast", 4194304, []),
    ("micro/barriers", 4194304, []),
    ("micro/divergent", 4194304, ["ways=3"]),
    ("apsp/naive", 512, []),
    ("rank/jacobson", 4294967296, ["op=build"]),
]


def simulate(agpu, algo, n, sets, mode):
    cmd = [agpu, "simulate", "--algo", algo, "--n", str(n), "--mode", mode, "--quiet", "--format", "json"]
    for s in sets:
        cmd += ["--set", s]
    start = time.monotonic()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out), time.monotonic() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agpu", default="build/release/agpu")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    print("| algorithm, params | n | exact s | sampled s | speed-up | blocks recorded | time_steps error "
          "| its reported 95% | worst counter error | largest reported 95% |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for algo, n, sets in ROWS:
        if args.only not in f"{algo} {' '.join(sets)}":
            continue
        exact, te = simulate(args.agpu, algo, n, sets, "exact")
        sampled, ts = simulate(args.agpu, algo, n, sets, "sampled")
        e, s, rep = exact["totals"], sampled["totals"], sampled["relative_error_95"]
        worst, worst_name = 0.0, "-"
        for k, x in e.items():
            rel = abs(s[k] - x) / x if x else abs(s[k])
            if rel > worst:
                worst, worst_name = rel, k
        rec = sum(l["blocks_recorded"] for l in sampled["launches"])
        blocks = sum(l["counters"]["thread_blocks"] for l in sampled["launches"])
        t_err = abs(s["time_steps"] - e["time_steps"]) / e["time_steps"] if e["time_steps"] else 0
        print(f"| {algo} {' '.join(sets)} | {n} | {te:.1f} | {ts:.1f} | {te / ts:.1f}x | {rec}/{blocks} "
              f"| {100 * t_err:.3f}% | {100 * rep['time_steps']:.2f}% | {100 * worst:.3f}% ({worst_name}) "
              f"| {100 * max(rep.values()):.2f}% |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
