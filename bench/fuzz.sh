#!/usr/bin/env bash
# Fuzzes solgen with libFuzzer for N seconds: the op pipeline (fuzz/fuzz_pipeline.cpp,
# FUZZ_TARGET=pipeline, the default) or definition.json reading and binding
# (fuzz/fuzz_definition.cpp, FUZZ_TARGET=definition), or the Python readers of
# `solgen check` (fuzz/fuzz_problem_files.py, FUZZ_TARGET=problem_files: atheris, no build).
#
#   bench/fuzz.sh [SECONDS]        default 600; BUILD_DIR (default build-fuzz)
#
# The definition target is seeded from tests/hostile/json/ and the problems under
# tests/python/problems/, with the JSON dictionary fuzz/json.dict.
#
# Builds the target with clang (every object instrumented for coverage, ASan and
# UBSan), seeds it from examples/, the shared corpus, tests/ops and
# tests/hostile/ops (copied at run time; inputs over 64 KiB are left to
# tests/cpp/test_hostile.cpp), and runs it with a 1 s per-input timeout, a
# 2 GiB RSS limit and leak detection. The grown corpus is kept in
# $BUILD_DIR/corpus between runs; a crashing input lands in $BUILD_DIR/artifacts/
# and the script exits non-zero. The last lines of output are libFuzzer's stats.
# Seeds named in fuzz/known-bugs.txt (open bugs) are left out.
#
# problem_files: definition.json, workload.jsonl and solution.json read by
# solbench/conformance/problem.py, seeded by the script itself (--make-seeds: the
# tests/hostile/json/, tests/problems/real/ and submissions/ files), dictionary
# fuzz/json.dict plus fuzz/problem_files.dict, 2 s per input (Python), 2 GiB RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${1:-600}
BUILD=${BUILD_DIR:-build-fuzz}
JOBS=${JOBS:-2}
TARGET=${FUZZ_TARGET:-pipeline}
case "$TARGET" in
pipeline) exe=solbench_fuzz dict=fuzz/logos.dict ext=lg ;;
definition) exe=solbench_fuzz_definition dict=fuzz/json.dict ext=json ;;
problem_files) ;;
*) echo "bench/fuzz.sh: FUZZ_TARGET is pipeline, definition or problem_files, not $TARGET" >&2; exit 1 ;;
esac

if [ "$TARGET" = problem_files ]; then
    PY=${PYTHON:-python3}
    seeds="$BUILD/seeds-$TARGET" corpus="$BUILD/corpus-$TARGET"
    rm -rf "$seeds"
    mkdir -p "$corpus" "$BUILD/artifacts"
    cat fuzz/json.dict fuzz/problem_files.dict >"$BUILD/$TARGET.dict"
    "$PY" fuzz/fuzz_problem_files.py --make-seeds "$seeds"
    echo "fuzz ($TARGET): ${SECONDS_TO_RUN}s"
    keep_going=()
    [ "${KEEP_GOING:-0}" = 1 ] && keep_going=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    before=$(find "$BUILD/artifacts" -type f | wc -l)
    "$PY" fuzz/fuzz_problem_files.py "$corpus" "$seeds" -dict="$BUILD/$TARGET.dict" \
        -max_total_time="$SECONDS_TO_RUN" -timeout=2 -rss_limit_mb=2048 -max_len=16384 \
        -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/" "${keep_going[@]}"
    after=$(find "$BUILD/artifacts" -type f | wc -l)
    if [ "$after" -gt "$before" ]; then
        echo "fuzz: $((after - before)) new crashing/slow inputs in $BUILD/artifacts/" >&2
        exit 1
    fi
    exit 0
fi

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    gen=()
    command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
    # fuzzer-no-link on every object: without it only the fuzz driver itself
    # would report coverage and libFuzzer would be blind inside solbench_core.
    CC=clang CXX=clang++ cmake -S . -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DSOLBENCH_FUZZ=ON -DSOLBENCH_TESTS=OFF -DCMAKE_CXX_COMPILER_LAUNCHER="$PWD/fuzz/cxx-launcher" \
        -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer"
fi
cmake --build "$BUILD" --target "$exe" -j "$JOBS"

seeds="$BUILD/seeds-$TARGET"
corpus="$BUILD/corpus"
[ "$TARGET" = pipeline ] || corpus="$BUILD/corpus-$TARGET"
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$BUILD/artifacts"
i=0
if [ "$TARGET" = definition ]; then
    dirs=(tests/hostile/json tests/python/problems/*)
else
    dirs=(examples tests/corpus/accept tests/corpus/refuse ../shared/corpus/accept ../shared/corpus/refuse tests/ops/accept \
    tests/ops/refuse tests/hostile/ops)
fi
for dir in "${dirs[@]}"; do
    [ -d "$dir" ] || continue
    while IFS= read -r -d '' f; do
        grep -qxF "$(basename "$f")" fuzz/known-bugs.txt && continue
        cp "$f" "$seeds/$(printf '%04d' "$i")_$(basename "$f")"
        i=$((i + 1))
    done < <(find "$dir" -maxdepth 1 -name "*.$ext" -size -64k -print0)
done
echo "fuzz ($TARGET): $i seed files, ${SECONDS_TO_RUN}s"

# KEEP_GOING=1: fork mode, so a crash or timeout is saved and fuzzing goes on
# (the script still fails at the end when anything was found).
keep_going=()
if [ "${KEEP_GOING:-0}" = 1 ]; then
    keep_going=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
before=$(find "$BUILD/artifacts" -type f | wc -l)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
"$BUILD/$exe" "$corpus" "$seeds" \
    -dict="$dict" -max_total_time="$SECONDS_TO_RUN" -timeout=1 -rss_limit_mb=2048 \
    -malloc_limit_mb=2048 -detect_leaks=1 -max_len=16384 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/" "${keep_going[@]}"
after=$(find "$BUILD/artifacts" -type f | wc -l)
if [ "$after" -gt "$before" ]; then
    echo "fuzz: $((after - before)) new crashing/slow inputs in $BUILD/artifacts/" >&2
    exit 1
fi
