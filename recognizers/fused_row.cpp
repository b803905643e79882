// Fused-row family: row-shaped outputs computed from the same row of the
// inputs through one or more row reductions and an elementwise epilogue
// (RMSNorm, LayerNorm, softmax...). Per-row side outputs (e.g. a row's rstd)
// may accompany them.
#include "recognizers/ir_queries.h"
#include "recognizers/recognizer.h"

namespace solbench {

Recognition recognize_fused_row(const ir::OpIR& op) {
    bool any_rows = false, any_reduce = false;
    for (size_t i = 0; i < op.outputs.size(); ++i) {
        if (op.outputs[i].role == ir::Role::ColumnSum) continue; // its own kernel
        if (op.outputs[i].role == ir::Role::Rows) any_rows = true;
        if (ir_queries::has_reduce(op.values[i])) any_reduce = true;
        // A sum over rows (r2 §8) adds per-row values, which the row kernel computes.
        if ((op.outputs[i].role == ir::Role::PerRow || op.outputs[i].role == ir::Role::RowSum) &&
            ir_queries::loads_outside_reduce(op.values[i]))
            return refuse_op(op, i < op.value_pos.size() ? op.value_pos[i] : op.pos,
                             Rule::ElementOutsideReduction,
                             "fused row: per-row output '" + op.outputs[i].name +
                                 "' reads elements outside a reduction");
    }
    if (!any_rows || !any_reduce)
        return refuse_op(op, op.pos, Rule::NoFamily,
                         "fused row: needs row-shaped outputs and at least one row reduction");
    return describe_op(Family::FusedRow, op);
}

} // namespace solbench
