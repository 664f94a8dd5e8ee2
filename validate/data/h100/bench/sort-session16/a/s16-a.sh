#!/bin/bash
# Session 16, device call A (binary of 7cd832f, kernels as session 15's call E): sort-bench at 2^20, 2^22
# and 2^24 with every baseline (the range below sort-r11's 2^26 and 2^28), and Nsight Compute's SASS
# counts of the tuned shape's third merge pass and of its block_sort at 2^26 (where the instructions go).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s16a; gunzip -c build/exp/agpu-s16a.gz > $B && chmod +x $B
W=/tmp/s16a; rm -rf $W; mkdir -p $W
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite sort-bench --no-counters --sizes 1048576,4194304,16777216 --out $W/bench-small ) > $W/bench-small.log 2>&1
$B bench --data $W/bench-small > $W/bench-small.txt 2>&1; head -24 $W/bench-small.txt
cd /tmp && tar czf $OUT/s16-a1.tgz s16a; cd - > /dev/null
for k in multiway_merge block_sort; do
  s=2; [ $k = block_sort ] && s=1
  ( time timeout 200 ncu -k regex:$k -s $s -c 1 --section SourceCounters --page source --print-source sass --csv $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16" --reps 10 --out $W/run-$k > $W/sass-$k-2e26.csv ) 2> $W/sass-$k.err
  rm -rf $W/run-$k; gzip $W/sass-$k-2e26.csv; tail -3 $W/sass-$k.err
done
cd /tmp && tar czf $OUT/s16-a2.tgz s16a/sass* s16a/smi.txt
