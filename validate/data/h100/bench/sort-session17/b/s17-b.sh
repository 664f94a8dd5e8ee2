#!/bin/bash
# Session 17, device call B (5dcfc86 + the register heap with one network per move kind and no local memory, uncommitted): the sort counters suite (GPU correctness and
# simulated-vs-measured counts), then sort-bench at 2^26 and 2^28 for the tuned and default multiway and CUB merge sort.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s17b; gunzip -c build/exp/agpu-s17b.gz > $B && chmod +x $B
W=/tmp/s17b; rm -rf $W; mkdir -p $W
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
ONLY="$T16|sort/multiway type=u32;values=0|baseline/cub-merge-sort type=u32"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite sort --out $W/sort ) > $W/sort.log 2>&1; tail -3 $W/sort.log
cd /tmp && tar czf $OUT/s17-b1.tgz s17b/sort* s17b/smi.txt; cd - > /dev/null
for n in 67108864 268435456; do
  ( time $B validate --suite sort-bench --no-counters --sizes $n --only "$ONLY" --out $W/bench-$n ) > $W/bench-$n.log 2>&1
  $B bench --data $W/bench-$n > $W/bench-$n.txt 2>&1; head -6 $W/bench-$n.txt; tail -3 $W/bench-$n.log
  cd /tmp && tar czf $OUT/s17-b-$n.tgz s17b/bench-$n*; cd - > /dev/null
done
