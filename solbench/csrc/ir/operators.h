// The IR's operators other than the math builtins (ir/builtins.h has those):
// one row each with what several stages need (its printed name, arity, float64
// meaning, and the infix spelling C++/CUDA and Python share), so that the
// evaluator and the printers read one table instead of each keeping a switch.
// Ops a printer must spell itself (Mod, Select, Cast, the leaves) have no
// infix; ops evaluated with care (Select, Cast, the leaves, Reduce) no eval.
#pragma once

#include "ir/op_ir.h"

#include <string_view>

namespace solbench::ir {

enum class OperatorKind {
    Leaf,       // Const, Scalar, AxisSize, Load: no arguments
    Reduction,  // Reduce
    Arithmetic, // + - * / % and negation
    Comparison, // < <= > >= == != (1.0 / 0.0 valued)
    Logic,      // and or not (on 1.0 / 0.0 values)
    Select,     // args[0] != 0 ? args[1] : args[2]
    Cast,       // rounding to a storage type
};

struct Operator {
    Op op;
    std::string_view name; // ir::print's spelling: "+", "<", "select"
    int arity;
    OperatorKind kind;
    double (*eval)(double, double); // float64 meaning; null where the evaluator decides
    std::string_view infix;         // " + ", " < ": the same in C++ and Python; else empty
};

// The row of op, or null for a builtin's op (find_builtin has those).
const Operator* find_operator(Op op);

} // namespace solbench::ir
