// The names both halves of a kernel.cu print: C++ identifiers for the op's tensors and
// axes, constants for its fixed sizes, and the axis sizes as run() holds them.
#pragma once

#include "ir/op_ir.h"

#include <string>
#include <vector>

namespace solbench::codegen {

// A C++ identifier for a .lg name: other characters become '_', and a name the
// kernels use themselves (row, cols, t0, ...) gets a trailing '_'.
std::string identifier(const std::string& name);
// The constexpr of a fixed axis: hidden_size -> kHiddenSize.
std::string constant_name(const std::string& axis);
std::string join(const std::vector<std::string>& v, const std::string& sep);

inline std::string input_name(const ir::OpIR& op, int i) {
    return identifier(op.inputs[static_cast<size_t>(i)].name);
}
inline std::string output_name(const ir::OpIR& op, int i) {
    return identifier(op.outputs[static_cast<size_t>(i)].name);
}
inline bool is_const(const ir::OpIR& op, int axis) {
    return op.axes[static_cast<size_t>(axis)].value.has_value();
}
// An axis size in run(): its constexpr, or the variable bound from a tensor's size.
std::string host_axis(const ir::OpIR& op, int axis);
std::string host_dim(const ir::OpIR& op, const ir::Dim& d);
// The columns an output row runs over (2 * half for cos/sin tables of half-width angles).
ir::Dim row_dim(const ir::OpIR& op);

} // namespace solbench::codegen
