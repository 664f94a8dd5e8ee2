#!/usr/bin/env bash
# Runs every kernel of every algorithm (the suites' entries, baselines
# included) under compute-sanitizer's memcheck, racecheck, initcheck and
# synccheck at small and odd sizes, on the GPU machine, in one command:
#   validate/scripts/sanitize.sh OUTDIR [TOOL ...] [-- SUITE ...]
# (default: every tool, every suite below). Each run is `agpu validate` with
# --no-counters --warmup 0 --reps 10 (every repetition is checked against the
# CPU reference too). Writes OUTDIR/TOOL/SUITE.log (the sanitizer's report and
# agpu's progress) and OUTDIR/summary.tsv: tool, suite, sizes, exit status,
# the sanitizer's ERROR SUMMARY, seconds; and OUTDIR/runs.tsv: per run (the
# progress line agpu prints after it) the sanitizer reports that came before
# it, so a report names its algorithm and parameters. The whole run stops at
# AGPU_SANITIZE_SECONDS (default 540); items not reached are listed as
# "not run". Build the agpu it runs first: cmake --preset gpu && cmake --build --preset gpu
set -uo pipefail
out=${1:?usage: sanitize.sh OUTDIR [TOOL ...] [-- SUITE ...]}
shift
tools=() suites=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do tools+=("$1"); shift; done
[ $# -gt 0 ] && shift
suites=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck synccheck initcheck racecheck)
cd "$(dirname "$0")/../.."
agpu=$PWD/build/gpu/agpu
[ -x "$agpu" ] || { echo "sanitize: $agpu is missing: cmake --preset gpu && cmake --build --preset gpu" >&2; exit 2; }
cuda=${CUDA_HOME:-/usr/local/cuda}
cs=$(command -v compute-sanitizer || echo "$cuda/bin/compute-sanitizer")
[ -x "$cs" ] || { echo "sanitize: compute-sanitizer not found (looked on PATH and in $cuda/bin)" >&2; exit 3; }
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# Small sizes and odd ones (partial tiles, blocks and words) per suite.
declare -A sizes=(
  [micro]=4096,1003 [latency]=1000,4099 [stats]=1000,65537 [scan]=1000,65537 [rank]=4099,100003
  [apsp]=100,250 [sort]=1000,100003)
# racecheck tracks every shared access (about 100x slower): the sort suite is
# measured on its own kernels only (not the CUB baselines) at 1000 and 9973
# (10 runs of 1024: one merge pass), and apsp at 100 only (padded for every t).
declare -A race_sizes=([sort]=1000,9973 [apsp]=100 [apsp-wide]=250)
# apsp-wide: the apsp suite again where the t = 128 lookahead launches (flags
# between blocks, the pivot closure in registers, F = 2 regions) and the
# double-buffered staging of interior regions run: n = 1000 (8 tiles of 128;
# racecheck: 250, 2 tiles), the variants that have them.
sizes[apsp-wide]=1000
declare -A suite_of=([apsp-wide]=apsp)
declare -A only_of=([apsp-wide]="apsp/dpx t=128;width=32;lookahead=2|apsp/dpx t=128;width=32;lookahead=0|apsp/blocked t=64;method=A")
declare -A race_only=([sort]="sort/multiway type=u32;values=0|sort/multiway type=u64;values=1|sort/multiway type=float;values=1|sort/multiway type=u32;values=1;input=few|sort/multiway type=u32;values=0;parts=1|sort/pairwise type=u32;values=0|sort/bitonic type=u32")
[ ${#suites[@]} -eq 0 ] && suites=(micro latency stats scan rank apsp apsp-wide sort)

mkdir -p "$out"
summary="$out/summary.tsv"
[ -f "$summary" ] || printf 'tool\tsuite\tsizes\texit\tsanitizer\tseconds\n' > "$summary"
runs="$out/runs.tsv"
[ -f "$runs" ] || printf 'tool\tsuite\trun\treports\n' > "$runs"
deadline=$(( $(date +%s) + ${AGPU_SANITIZE_SECONDS:-540} ))
work=$(mktemp -d)
status=0
for tool in "${tools[@]}"; do
  mkdir -p "$out/$tool"
  for suite in "${suites[@]}"; do
    sz=${sizes[$suite]:?sanitize: no sizes for suite $suite}
    only=()
    [ -n "${only_of[$suite]:-}" ] && only=(--only "${only_of[$suite]}")
    if [ "$tool" = racecheck ]; then
      [ -n "${race_sizes[$suite]:-}" ] && sz=${race_sizes[$suite]}
      [ -n "${race_only[$suite]:-}" ] && only=(--only "${race_only[$suite]}")
    fi
    left=$(( deadline - $(date +%s) ))
    if [ "$left" -le 5 ]; then printf '%s\t%s\t%s\t-\tnot run (time)\t0\n' "$tool" "$suite" "$sz" >> "$summary"; status=124; continue; fi
    log="$out/$tool/$suite.log"
    start=$(date +%s)
    timeout -k 10 "$left" "$cs" --tool "$tool" --error-exitcode 9 --print-limit 100000 \
      "$agpu" validate --suite "${suite_of[$suite]:-$suite}" --sizes "$sz" --no-counters --warmup 0 --reps 10 \
      --out "$work/$tool-$suite" "${only[@]}" > "$log" 2>&1
    rc=$?
    awk -v tool="$tool" -v suite="$suite" '
      /^========= (Error|Warning|Invalid|Uninitialized|Barrier|Program hit)/ { c++ }
      /^\[[0-9]+\/[0-9]+\] / { run = $0; sub(/^\[[0-9]+\/[0-9]+\] /, "", run); sub(/ seed=.*/, "", run);
                              printf "%s\t%s\t%s\t%d\n", tool, suite, run, c; c = 0 }' "$log" >> "$runs"
    errs=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1 | sed 's/^========= //')
    [ -n "$errs" ] || errs="no summary"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$suite" "$sz" "$rc" "$errs" "$(( $(date +%s) - start ))" | tee -a "$summary"
    [ "$rc" -ne 0 ] && status=$rc
  done
done
rm -rf "$work"
exit "$status"
