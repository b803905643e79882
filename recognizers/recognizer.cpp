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
    // Column reductions (r2 §8) ride beside the row outputs of a family: their
    // own kernel sums an elementwise value over the rows.
    bool row_outputs = false;
    for (size_t i = 0; i < op.values.size(); ++i) {
        SourcePos pos = i < op.value_pos.size() ? op.value_pos[i] : op.pos;
        if (op.outputs[i].role != ir::Role::ColumnSum) {
            row_outputs = true;
            continue;
        }
        if (ir_queries::has_reduce(op.values[i]))
            return refuse_op(op, pos, Rule::Unsupported,
                             "column reduction '" + op.outputs[i].name +
                                 "' sums a value that needs a row reduction; solgen sums "
                                 "elementwise values over the rows");
    }
    if (!row_outputs)
        return refuse_op(op, op.pos, Rule::NoFamily,
                         "every output is a column reduction; solgen emits them beside the row "
                         "outputs of a family");
    for (size_t i = 0; i < op.values.size(); ++i) {
        SourcePos pos = i < op.value_pos.size() ? op.value_pos[i] : op.pos;
        if (ir_queries::any_node(op.values[i], [&](const ir::Node& n) {
                return n.op == ir::Op::Load && n.fixed_column.has_value() &&
                       op.inputs[static_cast<size_t>(n.index)].role != ir::Role::Table;
            }))
            return refuse_op(op, pos, Rule::ElementOutsideReduction,
                             "'" + op.outputs[i].name +
                                 "' uses one fixed element of a row (e.g. `item 1 of row`) outside "
                                 "a max or min it starts");
    }
    return std::nullopt;
}

} // namespace

std::vector<OpDescription> row_set_parts(const OpDescription& op) {
    if (op.set_families.empty()) return {op};
    std::vector<OpDescription> parts;
    for (size_t k = 0; k < op.set_families.size(); ++k)
        parts.push_back(describe_op(op.set_families[k].family,
                                    ir::project(op.ir, static_cast<int>(k)),
                                    op.set_families[k].packed_halves));
    return parts;
}

namespace {

Recognition recognize_one_set(const ir::OpIR& op);

// Several row sets: each is recognized on its own, the first refusal stops.
Recognition recognize_row_sets(const ir::OpIR& op) {
    std::vector<SetFamily> families;
    for (int k = 0; k < ir::row_set_count(op); ++k) {
        Recognition r = recognize_one_set(ir::project(op, k));
        if (auto* failure = std::get_if<Failure>(&r)) return *failure;
        const OpDescription& part = std::get<OpDescription>(r);
        families.push_back({part.family, part.packed_halves});
    }
    OpDescription d = describe_op(families.front().family, op);
    d.set_families = std::move(families);
    return d;
}

} // namespace

Recognition recognize(const ir::OpIR& op) {
    if (ir::row_set_count(op) > 1) return recognize_row_sets(op);
    return recognize_one_set(op);
}

namespace {

Recognition recognize_one_set(const ir::OpIR& op) {
    if (auto r = common_refusal(op)) return *r;
    Recognition last = refuse_op(op, op.pos, Rule::NoFamily, "no family matched");
    for (auto* matcher : {recognize_reduction, recognize_gated_activation, recognize_fused_row}) {
        Recognition r = matcher(op);
        if (std::holds_alternative<OpDescription>(r)) return r;
        last = r;
    }
    return last;
}

} // namespace

} // namespace solbench
