// Expressions: integers stay exact polynomials, reals become IR nodes, and
// `item ... of` reads become loads at the current row and column (or a
// refusal that says why the read is not row-parallel).
#include "raise/raiser.h"

#include "ir/builtins.h"
#include "ir/walk.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace solbench::raise {

namespace {

std::optional<Diagnostic> first_taint(const NumVal& a, const NumVal& b) {
    return a.taint ? a.taint : b.taint;
}

// Arithmetic on two Ints the language types Int (integer elements, sizes): `/`
// truncates toward zero and `%` keeps the dividend's sign, exactly; the rest
// stay Int.
NumVal integer_arith(ir::Op op, const NumVal& a, const NumVal& b) {
    auto taint = first_taint(a, b);
    switch (op) {
    case ir::Op::Add:
    case ir::Op::Sub:
    case ir::Op::Mul:
        return NumVal{ir::binary(op, a.e, b.e), taint, true};
    case ir::Op::Div:
        return NumVal{ir::binary(ir::Op::IntDiv, a.e, b.e), taint, true};
    case ir::Op::Mod: // a - b * (a / b), the Int quotient
        return NumVal{
            ir::binary(ir::Op::Sub, a.e,
                       ir::binary(ir::Op::Mul, b.e, ir::binary(ir::Op::IntDiv, a.e, b.e))),
            taint, true};
    default:
        return NumVal{ir::binary(op, a.e, b.e), taint};
    }
}

ir::Op arith_op(ast::BinaryOp op) {
    switch (op) {
    case ast::BinaryOp::Add:
        return ir::Op::Add;
    case ast::BinaryOp::Sub:
        return ir::Op::Sub;
    case ast::BinaryOp::Mul:
        return ir::Op::Mul;
    case ast::BinaryOp::Div:
        return ir::Op::Div;
    case ast::BinaryOp::Mod:
        return ir::Op::Mod;
    case ast::BinaryOp::Eq:
        return ir::Op::Eq;
    case ast::BinaryOp::Ne:
        return ir::Op::Ne;
    case ast::BinaryOp::Lt:
        return ir::Op::Lt;
    case ast::BinaryOp::Gt:
        return ir::Op::Gt;
    case ast::BinaryOp::Le:
        return ir::Op::Le;
    case ast::BinaryOp::Ge:
        return ir::Op::Ge;
    case ast::BinaryOp::And:
        return ir::Op::And;
    case ast::BinaryOp::Or:
        return ir::Op::Or;
    case ast::BinaryOp::Concat:
        break;
    }
    return ir::Op::Add;
}

bool compare_ints(ast::BinaryOp op, int64_t a, int64_t b) {
    switch (op) {
    case ast::BinaryOp::Eq:
        return a == b;
    case ast::BinaryOp::Ne:
        return a != b;
    case ast::BinaryOp::Lt:
        return a < b;
    case ast::BinaryOp::Gt:
        return a > b;
    case ast::BinaryOp::Le:
        return a <= b;
    case ast::BinaryOp::Ge:
        return a >= b;
    default:
        return false;
    }
}

} // namespace

Poly Raiser::canon(const Poly& p) const {
    Poly r = p;
    // Aliased axes are rewritten to scale * root until none is left (aliases
    // form a forest: unify_dim never points an axis at itself).
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& [mono, coef] : r.terms())
            for (const Atom& a : mono)
                if (a.kind == Atom::Axis && axes_[static_cast<size_t>(a.id)].alias) {
                    auto [root, scale] = *axes_[static_cast<size_t>(a.id)].alias;
                    r = r.substituted(a, Poly::atom({Atom::Axis, root}).scaled(scale));
                    changed = true;
                    goto next;
                }
    next:;
    }
    return r;
}

std::pair<int, int64_t> Raiser::resolve_axis(int axis) const {
    int64_t scale = 1;
    while (axes_[static_cast<size_t>(axis)].alias) {
        auto [root, s] = *axes_[static_cast<size_t>(axis)].alias;
        scale *= s;
        axis = root;
    }
    return {axis, scale};
}

int Raiser::new_axis(std::string name, bool from_param) {
    AxisInfo a;
    a.name = std::move(name);
    a.from_param = from_param;
    axes_.push_back(a);
    return static_cast<int>(axes_.size()) - 1;
}

