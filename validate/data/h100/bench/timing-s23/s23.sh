#!/bin/bash
# Session 23 (validate/data/h100/bench/timing-s23): sizes the fit never saw, timed by the harness that the
# committed fit's datasets were timed by (events made once, every launch queued behind a held stream, held
# again after a copy or allocation: validate/README.md), where bench/timing-s13, timing-s19 and micro-s20 /
# micro-2e24-session11 were timed by the old one (its launch times held the host's event creation).
# The scan, rank and stats suites at their default sizes, 50 repetitions a run, as timing-s13; the micro suite
# at 10^5, 4.10^6 and 2^24 (the fit has it at 10^6 + 3 and 2^20 only). One call per GPU (H100, then H200);
# binary: build/gpu/agpu at this commit, gzipped to build/exp/agpu-s23.gz.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=/tmp/agpu-s23; gunzip -c build/exp/agpu-s23.gz > $B && chmod +x $B
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && echo h200 || echo h100)
W=/tmp/s23/$G; mkdir -p $W
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv; lscpu | grep -E "Model name|^CPU\(s\)"; } >> $W/host.txt
v() { local t=$1 name=$2; shift 2; ( time timeout $t $B validate "$@" --out $W/$name ) > $W/$name.log 2>&1; echo "$name: $(grep real $W/$name.log)"; }
v 120 scan --suite scan --no-counters --reps 50
v 150 rank --suite rank --no-counters --reps 50
v 150 stats --suite stats --no-counters --reps 50
v 120 micro --suite micro --sizes=100000,4000000,16777216 --no-counters
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv; } >> $W/host.txt
cd /tmp && tar czf $OUT/s23-$G.tgz s23/$G
