#!/bin/bash
# Session 22 (validate/data/h100/bench/launch-s22): the stream held again after every copy or allocation of a
# timed run (build/exp/agpu-s22: validate/src/cuda_executor.cpp's begin_launch, committed after this call), so a
# launch that follows an upload (the rank queries) or an allocation (Hillis-Steele's block sums) is not timed
# on an idle GPU while the host submits it. Part d: the fit's microsecond datasets, each by its own command,
# --no-counters (as launch-s21's d/). Control: rank and scan with session 21's committed harness
# (build/exp/agpu-s21final) in the same call.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
N=/tmp/agpu-s22; gunzip -c build/exp/agpu-s22.gz > $N && chmod +x $N
P=/tmp/agpu-s21; gunzip -c build/exp/agpu-s21final.gz > $P && chmod +x $P
W=/tmp/s22/h100; mkdir -p $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; lscpu | grep -E "Model name|^CPU\(s\)"; } >> $W/host.txt
v() { local t=$1 bin=$2 name=$3; shift 3; ( time timeout $t $bin validate "$@" --out $W/$name ) > $W/$name.log 2>&1; echo "$name: $(grep real $W/$name.log)"; }
v 60 $P rank-s21 --suite rank --sizes=16777216,1000003 --no-counters
v 60 $N rank --suite rank --sizes=16777216,1000003 --no-counters
v 60 $P scan-s21 --suite scan --sizes=1048576,1000003 --no-counters
v 60 $N scan --suite scan --sizes=1048576,1000003 --no-counters
v 60 $N stats --suite stats --sizes=1048576,1000003 --no-counters
v 90 $N micro --suite micro --no-counters
v 90 $N latency --suite latency --no-counters
v 280 $N stats-table --suite stats --sizes=100,1000,10000,100000,1000000,10000000,100000000,1000000000 \
  "--only=stats/fused type=float|stats/pairwise type=float|stats/serial type=float" --no-counters
v 200 $N apsp --suite apsp --no-counters
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >> $W/host.txt
cd /tmp && tar czf $OUT/s22-h100.tgz s22/h100
