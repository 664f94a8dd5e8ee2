#!/bin/bash
# Session 19, device calls E (H100) and F (H200): the scan suite at its default sizes again (50 repetitions)
# after items=auto gave u64 12 items a thread (96 bytes, as u32's 24) instead of 24; on the H100 also the
# counter suite at 2^20 and 10^6 + 3. Argument: h100 or h200.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
DEV=$1
B=/tmp/agpu-s19e; gunzip -c build/exp/agpu-s19e.gz > $B && chmod +x $B
W=/tmp/s19e/$DEV; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
( time $B validate --suite scan --no-counters --reps 50 --out $W/timing ) > $W/timing.log 2>&1
$B bench --data $W/timing > $W/timing.txt 2>&1; grep -E "u64" $W/timing.txt
if [ "$DEV" = h100 ]; then
  ( time $B validate --suite scan --out $W/scan --sizes=1048576,1000003 ) > $W/scan.log 2>&1; tail -2 $W/scan.log
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $W/smi.txt
cd /tmp && tar czf $OUT/s19e-$DEV.tgz s19e/$DEV; cd - > /dev/null
