#!/usr/bin/env bash
# The one prepared GPU session for "Kernels at the memory roofline": on the lent H200, check
# every bundle for correctness and bench it (solution vs reference vs torch.compile, achieved
# bandwidth, SOL-score estimate), all inside a global time budget, and leave at most 8 files
# in $OUT (2 folders deep at most):
#   gpu_report.md      everything in one Markdown file (environment, checks, every report)
#   bench.jsonl        one bench report a line (machine-readable)
#   bandwidth_all.png  achieved bandwidth vs rows, a panel per bundle
#   session.log        this script's whole output
#   NAME_bandwidth.png up to 4 per-bundle charts
#
# Run it from the repo root through the device tool (nothing is built with CMake there, nothing
# is downloaded; the bundles must already be in the working tree):
#   run(command="bash bench/gpu_session.sh", timeout_s=570)
# Optional arguments: the folders to search for bundles (default: submissions). A bundle is a
# folder holding solution.json + definition.json + workload.jsonl, up to 3 levels down.
# Knobs (environment): BUDGET_S (480: the whole run), WORKLOADS (6 per bundle, spread over the
# sizes), COMPILE_MODE (default: max-autotune's tuning does not fit the budget), CHECK_ROUNDS
# (10), CHECK_PARALLEL (6).
set -uo pipefail
export PYTHONUNBUFFERED=1

BUDGET_S=${BUDGET_S:-480}
WORKLOADS=${WORKLOADS:-6}
COMPILE_MODE=${COMPILE_MODE:-default}
CHECK_ROUNDS=${CHECK_ROUNDS:-10}
CHECK_PARALLEL=${CHECK_PARALLEL:-6}
CHECK_PHASE_S=${CHECK_PHASE_S:-210} # builds (in parallel) and correctness, all bundles
GATHER_RESERVE_S=25                 # kept back for assembling the report
PY=${PYTHON:-python3}

OUT=${OUT:-/tmp/gpu_session_out}
WORK=/tmp/gpu_session
rm -rf "$WORK"
mkdir -p "$OUT" "$WORK/checks" "$WORK/bench"
export SOLBENCH_CACHE=$WORK/cache           # check builds here once; bench reuses the build
export TORCHINDUCTOR_CACHE_DIR=$WORK/inductor
SECONDS=0
left() { echo $((BUDGET_S - SECONDS)); }
say() { echo "[$(printf '%4d' "$SECONDS") s] $*"; }

session() {
roots=("$@")
[ ${#roots[@]} -eq 0 ] && roots=(submissions)
mapfile -t bundles < <(find "${roots[@]}" -maxdepth 3 -name solution.json -printf '%h\n' \
    2>/dev/null | sort)
if [ ${#bundles[@]} -eq 0 ]; then
    say "no bundles (solution.json) under: ${roots[*]}. Generate them first, e.g."
    say "  build/solgen examples/rmsnorm.lg --out submissions/rmsnorm"
    exit 3
fi
name_of() { basename "$1"; }

{
    echo "date: $(date -u +%FT%TZ)   budget: ${BUDGET_S} s   workloads/bundle: ${WORKLOADS}" \
        "  torch.compile mode: ${COMPILE_MODE}   check rounds: ${CHECK_ROUNDS}"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm \
        --format=csv 2>&1 | head -3
    $PY -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__,
"cuda", torch.version.cuda, "device", torch.cuda.get_device_name(0),
"cc", torch.cuda.get_device_capability(0))' 2>&1 | tail -1
    echo "nvcc: $(nvcc --version 2>&1 | tail -1)"
    echo "bundles: ${bundles[*]}"
} >"$WORK/env.txt"
cat "$WORK/env.txt"

# 1. Correctness, all bundles at once (each check builds first: nvcc runs in parallel).
say "checks: ${#bundles[@]} bundles, ${CHECK_PARALLEL} at a time, phase limit ${CHECK_PHASE_S} s"
pids=()
for b in "${bundles[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$CHECK_PARALLEL" ]; do sleep 1; done
    n=$(name_of "$b")
    limit=$((CHECK_PHASE_S - SECONDS))
    [ "$limit" -lt 20 ] && limit=20
    (
        timeout -k 5 "$limit" $PY -m solbench check "$b" --device cuda --no-timing \
            --rounds "$CHECK_ROUNDS" --json >"$WORK/checks/$n.json" 2>"$WORK/checks/$n.err"
        echo $? >"$WORK/checks/$n.rc"
        say "check $n: exit $(cat "$WORK/checks/$n.rc")"
    ) &
    pids+=($!)
done
wait "${pids[@]}"

# 2. Bench, one bundle at a time (timings need the GPU to themselves), sharing what is left.
remaining=${#bundles[@]}
for b in "${bundles[@]}"; do
    n=$(name_of "$b")
    if grep -q '"COMPILE_ERROR"' "$WORK/checks/$n.json" 2>/dev/null; then
        say "bench $n: skipped (the build failed in check)"
        echo "build failed in check; see the check table" >"$WORK/bench/$n.err"
        echo 2 >"$WORK/bench/$n.rc"
        remaining=$((remaining - 1))
        continue
    fi
    share=$(((BUDGET_S - GATHER_RESERVE_S - SECONDS) / remaining))
    if [ "$share" -lt 20 ]; then
        say "bench $n: skipped (${share} s left for it)"
        echo "skipped: the session's time budget was spent" >"$WORK/bench/$n.err"
        echo 124 >"$WORK/bench/$n.rc"
        remaining=$((remaining - 1))
        continue
    fi
    say "bench $n: limit ${share} s"
    timeout -k 5 "$share" $PY -m solbench.bench "$b" -o "$WORK/bench/$n" \
        --workloads "$WORKLOADS" --compile-mode "$COMPILE_MODE" --json \
        >"$WORK/bench/$n.out" 2>"$WORK/bench/$n.err"
    echo $? >"$WORK/bench/$n.rc"
    tail -n 12 "$WORK/bench/$n.err"
    say "bench $n: exit $(cat "$WORK/bench/$n.rc")"
    remaining=$((remaining - 1))
done

# 3. The files that come back.
say "gathering into $OUT"
$PY -m solbench.bench.gather "$WORK" "$OUT" --max-png 4 >"$WORK/gather.txt" 2>&1
ls -la "$OUT"
grep -h '^| ' "$OUT/gpu_report.md" | grep -v '^| workload\|^|---\|^| bundle' | cut -c1-150
say "done in ${SECONDS} s (budget ${BUDGET_S} s, $(left) s to spare)"
# The summary last: the tool's reply carries the end of the output.
cat "$WORK/gather.txt"
}

session "$@" 2>&1 | tee "$OUT/session.log"
exit "${PIPESTATUS[0]}"
