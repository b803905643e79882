// The tree-walking interpreter (see interpreter.h for the contract).
//
// Choices the language page leaves open, fixed here:
// - Int / Int is integer division truncating toward zero (interp_ops.h).
// - A binding with a declared type (`Let x: T be e`, a helper parameter, a
//   `-> R` result) holds values of that type: storing into it converts, and
//   rounds to a BFloat16/Float16/Float32 T, exactly as a store into a
//   sequence of T does. The op's own inputs are taken as given.
// - An `into` output that is not among the inputs is allocated when the first
//   `Check that length of OUT equals N` is reached: N zeros for a flat
//   output, N empty rows (to Push to) for a nested one. A scalar output
//   starts at zero.
// - Every statement and every loop iteration is a step; more than
//   max_steps steps is an error, as is a call chain deeper than
//   max_call_depth or expressions nested deeper than the C++ stack allows.
#include "frontend/interpreter.h"

#include "frontend/interp_describe.h"
#include "frontend/interp_json.h"
#include "frontend/interp_ops.h"
#include "frontend/interp_value.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>

#if defined(__linux__)
#include <pthread.h>
#endif

namespace solbench {

namespace {

using interp::Nothing;
using interp::SeqPtr;
using interp::SeqVal;
using interp::Value;

// C++ recursion (expressions within statements within calls) is bounded so
// a pathological program fails with an error instead of a stack overflow.
// Both the depth and the stack bytes are bounded: frames are several times
// larger in sanitizer builds, and a caller's thread may have a small stack.
constexpr int kMaxNesting = 6000;
constexpr size_t kMaxStackBytes = size_t{2} << 20; // where the thread's stack is unknown
constexpr uintptr_t kStackReserve = uintptr_t{512} << 10;

// The lowest stack address this thread may run down to (its stack's end plus
// a reserve), or 0 when the platform cannot say.
uintptr_t stack_floor() {
#if defined(__linux__)
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void* addr = nullptr;
        size_t size = 0;
        int rc = pthread_attr_getstack(&attr, &addr, &size);
        pthread_attr_destroy(&attr);
        if (rc == 0 && addr) return reinterpret_cast<uintptr_t>(addr) + kStackReserve;
    }
#endif
    return 0;
}

struct Var {
    Value value;
    std::optional<ast::Type> declared; // a typed binding converts what it is Set to
    bool unsized_output = false;       // an `into` output still waiting for its size
};

using Scope = std::unordered_map<std::string, Var>;

struct Frame {
    const ast::Function* fn = nullptr;
    std::vector<Scope> scopes;
    std::optional<Value> returned;
};

enum class Flow { Next, Return };

Value zero_of(ast::ElemType elem) {
    if (interp::is_int_elem(elem)) return int64_t{0};
    if (elem == ast::ElemType::Bool) return false;
    if (elem == ast::ElemType::Text) return std::string();
    return 0.0;
}

class Machine {
  public:
    Machine(const ast::Program& program, const InterpreterLimits& limits) : limits_(limits) {
        for (const ast::Function& f : program.functions)
            functions_.emplace(f.name, &f); // the first definition wins
    }

    nlohmann::json run(const ast::Function& op, const nlohmann::json& inputs);

  private:
    // Scope guard for C++ recursion depth.
    class Nest {
      public:
        Nest(Machine& m, SourcePos pos) : m_(m) {
            if (m_.nesting_ >= kMaxNesting || m_.stack_exhausted())
                throw RuntimeError(pos, "statements, expressions or calls nested too deeply");
            ++m_.nesting_;
        }
        ~Nest() { --m_.nesting_; }
        Nest(const Nest&) = delete;
        Nest& operator=(const Nest&) = delete;

      private:
        Machine& m_;
    };

    void step(SourcePos pos) {
        if (++steps_ > limits_.max_steps)
            throw RuntimeError(pos, "step limit exceeded: more than " +
                                        std::to_string(limits_.max_steps) +
                                        " steps (an endless loop?)");
    }

    Var* lookup(const std::string& name) {
        for (auto it = frame_->scopes.rbegin(); it != frame_->scopes.rend(); ++it)
            if (auto found = it->find(name); found != it->end()) return &found->second;
        return nullptr;
    }
    Var& var(const std::string& name, SourcePos pos);

    void bind_inputs(Frame& frame, const ast::Function& op, const nlohmann::json& inputs);
    nlohmann::json collect_outputs(Frame& frame, const ast::Function& op);

