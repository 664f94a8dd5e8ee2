#!/usr/bin/env bash
# Measures one suite on the GPU machine in one command, and checks the kernel
# layer's SASS there (that machine has cuobjdump):
#   validate/scripts/measure-on-gpu.sh SUITE OUTDIR [agpu validate options...]
# The GPU machines have no Boost, so the agpu that runs there is built here
# first with static Boost:  cmake --preset gpu && cmake --build --preset gpu
# and carried along (build/gpu/agpu). Writes OUTDIR/info.txt, OUTDIR/sass.txt,
# OUTDIR/sass_probe.sass, OUTDIR/validate.log and the dataset OUTDIR/SUITE/.
set -uo pipefail
suite=${1:?usage: measure-on-gpu.sh SUITE OUTDIR [options]}
out=${2:?usage: measure-on-gpu.sh SUITE OUTDIR [options]}
shift 2
cd "$(dirname "$0")/../.."
agpu=build/gpu/agpu
if [ ! -x "$agpu" ]; then
  echo "measure-on-gpu: $agpu is missing: build it with cmake --preset gpu && cmake --build --preset gpu" >&2
  exit 2
fi
cuda=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$out"

"$agpu" info > "$out/info.txt" 2>&1
cat "$out/info.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,persistence_mode --format=csv >> "$out/info.txt" 2>&1

# The kernel layer is free: SASS through the layer equals the hand-written kernel's.
sass_tmp=$(mktemp -d)
cmake -DNVCC="$cuda/bin/nvcc" -DCUOBJDUMP="$(command -v cuobjdump || echo "$cuda/bin/cuobjdump")" \
      -DSRC="$PWD" -DOUT="$sass_tmp" -P cmake/sass_compare.cmake > "$out/sass.txt" 2>&1
echo "sass check exit status: $?" >> "$out/sass.txt"
cp "$sass_tmp/sass_probe.sass" "$out/" 2>/dev/null
tail -n 3 "$out/sass.txt"

# Rows are appended as each run finishes: a timeout keeps what was measured,
# and the same command with --resume completes it.
timeout -k 10 "${AGPU_MEASURE_TIMEOUT:-480}" "$agpu" validate --suite "$suite" --out "$out/$suite" "$@" 2>&1 | tee "$out/validate.log"
exit "${PIPESTATUS[0]}"