// Records that tensor dimension `dim_axis` has the size `extent`.
void Raiser::unify_dim(int dim_axis, const Poly& extent, SourcePos pos) {
    auto [root, scale] = resolve_axis(dim_axis);
    Poly mine = Poly::atom({Atom::Axis, root}).scaled(scale);
    Poly target = canon(extent);
    if (mine == target) return;
    if (target.terms().size() != 1)
        refuse(pos, Rule::InputLayout, "a tensor dimension must be a whole axis");
    const auto& [mono, coef] = *target.terms().begin();
    if (mono.size() != 1 || mono[0].kind != Atom::Axis || coef <= 0)
        refuse(pos, Rule::InputLayout, "a tensor dimension must be a whole axis");
    int troot = mono[0].id;
    if (troot == root)
        refuse(pos, Rule::InputLayout,
               "this read needs an axis to equal a different multiple of itself; the loop "
               "bounds and the indices do not cover the same columns");
    auto movable = [&](int a) {
        const AxisInfo& info = axes_[static_cast<size_t>(a)];
        return !info.from_param && !info.value;
    };
    // Plain copies: lambdas capturing structured bindings need clang >= 16.
    const int64_t my_scale = scale, their_scale = coef;
    auto pinned_same = [&](int a, int b) {
        return axes_[static_cast<size_t>(a)].value && axes_[static_cast<size_t>(b)].value &&
               *axes_[static_cast<size_t>(a)].value * my_scale ==
                   *axes_[static_cast<size_t>(b)].value * their_scale;
    };
    if (scale == 1 && movable(root)) {
        axes_[static_cast<size_t>(root)].alias = std::pair{troot, coef};
    } else if (coef == 1 && movable(troot)) {
        axes_[static_cast<size_t>(troot)].alias = std::pair{root, scale};
    } else if (scale == 1 && coef == 1 && (movable(root) || pinned_same(root, troot))) {
        axes_[static_cast<size_t>(root)].alias = std::pair{troot, int64_t{1}};
    } else {
        auto name = [&](int a) {
            return axes_[static_cast<size_t>(a)].name.empty()
                       ? std::string("a size")
                       : "'" + axes_[static_cast<size_t>(a)].name + "'";
        };
        refuse(pos, Rule::InputLayout,
               "this read needs " + name(root) + " and " + name(troot) +
                   " to be equal; say so with a Check, or index within the same axis");
    }
}

IntVal Raiser::to_int(const Value& v, SourcePos pos) {
    if (auto* i = std::get_if<IntVal>(&v)) return IntVal{canon(i->p)};
    if (std::holds_alternative<NumVal>(v))
        refuse(pos, Rule::DataDependentIndex,
               "this index or size is computed from tensor data, so the element read depends on "
               "the data");
    refuse(pos, Rule::ValueKind, "an integer is needed here");
}

// A typed Let, a helper's parameter or result: a Real type makes an Int a Real (so
// `/` divides reals), a narrow one rounds.
Value Raiser::round_to_declared(Value v, const ast::Type& t, SourcePos pos) {
    if (t.rank != 0) return v;
    std::optional<ir::DType> declared = element_dtype(t.elem);
    if (!declared || !ir::is_floating(*declared)) return v;
    if (!std::holds_alternative<NumVal>(v) && !std::holds_alternative<IntVal>(v)) return v;
    NumVal n = to_num(v, pos);
    if (*declared == ir::DType::Float64) return NumVal{n.e, n.taint};
    return NumVal{ir::cast(*declared, n.e), n.taint};
}

// The steps a loop counter has taken (its Atom::Loop), as a value (r2 §8): a row loop's
// is the row's coordinate along its axis, the column loop's the column minus the loop's
// shift. One of a loop nested in a column loop is not a value.
ir::Expr Raiser::counter_value(int loop_id, SourcePos pos) {
    std::vector<int> rows = current_row_loops();
    if (auto at = std::find(rows.begin(), rows.end(), loop_id); at != rows.end())
        return ir::row_index(static_cast<int>(at - rows.begin()));
    LoopInfo* loop = column_context();
    if (loop && !loop->parts.empty())
        refuse(pos, Rule::ValueKind,
               "the counter of a loop over a merged row (r2 §8) used as a number; only the row "
               "loops' counters and a single column loop's are values");
    if (!loop || loop->id != loop_id || loop->kind != LoopKind::Column)
        refuse(pos, Rule::ValueKind,
               "the counter of a loop nested in the loop over the columns used as a number; "
               "only the row loops' and the column loop's counters are values");
    if (loop->reversed)
        refuse(pos, Rule::ColumnIndex, "the counter of a loop that reads the row in reverse");
    if (!loop->shift) loop->shift = Poly::constant(0); // its first read must agree
    const int64_t shift = loop->shift->constant_term();
    return shift == 0 ? ir::column_index()
                      : ir::binary(ir::Op::Sub, ir::column_index(),
                                   ir::constant(static_cast<double>(shift)));
}

