#include "ir/walk.h"

#include <map>
#include <set>

namespace solbench::ir {

bool same(const Expr& a, const Expr& b) {
    if (a.get() == b.get()) return true;
    if (a->op != b->op || a->value != b->value || a->index != b->index ||
        a->col_offset != b->col_offset || a->col_wrap != b->col_wrap || a->col_div != b->col_div ||
        a->fixed_column != b->fixed_column || a->reduce_kind != b->reduce_kind ||
        !(a->extent == b->extent) || a->dtype != b->dtype || a->args.size() != b->args.size())
        return false;
    for (size_t i = 0; i < a->args.size(); ++i)
        if (!same(a->args[i], b->args[i])) return false;
    return true;
}

void visit(const Expr& root, const std::function<void(const Node&)>& fn) {
    std::set<const Node*> seen;
    std::function<void(const Expr&)> walk = [&](const Expr& e) {
        if (!seen.insert(e.get()).second) return;
        for (const Expr& a : e->args)
            walk(a);
        fn(*e);
    };
    walk(root);
}

bool any_node(const Expr& e, const std::function<bool(const Node&)>& pred) {
    std::set<const Node*> seen;
    std::function<bool(const Expr&)> walk = [&](const Expr& x) {
        if (!seen.insert(x.get()).second) return false;
        if (pred(*x)) return true;
        for (const Expr& a : x->args)
            if (walk(a)) return true;
        return false;
    };
    return walk(e);
}

Expr with_args(const Expr& e, std::vector<Expr> args) {
    Node n = *e;
    n.args = std::move(args);
    return std::make_shared<const Node>(std::move(n));
}

Expr rewrite(const Expr& root, const std::function<Expr(const Expr&)>& fn) {
    std::map<const Node*, Expr> done;
    std::function<Expr(const Expr&)> walk = [&](const Expr& e) -> Expr {
        if (auto it = done.find(e.get()); it != done.end()) return it->second;
        std::vector<Expr> args;
        bool changed = false;
        for (const Expr& a : e->args) {
            args.push_back(walk(a));
            changed = changed || args.back().get() != a.get();
        }
        Expr out = fn(changed ? with_args(e, std::move(args)) : e);
        done[e.get()] = out;
        return out;
    };
    return walk(root);
}

} // namespace solbench::ir
