#!/bin/bash
# Session 18, device call B: binary b (7934879: whole-move fast paths, bitonic_merge's loads tested only on a
# short ring and its count summed by one reduce) against b0 (7934879 with bitonic_merge's loads and ballots as
# before: the fast paths alone), sort-tune at 2^26 (and b at 2^28) against CUB's merge sort; Nsight Compute's
# sections and SASS counts of b's third merge pass at 2^26; b's sort counters suite (checks and counters).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
W=/tmp/s18b; rm -rf $W; mkdir -p $W
for v in b0 b; do gunzip -c build/exp/agpu-s18$v.gz > /tmp/agpu-$v && chmod +x /tmp/agpu-$v; done
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
for v in b0 b; do
  ( time /tmp/agpu-$v validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16|baseline/cub-merge-sort type=u32" --out $W/tune-$v-67108864 ) > $W/tune-$v-67108864.log 2>&1
  /tmp/agpu-$v bench --data $W/tune-$v-67108864 > $W/tune-$v-67108864.txt 2>&1; echo $v; head -4 $W/tune-$v-67108864.txt
done
( time /tmp/agpu-b validate --suite sort-tune --no-counters --sizes 268435456 --only "$T16|baseline/cub-merge-sort type=u32" --out $W/tune-b-268435456 ) > $W/tune-b-268435456.log 2>&1
/tmp/agpu-b bench --data $W/tune-b-268435456 > $W/tune-b-268435456.txt 2>&1; head -4 $W/tune-b-268435456.txt
cd /tmp && tar czf $OUT/s18-b1.tgz s18b/tune* s18b/smi.txt; cd - > /dev/null
( timeout 150 ncu -k regex:multiway_merge -s 2 -c 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats --csv /tmp/agpu-b validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16" --reps 10 --out $W/run2 > $W/ncu-merge-b.csv ) 2> $W/ncu-b.err
rm -rf $W/run2; tail -1 $W/ncu-b.err
( timeout 150 ncu -k regex:multiway_merge -s 2 -c 1 --section SourceCounters --page source --print-source sass --csv /tmp/agpu-b validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16" --reps 10 --out $W/run > $W/sass-merge-b.csv ) 2> $W/sass-b.err
rm -rf $W/run; gzip $W/sass-merge-b.csv; tail -1 $W/sass-b.err
cd /tmp && tar czf $OUT/s18-b2.tgz s18b/ncu* s18b/sass*; cd - > /dev/null
( time /tmp/agpu-b validate --suite sort --out $W/sort ) > $W/sort.log 2>&1; tail -3 $W/sort.log
cd /tmp && tar czf $OUT/s18-b3.tgz s18b/sort*
