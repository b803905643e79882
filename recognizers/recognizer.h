// Recognizers: op IR in, a typed op description or a typed refusal out.
//
// A refusal never emits code; it names the statement (file:line:col) and the
// rule it breaks, so the user knows what to change. Each family has its own
// matcher file (fused_row.cpp, gated_activation.cpp, reduction.cpp); recognize()
// tries them in a fixed order.
#pragma once

#include "ir/op_ir.h"

#include <string>
#include <variant>
#include <vector>

namespace solbench {

enum class Family { FusedRow, GatedActivation, Reduction };
const char* to_string(Family f); // "fused_row", "gated_activation", "reduction"

// The rules a refused op breaks (logos-ops.md §7 "typical refusals" and more).
enum class Rule {
    Syntax,                // not valid LOGOS (parse or type errors)
    Scan,                  // a value carried from one element to the next
    CrossRow,              // an output row reads other rows
    DataDependentIndex,    // an index computed from tensor data
    NonLastAxisReduction,  // a reduction over an axis that is not the last
    DataDependentLoop,     // a loop whose trip count depends on data
    NonTensorValue,        // Text, Map or another non-tensor value
    Recursion,             // a helper that calls itself
    NoFamily,              // tensors fine, but not one of the three families
    Unsupported,           // a construct solgen does not raise (named in the message)
};
const char* to_string(Rule r);    // kebab-case id, e.g. "data-dependent-index"
const char* describe(Rule r);     // one line in words

struct Refusal {
    std::string file;
    SourcePos pos;
    Rule rule = Rule::Unsupported;
    std::string message;
};

// A recognized op: its family and the IR the templates are filled from.
struct OpDescription {
    Family family = Family::FusedRow;
    ir::OpIR ir;
    std::vector<ir::Expr> reductions; // ir::reductions_in_order(ir)
    bool packed_halves = false;       // gated: gate and up are halves of one input
};

using Recognition = std::variant<OpDescription, Refusal>;

// The family matchers, each returning the description or why it does not match.
Recognition recognize_fused_row(const ir::OpIR& op);
Recognition recognize_gated_activation(const ir::OpIR& op);
Recognition recognize_reduction(const ir::OpIR& op);

// Classifies the op: the first family whose matcher accepts it, else the most
// specific refusal.
Recognition recognize(const ir::OpIR& op);

} // namespace solbench
