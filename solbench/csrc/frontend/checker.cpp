// Static checks after parsing (see checker.h).
//
// The checker rejects programs that are wrong in any reading of LOGOS: names
// that do not resolve, calls with the wrong number of arguments, a Bool where
// a number is needed, a Set on something immutable, a misplaced Return. It is
// deliberately lenient about what is valid LOGOS but outside what solgen can
// compile (Text, recursion, `copy of`, While loops, data-dependent indices):
// the recognizer refuses those later, naming the rule they break.
#include "frontend/checker.h"

#include "ir/builtins.h"

#include "frontend/checker_types.h"
#include "frontend/interp_describe.h"
#include "frontend/interp_ops.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

namespace solbench {

namespace {

using check_types::CType;
using check_types::Kind;

// Deeper nesting than this is reported instead of recursed into.
constexpr int kMaxNesting = 2000;

enum class Binding { Input, Output, Let, Loop };

struct VarInfo {
    CType type;
    Binding binding = Binding::Let;
    bool is_mutable = false;
    bool writable = false; // may be written through by Set item / Push
    SourcePos pos;
    // `Let mutable s be 0.`: an Int literal, which a later `Set s to <Real>`
    // makes a Real (logos-ops.md §6, r2).
    const ast::Let* int_literal = nullptr; // its Let, while it may still become a Real
};

// An integer literal, possibly negated: `0`, `-1`.
bool is_int_literal(const ast::Expr& e) {
    if (const auto* n = std::get_if<ast::NumberLit>(&e.node)) return n->is_int;
    if (const auto* u = std::get_if<ast::Unary>(&e.node))
        return u->op == ast::UnaryOp::Neg && u->operand && is_int_literal(*u->operand);
    return false;
}

std::string where(SourcePos p) {
    return std::to_string(p.line) + ":" + std::to_string(p.col);
}

std::string quoted(const ast::Expr& e) {
    return "`" + interp::describe(e) + "`";
}

class Checker {
  public:
    Checker(const ast::Program& program, TypeFacts* facts) : program_(program), facts_(facts) {}
    std::vector<Diagnostic> run();

  private:
    void error(SourcePos pos, const std::string& message) {
        diags_.push_back({pos, interp::clip_words(message)});
    }

    void check_function(const ast::Function& f, bool is_op);
    void check_block(const ast::Block& block, bool top_level);
    void check_stmt(const ast::Stmt& s, bool last_in_block, bool top_level);
    void check_let(const ast::Let& s, SourcePos pos);
    void check_set_var(const ast::SetVar& s, SourcePos pos);
    void check_store(const ast::ExprPtr& seq, const ast::ExprPtr& value, SourcePos pos,
                     const char* what);
    void check_loop_body(const ast::Block& body, const std::string& var, VarInfo info);
    void check_return(const ast::Return& s, SourcePos pos, bool last_in_block, bool top_level);
    void check_condition(const ast::ExprPtr& cond, SourcePos pos, const char* what);

    CType expr(const ast::ExprPtr& e, SourcePos context);
    CType expr_node(const ast::Expr& e);
    CType name_type(const ast::NameRef& n, SourcePos pos);
    CType item_type(const ast::ItemOf& n, SourcePos pos);
    CType call_type(const ast::Call& n, SourcePos pos);
    CType binary_type(const ast::Binary& n, SourcePos pos);
    void expect_number(const CType& t, const ast::Expr& e, const std::string& what);
    void expect_index(const ast::ExprPtr& index, SourcePos pos);

    const VarInfo* lookup(const std::string& name) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (auto found = it->find(name); found != it->end()) return &found->second;
        return nullptr;
    }
    VarInfo* lookup_mutable(const std::string& name) {
        return const_cast<VarInfo*>(std::as_const(*this).lookup(name));
    }
    void declare(const std::string& name, VarInfo info, SourcePos pos);
    bool writable_value(const ast::Expr& e) const;

