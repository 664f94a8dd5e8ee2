#!/bin/sh
# Session 23: per-launch medians (time_ms, in us) from the committed datasets, for the numbers model/README.md's
# "Session 23" quotes: stats/pairwise at n = 100 under session 21's harness (the later passes unheld) and the
# current one; stats/fused's two 1-block launches; APSP's 1-block pivot tile; the 2^26 scans by tile size.
# From the repository root: sh validate/experiments/fit-replica/launch-times.sh
D=validate/data/h100/bench
launches() {  # dataset, run-id prefix: each launch as kernel:us, in order
  awk -F, -v r="$2" 'index($2, r) == 1 && $7 != "run" && $9 == "time_ms" {printf "%s:%.2f ", $8, $10 * 1000} END {print ""}' "$1/measurements.csv"
}
for h in launch-s21/d launch-s22; do
  echo "== $h/stats-table: stats/pairwise n=100 float (pairwise_copy, then pairwise_minmax or pairwise_sum; 3 passes of 7 rounds)"
  launches $D/$h/stats-table "stats/pairwise n=100 type=float"
done
for n in 100 1000 10000; do
  echo "== launch-s22/stats-table: stats/fused n=$n float"; launches $D/launch-s22/stats-table "stats/fused n=$n type=float"
done
echo "== launch-s22/apsp: apsp/blocked n=512 method=A t=16, the first 4 rounds (pivot_tile is 1 block)"
launches $D/launch-s22/apsp "apsp/blocked n=512 graph=sparse;method=A;t=16" | tr ' ' '\n' | head -12 | tr '\n' ' '; echo
echo "== launch-s21/e/scan-tune: scan/work-efficient at 2^26, the run's launch medians summed (us)"
awk -F, '$7 != "run" && $9 == "time_ms" && $3 == "scan/work-efficient" {s[$5] += $10 * 1000} END {for (k in s) printf "%8.1f  %s\n", s[k], k}' \
  $D/launch-s21/e/scan-tune/measurements.csv | sort -k2
