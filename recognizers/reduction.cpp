// Reduction family: one value per row, computed from reductions over the
// row's last axis (sum, mean, max, min, sum of squares, norms).
#include "recognizers/ir_queries.h"
#include "recognizers/recognizer.h"

namespace solbench {

Recognition recognize_reduction(const ir::OpIR& op) {
    for (size_t i = 0; i < op.outputs.size(); ++i) {
        SourcePos pos = i < op.value_pos.size() ? op.value_pos[i] : op.pos;
        if (op.outputs[i].role == ir::Role::ColumnSum) continue; // its own kernel
        if (op.outputs[i].role != ir::Role::PerRow)
            return refuse_op(op, pos, Rule::NoFamily,
                             "reduction: '" + op.outputs[i].name + "' keeps the row's last axis");
        if (!ir_queries::has_reduce(op.values[i]))
            return refuse_op(op, pos, Rule::NoFamily,
                             "reduction: '" + op.outputs[i].name + "' reduces nothing");
        if (ir_queries::loads_outside_reduce(op.values[i]))
            return refuse_op(op, pos, Rule::ElementOutsideReduction,
                             "reduction: '" + op.outputs[i].name +
                                 "' reads elements outside a reduction");
    }
    return describe_op(Family::Reduction, op);
}

} // namespace solbench
