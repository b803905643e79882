// Static checks after parsing: names resolve, builtins and helpers get the
// right number of arguments, types fit (logos-ops.md §3-§6), duplicate
// parameters, `Return` placement. Returns every problem found, in source order.
#pragma once

#include "frontend/ast.h"
#include "frontend/source.h"

#include <set>
#include <vector>

namespace solbench {

// What the checker learns about types that later stages need.
struct TypeFacts {
    // `Let mutable s be 0.` later Set to a Real: s is a Real from the start
    // (logos-ops.md §6, r2).
    std::set<const ast::Let*> real_int_literals;
};

std::vector<Diagnostic> check(const ast::Program& program, TypeFacts* facts = nullptr);

} // namespace solbench