    Flow exec_body(const ast::Block& body, const std::string* var_name = nullptr,
                   Value var_value = Nothing{});
    Flow exec(const ast::Stmt& s);
    Flow exec_let(const ast::Let& s, SourcePos pos);
    Flow exec_set_var(const ast::SetVar& s, SourcePos pos);
    Flow exec_set_item(const ast::SetItem& s, SourcePos pos);
    Flow exec_push(const ast::Push& s, SourcePos pos);
    Flow exec_for_each(const ast::ForEach& s, SourcePos pos);
    Flow exec_for_range(const ast::ForRange& s, SourcePos pos);
    Flow exec_while(const ast::While& s, SourcePos pos);
    Flow exec_if(const ast::If& s);
    Flow exec_return(const ast::Return& s);
    Flow exec_check(const ast::Check& s, SourcePos pos);
    bool size_output(const ast::Check& s);

    Value eval(const ast::ExprPtr& e, SourcePos context);
    Value eval_node(const ast::Expr& e);
    Value eval_item(const ast::ItemOf& e, SourcePos pos);
    Value eval_slice(const ast::Slice& e, SourcePos pos);
    Value eval_call(const ast::Call& e, SourcePos pos);
    Value call_helper(const ast::Function& f, std::vector<Value> args, SourcePos pos);
    SeqPtr eval_seq(const ast::ExprPtr& e, SourcePos pos, const char* what);
    size_t index_of(const SeqVal& s, const Value& index, const ast::Expr& seq_expr, SourcePos pos);

    // Whether the C++ stack is nearly used up (it grows down on every
    // platform this builds for).
    bool stack_exhausted() const {
        auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
        if (stack_floor_) return here < stack_floor_;
        return (here > stack_base_ ? here - stack_base_ : stack_base_ - here) > kMaxStackBytes;
    }

    InterpreterLimits limits_;
    uintptr_t stack_base_ = 0;
    uintptr_t stack_floor_ = stack_floor();
    std::unordered_map<std::string, const ast::Function*> functions_;
    Frame* frame_ = nullptr;
    long long steps_ = 0;
    int call_depth_ = 0;
    int nesting_ = 0;
};

// ------------------------------------------------------------ the op ----

nlohmann::json Machine::run(const ast::Function& op, const nlohmann::json& inputs) {
    stack_base_ = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    Frame frame;
    frame.fn = &op;
    frame.scopes.emplace_back();
    bind_inputs(frame, op, inputs);
    frame_ = &frame;
    call_depth_ = 1;
    exec_body(op.body);
    return collect_outputs(frame, op);
}

void Machine::bind_inputs(Frame& frame, const ast::Function& op, const nlohmann::json& inputs) {
    if (!inputs.is_object())
        throw RuntimeError(op.pos, "the inputs of `" + op.name +
                                       "` must be a JSON object keyed by parameter name");
    for (const auto& [key, value] : inputs.items()) {
        const std::string& name = key; // lambdas capturing structured bindings need clang >= 16
        bool known = std::any_of(op.params.begin(), op.params.end(),
                                 [&](const ast::Param& p) { return p.name == name; });
        if (!known)
            throw RuntimeError(op.pos, "unexpected input `" + key + "`: `" + op.name +
                                           "` has no parameter of that name");
    }
    Scope& scope = frame.scopes.back();
    for (const ast::Param& p : op.params) {
        Var v;
        v.declared = p.type;
        auto given = inputs.find(p.name);
        if (given != inputs.end()) {
            v.value = interp::value_from_json(*given, p.type.elem, p.type.rank, p.pos, p.name);
        } else if (!p.is_output) {
            throw RuntimeError(p.pos, "missing input `" + p.name + "` (" +
                                          interp::type_name(p.type.elem, p.type.rank) + ")");
        } else if (p.type.rank == 0) {
            v.value = zero_of(p.type.elem);
        } else {
            v.unsized_output = true;
        }
        scope.insert_or_assign(p.name, std::move(v));
    }
}

nlohmann::json Machine::collect_outputs(Frame& frame, const ast::Function& op) {
    nlohmann::json result = nlohmann::json::object();
    if (op.returns) {
        if (!frame.returned || std::holds_alternative<Nothing>(*frame.returned))
            throw RuntimeError(op.pos, "`" + op.name + "` ended without returning its output");
        result["output"] = interp::value_to_json(interp::store_as(
            *frame.returned, op.returns->elem, op.returns->rank, op.pos, "the output"));
    }
    const Scope& params = frame.scopes.front();
    for (const ast::Param& p : op.params) {
        if (!p.is_output) continue;
        const Var& v = params.at(p.name);
        if (v.unsized_output)
            throw RuntimeError(p.pos, "output `" + p.name +
                                          "` was never sized: write `Check that length of " +
                                          p.name + " equals ...` before using it");
        result[p.name] = interp::value_to_json(v.value);
    }
    return result;
}

Var& Machine::var(const std::string& name, SourcePos pos) {
    Var* v = lookup(name);
    if (!v) throw RuntimeError(pos, "unknown name `" + name + "`");
    if (v->unsized_output)
        throw RuntimeError(pos, "output `" + name + "` is used before `Check that length of " +
                                    name + " equals ...` gives it a size");
    return *v;
}

// ------------------------------------------------------ statements ----

Flow Machine::exec_body(const ast::Block& body, const std::string* var_name, Value var_value) {
    frame_->scopes.emplace_back();
    if (var_name)
        frame_->scopes.back().insert_or_assign(*var_name, Var{std::move(var_value), {}, false});
    Flow flow = Flow::Next;
    for (const ast::Stmt& s : body) {
        flow = exec(s);
        if (flow == Flow::Return) break;
    }
    frame_->scopes.pop_back();
    return flow;
}

Flow Machine::exec(const ast::Stmt& s) {
    Nest nest(*this, s.pos);
    step(s.pos);
    return std::visit(
        [&](const auto& n) -> Flow {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::Let>)
                return exec_let(n, s.pos);
            else if constexpr (std::is_same_v<T, ast::SetVar>)
                return exec_set_var(n, s.pos);
            else if constexpr (std::is_same_v<T, ast::SetItem>)
                return exec_set_item(n, s.pos);
            else if constexpr (std::is_same_v<T, ast::Push>)
                return exec_push(n, s.pos);
            else if constexpr (std::is_same_v<T, ast::ForEach>)
                return exec_for_each(n, s.pos);
            else if constexpr (std::is_same_v<T, ast::ForRange>)
                return exec_for_range(n, s.pos);
            else if constexpr (std::is_same_v<T, ast::While>)
                return exec_while(n, s.pos);
            else if constexpr (std::is_same_v<T, ast::If>)
                return exec_if(n);
            else if constexpr (std::is_same_v<T, ast::Return>)
                return exec_return(n);
            else
                return exec_check(n, s.pos);
        },
        s.node);
}

