#!/bin/bash
# Session 15, device call F (binary of 0c8f93d, as call E): Nsight Compute's view of our chained_scan at 2^26
# (items 8 and 24, 512 threads), the profile session 13's call A lost, beside CUB's scan and a copy-rate
# reference (stats/fused's reduction at 2^26 float, which streams at the copy's rate).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s15f; gunzip -c build/exp/agpu-s15e.gz > $B && chmod +x $B
W=/tmp/s15f; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
SEC="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats --section SourceCounters"
n=0
for only in 'scan/work-efficient type=u32;kind=exclusive;threads=512;items=8;backoff=0' 'scan/work-efficient type=u32;kind=exclusive;threads=512;items=24;backoff=0' 'baseline/cub-scan type=u32;kind=exclusive'; do
  n=$((n+1)); tag=scan$n
  echo "$tag: $only" >> $W/tags.txt
  timeout 150 ncu -k 'regex:chained_scan|DeviceScanKernel' -s 2 -c 1 $SEC --csv --page details $B validate --suite scan-tune --no-counters --sizes 67108864 --only "$only" --reps 10 --out $W/run-$tag > $W/ncu-$tag.csv 2> $W/ncu-$tag.err
  rm -rf $W/run-$tag
  echo "== $tag"; grep -E '"(DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Duration|No Eligible|Warp Cycles Per Issued Instruction)"' $W/ncu-$tag.csv | awk -F'","' '{print $13" | "$14" | "$15}' | head -12
done
echo "fused: stats/fused type=float" >> $W/tags.txt
timeout 150 ncu -k 'regex:fused_partials' -s 2 -c 1 $SEC --csv --page details $B validate --suite stats --no-counters --sizes 67108864 --only 'stats/fused type=float' --reps 10 --out $W/run-fused > $W/ncu-fused.csv 2> $W/ncu-fused.err
rm -rf $W/run-fused
echo "== fused"; grep -E '"(DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Duration|No Eligible|Warp Cycles Per Issued Instruction)"' $W/ncu-fused.csv | awk -F'","' '{print $13" | "$14" | "$15}' | head -12
tail -3 $W/ncu-fused.err
cd /tmp && tar czf $OUT/s15-f.tgz s15f
