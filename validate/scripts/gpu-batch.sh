#!/usr/bin/env bash
# Measures several suites on the GPU machine in one command, within one time
# budget, and packs everything into one archive (the device tool brings back
# at most 8 files):
#   validate/scripts/gpu-batch.sh OUTDIR [NAME=]SUITE[@OPTION...] ...
# e.g. gpu-batch.sh $OUT micro bench-stats=stats@--no-counters@--sizes=268435456
# (options after a suite are separated by @; the suite `calibrate` runs
# `agpu calibrate --out NAME`, the dataset and its timing.json). Writes
# OUTDIR/batch.tgz holding info.txt, sass.txt (the kernel layer's SASS check),
# cuobjdump.txt.gz (CUDA's own disassembly of agpu's kernels), batch.log and,
# per item, NAME/ (the dataset; NAME is the suite's name unless given) and
# NAME.log.
# The whole batch stops at AGPU_BATCH_SECONDS (default 540); a suite cut off
# keeps every run it finished, and the same command with @--resume completes it.
# Build the agpu it runs first, here: cmake --preset gpu && cmake --build --preset gpu
set -uo pipefail
out=${1:?usage: gpu-batch.sh OUTDIR SUITE[@OPTIONS] ...}
shift
cd "$(dirname "$0")/../.."
agpu=build/gpu/agpu
[ -x "$agpu" ] || { echo "gpu-batch: $agpu is missing: cmake --preset gpu && cmake --build --preset gpu" >&2; exit 2; }
cuda=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
work=$(mktemp -d)
deadline=$(( $(date +%s) + ${AGPU_BATCH_SECONDS:-540} ))

mkdir -p "$work/sass"
"$agpu" info > "$work/info.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,persistence_mode --format=csv >> "$work/info.txt" 2>&1
cmake -DNVCC="$cuda/bin/nvcc" -DCUOBJDUMP="$(command -v cuobjdump || echo "$cuda/bin/cuobjdump")" \
      -DSRC="$PWD" -DOUT="$work/sass" -P cmake/sass_compare.cmake > "$work/sass.txt" 2>&1
echo "sass check exit status: $?" >> "$work/sass.txt"

status=0
for spec in "$@"; do
  name_suite=${spec%%@*}
  suite=${name_suite#*=}
  name=${name_suite%%=*}
  opts=()
  case "$spec" in *@*) IFS=@ read -r -a opts <<< "${spec#*@}" ;; esac
  left=$(( deadline - $(date +%s) ))
  if [ "$left" -le 5 ]; then echo "gpu-batch: no time left for $suite" | tee -a "$work/batch.log"; status=124; continue; fi
  start=$(date +%s)
  if [ "$suite" = calibrate ]; then
    timeout -k 10 "$left" "$agpu" calibrate --out "$work/$name" "${opts[@]}" > "$work/$name.log" 2>&1
  else
    timeout -k 10 "$left" "$agpu" validate --suite "$suite" --out "$work/$name" "${opts[@]}" > "$work/$name.log" 2>&1
  fi
  rc=$?
  echo "gpu-batch: $name = $suite ${opts[*]}: exit $rc after $(( $(date +%s) - start )) s" | tee -a "$work/batch.log"
  tail -n 2 "$work/$name.log"
  [ "$rc" -ne 0 ] && status=$rc
done
rm -rf "$work/sass"
# CUDA's own disassembly of agpu's kernels, to check what `agpu sass` reads from an older nvdisasm.
cuobjdump=$(command -v cuobjdump || echo "$cuda/bin/cuobjdump")
"$cuobjdump" -sass "$agpu" 2>&1 | awk '/Function :/ { keep = index($0, "4agpu7kernels") > 0 } keep' | gzip > "$work/cuobjdump.txt.gz"
tar czf "$out/batch.tgz" -C "$work" .
exit "$status"
