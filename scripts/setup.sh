#!/usr/bin/env bash
# Installs what agpu needs to build and test on Debian 12, and nothing else.
# Idempotent: packages already present are left alone; runs apt-get only when
# something is missing. CUDA is optional and never installed here: when nvcc is
# found (PATH or /usr/local/cuda) the GPU parts build too.
#   scripts/setup.sh --fuzz   also installs clang and libFuzzer (the fuzz preset)
set -euo pipefail

packages=(
  cmake ninja-build g++ git pkg-config   # build
  libboost-program-options-dev            # the agpu command line
  libboost-context-dev                    # simulator: one fiber per simulated GPU thread
  libeigen3-dev                           # fitting the time model (non-negative least squares)
  nlohmann-json3-dev                      # device files, datasets, versioned JSON output
  libgtest-dev libgmock-dev               # unit tests
  libbenchmark-dev                        # simulator and host benchmarks
)
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libclang-rt-14-dev)     # libFuzzer, ASan, UBSan runtimes for clang (validate/fuzz)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

nvcc_path=$(command -v nvcc || true)
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc_path" ]; then
  echo "setup: ok (CUDA found: $nvcc_path)" >&2
else
  echo "setup: ok (no CUDA toolkit: GPU kernels and measurement are left out of the build)" >&2
fi
