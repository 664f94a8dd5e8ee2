#!/usr/bin/env python3
"""sort/multiway's simulated I/O against the I/O bound, across n and devices,
with sort/pairwise beside it: `agpu simulate` (u32 keys, random input, the
default parameters) per device and n; io_blocks are b-word blocks, 2n/b one
read and one write of every key, and (n/b)·log_{M/b}(n/b) the
Aggarwal–Vitter bound without its constant. Prints a Markdown table.
Usage: sort-io-table.py [AGPU]  (AGPU: the agpu program, default build/release/agpu)"""
import json
import math
import subprocess
import sys

agpu = sys.argv[1] if len(sys.argv) > 1 else "build/release/agpu"
devices = ["h100", "geforce-gtx280", "h100-b64", "h100-half-smem"]
sizes = [1 << 16, 1 << 18, 1 << 20]


def simulate(algo, device, n):
    out = subprocess.run([agpu, "simulate", "--algo", algo, "--n", str(n), "--device", device, "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


print("| algo | device | b | M | n | launches | io_blocks | io / (2n/b) | (n/b)·log_{M/b}(n/b) | io / that |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for device in devices:
    for n in sizes:
        for algo in ("sort/multiway", "sort/pairwise"):
            if algo == "sort/pairwise" and n != sizes[-1]:
                continue
            d = simulate(algo, device, n)
            b, M = d["device"]["b"], d["device"]["M"]
            io, launches = d["totals"]["io_blocks"], d["totals"]["launches"]
            bound = (n / b) * math.log(n / b) / math.log(M / b)
            print(f"| {algo} | {device} | {b} | {M} | {n} | {launches} | {io} | {io / (2 * n / b):.2f} | "
                  f"{bound:.0f} | {io / bound:.2f} |", flush=True)
