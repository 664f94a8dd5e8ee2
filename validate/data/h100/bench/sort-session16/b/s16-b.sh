#!/bin/bash
# Session 16, device call B: the split passes' range count. range_chunks (model/include/agpu/model/sort_plan.hpp:
# a range takes about range_chunks chunks of every run, so at most L/(range_chunks·C) ranges a group) 8 (the
# commit, call A's binary), 16 and 32 (binaries built with only that constant changed): the tuned shape and
# cub::DeviceMergeSort at 2^26 and 2^28, each binary in the same run.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
W=/tmp/s16b; rm -rf $W; mkdir -p $W
T16='sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
for n in 67108864 268435456; do
  for v in s16a s16b-rc16 s16b-rc32; do
    B=/tmp/agpu-$v; [ -x $B ] || { gunzip -c build/exp/agpu-$v.gz > $B && chmod +x $B; }
    $B validate --suite sort-bench --no-counters --sizes $n --only "$T16|baseline/cub-merge-sort type=u32" --out $W/$v-$n > $W/$v-$n.log 2>&1
    echo "== $v n=$n"; $B bench --data $W/$v-$n 2>&1 | sed -n 3,4p
  done
done
cd /tmp && tar czf $OUT/s16-b.tgz s16b
