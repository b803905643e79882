#include "codegen/launch_plan.h"

#include <algorithm>

namespace solbench::codegen {

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

// The threads for a known row of `vectors` longer than a warp's: the fewest warps (from
// kNarrowBlockThreads to kBlockThreads) that hold it at `chunks` a thread, so it fills them.
int fewest_threads(int64_t vectors, int chunks) {
    const int64_t warps = ceil_div(vectors, static_cast<int64_t>(kWarpThreads) * chunks);
    return static_cast<int>(
        std::clamp<int64_t>(warps * kWarpThreads, kNarrowBlockThreads, kBlockThreads));
}

RowLaunchPlan plan_16_byte_launch(int vector_width, ChunkRegisters per_chunk,
                                  std::optional<int64_t> const_cols) {
    RowLaunchPlan plan;
    plan.vector_width = vector_width;
    plan.per_chunk = per_chunk;
    plan.const_cols = const_cols;
    plan.ahead_max_chunks = per_chunk.ahead > 0 ? kAheadRegisters / per_chunk.ahead : 0;
    const int vec = vector_width;
    // Cached variants hold their chunks within kCacheRegisters; inputs that would not fit
    // one vector each stream.
    const int max_chunks = per_chunk.cached > 0 ? kCacheRegisters / per_chunk.cached : 0;
    const bool cached = max_chunks > 0;
    const int64_t warp_chunks =
        std::min<int64_t>(ceil_div(kWarpMaxCols, kWarpThreads * vec), max_chunks);
    const int64_t warp_cols = cached ? warp_chunks * kWarpThreads * vec : kWarpMaxCols;
    const int narrow_chunks =
        per_chunk.ahead > 0
            ? std::clamp(kNarrowAheadRegisters / (per_chunk.cached + per_chunk.ahead), 1,
                         std::max(max_chunks, 1))
            : max_chunks;
    const int64_t block_cols = static_cast<int64_t>(max_chunks) * kBlockThreads * vec;
    // Rows of at most 16 vectors (128 bf16 or 64 fp32 columns) would leave half of a
    // warp idle: half a warp takes each, two rows a warp.
    const int64_t half_cols = static_cast<int64_t>(kHalfWarpThreads) * vec;
    const RowVariant fallback{kBlockThreads, false, 0, std::nullopt};

    if (const_cols) { // the row length is known: the one variant it takes
        const int64_t cols = *const_cols;
        RowVariant chosen{kBlockThreads, true, 0, std::nullopt};
        if (cols <= half_cols)
            chosen = {kHalfWarpThreads, true, cached ? 1 : 0, std::nullopt};
        else if (cols <= warp_cols)
            chosen = {kWarpThreads, true, cached ? ceil_div(cols, kWarpThreads * vec) : 0,
                      std::nullopt};
        else if (cached && cols <= block_cols) {
            const int threads = fewest_threads(ceil_div(cols, vec), narrow_chunks);
            chosen = {threads, true, ceil_div(cols, threads * vec), std::nullopt};
        }
        plan.ladder = {chosen, fallback};
        return plan;
    }
    std::vector<RowVariant>& l = plan.ladder;
    // A rung no longer than the one before it is never taken (with narrow vectors a
    // warp's full rung already holds a block's 2-chunk one): it is left out.
    auto rung = [&](RowVariant v) {
        if (!l.empty() && *v.max_cols <= *l.back().max_cols) return;
        l.push_back(v);
    };
    rung({kHalfWarpThreads, true, cached ? 1 : 0, half_cols});
    // A cached variant's registers (and so its occupancy) are sized for its longest
    // row; its shortest rows fill few of its chunks. Rungs of 2, 4, ... chunks below each
    // full one keep the bytes in flight up on those rows.
    auto shorter = [&](int threads, int64_t full) { // 2, 4, ... chunks, below `full`
        for (int64_t c = kShortRowChunks; cached && c < full; c *= 2)
            rung({threads, true, c, c * threads * vec});
    };
    shorter(kWarpThreads, warp_chunks);
    rung({kWarpThreads, true, cached ? warp_chunks : 0, warp_cols});
    // Blocks under 256 threads where a thread of them holds 4 chunks or more: 128 threads,
    // then a warp more at a time, each thread full (rows of 5, 6 or 7 times 1024 bf16 columns,
    // common hidden sizes, fill every chunk they are given).
    if (cached && narrow_chunks >= kNarrowMinChunks) {
        shorter(kNarrowBlockThreads, narrow_chunks);
        for (int t = kNarrowBlockThreads; t < kBlockThreads; t += kWarpThreads)
            rung({t, true, narrow_chunks, static_cast<int64_t>(narrow_chunks) * t * vec});
    }
    shorter(kBlockThreads, max_chunks);
    if (cached) rung({kBlockThreads, true, max_chunks, block_cols});
    l.push_back({kBlockThreads, true, 0, std::nullopt});
    l.push_back(fallback);
    return plan;
}

} // namespace

bool RowLaunchPlan::has_wide() const {
    return !wide_ladder.empty();
}

std::vector<RowVariant> wide_section(const std::vector<RowVariant>& ladder) {
    std::vector<RowVariant> out;
    size_t paired = 0;
    for (const RowVariant& v : ladder) {
        if (!v.vectorized) continue;
        RowVariant w = v;
        if (v.chunks % 2 == 0) { // 0 too: a streamed row, 32 bytes at a time
            w.wide = true;
            w.chunks = v.chunks / 2;
        }
        out.push_back(w);
        if (w.wide) paired = out.size();
    }
    out.resize(paired);
    return out;
}

RowLaunchPlan plan_row_launch(int vector_width, ChunkRegisters per_chunk,
                              std::optional<int64_t> const_cols) {
    RowLaunchPlan plan = plan_16_byte_launch(vector_width, per_chunk, const_cols);
    if (vector_width >= kWideMinVectorWidth) plan.wide_ladder = wide_section(plan.ladder);
    return plan;
}

ElementLaunchPlan plan_element_launch(int vector_width, bool flat) {
    ElementLaunchPlan plan;
    plan.vector_width = vector_width;
    plan.flat = flat;
    plan.ladder = {{true, 4}, {false, 4}};
    return plan;
}

ColumnSumPlan plan_column_sums() {
    return {};
}

} // namespace solbench::codegen
