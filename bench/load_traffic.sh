#!/usr/bin/env bash
# The bytes every bundle's kernel reads from each input, counted on the CPU backend (no GPU):
# the table in docs/performance.md ("Bytes read, counted without a GPU"). Builds each bundle
# for the CPU once (cached under ~/.cache/solbench). Usage: bench/load_traffic.sh [BUNDLE...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 0 ] && set -- submissions/*/
PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} python3 -m solbench.bench.traffic "$@" \
    --cols 128 1024 4096 32768 2>/dev/null
