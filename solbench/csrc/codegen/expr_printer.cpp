// IR expressions -> CUDA C++ fp32 expressions, with shared nodes named once.
#include "codegen/expr_printer.h"

#include "ir/operators.h"

#include "ir/builtins.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <set>

namespace solbench::codegen {

using ir::Node;
using ir::Op;

std::string float_literal(double v) {
    if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
    if (std::isnan(v)) return "(0.0f / 0.0f)";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
    std::string s(buf, end);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    s += "f";
    return v < 0 ? "(" + s + ")" : s;
}

std::map<const Node*, int> use_counts(const std::vector<ir::Expr>& roots) {
    std::map<const Node*, int> uses;
    std::set<const Node*> visited;
    std::function<void(const ir::Expr&)> visit = [&](const ir::Expr& e) {
        if (!visited.insert(e.get()).second) return;
        for (const auto& a : e->args) {
            ++uses[a.get()];
            visit(a);
        }
    };
    for (const auto& r : roots) {
        ++uses[r.get()];
        visit(r);
    }
    return uses;
}

bool column_invariant(const Node& n) {
    if (n.op == Op::Load && n.fixed_column) return true; // one position of the row
    if (n.op == Op::Load || n.op == Op::Column) return false;
    if (n.op == Op::Reduce) return true;
    for (const auto& a : n.args)
        if (!column_invariant(*a)) return false;
    return true;
}

bool column_invariant(const ir::Expr& e) {
    return column_invariant(*e);
}

ExprPrinter::ExprPrinter(ExprNames names, const std::map<const Node*, int>& uses,
                         std::string prefix, ExprPrinter* outer)
    : names_(std::move(names)), uses_(uses), prefix_(std::move(prefix)), outer_(outer) {}

std::vector<std::string> ExprPrinter::take_statements() {
    std::vector<std::string> out;
    out.swap(statements_);
    return out;
}

namespace {

bool is_leaf(Op op) {
    return op == Op::Const || op == Op::Scalar || op == Op::AxisSize || op == Op::Load ||
           op == Op::Column || op == Op::Row || op == Op::Reduce;
}

// " < " for a comparison (ir/operators.h), else null.
const char* comparison(Op op) {
    const ir::Operator* o = ir::find_operator(op);
    return o && o->kind == ir::OperatorKind::Comparison ? o->infix.data() : nullptr;
}

std::string strip_parens(const std::string& s) {
    if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '(') ++depth;
        if (s[i] == ')' && --depth == 0 && i + 1 != s.size()) return s;
    }
    return s.substr(1, s.size() - 2);
}

// x ** k for a small integer k, as repeated multiplication: fast-math powf is
// exp2(k * log2(x)), which is NaN for negative x.
std::optional<std::string> integer_power(const std::string& base, double k) {
    if (k == 1) return base;
    if (k == 2) return "(" + base + " * " + base + ")";
    if (k == 3) return "(" + base + " * " + base + " * " + base + ")";
    return std::nullopt;
}

} // namespace

std::string ExprPrinter::name_temporary(const Node& n, const std::string& value) {
    std::string name = prefix_ + std::to_string(next_temp_++);
    statements_.push_back("const float " + name + " = " + strip_parens(value) + ";");
    printed_[&n] = name;
    return name;
}

void ExprPrinter::bind(const Node* n, std::string spelling) {
    printed_[n] = std::move(spelling);
}

void ExprPrinter::keep(const Node* n, std::string target) {
    kept_[n] = std::move(target);
}