NumVal Raiser::to_num(const Value& v, SourcePos pos) {
    if (auto* n = std::get_if<NumVal>(&v)) return *n;
    if (auto* i = std::get_if<IntVal>(&v)) {
        Poly p = canon(i->p);
        ir::Expr sum = ir::constant(static_cast<double>(p.constant_term()));
        bool first = p.constant_term() == 0;
        for (const auto& [mono, coef] : p.terms()) {
            if (mono.empty()) continue;
            ir::Expr term = ir::constant(static_cast<double>(coef));
            bool unit = coef == 1;
            for (const Atom& a : mono) {
                ir::Expr ax = a.kind == Atom::Loop ? counter_value(a.id, pos) : ir::axis_size(a.id);
                term = unit ? ax : ir::binary(ir::Op::Mul, term, ax);
                unit = false;
            }
            sum = first ? term : ir::binary(ir::Op::Add, sum, term);
            first = false;
        }
        return NumVal{sum, std::nullopt, true};
    }
    if (std::holds_alternative<TextVal>(v))
        refuse(pos, Rule::NonTensorValue, "a Text value; solgen raises tensor ops only");
    refuse(pos, Rule::ValueKind, "a sequence where a number is needed");
}

bool Raiser::has_placeholder(const ir::Expr& e) const {
    for (const auto& entry : placeholders_) {
        const ir::Expr& ph = entry.second;
        std::function<bool(const ir::Expr&)> has = [&](const ir::Expr& x) {
            if (x.get() == ph.get()) return true;
            for (const auto& a : x->args)
                if (has(a)) return true;
            return false;
        };
        if (has(e)) return true;
    }
    return false;
}

void Raiser::require_clean(const NumVal& v, SourcePos pos) {
    if (has_placeholder(v.e))
        refuse(pos, Rule::Scan,
               "this reads a value that is still being accumulated along the row: each element "
               "depends on the one before (a scan)");
    if (v.taint) throw Refused{refusal(pos, *v.taint->rule, v.taint->message)};
}

