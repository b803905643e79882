// Gated activation family (SwiGLU and kin) and plain elementwise maps: every
// output element depends only on elements at the same position of same-shaped
// inputs, or of the two halves of one packed input's last axis.
#include "recognizers/ir_queries.h"
#include "recognizers/recognizer.h"

namespace solbench {

Recognition recognize_gated_activation(const ir::OpIR& op) {
    bool packed = false;
    for (size_t i = 0; i < op.outputs.size(); ++i) {
        SourcePos pos = i < op.value_pos.size() ? op.value_pos[i] : op.pos;
        if (op.outputs[i].role == ir::Role::ColumnSum) continue; // its own kernel
        if (op.outputs[i].role != ir::Role::Rows)
            return refuse_op(op, pos, Rule::NoFamily,
                             "gated activation: '" + op.outputs[i].name + "' is not elementwise");
        if (ir_queries::has_reduce(op.values[i]))
            return refuse_op(op, pos, Rule::NoFamily,
                             "gated activation: '" + op.outputs[i].name +
                                 "' needs a row reduction");
        if (ir_queries::any_node(op.values[i],
                                 [](const ir::Node& n) { return n.col_offset.has_value(); }))
            packed = true;
    }
    for (const ir::Tensor& t : op.inputs)
        if (t.role == ir::Role::Rows && t.shape.back().scale == 2) packed = true;
    return describe_op(Family::GatedActivation, op, packed);
}

} // namespace solbench
