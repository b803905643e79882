// The row kernel's launch plan as data (codegen/launch_plan.h): which variants the host
// may launch, in order, for the row lengths each takes. The emitter only renders it.
#include "codegen/launch_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace solbench::codegen {
namespace {

constexpr int kBf16Vec = 8; // 16-byte vectors of bf16
constexpr int kF32Vec = 4;

RowVariant streamed(int threads, std::optional<int64_t> max_cols) {
    return {threads, true, 0, max_cols};
}
RowVariant cached(int threads, int64_t chunks, int64_t max_cols) {
    return {threads, true, chunks, max_cols};
}
const RowVariant kFallback{kBlockThreads, false, 0, std::nullopt};

// Registers a chunk of `n` inputs takes: as floats (a schedule that keeps values), or as the
// raw 16-byte words of a cached row (4 registers a vector, whatever the type).
ChunkRegisters floats(int n, int vec) {
    return {n * vec, 0};
}
ChunkRegisters words(int n, int ahead = 0) {
    return {4 * n, 4 * ahead};
}

TEST(LaunchPlan, StreamedRowsOfAnyLength) {
    const RowLaunchPlan plan = plan_row_launch(kBf16Vec, {}, std::nullopt);
    const std::vector<RowVariant> want = {
        streamed(kHalfWarpThreads, 16 * kBf16Vec), // two rows a warp
        streamed(kWarpThreads, kWarpMaxCols),
        streamed(kBlockThreads, std::nullopt),
        kFallback,
    };
    EXPECT_EQ(plan.ladder, want);
}

TEST(LaunchPlan, CachedRowsGetShortRungsBelowFullOnes) {
    // One cached bf16 input as floats: 32 registers a thread hold 4 vectors.
    const RowLaunchPlan plan = plan_row_launch(kBf16Vec, floats(1, kBf16Vec), std::nullopt);
    const std::vector<RowVariant> want = {
        cached(kHalfWarpThreads, 1, 128),
        cached(kWarpThreads, 2, 512),
        cached(kWarpThreads, 4, 1024),
        cached(kNarrowBlockThreads, 2, 2048),
        cached(kNarrowBlockThreads, 4, 4096),
        cached(160, 4, 5120), // a warp more at a time, every chunk full
        cached(192, 4, 6144),
        cached(224, 4, 7168),
        // (a block's 2-chunk rung, 4096 columns, is no longer than the rungs before it)
        cached(kBlockThreads, 4, 8192),
        streamed(kBlockThreads, std::nullopt),
        kFallback,
    };
    EXPECT_EQ(plan.ladder, want);
}

TEST(LaunchPlan, ARowOverAWarpTakesTheFewerThreadsThatHoldIt) {
    // A bf16 row as raw words: 8 vectors a thread. 128 threads take rows to 8192 columns,
    // each thread holding 4 to 8 chunks from 2048 columns on; then a warp more at a time to a
    // block of 256 (whose shorter rungs are no longer than the rungs before them).
    const RowLaunchPlan plan = plan_row_launch(kBf16Vec, words(1), std::nullopt);
    const std::vector<RowVariant> want = {
        cached(kHalfWarpThreads, 1, 128),
        cached(kWarpThreads, 2, 512),
        cached(kWarpThreads, 4, 1024),
        cached(kNarrowBlockThreads, 2, 2048),
        cached(kNarrowBlockThreads, 4, 4096),
        cached(kNarrowBlockThreads, 8, 8192),
        cached(160, 8, 10240),
        cached(192, 8, 12288),
        cached(224, 8, 14336),
        cached(kBlockThreads, 8, 16384),
        streamed(kBlockThreads, std::nullopt),
        kFallback,
    };
    EXPECT_EQ(plan.ladder, want);
    // A streamed row keeps a block of 256: its loop keeps 4 loads a thread in flight
    // whatever the row's length, and more threads keep more in flight.
    for (const RowVariant& v : plan_row_launch(kBf16Vec, {}, std::nullopt).ladder)
        EXPECT_NE(v.threads, kNarrowBlockThreads);
}

TEST(LaunchPlan, ANarrowBlockReadingInputsAheadHoldsFewerChunks) {
    // RMSNorm's row as raw words with its weight read ahead: 128 threads hold at most
    // 4 chunks of both (kNarrowAheadRegisters, 32), and so do 160 to 224; a block of 256 holds 8.
    const RowLaunchPlan plan = plan_row_launch(kBf16Vec, words(1, 1), std::nullopt);
    const std::vector<RowVariant> want = {
        cached(kHalfWarpThreads, 1, 128),
        cached(kWarpThreads, 2, 512),
        cached(kWarpThreads, 4, 1024),
        cached(kNarrowBlockThreads, 2, 2048),
        cached(kNarrowBlockThreads, 4, 4096),
        cached(160, 4, 5120),
        cached(192, 4, 6144),
        cached(224, 4, 7168),
        cached(kBlockThreads, 4, 8192),
        cached(kBlockThreads, 8, 16384),
        streamed(kBlockThreads, std::nullopt),
        kFallback,
    };
    EXPECT_EQ(plan.ladder, want);
    for (const RowVariant& v : plan.ladder)
        if (v.threads > kWarpThreads && v.threads < kBlockThreads) {
            EXPECT_LE(v.chunks * 8, kNarrowAheadRegisters);
        }
    // Fused add + RMSNorm at 4096 columns: two rows and the weight, 12 registers a chunk, so
    // a block under 256 threads holds 2 chunks; 4096 columns take a block of 256 holding 2.
    EXPECT_EQ(plan_row_launch(kBf16Vec, words(2, 1), 4096).ladder,
              (std::vector<RowVariant>{{kBlockThreads, true, 2, std::nullopt}, kFallback}));
    // Of any length, such rows take no block under 256 threads (one would hold only 2 chunks).
    for (const RowVariant& v : plan_row_launch(kBf16Vec, words(2, 1), std::nullopt).ladder)
        EXPECT_TRUE(v.threads <= kWarpThreads || v.threads == kBlockThreads) << v.threads;
    // A known 6144-column row takes 6 warps of 4 chunks, not 128 threads of 6.
    EXPECT_EQ(plan_row_launch(kBf16Vec, words(1, 1), 6144).ladder,
              (std::vector<RowVariant>{{192, true, 4, std::nullopt}, kFallback}));
    // 12288 columns: more than 224 threads hold at 4 chunks, so a block of 256 holding 6.
    EXPECT_EQ(plan_row_launch(kBf16Vec, words(1, 1), 12288).ladder,
              (std::vector<RowVariant>{{kBlockThreads, true, 6, std::nullopt}, kFallback}));
}

TEST(LaunchPlan, AKnownRowLengthTakesOneVariant) {
    // RMSNorm at 4096 bf16 columns, the row cached: 128 threads, 4 vectors a thread.
    EXPECT_EQ(plan_row_launch(kBf16Vec, floats(1, kBf16Vec), 4096).ladder,
              (std::vector<RowVariant>{{kNarrowBlockThreads, true, 4, std::nullopt}, kFallback}));
    // 7168 bf16 columns with two cached inputs as floats: 16 registers each, 2 vectors,
    // 4096 columns a block; the row is longer, so it streams.
    EXPECT_EQ(plan_row_launch(kBf16Vec, floats(2, kBf16Vec), 7168).ladder,
              (std::vector<RowVariant>{streamed(kBlockThreads, std::nullopt), kFallback}));
    // As raw words (fused add + RMSNorm: no kept values) they take half: 4 vectors, so the
    // fewest warps that hold 896 vectors, 7 of them, every chunk full.
    EXPECT_EQ(plan_row_launch(kBf16Vec, words(2), 7168).ladder,
              (std::vector<RowVariant>{{224, true, 4, std::nullopt}, kFallback}));
    // 2048 columns at 8 vectors a thread would need 1 warp: rows over a warp's 1024 columns
    // take 128 threads at least.
    EXPECT_EQ(plan_row_launch(kBf16Vec, words(1), 2048).ladder,
              (std::vector<RowVariant>{{kNarrowBlockThreads, true, 2, std::nullopt}, kFallback}));
    // 96 fp32 columns: a warp, one vector a thread.
    EXPECT_EQ(plan_row_launch(kF32Vec, floats(1, kF32Vec), 96).ladder,
              (std::vector<RowVariant>{{kWarpThreads, true, 1, std::nullopt}, kFallback}));
    // 64 fp32 columns: half a warp.
    EXPECT_EQ(plan_row_launch(kF32Vec, {}, 64).ladder,
              (std::vector<RowVariant>{{kHalfWarpThreads, true, 0, std::nullopt}, kFallback}));
}

TEST(LaunchPlan, EveryLadderIsOrderedFitsTheRegistersAndEndsInTheFallback) {
    for (int vec : {1, 2, kF32Vec, kBf16Vec})
        for (int n_cached : {0, 1, 2, 3, 5})
            for (std::optional<int64_t> cols :
                 {std::optional<int64_t>{}, std::optional<int64_t>{1}, std::optional<int64_t>{700},
                  std::optional<int64_t>{4096}, std::optional<int64_t>{1 << 20}}) {
                const ChunkRegisters per_chunk = floats(n_cached, vec);
                const RowLaunchPlan plan = plan_row_launch(vec, per_chunk, cols);
                SCOPED_TRACE(testing::Message() << "vec " << vec << ", cached " << n_cached);
                ASSERT_FALSE(plan.ladder.empty());
                EXPECT_EQ(plan.ladder.back(), kFallback);
                int64_t last = 0;
                for (size_t i = 0; i + 1 < plan.ladder.size(); ++i) {
                    const RowVariant& v = plan.ladder[i];
                    EXPECT_TRUE(v.vectorized);
                    EXPECT_LE(v.chunks * per_chunk.cached, kCacheRegisters);
                    if (n_cached == 0) {
                        EXPECT_EQ(v.chunks, 0);
                    }
                    if (v.max_cols) {
                        EXPECT_GT(*v.max_cols, last);
                        last = *v.max_cols;
                        // A cached variant holds its longest row.
                        if (v.chunks) {
                            EXPECT_LE(*v.max_cols, v.chunks * v.threads * vec);
                        }
                    } else {
                        EXPECT_EQ(i + 2, plan.ladder.size()); // only the last vector rung
                    }
                    // A known row fits the variant chosen for it.
                    if (cols && v.chunks) {
                        EXPECT_LE(*cols, v.chunks * v.threads * vec);
                    }
                }
            }
}

TEST(LaunchPlan, InputsAreReadAheadWithTheRowWithinTheirRegisters) {
    // RMSNorm in bf16: the row and the weight as raw words, 4 registers a vector each. The
    // row fits 8 vectors a thread (16384 columns a block); the weight is read ahead of the
    // reduction by every cached variant (64 registers: 16 vectors).
    const RowLaunchPlan rms = plan_row_launch(kBf16Vec, words(1, 1), std::nullopt);
    EXPECT_EQ(rms.per_chunk, words(1, 1));
    EXPECT_EQ(rms.ahead_max_chunks, kAheadRegisters / 4);
    int64_t longest = 0;
    for (const RowVariant& v : rms.ladder) {
        EXPECT_LE(v.chunks, rms.ahead_max_chunks);
        longest = std::max(longest, v.chunks);
    }
    EXPECT_EQ(longest, kCacheRegisters / 4);
    // LayerNorm in fp32, weight and bias: 8 registers a vector; its 8-vector variants load
    // them where they are used.
    const RowLaunchPlan ln = plan_row_launch(kF32Vec, words(1, 2), std::nullopt);
    EXPECT_EQ(ln.ahead_max_chunks, kAheadRegisters / 8);
    EXPECT_EQ(ln.ladder[ln.ladder.size() - 3].chunks, 8);
    // Nothing to read ahead: no variant does.
    EXPECT_EQ(plan_row_launch(kBf16Vec, words(1), std::nullopt).ahead_max_chunks, 0);
}

RowVariant wide(int threads, int64_t chunks, std::optional<int64_t> max_cols) {
    return {threads, true, chunks, max_cols, true};
}

TEST(LaunchPlan, SixteenBitRowsGetA32ByteLadderOfTheSameThreadsAndRegisters) {
    // RMSNorm in bf16 (row and weight as raw words): every 16-byte variant of an even number
    // of chunks has a 32-byte twin of the same threads and rows, holding half the chunks of
    // twice the columns. The half warp's one chunk stays a 16-byte one, so rows of at most
    // 128 columns take it and not the warp's 32-byte variant sized for 512.
    const RowLaunchPlan plan = plan_row_launch(kBf16Vec, words(1, 1), std::nullopt);
    const std::vector<RowVariant> want = {
        cached(kHalfWarpThreads, 1, 128),
        wide(kWarpThreads, 1, 512),
        wide(kWarpThreads, 2, 1024),
        wide(kNarrowBlockThreads, 1, 2048),
        wide(kNarrowBlockThreads, 2, 4096),
        wide(160, 2, 5120),
        wide(192, 2, 6144),
        wide(224, 2, 7168),
        wide(kBlockThreads, 2, 8192),
        wide(kBlockThreads, 4, 16384),
        wide(kBlockThreads, 0, std::nullopt), // streamed, 32 bytes an access
    };
    EXPECT_EQ(plan.wide_ladder, want);
    EXPECT_TRUE(plan.has_wide());
    for (const RowVariant& w : plan.wide_ladder) {
        if (!w.wide) continue;
        // The 16-byte twin: the same threads and rows, the same columns a thread.
        RowVariant twin = w;
        twin.wide = false;
        twin.chunks = 2 * w.chunks;
        EXPECT_NE(std::find(plan.ladder.begin(), plan.ladder.end(), twin), plan.ladder.end())
            << w.threads << " threads, " << w.chunks << " chunks";
    }
    // The 16-byte ladder is as it was: the one every other device and alignment takes.
    EXPECT_EQ(plan.ladder.back(), kFallback);
    for (const RowVariant& v : plan.ladder)
        EXPECT_FALSE(v.wide);
    // A known row: its variant's twin, when it pairs.
    EXPECT_EQ(plan_row_launch(kBf16Vec, words(2), 7168).wide_ladder,
              (std::vector<RowVariant>{wide(224, 2, std::nullopt)}));
}

TEST(LaunchPlan, ThirtyTwoBitRowsAndUnpairedChunksGetNo32ByteLadder) {
    // fp32 rows (4 columns a 16-byte vector) issue half a bf16 row's instructions a byte, so
    // kWideMinVectorWidth keeps them on 16-byte accesses (and without the instances a second
    // ladder adds to every kernel.cu).
    EXPECT_FALSE(plan_row_launch(kF32Vec, floats(1, kF32Vec), std::nullopt).has_wide());
    // A known row of one chunk a thread (a half or a whole warp of one vector): nothing pairs.
    EXPECT_TRUE(plan_row_launch(kBf16Vec, words(1), 100).wide_ladder.empty());
    EXPECT_TRUE(plan_row_launch(kBf16Vec, words(1), 256).wide_ladder.empty());
    // Unpaired variants after the last paired one are left out; between paired ones they stay.
    const std::vector<RowVariant> ladder = {
        cached(kWarpThreads, 2, 512), cached(kWarpThreads, 3, 768), cached(kBlockThreads, 4, 8192),
        cached(kBlockThreads, 5, 10240), kFallback};
    EXPECT_EQ(wide_section(ladder),
              (std::vector<RowVariant>{wide(kWarpThreads, 1, 512), cached(kWarpThreads, 3, 768),
                                       wide(kBlockThreads, 2, 8192)}));
}

TEST(LaunchPlan, ElementsTryVectorsThenOneColumn) {
    const ElementLaunchPlan flat = plan_element_launch(kBf16Vec, true);
    EXPECT_TRUE(flat.flat);
    EXPECT_EQ(flat.vector_width, kBf16Vec);
    EXPECT_FALSE(plan_element_launch(kF32Vec, false).flat);
    ASSERT_EQ(flat.ladder.size(), 2U);
    EXPECT_TRUE(flat.ladder[0].vectorized);
    EXPECT_FALSE(flat.ladder[1].vectorized);
}

TEST(LaunchPlan, ElementsKeepSeveralChunksInFlightWithinCudasGrid) {
    const ElementLaunchPlan plan = plan_element_launch(kBf16Vec, false);
    // 2-4 chunks a thread in flight (issue 15), for the vectors and the one-column fallback.
    for (const ElementVariant& v : plan.ladder) {
        EXPECT_GE(v.chunks, 2);
        EXPECT_LE(v.chunks, 4);
    }
    // CUDA's grid limits: the kernel loops over rows past gridDim.y, never past gridDim.x.
    EXPECT_EQ(plan.max_grid_rows, 65535);
    EXPECT_EQ(plan.max_grid_columns, (int64_t{1} << 31) - 1);
}

} // namespace
} // namespace solbench::codegen
