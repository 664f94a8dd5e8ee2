#!/bin/bash
# Session 13, device call D: sort-bench with the tuned shape at tile 16384 (time at 2^26 and 2^28), and the
# sectors goal's counters dataset at 2^26 (the tuned shape and cub::DeviceMergeSort with counters).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s13d; gunzip -c build/exp/agpu-s13d.gz > $B && chmod +x $B
W=/tmp/s13d; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite sort-bench --no-counters --sizes 67108864 --out $W/bench-2e26 ) > $W/bench-2e26.log 2>&1
$B bench --data $W/bench-2e26 > $W/bench-2e26.txt 2>&1; head -12 $W/bench-2e26.txt
( time $B validate --suite sort-bench --sizes 67108864 --only 'sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4|baseline/cub-merge-sort type=u32' --out $W/sectors ) > $W/sectors.log 2>&1
$B bench --data $W/sectors > $W/sectors.txt 2>&1; tail -6 $W/sectors.txt
( time $B validate --suite sort-bench --no-counters --sizes 268435456 --out $W/bench-2e28 ) > $W/bench-2e28.log 2>&1
$B bench --data $W/bench-2e28 > $W/bench-2e28.txt 2>&1; head -12 $W/bench-2e28.txt
cd /tmp && tar czf $OUT/s13-d.tgz s13d
