#!/bin/bash
# Session 21 (validate/data/h100/bench/launch-s21): is the cost of a launch in a run's sequence the host's?
# The harness made two timing events per launch (cudaEventCreate, microseconds of host time each) between
# recording one launch's stop and the next one's start; the first ~8 launches of a run (queued behind the L2
# flush) took 3.7-4.2 us each in bench/stats-table, every later one about 6.3 us (8-10 us in the `stats` dataset).
# old: build/exp/agpu-s20 (aa1dea5's harness); pool: the same with the events made once and reused
# (build/exp/agpu-s21pool); AGPU_EXPERIMENT_SPAN=1 makes pool print each timed run's span from its first
# launch's start event to its last one's stop event (stderr, into the logs).
# Part a: the two harnesses alternately on launch-heavy runs; part b: the fit's microsecond datasets with pool.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PART=$1
O=/tmp/agpu-old; gunzip -c build/exp/agpu-s20.gz > $O && chmod +x $O
P=/tmp/agpu-pool; gunzip -c build/exp/agpu-s21pool.gz > $P && chmod +x $P
W=/tmp/s21/h100; mkdir -p $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; lscpu | grep -E "Model name|^CPU\(s\)|MHz"; } >> $W/host-$PART.txt
v() { local bin=$1 name=$2; shift 2; ( time AGPU_EXPERIMENT_SPAN=1 timeout 150 $bin validate "$@" --out $W/$name ) > $W/$name.log 2>&1; echo "$name: $(grep real $W/$name.log)"; }
if [ "$PART" = a ]; then
  S=(--suite stats --sizes=100,1048576 "--only=stats/pairwise type=float|stats/fused type=float" --no-counters)
  v $O stats-old-1 "${S[@]}"; v $P stats-pool-1 "${S[@]}"; v $O stats-old-2 "${S[@]}"; v $P stats-pool-2 "${S[@]}"
  A="--suite apsp --sizes=512,1000 --no-counters"
  v $O apsp-old $A; v $P apsp-pool $A
  C="--suite scan --sizes=1048576,1000003 --no-counters"
  v $O scan-old $C; v $P scan-pool $C
else
  v $P stats --suite stats --sizes=1048576,1000003 --no-counters
  v $P scan --suite scan --sizes=1048576,1000003 --no-counters
  v $P rank --suite rank --sizes=16777216,1000003 --no-counters
  v $P micro --suite micro --no-counters
  v $P latency --suite latency --no-counters
  v $P apsp --suite apsp --no-counters
fi
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >> $W/host-$PART.txt
cd /tmp && tar czf $OUT/s21-h100-$PART.tgz s21/h100
