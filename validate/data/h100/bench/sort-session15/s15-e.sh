#!/bin/bash
# Session 15, device call E (binary of the commit: select_pivots and split_search search by bisection through one helper, bisect_prefix; as call D): the sort counters suite, sort-bench
# at 2^26 and 2^28, the sectors goal's dataset, the big tiles with counters.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s15e; gunzip -c build/exp/agpu-s15e.gz > $B && chmod +x $B
W=/tmp/s15e; rm -rf $W; mkdir -p $W
T8='sort/multiway type=u32;values=0;chunk=256;tile=8192;d=4'
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite sort --out $W/sort ) > $W/sort.log 2>&1; tail -2 $W/sort.log
( time $B validate --suite sort-tune --sizes 65536,100003,1048576 --only "$T8|$T16" --out $W/counters-big-tile ) > $W/counters.log 2>&1; tail -2 $W/counters.log
cd /tmp && tar czf $OUT/s15-e1.tgz s15e; cd - > /dev/null
( time $B validate --suite sort-bench --sizes 67108864 --only "$T16|baseline/cub-merge-sort type=u32" --out $W/sectors ) > $W/sectors.log 2>&1
$B bench --data $W/sectors > $W/sectors.txt 2>&1; tail -6 $W/sectors.txt
( time $B validate --suite sort-bench --no-counters --sizes 67108864 --out $W/bench-2e26 ) > $W/bench-2e26.log 2>&1
$B bench --data $W/bench-2e26 > $W/bench-2e26.txt 2>&1; head -12 $W/bench-2e26.txt
cd /tmp && tar czf $OUT/s15-e2.tgz s15e/sectors* s15e/bench-2e26*
( time $B validate --suite sort-bench --no-counters --sizes 268435456 --out $W/bench-2e28 ) > $W/bench-2e28.log 2>&1
$B bench --data $W/bench-2e28 > $W/bench-2e28.txt 2>&1; head -12 $W/bench-2e28.txt
cd /tmp && tar czf $OUT/s15-e3.tgz s15e/bench-2e28*
