#!/usr/bin/env bash
# Calibrates the GPU machine's device in one command (agpu calibrate: the
# probes' dataset and the device timing derived from it) and keeps CUDA's own
# disassembly of the program beside it, to check the SASS the probes and
# `agpu sass` read:
#   validate/scripts/calibrate-on-gpu.sh OUTDIR [agpu calibrate options...]
# Writes OUTDIR/calibrate.tgz, which holds info.txt, calibrate.log, sass.txt
# (cuobjdump -sass build/gpu/agpu; left out if the archive would pass the
# tool's 16 MiB), sass-probes.txt (its probes) and DEVICE/ (the dataset and its
# timing.json; DEVICE is h100, h200, ... from the GPU's name), and a copy of
# the timing as OUTDIR/DEVICE-timing.json: two files, within the device
# tool's eight.
# The calibration stops at AGPU_CALIBRATE_SECONDS (default 300); one cut off
# keeps every run it finished, and the same command with --resume completes it.
# Build the agpu it runs first, here: cmake --preset gpu && cmake --build --preset gpu
set -uo pipefail
out=${1:?usage: calibrate-on-gpu.sh OUTDIR [agpu calibrate options]}
shift
cd "$(dirname "$0")/../.."
agpu=build/gpu/agpu
[ -x "$agpu" ] || { echo "calibrate-on-gpu: $agpu is missing: cmake --preset gpu && cmake --build --preset gpu" >&2; exit 2; }
cuda=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$out"
work=$(mktemp -d)

"$agpu" info > "$work/info.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,persistence_mode,power.limit \
  --format=csv >> "$work/info.txt" 2>&1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
device=$(printf '%s' "$gpu" | grep -o -i -E '[ahv][0-9]{3}' | head -n 1 | tr '[:upper:]' '[:lower:]')
device=${device:-gpu}
echo "calibrate-on-gpu: $gpu -> $device" | tee -a "$work/info.txt"

start=$(date +%s)
timeout -k 10 "${AGPU_CALIBRATE_SECONDS:-300}" "$agpu" calibrate --out "$work/$device" "$@" > "$work/calibrate.log" 2>&1
status=$?
echo "calibrate-on-gpu: agpu calibrate exit $status after $(( $(date +%s) - start )) s" | tee -a "$work/calibrate.log"
tail -n 30 "$work/calibrate.log"

# CUDA's own disassembly of every kernel in the program (the probes' loops
# among them), against which `agpu sass` and calibrate.hpp's table are checked.
cuobjdump=$(command -v cuobjdump || echo "$cuda/bin/cuobjdump")
"$cuobjdump" -sass "$agpu" > "$work/sass.txt" 2>&1
echo "cuobjdump exit status: $?" >> "$work/info.txt"
# The probes' functions alone (kernels/probes/probes.gpu.cu), small enough to read.
awk '/Function :/ { keep = index($0, "6probes") > 0 } keep' "$work/sass.txt" > "$work/sass-probes.txt"

[ -f "$work/$device/timing.json" ] && cp "$work/$device/timing.json" "$out/$device-timing.json"
tar czf "$out/calibrate.tgz" -C "$work" .
# The device tool brings back files of at most 16 MiB: without the whole
# program's SASS if it does not fit.
if [ "$(stat -c %s "$out/calibrate.tgz")" -gt $(( 15 * 1024 * 1024 )) ]; then
  echo "calibrate-on-gpu: sass.txt left out (the archive was over 15 MiB); sass-probes.txt is in it" | tee -a "$work/info.txt"
  tar czf "$out/calibrate.tgz" -C "$work" --exclude=./sass.txt .
fi
rm -rf "$work"
exit "$status"
