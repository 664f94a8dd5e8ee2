#!/bin/bash
# Session 16, device call G (binary of df1d978, as call F): Nsight Compute's SASS counts of block_sort at 2^26
# (the tuned shape), its rounds merged by keys_merge, against call A's (serial_merge).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s16g; gunzip -c build/exp/agpu-s16f.gz > $B && chmod +x $B
W=/tmp/s16g; rm -rf $W; mkdir -p $W
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
( time timeout 200 ncu -k regex:block_sort -s 1 -c 1 --section SourceCounters --page source --print-source sass --csv $B validate --suite sort-tune --no-counters --sizes 67108864 --only "$T16" --reps 10 --out $W/run > $W/sass-block_sort-2e26.csv ) 2> $W/sass.err
rm -rf $W/run; gzip $W/sass-block_sort-2e26.csv; tail -3 $W/sass.err
cd /tmp && tar czf $OUT/s16-g.tgz s16g
