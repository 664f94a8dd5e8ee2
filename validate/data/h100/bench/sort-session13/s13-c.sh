#!/bin/bash
# Session 13, device call C: keys-alone tiles of 8192 and 16384 (e55fc02): sort-tune at 2^26 (every shape),
# the tile-4096 and tile-16384 shapes at 2^28 beside CUB, the big tiles with counters at small sizes (checked
# against the CPU reference), block_sort at tile 16384 under ncu.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s13c; gunzip -c build/exp/agpu-s13c.gz > $B && chmod +x $B
W=/tmp/s13c; rm -rf $W; mkdir -p $W
T4='sort/multiway type=u32;values=0;chunk=256;tile=4096;d=4'
T8='sort/multiway type=u32;values=0;chunk=256;tile=8192;d=4'
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite sort-tune --no-counters --out $W/tune ) > $W/tune.log 2>&1
$B bench --data $W/tune > $W/tune.txt 2>&1; grep -E "chunk=256|cub" $W/tune.txt
( time $B validate --suite sort-tune --no-counters --sizes 268435456 --only "$T4|$T16|baseline/cub-merge-sort type=u32" --out $W/tune-2e28 ) > $W/tune-2e28.log 2>&1
$B bench --data $W/tune-2e28 > $W/tune-2e28.txt 2>&1; head -6 $W/tune-2e28.txt
( time $B validate --suite sort-tune --sizes 65536,100003,1048576 --only "$T8|$T16" --out $W/counters-big-tile ) > $W/counters.log 2>&1; tail -3 $W/counters.log
timeout 60 ncu -k regex:block_sort -s 1 -c 1 --section SpeedOfLight --section InstructionStats --section Occupancy --section LaunchStats --csv --page details $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16" --reps 10 --out $W/ncu-run > $W/ncu-block-sort-16384.csv 2> $W/ncu.err
grep -E '"(Duration|Executed Instructions|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Block Limit Shared Mem|Block Limit Registers)"' $W/ncu-block-sort-16384.csv | awk -F'","' '{print $13, $15}'
rm -rf $W/ncu-run
cd /tmp && tar czf $OUT/s13-c.tgz s13c