    const ast::Program& program_;
    TypeFacts* facts_;
    std::vector<Diagnostic> diags_;
    std::map<std::string, const ast::Function*> functions_;
    const ast::Function* fn_ = nullptr;
    bool is_op_ = false;
    int loop_depth_ = 0;
    int nesting_ = 0;
    bool too_deep_reported_ = false;
    std::vector<std::map<std::string, VarInfo>> scopes_;
};

// Counts C++ recursion; reports (once) when a program nests absurdly deep.
class Nest {
  public:
    explicit Nest(int& depth) : depth_(depth) { ++depth_; }
    ~Nest() { --depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    bool too_deep() const { return depth_ > kMaxNesting; }

  private:
    int& depth_;
};

std::vector<Diagnostic> Checker::run() {
    for (const ast::Function& f : program_.functions) {
        auto [it, fresh] = functions_.emplace(f.name, &f);
        if (!fresh)
            error(f.pos, "a function named `" + f.name + "` is already defined at " +
                             where(it->second->pos));
    }
    const ast::Function* op = program_.find();
    for (const ast::Function& f : program_.functions)
        check_function(f, &f == op);
    std::stable_sort(diags_.begin(), diags_.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.col < b.pos.col;
    });
    return std::move(diags_);
}

// A block returns on every path when it ends in a Return, or in an If whose
// branches (an Otherwise included) all return.
bool always_returns(const ast::Block& block) {
    for (const ast::Stmt& s : block) {
        if (std::holds_alternative<ast::Return>(s.node)) return true;
        if (const auto* i = std::get_if<ast::If>(&s.node); i && i->otherwise) {
            bool all = always_returns(*i->otherwise);
            for (const ast::IfBranch& b : i->branches)
                all = all && always_returns(b.body);
            if (all) return true;
        }
    }
    return false;
}

void Checker::check_function(const ast::Function& f, bool is_op) {
    fn_ = &f;
    is_op_ = is_op;
    loop_depth_ = 0;
    scopes_.assign(1, {});
    bool has_outputs = false;
    for (const ast::Param& p : f.params) {
        has_outputs = has_outputs || p.is_output;
        if (const VarInfo* prev = lookup(p.name)) {
            error(p.pos, "parameter `" + p.name + "` is declared twice (first at " +
                             where(prev->pos) + ")");
            continue;
        }
        VarInfo info{check_types::of_type(p.type), p.is_output ? Binding::Output : Binding::Input,
                     p.is_output && p.type.rank == 0, p.is_output, p.pos};
        scopes_.back().emplace(p.name, info);
    }
    if (has_outputs && f.returns)
        error(f.returns->pos.valid() ? f.returns->pos : f.pos,
              "`" + f.name + "` has `into` outputs and also `-> " + ast::to_string(*f.returns) +
                  "`: an op either writes its outputs or returns one value");
    check_block(f.body, true);
    if (f.returns && !always_returns(f.body))
        error(f.pos, "`" + f.name + "` declares `-> " + ast::to_string(*f.returns) +
                         "` but can reach its end without `Return`");
}

void Checker::check_block(const ast::Block& block, bool top_level) {
    for (size_t k = 0; k < block.size(); ++k)
        check_stmt(block[k], k + 1 == block.size(), top_level);
}

void Checker::declare(const std::string& name, VarInfo info, SourcePos pos) {
    auto [it, fresh] = scopes_.back().emplace(name, info);
    if (!fresh)
        error(pos, "`" + name + "` is already defined in this block (at " + where(it->second.pos) +
                       "); use `Set " + name + " to ...` to change it");
}

// A sequence may be written through when it is an `into` output or a local
// one; a name bound to (part of) an input is not.
bool Checker::writable_value(const ast::Expr& e) const {
    if (const auto* n = std::get_if<ast::NameRef>(&e.node)) {
        const VarInfo* v = lookup(n->name);
        return !v || v->writable;
    }
    if (const auto* i = std::get_if<ast::ItemOf>(&e.node))
        return !i->seq || writable_value(*i->seq);
    if (std::holds_alternative<ast::Slice>(e.node)) return false; // read-only (r2)
    return true; // a fresh value: a new Seq, a copy, a call's result
}

void Checker::check_stmt(const ast::Stmt& s, bool last_in_block, bool top_level) {
    Nest nest(nesting_);
    if (nest.too_deep()) {
        if (!too_deep_reported_) error(s.pos, "statements nested too deeply");
        too_deep_reported_ = true;
        return;
    }
    std::visit(
        [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::Let>) {
                check_let(n, s.pos);
            } else if constexpr (std::is_same_v<T, ast::SetVar>) {
                check_set_var(n, s.pos);
            } else if constexpr (std::is_same_v<T, ast::SetItem>) {
                expect_index(n.index, s.pos);
                check_store(n.seq, n.value, s.pos, "Set item");
            } else if constexpr (std::is_same_v<T, ast::Push>) {
                check_store(n.seq, n.value, s.pos, "Push");
            } else if constexpr (std::is_same_v<T, ast::ForEach>) {
                CType over = expr(n.seq, s.pos);
                if (!over.unknown() && !over.seq() && over.kind != Kind::Text)
                    error(n.seq->pos, "`Repeat for " + n.var + " in` needs a sequence, but " +
                                          quoted(*n.seq) + " is " + check_types::describe(over));
                bool writable = n.seq && writable_value(*n.seq);
                check_loop_body(n.body, n.var,
                                {check_types::element_of(over), Binding::Loop, false, writable,
                                 n.var_pos.valid() ? n.var_pos : s.pos});
            } else if constexpr (std::is_same_v<T, ast::ForRange>) {
                for (const ast::ExprPtr* bound : {&n.from, &n.to}) {
                    CType t = expr(*bound, s.pos);
                    if (!t.unknown() && t.kind != Kind::Int)
                        error((*bound)->pos, "a counted loop's bounds must be Int, but " +
                                                 quoted(**bound) + " is " +
                                                 check_types::describe(t));
                }
                check_loop_body(n.body, n.var,
                                {{Kind::Int},
                                 Binding::Loop,
                                 false,
                                 false,
                                 n.var_pos.valid() ? n.var_pos : s.pos});
            } else if constexpr (std::is_same_v<T, ast::While>) {
                check_condition(n.cond, s.pos, "`While`");
                check_loop_body(n.body, "", {});
            } else if constexpr (std::is_same_v<T, ast::If>) {
                for (const ast::IfBranch& b : n.branches) {
                    check_condition(b.cond, b.pos, "`If`");
                    scopes_.emplace_back();
                    check_block(b.body, false);
                    scopes_.pop_back();
                }
                if (n.otherwise) {
                    scopes_.emplace_back();
                    check_block(*n.otherwise, false);
                    scopes_.pop_back();
                }
            } else if constexpr (std::is_same_v<T, ast::Return>) {
                check_return(n, s.pos, last_in_block, top_level);
            } else {
                check_condition(n.cond, s.pos, n.is_assert ? "`Assert that`" : "`Check that`");
            }
        },
        s.node);
}

