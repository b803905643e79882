#include "ir/operators.h"

#include <cmath>

namespace solbench::ir {

namespace {

using K = OperatorKind;

constexpr Operator kOperators[] = {
    {Op::Const, "const", 0, K::Leaf, nullptr, ""},
    {Op::Scalar, "scalar", 0, K::Leaf, nullptr, ""},
    {Op::AxisSize, "axis", 0, K::Leaf, nullptr, ""},
    {Op::Load, "load", 0, K::Leaf, nullptr, ""},
    {Op::Column, "column", 0, K::Leaf, nullptr, ""},
    {Op::Row, "row", 0, K::Leaf, nullptr, ""},
    {Op::Reduce, "reduce", 1, K::Reduction, nullptr, ""},
    {Op::Add, "+", 2, K::Arithmetic, [](double a, double b) { return a + b; }, " + "},
    {Op::Sub, "-", 2, K::Arithmetic, [](double a, double b) { return a - b; }, " - "},
    {Op::Mul, "*", 2, K::Arithmetic, [](double a, double b) { return a * b; }, " * "},
    {Op::Div, "/", 2, K::Arithmetic, [](double a, double b) { return a / b; }, " / "},
    // C's fmod (truncating), as LOGOS's % on reals; printers spell it themselves.
    {Op::Mod, "%", 2, K::Arithmetic, [](double a, double b) { return std::fmod(a, b); }, ""},
    // Int / Int (docs/logos-language.md); printers spell it in integers, which fast-math
    // float division would not keep exact.
    {Op::IntDiv, "idiv", 2, K::Arithmetic, [](double a, double b) { return std::trunc(a / b); },
     ""},
    {Op::Neg, "neg", 1, K::Arithmetic, [](double a, double) { return -a; }, ""},
    {Op::Lt, "<", 2, K::Comparison, [](double a, double b) { return a < b ? 1.0 : 0.0; }, " < "},
    {Op::Le, "<=", 2, K::Comparison, [](double a, double b) { return a <= b ? 1.0 : 0.0; }, " <= "},
    {Op::Gt, ">", 2, K::Comparison, [](double a, double b) { return a > b ? 1.0 : 0.0; }, " > "},
    {Op::Ge, ">=", 2, K::Comparison, [](double a, double b) { return a >= b ? 1.0 : 0.0; }, " >= "},
    {Op::Eq, "==", 2, K::Comparison, [](double a, double b) { return a == b ? 1.0 : 0.0; }, " == "},
    {Op::Ne, "!=", 2, K::Comparison, [](double a, double b) { return a != b ? 1.0 : 0.0; }, " != "},
    // and/or short-circuit (the evaluator decides): `c < n and x[c + 1] > 0` reads safely.
    {Op::And, "and", 2, K::Logic, nullptr, ""},
    {Op::Or, "or", 2, K::Logic, nullptr, ""},
    {Op::Not, "not", 1, K::Logic, [](double a, double) { return a == 0 ? 1.0 : 0.0; }, ""},
    {Op::Select, "select", 3, K::Select, nullptr, ""},
    {Op::Cast, "cast", 1, K::Cast, nullptr, ""},
};

} // namespace

const Operator* find_operator(Op op) {
    for (const Operator& o : kOperators)
        if (o.op == op) return &o;
    return nullptr;
}

} // namespace solbench::ir
