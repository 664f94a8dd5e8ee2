#!/usr/bin/env bash
# Installs what agpu needs to build and test on Debian 12, and nothing else.
# Idempotent: packages already present are left alone; runs apt-get only when
# something is missing, and npm only when reports/web/node_modules is missing
# or older than its lock file. CUDA is optional and never installed here: when
# nvcc is found (PATH or /usr/local/cuda) the GPU parts build too.
#
#   scripts/setup.sh           the build, and the report's JavaScript (npm ci)
#   scripts/setup.sh --tests   also what only the tests need: Chromium, which
#                              opens the report headless and checks its charts,
#                              and Slurm with munge, which the sweep test starts
#   scripts/setup.sh --fuzz    also clang and libFuzzer (the fuzz preset)
set -euo pipefail

with_tests=0 with_fuzz=0
for arg in "$@"; do
  case "$arg" in
    --tests) with_tests=1 ;;
    --fuzz) with_fuzz=1 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown option '$arg' (known: --tests, --fuzz)" >&2; exit 2 ;;
  esac
done

packages=(
  cmake ninja-build g++ git pkg-config   # build
  libboost-program-options-dev            # the agpu command line
  libboost-context-dev                    # simulator: one fiber per simulated GPU thread
  libeigen3-dev                           # fitting the time model (non-negative least squares)
  nlohmann-json3-dev                      # device files, datasets, versioned JSON output
  zlib1g-dev                              # packed datasets (measurements.csv.gz)
  libssl-dev                              # agpu sweep: SHA-256 cache keys (libcrypto)
  libtomlplusplus-dev                     # agpu sweep: TOML specs (toml++, used header-only)
  libopenmpi-dev openmpi-bin              # agpu sweep across MPI ranks (mpirun; srun --mpi=pmix)
  libgtest-dev libgmock-dev               # unit tests
  libbenchmark-dev                        # simulator and host benchmarks
)
# npm installs the report's Vega-Lite renderer from the lock file; Debian's
# when there is none on PATH.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
[ "$with_tests" -eq 1 ] && packages+=(chromium)  # the report's rendering test
[ "$with_tests" -eq 1 ] && packages+=(slurm-wlm munge)  # agpu sweep under a single-node Slurm (sweep/tests)
[ "$with_fuzz" -eq 1 ] && packages+=(clang libclang-rt-14-dev)  # libFuzzer, ASan, UBSan runtimes for clang (validate/fuzz)

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

# The JavaScript that agpu report inlines (vega, vega-lite, vega-embed), at
# the versions of the committed lock file.
web="$(cd "$(dirname "$0")/.." && pwd)/reports/web"
if [ ! -f "$web/node_modules/.package-lock.json" ] || [ "$web/package-lock.json" -nt "$web/node_modules/.package-lock.json" ]; then
  echo "setup: installing the report's JavaScript (npm ci in reports/web)" >&2
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

nvcc_path=$(command -v nvcc || true)
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc_path" ]; then
  echo "setup: ok (CUDA found: $nvcc_path)" >&2
else
  echo "setup: ok (no CUDA toolkit: GPU kernels and measurement are left out of the build)" >&2
fi
