// The pair form of a column loop (codegen/pair_printer.h): which trees have one, what they
// print two columns at a time, and what is left to the scalar row printer.
#include "codegen/expr_printer.h"
#include "codegen/pair_printer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace solbench;
using namespace solbench::ir;
using solbench::codegen::ExprNames;
using solbench::codegen::ExprPrinter;
using solbench::codegen::PairPrinter;

namespace {

ExprNames row_names() {
    ExprNames n;
    n.load = [](int, const std::optional<Dim>&, const std::optional<Dim>&,
                const std::optional<Dim>&) { return std::string("never"); };
    n.scalar = [](int input) { return "s" + std::to_string(input); };
    n.axis = [](int axis) { return "axis" + std::to_string(axis); };
    n.reduction = [](const Node&) { return std::string("red"); };
    n.column = [] { return std::string("col"); };
    n.row = [](int p) { return "row" + std::to_string(p); };
    return n;
}

// One tree printed in pair form: the row printer's statements, the loop's, then the value.
struct Printed {
    std::vector<std::string> row, loop;
    std::string value;
};

Printed print_pair(const Expr& e, const std::vector<const Node*>& kept = {}) {
    auto uses = codegen::use_counts({e});
    ExprPrinter row(row_names(), uses, "v");
    PairPrinter pair([](const Node& n) { return "pair_at(x" + std::to_string(n.index) + "_v, j)"; },
                     uses, "pair", row);
    for (size_t i = 0; i < kept.size(); ++i)
        pair.keep(kept[i], "kept" + std::to_string(i) + "[chunk]");
    Printed p;
    p.value = pair.print(e);
    p.loop = pair.take_statements();
    p.row = row.take_statements();
    return p;
}

Expr max_of(const Expr& e) {
    return reduce(ReduceKind::Max, e, {1, 1});
}

} // namespace

TEST(PairPrinter, ArithmeticLoadsAndPlainBuiltinsHaveAPairForm) {
    EXPECT_TRUE(PairPrinter::pairable(binary(Op::Mul, load(0), load(1))));
    EXPECT_TRUE(PairPrinter::pairable(unary(Op::Tanh, binary(Op::Div, load(0), constant(30)))));
    EXPECT_TRUE(PairPrinter::pairable(binary(Op::Pow, load(0), constant(2))));
    // A row value inside is the scalar printer's, whatever it holds.
    EXPECT_TRUE(PairPrinter::pairable(
        binary(Op::Sub, load(0),
               max_of(select(binary(Op::Lt, load(0), constant(0)), load(0), constant(1))))));
}

TEST(PairPrinter, SelectsCastsAndTheColumnStayScalar) {
    EXPECT_FALSE(
        PairPrinter::pairable(select(binary(Op::Lt, load(0), constant(0)), load(0), constant(1))));
    EXPECT_FALSE(PairPrinter::pairable(cast(DType::BFloat16, binary(Op::Add, load(0), load(1)))));
    EXPECT_FALSE(PairPrinter::pairable(binary(Op::Mul, load(0), column_index())));
    EXPECT_FALSE(PairPrinter::pairable(binary(Op::Pow, load(0), constant(1.5))));
}

TEST(PairPrinter, OnlyATreeWithArithmeticPacks) {
    EXPECT_FALSE(PairPrinter::packs(load(0)));
    EXPECT_FALSE(PairPrinter::packs(unary(Op::Exp, load(0)))); // two expf: nothing packed
    EXPECT_TRUE(PairPrinter::packs(unary(Op::Exp, binary(Op::Sub, load(0), max_of(load(0))))));
    EXPECT_FALSE(PairPrinter::packs(select(binary(Op::Lt, load(0), constant(0)), load(0),
                                           binary(Op::Mul, load(0), constant(2)))));
}

TEST(PairPrinter, AProductAddedOnceIsOneFma) {
    const Printed p = print_pair(binary(Op::Add, binary(Op::Mul, load(0), load(1)), load(2)));
    EXPECT_EQ(p.value, "fma2(pair_at(x0_v, j), pair_at(x1_v, j), pair_at(x2_v, j))");
    const Printed q = print_pair(binary(Op::Add, load(2), binary(Op::Mul, load(0), constant(3))));
    EXPECT_EQ(q.value, "fma2(pair_at(x0_v, j), splat(3.0f), pair_at(x2_v, j))");
}

TEST(PairPrinter, ASharedProductIsNamedNotFused) {
    Expr m = binary(Op::Mul, load(0), load(1));
    const Printed p = print_pair(binary(Op::Add, m, binary(Op::Sub, m, load(2))));
    ASSERT_EQ(p.loop.size(), 1u);
    EXPECT_EQ(p.loop[0], "const float2 pair0 = mul2(pair_at(x0_v, j), pair_at(x1_v, j));");
    EXPECT_EQ(p.value, "add2(pair0, sub2(pair0, pair_at(x2_v, j)))");
}

