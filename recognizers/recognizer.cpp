// Names of families and rules, and the order families are tried in.
#include "recognizers/recognizer.h"

#include "recognizers/ir_queries.h"

namespace solbench {

const char* to_string(Family f) {
    switch (f) {
    case Family::FusedRow:
        return "fused_row";
    case Family::GatedActivation:
        return "gated_activation";
    case Family::Reduction:
        return "reduction";
    }
    return "fused_row";
}

Failure refuse_op(const ir::OpIR& op, SourcePos pos, Rule rule, std::string message) {
    return Failure{op.file, {refusal(pos, rule, std::move(message))}};
}

namespace {

// Problems no family accepts, found before families are tried.
std::optional<Failure> common_refusal(const ir::OpIR& op) {
    for (size_t i = 0; i < op.values.size(); ++i) {
        SourcePos pos = i < op.value_pos.size() ? op.value_pos[i] : op.pos;
        if (ir_queries::any_node(op.values[i], [](const ir::Node& n) {
                return n.op == ir::Op::Load && n.fixed_column.has_value();
            }))
            return refuse_op(op, pos, Rule::ElementOutsideReduction,
                             "'" + op.outputs[i].name +
                                 "' uses one fixed element of a row (e.g. `item 1 of row`) outside "
                                 "a max or min it starts");
    }
    return std::nullopt;
}

} // namespace

Recognition recognize(const ir::OpIR& op) {
    if (auto r = common_refusal(op)) return *r;
    Recognition last = refuse_op(op, op.pos, Rule::NoFamily, "no family matched");
    for (auto* matcher : {recognize_reduction, recognize_gated_activation, recognize_fused_row}) {
        Recognition r = matcher(op);
        if (std::holds_alternative<OpDescription>(r)) return r;
        last = r;
    }
    return last;
}

} // namespace solbench
