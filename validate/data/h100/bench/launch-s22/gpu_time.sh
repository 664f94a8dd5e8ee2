#!/bin/sh
# The H100's own kernel durations (CUPTI gpu_time, ns) against the event-timed launch medians (time_ms) of the
# committed counter datasets, launch by launch (README.md, "The question"). From the repository root:
#   sh validate/data/h100/bench/launch-s22/gpu_time.sh
for d in rank scan stats micro; do
  awk -F, '$7 != "run" && ($9=="gpu_time" || $9=="time_ms") {k=$2"|"$7"|"$8; if ($9=="gpu_time") g[k]=$10/1000; else t[k]=$10*1000}
    END {for (k in g) if (k in t) printf "%-100s gpu %8.2f us  event %8.2f us  diff %7.2f\n", k, g[k], t[k], t[k]-g[k]}' \
    validate/data/h100/$d/measurements.csv | sort
done
