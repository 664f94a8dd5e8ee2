#!/bin/sh
# Points per second of agpu sweep, serially and with --jobs 2, on closed-form
# points (closed-form.toml) and on exact simulations (simulated.toml), each
# run on a fresh cache, and the parallel efficiency (serial time over twice
# the --jobs 2 time). A benchmark, not a test: the figures depend on the host
# and its load; docs/sweep.md has them with the command and the host.
# usage: sweep/bench/sweep_bench.sh [AGPU] [REPEATS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
agpu=${1:-$here/../../build/release/agpu}
repeats=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }

# The best of `repeats` runs (the least disturbed by the rest of the host).
best_seconds() {
  spec=$1 jobs=$2 best=""
  for r in $(seq 1 "$repeats"); do
    rm -rf "$work/out"
    t0=$(now)
    "$agpu" sweep "$spec" --out "$work/out" --jobs "$jobs" --quiet > /dev/null
    t=$(echo "$(now) $t0" | awk '{printf "%.3f", $1 - $2}')
    best=$(echo "$best $t" | awk '{ if ($1 == "" || $2 < $1) print $2; else print $1 }')
  done
  echo "$best"
}

echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "agpu: $("$agpu" --version)"
echo
echo "| points | count | serial s | serial points/s | --jobs 2 s | --jobs 2 points/s | speed-up | efficiency |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for spec in closed-form simulated; do
  rm -rf "$work/out"
  count=$("$agpu" sweep "$here/$spec.toml" --out "$work/out" --quiet | sed -n 's/^sweep [^:]*: \([0-9]*\) points.*/\1/p')
  s1=$(best_seconds "$here/$spec.toml" 1)
  s2=$(best_seconds "$here/$spec.toml" 2)
  echo "$spec $count $s1 $s2" | awk '{ printf "| %s | %d | %.2f | %.0f | %.2f | %.0f | %.2f | %.0f%% |\n",
    $1, $2, $3, $2 / $3, $4, $2 / $4, $3 / $4, 100 * $3 / (2 * $4) }'
done
rm -rf "$work/out"
"$agpu" sweep "$here/closed-form.toml" --out "$work/out" --quiet > /dev/null
t0=$(now)
"$agpu" sweep "$here/closed-form.toml" --out "$work/out" --quiet > /dev/null
echo
echo "$(echo "$(now) $t0" | awk '{printf "%.2f", $1 - $2}') s to find all of closed-form.toml's points in the cache again"
