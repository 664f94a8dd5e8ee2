#!/usr/bin/env python3
"""Prints, per launch of offset.cu, the shared-load wavefronts the L1TEX
counter saw against the bank model, and the extra per thread block.
Usage: summarize.py DIR (holding ncu.csv and launches.txt from run.sh)."""
import csv, sys
d = sys.argv[1] if len(sys.argv) > 1 else "h100"
rows = [r for r in csv.reader(open(f"{d}/ncu.csv")) if r]
hdr = next(r for r in rows if r[0] == "ID")
by = {}
for r in rows:
    if len(r) == len(hdr) and r[0] != "ID":
        m = dict(zip(hdr, r))
        by.setdefault(int(m["ID"]), {})[m["Metric Name"]] = float(m["Metric Value"].replace(",", ""))
launches = [dict(x.split("=") for x in l.split()[1:]) for l in open(f"{d}/launches.txt") if l.startswith("launch")]
print(f"{'variant':16} {'grid':>5} {'stride':>6} {'repeat':>6} {'l1tex wf':>10} {'model':>10} {'extra/block':>11}")
for i, l in enumerate(launches):
    wf = by[i]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
    model, g = float(l["model_wavefronts"]), int(l["grid"])
    print(f"{l['variant']:16} {g:5} {l['stride']:>6} {l['repeat']:>6} {wf:10.0f} {model:10.0f} {(wf - model) / g:11.3f}")
