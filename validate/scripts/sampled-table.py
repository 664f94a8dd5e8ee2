#!/usr/bin/env python3
"""The sampled-against-exact table of sim/README.md ("Sampled mode").

For each row runs `agpu simulate --mode exact` and `--mode sampled` (JSON,
--quiet, default threads), compares every counter of the totals, and prints
one Markdown row: wall seconds of both, the speed-up, the blocks recorded, the
time_steps error and its reported 95% error, the worst counter error and the
largest reported 95% error. With --out DIR it also writes what `agpu report`
shows ("Sampled simulation against exact"):

- DIR/sampled.csv (`agpu.sampled-table/1`, long format): one row per table
  row and counter of the totals: schema, commit, device, algo, params (the
  --set ones, space-separated), n, note (how the sampled run went, from its
  JSON: "probed" where blocks were shortened, "synthesized" where the sorts'
  inputs were, "skips blocks" where other launches skipped unrecorded blocks),
  exact_s, sampled_s (wall seconds), blocks_recorded, blocks_total, counter,
  exact, sampled, relative_error ((sampled - exact) / exact; where exact is 0,
  the sampled value itself), reported_95 (the sampled run's 95% error, a
  fraction; empty where it gives none).
- DIR/provenance.json (`agpu.sampled-provenance/1`): when, on what host (CPU,
  cores, load), the command, agpu's version line and commit, the rows run.

Usage:

    validate/scripts/sampled-table.py [--agpu build/release/agpu] [--only SUBSTRING] [--out DIR]
"""
import argparse
import csv
import datetime
import json
import os
import platform
import subprocess
import sys
import time

CSV_SCHEMA = "agpu.sampled-table/1"
PROVENANCE_SCHEMA = "agpu.sampled-provenance/1"
CSV_COLUMNS = ["schema", "commit", "device", "algo", "params", "n", "note", "exact_s", "sampled_s",
               "blocks_recorded", "blocks_total", "counter", "exact", "sampled", "relative_error", "reported_95"]

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


def note_of(sampled):
    """How the sampled run went, from its JSON."""
    launches = sampled["launches"]
    notes = []
    if "synthesized" in sampled.get("check", {}).get("detail", ""):
        notes.append("synthesized")
    elif any(l.get("blocks_skipped", 0) for l in launches):
        notes.append("skips blocks")
    if any(l.get("blocks_shortened", 0) for l in launches):
        notes.append("probed")
    return ", ".join(notes)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_outputs(out, csv_rows, provenance):
    os.makedirs(out, exist_ok=True)
    tmp = os.path.join(out, ".sampled.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        w.writerows(csv_rows)
    os.replace(tmp, os.path.join(out, "sampled.csv"))
    with open(os.path.join(out, "provenance.json"), "w") as f:
        json.dump(provenance, f, indent=2, sort_keys=True)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agpu", default="build/release/agpu")
    ap.add_argument("--only", default="", help="run only the rows whose 'algo params' contain this")
    ap.add_argument("--out", default="", help="also write DIR/sampled.csv and DIR/provenance.json")
    args = ap.parse_args()
    started, clock = utc_now(), time.monotonic()
    load_before = os.getloadavg()
    version = subprocess.run([args.agpu, "--version"], check=True, capture_output=True, text=True).stdout.strip()
    csv_rows, run_rows = [], []
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
        params, note = " ".join(sets), note_of(sampled)
        run_rows.append(f"{algo} {params}".strip() + f" n={n}")
        for k, x in e.items():
            rel = (s[k] - x) / x if x else s[k]
            csv_rows.append([CSV_SCHEMA, sampled["commit"], sampled["device"]["id"], algo, params, n, note,
                             f"{te:.2f}", f"{ts:.2f}", rec, blocks, k, x, s[k], f"{rel:.6g}",
                             f"{rep[k]:.6g}" if k in rep else ""])
    if args.out:
        write_outputs(args.out, csv_rows, {
            "schema": PROVENANCE_SCHEMA,
            "started": started,
            "finished": utc_now(),
            "wall_s": round(time.monotonic() - clock, 1),
            "command": " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:]),
            "agpu_version": version,
            "host": {"cpu": cpu_model(), "cores": os.cpu_count(), "system": platform.platform(),
                     "load_average_before": [round(x, 2) for x in load_before],
                     "load_average_after": [round(x, 2) for x in os.getloadavg()]},
            "simulate": "agpu simulate --algo A --n N [--set ...] --mode exact|sampled --quiet --format json "
                        "(default threads, seed and device)",
            "only": args.only,
            "rows": run_rows,
        })


if __name__ == "__main__":
    sys.exit(main())
