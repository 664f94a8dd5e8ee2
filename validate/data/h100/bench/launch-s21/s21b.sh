#!/bin/bash
# Session 21, second and third calls (validate/data/h100/bench/launch-s21): the held stream.
# old: aa1dea5's harness (build/exp/agpu-s20); held: events made once (as s21.sh's pool) and the run's launches
# queued behind a held stream (build/exp/agpu-s21hold, validate/src/stream_hold.hpp).
# AGPU_EXPERIMENT_SPAN=1: held prints each timed run's span from its first start event to its last stop event.
# Part c: the two harnesses alternately on launch-heavy runs. Part d: the fit's microsecond datasets with held
# (each dataset's own command, --no-counters). Part e: the fit's bench datasets with held. Part f: the H200's.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PART=$1
O=/tmp/agpu-old; gunzip -c build/exp/agpu-s20.gz > $O && chmod +x $O
H=/tmp/agpu-held; gunzip -c build/exp/agpu-s21hold.gz > $H && chmod +x $H
W=/tmp/s21/$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && echo h200 || echo h100); mkdir -p $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; lscpu | grep -E "Model name|^CPU\(s\)"; } >> $W/host-$PART.txt
v() { local t=$1 bin=$2 name=$3; shift 3; ( time AGPU_EXPERIMENT_SPAN=1 timeout $t $bin validate "$@" --out $W/$name ) > $W/$name.log 2>&1; echo "$name: $(grep real $W/$name.log)"; }
if [ "$PART" = c ]; then
  S=(--suite stats --sizes=100,1048576 "--only=stats/pairwise type=float|stats/fused type=float" --no-counters)
  for i in 1 2 3; do v 60 $O stats-old-c$i "${S[@]}"; v 60 $H stats-held-c$i "${S[@]}"; done
  A=(--suite apsp --sizes=512,1000 --no-counters)
  v 60 $O apsp-old-c "${A[@]}"; v 60 $H apsp-held-c "${A[@]}"
  C=(--suite scan --sizes=1048576,1000003 --no-counters)
  v 60 $O scan-old-c "${C[@]}"; v 60 $H scan-held-c "${C[@]}"
elif [ "$PART" = d ] || [ "$PART" = f ]; then
  v 60 $H stats --suite stats --sizes=1048576,1000003 --no-counters
  v 60 $H scan --suite scan --sizes=1048576,1000003 --no-counters
  v 60 $H rank --suite rank --sizes=16777216,1000003 --no-counters
  v 90 $H micro --suite micro --no-counters
  v 90 $H latency --suite latency --no-counters
  v 60 $H apsp --suite apsp --no-counters
  if [ "$PART" = d ]; then
    v 280 $H stats-table --suite stats --sizes=100,1000,10000,100000,1000000,10000000,100000000,1000000000 \
      "--only=stats/fused type=float|stats/pairwise type=float|stats/serial type=float" --no-counters
  else
    v 200 $H bench-stats --suite stats --sizes=268435456 --no-counters
  fi
else
  v 120 $H scan-tune --suite scan-tune --sizes=67108864 --no-counters
  v 60 $H bench-scan --suite scan --sizes=268435456 "--only=scan/work-efficient type=u32;kind=exclusive|baseline/cub-scan type=u32;kind=exclusive" --no-counters
  v 200 $H rank-goals --suite rank-goals --no-counters
  v 200 $H bench-stats --suite stats --sizes=268435456 --no-counters
fi
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >> $W/host-$PART.txt
cd /tmp && tar czf $OUT/s21-$(basename $W)-$PART.tgz s21/$(basename $W)