// Per row: 1 / divisor, so the column loop multiplies instead of dividing (a division is a
// special-function reciprocal per element). A divisor over 2^126 has a reciprocal under the
// smallest normal float, which fast math flushes to zero: such a divisor is divided by 4
// first, and the quotient is multiplied by the same 1/4 (exact: a power of two), so the
// product stays the quotient over the whole float range.
ExprPrinter::Reciprocal ExprPrinter::row_reciprocal(const ir::Expr& divisor) {
    if (auto it = reciprocals_.find(divisor.get()); it != reciprocals_.end()) return it->second;
    const std::string b = print_named(divisor);
    const std::string scale = prefix_ + std::to_string(next_temp_++);
    const std::string inverse = prefix_ + std::to_string(next_temp_++);
    statements_.push_back("const float " + scale + " = fabsf(" + b +
                          ") > 0x1p126f ? 0.25f : 1.0f;");
    statements_.push_back("const float " + inverse + " = 1.0f / (" + b + " * " + scale + ");");
    return reciprocals_[divisor.get()] = {scale, inverse};
}

std::string ExprPrinter::reciprocal(const ir::Expr& divisor) {
    const Reciprocal r = row_reciprocal(divisor);
    return r.scale + " * " + r.inverse;
}

std::string ExprPrinter::print(const ir::Expr& e) {
    if (auto it = printed_.find(e.get()); it != printed_.end()) return it->second;
    if (outer_ && !is_leaf(e->op) && column_invariant(e)) return outer_->print_named(e);
    std::string value = print_node(*e);
    if (auto kept = kept_.find(e.get()); kept != kept_.end()) {
        const std::string target = kept->second;
        statements_.push_back(target + " = " + strip_parens(value) + ";");
        for (const auto& [node, t] : kept_) // equal trees kept together: stored once
            if (t == target) printed_[node] = target;
        return target;
    }
    auto uses = uses_.find(e.get());
    if (!is_leaf(e->op) && uses != uses_.end() && uses->second > 1)
        return name_temporary(*e, value);
    return value;
}

std::string ExprPrinter::print_named(const ir::Expr& e) {
    std::string value = print(e);
    if (is_leaf(e->op) || printed_.count(e.get())) return value;
    return name_temporary(*e, value);
}

std::string ExprPrinter::print_condition(const ir::Expr& e) {
    const char* cmp = comparison(e->op);
    bool shared = uses_.count(e.get()) && uses_.at(e.get()) > 1;
    if (cmp && !shared && !printed_.count(e.get()))
        return print(e->args[0]) + cmp + print(e->args[1]);
    return print(e) + " != 0.0f";
}

