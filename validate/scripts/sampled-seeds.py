#!/usr/bin/env python3
"""One row of the sampled table over several seeds: is a counter's error bias or the exact run's draw?

The sampled-against-exact table (sampled-table.py) runs every row at the
default seed, so a counter whose exact value is itself a random draw (where
the data puts a few ranges, say) is compared with one draw of it. This runs
`agpu simulate --mode exact` and `--mode sampled` of one row for seeds
1..N (JSON, --quiet, default threads) and prints, for one counter, every
seed's totals and error and the counter of each launch of one kernel, then
the exact runs' mean, standard deviation and median against the sampled
runs' mean and spread, per launch too, and how many seeds are within 1%.

Usage:

    validate/scripts/sampled-seeds.py --algo sort/multiway --n 1048576 --set parts=2 \\
        [--counter shared_store_bank_conflicts] [--kernel multiway_merge] [--seeds 20] [--agpu build/release/agpu]
"""
import argparse
import json
import statistics
import subprocess


def simulate(agpu, algo, n, sets, mode, seed):
    cmd = [agpu, "simulate", "--algo", algo, "--n", str(n), "--mode", mode, "--seed", str(seed), "--quiet",
           "--format", "json"]
    for s in sets:
        cmd += ["--set", s]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def spread(xs):
    return statistics.mean(xs), statistics.stdev(xs) if len(xs) > 1 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agpu", default="build/release/agpu")
    ap.add_argument("--algo", required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--counter", default="shared_store_bank_conflicts")
    ap.add_argument("--kernel", default="multiway_merge", help="the launches shown one by one")
    ap.add_argument("--seeds", type=int, default=20)
    args = ap.parse_args()
    k = args.counter
    exact, sampled, exact_l, sampled_l = [], [], [], []
    print(f"seed | exact | sampled | error | reported 95% | exact per {args.kernel} launch | sampled per launch")
    for seed in range(1, args.seeds + 1):
        e = simulate(args.agpu, args.algo, args.n, args.sets, "exact", seed)
        s = simulate(args.agpu, args.algo, args.n, args.sets, "sampled", seed)
        exact.append(e["totals"][k])
        sampled.append(s["totals"][k])
        exact_l.append([l["counters"][k] for l in e["launches"] if l["kernel"] == args.kernel])
        sampled_l.append([l["counters"][k] for l in s["launches"] if l["kernel"] == args.kernel])
        err = (sampled[-1] - exact[-1]) / exact[-1] if exact[-1] else sampled[-1]
        print(f"{seed} | {exact[-1]} | {sampled[-1]} | {100 * err:+.2f}% | {100 * s['relative_error_95'][k]:.2f}% "
              f"| {exact_l[-1]} | {sampled_l[-1]}", flush=True)
    em, es = spread(exact)
    sm, ss = spread(sampled)
    print(f"exact: mean {em:.1f} sd {es:.1f} ({100 * es / em:.2f}%) median {statistics.median(exact):.1f} "
          f"min {min(exact)} max {max(exact)}")
    print(f"sampled: mean {sm:.1f} sd {ss:.1f}; mean less exact mean {sm - em:+.1f} "
          f"({100 * (sm - em) / em:+.2f}%, standard error {(es ** 2 / len(exact) + ss ** 2 / len(sampled)) ** 0.5:.1f})")
    within = sum(1 for e, s in zip(exact, sampled) if abs(s - e) <= 0.01 * e)
    print(f"seeds within 1%: {within} of {len(exact)}; sampled total within 1% of the exact mean: "
          f"{sum(1 for s in sampled if abs(s - em) <= 0.01 * em)} of {len(sampled)}")
    for i in range(min(len(x) for x in exact_l)):
        ee, sl = [x[i] for x in exact_l], [x[i] for x in sampled_l]
        (a, b), (c, d) = spread(ee), spread(sl)
        print(f"{args.kernel} #{i}: exact mean {a:.1f} sd {b:.1f} median {statistics.median(ee):.1f}; "
              f"sampled mean {c:.1f} sd {d:.1f}")


if __name__ == "__main__":
    main()
