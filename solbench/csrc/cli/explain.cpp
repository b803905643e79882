#include "cli/explain.h"

namespace solbench::cli {

namespace {

const char* role_name(ir::Role r) {
    switch (r) {
    case ir::Role::Rows:
        return "rows";
    case ir::Role::Column:
        return "column";
    case ir::Role::PerRow:
        return "per_row";
    case ir::Role::Scalar:
        return "scalar";
    case ir::Role::Unread:
        return "unread";
    case ir::Role::ColumnSum:
        return "column_sum";
    case ir::Role::RowSum:
        return "row_sum";
    case ir::Role::Table:
        return "table";
    }
    return "rows";
}

nlohmann::json tensor_json(const ir::OpIR& op, const ir::Tensor& t) {
    nlohmann::json j;
    j["name"] = t.name;
    j["dtype"] = ir::benchmark_name(t.dtype);
    if (t.role == ir::Role::Scalar) {
        j["rank"] = t.scalar_form == ir::ScalarForm::ZeroD        ? nlohmann::json(0)
                    : t.scalar_form == ir::ScalarForm::OneElement ? nlohmann::json(1)
                                                                  : nlohmann::json();
        j["shape"] = t.scalar_form == ir::ScalarForm::ZeroD        ? nlohmann::json::array()
                     : t.scalar_form == ir::ScalarForm::OneElement ? nlohmann::json::array({"1"})
                                                                   : nlohmann::json();
        return j;
    }
    const std::vector<ir::Dim> real = ir::real_shape(op, t); // as torch sees it
    j["rank"] = real.size();
    nlohmann::json shape = nlohmann::json::array();
    for (const ir::Dim& d : real) {
        const std::string& axis = op.axes[static_cast<size_t>(d.axis)].name;
        shape.push_back(d.scale == 1 ? axis : std::to_string(d.scale) + "*" + axis);
    }
    j["shape"] = shape;
    j["role"] = role_name(t.role);
    // The row axes it follows (all of them unless it is broadcast over some).
    nlohmann::json follows = nlohmann::json::array();
    for (int p : ir::followed_rows(op, t))
        follows.push_back(
            op.axes[static_cast<size_t>(ir::row_axes_of(op, t.row_set)[static_cast<size_t>(p)])]
                .name);
    j["follows"] = follows;
    return j;
}

} // namespace

std::string explain_text(const OpDescription& d) {
    std::string out = d.ir.name + ": " + to_string(d.family);
    if (d.packed_halves) out += " (gate and up are the two halves of one input)";
    if (!d.set_families.empty()) {
        out += " (row sets:";
        for (size_t k = 0; k < d.set_families.size(); ++k)
            out += std::string(k ? ", " : " ") + to_string(d.set_families[k].family);
        out += ")";
    }
    out += "\n" + ir::print(d.ir);
    return out;
}

nlohmann::json explain_json(const Compiled& c) {
    nlohmann::json j;
    if (const auto* f = std::get_if<Failure>(&c.result)) {
        auto where = [](const Diagnostic& d) {
            nlohmann::json e = {{"line", d.pos.line}, {"col", d.pos.col}, {"message", d.message}};
            if (d.rule) e["rule"] = to_string(*d.rule);
            if (!d.notes.empty()) e["notes"] = d.notes;
            return e;
        };
        if (f->refused()) {
            j["refused"] = where(f->diagnostics.front());
            return j;
        }
        j["errors"] = nlohmann::json::array();
        for (const Diagnostic& d : f->diagnostics)
            j["errors"].push_back(where(d));
        return j;
    }
    const OpDescription& d = std::get<OpDescription>(c.result);
    const ir::OpIR& op = d.ir;
    j["op"] = op.name;
    j["family"] = to_string(d.family);
    j["inputs"] = nlohmann::json::array();
    for (const ir::Tensor& t : op.inputs)
        j["inputs"].push_back(tensor_json(op, t));
    j["outputs"] = nlohmann::json::array();
    for (const ir::Tensor& t : op.outputs)
        j["outputs"].push_back(tensor_json(op, t));
    j["axes"] = nlohmann::json::array();
    for (const ir::Axis& a : op.axes)
        j["axes"].push_back(
            {{"name", a.name},
             {"const", a.value ? nlohmann::json(*a.value) : nlohmann::json(nullptr)}});
    j["row_axes"] = nlohmann::json::array();
    for (int a : op.row_axes)
        j["row_axes"].push_back(op.axes[static_cast<size_t>(a)].name);
    if (ir::row_set_count(op) > 1) { // several row sets: each with its family
        j["row_sets"] = nlohmann::json::array();
        for (int k = 0; k < ir::row_set_count(op); ++k) {
            nlohmann::json axes = nlohmann::json::array();
            for (int a : ir::row_axes_of(op, k))
                axes.push_back(op.axes[static_cast<size_t>(a)].name);
            j["row_sets"].push_back(
                {{"row_axes", axes},
                 {"family", to_string(d.set_families[static_cast<size_t>(k)].family)}});
        }
    }
    j["column_axis"] = op.column_axis >= 0
                           ? nlohmann::json(op.axes[static_cast<size_t>(op.column_axis)].name)
                           : nlohmann::json(nullptr);
    j["reductions"] = nlohmann::json::array();
    for (const ir::Expr& r : d.reductions)
        j["reductions"].push_back(
            {{"kind", ir::to_string(r->reduce_kind)}, {"element", ir::print(op, r->args[0])}});
    j["packed_halves"] = d.packed_halves;
    j["ir"] = ir::print(op);
    return j;
}

} // namespace solbench::cli
