#!/usr/bin/env bash
# Builds and runs offset.cu under Nsight Compute on the GPU machine:
#   validate/experiments/shared-offset/run.sh OUTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o "$out/offset" "$here/offset.cu"
cuobjdump --dump-sass "$out/offset" > "$out/offset.sass" 2>&1 || true
"$out/offset" > "$out/launches.txt"
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts.sum
ncu --clock-control none --metrics "$metrics" --csv --print-units base "$out/offset" > "$out/ncu.csv" 2> "$out/ncu.err" || true
# the per-instruction ideal against actual wavefronts (source counters) for the first two launches
ncu --clock-control none --section SourceCounters --section MemoryWorkloadAnalysis_Tables --launch-count 2 \
    --print-details all "$out/offset" > "$out/ncu-source.txt" 2>&1 || true
ncu --query-metrics --chip gh100 2>/dev/null | grep -i "shared" > "$out/ncu-shared-metrics.txt" || true
