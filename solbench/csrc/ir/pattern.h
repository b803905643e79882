// A small declarative matcher over IR expressions, in the manner of MLIR's
// m_Op matchers and tinygrad's UPat: a pattern says what a node looks like,
// a named pattern binds the node it matched, and a name bound twice must bind
// structurally equal nodes (ir::same), so `exp(var("x") - max(var("x")))`
// finds a softmax numerator over one element expression.
#pragma once

#include "ir/op_ir.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace solbench::ir::pattern {

using Bindings = std::map<std::string, Expr, std::less<>>;

class Pattern {
  public:
    using Test = std::function<bool(const Expr&, Bindings&)>;
    explicit Pattern(Test test) : test_(std::move(test)) {}

    // Whether e matches, adding the names bound on the way (partial on failure).
    bool matches(const Expr& e, Bindings& bound) const { return test_(e, bound); }
    // The same pattern, also binding the node it matches under `name`.
    Pattern named(std::string name) const;
    // The same pattern, also requiring pred of the node.
    Pattern where(std::function<bool(const Node&)> pred) const;

  private:
    Test test_;
};

Pattern any();                                    // any node
Pattern var(std::string name);                    // any node, bound to name
Pattern constant(double value);                   // a Const of this value
Pattern node(Op op, std::vector<Pattern> args);   // op with these arguments
Pattern commutative(Op op, Pattern a, Pattern b); // op(a, b) or op(b, a)
Pattern reduce(ReduceKind kind, Pattern element); // a Reduce of this kind
Pattern load();                                   // any Load

// The bindings of a match of p at e, or nothing.
std::optional<Bindings> match(const Pattern& p, const Expr& e);

} // namespace solbench::ir::pattern