Flow Machine::exec_let(const ast::Let& s, SourcePos pos) {
    Var v;
    v.value = eval(s.value, pos);
    if (s.type) {
        v.declared = s.type;
        v.value = interp::store_as(v.value, s.type->elem, s.type->rank, pos, "Let " + s.name);
    }
    frame_->scopes.back().insert_or_assign(s.name, std::move(v));
    return Flow::Next;
}

Flow Machine::exec_set_var(const ast::SetVar& s, SourcePos pos) {
    Value value = eval(s.value, pos);
    Var& v = var(s.name, pos);
    v.value = v.declared ? interp::store_as(value, v.declared->elem, v.declared->rank, pos,
                                            "Set " + s.name)
                         : std::move(value);
    return Flow::Next;
}

Flow Machine::exec_set_item(const ast::SetItem& s, SourcePos pos) {
    SeqPtr seq = eval_seq(s.seq, pos, "Set item");
    Value index = eval(s.index, pos);
    Value value = eval(s.value, pos);
    size_t k = index_of(*seq, index, *s.seq, s.index ? s.index->pos : pos);
    seq->items[k] = interp::store_as(value, seq->elem, seq->rank - 1, pos,
                                     "Set item of " + interp::describe(*s.seq));
    return Flow::Next;
}

Flow Machine::exec_push(const ast::Push& s, SourcePos pos) {
    Value value = eval(s.value, pos);
    SeqPtr seq = eval_seq(s.seq, pos, "Push");
    seq->items.push_back(interp::store_as(value, seq->elem, seq->rank - 1, pos,
                                          "Push to " + interp::describe(*s.seq)));
    return Flow::Next;
}

