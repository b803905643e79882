// Small questions the family matchers ask of IR expressions.
#pragma once

#include "ir/op_ir.h"

#include <functional>
#include <set>

namespace solbench::ir_queries {

// True when `pred` holds for some node reachable from e (each node once).
inline bool any_node(const ir::Expr& e, const std::function<bool(const ir::Node&)>& pred) {
    std::set<const ir::Node*> seen;
    std::function<bool(const ir::Expr&)> walk = [&](const ir::Expr& x) {
        if (!seen.insert(x.get()).second) return false;
        if (pred(*x)) return true;
        for (const auto& a : x->args)
            if (walk(a)) return true;
        return false;
    };
    return walk(e);
}

// True when e reads an input at the current column outside every Reduce.
inline bool loads_outside_reduce(const ir::Expr& e) {
    if (e->op == ir::Op::Load) return true;
    if (e->op == ir::Op::Reduce) return false;
    for (const auto& a : e->args)
        if (loads_outside_reduce(a)) return true;
    return false;
}

inline bool has_reduce(const ir::Expr& e) {
    return any_node(e, [](const ir::Node& n) { return n.op == ir::Op::Reduce; });
}

} // namespace solbench::ir_queries
