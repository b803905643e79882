// JSON-Schema validation (valijson, draft 7) of solution.json and
// definition.json against the embedded templates/*.schema.json, plus the
// rules a schema cannot state (the entry point's file is a source; source
// paths are unique).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace solbench::package {

struct SchemaViolation {
    std::string pointer; // JSON pointer of the offending value, "" for the document
    std::string message;
};

std::vector<SchemaViolation> validate_solution(const nlohmann::json& solution);
std::vector<SchemaViolation> validate_definition_schema(const nlohmann::json& definition);

// "file:/json/pointer: error: message" lines.
std::vector<std::string> render_violations(const std::string& file,
                                           const std::vector<SchemaViolation>& violations);

} // namespace solbench::package
