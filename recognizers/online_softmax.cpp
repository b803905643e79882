// Softmax's normalizer, `sum of exp(e - m)` with `m = max of e` over the same
// columns: a recognized pair the kernel reduces in one pass (each thread keeps
// its running max and a sum scaled to it, rescaling when the max grows), so
// the row is read once for both instead of once each.
#include "ir/pattern.h"
#include "recognizers/recognizer.h"

#include <algorithm>

namespace solbench {

namespace {

namespace p = ir::pattern;

// sum(exp(e - max(e))), binding the max as "m".
const p::Pattern& softmax_normalizer() {
    static const p::Pattern pat = p::reduce(
        ir::ReduceKind::Sum,
        p::node(ir::Op::Exp,
                {p::node(ir::Op::Sub,
                         {p::var("e"), p::reduce(ir::ReduceKind::Max, p::var("e")).named("m")})}));
    return pat;
}

} // namespace

std::vector<OnlinePair> online_pairs(const std::vector<ir::Expr>& reductions) {
    std::vector<OnlinePair> pairs;
    auto index_of = [&](const ir::Node* n) {
        auto it = std::find_if(reductions.begin(), reductions.end(),
                               [&](const ir::Expr& x) { return x.get() == n; });
        return it == reductions.end() ? reductions.size()
                                      : static_cast<size_t>(it - reductions.begin());
    };
    for (size_t s = 0; s < reductions.size(); ++s) {
        auto bound = p::match(softmax_normalizer(), reductions[s]);
        if (!bound) continue;
        const ir::Expr& m = bound->at("m");
        size_t mi = index_of(m.get());
        bool taken = std::any_of(pairs.begin(), pairs.end(),
                                 [&](const OnlinePair& q) { return q.max == mi; });
        if (mi == reductions.size() || taken || !(m->extent == reductions[s]->extent)) continue;
        pairs.push_back({s, mi});
    }
    return pairs;
}

OpDescription describe_op(Family family, ir::OpIR op, bool packed_halves) {
    OpDescription d;
    d.family = family;
    d.reductions = ir::reductions_in_order(op);
    d.online = online_pairs(d.reductions);
    d.ir = std::move(op);
    d.packed_halves = packed_halves;
    return d;
}

} // namespace solbench
