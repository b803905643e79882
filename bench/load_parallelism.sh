#!/usr/bin/env bash
# Bytes in flight per SM for every kernel of every bundle, read from the sm_90 machine code
# (no GPU): the table in docs/performance.md ("Loads in flight, read from the machine code").
# Compiles each bundle for sm_90 with nvcc (a minute or two each) and disassembles it with
# nvdisasm. Usage: bench/load_parallelism.sh [BUNDLE...]   (extra options: LATENCY_NS=800)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 0 ] && set -- submissions/*/
PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} python3 -m solbench.load_parallelism "$@" \
    --latency-ns "${LATENCY_NS:-800}" \
    2> >(grep -v "No CUDA runtime is found" >&2) # torch warns on a machine without a GPU