std::string ExprPrinter::print_node(const Node& n) {
    auto arg = [&](size_t i) { return print(n.args[i]); };
    auto call = [&](const char* f) { return std::string(f) + "(" + strip_parens(arg(0)) + ")"; };
    auto infix = [&](const char* op) { return "(" + arg(0) + op + arg(1) + ")"; };
    auto flag = [](const std::string& cond) { return "(" + cond + " ? 1.0f : 0.0f)"; };
    switch (n.op) {
    case Op::Const:
        return float_literal(n.value);
    case Op::Scalar:
        return names_.scalar(n.index);
    case Op::AxisSize:
        return names_.axis(n.index);
    case Op::Load:
        if (n.fixed_column) return names_.table(n.index, *n.fixed_column);
        return names_.load(n.index, n.col_offset, n.col_wrap, n.col_div);
    case Op::Reduce:
        return names_.reduction(n);
    case Op::Column:
        return names_.column();
    case Op::Row:
        return names_.row(n.index);
    case Op::Div:
        // A column's value over the row's: times the row's reciprocal (per row, above).
        if (outer_ && !column_invariant(n.args[0]) && column_invariant(n.args[1]) &&
            n.args[1]->op != Op::Const) // a constant divisor is the compiler's to fold
            return "(" + arg(0) + " * " + outer_->reciprocal(n.args[1]) + ")";
        break;
    case Op::Mod: {
        // C fmod semantics (truncating), spelt with casts the contract allows.
        std::string a = arg(0), b = arg(1);
        return "(" + a + " - " + b + " * static_cast<float>(static_cast<int64_t>(" + a + " / " + b +
               ")))";
    }
    case Op::IntDiv: {
        // Exact in int64 (the operands are integers); by zero it is the float quotient.
        std::string a = arg(0), b = arg(1);
        const std::string quotient =
            "static_cast<float>(static_cast<int64_t>(" + a + ") / static_cast<int64_t>(" + b + "))";
        if (n.args[1]->op == Op::Const && n.args[1]->value != 0.0) return quotient;
        return "(" + b + " == 0.0f ? " + a + " / " + b +
               " : static_cast<float>(static_cast<int64_t>(" + a + ") / static_cast<int64_t>(" + b +
               ")))";
    }
    case Op::Neg:
        return "(-" + arg(0) + ")";
    case Op::And:
        return flag(arg(0) + " != 0.0f && " + arg(1) + " != 0.0f");
    case Op::Or:
        return flag(arg(0) + " != 0.0f || " + arg(1) + " != 0.0f");
    case Op::Not:
        return flag(arg(0) + " == 0.0f");
    case Op::Select: {
        std::string cond = print_condition(n.args[0]);
        return "(" + cond + " ? " + arg(1) + " : " + arg(2) + ")";
    }
    case Op::Sigmoid:
        return "(1.0f / (1.0f + expf(-" + arg(0) + ")))";
    case Op::Sin: // in double, which fast math leaves accurate (ir/builtins.cpp)
        return "static_cast<float>(sin(static_cast<double>(" + strip_parens(arg(0)) + ")))";
    case Op::Cos:
        return "static_cast<float>(cos(static_cast<double>(" + strip_parens(arg(0)) + ")))";
    case Op::Pow: {
        const Node& k = *n.args[1];
        if (k.op == Op::Const) {
            if (k.value == 0.5) return call("sqrtf");
            if (auto p = integer_power(arg(0), k.value)) return *p;
        }
        return "powf(" + arg(0) + ", " + arg(1) + ")";
    }
    case Op::Cast:
        switch (n.dtype) {
        case ir::DType::BFloat16:
            return "__bfloat162float(__float2bfloat16_rn(" + strip_parens(arg(0)) + "))";
        case ir::DType::Float16:
            return "__half2float(__float2half_rn(" + strip_parens(arg(0)) + "))";
        case ir::DType::Int8:
        case ir::DType::Int16:
        case ir::DType::UInt8:
        case ir::DType::Int32:
        case ir::DType::Int64:
            return "static_cast<float>(static_cast<int64_t>(" + strip_parens(arg(0)) + "))";
        case ir::DType::Float8E4M3:
            return "__half2float(__half(__nv_cvt_fp8_to_halfraw(__nv_cvt_float_to_fp8(" +
                   strip_parens(arg(0)) + ", __NV_SATFINITE, __NV_E4M3), __NV_E4M3)))";
        case ir::DType::Float8E5M2:
            return "__half2float(__half(__nv_cvt_fp8_to_halfraw(__nv_cvt_float_to_fp8(" +
                   strip_parens(arg(0)) + ", __NV_NOSAT, __NV_E5M2), __NV_E5M2)))";
        case ir::DType::Bool:
            return flag(arg(0) + " != 0.0f");
        case ir::DType::Float32:
        case ir::DType::Float64:
            return arg(0);
        }
        return arg(0);
    default:
        break;
    }
    // Infix arithmetic and comparisons, spelt by the operator table.
    if (const ir::Operator* o = ir::find_operator(n.op); o && !o->infix.empty()) {
        if (o->kind == ir::OperatorKind::Comparison) return flag(arg(0) + o->infix.data() + arg(1));
        return infix(o->infix.data());
    }
    // The plain builtins: `f(x)` or `f(x, y)` with the table's device function.
    if (const ir::Builtin* b = ir::find_builtin(n.op); b && !b->cuda.empty()) {
        if (b->arity == 1) return call(std::string(b->cuda).c_str());
        return std::string(b->cuda) + "(" + arg(0) + ", " + arg(1) + ")";
    }
    return "0.0f";
}

} // namespace solbench::codegen
