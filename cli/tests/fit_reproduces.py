#!/usr/bin/env python3
"""The committed fit reproduces: run the command line it records (with --out
in a temporary directory) and compare every constant with the committed file.

    fit_reproduces.py AGPU REPOSITORY_ROOT FIT_FILE
"""
import json
import shlex
import subprocess
import sys
import tempfile


def main(agpu, root, fit_file):
    committed = json.load(open(fit_file))
    args = shlex.split(committed["quality"]["command_line"])
    if args[0] != "agpu" or args[1] != "fit":
        print(f"{fit_file}: field quality.command_line: not an agpu fit command", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        out = f"{tmp}/fit.json"
        args = [agpu] + args[1:]
        args[args.index("--out") + 1] = out
        p = subprocess.run(args, cwd=root, capture_output=True, text=True)
        if p.returncode != 0:
            print(f"agpu fit exited {p.returncode}: {p.stderr.strip()}", file=sys.stderr)
            return 1
        again = json.load(open(out))
    bad = [f"{k}: {again['constants'].get(k)} where {fit_file} has {v}"
           for k, v in committed["constants"].items()
           if abs(again["constants"].get(k, float("nan")) - v) > 1e-9 * max(1.0, abs(v))]
    for key in ("datasets", "check_datasets"):
        if again.get(key) != committed.get(key):
            bad.append(f"{key}: {again.get(key)} where {fit_file} has {committed.get(key)}")
    if bad:
        print("the committed fit does not reproduce:\n  " + "\n  ".join(bad), file=sys.stderr)
        return 1
    print(f"{fit_file}: {len(committed['constants'])} constants reproduced by its own command line")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