void Checker::check_loop_body(const ast::Block& body, const std::string& var, VarInfo info) {
    scopes_.emplace_back();
    if (!var.empty()) scopes_.back().emplace(var, info);
    ++loop_depth_;
    check_block(body, false);
    --loop_depth_;
    scopes_.pop_back();
}

void Checker::check_condition(const ast::ExprPtr& cond, SourcePos pos, const char* what) {
    CType t = expr(cond, pos);
    if (!t.unknown() && t.kind != Kind::Bool)
        error(cond->pos, std::string(what) + " needs a Bool condition, but " + quoted(*cond) +
                             " is " + check_types::describe(t));
}

void Checker::check_let(const ast::Let& s, SourcePos pos) {
    CType value = expr(s.value, pos);
    CType type = value;
    if (s.type) {
        type = check_types::of_type(*s.type);
        if (!check_types::fits(value, type))
            error(s.value->pos, "`" + s.name + "` is declared " + ast::to_string(*s.type) +
                                    " but " + quoted(*s.value) + " is " +
                                    check_types::describe(value));
    }
    if (value.kind == Kind::Nothing) type = {};
    bool writable = !s.value || writable_value(*s.value);
    bool int_literal = s.is_mutable && !s.type && s.value && is_int_literal(*s.value);
    declare(s.name, {type, Binding::Let, s.is_mutable, writable, pos, int_literal ? &s : nullptr},
            pos);
}

