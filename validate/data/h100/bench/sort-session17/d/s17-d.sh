#!/bin/bash
# Session 17, device call D (binary of 6eeda58: the merge kernel with compile-time chunk and d = 4): the sort counters suite,
# the sectors goal's dataset, sort-bench at 2^26, 2^28, and 2^20..2^24, every baseline in the same run.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s17d; gunzip -c build/exp/agpu-s17d.gz > $B && chmod +x $B
W=/tmp/s17d; rm -rf $W; mkdir -p $W
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite sort --out $W/sort ) > $W/sort.log 2>&1; tail -2 $W/sort.log
cd /tmp && tar czf $OUT/s17-d1.tgz s17d/sort* s17d/smi.txt; cd - > /dev/null
( time $B validate --suite sort-bench --sizes 67108864 --only "$T16|baseline/cub-merge-sort type=u32" --out $W/sectors ) > $W/sectors.log 2>&1
$B bench --data $W/sectors > $W/sectors.txt 2>&1; tail -4 $W/sectors.txt
cd /tmp && tar czf $OUT/s17-d2.tgz s17d/sectors*; cd - > /dev/null
for n in 67108864 268435456; do
  ( time $B validate --suite sort-bench --no-counters --sizes $n --out $W/bench-$n ) > $W/bench-$n.log 2>&1
  $B bench --data $W/bench-$n > $W/bench-$n.txt 2>&1; head -9 $W/bench-$n.txt
  cd /tmp && tar czf $OUT/s17-d-$n.tgz s17d/bench-$n*; cd - > /dev/null
done
( time $B validate --suite sort-bench --no-counters --sizes 1048576,4194304,16777216 --out $W/bench-small ) > $W/bench-small.log 2>&1
$B bench --data $W/bench-small > $W/bench-small.txt 2>&1; head -21 $W/bench-small.txt | tail -19
cd /tmp && tar czf $OUT/s17-d-small.tgz s17d/bench-small*