Flow Machine::exec_for_each(const ast::ForEach& s, SourcePos pos) {
    Value over = eval(s.seq, pos);
    if (const auto* text = std::get_if<std::string>(&over)) {
        std::string chars = *text;
        for (char c : chars) {
            step(pos);
            if (exec_body(s.body, &s.var, std::string(1, c)) == Flow::Return) return Flow::Return;
        }
        return Flow::Next;
    }
    const auto* seq_ptr = std::get_if<SeqPtr>(&over);
    if (!seq_ptr)
        throw RuntimeError(s.seq->pos, "`Repeat for " + s.var + " in` needs a sequence, got " +
                                           interp::describe_kind(over));
    SeqPtr seq = *seq_ptr; // keeps the sequence alive whatever the body rebinds
    for (size_t k = 0; k < seq->items.size(); ++k) {
        step(pos);
        if (exec_body(s.body, &s.var, seq->items[k]) == Flow::Return) return Flow::Return;
    }
    return Flow::Next;
}

Flow Machine::exec_for_range(const ast::ForRange& s, SourcePos pos) {
    int64_t from =
        interp::as_int(eval(s.from, pos), s.from ? s.from->pos : pos, "a counted loop's start");
    int64_t to = interp::as_int(eval(s.to, pos), s.to ? s.to->pos : pos, "a counted loop's end");
    for (int64_t i = from; i <= to; ++i) { // inclusive
        step(pos);
        if (exec_body(s.body, &s.var, i) == Flow::Return) return Flow::Return;
        if (i == to) break; // no overflow past INT64_MAX
    }
    return Flow::Next;
}

Flow Machine::exec_while(const ast::While& s, SourcePos pos) {
    while (true) {
        step(pos);
        if (!interp::as_bool(eval(s.cond, pos), s.cond ? s.cond->pos : pos, "`While`")) break;
        if (exec_body(s.body) == Flow::Return) return Flow::Return;
    }
    return Flow::Next;
}

Flow Machine::exec_if(const ast::If& s) {
    for (const ast::IfBranch& b : s.branches)
        if (interp::as_bool(eval(b.cond, b.pos), b.cond ? b.cond->pos : b.pos, "`If`"))
            return exec_body(b.body);
    if (s.otherwise) return exec_body(*s.otherwise);
    return Flow::Next;
}

Flow Machine::exec_return(const ast::Return& s) {
    frame_->returned = s.value ? eval(s.value, s.value->pos) : Value{Nothing{}};
    return Flow::Return;
}

// `Check that length of OUT equals N` sizes an output that is still unsized.
bool Machine::size_output(const ast::Check& s) {
    const auto* eq = s.cond ? std::get_if<ast::Binary>(&s.cond->node) : nullptr;
    if (!eq || eq->op != ast::BinaryOp::Eq || !eq->lhs || !eq->rhs) return false;
    for (auto [side, other] : {std::pair{&eq->lhs, &eq->rhs}, std::pair{&eq->rhs, &eq->lhs}}) {
        const auto* len = std::get_if<ast::LengthOf>(&(*side)->node);
        const auto* name = len && len->seq ? std::get_if<ast::NameRef>(&len->seq->node) : nullptr;
        Var* v = name ? lookup(name->name) : nullptr;
        if (!v || !v->unsized_output) continue;
        int64_t n =
            interp::as_int(eval(*other, (*other)->pos), (*other)->pos, "an output's length");
        if (n < 0)
            throw RuntimeError((*other)->pos, "output `" + name->name + "` cannot have " +
                                                  std::to_string(n) + " items");
        auto seq = std::make_shared<SeqVal>();
        seq->elem = v->declared->elem;
        seq->rank = v->declared->rank;
        for (int64_t k = 0; k < n; ++k) {
            if (seq->rank == 1)
                seq->items.push_back(zero_of(seq->elem));
            else
                seq->items.push_back(
                    std::make_shared<SeqVal>(SeqVal{seq->elem, seq->rank - 1, {}}));
        }
        v->value = std::move(seq);
        v->unsized_output = false;
        return true;
    }
    return false;
}

Flow Machine::exec_check(const ast::Check& s, SourcePos pos) {
    if (size_output(s)) return Flow::Next;
    Value ok = eval(s.cond, pos);
    const char* word = s.is_assert ? "Assert" : "Check";
    if (interp::as_bool(ok, s.cond ? s.cond->pos : pos, std::string("`") + word + " that`"))
        return Flow::Next;
    std::string msg = std::string(word) + " failed: " + interp::describe(*s.cond);
    // For a comparison, say what each side was.
    if (const auto* b = std::get_if<ast::Binary>(&s.cond->node);
        b && b->op >= ast::BinaryOp::Eq && b->op <= ast::BinaryOp::Ge)
        msg += " (" + interp::as_text(eval(b->lhs, pos)) + " vs " +
               interp::as_text(eval(b->rhs, pos)) + ")";
    throw RuntimeError(pos, msg);
}