void Checker::check_set_var(const ast::SetVar& s, SourcePos pos) {
    CType value = expr(s.value, pos);
    VarInfo* v = lookup_mutable(s.name);
    if (!v) {
        error(pos, "unknown name `" + s.name + "`: `Set` needs a name bound by `Let mutable`");
        return;
    }
    switch (v->binding) {
    case Binding::Input:
        error(pos, "cannot Set `" + s.name + "`: it is an input parameter");
        return;
    case Binding::Loop:
        error(pos, "cannot Set `" + s.name + "`: it is a loop variable");
        return;
    case Binding::Output:
        if (!v->is_mutable) {
            error(pos, "cannot Set the output `" + s.name +
                           "` as a whole; write its items with `Set item i of " + s.name +
                           " to ...`");
            return;
        }
        break;
    case Binding::Let:
        if (!v->is_mutable) {
            error(pos, "cannot Set `" + s.name +
                           "`: it is not mutable (declare it with `Let mutable " + s.name +
                           " be ...`)");
            return;
        }
        break;
    }
    if (v->int_literal && v->type.kind == Kind::Int && value.kind == Kind::Real) {
        v->type = value; // the Int literal was a Real all along
        if (facts_) facts_->real_int_literals.insert(v->int_literal);
        v->int_literal = nullptr;
        return;
    }
    if (value.kind == Kind::Int) v->int_literal = nullptr; // used as an Int: it stays one
    if (!check_types::fits(value, v->type))
        error(s.value->pos, "cannot Set `" + s.name + "`, which holds " +
                                check_types::describe(v->type) + ", to " + quoted(*s.value) +
                                ", which is " + check_types::describe(value));
}

// Set item / Push: the target is a writable sequence and the value fits its elements.
void Checker::check_store(const ast::ExprPtr& seq, const ast::ExprPtr& value, SourcePos pos,
                          const char* what) {
    CType v = expr(value, pos);
    CType target = expr(seq, pos);
    if (target.unknown()) return;
    if (!target.seq()) {
        error(seq->pos, std::string(what) + " needs a sequence, but " + quoted(*seq) + " is " +
                            check_types::describe(target));
        return;
    }
    if (!writable_value(*seq)) {
        error(seq->pos, std::string(std::string_view(what) == "Push" ? "cannot Push to "
                                                                     : "cannot Set an item of ") +
                            quoted(*seq) +
                            ": it is (part of) an input; only `into` outputs and local sequences "
                            "can be written");
        return;
    }
    CType element = check_types::element_of(target);
    if (!check_types::fits(v, element))
        error(value->pos, std::string(what) + ": " + quoted(*value) + " is " +
                              check_types::describe(v) + ", but each item of " + quoted(*seq) +
                              " is " + check_types::describe(element));
}

