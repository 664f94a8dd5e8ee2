#!/usr/bin/env python3
"""The stats/pairwise vs stats/fused vs stats/serial table: measured (the H100
dataset validate/data/h100/bench/stats-table) against predicted from the
algorithms' AGPU counts (model/costs/stats.cpp) with three constants:
  B  bandwidth: the device-to-device copy measured at 2^28 words (bench/stats)
  L  time per launch: fitted on stats/pairwise at n = 100 (bytes negligible)
  c  time per step of one thread: fitted on stats/serial at n = 1000
predicted = bytes / B + launches * L   (pairwise, fused)
          = (n + 9) * c                (serial: n + 9 steps of one thread)
Usage: stats-table.py [AGPU]  (AGPU: the agpu program, default build/release/agpu)"""
import json
import math
import subprocess
import sys

agpu = sys.argv[1] if len(sys.argv) > 1 else "build/release/agpu"
def bench(d):
    return json.loads(subprocess.run([agpu, "bench", "--data", d, "--format", "json"], check=True,
                                     capture_output=True, text=True).stdout)

table = bench("validate/data/h100/bench/stats-table")
copy = [r for r in bench("validate/data/h100/bench/stats")["rows"] if r["algo"] == "baseline/copy"][0]
B = copy["bytes_per_s"]
ms = {(r["algo"].split("/")[1], r["n"]): r["ms"] for r in table["rows"]}

def pairwise_counts(n, s=4):
    P = max(2, 1 << math.ceil(math.log2(n)))
    lg = int(math.log2(P))
    return 14 * P * s * lg, 6 * lg  # bytes moved, launches

b100, l100 = pairwise_counts(100)
L = (ms[("pairwise", 100)] * 1e-3 - b100 / B) / l100
c = ms[("serial", 1000)] * 1e-3 / (1000 + 9)

print(f"constants: B = {B / 1e9:.0f} GB/s (copy), L = {L * 1e6:.2f} us per launch, c = {c * 1e9:.1f} ns per serial step\n")
print("| N | pairwise measured | pairwise predicted | fused measured | fused predicted | serial measured | serial predicted |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
def f(x):
    return "-" if x is None else (f"{x:.4g} ms")
for e in range(2, 10):
    n = 10 ** e
    pb, pl = pairwise_counts(n)
    pp = (pb / B + pl * L) * 1e3
    fp = (4 * n / B + 2 * L) * 1e3
    sp = (n + 9) * c * 1e3
    print(f"| 10^{e} | {f(ms.get(('pairwise', n)))} | {f(pp)} | {f(ms.get(('fused', n)))} | {f(fp)} | "
          f"{f(ms.get(('serial', n)))} | {f(sp)} |")
