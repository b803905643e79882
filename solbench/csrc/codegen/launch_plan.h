// The launch plan of a row kernel, as data (issue 15: policy as typed data, as
// Inductor's heuristics are configs): which template instances the host may
// launch and the rows each takes. The emitter renders the plan into the host's
// if/else ladder; tests assert on the plan, not on kernel text.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace solbench::codegen {

// Threads, per the kernels' own constants (kernel_header.mustache, row_launch.mustache).
constexpr int kBlockThreads = 256;
constexpr int kWarpThreads = 32;
constexpr int kHalfWarpThreads = 16; // a row of at most 16 vectors: half a warp
// Cached rows over a warp's take the fewest warps, from these 128 threads to a block, that
// hold them, so a thread holds 4 to 8 chunks where its registers allow, not 2 (as QuACK and
// TransformerEngine size their rows): a row's reductions and index math are paid per thread,
// and on B200 (twice an H200's bytes per SM-clock) those instructions decide.
constexpr int kNarrowBlockThreads = 128;
// With inputs read ahead as well, a block under 256 threads loads at most this many registers
// a thread up front (its chunks of row and read-ahead inputs): past it ptxas for sm_100a spilled
// rmsnorm's 8 chunks of row and weight (64 registers), and loaded fused add + RMSNorm's weight
// only after the row's first use (48 registers: 2 DRAM round trips a row, not 1).
constexpr int kNarrowAheadRegisters = 32;
// A row of unknown length takes a block under 256 threads only where a thread of it holds this
// many chunks (a known row takes the fewest warps that hold it whatever their chunks).
constexpr int kNarrowMinChunks = 4;
constexpr int64_t kWarpMaxCols = 1024; // longer rows get a whole block
constexpr int kShortRowChunks = 2;     // the shortest cached rung below a full one (then 4, ...)
constexpr int kCacheRegisters = 32;    // per thread, for the cached rows (more spilled on sm_90)
constexpr int kAheadRegisters = 64;    // and for the inputs read ahead with them
// sm_100 and later (B200) have 32-byte global accesses (LDG.E.ENL2.256, STG.E.ENL2.256): half
// the load and store instructions of 16-byte ones, and on a B200 a row op of 16-bit elements is
// bound by the instructions it issues an element (docs/performance.md). Rows whose widest
// element is 16 bits (vectors of 8 columns or more) take them there.
constexpr int kWideMinVectorWidth = 8;

// The registers one chunk (a vector of columns) of a row kernel's inputs takes in each
// thread (row_helpers.mustache's RowCache: raw words, or a float per column).
struct ChunkRegisters {
    int cached = 0; // the row inputs held for two loops or more (0: the row streams)
    int ahead = 0;  // the other inputs the loops read, loaded with the row
    friend bool operator==(const ChunkRegisters&, const ChunkRegisters&) = default;
};

// One instance of the row kernel: launch_rows<threads, vec, chunks>.
struct RowVariant {
    int threads = kBlockThreads; // per row: half a warp, a warp, or 4 to 8 warps
    bool vectorized = true;      // 16-byte vectors (kVectorWidth columns) or one column
    int64_t chunks = 0;          // vectors per thread kept in registers; 0: streamed
    // Taken for rows of at most this many columns (and a vectorizable launch);
    // nullopt: any row.
    std::optional<int64_t> max_cols;
    // 32-byte vectors (kWideVectorWidth = 2 x kVectorWidth columns), where the device has
    // 32-byte accesses and the tensors are on whole ones; chunks counts those.
    bool wide = false;
    friend bool operator==(const RowVariant&, const RowVariant&) = default;
};

struct RowLaunchPlan {
    int vector_width = 1; // columns per 16-byte vector
    ChunkRegisters per_chunk;
    std::optional<int64_t> const_cols; // the row length, when it is a constant
    // Cached variants of at most this many chunks read the other inputs the row's loops read
    // ahead, with the row (within kAheadRegisters); longer ones load them where used. Counted
    // in 16-byte chunks (a 32-byte one is two).
    int64_t ahead_max_chunks = 0;
    // Tried in order; the first whose max_cols holds wins. The last is the scalar
    // fallback (any row, no vectors), taken when a tensor is not 16-byte aligned or
    // a row not a whole number of vectors. With const_cols the plan holds the one
    // vector variant that row length takes, then the fallback.
    std::vector<RowVariant> ladder;
    // Tried before `ladder` where the device has 32-byte accesses and every tensor is on
    // whole 32-byte vectors (wide_section); a row it does not take goes on to `ladder`.
    std::vector<RowVariant> wide_ladder;
    bool has_wide() const;
};

// The 32-byte variants of a 16-byte ladder: each vectorized variant's threads and columns a
// thread, its chunks paired into 32-byte ones, so a thread holds the same registers and keeps
// the same bytes in flight in half the accesses. A variant of an odd number of chunks stays
// as it is (its rows must not fall to a later 32-byte variant sized for longer rows); those
// after the last paired one are left out, as the 16-byte ladder takes their rows alike.
// Empty where no variant pairs.
std::vector<RowVariant> wide_section(const std::vector<RowVariant>& ladder);

// The plan for rows of `const_cols` columns (or of any length) holding `vector_width`
// columns per vector, with the inputs of `per_chunk` kept in registers when they fit.
RowLaunchPlan plan_row_launch(int vector_width, ChunkRegisters per_chunk,
                              std::optional<int64_t> const_cols);

// The gated / elementwise family's launch (gated_activation_kernel.mustache): a 2-D grid, rows
// by blockIdx.y and threadIdx.y, each row's chunks (16-byte vectors) by blockIdx.x and
// threadIdx.x, `chunks` a thread. A flat op (every tensor rows x cols, read at the same column)
// runs as one row of rows x cols elements, so only its very end needs the scalar tail.
struct ElementVariant {
    bool vectorized = true; // kVectorWidth columns a chunk, or one (unaligned tensors)
    // Chunks a thread loads before it computes any: the loads it keeps in flight. 4 x 16 bytes
    // of each input (4 x 8 floats of registers for a bf16 input) keeps an H200's or a B200's
    // DRAM busy at a quarter of the SM's threads, and the row's index math is paid once per
    // four chunks.
    int chunks = 4;
    friend bool operator==(const ElementVariant&, const ElementVariant&) = default;
};

struct ElementLaunchPlan {
    int vector_width = 1;
    bool flat = false;
    // CUDA's limits on a grid: rows past 65535 blocks of them loop inside the kernel; a row
    // (a flat op's every element) needing more blocks than 2^31 - 1 is refused by the launch.
    int64_t max_grid_rows = 65535;
    int64_t max_grid_columns = 2147483647;
    std::vector<ElementVariant> ladder; // tried in order: vectors when aligned, then scalar
};

ElementLaunchPlan plan_element_launch(int vector_width, bool flat);

// Column reductions over every row (r2 §8: grad_weight): partial sums over chunks of
// rows, one column a thread (kBlockThreads a block), then the chunks added in order (no atomics:
// the same bits every run). The host sizes the chunks from the shape alone so the partial pass has
// about target_blocks blocks.
struct ColumnSumPlan {
    int target_blocks = 528; // 4 waves of 132 SMs (H100 / H200)
    friend bool operator==(const ColumnSumPlan&, const ColumnSumPlan&) = default;
};

ColumnSumPlan plan_column_sums();

} // namespace solbench::codegen
