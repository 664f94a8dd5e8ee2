#!/bin/bash
# Session 24 (validate/data/h100/bench/blocks-s24): the micro-blocks suite (micro/barriers, count 0 and 4, in
# blocks of 32 to 1024 threads at 2^20, 4.10^6 and 2^24 threads), timed by the current harness: does a short-lived
# block cost per block, per warp, or per wave of the blocks an SM holds? Binary: build/gpu/agpu at this commit,
# gzipped to build/exp/agpu-s24.gz.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s24; gunzip -c build/exp/agpu-s24.gz > $B && chmod +x $B
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && echo h200 || echo h100)
W=/tmp/s24/$G; mkdir -p $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; lscpu | grep -E "Model name|^CPU\(s\)"; } >> $W/host.txt
( time timeout 400 $B validate --suite micro-blocks --no-counters --reps 30 --out $W/micro-blocks ) > $W/micro-blocks.log 2>&1
echo "micro-blocks: $(grep real $W/micro-blocks.log)"
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >> $W/host.txt
cd /tmp && tar czf $OUT/s24-$G.tgz s24/$G
