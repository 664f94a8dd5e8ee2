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
#                              clang-format, which checks the sources' layout,
#                              and Slurm with munge, which the sweep test starts
#   scripts/setup.sh --fuzz    also clang and libFuzzer (the fuzz preset)
#
# With --tests, and where the CUDA toolkit has no nvdisasm of its own, it also
# puts Debian's nvdisasm (non-free, CUDA 11.8) in /opt/agpu-tools/bin: the test
# that the kernels' committed SASS profiles are current disassembles them.
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
[ "$with_tests" -eq 1 ] && packages+=(chromium clang-format)  # the report's rendering test; the layout check
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

# nvdisasm, for the SASS profiles' test: the toolkit's own where it has one,
# else Debian's, unpacked from its package (only the disassembler is used).
install_nvdisasm() {
  local dir=/opt/agpu-tools/bin
  [ -x "$dir/nvdisasm" ] && return 0
  local tmp
  tmp=$(mktemp -d)
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
  echo "deb http://deb.debian.org/debian bookworm non-free" > "$tmp/sources.list"
  local apt_opts=(-o Dir::Etc::SourceList="$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
                  -o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache" -o APT::Sandbox::User=root)
  echo "setup: installing nvdisasm (Debian non-free nvidia-cuda-toolkit, the disassembler only)" >&2
  if (cd "$tmp" && apt-get "${apt_opts[@]}" update -qq && apt-get "${apt_opts[@]}" download nvidia-cuda-toolkit -qq) \
      >/dev/null 2>&1; then
    dpkg-deb -x "$tmp"/nvidia-cuda-toolkit_*.deb "$tmp/x"
    $sudo mkdir -p "$dir"
    $sudo install -m 0755 "$tmp/x/usr/bin/nvdisasm" "$dir/nvdisasm"
  else
    echo "setup: could not fetch nvdisasm: the SASS profiles' test will skip" >&2
  fi
  rm -rf "$tmp"
}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ "$with_tests" -eq 1 ] && ! command -v nvdisasm >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvdisasm ]; then
  install_nvdisasm
fi

nvcc_path=$(command -v nvcc || true)
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc_path" ]; then
  echo "setup: ok (CUDA found: $nvcc_path)" >&2
else
  echo "setup: ok (no CUDA toolkit: GPU kernels and measurement are left out of the build)" >&2
fi
