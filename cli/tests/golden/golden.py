#!/usr/bin/env python3
"""The golden counts: every counter of a fixed set of points, pinned.

    golden.py check AGPU     run each point of points.txt, compare with counts.json
    golden.py update AGPU    write counts.json from this build (after a change
                             that is meant to change counts; say why in the commit)

For each point it runs `agpu simulate ... --format json` (exact mode unless the
line names a mode) and `agpu predict ... --format json`, and keeps what a
change of the code's structure or speed must not change: each launch's kernel,
grid, block and counters, the totals, the sampled error, the output check, and
predict's counts (their source and every counter). Seconds are left out: they
belong to the time model, not to the counts. Exit 0 when every point equals
the pinned counts, 1 with a line per difference otherwise, 2 on bad usage.
"""
import json
import pathlib
import shlex
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
POINTS = HERE / "points.txt"
COUNTS = HERE / "counts.json"


def points():
    for number, line in enumerate(POINTS.read_text().splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            yield number, line


def run_json(agpu, args):
    p = subprocess.run([agpu] + args + ["--format", "json", "--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"agpu {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def measure(agpu, line):
    args = shlex.split(line)
    sim_args = args if "--mode" in args else args + ["--mode", "exact"]
    sim = run_json(agpu, ["simulate"] + sim_args)
    pred = run_json(agpu, ["predict"] + sim_args)
    return {
        "simulate": {
            "check": sim["check"],
            "mode": sim["mode"],
            "launches": [
                {k: l[k] for k in ("kernel", "grid", "block", "counters", "estimate", "blocks_recorded",
                                   "blocks_skipped", "blocks_shortened", "mps_used") if k in l}
                for l in sim["launches"]
            ],
            "totals": sim["totals"],
            "relative_error_95": sim.get("relative_error_95"),
        },
        "predict": [{k: r[k] for k in ("counts", "mode", "n", "totals", "relative_error_95") if k in r}
                    for r in pred["rows"]],
    }


def differences(path, want, got, out):
    if isinstance(want, dict) and isinstance(got, dict):
        for k in sorted(set(want) | set(got)):
            if k not in got:
                out.append(f"{path}.{k}: missing (pinned {json.dumps(want[k])[:80]})")
            elif k not in want:
                out.append(f"{path}.{k}: new (now {json.dumps(got[k])[:80]})")
            else:
                differences(f"{path}.{k}", want[k], got[k], out)
    elif isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            out.append(f"{path}: {len(got)} entries, pinned {len(want)}")
        for i, (a, b) in enumerate(zip(want, got)):
            differences(f"{path}[{i}]", a, b, out)
    elif want != got:
        out.append(f"{path}: {json.dumps(got)}, pinned {json.dumps(want)}")


def main(argv):
    if len(argv) != 3 or argv[1] not in ("check", "update"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        print("usage: golden.py check|update AGPU", file=sys.stderr)
        return 2
    action, agpu = argv[1], argv[2]
    got = {}
    for number, line in points():
        try:
            got[line] = measure(agpu, line)
        except RuntimeError as e:
            print(f"points.txt:{number}: {e}", file=sys.stderr)
            return 1
    if action == "update":
        tmp = COUNTS.with_suffix(".json.tmp")
        body = ",\n".join(f" {json.dumps(k)}: {json.dumps(v, sort_keys=True, separators=(',', ':'))}"
                           for k, v in got.items())
        tmp.write_text('{"schema": "agpu.golden/1", "points": {\n' + body + "\n}}\n")
        tmp.replace(COUNTS)
        print(f"golden: {len(got)} points written to {COUNTS}")
        return 0
    pinned = json.loads(COUNTS.read_text())["points"]
    out = []
    for line in got:
        if line not in pinned:
            out.append(f"{line}: not pinned (run golden.py update)")
        else:
            differences(line, pinned[line], got[line], out)
    for line in pinned:
        if line not in got:
            out.append(f"{line}: pinned but no longer in points.txt")
    if out:
        print(f"golden: {len(out)} differences from counts.json:", file=sys.stderr)
        for d in out[:200]:
            print("  " + d, file=sys.stderr)
        return 1
    print(f"golden: {len(got)} points, every count equal to counts.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