// ----------------------------------------------------- expressions ----

Value Machine::eval(const ast::ExprPtr& e, SourcePos context) {
    if (!e) throw RuntimeError(context, "missing expression");
    Nest nest(*this, e->pos);
    return eval_node(*e);
}

Value Machine::eval_node(const ast::Expr& e) {
    SourcePos pos = e.pos;
    return std::visit(
        [&](const auto& n) -> Value {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::NumberLit>) {
                if (!n.is_int) return n.value;
                if (n.overflow) throw RuntimeError(pos, "integer " + n.text + " is too large");
                return n.int_value;
            } else if constexpr (std::is_same_v<T, ast::BoolLit>) {
                return n.value;
            } else if constexpr (std::is_same_v<T, ast::StringLit>) {
                return n.value;
            } else if constexpr (std::is_same_v<T, ast::NameRef>) {
                return var(n.name, pos).value;
            } else if constexpr (std::is_same_v<T, ast::ItemOf>) {
                return eval_item(n, pos);
            } else if constexpr (std::is_same_v<T, ast::LengthOf>) {
                Value v = eval(n.seq, pos);
                if (const auto* t = std::get_if<std::string>(&v))
                    return static_cast<int64_t>(t->size());
                if (const auto* s = std::get_if<SeqPtr>(&v))
                    return static_cast<int64_t>((*s)->items.size());
                throw RuntimeError(pos,
                                   "`length of` needs a sequence, got " + interp::describe_kind(v));
            } else if constexpr (std::is_same_v<T, ast::Slice>) {
                return eval_slice(n, pos);
            } else if constexpr (std::is_same_v<T, ast::NewSeq>) {
                if (n.type.rank < 1) throw RuntimeError(pos, "`a new` needs a Seq type");
                auto seq = std::make_shared<SeqVal>(SeqVal{n.type.elem, n.type.rank, {}});
                if (n.capacity) {
                    int64_t cap = interp::as_int(eval(n.capacity, pos), pos, "a capacity");
                    seq->items.reserve(static_cast<size_t>(std::clamp<int64_t>(cap, 0, 1 << 16)));
                }
                return seq;
            } else if constexpr (std::is_same_v<T, ast::Call>) {
                return eval_call(n, pos);
            } else if constexpr (std::is_same_v<T, ast::Cast>) {
                return interp::apply_cast(eval(n.operand, pos), n.to, pos);
            } else if constexpr (std::is_same_v<T, ast::CopyOf>) {
                return interp::deep_copy(eval(n.operand, pos));
            } else if constexpr (std::is_same_v<T, ast::Unary>) {
                return interp::apply_unary(n.op, eval(n.operand, pos), pos);
            } else {
                // `and` / `or` short-circuit; everything else evaluates both sides.
                if (n.op == ast::BinaryOp::And || n.op == ast::BinaryOp::Or) {
                    bool lhs = interp::as_bool(eval(n.lhs, pos), pos, "`and`/`or`");
                    if (lhs == (n.op == ast::BinaryOp::Or)) return lhs;
                    return interp::as_bool(eval(n.rhs, pos), pos, "`and`/`or`");
                }
                Value lhs = eval(n.lhs, pos);
                return interp::apply_binary(n.op, lhs, eval(n.rhs, pos), pos);
            }
        },
        e.node);
}

SeqPtr Machine::eval_seq(const ast::ExprPtr& e, SourcePos pos, const char* what) {
    Value v = eval(e, pos);
    if (auto* s = std::get_if<SeqPtr>(&v)) return *s;
    throw RuntimeError(e ? e->pos : pos, std::string(what) + " needs a sequence, but " +
                                             (e ? interp::describe(*e) : "it") + " is " +
                                             interp::describe_kind(v));
}

size_t Machine::index_of(const SeqVal& s, const Value& index, const ast::Expr& seq_expr,
                         SourcePos pos) {
    std::string name = interp::describe(seq_expr);
    int64_t i = interp::as_int(index, pos, "the index into " + name);
    if (i == 0) throw RuntimeError(pos, "item 0 of " + name + ": LOGOS indices start at 1");
    if (i < 0 || static_cast<uint64_t>(i) > s.items.size())
        throw RuntimeError(pos, "item " + std::to_string(i) + " of " + name +
                                    " is out of range: it has " + std::to_string(s.items.size()) +
                                    " items");
    return static_cast<size_t>(i - 1);
}

