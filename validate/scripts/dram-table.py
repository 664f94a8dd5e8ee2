#!/usr/bin/env python3
"""The time model's DRAM sectors against the hardware's DRAM counters, per run.

Reads the samples of `agpu fit --format json` (each run's model counts, its
footprint and its dram feature in seconds) and, from the datasets they came
from, the measured dram_read_bytes and dram_write_bytes of every launch. The
model's DRAM bytes are the dram feature times the device preset's
mem_bandwidth_gbs (time_model.hpp: feature = DRAM sectors * 32 B / bandwidth),
so the table shows what dram_sectors() gave without restating its rule.
Prints one Markdown row per run with counters: footprint, every global and
atomic sector, the model's DRAM bytes, the measured read and write bytes,
measured / model, and the fit's error for the run's time.

What the counters measure: CUPTI's kernel replay runs without the L2 flush of
the timed runs (validate/include/agpu/validate/cuda_executor.hpp), so the inputs of a working set
that fits in the L2 are still there and its reads are near 0, while dirty
lines of earlier work are written back during the launch; for such runs the
measured bytes are not the timed runs' traffic. A working set above the L2
(or re-read within a launch) shows the DRAM traffic itself.

Usage:

    agpu fit --data DIR... [--check DIR...] --format json > fit.json
    validate/scripts/dram-table.py fit.json [--only SUBSTRING] [--sort ratio]
"""
import argparse
import collections
import csv
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def bandwidth_bytes_per_s(device_id):
    with open(os.path.join(REPO, "model", "devices", device_id + ".json")) as f:
        return json.load(f)["hardware"]["mem_bandwidth_gbs"]["value"] * 1e9


def measured_dram(dataset):
    """run_id -> [read bytes, write bytes, launches with counters]."""
    out = collections.defaultdict(lambda: [0.0, 0.0, 0])
    with open(os.path.join(REPO, dataset, "measurements.csv")) as f:
        for r in csv.DictReader(f):
            if r["counter"] not in ("dram_read_bytes", "dram_write_bytes") or r["launch"] == "run":
                continue
            try:
                v = float(r["value"])
            except ValueError:
                continue
            x = out[r["run_id"]]
            if r["counter"] == "dram_read_bytes":
                x[0] += v
                x[2] += 1
            else:
                x[1] += v
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fit_json")
    ap.add_argument("--only", default="", help="runs whose id contains this")
    ap.add_argument("--sort", choices=["input", "ratio"], default="input")
    args = ap.parse_args()
    with open(args.fit_json) as f:
        j = json.load(f)
    samples = j["samples"] + (j["check"]["samples"] if "check" in j else [])
    cache, bw, rows = {}, {}, []
    for s in samples:
        if args.only not in s["run_id"]:
            continue
        if s["dataset"] not in cache:
            cache[s["dataset"]] = measured_dram(s["dataset"])
        m = cache[s["dataset"]].get(s["run_id"])
        if not m or m[2] == 0:
            continue
        if s["device"] not in bw:
            bw[s["device"]] = bandwidth_bytes_per_s(s["device"])
        model = s["features_s"]["dram"] * bw[s["device"]]
        t = s["totals"]
        sectors = 32.0 * (t["global_sectors"] + t["global_atomic_sectors"])
        ratio = (m[0] + m[1]) / model if model > 0 else float("inf")
        rows.append((s["dataset"], s["run_id"], s["footprint_bytes"], sectors, model, m[0], m[1], ratio,
                     s["predicted_s"] / s["measured_s"] - 1))
    if args.sort == "ratio":
        rows.sort(key=lambda r: -abs(r[7] - 1) if r[7] != float("inf") else -1e300)
    mb = 1e-6
    print("| dataset | run | footprint MB | sectors MB | model DRAM MB | read MB | written MB | measured / model | time error |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for d, run, fp, sec, model, rd, wr, ratio, err in rows:
        print(f"| {d} | {run} | {fp * mb:.2f} | {sec * mb:.2f} | {model * mb:.2f} | {rd * mb:.2f} | {wr * mb:.2f} "
              f"| {ratio:.2f} | {100 * err:+.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
