// The IR toolkit the stages share: walking, structural equality, rewriting,
// the pattern matcher, the operator table, and the online-softmax recognizer
// built from them.
#include "ir/builtins.h"
#include "ir/operators.h"
#include "ir/pattern.h"
#include "ir/walk.h"
#include "recognizers/recognizer.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace solbench;
using namespace solbench::ir;
namespace p = solbench::ir::pattern;

namespace {

Expr softmax_sum(Expr element) {
    Expr m = reduce(ReduceKind::Max, element, {1, 1});
    return reduce(ReduceKind::Sum, unary(Op::Exp, binary(Op::Sub, element, m)), {1, 1});
}

} // namespace

TEST(IrWalk, SameIsStructuralNotByPointer) {
    Expr a = binary(Op::Add, load(0), constant(1));
    Expr b = binary(Op::Add, load(0), constant(1));
    EXPECT_NE(a.get(), b.get());
    EXPECT_TRUE(same(a, b));
    EXPECT_FALSE(same(a, binary(Op::Add, load(1), constant(1))));
    EXPECT_FALSE(same(a, binary(Op::Add, load(0), constant(2))));
    EXPECT_FALSE(
        same(reduce(ReduceKind::Sum, load(0), {1, 1}), reduce(ReduceKind::Max, load(0), {1, 1})));
}

TEST(IrWalk, VisitSeesEachSharedNodeOnceArgumentsFirst) {
    Expr x = load(0);
    Expr s = reduce(ReduceKind::Sum, x, {1, 1});
    Expr e = binary(Op::Div, x, s); // x twice: once directly, once under the sum
    std::vector<Op> order;
    visit(e, [&](const Node& n) { order.push_back(n.op); });
    EXPECT_EQ(order, (std::vector<Op>{Op::Load, Op::Reduce, Op::Div}));
    EXPECT_TRUE(any_node(e, [](const Node& n) { return n.op == Op::Reduce; }));
    EXPECT_FALSE(any_node(e, [](const Node& n) { return n.op == Op::Exp; }));
}

TEST(IrWalk, RewriteKeepsSharedNodesShared) {
    Expr x = load(0);
    Expr sq = binary(Op::Mul, x, x);
    Expr e = binary(Op::Add, sq, sq);
    Expr out = rewrite(e, [](const Expr& n) { return n->op == Op::Load ? load(1) : n; });
    ASSERT_EQ(out->op, Op::Add);
    EXPECT_EQ(out->args[0].get(), out->args[1].get()); // still one square
    EXPECT_EQ(out->args[0]->args[0]->index, 1);
    EXPECT_EQ(out->args[0]->args[0].get(), out->args[0]->args[1].get());
    Expr same_tree = rewrite(e, [](const Expr& n) { return n; });
    EXPECT_EQ(same_tree.get(), e.get()); // nothing changed: nothing rebuilt
}

TEST(IrPattern, NamesBindAndRepeatedNamesMustBeEqual) {
    p::Pattern pat = p::node(Op::Sub, {p::var("a"), p::var("a")});
    EXPECT_TRUE(p::match(pat, binary(Op::Sub, load(0), load(0))));
    EXPECT_FALSE(p::match(pat, binary(Op::Sub, load(0), load(1))));
    auto b = p::match(
        p::node(Op::Mul, {p::var("k").where([](const Node& n) { return n.op == Op::Const; }),
                          p::load().named("x")}),
        binary(Op::Mul, constant(2), load(3)));
    ASSERT_TRUE(b);
    EXPECT_EQ(b->at("k")->value, 2);
    EXPECT_EQ(b->at("x")->index, 3);
}

TEST(IrPattern, CommutativeTriesBothOrdersWithoutLeakingBindings) {
    // the first order binds "c" to the load before failing on the constant
    p::Pattern pat = p::commutative(
        Op::Add, p::var("c").where([](const Node& n) { return n.op == Op::Load; }), p::constant(1));
    auto b = p::match(pat, binary(Op::Add, constant(1), load(0)));
    ASSERT_TRUE(b);
    EXPECT_EQ(b->at("c")->op, Op::Load);
    EXPECT_FALSE(p::match(pat, binary(Op::Mul, constant(1), load(0))));
}

TEST(OnlineSoftmax, PairsTheNormalizerWithItsMax) {
    Expr s = softmax_sum(load(0));
    std::vector<Expr> reductions = {s->args[0]->args[0]->args[1], s};
    auto pairs = online_pairs(reductions);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0], (OnlinePair{1, 0}));
}

TEST(OnlineSoftmax, RefusesAMaxOfAnotherElementOrExtent) {
    // sum(exp(2x - max(x))): the exponent is not the max's element
    Expr x = load(0);
    Expr m = reduce(ReduceKind::Max, x, {1, 1});
    Expr s = reduce(ReduceKind::Sum,
                    unary(Op::Exp, binary(Op::Sub, binary(Op::Mul, constant(2), x), m)), {1, 1});
    EXPECT_TRUE(online_pairs({m, s}).empty());
    // a max over another extent
    Expr m2 = reduce(ReduceKind::Max, x, {1, 2});
    Expr s2 = reduce(ReduceKind::Sum, unary(Op::Exp, binary(Op::Sub, x, m2)), {1, 1});
    EXPECT_TRUE(online_pairs({m2, s2}).empty());
    // a max that is not among the reductions
    EXPECT_TRUE(online_pairs({softmax_sum(x)}).empty());
}

TEST(OperatorTable, EveryOpHasOneRowInOneTable) {
    std::set<std::string> names;
    for (int i = 0; i <= static_cast<int>(Op::Cast); ++i) {
        Op op = static_cast<Op>(i);
        const Operator* o = find_operator(op);
        const Builtin* b = find_builtin(op);
        EXPECT_NE(o == nullptr, b == nullptr) << "op " << i << " must be in exactly one table";
        EXPECT_TRUE(names.insert(to_string(op)).second) << to_string(op);
        EXPECT_EQ(arity(op), o ? o->arity : b->arity);
    }
    EXPECT_EQ(find_operator(Op::Sub)->eval(5, 3), 2);
    EXPECT_EQ(find_operator(Op::Le)->eval(3, 3), 1);
    EXPECT_EQ(find_operator(Op::Mod)->eval(-7, 3), -1);    // truncating, as C's fmod
    EXPECT_EQ(find_operator(Op::IntDiv)->eval(-7, 2), -3); // toward zero, not floor
}