TEST(PairPrinter, RowValuesAreHoistedAndSplatted) {
    // x - max(x): the max is the row printer's; the division by a row value multiplies by
    // its scaled reciprocal, (a * scale) * inverse, as the scalar loop does.
    Expr x = load(0);
    Expr s = reduce(ReduceKind::Sum, x, {1, 1});
    const Printed p = print_pair(binary(Op::Div, binary(Op::Sub, x, max_of(x)), s));
    EXPECT_EQ(p.value, "mul2(mul2(sub2(pair_at(x0_v, j), splat(red)), splat(v0)), splat(v1))");
    ASSERT_EQ(p.row.size(), 2u);
    EXPECT_EQ(p.row[0], "const float v0 = fabsf(red) > 0x1p126f ? 0.25f : 1.0f;");
    EXPECT_EQ(p.row[1], "const float v1 = 1.0f / (red * v0);");
}

TEST(PairPrinter, BuiltinsRunALaneAtATimeOnANamedArgument) {
    const Printed p = print_pair(unary(Op::Tanh, binary(Op::Div, load(0), constant(30))));
    ASSERT_EQ(p.loop.size(), 1u);
    EXPECT_EQ(p.loop[0], "const float2 pair0 = div2(pair_at(x0_v, j), splat(30.0f));");
    EXPECT_EQ(p.value, "make_float2(tanhf(pair0.x), tanhf(pair0.y))");
    const Printed sq = print_pair(binary(Op::Pow, binary(Op::Add, load(0), load(1)), constant(2)));
    EXPECT_EQ(sq.value, "mul2(pair0, pair0)");
}

TEST(PairPrinter, AKeptValueIsStoredAsAPair) {
    Expr e = unary(Op::Exp, binary(Op::Sub, load(0), max_of(load(0))));
    const Printed p = print_pair(e, {e.get()});
    ASSERT_EQ(p.loop.size(), 3u);
    EXPECT_EQ(p.loop[0], "const float2 pair0 = sub2(pair_at(x0_v, j), splat(red));");
    EXPECT_EQ(p.loop[1], "const float2 pair1 = make_float2(expf(pair0.x), expf(pair0.y));");
    EXPECT_EQ(p.loop[2], "store_pair(kept0[chunk], j, pair1);");
    EXPECT_EQ(p.value, "pair1");
}

TEST(PairPrinter, TheHelpersCalledAreThoseNamed) {
    const auto called = codegen::pair_helpers_called(
        {"const float2 pair0 = sub2(pair_at(x_v, j), splat(m));", "store_pair(o_v, j, pair0);"});
    EXPECT_EQ(called, (std::set<std::string_view>{"sub2", "pair_at", "splat", "store_pair"}));
    EXPECT_TRUE(codegen::pair_helpers_called({"x_v[j] = 1.0f;"}).empty());
}

TEST(PairPrinter, OnlyAnExpOfXLessItsMaxMayTakeTheFmaPipe) {
    // With the policy on, exp(x - max(x)) (at most 0, or NaN) prints as exp_nonpositive, whose
    // helper takes one pair in kFmaExpPolicy.every to exp2_fma on sm_100; another exp does not.
    auto printed = [](const Expr& e) {
        auto uses = codegen::use_counts({e});
        ExprPrinter row(row_names(), uses, "v");
        PairPrinter pair([](const Node&) { return std::string("pair_at(x0_v, j)"); }, uses, "pair",
                         row, true);
        return pair.print(e);
    };
    Expr x = unary(Op::Tanh, load(0));
    EXPECT_EQ(printed(unary(Op::Exp, binary(Op::Sub, x, max_of(x)))),
              "exp_nonpositive(sub2(pair1, splat(red)), j)"); // pair1: the shared tanh
    EXPECT_EQ(
        printed(unary(Op::Exp, binary(Op::Sub, load(0), max_of(x)))).rfind("make_float2(expf(", 0),
        0u);
    EXPECT_EQ(printed(unary(Op::Exp, load(0))), "make_float2(expf(pair0.x), expf(pair0.y))");
}

TEST(PairPrinter, SpecialFunctionsPerElementCountEqualTreesOnce) {
    Expr x = load(0);
    Expr capped = binary(Op::Mul, constant(30), unary(Op::Tanh, binary(Op::Div, x, constant(30))));
    // softcap: the tanh, and one exp (the sum's and the output's are equal trees); dividing
    // by a constant or a row value is a multiplication
    Expr capped_again =
        binary(Op::Mul, constant(30), unary(Op::Tanh, binary(Op::Div, load(0), constant(30))));
    Expr e = unary(Op::Exp, binary(Op::Sub, capped, max_of(capped)));
    Expr e_again = unary(Op::Exp, binary(Op::Sub, capped_again, max_of(capped_again)));
    Expr sum = reduce(ReduceKind::Sum, e, {1, 1});
    EXPECT_EQ(codegen::special_functions_per_element({capped, e, binary(Op::Div, e_again, sum)}),
              2);
    // softmax: one; a division by a column value is a reciprocal
    EXPECT_EQ(
        codegen::special_functions_per_element({unary(Op::Exp, binary(Op::Sub, x, max_of(x)))}), 1);
    EXPECT_EQ(codegen::special_functions_per_element({binary(Op::Div, x, load(1))}), 1);
    EXPECT_EQ(codegen::special_functions_per_element({binary(Op::Mul, x, x)}), 0);
}
