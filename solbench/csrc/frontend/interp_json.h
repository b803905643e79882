// JSON <-> interpreter values for an op's inputs and outputs.
#pragma once

#include "frontend/interp_value.h"

#include <nlohmann/json.hpp>

namespace solbench::interp {

// The input `name` of type {elem, rank}: nested arrays exactly `rank` deep and
// rectangular, numbers for floating elements, integers for Int elements,
// booleans for Bool, strings for Text. Values are taken as given (no
// rounding). Throws RuntimeError(pos, ...) naming `name` when ill-shaped.
Value value_from_json(const nlohmann::json& j, ast::ElemType elem, int rank, SourcePos pos,
                      const std::string& name);

// Numbers (Int and Real) as doubles, sequences as nested arrays.
nlohmann::json value_to_json(const Value& v);

} // namespace solbench::interp
