// A benchmark definition.json: loading, validation, and binding an op to it.
//
// Errors are "file:/json/pointer: error: message" lines. bind() takes the
// definition's names, order, dtypes, axis names and constants onto the op, and
// refuses a mismatch naming both sides, e.g.
//   input 2: the op has 'weight' bfloat16[hidden_size], the definition has
//   'weight' float32[hidden_size]
#pragma once

#include "recognizers/recognizer.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace solbench::package {

struct AxisDef {
    enum class Kind { Const, Var, Expr };
    std::string name;
    Kind kind = Kind::Var;
    int64_t value = 0;      // Const
    std::string expression; // Expr
};

struct TensorDef {
    std::string name;
    std::optional<std::vector<std::string>> shape; // nullopt: a Python scalar
    std::string dtype;
};

struct Definition {
    std::string path; // where it was read from, for messages
    std::string text; // the file's bytes, copied verbatim into bundles
    nlohmann::ordered_json json;
    std::string name;
    std::vector<AxisDef> axes; // in file order
    std::vector<TensorDef> inputs;
    std::vector<TensorDef> outputs;
    std::string reference;
    const AxisDef* axis(const std::string& n) const;
};

Result<Definition> parse_definition(const std::string& path, const std::string& text);
Result<Definition> load_definition(const std::string& path);

// The op with the definition's names, order, dtypes and axis constants, or why
// the two disagree.
Result<OpDescription> bind(const OpDescription& op, const Definition& def);

// A shape entry of digits is a literal size ("1" in [M, "1"]), not an axis name.
bool is_literal_size(const std::string& entry);
std::optional<int64_t> literal_size(const std::string& entry); // nullopt: not one, or too large

// "bfloat16[batch_size, hidden_size]", or "float32 scalar".
std::string describe(const TensorDef& t);

} // namespace solbench::package