void Checker::check_return(const ast::Return& s, SourcePos pos, bool last_in_block,
                           bool top_level) {
    const ast::Function& f = *fn_;
    CType v = s.value ? expr(s.value, pos) : CType{Kind::Nothing};
    if (f.returns && !s.value) {
        error(pos, "`" + f.name + "` must return " + ast::to_string(*f.returns) +
                       ": write `Return <value>.`");
    } else if (f.returns && !check_types::fits(v, check_types::of_type(*f.returns))) {
        error(s.value->pos, "`" + f.name + "` returns " + ast::to_string(*f.returns) + ", but " +
                                quoted(*s.value) + " is " + check_types::describe(v));
    } else if (!f.returns && s.value) {
        bool outputs = std::any_of(f.params.begin(), f.params.end(),
                                   [](const ast::Param& p) { return p.is_output; });
        error(s.value->pos, "`" + f.name + "` " +
                                (outputs ? "writes its `into` outputs and must not return a value"
                                         : "has no `-> R` and cannot return a value"));
    }
    if (is_op_) {
        if (!top_level || !last_in_block)
            error(pos, "`Return` must be the last statement of the op `" + f.name + "`");
    } else if (loop_depth_ > 0) {
        error(pos, "`Return` inside a loop is not supported; return after the loop");
    } else if (!last_in_block) {
        error(pos, "`Return` must be the last statement of its block: what follows never runs");
    }
}

// ----------------------------------------------------- expressions ----

CType Checker::expr(const ast::ExprPtr& e, SourcePos context) {
    if (!e) {
        error(context, "missing expression");
        return {};
    }
    Nest nest(nesting_);
    if (nest.too_deep()) {
        if (!too_deep_reported_) error(e->pos, "expression nested too deeply");
        too_deep_reported_ = true;
        return {};
    }
    return expr_node(*e);
}

void Checker::expect_number(const CType& t, const ast::Expr& e, const std::string& what) {
    if (t.unknown() || t.number()) return;
    std::string hint = t.kind == Kind::Text ? " (Text joins with `combined with`)" : "";
    error(e.pos,
          what + " needs a number, but " + quoted(e) + " is " + check_types::describe(t) + hint);
}

// The value of an integer literal, possibly negated.
std::optional<int64_t> literal_int(const ast::Expr& e) {
    if (const auto* n = std::get_if<ast::NumberLit>(&e.node); n && n->is_int && !n->overflow)
        return n->int_value;
    if (const auto* u = std::get_if<ast::Unary>(&e.node);
        u && u->op == ast::UnaryOp::Neg && u->operand)
        if (auto v = literal_int(*u->operand); v && *v != INT64_MIN) return -*v;
    return std::nullopt;
}

void Checker::expect_index(const ast::ExprPtr& index, SourcePos pos) {
    CType t = expr(index, pos);
    if (!t.unknown() && t.kind != Kind::Int)
        error(index->pos,
              "an index must be an Int, but " + quoted(*index) + " is " + check_types::describe(t));
    // A constant index below 1 is outside every sequence.
    if (auto v = index ? literal_int(*index) : std::nullopt; v && *v < 1)
        error(index->pos, "item " + std::to_string(*v) +
                              " is outside every sequence: LOGOS indices start at 1");
}

