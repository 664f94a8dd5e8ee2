#!/bin/bash
# Session 14, device call B: one merge pass (the 3rd multiway_merge launch) of the tuned shape at 2^26 under
# Nsight Compute (pipes' utilisation, warp states, occupancy), binary of 176763f (as call A).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s14a; [ -x $B ] || { gunzip -c build/exp/agpu-s14a.gz > $B && chmod +x $B; }
W=/tmp/s14b; rm -rf $W; mkdir -p $W
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
timeout 200 ncu -k regex:multiway_merge -s 2 -c 1 --section SpeedOfLight --section InstructionStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --csv --page details $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16" --reps 10 --out $W/ncu-run > $W/ncu-merge-16384-2e26.csv 2> $W/ncu.err
tail -3 $W/ncu.err
awk -F'","' '{print $13" | "$14" | "$15}' $W/ncu-merge-16384-2e26.csv | head -120
rm -rf $W/ncu-run
cd /tmp && tar czf $OUT/s14-b.tgz s14b
