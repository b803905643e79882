// The tree-walking interpreter: the semantic oracle for an op.
//
// Arithmetic is float64; indexing is 1-based with inclusive ranges; `as T`
// rounds to T at that point and a store into a BFloat16/Float16/Float32
// sequence rounds to that type (nearest-even). Helper calls are real calls.
//
// Inputs and outputs travel as JSON: an object keyed by parameter name, a
// tensor as (nested) arrays exactly as the op declares it (a flat
// `Seq of Float32` is a flat array), a scalar as a number, an `Int` axis
// parameter as an integer. An `into` output may be given (its initial
// contents); when absent it is allocated, zero-filled, from the op's first
// `Check that length of OUT equals ...` contract. The result is an object
// keyed by output name (`output` for a `-> R` function).
#pragma once

#include "frontend/ast.h"
#include "frontend/source.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace solbench {

// A fault in the op while it runs (read out of range, failed Check, ...).
struct RuntimeError : std::runtime_error {
    RuntimeError(SourcePos p, const std::string& msg) : std::runtime_error(msg), pos(p) {}
    SourcePos pos;
};

struct InterpreterLimits {
    long long max_steps = 2'000'000'000; // statements executed before giving up
    int max_call_depth = 256;
};

// Runs `op` (a function of `program`) on `inputs`. Throws RuntimeError.
nlohmann::json interpret(const ast::Program& program, const ast::Function& op,
                         const nlohmann::json& inputs, const InterpreterLimits& limits = {});

} // namespace solbench