CType Checker::expr_node(const ast::Expr& e) {
    SourcePos pos = e.pos;
    return std::visit(
        [&](const auto& n) -> CType {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::NumberLit>) {
                if (n.is_int && n.overflow)
                    error(pos, "integer `" + n.text + "` does not fit in 64 bits");
                return {n.is_int ? Kind::Int : Kind::Real};
            } else if constexpr (std::is_same_v<T, ast::BoolLit>) {
                return {Kind::Bool};
            } else if constexpr (std::is_same_v<T, ast::StringLit>) {
                return {Kind::Text};
            } else if constexpr (std::is_same_v<T, ast::NameRef>) {
                return name_type(n, pos);
            } else if constexpr (std::is_same_v<T, ast::ItemOf>) {
                return item_type(n, pos);
            } else if constexpr (std::is_same_v<T, ast::LengthOf>) {
                CType t = expr(n.seq, pos);
                if (!t.unknown() && !t.seq() && t.kind != Kind::Text)
                    error(pos, "`length of` needs a sequence, but " + quoted(*n.seq) + " is " +
                                   check_types::describe(t));
                return {Kind::Int};
            } else if constexpr (std::is_same_v<T, ast::Slice>) {
                expect_index(n.from, pos);
                expect_index(n.to, pos);
                CType t = expr(n.seq, pos);
                if (!t.unknown() && !t.seq()) {
                    error(pos, "`items ... through ... of` needs a sequence, but " +
                                   quoted(*n.seq) + " is " + check_types::describe(t));
                    return {};
                }
                return t;
            } else if constexpr (std::is_same_v<T, ast::NewSeq>) {
                if (n.capacity) {
                    CType c = expr(n.capacity, pos);
                    if (!c.unknown() && c.kind != Kind::Int)
                        error(n.capacity->pos, "a capacity must be an Int, but " +
                                                   quoted(*n.capacity) + " is " +
                                                   check_types::describe(c));
                }
                if (n.type.rank < 1) {
                    error(pos, "`a new` needs a Seq type");
                    return {};
                }
                return check_types::of_type(n.type);
            } else if constexpr (std::is_same_v<T, ast::Call>) {
                return call_type(n, pos);
            } else if constexpr (std::is_same_v<T, ast::Cast>) {
                CType t = expr(n.operand, pos);
                if (n.to != ast::ElemType::Text && !t.unknown() && !t.number() &&
                    t.kind != Kind::Bool)
                    error(pos, std::string("`as ") + ast::to_string(n.to) +
                                   "` needs a number, but " + quoted(*n.operand) + " is " +
                                   check_types::describe(t));
                return check_types::scalar_of(n.to);
            } else if constexpr (std::is_same_v<T, ast::CopyOf>) {
                return expr(n.operand, pos);
            } else if constexpr (std::is_same_v<T, ast::Unary>) {
                CType t = expr(n.operand, pos);
                if (n.op == ast::UnaryOp::Not) {
                    if (!t.unknown() && t.kind != Kind::Bool)
                        error(pos, "`not` needs a Bool, but " + quoted(*n.operand) + " is " +
                                       check_types::describe(t));
                    return {Kind::Bool};
                }
                expect_number(t, *n.operand, "unary minus");
                return t.number() ? t : CType{};
            } else {
                return binary_type(n, pos);
            }
        },
        e.node);
}

CType Checker::name_type(const ast::NameRef& n, SourcePos pos) {
    if (const VarInfo* v = lookup(n.name)) return v->type;
    if (functions_.count(n.name) || interp::is_builtin(n.name))
        error(pos, "`" + n.name + "` is a function: call it as `" + n.name + "(...)`");
    else
        error(pos, "unknown name `" + n.name + "`");
    return {};
}

CType Checker::item_type(const ast::ItemOf& n, SourcePos pos) {
    expect_index(n.index, pos);
    CType t = expr(n.seq, pos);
    if (!t.unknown() && !t.seq() && t.kind != Kind::Text) {
        error(pos, "`item of` needs a sequence, but " + quoted(*n.seq) + " is " +
                       check_types::describe(t));
        return {};
    }
    return check_types::element_of(t);
}

