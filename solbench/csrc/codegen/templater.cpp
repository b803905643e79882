// Mustache rendering with strict variables, over the embedded templates.
#include "codegen/templater.h"

#include <kainjow/mustache.hpp>

#include <algorithm>
#include <regex>
#include <set>

namespace solbench::codegen {

namespace mustache = kainjow::mustache;

std::optional<std::string> embedded_text(const std::string& name) {
    const auto& files = embedded_files();
    auto it = files.find(name);
    if (it == files.end()) return std::nullopt;
    return std::string(it->second);
}

namespace {

struct Keys {
    std::set<std::string> defined;
    std::set<std::string> nonempty; // keys with a truthy value somewhere
};

void collect_keys(const nlohmann::json& j, Keys& keys) {
    if (j.is_object()) {
        for (const auto& [k, v] : j.items()) {
            keys.defined.insert(k);
            bool empty =
                v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_array() && v.empty());
            if (!empty) keys.nonempty.insert(k);
            collect_keys(v, keys);
        }
    } else if (j.is_array()) {
        for (const auto& v : j)
            collect_keys(v, keys);
    }
}

mustache::data to_data(const nlohmann::json& j) {
    switch (j.type()) {
    case nlohmann::json::value_t::object: {
        mustache::data d{mustache::data::type::object};
        for (const auto& [k, v] : j.items())
            d.set(k, to_data(v));
        return d;
    }
    case nlohmann::json::value_t::array: {
        mustache::data d{mustache::data::type::list};
        for (const auto& v : j)
            d.push_back(to_data(v));
        return d;
    }
    case nlohmann::json::value_t::boolean:
        return j.get<bool>() ? mustache::data{mustache::data::type::bool_true}
                             : mustache::data{mustache::data::type::bool_false};
    case nlohmann::json::value_t::string:
        return mustache::data{j.get<std::string>()};
    case nlohmann::json::value_t::null:
        return mustache::data{mustache::data::type::bool_false};
    default:
        return mustache::data{j.dump()};
    }
}

struct Tag {
    char kind; // 0 for a variable, or one of # ^ / > & {
    std::string name;
};

std::vector<Tag> scan_tags(std::string_view text) {
    static const std::regex tag(R"(\{\{\{?\s*([#^/>&!]?)\s*([A-Za-z0-9_.]+)\s*\}?\}\})");
    std::vector<Tag> tags;
    std::string s(text);
    for (auto it = std::sregex_iterator(s.begin(), s.end(), tag); it != std::sregex_iterator();
         ++it) {
        std::string kind = (*it)[1].str();
        tags.push_back({kind.empty() ? '\0' : kind[0], (*it)[2].str()});
    }
    return tags;
}

// Checks every tag in `name` and in the partials it includes (recursively).
std::optional<TemplateError> check_tags(const std::string& name, std::string_view text,
                                        const Keys& keys,
                                        std::map<std::string, std::string>& partials) {
    // Sections whose value is always empty render nothing: tags inside them
    // need not be defined.
    std::vector<bool> skipped;
    auto in_skipped = [&] {
        return std::find(skipped.begin(), skipped.end(), true) != skipped.end();
    };
    for (const Tag& t : scan_tags(text)) {
        if (t.kind == '/') {
            if (!skipped.empty()) skipped.pop_back();
            continue;
        }
        if (t.kind == '!' || t.name == ".") continue;
        if (t.kind == '#' || t.kind == '^') {
            if (!keys.defined.count(t.name) && !in_skipped())
                return TemplateError{name + ": the template uses section '" + t.name +
                                     "', which the context does not define"};
            skipped.push_back(t.kind == '#' && !keys.nonempty.count(t.name));
            continue;
        }
        if (in_skipped()) continue;
        if (t.kind == '>') {
            if (partials.count(t.name)) continue;
            auto partial = embedded_text(t.name + ".mustache");
            if (!partial) return TemplateError{name + ": unknown partial '" + t.name + "'"};
            partials[t.name] = *partial;
            if (auto err = check_tags(t.name + ".mustache", *partial, keys, partials)) return err;
            continue;
        }
        if (!keys.defined.count(t.name))
            return TemplateError{name + ": the template uses '" + t.name +
                                 "', which the context does not define"};
    }
    return std::nullopt;
}

// A preprocessor conditional's line after which a block starts (#if, #else) or before which
// one ends (#else, #endif).
bool opens_conditional(const std::string& line) {
    return line.rfind("#if", 0) == 0 || line.rfind("#else", 0) == 0;
}
bool closes_conditional(const std::string& line) {
    return line.rfind("#else", 0) == 0 || line.rfind("#endif", 0) == 0;
}

// Empty sections leave blank lines behind; drop runs of blank lines, blank
// lines after an opening brace, an indented comment, #if or #else, and before
// a closing brace, #else or #endif, so the output reads as if written by hand.
std::string tidy_blank_lines(const std::string& text) {
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(pos, end - pos));
        pos = end + 1;
    }
    auto blank = [](const std::string& l) {
        return l.find_first_not_of(" \t") == std::string::npos;
    };
    auto trimmed = [](const std::string& l) {
        size_t a = l.find_first_not_of(" \t");
        return a == std::string::npos ? std::string() : l.substr(a);
    };
    std::vector<std::string> out;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (blank(lines[i])) {
            if (out.empty() || blank(out.back())) continue;
            const std::string& prev = out.back();
            if (prev.back() == '{' || (prev[0] == ' ' && trimmed(prev).rfind("//", 0) == 0))
                continue;
            if (i + 1 < lines.size() && trimmed(lines[i + 1]).rfind("}", 0) == 0) continue;
            if (opens_conditional(prev)) continue;
            size_t next = i + 1; // blank tag lines of empty sections before a block's end
            while (next < lines.size() && blank(lines[next]))
                ++next;
            if (next < lines.size() && trimmed(lines[next]) == "}") continue;
            if (next < lines.size() && closes_conditional(lines[next])) continue;
            out.push_back("");
            continue;
        }
        out.push_back(lines[i]);
    }
    while (!out.empty() && blank(out.back()))
        out.pop_back();
    std::string result;
    for (const auto& l : out)
        result += l + "\n";
    return result;
}

} // namespace

Rendered render_text(const std::string& name, std::string_view text,
                     const nlohmann::json& context) {
    Keys keys;
    collect_keys(context, keys);
    std::map<std::string, std::string> partials;
    if (auto err = check_tags(name, text, keys, partials)) return *err;

    mustache::mustache tmpl{std::string(text)};
    if (!tmpl.is_valid()) return TemplateError{name + ": " + tmpl.error_message()};
    tmpl.set_custom_escape([](const std::string& s) { return s; });
    mustache::data data = to_data(context);
    for (const auto& [pname, ptext] : partials) {
        std::string body = ptext;
        data.set(pname, mustache::partial([body]() { return body; }));
    }
    std::string out = tmpl.render(data);
    if (!tmpl.is_valid()) return TemplateError{name + ": " + tmpl.error_message()};
    return tidy_blank_lines(out);
}

Rendered render_template(const std::string& name, const nlohmann::json& context) {
    auto text = embedded_text(name);
    if (!text) return TemplateError{"no embedded template named '" + name + "'"};
    return render_text(name, *text, context);
}

} // namespace solbench::codegen