Value Machine::eval_item(const ast::ItemOf& e, SourcePos pos) {
    Value over = eval(e.seq, pos);
    Value index = eval(e.index, pos);
    if (const auto* text = std::get_if<std::string>(&over)) {
        auto seq = std::make_shared<SeqVal>(SeqVal{ast::ElemType::Text, 1, {}});
        for (char c : *text)
            seq->items.emplace_back(std::string(1, c));
        return seq->items[index_of(*seq, index, *e.seq, pos)];
    }
    const auto* seq = std::get_if<SeqPtr>(&over);
    if (!seq)
        throw RuntimeError(pos, "`item of` needs a sequence, but " + interp::describe(*e.seq) +
                                    " is " + interp::describe_kind(over));
    return (*seq)->items[index_of(**seq, index, *e.seq, pos)];
}

// `items a through b of xs`: a read-only copy of items a..b (an empty slice
// when b = a - 1; any other b < a, or a bound outside xs, is an error).
Value Machine::eval_slice(const ast::Slice& e, SourcePos pos) {
    Value over = eval(e.seq, pos);
    const auto* seq = std::get_if<SeqPtr>(&over);
    if (!seq)
        throw RuntimeError(pos, "`items ... of` needs a sequence, but " + interp::describe(*e.seq) +
                                    " is " + interp::describe_kind(over));
    int64_t from = interp::as_int(eval(e.from, pos), pos, "a slice's first index");
    int64_t to = interp::as_int(eval(e.to, pos), pos, "a slice's last index");
    int64_t n = static_cast<int64_t>((*seq)->items.size());
    if (from < 1 || to > n || to < from - 1)
        throw RuntimeError(pos, "items " + std::to_string(from) + " through " + std::to_string(to) +
                                    " of a sequence of " + std::to_string(n) + " items");
    auto out = std::make_shared<SeqVal>(SeqVal{(*seq)->elem, (*seq)->rank, {}});
    out->items.assign((*seq)->items.begin() + (from - 1), (*seq)->items.begin() + to);
    return out;
}

Value Machine::eval_call(const ast::Call& e, SourcePos pos) {
    std::vector<Value> args;
    args.reserve(e.args.size());
    for (const ast::ExprPtr& a : e.args)
        args.push_back(eval(a, pos));
    if (auto f = functions_.find(e.callee); f != functions_.end())
        return call_helper(*f->second, std::move(args), pos);
    if (interp::is_builtin(e.callee)) return interp::apply_builtin(e.callee, args, pos);
    throw RuntimeError(pos, "unknown function `" + e.callee + "`");
}

Value Machine::call_helper(const ast::Function& f, std::vector<Value> args, SourcePos pos) {
    if (call_depth_ >= limits_.max_call_depth)
        throw RuntimeError(pos, "call depth limit (" + std::to_string(limits_.max_call_depth) +
                                    ") exceeded calling `" + f.name + "`: endless recursion?");
    if (args.size() != f.params.size())
        throw RuntimeError(pos, "`" + f.name + "` takes " + std::to_string(f.params.size()) +
                                    " argument(s), got " + std::to_string(args.size()));
    Frame frame;
    frame.fn = &f;
    frame.scopes.emplace_back();
    for (size_t k = 0; k < args.size(); ++k) {
        const ast::Param& p = f.params[k];
        Value v = interp::store_as(args[k], p.type.elem, p.type.rank, pos,
                                   "argument `" + p.name + "` of " + f.name);
        frame.scopes.back().insert_or_assign(p.name, Var{std::move(v), p.type, false});
    }
    Frame* caller = frame_;
    frame_ = &frame;
    ++call_depth_;
    exec_body(f.body);
    --call_depth_;
    frame_ = caller;
    if (!f.returns) return Nothing{};
    if (!frame.returned || std::holds_alternative<Nothing>(*frame.returned))
        throw RuntimeError(pos, "`" + f.name + "` ended without returning a value");
    return interp::store_as(*frame.returned, f.returns->elem, f.returns->rank, pos,
                            "the result of " + f.name);
}

} // namespace

nlohmann::json interpret(const ast::Program& program, const ast::Function& op,
                         const nlohmann::json& inputs, const InterpreterLimits& limits) {
    Machine machine(program, limits);
    try {
        return machine.run(op, inputs);
    } catch (const RuntimeError& e) {
        throw RuntimeError(e.pos, interp::clip_words(e.what()));
    } catch (const std::exception& e) { // out of memory and the like: still an op error
        throw RuntimeError(op.pos, std::string("the interpreter gave up: ") + e.what());
    }
}

} // namespace solbench
