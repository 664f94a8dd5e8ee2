#!/bin/bash
# Session 18, device call D (binary of a87fd8f: whole-move fast paths, select_pivots' searches side by side, the
# networks' cross-lane selects on the FMA pipe, block_sort's unrolled whole-tile passes): sort-bench at 2^26 and
# 2^28 (every baseline in the same run), the sectors goal's dataset, the sort counters suite, sort-bench at
# 2^20..2^24, and Nsight Compute's sections for block_sort and the third merge pass at 2^26.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
B=/tmp/agpu-s18d; gunzip -c build/exp/agpu-s18d.gz > $B && chmod +x $B
W=/tmp/s18d; rm -rf $W; mkdir -p $W
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
for n in 67108864 268435456; do
  ( time $B validate --suite sort-bench --no-counters --sizes $n --out $W/bench-$n ) > $W/bench-$n.log 2>&1
  $B bench --data $W/bench-$n > $W/bench-$n.txt 2>&1; head -9 $W/bench-$n.txt
  cd /tmp && tar czf $OUT/s18-d-$n.tgz s18d/bench-$n* s18d/smi.txt; cd - > /dev/null
done
( time $B validate --suite sort-bench --sizes 67108864 --only "$T16|baseline/cub-merge-sort type=u32" --out $W/sectors ) > $W/sectors.log 2>&1
$B bench --data $W/sectors > $W/sectors.txt 2>&1; tail -4 $W/sectors.txt
( time $B validate --suite sort --out $W/sort ) > $W/sort.log 2>&1; tail -2 $W/sort.log
cd /tmp && tar czf $OUT/s18-d1.tgz s18d/sectors* s18d/sort*; cd - > /dev/null
S='--section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats'
( timeout 100 ncu -k regex:'block_sort|multiway_merge' -s 0 -c 3 $S --csv $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16" --reps 10 --out $W/r1 > $W/ncu-d.csv ) 2> $W/ncu-d.err; rm -rf $W/r1
cd /tmp && tar czf $OUT/s18-d2.tgz s18d/ncu*; cd - > /dev/null
( time $B validate --suite sort-bench --no-counters --sizes 1048576,4194304,16777216 --out $W/bench-small ) > $W/bench-small.log 2>&1
$B bench --data $W/bench-small > $W/bench-small.txt 2>&1; head -21 $W/bench-small.txt | tail -19
cd /tmp && tar czf $OUT/s18-d-small.tgz s18d/bench-small*
