#!/bin/bash
# Session 13, device call A: the counter suites' times again with 50 repetitions (scan, rank, stats), and
# Nsight Compute's view of the 2^26 scans (ours at items 8 and 24, CUB's).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s13a; gunzip -c build/exp/agpu-s13.gz > $B && chmod +x $B
W=/tmp/s13a; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
for s in scan rank stats; do
  ( time $B validate --suite $s --no-counters --reps 50 --out $W/$s ) > $W/$s.log 2>&1
  $B bench --data $W/$s > $W/$s.txt 2>&1; tail -3 $W/$s.txt
done
SEC="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats"
for only in 'scan/work-efficient type=u32;kind=exclusive;threads=512;items=8;backoff=0' 'scan/work-efficient type=u32;kind=exclusive;threads=512;items=24;backoff=0' 'baseline/cub-scan type=u32;kind=exclusive'; do
  tag=$(echo "$only" | tr -c 'a-z0-9' '_' | cut -c1-60)
  timeout 120 ncu -k 'regex:chained_scan|DeviceScanKernel' -s 2 -c 1 $SEC --csv --page details $B validate --suite scan-tune --no-counters --sizes 67108864 --only "$only" --reps 10 --out $W/ncu-$tag > $W/ncu-$tag.csv 2> $W/ncu-$tag.err
  grep -E 'DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Duration|Memory Throughput|Block Limit' $W/ncu-$tag.csv | cut -c1-220 | head -20
done
cd /tmp && tar czf $OUT/s13-a.tgz s13a
