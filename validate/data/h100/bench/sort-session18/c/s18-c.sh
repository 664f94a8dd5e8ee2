#!/bin/bash
# Session 18, device call C (binary b, 7934879): block_sort at tile 16384 under Nsight Compute (sections and SASS
# counts), the select_pivots and split_search of the third merge pass (sections), and the whole sort-tune suite at
# 2^26 (every shape against CUB's merge sort) with the faster merge kernel.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
W=/tmp/s18c; rm -rf $W; mkdir -p $W
B=/tmp/agpu-b; gunzip -c build/exp/agpu-s18b.gz > $B && chmod +x $B
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
S='--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( timeout 120 ncu -k regex:block_sort -s 1 -c 1 $S --csv $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16" --reps 10 --out $W/r1 > $W/ncu-block-sort.csv ) 2> $W/ncu1.err; rm -rf $W/r1
( timeout 120 ncu -k regex:block_sort -s 1 -c 1 --section SourceCounters --page source --print-source sass --csv $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16" --reps 10 --out $W/r2 > $W/sass-block-sort.csv ) 2> $W/ncu2.err; rm -rf $W/r2; gzip $W/sass-block-sort.csv
( timeout 120 ncu -k regex:'select_pivots|split_search' -s 4 -c 2 $S --csv $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16" --reps 10 --out $W/r3 > $W/ncu-pivots.csv ) 2> $W/ncu3.err; rm -rf $W/r3
tail -1 $W/ncu*.err
cd /tmp && tar czf $OUT/s18-c1.tgz s18c; cd - > /dev/null
( time $B validate --suite sort-tune --no-counters --out $W/tune ) > $W/tune.log 2>&1
$B bench --data $W/tune > $W/tune.txt 2>&1; head -22 $W/tune.txt
cd /tmp && tar czf $OUT/s18-c2.tgz s18c/tune*
