#!/bin/bash
# Session 14, device call C (binary: the merge of s14-pivots, select_pivots ranking samples across the grid,
# with the bitonic moves' smaller heap): the sort counters suite, sort-bench at 2^26, the sectors goal's
# dataset, sort-tune at 2^26, the big tiles with counters, sort-bench at 2^28.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s14c; gunzip -c build/exp/agpu-s14c.gz > $B && chmod +x $B
W=/tmp/s14c; rm -rf $W; mkdir -p $W
T8='sort/multiway type=u32;values=0;chunk=256;tile=8192;d=4'
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite sort --out $W/sort ) > $W/sort.log 2>&1; tail -2 $W/sort.log
( time $B validate --suite sort-bench --no-counters --sizes 67108864 --out $W/bench-2e26 ) > $W/bench-2e26.log 2>&1
$B bench --data $W/bench-2e26 > $W/bench-2e26.txt 2>&1; head -12 $W/bench-2e26.txt
( time $B validate --suite sort-bench --sizes 67108864 --only "$T16|baseline/cub-merge-sort type=u32" --out $W/sectors ) > $W/sectors.log 2>&1
$B bench --data $W/sectors > $W/sectors.txt 2>&1; tail -6 $W/sectors.txt
( time $B validate --suite sort-tune --no-counters --sizes 67108864 --out $W/tune ) > $W/tune.log 2>&1
$B bench --data $W/tune > $W/tune.txt 2>&1; grep -E "chunk=256|cub" $W/tune.txt
( time $B validate --suite sort-tune --sizes 65536,100003,1048576 --only "$T8|$T16" --out $W/counters-big-tile ) > $W/counters.log 2>&1; tail -2 $W/counters.log
cd /tmp && tar czf $OUT/s14-c1.tgz s14c
( time $B validate --suite sort-bench --no-counters --sizes 268435456 --out $W/bench-2e28 ) > $W/bench-2e28.log 2>&1
$B bench --data $W/bench-2e28 > $W/bench-2e28.txt 2>&1; head -12 $W/bench-2e28.txt
cd /tmp && tar czf $OUT/s14-c2.tgz s14c/bench-2e28 s14c/bench-2e28.log s14c/bench-2e28.txt
