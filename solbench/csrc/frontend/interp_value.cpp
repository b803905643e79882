// Runtime values: kinds, copies, and the conversion a store performs.
#include "frontend/interp_value.h"

#include <cmath>

namespace solbench::interp {

bool is_int_elem(ast::ElemType t) {
    auto d = to_dtype(t);
    return d && ir::is_integer(*d);
}

bool is_float_elem(ast::ElemType t) {
    auto d = to_dtype(t);
    return d && ir::is_floating(*d);
}

const char* elem_name(ast::ElemType t) {
    return ast::to_string(t);
}

std::string type_name(ast::ElemType elem, int rank) {
    return ast::to_string(ast::Type{elem, rank, {}});
}

std::string describe_kind(const Value& v) {
    struct Visitor {
        std::string operator()(Nothing) const { return "nothing"; }
        std::string operator()(int64_t) const { return "an Int"; }
        std::string operator()(double) const { return "a Real"; }
        std::string operator()(bool) const { return "a Bool"; }
        std::string operator()(const std::string&) const { return "a Text"; }
        std::string operator()(const SeqPtr& s) const { return "a " + type_name(s->elem, s->rank); }
    };
    return std::visit(Visitor{}, v);
}

Value deep_copy(const Value& v) {
    const auto* seq = std::get_if<SeqPtr>(&v);
    if (!seq) return v;
    auto out = std::make_shared<SeqVal>(**seq);
    if (out->rank > 1)
        for (Value& item : out->items)
            item = deep_copy(item);
    return out;
}

namespace {

[[noreturn]] void mismatch(const Value& v, ast::ElemType elem, int rank, SourcePos pos,
                           const std::string& what) {
    throw RuntimeError(pos,
                       what + ": " + describe_kind(v) + " does not fit " + type_name(elem, rank));
}

Value store_scalar(const Value& v, ast::ElemType elem, SourcePos pos, const std::string& what) {
    if (is_float_elem(elem)) {
        ir::DType d = *to_dtype(elem);
        if (const auto* i = std::get_if<int64_t>(&v))
            return ir::round_to(d, static_cast<double>(*i));
        if (const auto* r = std::get_if<double>(&v)) return ir::round_to(d, *r);
    } else if (is_int_elem(elem)) {
        if (const auto* i = std::get_if<int64_t>(&v)) {
            // A narrow integer slot holds only its range (logos-ops.md §6, r2).
            auto [lo, hi] = ir::integer_range(*to_dtype(elem));
            if (*i < lo || *i > hi)
                throw RuntimeError(pos, what + ": " + std::to_string(*i) +
                                            " is outside the range of " + elem_name(elem) + " (" +
                                            std::to_string(lo) + " to " + std::to_string(hi) + ")");
            return v;
        }
        if (const auto* r = std::get_if<double>(&v)) {
            // Only an integral Real fits an integer slot; 2^63 itself overflows.
            if (std::isfinite(*r) && std::trunc(*r) == *r && std::fabs(*r) < 9.2233720368547758e18)
                return store_scalar(static_cast<int64_t>(*r), elem, pos, what);
            throw RuntimeError(pos, what + ": the Real " + std::to_string(*r) +
                                        " is not a whole number and cannot be stored as " +
                                        elem_name(elem));
        }
    } else if (elem == ast::ElemType::Bool) {
        if (std::holds_alternative<bool>(v)) return v;
    } else if (std::holds_alternative<std::string>(v)) {
        return v;
    }
    mismatch(v, elem, 0, pos, what);
}

} // namespace

Value store_as(const Value& v, ast::ElemType elem, int rank, SourcePos pos,
               const std::string& what) {
    if (rank == 0) return store_scalar(v, elem, pos, what);
    const auto* seq = std::get_if<SeqPtr>(&v);
    if (!seq || (*seq)->rank != rank) mismatch(v, elem, rank, pos, what);
    if ((*seq)->elem == elem) return v; // same type: shared, as LOGOS binds
    auto out = std::make_shared<SeqVal>();
    out->elem = elem;
    out->rank = rank;
    out->items.reserve((*seq)->items.size());
    for (const Value& item : (*seq)->items)
        out->items.push_back(store_as(item, elem, rank - 1, pos, what));
    return out;
}

} // namespace solbench::interp
