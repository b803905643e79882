// The row kernel's schedules as data (codegen/row_schedule.h): which reductions share a pass,
// and which column values a pass keeps in registers for the loops after it.
#include "codegen/row_schedule.h"

#include <gtest/gtest.h>

namespace solbench::codegen {
namespace {

using ir::Expr;
using ir::Op;

const ir::Dim kRow{0, 1};
constexpr int kX = 0; // the row input

// Each loop builds its expressions afresh, as the raiser does: equal trees, not one node.
Expr x() {
    return ir::load(kX);
}
Expr row_max() {
    return ir::reduce(ir::ReduceKind::Max, x(), kRow);
}
Expr shifted_exp() {
    return ir::unary(Op::Exp, ir::binary(Op::Sub, x(), row_max()));
}

struct Softmax {
    std::vector<Expr> reductions{row_max(), ir::reduce(ir::ReduceKind::Sum, shifted_exp(), kRow)};
    OnlinePairs online{{reductions[1].get(), reductions[0].get()}};
    Expr out = ir::binary(Op::Div, shifted_exp(), reductions[1]);
};

int cached_x(const ir::Node& n) {
    return n.op == Op::Load && n.index == kX ? kX : -1;
}

TEST(RowSchedule, StreamedSoftmaxPairsItsMaxAndSumInOnePass) {
    const Softmax s;
    const RowSchedule streamed = schedule_streamed(s.reductions, s.online);
    ASSERT_EQ(streamed.passes.size(), 1u);
    EXPECT_EQ(streamed.passes[0].reductions, (std::vector<size_t>{0, 1}));
    EXPECT_EQ(streamed.online.size(), 1u);
    EXPECT_FALSE(streamed.keeps_values());
}

TEST(RowSchedule, CachedSoftmaxKeepsEachExponentialForTheOutputs) {
    const Softmax s;
    const RowSchedule cached = schedule_cached(s.reductions, {s.out}, cached_x, 1);
    EXPECT_TRUE(cached.online.empty()); // no rescales: the max is known before the sum
    ASSERT_EQ(cached.passes.size(), 2u);
    EXPECT_EQ(cached.passes[0].reductions, (std::vector<size_t>{0}));
    EXPECT_EQ(cached.passes[1].reductions, (std::vector<size_t>{1}));
    EXPECT_TRUE(cached.passes[0].kept.empty()); // the max reads x itself
    ASSERT_EQ(cached.passes[1].kept.size(), 1u);
    const ir::Node* kept = cached.passes[1].kept[0];
    EXPECT_EQ(kept->op, Op::Exp);
    // The output's own exp(x - max) stands for the kept one.
    EXPECT_EQ(cached.same_as.at(s.out->args[0].get()), kept);
}

TEST(RowSchedule, AValueReadBesideItsInputIsRecomputedWhenTheyDoNotFit) {
    // out = x * exp(x - max): keeping exp(x - max) would hold two row arrays (x's cache and
    // the kept value) where the launch plan sized its chunks for one.
    const Softmax s;
    const Expr out = ir::binary(Op::Mul, x(), shifted_exp());
    EXPECT_FALSE(schedule_cached(s.reductions, {out}, cached_x, 1).keeps_values());
    EXPECT_TRUE(schedule_cached(s.reductions, {out}, cached_x, 2).keeps_values());
}

TEST(RowSchedule, LayerNormRecomputesItsCenteredValue) {
    // x - mean is an add: cheaper recomputed in the outputs' loop than held (kKeepPolicy).
    auto mean = [] { return ir::reduce(ir::ReduceKind::Sum, x(), kRow); };
    auto centered = [&] { return ir::binary(Op::Sub, x(), mean()); };
    const Expr var =
        ir::reduce(ir::ReduceKind::Sum, ir::binary(Op::Mul, centered(), centered()), kRow);
    const std::vector<Expr> reductions{mean(), var};
    const Expr out = ir::binary(Op::Div, centered(), ir::unary(Op::Sqrt, var));
    const RowSchedule cached = schedule_cached(reductions, {out}, cached_x, 1);
    ASSERT_EQ(cached.passes.size(), 2u);
    EXPECT_FALSE(cached.keeps_values());
}

TEST(RowSchedule, ASoftCappedSoftmaxKeepsItsCapAndItsExponential) {
    // tanh in the max's pass, kept for the sum's; exp in the sum's, kept for the outputs.
    auto capped = [] { return ir::unary(Op::Tanh, x()); };
    const Expr max = ir::reduce(ir::ReduceKind::Max, capped(), kRow);
    auto shifted = [&] { return ir::unary(Op::Exp, ir::binary(Op::Sub, capped(), max)); };
    const Expr sum = ir::reduce(ir::ReduceKind::Sum, shifted(), kRow);
    const RowSchedule cached =
        schedule_cached({max, sum}, {ir::binary(Op::Div, shifted(), sum)}, cached_x, 1);
    ASSERT_EQ(cached.passes.size(), 2u);
    ASSERT_EQ(cached.passes[0].kept.size(), 1u);
    EXPECT_EQ(cached.passes[0].kept[0]->op, Op::Tanh);
    ASSERT_EQ(cached.passes[1].kept.size(), 1u);
    EXPECT_EQ(cached.passes[1].kept[0]->op, Op::Exp);
}

TEST(RowSchedule, RmsNormKeepsNothing) {
    // The sum of squares reads x * x; the outputs read x: nothing computed twice.
    const Expr ss = ir::reduce(ir::ReduceKind::Sum, ir::binary(Op::Mul, x(), x()), kRow);
    const Expr out = ir::binary(Op::Div, x(), ir::unary(Op::Sqrt, ss));
    const RowSchedule cached = schedule_cached({ss}, {out}, cached_x, 1);
    ASSERT_EQ(cached.passes.size(), 1u);
    EXPECT_FALSE(cached.keeps_values());
}

} // namespace
} // namespace solbench::codegen
