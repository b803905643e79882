#!/usr/bin/env bash
# The modelled share of the DRAM roofline of every bundle at 1 to 16384 rows, on H200 (sm_90
# SASS) and B200 (sm_100a SASS), without a GPU: the table in docs/performance.md ("Modelled
# share of the roofline"). Compiles each bundle for both architectures with nvcc (cached by
# solbench.nvcc_cache) and disassembles it with nvdisasm.
# Usage: bench/perf_model.sh [BUNDLE...]   (extra options: LATENCY_NS=800 FIXED_NS=2000)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 0 ] && set -- submissions/*/
PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} python3 -m solbench.perf_model "$@" \
    --latency-ns "${LATENCY_NS:-800}" --fixed-ns "${FIXED_NS:-2000}" \
    2> >(grep -v "No CUDA runtime is found" >&2) # torch warns on a machine without a GPU
