// Recognizers: op IR in, a typed op description or a typed refusal out.
//
// A refusal never emits code; it names the statement (file:line:col) and the
// rule it breaks, so the user knows what to change. Each family has its own
// matcher file (fused_row.cpp, gated_activation.cpp, reduction.cpp); recognize()
// tries them in a fixed order.
#pragma once

#include "diag/diagnostic.h"
#include "ir/op_ir.h"

#include <string>
#include <variant>
#include <vector>

namespace solbench {

enum class Family { FusedRow, GatedActivation, Reduction };
const char* to_string(Family f); // "fused_row", "gated_activation", "reduction"

// A softmax normalizer `sum of exp(e - m)` and its `m = max of e`, reduced in
// one pass by the kernel (online_softmax.cpp): indices into the reductions.
struct OnlinePair {
    size_t sum = 0;
    size_t max = 0;
    friend bool operator==(const OnlinePair&, const OnlinePair&) = default;
};

// The family one row set of an op was recognized as.
struct SetFamily {
    Family family = Family::FusedRow;
    bool packed_halves = false;
    friend bool operator==(const SetFamily&, const SetFamily&) = default;
};

// A recognized op: its family and the IR the templates are filled from.
struct OpDescription {
    Family family = Family::FusedRow;
    ir::OpIR ir;
    std::vector<ir::Expr> reductions; // ir::reductions_in_order(ir)
    std::vector<OnlinePair> online;   // online_pairs(reductions)
    bool packed_halves = false;       // gated: gate and up are halves of one input
    // An op of several row sets (ir.other_row_axes): each set's family, in set
    // order (family is the first's); row_set_parts() describes each. Empty for one.
    std::vector<SetFamily> set_families;
};

// The description of each row set of op on its own (ir::project), in set order;
// {op} itself for an op of one row set.
std::vector<OpDescription> row_set_parts(const OpDescription& op);

// The description of op in `family`: its reductions in dependency order, and
// which of them pair up as a softmax normalizer.
OpDescription describe_op(Family family, ir::OpIR op, bool packed_halves = false);
std::vector<OnlinePair> online_pairs(const std::vector<ir::Expr>& reductions);

using Recognition = Result<OpDescription>;

// The op refused at `pos` for breaking `rule`, as a recognizer says it.
Failure refuse_op(const ir::OpIR& op, SourcePos pos, Rule rule, std::string message);

// The family matchers, each returning the description or why it does not match.
Recognition recognize_fused_row(const ir::OpIR& op);
Recognition recognize_gated_activation(const ir::OpIR& op);
Recognition recognize_reduction(const ir::OpIR& op);

// Classifies the op: the first family whose matcher accepts it, else the most
// specific refusal.
Recognition recognize(const ir::OpIR& op);

} // namespace solbench
