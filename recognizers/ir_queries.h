// Small questions the family matchers ask of IR expressions.
#pragma once

#include "ir/op_ir.h"
#include "ir/walk.h"

namespace solbench::ir_queries {

using ir::any_node; // ir/walk.h

// True when e reads an input at the current column (or the column itself) outside every
// Reduce.
inline bool loads_outside_reduce(const ir::Expr& e) {
    if (e->op == ir::Op::Load || e->op == ir::Op::Column) return true;
    if (e->op == ir::Op::Reduce) return false;
    for (const auto& a : e->args)
        if (loads_outside_reduce(a)) return true;
    return false;
}

inline bool has_reduce(const ir::Expr& e) {
    return any_node(e, [](const ir::Node& n) { return n.op == ir::Op::Reduce; });
}

} // namespace solbench::ir_queries
