#!/bin/sh
# agpu report --out DIR: exit 0, prints where index.html and summary.md are,
# and writes them with report.json and the CSV and JSON of every chart and table.
# usage: report_cli_test.sh AGPU OUTDIR
set -eu
agpu=$1
out=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$out"
start=$(date +%s)
stdout=$("$agpu" report --out "$out") || fail "agpu report exited $?"
echo "$stdout"
echo "agpu report took $(( $(date +%s) - start )) s"
echo "$stdout" | grep -q "^report: .*/index.html (" || fail "stdout does not say where index.html is"
echo "$stdout" | grep -q "^summary: .*/summary.md" || fail "stdout does not say where summary.md is"
for f in index.html summary.md report.json; do
  [ -s "$out/$f" ] || fail "$out/$f missing or empty"
done
charts=$(echo "$stdout" | sed -n 's/^report: .*(\([0-9]*\) charts, \([0-9]*\) tables)$/\1/p')
tables=$(echo "$stdout" | sed -n 's/^report: .*(\([0-9]*\) charts, \([0-9]*\) tables)$/\2/p')
[ -n "$charts" ] && [ "$charts" -ge 10 ] || fail "expected at least 10 charts, got '$charts'"
[ "$(ls "$out"/data/*.json | wc -l)" -eq "$charts" ] || fail "not one data/*.json per chart"
[ "$(ls "$out"/data/*.csv | wc -l)" -eq $((charts + tables)) ] || fail "not one data/*.csv per chart and table"
for f in "$out"/data/*.csv; do
  head -n 1 "$f" | grep -q "^schema,\(chart\|table\)," || fail "$f: no schema column"
  sed -n 2p "$f" | grep -q "^agpu.report-data/1," || fail "$f: no rows, or no schema on them"
done
grep -q '"schema": "agpu.report/1"' "$out/report.json" || fail "report.json: no schema"
# Offline: nothing is fetched from a network.
! grep -q '<script[^>]*src=' "$out/index.html" || fail "index.html loads a script from elsewhere"
for section in devices fit cross-device sweeps q-pairwise q-tile q-sort sampled; do
  grep -q "<section id=\"$section\">" "$out/index.html" || fail "index.html: no section $section"
  grep -q "{#$section}" "$out/summary.md" || fail "summary.md: no section $section"
done
# Simulated against measured counters for every family the committed suite datasets measured (read for
# their counters even where the fit's datasets are timing-only).
for family in stats scan rank micro sort; do
  [ "$(wc -l < "$out/data/$family-counters.csv")" -gt 10 ] || fail "data/$family-counters.csv: fewer than 10 rows"
done
# The cross-device check is, by default, the datasets the committed fit was checked on (its check_datasets).
repo=$(cd "$(dirname "$0")/../.." && pwd)
checked=$(sed -n '/"check_datasets"/,/\]/p' "$repo/model/fits/h100.json" | grep -o '"validate/[^"]*"' | tr -d '"')
[ -n "$checked" ] || fail "model/fits/h100.json names no check_datasets"
for d in $checked; do
  grep -q -- "- $d\$" "$out/summary.md" || fail "summary.md does not list the fit's check dataset $d"
done
# The committed sampled-against-exact table is shown, with its rows.
[ "$(wc -l < "$out/data/sampled-table.csv")" -gt 20 ] || fail "data/sampled-table.csv: fewer than 20 rows"
# Written atomically: no temporary directory left beside it.
! ls -a "$(dirname "$out")" | grep -q "^\.$(basename "$out")\.\(tmp\|old\)-" || fail "a temporary directory was left"
echo "ok: $charts charts, $tables tables"
