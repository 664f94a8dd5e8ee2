#!/usr/bin/env python3
"""Rewrites shared_load_bank_conflicts in a dataset's measurements.csv from the
metrics it recorded beside it, by the counter table's current definition:

  SASS wavefronts - (L1TEX wavefronts - L1TEX conflicts)

(shared_load_wavefronts - shared_load_wavefronts_l1tex + shared_load_bank_conflicts_l1tex).
For datasets measured before that definition (it needs no new measurement: all
three are measured values). Usage: recompute-load-conflicts.py DATASET_DIR..."""
import csv
import sys

EXPR = ("sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum-l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
        "+l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")

for d in sys.argv[1:]:
    path = f"{d}/measurements.csv"
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    col = {n: i for i, n in enumerate(head)}
    by = {}
    for r in body:
        by.setdefault((r[col["run_id"]], r[col["launch"]]), {})[r[col["counter"]]] = r
    changed = 0
    for (run, launch), m in by.items():
        need = ("shared_load_bank_conflicts", "shared_load_wavefronts", "shared_load_wavefronts_l1tex",
                "shared_load_bank_conflicts_l1tex")
        if not all(k in m for k in need):
            continue
        vals = [m[k][col["value"]] for k in need[1:]]
        target = m["shared_load_bank_conflicts"]
        if "NA" in vals:
            continue
        v = float(vals[0]) - float(vals[1]) + float(vals[2])
        target[col["value"]] = f"{v:.17g}"
        target[col["note"]] = EXPR + " (recomputed from the recorded metrics)"
        changed += 1
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([head] + body)
    import os
    os.replace(tmp, path)
    print(f"{d}: {changed} launches recomputed")
