// The passes of a row kernel, as data (issue 15: the scheduler beside the launch planner):
// which reductions share a loop over the row, and which column values a pass keeps in
// registers for the passes after it. The emitter prints a schedule; it decides nothing.
//
// A row kernel runs one of two schedules, chosen per launch variant:
//  - streamed (kChunks == 0): each pass reads the row from memory, so softmax's max and its
//    sum of exp share one pass as an online pair (a rescale per chunk, one read fewer);
//  - cached (kChunks > 0): the row is in registers, so passes cost no memory: the max comes
//    first, then the sum of exp(x - max), which the pass keeps for the outputs, so each
//    exponential is computed once per element (no rescales, no second exp).
#pragma once

#include "ir/op_ir.h"

#include <cstddef>
#include <functional>
#include <map>
#include <vector>

namespace solbench::codegen {

// Which values a cached schedule keeps (measured on the sm_90 SASS, docs/performance.md):
struct KeepPolicy {
    // Only values holding a special function (exp, log, tanh, sqrt, a division...): a value
    // of adds and multiplies is cheaper recomputed than held (LayerNorm keeping x - mean
    // went from 64 to 99 registers on its 8-chunk fp32 kernels).
    bool special_functions_only = true;
};
inline constexpr KeepPolicy kKeepPolicy{};

// Softmax's normalizer with its max, keyed by node: each online sum to its max.
using OnlinePairs = std::map<const ir::Node*, const ir::Node*>;

struct RowPass {
    std::vector<size_t> reductions;    // indices into the op's reductions, in order
    std::vector<const ir::Node*> kept; // column values later passes read again, first met first
    friend bool operator==(const RowPass&, const RowPass&) = default;
};

struct RowSchedule {
    OnlinePairs online; // the pairs reduced online (none when cached)
    std::vector<RowPass> passes;
    // Cached: each node of the column loops -> the first equal one (RowPass::kept holds those).
    std::map<const ir::Node*, const ir::Node*> same_as;
    bool keeps_values() const; // some pass keeps a value for a later one
};

// Reductions whose elements read no other reduction's result share one pass over the row: a
// reduction's level is one more than the deepest reduction its element reads (an online sum
// takes its max's level), and reductions of the same level and extent form a group. Groups
// come in level order, members in the given order.
std::vector<std::vector<size_t>> pass_groups(const std::vector<ir::Expr>& reductions,
                                             const OnlinePairs& online);

// The streamed schedule: the passes with the online pairs, nothing kept.
RowSchedule schedule_streamed(const std::vector<ir::Expr>& reductions, const OnlinePairs& online);

// The cached schedule: no online pairs; a pass keeps the column values (not leaves, not
// per-row values) that a later pass or the outputs (`outputs`: the epilogue's values) read
// again, as kKeepPolicy allows. `cached_input` gives the input a Load reads from the register cache
// (-1: none): a pass keeps nothing when that would hold more row arrays in registers after it than
// the `budget` of cached inputs the launch plan sized its chunks for.
RowSchedule schedule_cached(const std::vector<ir::Expr>& reductions,
                            const std::vector<ir::Expr>& outputs,
                            const std::function<int(const ir::Node&)>& cached_input, size_t budget);

} // namespace solbench::codegen
