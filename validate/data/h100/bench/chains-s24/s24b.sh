#!/bin/bash
# Session 24 (validate/data/h100/bench/chains-s24): the micro-chains suite (micro/barriers, 0 to 512 barriers a
# thread, in blocks of 32, 256 and 1024 threads, at n = 256 and 132 x 256: one block, or one block an SM), timed by
# the current harness: what a chain of barriers costs a launch. Binary: build/gpu/agpu at this commit, gzipped to
# build/exp/agpu-s24b.gz.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s24b; gunzip -c build/exp/agpu-s24b.gz > $B && chmod +x $B
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && echo h200 || echo h100)
W=/tmp/s24b/$G; mkdir -p $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; lscpu | grep -E "Model name|^CPU\(s\)"; } >> $W/host.txt
( time timeout 400 $B validate --suite micro-chains --no-counters --reps 30 --out $W/micro-chains ) > $W/micro-chains.log 2>&1
echo "micro-chains: $(grep real $W/micro-chains.log)"
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >> $W/host.txt
cd /tmp && tar czf $OUT/s24b-$G.tgz s24b/$G
