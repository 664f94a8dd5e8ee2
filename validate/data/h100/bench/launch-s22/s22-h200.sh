#!/bin/bash
# Session 22, second call (validate/data/h100/bench/launch-s22/h200): the H200 datasets of the fit's check, as
# launch-s21's h200/ (each dataset's own command, --no-counters), with the s22 harness (build/exp/agpu-s22).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
N=/tmp/agpu-s22; gunzip -c build/exp/agpu-s22.gz > $N && chmod +x $N
W=/tmp/s22/h200; mkdir -p $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; lscpu | grep -E "Model name|^CPU\(s\)"; } >> $W/host.txt
v() { local t=$1 bin=$2 name=$3; shift 3; ( time timeout $t $bin validate "$@" --out $W/$name ) > $W/$name.log 2>&1; echo "$name: $(grep real $W/$name.log)"; }
v 60 $N stats --suite stats --sizes=1048576,1000003 --no-counters
v 60 $N scan --suite scan --sizes=1048576,1000003 --no-counters
v 60 $N rank --suite rank --sizes=16777216,1000003 --no-counters
v 90 $N micro --suite micro --no-counters
v 90 $N latency --suite latency --no-counters
v 60 $N apsp --suite apsp --no-counters
v 200 $N bench-stats --suite stats --sizes=268435456 --no-counters
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >> $W/host.txt
cd /tmp && tar czf $OUT/s22-h200.tgz s22/h200
