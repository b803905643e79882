// IR expressions -> float2 expressions of two columns, packed FP32 where sm_100 has it.
#include "codegen/pair_printer.h"

#include "ir/builtins.h"
#include "ir/pattern.h"
#include "ir/walk.h"

#include <functional>
#include <set>

namespace solbench::codegen {

using ir::Node;
using ir::Op;

namespace {

// The exponents a Pow has a pair form for: repeated products and sqrt, as the scalar
// printer spells them (expr_printer.cpp's integer_power).
bool pair_power(const Node& n) {
    const Node& k = *n.args[1];
    return k.op == Op::Const && (k.value == 2 || k.value == 3 || k.value == 0.5);
}

// A builtin the scalar printer spells as its table's plain `f(x)` or `f(x, y)`.
const ir::Builtin* plain_builtin(Op op) {
    const ir::Builtin* b = ir::find_builtin(op);
    return b && !b->cuda.empty() ? b : nullptr;
}

bool pairable_node(const Node& n, std::set<const Node*>& seen) {
    if (!seen.insert(&n).second || column_invariant(n)) return true;
    auto args_pairable = [&]() {
        for (const auto& a : n.args)
            if (!pairable_node(*a, seen)) return false;
        return true;
    };
    switch (n.op) {
    case Op::Load:
        return true;
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Neg:
        return args_pairable();
    case Op::Pow:
        return pair_power(n) && args_pairable();
    default:
        return plain_builtin(n.op) && args_pairable();
    }
}

// Whether a packed operation prints for n's own tree (outside column-invariant subtrees).
bool packs_node(const Node& n, std::set<const Node*>& seen) {
    if (!seen.insert(&n).second || column_invariant(n)) return false;
    if (n.op == Op::Add || n.op == Op::Sub || n.op == Op::Mul || n.op == Op::Div) return true;
    if (n.op == Op::Pow && n.args[1]->value != 0.5) return true;
    for (const auto& a : n.args)
        if (packs_node(*a, seen)) return true;
    return false;
}

// exp(x - max(x)): its argument is at most 0 (or NaN), what exp2_fma is written for.
bool exp_of_nonpositive(const ir::Expr& e) {
    namespace p = ir::pattern;
    static const p::Pattern numerator = p::node(
        Op::Exp, {p::node(Op::Sub, {p::var("x"), p::reduce(ir::ReduceKind::Max, p::var("x"))})});
    return p::match(numerator, e).has_value();
}

// A special-function instruction (MUFU) a column, by the scalar printer's spellings under
// --use_fast_math: a division by a constant or a row value is a multiplication, and sin and
// cos run in double.
bool special_function(const Node& n) {
    switch (n.op) {
    case Op::Exp:
    case Op::Log:
    case Op::Tanh:
    case Op::Sigmoid:
    case Op::Erf:
    case Op::Sqrt:
        return true;
    case Op::Pow:
        return !pair_power(n) || n.args[1]->value == 0.5;
    case Op::Div:
        return !column_invariant(n.args[1]);
    default:
        return false;
    }
}

} // namespace

int special_functions_per_element(const std::vector<ir::Expr>& roots) {
    std::vector<ir::Expr> counted; // distinct trees: equal ones are computed once
    std::set<const Node*> seen;
    std::function<void(const ir::Expr&)> visit = [&](const ir::Expr& e) {
        if (!seen.insert(e.get()).second || column_invariant(e)) return;
        for (const auto& a : e->args)
            visit(a);
        if (!special_function(*e)) return;
        for (const ir::Expr& c : counted)
            if (ir::same(c, e)) return;
        counted.push_back(e);
    };
    for (const auto& r : roots)
        visit(r);
    return static_cast<int>(counted.size());
}

std::set<std::string_view> pair_helpers_called(const std::vector<std::string>& lines) {
    std::set<std::string_view> called;
    for (std::string_view helper : kPairHelpers) {
        const std::string call = std::string(helper) + "(";
        for (const std::string& line : lines)
            if (line.find(call) != std::string::npos) called.insert(helper);
    }
    return called;
}

PairPrinter::PairPrinter(LoadPair load, const std::map<const Node*, int>& uses, std::string prefix,
                         ExprPrinter& outer, bool fma_exp)
    : load_(std::move(load)), uses_(uses), prefix_(std::move(prefix)), outer_(outer),
      fma_exp_(fma_exp) {}

bool PairPrinter::pairable(const ir::Expr& e) {
    std::set<const Node*> seen;
    return pairable_node(*e, seen);
}

bool PairPrinter::packs(const ir::Expr& e) {
    std::set<const Node*> seen;
    return pairable(e) && packs_node(*e, seen);
}

std::vector<std::string> PairPrinter::take_statements() {
    std::vector<std::string> out;
    out.swap(statements_);
    return out;
}

void PairPrinter::bind(const Node* n, const std::string& array) {
    printed_[n] = "pair_at(" + array + ", j)";
}

void PairPrinter::keep(const Node* n, std::string array) {
    kept_[n] = std::move(array);
}

std::string PairPrinter::name_temporary(const Node& n, const std::string& value) {
    std::string name = prefix_ + std::to_string(next_temp_++);
    statements_.push_back("const float2 " + name + " = " + value + ";");
    printed_[&n] = name;
    return name;
}

std::string PairPrinter::print(const ir::Expr& e) {
    if (auto it = printed_.find(e.get()); it != printed_.end()) return it->second;
    // A row value: printed once a row by the scalar printer, hoisted out of the loop.
    if (column_invariant(e)) return "splat(" + outer_.print_named(e) + ")";
    std::string value = print_node(e);
    if (auto kept = kept_.find(e.get()); kept != kept_.end()) {
        const std::string array = kept->second;
        const std::string name = name_temporary(*e, value);
        statements_.push_back("store_pair(" + array + ", j, " + name + ");");
        for (const auto& [node, a] : kept_) // equal trees kept together: stored once
            if (a == array) printed_[node] = name;
        return name;
    }
    auto uses = uses_.find(e.get());
    if (uses != uses_.end() && uses->second > 1 && e->op != Op::Load)
        return name_temporary(*e, value);
    return value;
}

std::string PairPrinter::print_named(const ir::Expr& e) {
    std::string value = print(e);
    if (printed_.count(e.get())) return value;
    return name_temporary(*e, value);
}

std::string PairPrinter::packed_call(const char* helper, const std::vector<std::string>& args) {
    std::string s = std::string(helper) + "(";
    for (size_t i = 0; i < args.size(); ++i)
        s += (i ? ", " : "") + args[i];
    return s + ")";
}

// f applied lane by lane: its arguments named, so each is computed once for both lanes.
std::string PairPrinter::lanes(const std::string& function, const std::vector<std::string>& pairs) {
    auto lane = [&](const char* l) {
        std::string s = function + "(";
        for (size_t i = 0; i < pairs.size(); ++i)
            s += (i ? ", " : "") + pairs[i] + l;
        return s + ")";
    };
    return "make_float2(" + lane(".x") + ", " + lane(".y") + ")";
}

const Node* PairPrinter::fusable_product(const ir::Expr& e) const {
    if (e->op != Op::Mul || printed_.count(e.get()) || kept_.count(e.get())) return nullptr;
    if (column_invariant(e)) return nullptr; // a row value: splatted, not fused
    auto uses = uses_.find(e.get());
    return uses != uses_.end() && uses->second == 1 ? e.get() : nullptr;
}

std::string PairPrinter::print_node(const ir::Expr& e) {
    const Node& n = *e;
    auto arg = [&](size_t i) { return print(n.args[i]); };
    switch (n.op) {
    case Op::Load:
        return load_(n);
    case Op::Add: {
        // A single-use product added is one fma2, as nvcc contracts the scalar a * b + c.
        for (size_t i = 0; i < 2; ++i)
            if (const Node* m = fusable_product(n.args[i])) {
                const std::string a = print(m->args[0]), b = print(m->args[1]);
                return packed_call("fma2", {a, b, arg(1 - i)});
            }
        return packed_call("add2", {arg(0), arg(1)});
    }
    case Op::Sub:
        return packed_call("sub2", {arg(0), arg(1)});
    case Op::Mul:
        return packed_call("mul2", {arg(0), arg(1)});
    case Op::Neg:
        return "neg2(" + arg(0) + ")";
    case Op::Div: {
        const ir::Expr& divisor = n.args[1];
        if (column_invariant(divisor) && divisor->op != Op::Const) {
            // Times the row's reciprocal, as the scalar printer multiplies: (a * scale) * inverse.
            const ExprPrinter::Reciprocal r = outer_.row_reciprocal(divisor);
            const std::string scaled = packed_call("mul2", {arg(0), "splat(" + r.scale + ")"});
            return packed_call("mul2", {scaled, "splat(" + r.inverse + ")"});
        }
        return packed_call("div2", {arg(0), arg(1)});
    }
    case Op::Pow: {
        const double k = n.args[1]->value;
        if (k == 0.5) return lanes("sqrtf", {print_named(n.args[0])});
        const std::string base = print_named(n.args[0]);
        const std::string square = packed_call("mul2", {base, base});
        return k == 2 ? square : packed_call("mul2", {square, base});
    }
    default:
        break;
    }
    if (n.op == Op::Exp && fma_exp_ && exp_of_nonpositive(e))
        return "exp_nonpositive(" + print(n.args[0]) + ", j)";
    const ir::Builtin* b = plain_builtin(n.op);
    std::vector<std::string> pairs;
    for (const auto& a : n.args)
        pairs.push_back(print_named(a));
    return lanes(std::string(b->cuda), pairs);
}

} // namespace solbench::codegen