Value Raiser::eval(const ast::Expr& e) {
    return std::visit(
        [&](const auto& n) -> Value {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::NumberLit>) {
                if (n.is_int) {
                    if (n.overflow)
                        refuse(e.pos, Rule::Unsupported,
                               "integer literal " + n.text + " is too large");
                    return IntVal{Poly::constant(n.int_value)};
                }
                if (!std::isfinite(n.value))
                    refuse(e.pos, Rule::Unsupported,
                           "literal " + n.text + " is not a finite number");
                return NumVal{ir::constant(n.value), std::nullopt};
            } else if constexpr (std::is_same_v<T, ast::BoolLit>) {
                return NumVal{ir::constant(n.value ? 1.0 : 0.0), std::nullopt};
            } else if constexpr (std::is_same_v<T, ast::StringLit>) {
                return TextVal{};
            } else if constexpr (std::is_same_v<T, ast::NameRef>) {
                Binding* b = lookup(n.name);
                if (!b) refuse(e.pos, Rule::Unsupported, "unknown name '" + n.name + "'");
                return b->value;
            } else if constexpr (std::is_same_v<T, ast::ItemOf>) {
                Value seq = eval(*n.seq);
                Value index = eval(*n.index);
                return read_item(e.pos, seq, index);
            } else if constexpr (std::is_same_v<T, ast::LengthOf>) {
                return length_of(eval(*n.seq), e.pos);
            } else if constexpr (std::is_same_v<T, ast::Slice>) {
                Value seq = eval(*n.seq);
                Value from = eval(*n.from);
                Value to = eval(*n.to);
                return slice_of(seq, from, to, e.pos);
            } else if constexpr (std::is_same_v<T, ast::NewSeq>) {
                if (n.type.elem == ast::ElemType::Text)
                    refuse(e.pos, Rule::NonTensorValue, "a sequence of Text");
                locals_.push_back(LocalSeq{n.type, loop_stack_.size(), std::nullopt});
                return SeqVal{static_cast<int>(locals_.size()) - 1};
            } else if constexpr (std::is_same_v<T, ast::Call>) {
                return call(e, n);
            } else if constexpr (std::is_same_v<T, ast::Cast>) {
                Value v = eval(*n.operand);
                if (n.to == ast::ElemType::Text)
                    refuse(e.pos, Rule::NonTensorValue, "a cast to Text");
                std::optional<ir::DType> to = element_dtype(n.to);
                if (std::holds_alternative<IntVal>(v) && ir::is_integer(*to)) return v;
                NumVal x = to_num(v, e.pos);
                if (*to == ir::DType::Float64) return NumVal{x.e, x.taint};
                return NumVal{ir::cast(*to, x.e), x.taint, ir::is_integer(*to)};
            } else if constexpr (std::is_same_v<T, ast::CopyOf>) {
                return eval(*n.operand); // symbolic values are immutable: a copy is the value
            } else if constexpr (std::is_same_v<T, ast::Unary>) {
                Value v = eval(*n.operand);
                if (n.op == ast::UnaryOp::Neg) {
                    if (auto* i = std::get_if<IntVal>(&v)) return IntVal{i->p.scaled(-1)};
                    NumVal x = to_num(v, e.pos);
                    if (x.e->op == ir::Op::Const)
                        return NumVal{ir::constant(-x.e->value), x.taint, x.integer};
                    return NumVal{ir::unary(ir::Op::Neg, x.e), x.taint, x.integer};
                }
                NumVal x = to_num(v, e.pos);
                return NumVal{ir::unary(ir::Op::Not, x.e), x.taint};
            } else if constexpr (std::is_same_v<T, ast::Binary>) {
                Value l = eval(*n.lhs);
                Value r = eval(*n.rhs);
                if (n.op == ast::BinaryOp::Concat || std::holds_alternative<TextVal>(l) ||
                    std::holds_alternative<TextVal>(r))
                    refuse(e.pos, Rule::NonTensorValue,
                           "Text values; solgen raises tensor ops only");
                auto* li = std::get_if<IntVal>(&l);
                auto* ri = std::get_if<IntVal>(&r);
                if (li && ri) {
                    Poly a = canon(li->p), b = canon(ri->p);
                    switch (n.op) {
                    case ast::BinaryOp::Add:
                        return IntVal{a + b};
                    case ast::BinaryOp::Sub:
                        return IntVal{a - b};
                    case ast::BinaryOp::Mul:
                        return IntVal{a * b};
                    case ast::BinaryOp::Div:
                    case ast::BinaryOp::Mod: {
                        auto k = b.constant_value();
                        if (k && *k == 0) refuse(e.pos, Rule::SizeArithmetic, "division by zero");
                        if (auto av = a.constant_value(); av && k)
                            return IntVal{
                                Poly::constant(n.op == ast::BinaryOp::Div ? *av / *k : *av % *k)};
                        if (n.op == ast::BinaryOp::Div && k) {
                            if (auto q = a.divided_by(*k)) return IntVal{*q};
                            auto at = a.single_atom();
                            const std::optional<int64_t> fixed =
                                at && at->kind == Atom::Axis
                                    ? axes_[static_cast<size_t>(at->id)].value
                                    : std::nullopt;
                            if (at && at->kind == Atom::Axis && (!fixed || *fixed % *k == 0)) {
                                // n / 2 of an axis: n is 2 * (a new axis), exactly; of a
                                // constant axis (a Check), the new axis is constant too.
                                const AxisInfo& parent = axes_[static_cast<size_t>(at->id)];
                                int half =
                                    new_axis(parent.name.empty() ? "" : parent.name + "_half");
                                if (fixed) axes_[static_cast<size_t>(half)].value = *fixed / *k;
                                axes_[static_cast<size_t>(at->id)].alias = std::pair{half, *k};
                                return IntVal{Poly::atom({Atom::Axis, half})};
                            }
                        }
                        // A counter (r2 §8) divided by a constant, `(c - 1) / 2` of an
                        // interleaved pair: a value, not an index or a size.
                        if (k && *k > 0 && a.mentions_kind(Atom::Loop))
                            return integer_arith(arith_op(n.op), to_num(l, n.lhs->pos),
                                                 to_num(r, n.rhs->pos));
                        refuse(e.pos, Rule::SizeArithmetic,
                               "integer division of sizes that solgen cannot keep exact");
                    }
                    default: {
                        auto av = a.constant_value(), bv = b.constant_value();
                        if (av && bv)
                            return NumVal{ir::constant(compare_ints(n.op, *av, *bv) ? 1.0 : 0.0),
                                          std::nullopt};
                        if ((n.op == ast::BinaryOp::Eq || n.op == ast::BinaryOp::Ne) && a == b)
                            return NumVal{ir::constant(n.op == ast::BinaryOp::Eq ? 1.0 : 0.0),
                                          std::nullopt};
                        // A condition on the column counter (r2 §8): a select on the column.
                        if (a.mentions_kind(Atom::Loop) || b.mentions_kind(Atom::Loop))
                            return NumVal{ir::binary(arith_op(n.op), to_num(l, n.lhs->pos).e,
                                                     to_num(r, n.rhs->pos).e),
                                          std::nullopt};
                        refuse(e.pos, Rule::SizeArithmetic, "a comparison of symbolic sizes");
                    }
                    }
                }
                NumVal a = to_num(l, n.lhs->pos), b = to_num(r, n.rhs->pos);
                ir::Op op = arith_op(n.op);
                if (a.integer && b.integer) return integer_arith(op, a, b);
                if (a.e->op == ir::Op::Const && b.e->op == ir::Op::Const) {
                    double x = a.e->value, y = b.e->value;
                    double v = 0;
                    switch (op) {
                    case ir::Op::Add:
                        v = x + y;
                        break;
                    case ir::Op::Sub:
                        v = x - y;
                        break;
                    case ir::Op::Mul:
                        v = x * y;
                        break;
                    case ir::Op::Div:
                        v = x / y;
                        break;
                    default:
                        return NumVal{ir::binary(op, a.e, b.e), first_taint(a, b)};
                    }
                    if (std::isfinite(v)) return NumVal{ir::constant(v), first_taint(a, b)};
                }
                return NumVal{ir::binary(op, a.e, b.e), first_taint(a, b)};
            }
        },
        e.node);
}

