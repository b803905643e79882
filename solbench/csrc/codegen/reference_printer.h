// IR -> the PyTorch reference: `def run(<inputs in order>):` in float32 math.
//
// Tensors are read as float32; every expression is evaluated on whole rows at
// once (a Load over a row's columns is the tensor, or a slice of it for packed
// halves; a Reduce is torch.sum/amax/amin over the last dim, keepdim), and each
// output is rounded to its dtype at the end. The result is returned as a
// tensor, or a tuple in output order.
#pragma once

#include "ir/op_ir.h"

#include <string>

namespace solbench::codegen {

std::string print_reference(const ir::OpIR& op);

} // namespace solbench::codegen
