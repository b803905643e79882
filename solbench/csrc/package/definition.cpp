// definition.json loading and validation, and binding an op to it.
#include "package/definition.h"

#include "package/schema.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace solbench::package {

using ir::Dim;
using ir::Role;

const AxisDef* Definition::axis(const std::string& n) const {
    for (const auto& a : axes)
        if (a.name == n) return &a;
    return nullptr;
}

std::string describe(const TensorDef& t) {
    if (!t.shape) return t.dtype + " scalar";
    std::string s = t.dtype + "[";
    for (size_t i = 0; i < t.shape->size(); ++i)
        s += (i ? ", " : "") + (*t.shape)[i];
    return s + "]";
}

bool is_literal_size(const std::string& entry) {
    return !entry.empty() &&
           std::all_of(entry.begin(), entry.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int64_t> literal_size(const std::string& entry) {
    if (!is_literal_size(entry) || entry.size() > 18) return std::nullopt; // < 10^18 < 2^62
    return std::stoll(entry);
}

namespace {

Failure failure(const std::string& path, std::vector<Diagnostic> ds) {
    return Failure{path, std::move(ds)};
}

// The parameter names of the reference's top-level `def run(...)`.
std::optional<std::vector<std::string>> run_params(const std::string& source) {
    static const std::regex def(R"((^|\n)def\s+run\s*\(([^)]*)\))");
    std::smatch m;
    if (!std::regex_search(source, m, def)) return std::nullopt;
    std::vector<std::string> names;
    std::stringstream params(m[2].str());
    for (std::string p; std::getline(params, p, ',');) {
        p = p.substr(0, p.find_first_of(":="));
        size_t a = p.find_first_not_of(" \t\n*"), b = p.find_last_not_of(" \t\n");
        if (a == std::string::npos) continue;
        names.push_back(p.substr(a, b - a + 1));
    }
    return names;
}

// The JSON pointer of the first key that repeats within one object, if any.
// nlohmann::json keeps the last of duplicate keys silently, and the benchmark's
// loader (Python's json) does too; a definition with two "name"s is ambiguous,
// so it is refused.
std::optional<std::string> duplicate_key(const std::string& text) {
    struct Frame {
        bool object = false;
        std::set<std::string> keys;
    };
    std::vector<Frame> open;
    std::vector<std::string> path; // the keys leading to the current value
    std::optional<std::string> found;
    using Event = nlohmann::json::parse_event_t;
    auto escape = [](std::string k) {
        for (size_t i = 0; (i = k.find_first_of("~/", i)) != std::string::npos; i += 2)
            k.replace(i, 1, k[i] == '~' ? "~0" : "~1");
        return k;
    };
    auto on_event = [&](int, Event event, nlohmann::json& parsed) {
        if (found) return false;
        switch (event) {
        case Event::object_start:
        case Event::array_start:
            open.push_back(Frame{event == Event::object_start, {}});
            break;
        case Event::object_end:
        case Event::array_end:
            open.pop_back();
            if (!open.empty() && open.back().object && !path.empty()) path.pop_back();
            break;
        case Event::key: {
            std::string key = parsed.get<std::string>();
            if (!open.back().keys.insert(key).second) {
                std::string pointer;
                for (const auto& k : path)
                    pointer += "/" + escape(k);
                found = pointer + "/" + escape(key);
                return false;
            }
            path.push_back(key);
            break;
        }
        case Event::value:
            if (!open.empty() && open.back().object && !path.empty()) path.pop_back();
            break;
        }
        return true;
    };
    try {
        nlohmann::json discarded = nlohmann::json::parse(text, on_event);
    } catch (const nlohmann::json::exception&) {
        // Reported by the caller's own parse.
    }
    return found;
}

std::optional<int64_t> non_negative_int(const nlohmann::ordered_json& v);

// The harness's axis union has no discriminator and every member a default
// type, so pydantic takes the member that validates: without "type", an axis
// with a valid value is const, one with a non-empty expression string is expr,
// and any other is var (its other fields ignored, as pydantic ignores them).
AxisDef::Kind axis_kind(const nlohmann::ordered_json& a) {
    if (!a.contains("type")) {
        if (a.contains("value") && non_negative_int(a["value"])) return AxisDef::Kind::Const;
        if (a.contains("expression") && a["expression"].is_string() &&
            !a["expression"].get<std::string>().empty())
            return AxisDef::Kind::Expr;
        return AxisDef::Kind::Var;
    }
    std::string type = a["type"].get<std::string>();
    return type == "const" ? AxisDef::Kind::Const
           : type == "var" ? AxisDef::Kind::Var
                           : AxisDef::Kind::Expr;
}

// A NonNegativeInt as pydantic's lax mode reads it: 4, 4.0 or "4" (the schema
// has already refused anything else).
std::optional<int64_t> non_negative_int(const nlohmann::ordered_json& v) {
    constexpr double kMax = 4611686018427387904.0; // 2^62: sizes multiply without overflow
    if (v.is_number_unsigned()) {
        auto u = v.get<uint64_t>();
        return u <= static_cast<uint64_t>(kMax) ? std::optional<int64_t>(static_cast<int64_t>(u))
                                                : std::nullopt;
    }
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_float()) {
        double d = v.get<double>();
        bool whole = d >= 0 && d <= kMax && std::floor(d) == d; // 4096.0, not 4096.5
        return whole ? std::optional<int64_t>(static_cast<int64_t>(d)) : std::nullopt;
    }
    if (v.is_string()) return literal_size(v.get<std::string>());
    return std::nullopt;
}

std::vector<TensorDef> tensors(const nlohmann::ordered_json& obj) {
    std::vector<TensorDef> out;
    for (const auto& [name, t] : obj.items()) {
        TensorDef d;
        d.name = name;
        d.dtype = t["dtype"].get<std::string>();
        if (!t["shape"].is_null()) d.shape = t["shape"].get<std::vector<std::string>>();
        out.push_back(std::move(d));
    }
    return out;
}

} // namespace

Result<Definition> parse_definition(const std::string& path, const std::string& text) {
    Definition def;
    def.path = path;
    def.text = text;
    try {
        def.json = nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::json::exception& e) { // a syntax error, or a number out of range
        return failure(path, {json_error("", std::string("not valid JSON: ") + e.what())});
    }
    if (auto key = duplicate_key(text))
        return failure(path, {json_error(*key, "duplicate key: the object already has one")});
    auto violations = validate_definition_schema(nlohmann::json::parse(text));
    if (!violations.empty()) return failure(path, std::move(violations));

    def.name = def.json["name"].get<std::string>();
    def.reference = def.json["reference"].get<std::string>();
    std::vector<Diagnostic> errors;
    for (const auto& [name, a] : def.json["axes"].items()) {
        AxisDef ax;
        ax.name = name;
        ax.kind = axis_kind(a);
        if (ax.kind == AxisDef::Kind::Const) {
            auto value = non_negative_int(a["value"]);
            if (!value)
                errors.push_back(json_error("/axes/" + name + "/value",
                                            "not a size (an integer of at most 2^62)"));
            ax.value = value.value_or(0);
        }
        if (ax.kind == AxisDef::Kind::Expr) ax.expression = a["expression"].get<std::string>();
        def.axes.push_back(std::move(ax));
    }
    def.inputs = tensors(def.json["inputs"]);
    def.outputs = tensors(def.json["outputs"]);

    std::set<std::string> input_names;
    for (const auto& t : def.inputs) {
        input_names.insert(t.name);
        if (def.axis(t.name))
            errors.push_back(
                json_error("/inputs/" + t.name, "input '" + t.name + "' has the name of an axis"));
    }
    for (const auto& t : def.outputs)
        if (input_names.count(t.name))
            errors.push_back(json_error("/outputs/" + t.name,
                                        "'" + t.name + "' is both an input and an output"));
    for (const auto* list : {&def.inputs, &def.outputs}) {
        const char* group = list == &def.inputs ? "/inputs/" : "/outputs/";
        for (const auto& t : *list) {
            if (!t.shape) continue;
            for (size_t i = 0; i < t.shape->size(); ++i) {
                const std::string& entry = (*t.shape)[i];
                std::string at = group + t.name + "/shape/" + std::to_string(i);
                if (is_literal_size(entry)) {
                    if (!literal_size(entry))
                        errors.push_back(json_error(at, "'" + entry + "' is too large a size"));
                } else if (!def.axis(entry)) {
                    errors.push_back(json_error(
                        at, "'" + entry + "' is neither a defined axis nor a literal size"));
                }
            }
        }
    }
    auto params = run_params(def.reference);
    std::vector<std::string> expected;
    for (const auto& t : def.inputs)
        expected.push_back(t.name);
    if (!params) {
        errors.push_back(json_error("/reference", "the reference defines no top-level run()"));
    } else if (*params != expected) {
        auto join = [](const std::vector<std::string>& v) {
            std::string s;
            for (size_t i = 0; i < v.size(); ++i)
                s += (i ? ", " : "") + v[i];
            return s;
        };
        errors.push_back(json_error("/reference", "run(" + join(*params) +
                                                      ") must take the inputs in order: run(" +
                                                      join(expected) + ")"));
    }
    if (!errors.empty()) return failure(path, std::move(errors));
    return def;
}

Result<Definition> load_definition(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return failure(path, {Diagnostic({}, "cannot read the file")});
    std::stringstream buf;
    buf << in.rdbuf();
    return parse_definition(path, buf.str());
}

namespace {

// The op's tensor, spelt like the definition's: "bfloat16[batch_size, hidden_size]".
std::string describe_op(const ir::OpIR& op, const ir::Tensor& t) {
    if (t.role == Role::Scalar) return std::string(ir::benchmark_name(t.dtype)) + " scalar";
    std::string s = std::string(ir::benchmark_name(t.dtype)) + "[";
    const std::vector<Dim> shape = ir::real_shape(op, t); // as torch sees it
    for (size_t i = 0; i < shape.size(); ++i) {
        const Dim& d = shape[i];
        s += (i ? ", " : "") + (d.scale == 1 ? "" : std::to_string(d.scale) + " * ") +
             op.axes[d.axis].name;
    }
    return s + "]";
}

// Rebuilds an expression with input indices remapped: each node copied whole (every
// field as it was), its arguments and its input index replaced; nodes shared within
// and across the outputs stay shared (memo).
ir::Expr remap(const ir::Expr& e, const std::vector<int>& new_index,
               std::map<const ir::Node*, ir::Expr>& memo) {
    if (auto it = memo.find(e.get()); it != memo.end()) return it->second;
    ir::Node n = *e;
    for (auto& a : n.args)
        a = remap(a, new_index, memo);
    if (n.op == ir::Op::Scalar || n.op == ir::Op::Load)
        n.index = new_index[static_cast<size_t>(n.index)];
    return memo[e.get()] = std::make_shared<const ir::Node>(std::move(n));
}

class Binder {
  public:
    Binder(const OpDescription& op, const Definition& def) : op_(op), ir_(op.ir), def_(def) {}

    Result<OpDescription> run() {
        // Definition inputs that pass one of the op's Int parameters (sizes) as an
        // int scalar; the others match the op's inputs.
        std::vector<std::optional<ir::SizeParam>> sizes;
        std::vector<TensorDef> tensor_defs;
        for (const TensorDef& d : def_.inputs) {
            sizes.push_back(size_param(d));
            if (!sizes.back()) tensor_defs.push_back(d);
        }
        std::vector<int> in_order = match("input", ir_.inputs, tensor_defs, false);
        std::vector<int> out_order = match("output", ir_.outputs, def_.outputs, true);
        if (!errors_.empty()) return Failure{def_.path, errors_};

        ir::OpIR bound = ir_;
        bound.inputs.clear();
        bound.outputs.clear();
        bound.values.clear();
        std::vector<int> new_index(ir_.inputs.size());
        for (size_t d = 0, k = 0; d < def_.inputs.size(); ++d) {
            if (sizes[d]) {
                ir::Tensor t;
                t.name = def_.inputs[d].name;
                t.role = Role::Scalar;
                t.dtype = *ir::dtype_from_benchmark(def_.inputs[d].dtype);
                t.size = sizes[d];
                bound.inputs.push_back(std::move(t));
                continue;
            }
            new_index[in_order[k]] = static_cast<int>(bound.inputs.size());
            bound.inputs.push_back(ir_.inputs[in_order[k]]);
            bound.inputs.back().name = def_.inputs[d].name;
            ++k;
        }
        std::map<const ir::Node*, ir::Expr> memo;
        for (size_t d = 0; d < out_order.size(); ++d) {
            bound.outputs.push_back(ir_.outputs[out_order[d]]);
            bound.outputs.back().name = def_.outputs[d].name;
            bound.values.push_back(remap(ir_.values[out_order[d]], new_index, memo));
        }
        if (!ir_.value_pos.empty()) {
            bound.value_pos.clear();
            for (int o : out_order)
                bound.value_pos.push_back(
                    o < static_cast<int>(ir_.value_pos.size()) ? ir_.value_pos[o] : SourcePos{});
        }
        for (size_t d = 0; d < def_.inputs.size(); ++d) {
            if (bound.inputs[d].size) continue;
            check_tensor("input", d, bound.inputs[d], def_.inputs[d]);
            if (bound.inputs[d].role == Role::Scalar)
                bound.inputs[d].scalar_form =
                    scalar_form(def_.inputs[d]).value_or(ir::ScalarForm::Number);
        }
        for (size_t d = 0; d < out_order.size(); ++d)
            check_tensor("output", d, bound.outputs[d], def_.outputs[d]);
        if (!errors_.empty()) return Failure{def_.path, errors_};
        bind_axes(bound);
        if (!errors_.empty()) return Failure{def_.path, errors_};

        OpDescription out = op_;
        out.ir = std::move(bound);
        out.reductions = ir::reductions_in_order(out.ir);
        out.online = online_pairs(out.reductions);
        return out;
    }

  private:
    std::string where(const char* kind, size_t i) const {
        return std::string(kind) + " " + std::to_string(i + 1) + ": ";
    }

    // The op's index for each definition entry, by name; a single default
    // output takes the definition's name.
    std::vector<int> match(const char* kind, const std::vector<ir::Tensor>& ops,
                           const std::vector<TensorDef>& defs, bool outputs) {
        std::vector<int> order;
        if (ops.size() != defs.size()) {
            std::string msg = "the op has " + std::to_string(ops.size()) + " " + kind + "s (";
            for (size_t i = 0; i < ops.size(); ++i)
                msg += (i ? ", " : "") + ops[i].name;
            msg += "), the definition has " + std::to_string(defs.size()) + " (";
            for (size_t i = 0; i < defs.size(); ++i)
                msg += (i ? ", " : "") + defs[i].name;
            errors_.push_back(Diagnostic({}, msg + ")"));
            return order;
        }
        if (outputs && ops.size() == 1) return {0};
        std::map<std::string, int> by_name;
        for (size_t i = 0; i < ops.size(); ++i)
            by_name[ops[i].name] = static_cast<int>(i);
        for (size_t d = 0; d < defs.size(); ++d) {
            auto it = by_name.find(defs[d].name);
            if (it != by_name.end()) {
                order.push_back(it->second);
                continue;
            }
            errors_.push_back(Diagnostic({}, where(kind, d) + "the op has '" + ops[d].name + "' " +
                                                 describe_op(ir_, ops[d]) +
                                                 ", the definition has '" + defs[d].name + "' " +
                                                 describe(defs[d])));
        }
        return order;
    }

    std::optional<int64_t> const_value(const std::string& axis) const {
        const AxisDef* ax = def_.axis(axis);
        if (ax && ax->kind == AxisDef::Kind::Const) return ax->value;
        return std::nullopt;
    }

    // The op's Int parameter a definition input passes: an integer scalar
    // (shape null) named like the parameter, which no input of the op is named.
    std::optional<ir::SizeParam> size_param(const TensorDef& d) const {
        std::optional<ir::DType> t = ir::dtype_from_benchmark(d.dtype);
        if (d.shape || !t || !ir::is_integer(*t)) return std::nullopt;
        for (const ir::Tensor& x : ir_.inputs)
            if (x.name == d.name) return std::nullopt;
        for (const ir::SizeParam& p : ir_.size_params)
            if (p.name == d.name) return p;
        return std::nullopt;
    }

    // How a definition entry can carry a scalar of the op: a Python number
    // (shape null), a 0-d tensor, or a tensor of one element (["1"], or an
    // axis const at 1); nullopt: it cannot.
    std::optional<ir::ScalarForm> scalar_form(const TensorDef& d) const {
        if (!d.shape) return ir::ScalarForm::Number;
        if (d.shape->empty()) return ir::ScalarForm::ZeroD;
        if (d.shape->size() != 1) return std::nullopt;
        std::optional<int64_t> size = literal_size(d.shape->front());
        const AxisDef* ax = def_.axis(d.shape->front());
        if (!size && ax && ax->kind == AxisDef::Kind::Const) size = ax->value;
        if (size == 1) return ir::ScalarForm::OneElement;
        return std::nullopt;
    }

    void check_tensor(const char* kind, size_t i, const ir::Tensor& t, const TensorDef& d) {
        bool scalar = t.role == Role::Scalar;
        bool rank_ok = scalar ? scalar_form(d).has_value()
                              : (d.shape && d.shape->size() == ir::real_shape(ir_, t).size());
        bool dtype_ok = d.dtype == ir::benchmark_name(t.dtype);
        if (!rank_ok || !dtype_ok)
            errors_.push_back(Diagnostic({}, where(kind, i) + "the op has '" + t.name + "' " +
                                                 describe_op(ir_, t) + ", the definition has '" +
                                                 d.name + "' " + describe(d)));
    }

    // Axis names and constants from the definition.
    void bind_axes(ir::OpIR& bound) {
        std::map<int, std::string> names; // op axis -> definition axis
        auto visit = [&](const ir::Tensor& t, const TensorDef& d, const char* group) {
            if (!d.shape) return;
            const std::vector<Dim> shape = ir::real_shape(ir_, t); // a merged row's parts
            for (size_t k = 0; k < shape.size() && k < d.shape->size(); ++k) {
                const Dim& dim = shape[k];
                const std::string& dname = (*d.shape)[k];
                const std::string at = std::string(group) + d.name + "/shape/" + std::to_string(k);
                const AxisDef* ax = def_.axis(dname);
                // A literal size ("1") fixes the dimension as a const axis does.
                std::optional<int64_t> fixed = literal_size(dname);
                if (!fixed && ax && ax->kind == AxisDef::Kind::Const) fixed = ax->value;
                if (dim.scale != 1) {
                    // A packed dimension: only a fixed size says anything about the axis.
                    if (fixed) {
                        if (*fixed % dim.scale != 0)
                            errors_.push_back(
                                Diagnostic({}, "'" + t.name + "' dim " + std::to_string(k) +
                                                   " is " + std::to_string(dim.scale) + " * " +
                                                   ir_.axes[dim.axis].name + ", but '" + dname +
                                                   "' is " + std::to_string(*fixed)));
                        else
                            set_constant(bound, dim.axis, *fixed / dim.scale, at);
                    }
                    continue;
                }
                if (is_literal_size(dname)) {
                    if (fixed) set_constant(bound, dim.axis, *fixed, at);
                    continue; // the op's axis keeps its own name
                }
                auto it = names.find(dim.axis);
                // Two const axes of one size may stand for one axis of the op (L1 028's
                // num_attention_heads and swa_num_attention_heads, both 64).
                if (it != names.end() && it->second != dname && fixed &&
                    fixed == const_value(it->second)) {
                    set_constant(bound, dim.axis, *fixed, at);
                    continue;
                }
                if (it != names.end() && it->second != dname) {
                    errors_.push_back(Diagnostic(
                        {}, "the op's axis '" + ir_.axes[dim.axis].name + "' is '" + it->second +
                                "' in one tensor and '" + dname + "' in '" + d.name + "'"));
                    continue;
                }
                names[dim.axis] = dname;
                if (ax && ax->kind == AxisDef::Kind::Const)
                    set_constant(bound, dim.axis, ax->value, at);
                else if (ax && ir_.axes[dim.axis].value && ax->kind == AxisDef::Kind::Var)
                    errors_.push_back(Diagnostic({}, "axis '" + dname + "': the op fixes it at " +
                                                         std::to_string(*ir_.axes[dim.axis].value) +
                                                         ", the definition has it var"));
            }
        };
        for (size_t i = 0; i < bound.inputs.size(); ++i)
            visit(bound.inputs[i], def_.inputs[i], "/inputs/");
        for (size_t i = 0; i < bound.outputs.size(); ++i)
            visit(bound.outputs[i], def_.outputs[i], "/outputs/");
        // One definition name for several op axes: the first takes the name,
        // the others keep theirs and must equal it at run time (the harness
        // resolves every occurrence of a name to the same size).
        std::map<std::string, int> first;
        for (const auto& [axis, name] : names) {
            auto [it, fresh] = first.emplace(name, axis);
            if (fresh) {
                bound.axes[axis].name = name;
            } else if (!(bound.axes[axis].value && bound.axes[it->second].value)) {
                bound.equal_axes.emplace_back(it->second, axis);
            } else if (*bound.axes[axis].value != *bound.axes[it->second].value) {
                errors_.push_back(Diagnostic({}, "'" + name + "' stands for the op's axes '" +
                                                     ir_.axes[it->second].name + "' and '" +
                                                     ir_.axes[axis].name +
                                                     "', which the op fixes at different sizes"));
            }
        }
        for (ir::Axis& a : bound.axes) { // a merged row of constant parts is constant
            if (a.parts.empty()) continue;
            std::optional<int64_t> product = 1;
            for (int p : a.parts) {
                const auto& v = bound.axes[static_cast<size_t>(p)].value;
                product = product && v ? std::optional<int64_t>(*product * *v) : std::nullopt;
            }
            if (product) a.value = product;
        }
        std::set<std::string> taken;
        for (const auto& a : bound.axes)
            if (!taken.insert(a.name).second)
                errors_.push_back(Diagnostic(
                    {}, "the op's axis '" + a.name +
                            "' and a definition axis have the same name; rename the op's"));
    }

    // Fixes the op's axis at the size the definition gives at JSON pointer `at`.
    void set_constant(ir::OpIR& bound, int axis, int64_t value, const std::string& at) {
        auto& a = bound.axes[axis];
        if (a.value && *a.value != value) {
            errors_.push_back(
                json_error(at, "the definition's size here is " + std::to_string(value) +
                                   ", but the op's axis '" + ir_.axes[axis].name + "' is " +
                                   std::to_string(*a.value) +
                                   " (from the op or another tensor of the definition)"));
            return;
        }
        a.value = value;
    }

    const OpDescription& op_;
    const ir::OpIR& ir_;
    const Definition& def_;
    std::vector<Diagnostic> errors_;
};

} // namespace

Result<OpDescription> bind(const OpDescription& op, const Definition& def) {
    return Binder(op, def).run();
}

} // namespace solbench::package
