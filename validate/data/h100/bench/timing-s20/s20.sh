#!/bin/bash
# Session 20 (validate/data/h100/bench/timing-s20): the H100 datasets of the fit whose launches take microseconds, timed again with 50
# repetitions after 10 warm-up runs (they were medians of 10 after 2: a launch of a few microseconds
# has a slow mode, up to 2x, that a median of 10 sometimes lands in), by each dataset's own command
# otherwise (its provenance), without counters (the counter datasets stay as they are).
# Argument: which part (a: stats, scan, rank, micro, latency, apsp; b: the stats table).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PART=$1
B=/tmp/agpu-s20; gunzip -c build/exp/agpu-s20.gz > $B && chmod +x $B
W=/tmp/s20/h100; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $W/smi-$PART.txt
T="--no-counters --reps 50 --warmup 10"
v() { local name=$1; shift; ( time $B validate "$@" $T --out $W/$name ) > $W/$name.log 2>&1; tail -3 $W/$name.log; }
if [ "$PART" = a ]; then
  v stats --suite stats --sizes=1048576,1000003
  v scan --suite scan --sizes=1048576,1000003
  v rank --suite rank --sizes=16777216,1000003
  v micro --suite micro
  v latency --suite latency
  v apsp --suite apsp
else
  v stats-table --suite stats --sizes=100,1000,10000,100000,1000000,10000000,100000000,1000000000 \
    --only='stats/fused type=float|stats/pairwise type=float|stats/serial type=float'
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $W/smi-$PART.txt
cd /tmp && tar czf $OUT/s20-h100-$PART.tgz s20/h100
