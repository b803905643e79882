// Static checks after parsing: names resolve, builtins and helpers get the
// right number of arguments, types fit (logos-ops.md §3-§6), duplicate
// parameters, `Return` placement. Returns every problem found, in source order.
#pragma once

#include "frontend/ast.h"
#include "frontend/source.h"

#include <vector>

namespace solbench {

std::vector<Diagnostic> check(const ast::Program& program);

} // namespace solbench
