#!/bin/bash
# Session 14, device call A: the bitonic moves' heap without padding or stage (176763f): the tile-4096 and
# tile-16384 shapes and the default beside CUB at 2^26 (sort-tune), and one merge pass under Nsight Compute
# (the pipes' utilisation, warp states, occupancy).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s14a; gunzip -c build/exp/agpu-s14a.gz > $B && chmod +x $B
W=/tmp/s14a; rm -rf $W; mkdir -p $W
T4='sort/multiway type=u32;values=0;chunk=256;tile=4096;d=4'
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T4|$T16|baseline/cub-merge-sort type=u32" --out $W/tune ) > $W/tune.log 2>&1
$B bench --data $W/tune > $W/tune.txt 2>&1; cat $W/tune.txt | head -20
timeout 120 ncu -k regex:multiway_merge -s 2 -c 1 --section SpeedOfLight --section InstructionStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --csv --page details $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16" --reps 1 --out $W/ncu-run > $W/ncu-merge-16384-2e26.csv 2> $W/ncu.err
grep -iE 'Duration|Executed Ipc|Issue Slots|Registers Per|Occupancy|Block Limit|pipe|Stall|Eligible' $W/ncu-merge-16384-2e26.csv | awk -F'","' '{print $13" | "$14" | "$15}' | head -60
rm -rf $W/ncu-run
cd /tmp && tar czf $OUT/s14-a.tgz s14a
