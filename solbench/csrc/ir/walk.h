// Walking, comparing and rewriting IR expressions. The IR is a DAG (a
// reduction used twice is one node), so every walk here visits each node once
// and a rewrite keeps shared nodes shared.
#pragma once

#include "ir/op_ir.h"

#include <functional>

namespace solbench::ir {

// Structural equality: the same ops, fields and arguments (shared or not).
bool same(const Expr& a, const Expr& b);

// fn on every node reachable from root, each once, arguments before their users.
void visit(const Expr& root, const std::function<void(const Node&)>& fn);

// True when pred holds for some node reachable from e.
bool any_node(const Expr& e, const std::function<bool(const Node&)>& pred);

// A copy of e with other arguments (everything else as in e).
Expr with_args(const Expr& e, std::vector<Expr> args);

// Bottom-up rewrite: fn sees each node with its arguments already rewritten and
// returns its replacement (or the node itself). Each node is rewritten once.
Expr rewrite(const Expr& root, const std::function<Expr(const Expr&)>& fn);

} // namespace solbench::ir