Value Raiser::call(const ast::Expr& e, const ast::Call& c) {
    std::vector<Value> args;
    for (const auto& a : c.args)
        args.push_back(eval(*a));
    if (const ir::Builtin* b = ir::find_builtin(c.callee)) {
        if (args.size() != static_cast<size_t>(b->arity))
            refuse(e.pos, Rule::Unsupported,
                   c.callee + " takes " + std::to_string(b->arity) + " argument(s)");
        if (b->keeps_int && std::all_of(args.begin(), args.end(), [](const Value& v) {
                return std::holds_alternative<IntVal>(v);
            })) {
            // Index arithmetic: floor/ceil/round of an Int is itself; max/min of constants folds.
            if (b->arity == 1 && b->op != ir::Op::Abs) return args[0];
            if (b->arity == 2) {
                auto av = canon(std::get<IntVal>(args[0]).p).constant_value();
                auto bv = canon(std::get<IntVal>(args[1]).p).constant_value();
                if (av && bv)
                    return IntVal{Poly::constant(b->op == ir::Op::Max ? std::max(*av, *bv)
                                                                      : std::min(*av, *bv))};
            }
        }
        if (b->arity == 1) {
            NumVal x = to_num(args[0], e.pos);
            return NumVal{ir::unary(b->op, x.e), x.taint, b->keeps_int && x.integer};
        }
        NumVal x = to_num(args[0], e.pos), y = to_num(args[1], e.pos);
        return NumVal{ir::binary(b->op, x.e, y.e), first_taint(x, y),
                      b->keeps_int && x.integer && y.integer};
    }
    const ast::Function* f = program_.find(c.callee);
    if (!f) refuse(e.pos, Rule::Unsupported, "unknown function '" + c.callee + "'");
    if (f->params.size() != args.size())
        refuse(e.pos, Rule::Unsupported,
               "'" + c.callee + "' takes " + std::to_string(f->params.size()) + " arguments");
    return call_helper(*f, std::move(args), e.pos);
}

