#!/usr/bin/env bash
# The fault paths of `agpu validate` on a real GPU, in one command:
#   validate/scripts/gpu-faults.sh OUTDIR
# SIGINT, SIGTERM and SIGKILL 12 s into the micro suite, each followed by
# --resume and `agpu compare` on the result; then a CUDA error (stats at 2^28
# while another process, gpu-hog.cu, holds all but 256 MB of the GPU's memory)
# followed by --resume with the memory free. OUTDIR/faults.log summarises each
# dataset's sessions and rows. Build build/gpu/agpu first; nvcc builds the hog.
set -u
W=${1:?usage: gpu-faults.sh OUTDIR}; mkdir -p "$W"; W=$(cd "$W" && pwd); L=$W/faults.log
cd "$(dirname "$0")/../.."
A=build/gpu/agpu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64
"${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -O2 -gencode=arch=compute_90,code=sm_90 -cudart static \
  validate/scripts/gpu-hog.cu -o "$W/hog" || exit 2
say() { echo "== $*" | tee -a "$L"; }
summ() { python3 - "$1" <<'PY' | tee -a "$L"
import json,sys,csv
d=sys.argv[1]
p=json.load(open(d+'/provenance.json'))
for s in p['sessions']:
    print('  session', s.get('status'), '| measured', s.get('runs_measured'), '| already', s.get('runs_already_complete'), '|', (s.get('reason') or '')[:200])
rows=list(csv.reader(open(d+'/measurements.csv')))
runs=set(r[1] for r in rows[1:])
comp=sum(1 for r in rows[1:] if r[6]=='run' and r[8]=='complete'); err=[r for r in rows[1:] if r[6]=='run' and r[8]=='error']
print('  rows', len(rows)-1, '| runs with rows', len(runs), '| run/complete', comp, '| run/error', len(err), *(['| first error:', err[0][9], err[0][11][:160]] if err else []))
PY
}
for sig in INT TERM KILL; do
  d=$W/sig$sig
  say "micro under SIG$sig after 12 s"
  $A validate --suite micro --out "$d" > "$d.log" 2>&1 & pid=$!
  sleep 12; kill -$sig $pid; wait $pid; echo "  exit $?" | tee -a "$L"; tail -n 2 "$d.log" | tee -a "$L"
  summ "$d"
  say "resume"
  $A validate --suite micro --out "$d" --resume >> "$d.log" 2>&1; echo "  exit $?" | tee -a "$L"; tail -n 1 "$d.log" | tee -a "$L"
  summ "$d"
  $A compare --data "$d" > "$d.compare.txt" 2>&1; echo "  agpu compare exit $? ($(wc -l < "$d.compare.txt") lines)" | tee -a "$L"
done
d=$W/cudaerr
say "stats 2^28 while another process holds the GPU's memory"
"$W/hog" 256 > "$W/hog.log" 2>&1 & hog=$!; sleep 4; cat "$W/hog.log" | tee -a "$L"
$A validate --suite stats --out "$d" --no-counters --sizes 268435456 --only "stats/fused type=float|baseline/cub-reduce-sum type=float" > "$d.log" 2>&1; echo "  exit $?" | tee -a "$L"; tail -n 3 "$d.log" | tee -a "$L"
kill $hog; wait $hog 2>/dev/null
summ "$d"
say "resume with the memory free"
$A validate --suite stats --out "$d" --no-counters --sizes 268435456 --only "stats/fused type=float|baseline/cub-reduce-sum type=float" --resume >> "$d.log" 2>&1; echo "  exit $?" | tee -a "$L"; tail -n 1 "$d.log" | tee -a "$L"
summ "$d"
