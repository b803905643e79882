// The storage dtype of a LOGOS element type, for every stage that needs it
// (the checker's facts, the interpreter's stores, the raiser's tensors).
#pragma once

#include "frontend/ast.h"
#include "ir/op_ir.h"

#include <optional>

namespace solbench {

// nullopt for Text. Real is Float64 and Int is Int64 (logos-ops.md §3).
std::optional<ir::DType> to_dtype(ast::ElemType t);

} // namespace solbench
