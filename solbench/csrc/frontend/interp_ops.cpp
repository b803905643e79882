// Arithmetic, comparisons, casts and builtins on interpreter values.
#include "frontend/interp_ops.h"

#include "ir/builtins.h"

#include <charconv>
#include <cmath>

namespace solbench::interp {

namespace {

bool is_number(const Value& v) {
    return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v);
}

double to_real(const Value& v) {
    if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    return std::get<double>(v);
}

double number(const Value& v, SourcePos pos, const std::string& what) {
    if (!is_number(v)) throw RuntimeError(pos, what + " needs a number, got " + describe_kind(v));
    return to_real(v);
}

[[noreturn]] void int_overflow(SourcePos pos) {
    throw RuntimeError(pos, "Int arithmetic overflows 64 bits");
}

Value int_arith(ast::BinaryOp op, int64_t a, int64_t b, SourcePos pos) {
    int64_t r = 0;
    switch (op) {
    case ast::BinaryOp::Add:
        if (__builtin_add_overflow(a, b, &r)) int_overflow(pos);
        return r;
    case ast::BinaryOp::Sub:
        if (__builtin_sub_overflow(a, b, &r)) int_overflow(pos);
        return r;
    case ast::BinaryOp::Mul:
        if (__builtin_mul_overflow(a, b, &r)) int_overflow(pos);
        return r;
    default:
        break;
    }
    if (b == 0) throw RuntimeError(pos, "Int division by zero");
    if (a == INT64_MIN && b == -1) int_overflow(pos);
    return op == ast::BinaryOp::Div ? a / b : a % b; // C++ truncates toward zero
}

Value real_arith(ast::BinaryOp op, double a, double b) {
    switch (op) {
    case ast::BinaryOp::Add:
        return a + b;
    case ast::BinaryOp::Sub:
        return a - b;
    case ast::BinaryOp::Mul:
        return a * b;
    case ast::BinaryOp::Div:
        return a / b;
    default:
        return std::fmod(a, b);
    }
}

template <typename T> bool relate(ast::BinaryOp op, const T& x, const T& y) {
    switch (op) {
    case ast::BinaryOp::Eq:
        return x == y;
    case ast::BinaryOp::Ne:
        return x != y;
    case ast::BinaryOp::Lt:
        return x < y;
    case ast::BinaryOp::Gt:
        return x > y;
    case ast::BinaryOp::Le:
        return x <= y;
    default:
        return x >= y;
    }
}

// Numbers compare with numbers (exactly when both are Int, NaN unordered),
// Text with Text; Bools only for (in)equality.
bool compare(ast::BinaryOp op, const Value& a, const Value& b, SourcePos pos) {
    if (std::holds_alternative<int64_t>(a) && std::holds_alternative<int64_t>(b))
        return relate(op, std::get<int64_t>(a), std::get<int64_t>(b));
    if (is_number(a) && is_number(b)) return relate(op, to_real(a), to_real(b));
    const auto* s = std::get_if<std::string>(&a);
    const auto* t = std::get_if<std::string>(&b);
    if (s && t) return relate(op, *s, *t);
    bool equality = op == ast::BinaryOp::Eq || op == ast::BinaryOp::Ne;
    if (equality && std::holds_alternative<bool>(a) && std::holds_alternative<bool>(b))
        return relate(op, std::get<bool>(a), std::get<bool>(b));
    throw RuntimeError(pos, "cannot compare " + describe_kind(a) + " with " + describe_kind(b));
}

std::string real_text(double d) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    return std::string(buf, r.ptr);
}

} // namespace

bool is_builtin(const std::string& name) {
    return builtin_arity(name) > 0;
}

int builtin_arity(const std::string& name) {
    const ir::Builtin* b = ir::find_builtin(name);
    return b ? b->arity : 0;
}

bool as_bool(const Value& v, SourcePos pos, const std::string& what) {
    if (const auto* b = std::get_if<bool>(&v)) return *b;
    throw RuntimeError(pos, what + " needs a Bool, got " + describe_kind(v));
}

int64_t as_int(const Value& v, SourcePos pos, const std::string& what) {
    if (const auto* i = std::get_if<int64_t>(&v)) return *i;
    throw RuntimeError(pos, what + " needs an Int, got " + describe_kind(v));
}