// Helpers are inlined: their parameters are bound to the argument values and
// the body runs in a scope of its own. An early `Return` under an If becomes
// a select between that value and the rest of the body's.
Value Raiser::call_helper(const ast::Function& f, std::vector<Value> args, SourcePos pos) {
    if (helper_stack_.size() > 64) refuse(pos, Rule::Recursion, "helpers nested more than 64 deep");
    // Inlining copies a helper's body per call; a chain of helpers that each
    // call the next twice would grow exponentially.
    if (++inlined_calls_ > 20000)
        refuse(pos, Rule::HelperForm, "the op inlines more than 20000 helper calls");
    auto saved = std::move(scopes_);
    scopes_.clear();
    scopes_.emplace_back();
    for (size_t i = 0; i < f.params.size(); ++i) {
        if (f.params[i].type.elem == ast::ElemType::Text)
            refuse(f.params[i].pos, Rule::NonTensorValue, "a Text parameter");
        declare(f.params[i].name, round_to_declared(args[i], f.params[i].type, pos), false);
    }
    helper_stack_.push_back(f.name);
    Value result = exec_helper_block(f.body, 0);
    if (f.returns) result = round_to_declared(result, *f.returns, pos);
    helper_stack_.pop_back();
    scopes_ = std::move(saved);
    return result;
}

Value Raiser::exec_helper_block(const ast::Block& block, size_t from) {
    for (size_t i = from; i < block.size(); ++i) {
        const ast::Stmt& s = block[i];
        if (const auto* ret = std::get_if<ast::Return>(&s.node)) {
            if (!ret->value) refuse(s.pos, Rule::HelperForm, "a helper must return a value");
            return eval(*ret->value);
        }
        const auto* node = std::get_if<ast::If>(&s.node);
        auto ends_in_return = [](const ast::Block& b) {
            return !b.empty() && std::holds_alternative<ast::Return>(b.back().node);
        };
        bool guards = node && std::any_of(node->branches.begin(), node->branches.end(),
                                          [&](const auto& b) { return ends_in_return(b.body); });
        if (!guards) {
            exec(s);
            continue;
        }
        // value = select(c1, branch1, select(c2, branch2, ... rest))
        std::function<Value(size_t)> from_branch = [&](size_t k) -> Value {
            if (k == node->branches.size()) {
                if (node->otherwise) {
                    if (!ends_in_return(*node->otherwise))
                        refuse(s.pos, Rule::HelperForm,
                               "in a helper, either every branch returns or none does");
                    auto saved = scopes_;
                    scopes_.emplace_back();
                    Value v = exec_helper_block(*node->otherwise, 0);
                    scopes_ = saved;
                    return v;
                }
                return exec_helper_block(block, i + 1);
            }
            const ast::IfBranch& br = node->branches[k];
            if (!ends_in_return(br.body))
                refuse(br.pos, Rule::HelperForm,
                       "in a helper, either every branch returns or none does");
            NumVal c = to_num(eval(*br.cond), br.pos);
            auto saved = scopes_;
            scopes_.emplace_back();
            Value then_v = exec_helper_block(br.body, 0);
            scopes_ = saved;
            Value else_v = from_branch(k + 1);
            if (c.e->op == ir::Op::Const) return c.e->value != 0 ? then_v : else_v;
            NumVal t = to_num(then_v, br.pos), f = to_num(else_v, br.pos);
            return NumVal{ir::select(c.e, t.e, f.e), c.taint ? c.taint : first_taint(t, f),
                          t.integer && f.integer};
        };
        return from_branch(0);
    }
    refuse(block.empty() ? SourcePos{} : block.back().pos, Rule::HelperForm,
           "a helper that ends without `Return`");
}

const Content& Raiser::row_buffer(const SeqVal& seq, SourcePos pos) const {
    const LocalSeq& local = locals_[static_cast<size_t>(seq.local)];
    if (!local.content)
        refuse(pos, Rule::Scan,
               "reads a local sequence before it is filled (each element from the ones before: "
               "a scan)");
    const Content& c = *local.content;
    // One Push per column of the row it was declared in, read in that row.
    bool same_row = c.col_loop && c.row_loops.empty() && local.depth <= loop_stack_.size();
    for (size_t i = local.depth; same_row && i < loop_stack_.size(); ++i)
        same_row = all_loops_[static_cast<size_t>(loop_stack_[i])].kind != LoopKind::Row;
    if (!same_row)
        refuse(pos, Rule::LocalSequence,
               "reads back a local sequence that is not a buffer of this row's columns");
    return c;
}

