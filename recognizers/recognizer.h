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

// A recognized op: its family and the IR the templates are filled from.
struct OpDescription {
    Family family = Family::FusedRow;
    ir::OpIR ir;
    std::vector<ir::Expr> reductions; // ir::reductions_in_order(ir)
    bool packed_halves = false;       // gated: gate and up are halves of one input
};

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
