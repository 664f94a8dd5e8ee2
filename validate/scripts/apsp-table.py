#!/usr/bin/env python3
"""The apsp table for n = 128 .. 16384: every variant measured on the H100
(validate/data/h100/bench/apsp-table: n = 128 .. 8192; bench/apsp-16384: all
but naive at 16384) beside the seconds `agpu predict` gives from the closed
forms' counts and the committed H100 fit, and the simulator's AGPU time and
I/O. Prints a Markdown table (ms: measured / predicted).
Usage: apsp-table.py [AGPU]  (AGPU: the agpu program, default build/release/agpu)"""
import json
import subprocess
import sys

agpu = sys.argv[1] if len(sys.argv) > 1 else "build/release/agpu"


def run(*args):
    return json.loads(subprocess.run([agpu, *args, "--format", "json"], check=True, capture_output=True,
                                     text=True).stdout)


measured = {}
for d in ("validate/data/h100/bench/apsp-table", "validate/data/h100/bench/apsp-16384"):
    for r in run("bench", "--data", d)["rows"]:
        if r["passed"]:
            measured[(r["label"], r["n"])] = r["ms"]
labels = sorted({l for l, _ in measured})
sizes = sorted({n for _, n in measured})

print("| variant | " + " | ".join(f"n = {n}" for n in sizes) + " |")
print("| --- |" + " --- |" * len(sizes))
for label in labels:
    algo, _, sets = label.partition(" ")
    args = ["predict", "--algo", algo, "--n", ",".join(map(str, sizes))]
    for s in filter(None, sets.split(";")):
        args += ["--set", s]
    pred = {r["n"]: r["seconds"] * 1e3 for r in run(*args)["rows"]}
    cells = []
    for n in sizes:
        m = measured.get((label, n))
        cells.append((f"{m:.4g}" if m is not None else "-") + " / " + f"{pred[n]:.4g}")
    print(f"| {label} | " + " | ".join(cells) + " |")