IntVal Raiser::length_of(const Value& seq, SourcePos pos) {
    if (const auto* local = std::get_if<SeqVal>(&seq)) {
        const Content& c = row_buffer(*local, pos);
        return IntVal{canon(all_loops_[static_cast<size_t>(*c.col_loop)].extent)};
    }
    const auto* view = std::get_if<ViewVal>(&seq);
    if (!view) {
        if (std::holds_alternative<TextVal>(seq))
            refuse(pos, Rule::NonTensorValue, "the length of a Text value");
        refuse(pos, Rule::LocalSequence, "the length of a local sequence; use the input's length");
    }
    if (view->length) return IntVal{*view->length};
    const TensorParam& t = tensors_[static_cast<size_t>(view->tensor)];
    if (t.flat && view->prefix.empty()) {
        Poly p = Poly::constant(1);
        for (int d : t.dims)
            p = p * Poly::atom({Atom::Axis, d});
        return IntVal{canon(p)};
    }
    if (view->prefix.size() >= t.dims.size())
        refuse(pos, Rule::ValueKind, "the length of a single element");
    return IntVal{canon(Poly::atom({Atom::Axis, t.dims[view->prefix.size()]}))};
}

// `items a through b of seq`: a view of seq whose next dimension starts at
// a - 1 and holds b - a + 1 items (logos-ops.md §5, r2).
ViewVal Raiser::slice_of(const Value& seq, const Value& from, const Value& to, SourcePos pos) {
    const auto* view = std::get_if<ViewVal>(&seq);
    if (!view) {
        if (std::holds_alternative<TextVal>(seq))
            refuse(pos, Rule::NonTensorValue, "a slice of a Text value");
        refuse(pos, Rule::LocalSequence, "a slice of a local sequence; slice the input instead");
    }
    if (std::holds_alternative<NumVal>(from) || std::holds_alternative<NumVal>(to))
        refuse(
            pos, Rule::DataDependentIndex,
            "a slice bound computed from tensor data (which items are read depends on the data)");
    const TensorParam& t = tensors_[static_cast<size_t>(view->tensor)];
    if (view->prefix.size() >= t.dims.size() && !(t.flat && view->prefix.empty()))
        refuse(pos, Rule::ValueKind, "a slice of a single element");
    Poly a0 = canon(to_int(from, pos).p - Poly::constant(1));
    if (auto k = a0.constant_value(); k && *k < 0)
        refuse(pos, Rule::Unsupported,
               "items " + std::to_string(*k + 1) + " through ...: LOGOS indices start at 1");
    ViewVal out = *view;
    out.offset = canon(view->offset + a0);
    out.length = canon(to_int(to, pos).p - to_int(from, pos).p + Poly::constant(1));
    return out;
}

std::vector<Poly> Raiser::decompose_flat(const TensorParam& t, const Poly& index0, SourcePos pos) {
    std::vector<Poly> parts(t.dims.size());
    Poly q = canon(index0);
    for (size_t j = t.dims.size() - 1; j >= 1; --j) {
        auto [root, scale] = resolve_axis(t.dims[j]);
        if (scale != 1) refuse(pos, Rule::InputLayout, "a flat index over a packed axis");
        auto [quot, rest] = q.split_by({Atom::Axis, root});
        // A reversed column, r * n + (n - 1 - k), splits as row r + 1 and
        // column -1 - k: give the row's n back to the column, which then lies
        // in the row (a reversed read of it, elements.cpp).
        bool reversed = std::any_of(rest.terms().begin(), rest.terms().end(), [](const auto& term) {
            return term.second < 0 &&
                   std::any_of(term.first.begin(), term.first.end(),
                               [](const Atom& a) { return a.kind == Atom::Loop; });
        });
        if (reversed && quot.constant_term() >= 1) {
            rest = canon(rest + Poly::atom({Atom::Axis, root}));
            quot = canon(quot - Poly::constant(1));
        }
        parts[j] = rest;
        q = quot;
    }
    parts[0] = q;
    return parts;
}

namespace {

// e read at a fixed column instead of the current one (a seed `item 1 of buf`);
// reductions inside keep running over their own columns.
ir::Expr at_fixed_column(const ir::Expr& e, int64_t col, SourcePos pos) {
    if (e->op == ir::Op::Reduce) return e;
    if (e->op == ir::Op::Load) {
        if (e->col_offset || e->col_wrap || e->col_div || e->fixed_column)
            throw Refused{refusal(pos, Rule::LocalSequence,
                                  "a row buffer of shifted reads is read back only inside a loop")};
        return ir::load_fixed(e->index, col);
    }
    std::vector<ir::Expr> args;
    for (const ir::Expr& a : e->args)
        args.push_back(at_fixed_column(a, col, pos));
    return ir::with_args(e, std::move(args));
}

} // namespace

