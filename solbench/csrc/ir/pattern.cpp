#include "ir/pattern.h"

#include "ir/walk.h"

namespace solbench::ir::pattern {

namespace {

// Binds name to e, or checks an earlier binding is the same expression.
bool bind(const std::string& name, const Expr& e, Bindings& bound) {
    auto [it, fresh] = bound.emplace(name, e);
    return fresh || same(it->second, e);
}

bool args_match(const std::vector<Pattern>& args, const Expr& e, Bindings& bound) {
    if (e->args.size() != args.size()) return false;
    for (size_t i = 0; i < args.size(); ++i)
        if (!args[i].matches(e->args[i], bound)) return false;
    return true;
}

} // namespace

Pattern Pattern::named(std::string name) const {
    Test inner = test_;
    return Pattern([inner, name](const Expr& e, Bindings& bound) {
        return inner(e, bound) && bind(name, e, bound);
    });
}

Pattern Pattern::where(std::function<bool(const Node&)> pred) const {
    Test inner = test_;
    return Pattern(
        [inner, pred](const Expr& e, Bindings& bound) { return pred(*e) && inner(e, bound); });
}

Pattern any() {
    return Pattern([](const Expr&, Bindings&) { return true; });
}

Pattern var(std::string name) {
    return any().named(std::move(name));
}

Pattern constant(double value) {
    return Pattern(
        [value](const Expr& e, Bindings&) { return e->op == Op::Const && e->value == value; });
}

Pattern node(Op op, std::vector<Pattern> args) {
    return Pattern([op, args](const Expr& e, Bindings& bound) {
        return e->op == op && args_match(args, e, bound);
    });
}

Pattern commutative(Op op, Pattern a, Pattern b) {
    return Pattern([op, a, b](const Expr& e, Bindings& bound) {
        if (e->op != op || e->args.size() != 2) return false;
        Bindings tried = bound; // the first order may bind names before failing
        if (a.matches(e->args[0], tried) && b.matches(e->args[1], tried)) {
            bound = std::move(tried);
            return true;
        }
        return a.matches(e->args[1], bound) && b.matches(e->args[0], bound);
    });
}

Pattern reduce(ReduceKind kind, Pattern element) {
    return Pattern([kind, element](const Expr& e, Bindings& bound) {
        return e->op == Op::Reduce && e->reduce_kind == kind && element.matches(e->args[0], bound);
    });
}

Pattern load() {
    return Pattern([](const Expr& e, Bindings&) { return e->op == Op::Load; });
}

std::optional<Bindings> match(const Pattern& p, const Expr& e) {
    Bindings bound;
    if (!p.matches(e, bound)) return std::nullopt;
    return bound;
}

} // namespace solbench::ir::pattern