std::string as_text(const Value& v) {
    struct Visitor {
        std::string operator()(Nothing) const { return "nothing"; }
        std::string operator()(int64_t i) const { return std::to_string(i); }
        std::string operator()(double d) const { return real_text(d); }
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(const std::string& s) const { return s; }
        std::string operator()(const SeqPtr& s) const {
            std::string out = "[";
            for (size_t k = 0; k < s->items.size(); ++k)
                out += (k ? ", " : "") + as_text(s->items[k]);
            return out + "]";
        }
    };
    return std::visit(Visitor{}, v);
}

Value apply_binary(ast::BinaryOp op, const Value& a, const Value& b, SourcePos pos) {
    using B = ast::BinaryOp;
    switch (op) {
    case B::Add:
    case B::Sub:
    case B::Mul:
    case B::Div:
    case B::Mod:
        if (std::holds_alternative<int64_t>(a) && std::holds_alternative<int64_t>(b))
            return int_arith(op, std::get<int64_t>(a), std::get<int64_t>(b), pos);
        return real_arith(op, number(a, pos, "arithmetic"), number(b, pos, "arithmetic"));
    case B::Eq:
    case B::Ne:
    case B::Lt:
    case B::Gt:
    case B::Le:
    case B::Ge:
        return compare(op, a, b, pos);
    case B::And:
        return as_bool(a, pos, "`and`") && as_bool(b, pos, "`and`");
    case B::Or:
        return as_bool(a, pos, "`or`") || as_bool(b, pos, "`or`");
    case B::Concat:
        return as_text(a) + as_text(b);
    }
    return Nothing{};
}

Value apply_unary(ast::UnaryOp op, const Value& a, SourcePos pos) {
    if (op == ast::UnaryOp::Not) return !as_bool(a, pos, "`not`");
    if (const auto* i = std::get_if<int64_t>(&a)) {
        if (*i == INT64_MIN) int_overflow(pos);
        return -*i;
    }
    return -number(a, pos, "unary minus");
}

Value apply_cast(const Value& v, ast::ElemType to, SourcePos pos) {
    std::string what = std::string("`as ") + elem_name(to) + "`";
    if (to == ast::ElemType::Text) return as_text(v);
    if (to == ast::ElemType::Bool) {
        if (std::holds_alternative<bool>(v)) return v;
        return number(v, pos, what) != 0.0;
    }
    if (is_int_elem(to)) {
        auto [lo, hi] = ir::integer_range(*to_dtype(to));
        if (const auto* i = std::get_if<int64_t>(&v)) {
            if (*i < lo || *i > hi)
                throw RuntimeError(pos, what + ": " + std::to_string(*i) + " is outside its range");
            return v;
        }
        double d = number(v, pos, what);
        // Toward zero; a value outside the type's range (or NaN) is an error in the op (r2 §6).
        if (!std::isfinite(d) || std::fabs(d) >= 9.2233720368547758e18 ||
            std::trunc(d) < static_cast<double>(lo) || std::trunc(d) > static_cast<double>(hi))
            throw RuntimeError(pos, what + ": " + real_text(d) + " is outside the range of " +
                                        elem_name(to));
        return static_cast<int64_t>(std::trunc(d));
    }
    return ir::round_to(*to_dtype(to), number(v, pos, what));
}

Value apply_builtin(const std::string& name, std::span<const Value> args, SourcePos pos) {
    const ir::Builtin* b = ir::find_builtin(name);
    if (!b) throw RuntimeError(pos, "unknown function `" + name + "`");
    if (args.size() != static_cast<size_t>(b->arity))
        throw RuntimeError(pos, "`" + name + "` takes " + std::to_string(b->arity) +
                                    " argument(s), got " + std::to_string(args.size()));
    std::string what = "`" + name + "`";
    bool all_int = true;
    for (const Value& a : args) {
        number(a, pos, what);
        all_int = all_int && std::holds_alternative<int64_t>(a);
    }
    // abs, max, min, floor, ceil and round keep an Int an Int; the rest computes in float64.
    if (all_int && b->keeps_int) {
        int64_t x = std::get<int64_t>(args[0]);
        if (b->op == ir::Op::Abs)
            return x < 0 ? apply_unary(ast::UnaryOp::Neg, args[0], pos) : args[0];
        if (b->arity == 1) return x;
        int64_t y = std::get<int64_t>(args[1]);
        return b->op == ir::Op::Max ? std::max(x, y) : std::min(x, y);
    }
    double x = to_real(args[0]);
    double y = b->arity == 2 ? to_real(args[1]) : 0.0;
    return b->eval(x, y);
}

} // namespace solbench::interp
