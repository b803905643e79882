// Converting op inputs from JSON and results back to JSON.
#include "frontend/interp_json.h"

#include <cmath>

namespace solbench::interp {

namespace {

[[noreturn]] void bad(SourcePos pos, const std::string& name, const std::string& why) {
    throw RuntimeError(pos, "input `" + name + "`: " + why);
}

Value scalar_from_json(const nlohmann::json& j, ast::ElemType elem, SourcePos pos,
                       const std::string& name) {
    if (is_float_elem(elem)) {
        if (!j.is_number()) bad(pos, name, "expected a number, got " + j.dump());
        return j.get<double>();
    }
    if (is_int_elem(elem)) {
        if (j.is_number_integer()) {
            if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t{INT64_MAX})
                bad(pos, name, "integer " + j.dump() + " does not fit in 64 bits");
            return j.get<int64_t>();
        }
        if (j.is_number_float()) {
            double d = j.get<double>();
            if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.2233720368547758e18)
                return static_cast<int64_t>(d);
        }
        bad(pos, name, "expected an integer, got " + j.dump());
    }
    if (elem == ast::ElemType::Bool) {
        if (!j.is_boolean()) bad(pos, name, "expected true or false, got " + j.dump());
        return j.get<bool>();
    }
    if (!j.is_string()) bad(pos, name, "expected a string, got " + j.dump());
    return j.get<std::string>();
}

// Array depth `rank` below j must be rectangular: every sibling has `shape`.
Value seq_from_json(const nlohmann::json& j, ast::ElemType elem, int rank, SourcePos pos,
                    const std::string& name, std::vector<size_t>& shape, size_t level) {
    if (!j.is_array())
        bad(pos, name,
            "expected a nested array " + std::to_string(rank + static_cast<int>(level)) +
                " deep (" + type_name(elem, rank + static_cast<int>(level)) + "), got " +
                (j.is_number() ? "a number" : j.type_name()) + " at depth " +
                std::to_string(level));
    if (shape.size() == level)
        shape.push_back(j.size());
    else if (shape[level] != j.size())
        bad(pos, name, "ragged array: rows of different lengths at depth " + std::to_string(level));
    auto seq = std::make_shared<SeqVal>();
    seq->elem = elem;
    seq->rank = rank;
    seq->items.reserve(j.size());
    for (const auto& item : j)
        seq->items.push_back(
            rank == 1 ? scalar_from_json(item, elem, pos, name)
                      : seq_from_json(item, elem, rank - 1, pos, name, shape, level + 1));
    return seq;
}

} // namespace

Value value_from_json(const nlohmann::json& j, ast::ElemType elem, int rank, SourcePos pos,
                      const std::string& name) {
    if (rank == 0) return scalar_from_json(j, elem, pos, name);
    std::vector<size_t> shape;
    return seq_from_json(j, elem, rank, pos, name, shape, 0);
}

nlohmann::json value_to_json(const Value& v) {
    struct Visitor {
        nlohmann::json operator()(Nothing) const { return nullptr; }
        nlohmann::json operator()(int64_t i) const { return static_cast<double>(i); }
        nlohmann::json operator()(double d) const { return d; }
        nlohmann::json operator()(bool b) const { return b; }
        nlohmann::json operator()(const std::string& s) const { return s; }
        nlohmann::json operator()(const SeqPtr& s) const {
            nlohmann::json a = nlohmann::json::array();
            for (const Value& item : s->items)
                a.push_back(value_to_json(item));
            return a;
        }
    };
    return std::visit(Visitor{}, v);
}

} // namespace solbench::interp