CType Checker::call_type(const ast::Call& n, SourcePos pos) {
    std::vector<CType> args;
    for (const ast::ExprPtr& a : n.args)
        args.push_back(expr(a, pos));
    auto helper = functions_.find(n.callee);
    if (helper != functions_.end()) {
        const ast::Function& f = *helper->second;
        if (args.size() != f.params.size()) {
            error(pos, "`" + f.name + "` takes " + std::to_string(f.params.size()) +
                           " argument(s), got " + std::to_string(args.size()));
        } else {
            for (size_t k = 0; k < args.size(); ++k)
                if (!check_types::fits(args[k], check_types::of_type(f.params[k].type)))
                    error(n.args[k]->pos, "argument " + std::to_string(k + 1) + " of `" + f.name +
                                              "` (`" + f.params[k].name + ": " +
                                              ast::to_string(f.params[k].type) + "`) cannot be " +
                                              quoted(*n.args[k]) + ", which is " +
                                              check_types::describe(args[k]));
        }
        if (!f.returns) {
            error(pos, "`" + f.name + "` returns no value, so it cannot be used in an expression");
            return {};
        }
        return check_types::of_type(*f.returns);
    }
    int arity = interp::builtin_arity(n.callee);
    if (const ast::SkippedBlock* b = program_.skipped_block(n.callee); b && b->native) {
        error(pos, "`" + n.callee + "` is a `## To native` declaration (line " +
                       std::to_string(b->pos.line) +
                       "): a foreign function, which solgen's op subset cannot call");
        return {};
    }
    if (arity == 0) {
        error(pos, "unknown function `" + n.callee +
                       "`: not a `## To` in this file nor a builtin (" + ir::builtin_names() + ")");
        return {};
    }
    if (args.size() != static_cast<size_t>(arity)) {
        error(pos, "`" + n.callee + "` takes " + std::to_string(arity) + " argument(s), got " +
                       std::to_string(args.size()));
        return {Kind::Real};
    }
    bool all_int = true;
    for (size_t k = 0; k < args.size(); ++k) {
        expect_number(args[k], *n.args[k], "`" + n.callee + "`");
        all_int = all_int && args[k].kind == Kind::Int;
    }
    bool keeps_int = ir::find_builtin(n.callee)->keeps_int;
    return {all_int && keeps_int ? Kind::Int : Kind::Real};
}

CType Checker::binary_type(const ast::Binary& n, SourcePos pos) {
    using B = ast::BinaryOp;
    CType a = expr(n.lhs, pos);
    CType b = expr(n.rhs, pos);
    switch (n.op) {
    case B::Add:
    case B::Sub:
    case B::Mul:
    case B::Div:
    case B::Mod: {
        std::string what = std::string("`") + ast::to_string(n.op) + "`";
        expect_number(a, *n.lhs, what);
        expect_number(b, *n.rhs, what);
        if (a.kind == Kind::Int && b.kind == Kind::Int) return {Kind::Int};
        if (a.unknown() || b.unknown()) return {};
        return {Kind::Real};
    }
    case B::Eq:
    case B::Ne:
    case B::Lt:
    case B::Gt:
    case B::Le:
    case B::Ge: {
        bool ordered = n.op != B::Eq && n.op != B::Ne;
        bool ok = a.unknown() || b.unknown() || (a.number() && b.number()) ||
                  (a.kind == Kind::Text && b.kind == Kind::Text) ||
                  (!ordered && a.kind == Kind::Bool && b.kind == Kind::Bool);
        if (!ok)
            error(pos, "cannot compare " + quoted(*n.lhs) + " (" + check_types::describe(a) +
                           ") with " + quoted(*n.rhs) + " (" + check_types::describe(b) + ")");
        return {Kind::Bool};
    }
    case B::And:
    case B::Or:
        for (auto [t, side] : {std::pair{a, n.lhs.get()}, std::pair{b, n.rhs.get()}})
            if (!t.unknown() && t.kind != Kind::Bool)
                error(side->pos, std::string("`") + ast::to_string(n.op) +
                                     "` needs Bool operands, but " + quoted(*side) + " is " +
                                     check_types::describe(t));
        return {Kind::Bool};
    case B::Concat:
        for (auto [t, side] : {std::pair{a, n.lhs.get()}, std::pair{b, n.rhs.get()}})
            if (t.seq())
                error(side->pos, "`combined with` joins Text, but " + quoted(*side) + " is " +
                                     check_types::describe(t));
        return {Kind::Text};
    }
    return {};
}

} // namespace

std::vector<Diagnostic> check(const ast::Program& program, TypeFacts* facts) {
    return Checker(program, facts).run();
}

} // namespace solbench
