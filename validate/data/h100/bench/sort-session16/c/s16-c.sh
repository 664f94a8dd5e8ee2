#!/bin/bash
# Session 16, device call C (binary of the working tree: a split pass's ranges a group rounded down to a power of
# two, model/costs/sort.cpp): the sort counters suite, sort-bench at 2^26 and 2^28 with every baseline.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s16c; gunzip -c build/exp/agpu-s16c.gz > $B && chmod +x $B
W=/tmp/s16c; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite sort --out $W/sort ) > $W/sort.log 2>&1; tail -2 $W/sort.log
cd /tmp && tar czf $OUT/s16-c1.tgz s16c; cd - > /dev/null
for n in 67108864 268435456; do
  ( time $B validate --suite sort-bench --no-counters --sizes $n --out $W/bench-$n ) > $W/bench-$n.log 2>&1
  $B bench --data $W/bench-$n > $W/bench-$n.txt 2>&1; head -12 $W/bench-$n.txt
done
cd /tmp && tar czf $OUT/s16-c2.tgz s16c/bench* s16c/smi.txt
