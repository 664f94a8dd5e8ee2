#!/bin/bash
# Session 13, device call B: the warp-bitonic block_sort (branch s13-block-sort): the sort counters suite
# (every run checked against the CPU reference), sort-bench at 2^26, sort-tune, one block_sort under ncu, sort-bench at 2^28.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s13b; gunzip -c build/exp/agpu-s13b.gz > $B && chmod +x $B
W=/tmp/s13b; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite sort --out $W/sort ) > $W/sort.log 2>&1; tail -4 $W/sort.log
( time $B validate --suite sort-bench --no-counters --sizes 67108864 --out $W/bench-2e26 ) > $W/bench-2e26.log 2>&1
$B bench --data $W/bench-2e26 > $W/bench-2e26.txt 2>&1; head -12 $W/bench-2e26.txt
( time $B validate --suite sort-tune --no-counters --out $W/tune ) > $W/tune.log 2>&1
$B bench --data $W/tune > $W/tune.txt 2>&1; grep -E "d=4 |d=8 |cub" $W/tune.txt
timeout 60 ncu -k regex:block_sort -s 1 -c 1 --section SpeedOfLight --section InstructionStats --section Occupancy --section LaunchStats --csv --page details $B validate --suite sort-tune --no-counters --sizes 67108864 --only 'sort/multiway type=u32;values=0;chunk=256;tile=4096;d=4' --reps 10 --out $W/ncu-run > $W/ncu-block-sort.csv 2> $W/ncu-block-sort.err
grep -E '"(Duration|Executed Instructions|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy)"' $W/ncu-block-sort.csv | awk -F'","' '{print $13, $15}'
( time $B validate --suite sort-bench --no-counters --sizes 268435456 --out $W/bench-2e28 ) > $W/bench-2e28.log 2>&1
$B bench --data $W/bench-2e28 > $W/bench-2e28.txt 2>&1; head -12 $W/bench-2e28.txt
cd /tmp && tar czf $OUT/s13-b.tgz s13b
