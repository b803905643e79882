// Names of families and rules, and the order families are tried in.
#include "recognizers/recognizer.h"

#include "recognizers/ir_queries.h"

namespace solbench {

const char* to_string(Family f) {
    switch (f) {
    case Family::FusedRow: return "fused_row";
    case Family::GatedActivation: return "gated_activation";
    case Family::Reduction: return "reduction";
    }
    return "fused_row";
}

const char* to_string(Rule r) {
    switch (r) {
    case Rule::Syntax: return "syntax";
    case Rule::Scan: return "scan";
    case Rule::CrossRow: return "cross-row";
    case Rule::DataDependentIndex: return "data-dependent-index";
    case Rule::NonLastAxisReduction: return "non-last-axis-reduction";
    case Rule::DataDependentLoop: return "data-dependent-loop";
    case Rule::NonTensorValue: return "non-tensor-value";
    case Rule::Recursion: return "recursion";
    case Rule::NoFamily: return "no-family";
    case Rule::Unsupported: return "unsupported";
    }
    return "unsupported";
}

const char* describe(Rule r) {
    switch (r) {
    case Rule::Syntax: return "not valid LOGOS";
    case Rule::Scan: return "a value carried from one element to the next (a scan)";
    case Rule::CrossRow: return "an output row reads other rows";
    case Rule::DataDependentIndex: return "an index that depends on data";
    case Rule::NonLastAxisReduction: return "a reduction over an axis that is not the last";
    case Rule::DataDependentLoop: return "a loop whose trip count depends on data";
    case Rule::NonTensorValue: return "a non-tensor value (Text, Map, ...)";
    case Rule::Recursion: return "a recursive helper";
    case Rule::NoFamily: return "not one of the fused-row, gated-activation or reduction families";
    case Rule::Unsupported: return "a construct solgen does not raise";
    }
    return "";
}

namespace {

// Problems no family accepts, found before families are tried.
std::optional<Refusal> common_refusal(const ir::OpIR& op) {
    for (size_t i = 0; i < op.values.size(); ++i) {
        SourcePos pos = i < op.value_pos.size() ? op.value_pos[i] : op.pos;
        if (ir_queries::any_node(op.values[i], [](const ir::Node& n) {
                return n.op == ir::Op::Load && n.fixed_column.has_value();
            }))
            return Refusal{op.file, pos, Rule::Unsupported,
                           "'" + op.outputs[i].name +
                               "' uses one fixed element of a row (e.g. `item 1 of row`) outside "
                               "a max or min it starts"};
    }
    return std::nullopt;
}

} // namespace

Recognition recognize(const ir::OpIR& op) {
    if (auto r = common_refusal(op)) return *r;
    Recognition last = Refusal{op.file, op.pos, Rule::NoFamily, "no family matched"};
    for (auto* matcher : {recognize_reduction, recognize_gated_activation, recognize_fused_row}) {
        Recognition r = matcher(op);
        if (std::holds_alternative<OpDescription>(r)) return r;
        last = r;
    }
    return last;
}

} // namespace solbench
