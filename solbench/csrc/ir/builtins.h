// The math builtins of logos-ops.md §5, one row each: what every stage needs
// to know about a builtin (its LOGOS name, IR op, arity, float64 meaning and
// its spellings in CUDA, torch and Python) lives in this one table, so adding
// a builtin is one line here plus nothing elsewhere for the plain ones.
#pragma once

#include "ir/op_ir.h"

#include <span>
#include <string>
#include <string_view>

namespace solbench::ir {

struct Builtin {
    std::string_view name; // as written in LOGOS
    Op op;
    int arity;                      // 1 or 2
    double (*eval)(double, double); // float64 meaning (the second operand unused when unary)
    bool keeps_int;                 // Int arguments give an Int (abs, max, min, floor, ...)
    // Plain spellings, `f(x)` / `f(x, y)`; empty where a printer spells it itself.
    std::string_view cuda;   // float device function
    std::string_view torch;  // on tensors
    std::string_view python; // on Python floats
};

std::span<const Builtin> builtins();
const Builtin* find_builtin(std::string_view name); // null when `name` is not a builtin
const Builtin* find_builtin(Op op);                 // null when `op` is not a builtin's
std::string builtin_names();                        // "sqrt exp log ..." for messages

} // namespace solbench::ir
