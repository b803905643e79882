// A thin layer over kainjow::mustache for the embedded templates/ files.
//
// Templates are rendered from an nlohmann::json context. Mustache itself
// renders a missing variable as nothing; here every tag must name a key that
// exists in the context (at any depth), so a typo fails instead of emitting
// broken code. `{{> name}}` includes the embedded template `name.mustache`.
// No HTML escaping: the output is C++ and Python source.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <variant>

namespace solbench {

// Defined in the build's generated embedded_templates.cpp (cmake/embed_files.cmake).
const std::map<std::string, std::string_view>& embedded_files();

namespace codegen {

struct TemplateError {
    std::string message; // names the template and the problem
};

using Rendered = std::variant<std::string, TemplateError>;

// Renders the embedded template file `name` (e.g. "fused_row.mustache").
Rendered render_template(const std::string& name, const nlohmann::json& context);

// Renders template text; `name` is used in error messages only.
Rendered render_text(const std::string& name, std::string_view text, const nlohmann::json& context);

// The embedded file's text, or nullopt.
std::optional<std::string> embedded_text(const std::string& name);

} // namespace codegen
} // namespace solbench
