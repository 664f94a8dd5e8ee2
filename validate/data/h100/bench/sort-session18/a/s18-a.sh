#!/bin/bash
# Session 18, device call A (binary of 63b2869: chunk=512 for the bitonic moves): sort-tune at 2^26 and 2^28 for
# the tuned shape (chunk 256), chunk 512 and CUB's merge sort; the merge kernels' SASS with line info; Nsight
# Compute's SASS counts of the third merge pass at 2^26 (chunk 256 and 512) and its scheduler/occupancy sections.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
B=/tmp/agpu-s18a; gunzip -c build/exp/agpu-s18a.gz > $B && chmod +x $B
W=/tmp/s18a; rm -rf $W; mkdir -p $W
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
T512='sort/multiway type=u32;values=0;chunk=512;tile=16384;d=4'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
for n in 67108864 268435456; do
  ( time $B validate --suite sort-tune --no-counters --sizes $n --only "$T16|$T512|baseline/cub-merge-sort type=u32" --out $W/tune-$n ) > $W/tune-$n.log 2>&1
  $B bench --data $W/tune-$n > $W/tune-$n.txt 2>&1; head -6 $W/tune-$n.txt; tail -3 $W/tune-$n.log
done
cd /tmp && tar czf $OUT/s18-a1.tgz s18a/tune* s18a/smi.txt; cd - > /dev/null
which cuobjdump nvdisasm ncu > $W/tools.txt 2>&1
( mkdir -p $W/cubin && cd $W/cubin && cuobjdump -xelf all $B > /dev/null 2>&1; ls -la ) > $W/cubin.txt 2>&1
for f in $W/cubin/*.cubin; do
  if strings $f | grep -q multiway_merge; then nvdisasm -g -c $f > $W/sass-lines-$(basename $f .cubin).txt 2>&1; gzip $W/sass-lines-*.txt 2>/dev/null; fi
done
rm -rf $W/cubin; ls -la $W | tail -5
for c in 256 512; do
  T="sort/multiway type=u32;values=0;chunk=$c;tile=16384;d=4"
  ( timeout 200 ncu -k regex:multiway_merge -s 2 -c 1 --section SourceCounters --page source --print-source sass --csv $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T" --reps 10 --out $W/run-$c > $W/sass-merge-$c.csv ) 2> $W/sass-$c.err
  rm -rf $W/run-$c; gzip $W/sass-merge-$c.csv; tail -2 $W/sass-$c.err
  ( timeout 200 ncu -k regex:multiway_merge -s 2 -c 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats --csv $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T" --reps 10 --out $W/run2-$c > $W/ncu-merge-$c.csv ) 2> $W/ncu-$c.err
  rm -rf $W/run2-$c; tail -2 $W/ncu-$c.err
done
cd /tmp && tar czf $OUT/s18-a2.tgz s18a/sass* s18a/ncu* s18a/tools.txt s18a/cubin.txt
