#!/bin/sh
# Points per second of agpu sweep, serially and with --jobs 2, on closed-form
# points (closed-form.toml) and on exact simulations (simulated.toml), each
# run on a fresh cache, the best of REPEATS runs; the parallel efficiency
# (serial wall time over twice the --jobs 2 wall time) and the CPU seconds a
# point takes in each (what the wall time shows on an idle host only). A
# benchmark, not a test: the figures depend on the host and its load, which
# the first line prints; docs/sweep.md has them with the host.
# usage: sweep/bench/sweep_bench.sh [AGPU] [REPEATS]   (needs /usr/bin/time: Debian's time)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
agpu=${1:-$here/../../build/release/agpu}
repeats=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "wall cpu" of the run with the least wall time among `repeats` (the least disturbed by the rest of the host).
best_run() {
  spec=$1 jobs=$2 best=""
  for _ in $(seq 1 "$repeats"); do
    rm -rf "$work/out"
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$agpu" sweep "$spec" --out "$work/out" --jobs "$jobs" --quiet > /dev/null
    t=$(awk '{printf "%.3f %.3f", $1, $2 + $3}' "$work/time")
    if [ -z "$best" ] || [ "$(echo "$t $best" | awk '{print ($1 < $3)}')" = 1 ]; then best=$t; fi
  done
  echo "$best"
}

echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "agpu: $("$agpu" --version)"
echo
echo "| points | count | serial s | serial points/s | --jobs 2 s | --jobs 2 points/s | speed-up | efficiency | CPU ms a point, serial / --jobs 2 |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for spec in closed-form simulated; do
  rm -rf "$work/out"
  count=$("$agpu" sweep "$here/$spec.toml" --out "$work/out" --quiet | sed -n 's/^sweep [^:]*: \([0-9]*\) points.*/\1/p')
  r1=$(best_run "$here/$spec.toml" 1)
  r2=$(best_run "$here/$spec.toml" 2)
  echo "$spec $count $r1 $r2" | awk '{ printf "| %s | %d | %.2f | %.0f | %.2f | %.0f | %.2f | %.0f%% | %.2f / %.2f |\n",
    $1, $2, $3, $2 / $3, $5, $2 / $5, $3 / $5, 100 * $3 / (2 * $5), 1000 * $4 / $2, 1000 * $6 / $2 }'
done
rm -rf "$work/out"
"$agpu" sweep "$here/closed-form.toml" --out "$work/out" --quiet > /dev/null
/usr/bin/time -f "%e" -o "$work/time" "$agpu" sweep "$here/closed-form.toml" --out "$work/out" --quiet > /dev/null
echo
echo "$(cat "$work/time") s to find all of closed-form.toml's points in the cache again"
