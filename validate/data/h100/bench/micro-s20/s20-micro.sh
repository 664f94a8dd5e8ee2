#!/bin/bash
# Session 20, device call C (validate/data/h100/bench/micro-s20): the micro suite at two more decades,
# 10^5 (131072, 100003) and 4·10^6 (4194304, 4000037), with counters, so that a cost per wave of resident
# threads (model/README.md, "Session 20") can be seen by the by-decade check.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s20; gunzip -c build/exp/agpu-s20.gz > $B && chmod +x $B
W=/tmp/s20m/h100; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite micro --sizes=131072,100003,4194304,4000037 --out $W/micro ) > $W/micro.log 2>&1; tail -3 $W/micro.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $W/smi.txt
cd /tmp && tar czf $OUT/s20-micro.tgz s20m/h100
