// valijson over the embedded schemas, and the checks beyond them.
#include "package/schema.h"

#include "codegen/templater.h"

#define VALIJSON_USE_EXCEPTIONS 1
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <memory>
#include <set>

namespace solbench::package {

namespace {

// The parsed schema for an embedded file, or nullptr with the reason.
std::shared_ptr<valijson::Schema> load_schema(const std::string& file, std::string& error) {
    auto text = codegen::embedded_text(file);
    if (!text) {
        error = "no embedded schema " + file;
        return nullptr;
    }
    try {
        nlohmann::json doc = nlohmann::json::parse(*text);
        auto schema = std::make_shared<valijson::Schema>();
        valijson::SchemaParser parser;
        valijson::adapters::NlohmannJsonAdapter adapter(doc);
        parser.populateSchema(adapter, *schema);
        return schema;
    } catch (const std::exception& e) {
        error = file + ": " + e.what();
        return nullptr;
    }
}

// valijson's context ("<root>", "[spec]", "[0]") as a JSON pointer.
std::string pointer(const std::vector<std::string>& context) {
    std::string p;
    for (const auto& c : context) {
        if (c == "<root>") continue;
        std::string part = c;
        if (part.size() >= 2 && part.front() == '[' && part.back() == ']')
            part = part.substr(1, part.size() - 2);
        if (part.size() >= 2 && part.front() == '"' && part.back() == '"')
            part = part.substr(1, part.size() - 2);
        p += "/" + part;
    }
    return p;
}

std::vector<Diagnostic> validate(const std::string& file, const nlohmann::json& doc) {
    std::string error;
    auto schema = load_schema(file, error);
    if (!schema) return {json_error("", error)};
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(doc);
    try {
        validator.validate(*schema, target, &results);
    } catch (const std::exception& e) {
        return {json_error("", std::string("schema validation failed: ") + e.what())};
    }
    std::vector<Diagnostic> out;
    std::set<std::pair<std::string, std::string>> seen;
    valijson::ValidationResults::Error e;
    while (results.popError(e)) {
        Diagnostic v = json_error(pointer(e.context), e.description);
        if (seen.insert({v.pointer, v.message}).second) out.push_back(v);
    }
    return out;
}

} // namespace

std::vector<Diagnostic> validate_solution(const nlohmann::json& solution) {
    std::vector<Diagnostic> out = validate("solution.schema.json", solution);
    if (!out.empty() || !solution.is_object()) return out;
    // Beyond the schema: unique source paths, and the entry point's file among them.
    std::set<std::string> paths;
    const auto& sources = solution["sources"];
    for (size_t i = 0; i < sources.size(); ++i) {
        std::string path = sources[i]["path"].get<std::string>();
        if (!paths.insert(path).second)
            out.push_back(json_error("/sources/" + std::to_string(i) + "/path",
                                     "duplicate source path '" + path + "'"));
    }
    std::string entry = solution["spec"]["entry_point"].get<std::string>();
    std::string file = entry.substr(0, entry.find("::"));
    if (!paths.count(file))
        out.push_back(json_error("/spec/entry_point",
                                 "the entry point's file '" + file + "' is not among the sources"));
    return out;
}

std::vector<Diagnostic> validate_definition_schema(const nlohmann::json& definition) {
    return validate("definition.schema.json", definition);
}

} // namespace solbench::package
