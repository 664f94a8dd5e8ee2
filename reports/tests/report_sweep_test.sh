#!/bin/sh
# agpu report --sweep RESULTS: the report gains the sweep's section, with a
# heatmap chart per algorithm and the tables of the best parameters, the
# bounds and the skips, in index.html, summary.md and data/. On one small
# dataset (the whole report is reports.cli-writes-report's), so that it
# takes seconds.
# usage: report_sweep_test.sh AGPU OUTDIR SWEEP_RESULTS_DIR
set -eu
agpu=$1 out=$2 results=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -s "$results/points.jsonl" ] || fail "no sweep results at $results (the sweep.serial test writes them)"
rm -rf "$out"
start=$(date +%s)
repo=$(cd "$(dirname "$0")/../.." && pwd)
stdout=$("$agpu" report --out "$out" --data "$repo/validate/data/h100/timing/stats" --sweep "$results") ||
  fail "agpu report --sweep exited $?"
echo "$stdout"
echo "agpu report --sweep took $(( $(date +%s) - start )) s"
grep -q '<section id="sweep">' "$out/index.html" || fail "index.html: no sweep section"
grep -q "{#sweep}" "$out/summary.md" || fail "summary.md: no sweep section"
for algo in stats-fused stats-pairwise scan-work-efficient apsp-blocked micro-global-stride micro-shared-stride; do
  [ -s "$out/data/sweep-$algo.json" ] || fail "data/sweep-$algo.json: no heatmap of $algo"
  [ "$(wc -l < "$out/data/sweep-$algo.csv")" -gt 10 ] || fail "data/sweep-$algo.csv: fewer than 10 rows"
done
for t in sweep-best sweep-bounds; do
  [ -s "$out/data/$t.csv" ] || fail "data/$t.csv missing"
done
# A torn results file is refused before any work, naming the file and line.
torn=$(mktemp -d)
trap 'rm -rf "$torn"' EXIT
head -c 5000 "$results/points.jsonl" > "$torn/points.jsonl"
status=0
err=$("$agpu" report --out "$torn/report" --sweep "$torn/points.jsonl" 2>&1) || status=$?
[ $status -eq 2 ] || fail "a torn results file: exit $status, expected 2"
echo "$err" | grep -q "points.jsonl:[0-9]*: the last line has no line end" || fail "the message does not name the torn line: $err"
echo "ok: the sweep section, $(ls "$out"/data/sweep-*.json | wc -l) heatmap charts"
