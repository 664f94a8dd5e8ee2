#!/bin/bash
# Session 19, device calls C (H200) and D (H100): the scan datasets measured again with the status words
# published by atomic exchange (kernels/scan/work_efficient.cuh), by the commands that made the committed ones
# (each dataset's provenance), and the scan suite at its default sizes with 50 repetitions (sizes the fit
# never sees). Argument: the device's short name (h100 or h200); the H100 also runs scan-tune.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
DEV=$1
B=/tmp/agpu-s19; gunzip -c build/exp/agpu-s19.gz > $B && chmod +x $B
W=/tmp/s19/$DEV; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $W/smi.txt
COUNTERS=""; [ "$DEV" = h200 ] && COUNTERS="--no-counters"
( time $B validate --suite scan --out $W/scan $COUNTERS --sizes=1048576,1000003 ) > $W/scan.log 2>&1; tail -2 $W/scan.log
( time $B validate --suite scan --out $W/bench-scan --no-counters --sizes=268435456 \
    --only='scan/work-efficient type=u32;kind=exclusive|baseline/cub-scan type=u32;kind=exclusive' ) > $W/bench-scan.log 2>&1
$B bench --data $W/bench-scan > $W/bench-scan.txt 2>&1; cat $W/bench-scan.txt
cd /tmp && tar czf $OUT/s19-$DEV-a.tgz s19/$DEV; cd - > /dev/null
if [ "$DEV" = h100 ]; then
  ( time $B validate --suite scan-tune --out $W/scan-tune --no-counters --sizes=67108864 ) > $W/scan-tune.log 2>&1
  $B bench --data $W/scan-tune > $W/scan-tune.txt 2>&1; head -20 $W/scan-tune.txt
fi
( time $B validate --suite scan --no-counters --reps 50 --out $W/timing ) > $W/timing.log 2>&1
$B bench --data $W/timing > $W/timing.txt 2>&1; head -24 $W/timing.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv >> $W/smi.txt
cd /tmp && tar czf $OUT/s19-$DEV-b.tgz s19/$DEV; cd - > /dev/null
