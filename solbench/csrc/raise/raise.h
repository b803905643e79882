// Raising: a parsed, checked LOGOS op in, the op IR (or a refusal) out.
//
// The raiser runs the op SYMBOLICALLY: each row loop once with a symbolic
// row, each column loop once with a symbolic column. Index arithmetic stays
// exact (raise/poly.h), element values become IR expressions, and a variable
// updated across a column loop is matched against the reduction forms
// (s = s + t, m = max(m, t), If t > m: m = t). Anything that does not fit the
// row-parallel shape is refused at the statement that breaks it.
#pragma once

#include "frontend/ast.h"
#include "frontend/checker.h"
#include "ir/op_ir.h"
#include "recognizers/recognizer.h"

#include <string>
#include <variant>

namespace solbench {

using Raised = Result<ir::OpIR>; // the IR, or a Failure holding one refusal

// `op` must be a function of `program` (which passed check(), giving `facts`).
Raised raise_op(const ast::Program& program, const ast::Function& op, const std::string& file,
                const TypeFacts& facts = {});

} // namespace solbench
