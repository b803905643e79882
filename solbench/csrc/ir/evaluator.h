// The op IR's own evaluator: float64, the same rounding points as the
// interpreter (casts, and the store into each output's dtype). Tests hold it
// against the interpreter on random inputs, so the IR provably means what
// the LOGOS op means.
#pragma once

#include "ir/op_ir.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace solbench::ir {

struct EvalError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// `inputs` is keyed by parameter name, tensors as (nested) arrays exactly as
// the op declares them (flat tensors flat), scalars as numbers, and the values
// of axes that no tensor shape reveals (a flat op's Int parameters) by axis
// name. Returns the outputs by name, shaped the same way. Throws EvalError.
nlohmann::json evaluate(const OpIR& op, const nlohmann::json& inputs);

} // namespace solbench::ir
