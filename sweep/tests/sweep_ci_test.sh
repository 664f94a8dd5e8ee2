#!/bin/sh
# agpu sweep end to end on the CI spec (data/ci-sweep.toml, 225 points): the
# same results byte for byte (after sorting) serially, with --jobs 2 and
# under mpirun -n 4; a second run computes nothing; a run killed with
# SIGKILL mid-way and restarted completes with every point once.
# usage: sweep_ci_test.sh MODE AGPU SPEC WORKDIR
#   MODE serial   the reference run (WORKDIR/serial), at least 200 points
#        jobs     --jobs 2 (WORKDIR/jobs) against the reference
#        rerun    the jobs run again: nothing computed, the same bytes
#        mpirun   mpirun -n 4 (WORKDIR/mpi) against the reference; exit 77 (skipped) without mpirun
#        no-mpi   a build without MPI under mpirun: exit 3 and a message that says so
#        killed   killed twice mid-way, restarted each time (WORKDIR/killed)
set -eu
mode=$1 agpu=$2 spec=$3 work=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
points=225
mkdir -p "$work"

now() { date +%s.%N; }
took() { echo "$(now) $1" | awk '{printf "%.2f", $1 - $2}'; }

# The sorted lines of a results file (the order is the spec's in every mode; sorting is what the issue asks).
sorted() { sort "$1"; }
same_as_serial() {
  [ -s "$work/serial/points.jsonl" ] || fail "no reference: the serial test writes $work/serial/points.jsonl"
  sorted "$work/serial/points.jsonl" > "$work/serial.sorted"
  sorted "$1/points.jsonl" > "$1.sorted"
  cmp "$work/serial.sorted" "$1.sorted" || fail "$1/points.jsonl differs from the serial run's"
  cmp "$work/serial/points.jsonl" "$1/points.jsonl" || fail "$1/points.jsonl: the same lines in another order"
  echo "ok: $1/points.jsonl equals the serial run's, byte for byte"
}
# Whole lines only: the file ends with a line end, one line per point, each key once.
whole() {
  f=$1/points.jsonl
  [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ] || fail "$f: the last line is torn"
  [ "$(wc -l < "$f")" -eq $points ] || fail "$f: $(wc -l < "$f") lines, expected $points"
  [ "$(grep -o '"key":"[0-9a-f]*"' "$f" | sort -u | wc -l)" -eq $points ] || fail "$f: a point twice"
}
entries() { find "$1" -name '*.json' ! -name '.*' 2>/dev/null | wc -l; }

case "$mode" in
serial)
  rm -rf "$work/serial"
  t=$(now)
  "$agpu" sweep "$spec" --out "$work/serial" --quiet
  echo "serial: $(took "$t") s"
  whole "$work/serial"
  [ "$(grep -c '"status":"ok"' "$work/serial/points.jsonl")" -eq $points ] || fail "a point was skipped"
  grep -q '"schema": "agpu.sweep-summary/1"' "$work/serial/summary.json" || fail "summary.json: no schema"
  ;;
jobs)
  rm -rf "$work/jobs"
  t=$(now)
  "$agpu" sweep "$spec" --out "$work/jobs" --jobs 2 --quiet
  echo "--jobs 2: $(took "$t") s"
  whole "$work/jobs"
  same_as_serial "$work/jobs"
  ;;
rerun)
  before=$(cat "$work/jobs/points.jsonl")
  out=$("$agpu" sweep "$spec" --out "$work/jobs" --jobs 2 --quiet)
  echo "$out"
  echo "$out" | grep -q ": $points points, 0 computed, $points from the cache, 0 skipped" || fail "the second run computed something"
  [ "$before" = "$(cat "$work/jobs/points.jsonl")" ] || fail "the second run wrote other results"
  ;;
mpirun)
  command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun (scripts/setup.sh installs openmpi-bin)"; exit 77; }
  rm -rf "$work/mpi"
  # Root in CI, 4 ranks on 2 cores, no shared-memory single copy in containers.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
         OMPI_MCA_btl_vader_single_copy_mechanism=none
  t=$(now)
  out=$(mpirun -n 4 "$agpu" sweep "$spec" --out "$work/mpi" --quiet)
  echo "$out"
  echo "mpirun -n 4: $(took "$t") s"
  echo "$out" | grep -q "on MPI (.*), 4 ranks" || fail "did not run on 4 MPI ranks"
  whole "$work/mpi"
  same_as_serial "$work/mpi"
  ;;
no-mpi)
  command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun"; exit 77; }
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  status=0
  err=$(mpirun -n 2 "$agpu" sweep "$spec" --out "$work/no-mpi" --quiet 2>&1 >/dev/null) || status=$?
  echo "$err"
  [ $status -ne 0 ] || fail "a build without MPI ran under mpirun"
  echo "$err" | grep -q "this agpu is built without MPI" || fail "no message saying the build has no MPI"
  ;;
killed)
  rm -rf "$work/killed"
  # Kill with SIGKILL once among the closed forms and once among the simulations.
  for at in 60 170; do
    "$agpu" sweep "$spec" --out "$work/killed" --quiet > /dev/null &
    pid=$!
    while [ "$(entries "$work/killed/cache")" -lt $at ]; do
      kill -0 $pid 2>/dev/null || fail "the sweep ended before $at points were cached: nothing to kill"
      sleep 0.01
    done
    kill -KILL $pid
    wait $pid 2>/dev/null || true
    cached=$(entries "$work/killed/cache")
    echo "killed with $cached of $points points in the cache"
    [ "$cached" -lt $points ] || fail "the sweep finished before the kill"
    [ ! -e "$work/killed/points.jsonl" ] || fail "a killed run left points.jsonl"
    # Every entry whole: each ends with its line end.
    torn=$(find "$work/killed/cache" -name '*.json' ! -name '.*' -exec tail -q -c 1 {} + | tr -d '\n' | wc -c)
    [ "$torn" -eq 0 ] || fail "$torn torn cache entries"
  done
  out=$("$agpu" sweep "$spec" --out "$work/killed" --quiet)
  echo "$out"
  echo "$out" | grep -q ": $points points, $((points - cached)) computed, $cached from the cache, 0 skipped" ||
    fail "the restart did not compute exactly the $((points - cached)) missing points"
  whole "$work/killed"
  same_as_serial "$work/killed"
  ;;
*)
  fail "unknown mode $mode"
  ;;
esac