// A row buffer read back (r2 §7): the value pushed at that column. The IR is
// column-relative, so the read must be at the column of a later loop over its
// columns (forward, reversed, or from the second column), or at a fixed column
// (a seed, `item 1 of buf`).
Value Raiser::read_row_buffer(const Content& c, const Poly& idx0, SourcePos pos) {
    const char* whole =
        "a row buffer is read back only at the column of a loop over all its columns";
    Poly built = canon(all_loops_[static_cast<size_t>(*c.col_loop)].extent);
    LoopInfo* loop = column_context();
    if (auto k = idx0.constant_value(); k && *k >= 0 && !idx0.mentions_kind(Atom::Loop))
        return NumVal{at_fixed_column(c.value, *k, pos), std::nullopt};
    if (loop && !loop->parts.empty())
        refuse(pos, Rule::LocalSequence, "a row buffer read inside a merged row (r2 §8)");
    if (!loop) refuse(pos, Rule::LocalSequence, whole);
    Atom counter{Atom::Loop, loop->id};
    auto [coef, rest] = idx0.split_by(counter);
    auto shift = canon(rest).constant_value();
    bool reversed = coef == Poly::constant(-1);
    if (!(coef == Poly::constant(1)) && !reversed) refuse(pos, Rule::LocalSequence, whole);
    if (reversed) shift = canon(rest + Poly::constant(1) - loop->extent).constant_value();
    if (!shift || (*shift != 0 && *shift != 1)) refuse(pos, Rule::LocalSequence, whole);
    if ((loop->shift && loop->shift->constant_term() != *shift) ||
        (loop->shift && loop->reversed != reversed))
        refuse(pos, Rule::LocalSequence,
               "a row buffer read by a loop that also reads at another column");
    // Over all its columns: the two loops' lengths are one axis (`length of g_row`
    // reading a buffer of u_row's columns says the two rows are as long).
    Poly covered = canon(loop->extent + Poly::constant(*shift));
    if (!(covered == built)) {
        auto axis = built.single_atom();
        if (!axis || axis->kind != Atom::Axis) refuse(pos, Rule::LocalSequence, whole);
        unify_dim(axis->id, covered, pos);
    }
    loop->shift = Poly::constant(*shift);
    loop->reversed = reversed;
    return NumVal{c.value, std::nullopt};
}

Value Raiser::read_item(SourcePos pos, const Value& seq, const Value& index) {
    if (std::holds_alternative<TextVal>(seq))
        refuse(pos, Rule::NonTensorValue, "an item of a Text value");
    if (std::holds_alternative<NumVal>(index))
        refuse(pos, Rule::DataDependentIndex,
               "the index is computed from tensor data, so which element is read depends on the "
               "data (a gather)");
    if (const auto* local = std::get_if<SeqVal>(&seq)) {
        // A row buffer read back at the column of a later loop over the same
        // columns is the value pushed there (r2 §7): the IR is column-relative.
        const Content& c = row_buffer(*local, pos);
        Poly idx0 = canon(to_int(index, pos).p - Poly::constant(1));
        Value v = read_row_buffer(c, idx0, pos);
        // Its items have the buffer's element type: an Int8 buffer holds Ints.
        std::optional<ir::DType> elem =
            element_dtype(locals_[static_cast<size_t>(local->local)].type.elem);
        std::get<NumVal>(v).integer = elem && ir::is_integer(*elem);
        return v;
    }
    const auto* view = std::get_if<ViewVal>(&seq);
    if (!view) refuse(pos, Rule::ValueKind, "`item ... of` needs a sequence");
    Poly idx0 = canon(to_int(index, pos).p - Poly::constant(1));
    if (auto k = idx0.constant_value(); k && *k < 0)
        refuse(pos, Rule::Unsupported,
               "item " + std::to_string(*k + 1) + ": LOGOS indices start at 1");
    idx0 = canon(idx0 + view->offset); // a slice's items start at its offset
    const TensorParam& t = tensors_[static_cast<size_t>(view->tensor)];
    std::vector<Poly> full = view->prefix;
    if (t.flat && view->prefix.empty()) {
        full = decompose_flat(t, idx0, pos);
    } else {
        full.push_back(idx0);
        if (full.size() < t.dims.size()) return ViewVal{view->tensor, full, {}, std::nullopt};
    }
    if (full.size() > t.dims.size()) refuse(pos, Rule::ValueKind, "too many indices");
    return element_load(view->tensor, full, pos);
}

} // namespace solbench::raise
