// JSON-Schema validation (valijson, draft 7) of solution.json and
// definition.json against the embedded templates/*.schema.json, plus the
// rules a schema cannot state (the entry point's file is a source; source
// paths are unique).
#pragma once

#include "diag/diagnostic.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace solbench::package {

// Each violation is a json_error(): the JSON pointer of the offending value
// ("" for the whole document) and what is wrong with it.
std::vector<Diagnostic> validate_solution(const nlohmann::json& solution);
std::vector<Diagnostic> validate_definition_schema(const nlohmann::json& definition);

} // namespace solbench::package
