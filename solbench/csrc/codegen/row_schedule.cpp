// The row kernel's passes and the values they keep (row_schedule.h).
#include "codegen/row_schedule.h"

#include "codegen/expr_printer.h"
#include "ir/walk.h"

#include <algorithm>
#include <set>
#include <utility>

namespace solbench::codegen {

bool RowSchedule::keeps_values() const {
    return std::any_of(passes.begin(), passes.end(),
                       [](const RowPass& p) { return !p.kept.empty(); });
}

std::vector<std::vector<size_t>> pass_groups(const std::vector<ir::Expr>& reductions,
                                             const OnlinePairs& online) {
    // deepest(e): the highest level of a reduction in e (itself included), -1
    // for none; memoized, as the IR is a DAG with shared subexpressions.
    std::map<const ir::Node*, int> memo;
    std::function<int(const ir::Node*)> deepest = [&](const ir::Node* e) -> int {
        auto it = memo.find(e);
        if (it != memo.end()) return it->second;
        int level = -1;
        auto pair = online.find(e);
        if (pair != online.end()) {
            level = deepest(pair->second);
        } else {
            for (const ir::Expr& a : e->args)
                level = std::max(level, deepest(a.get()));
            if (e->op == ir::Op::Reduce) ++level;
        }
        memo[e] = level;
        return level;
    };
    std::vector<std::vector<size_t>> groups;
    std::vector<std::pair<int, ir::Dim>> keys;
    std::vector<size_t> order(reductions.size());
    for (size_t r = 0; r < reductions.size(); ++r)
        order[r] = r;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return deepest(reductions[a].get()) < deepest(reductions[b].get());
    });
    for (size_t r : order) {
        std::pair<int, ir::Dim> key{deepest(reductions[r].get()), reductions[r]->extent};
        auto it = std::find(keys.begin(), keys.end(), key);
        if (it == keys.end()) {
            keys.push_back(key);
            groups.push_back({r});
        } else {
            groups[static_cast<size_t>(it - keys.begin())].push_back(r);
        }
    }
    return groups;
}

RowSchedule schedule_streamed(const std::vector<ir::Expr>& reductions, const OnlinePairs& online) {
    RowSchedule s;
    s.online = online;
    for (std::vector<size_t>& g : pass_groups(reductions, online))
        s.passes.push_back({std::move(g), {}});
    return s;
}

namespace {

// A value the column loop computes: not a leaf (a load, a constant, a reduction's result)
// and not the same for every column of the row (those are computed once per row).
bool column_value(const ir::Node& n) {
    return !n.args.empty() && n.op != ir::Op::Reduce && !column_invariant(n);
}

// Whether e's column computation holds a special-function instruction (an exponential, a
// logarithm, a reciprocal...): only those are worth a register array to compute once.
bool has_special_function(const ir::Node& n) {
    static const std::set<ir::Op> special = {
        ir::Op::Exp, ir::Op::Log, ir::Op::Tanh, ir::Op::Sigmoid, ir::Op::Erf,
        ir::Op::Sin, ir::Op::Cos, ir::Op::Pow,  ir::Op::Sqrt,    ir::Op::Div};
    if (!column_value(n)) return false;
    if (special.count(n.op)) return true;
    return std::any_of(n.args.begin(), n.args.end(),
                       [](const ir::Expr& a) { return has_special_function(*a); });
}

} // namespace

RowSchedule schedule_cached(const std::vector<ir::Expr>& reductions,
                            const std::vector<ir::Expr>& outputs,
                            const std::function<int(const ir::Node&)>& cached_input,
                            size_t budget) {
    RowSchedule s = schedule_streamed(reductions, {});
    // What each loop over the row evaluates: the passes' elements, then the outputs.
    std::vector<std::vector<ir::Expr>> roots;
    for (const RowPass& p : s.passes) {
        roots.emplace_back();
        for (size_t r : p.reductions)
            roots.back().push_back(reductions[r]->args[0]);
    }
    roots.push_back(outputs);

    // The raiser builds each loop's expression afresh, so a value two loops compute is two
    // equal trees: every node stands for the first equal one met (loops in order).
    std::vector<ir::Expr> firsts;
    std::function<void(const ir::Expr&)> classify = [&](const ir::Expr& e) {
        if (s.same_as.count(e.get())) return;
        for (const ir::Expr& a : e->args)
            classify(a);
        auto first = std::find_if(firsts.begin(), firsts.end(),
                                  [&](const ir::Expr& f) { return ir::same(f, e); });
        if (first == firsts.end()) first = firsts.insert(firsts.end(), e);
        s.same_as[e.get()] = first->get();
    };
    for (const auto& loop : roots)
        for (const ir::Expr& r : loop)
            classify(r);
    auto rep = [&](const ir::Node* n) { return s.same_as.at(n); };

    std::set<const ir::Node*> available; // kept by an earlier pass (representatives)
    for (size_t k = 0; k + 1 < roots.size(); ++k) {
        // The column values pass k computes (a kept one is read, not computed).
        std::set<const ir::Node*> mine;
        std::function<void(const ir::Node*)> computes = [&](const ir::Node* n) {
            if (available.count(rep(n)) || !column_value(*n) || !mine.insert(rep(n)).second) return;
            for (const ir::Expr& a : n->args)
                computes(a.get());
        };
        for (const ir::Expr& r : roots[k])
            computes(r.get());
        // The ones the later loops read: each stops at a value kept before or now.
        std::vector<const ir::Node*> keep;
        std::set<int> arrays; // row arrays in registers after pass k: cached inputs read later
        std::set<const ir::Node*> later_kept, seen;
        std::function<void(const ir::Node*)> reads = [&](const ir::Node* n) {
            const ir::Node* r = rep(n);
            if (!seen.insert(r).second) return;
            const bool worth = !kKeepPolicy.special_functions_only || has_special_function(*r);
            if (available.count(r) || (mine.count(r) && worth)) {
                if (mine.count(r)) keep.push_back(r);
                later_kept.insert(r);
                return;
            }
            if (const int input = cached_input(*n); input >= 0) arrays.insert(input);
            if (n->op == ir::Op::Reduce) return; // a per-row result, not its element
            for (const ir::Expr& a : n->args)
                reads(a.get());
        };
        for (size_t h = k + 1; h < roots.size(); ++h)
            for (const ir::Expr& r : roots[h])
                reads(r.get());
        if (arrays.size() + later_kept.size() > budget) continue; // would not fit: recompute
        s.passes[k].kept = keep;
        available.insert(keep.begin(), keep.end());
    }
    return s;
}

} // namespace solbench::codegen
