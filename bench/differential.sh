#!/usr/bin/env bash
# Random ops through the whole pipeline, kernel against interpreter (issue 18): N ops from
# tests/differential/gen.py (seeds FIRST .. FIRST+N-1), each `solgen OP.lg --out BUNDLE`, its
# kernel.cu built for the CPU execution layer (BATCH kernels per g++ run) and run on shapes that
# reach every launch variant, against the LOGOS interpreter, the IR evaluator and the bundle's
# reference.py (tests/differential/runner.py).
#
#   bench/differential.sh [N] [FIRST]     default 200 ops from seed 1000
#
#   OUT=DIR        where the summary goes (default build/differential): summary.json,
#                  summary.md, log.txt, and work/ (the ops and bundles)
#   BATCH=K        kernels per build (default 20)
#   AVOID=LIST     generator features left out (default: those of the open bugs, runner.py's
#                  KNOWN_BUGS; AVOID= for none)
#   REDUCE=1       reduce each disagreement to a small op under tests/differential/regressions/
#   MINUTES=M      start no new batch after M minutes (the summary is written after each batch)
#
# One build runs at a time (the next batch builds while this one runs); each batch's build is
# deleted once its ops ran. Exits 1 when an op disagrees, 0 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200}
FIRST=${2:-1000}
OUT=${OUT:-build/differential}
mkdir -p "$OUT"
args=(--seeds "$FIRST:$((FIRST + N))" --batch "${BATCH:-20}" --work "$OUT/work"
      --json "$OUT/summary.json" --markdown "$OUT/summary.md" --no-keep-builds)
if [ "${AVOID+set}" = set ]; then args+=(--avoid "$AVOID"); fi
if [ -n "${REDUCE:-}" ]; then args+=(--reduce); fi
if [ -n "${MINUTES:-}" ]; then args+=(--minutes "$MINUTES"); fi
exec python3 tests/differential/runner.py "${args[@]}"
