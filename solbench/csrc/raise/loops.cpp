// Loops: a loop that contains loops runs over rows, an innermost loop runs
// over the columns of a row. Each runs once, symbolically; a column loop's
// carried variables are then matched against the reduction forms.
#include "raise/raiser.h"

#include "ir/walk.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace solbench::raise {

namespace {

// Structural equality: `item i of row` read twice makes two equal nodes.
bool same_node(const ir::Expr& a, const ir::Expr& b) {
    if (a.get() == b.get()) return true;
    if (a->op != b->op || a->args.size() != b->args.size() || a->index != b->index ||
        a->dtype != b->dtype || a->fixed_column != b->fixed_column ||
        a->col_offset != b->col_offset || a->col_wrap != b->col_wrap || a->col_div != b->col_div ||
        a->reduce_kind != b->reduce_kind || !(a->extent == b->extent))
        return false;
    // Placeholders are NaN constants: only the same node is the same placeholder.
    if (a->op == ir::Op::Const) return a->value == b->value;
    for (size_t i = 0; i < a->args.size(); ++i)
        if (!same_node(a->args[i], b->args[i])) return false;
    return true;
}

bool contains(const ir::Expr& e, const ir::Node* target) {
    if (e.get() == target) return true;
    for (const auto& a : e->args)
        if (contains(a, target)) return true;
    return false;
}

// The element `t` of a max/min, evaluated at a fixed column instead of the
// running one, equals `init`: then max(init, max_c t) == max_c t.
bool matches_at_column(const ir::Expr& t, const ir::Expr& init, int64_t col) {
    if (t->op == ir::Op::Load && !t->fixed_column && !t->col_offset && !t->col_wrap && !t->col_div)
        return init->op == ir::Op::Load && init->index == t->index && !init->col_offset &&
               init->fixed_column == col;
    if (t->op != init->op || t->args.size() != init->args.size() || t->index != init->index ||
        t->dtype != init->dtype || t->fixed_column != init->fixed_column ||
        t->col_offset != init->col_offset || t->col_wrap != init->col_wrap ||
        t->col_div != init->col_div)
        return false;
    if (t->op == ir::Op::Const && !(t->value == init->value)) return false;
    if (t->op == ir::Op::Reduce) return same_node(t, init);
    for (size_t i = 0; i < t->args.size(); ++i)
        if (!matches_at_column(t->args[i], init->args[i], col)) return false;
    return true;
}

struct Match {
    ir::ReduceKind kind = ir::ReduceKind::Sum;
    ir::Expr element;
    bool negated = false; // s = s - t
};

// The increment d of an update `e` = ph + d of a carried sum, read by algebra
// rather than from the top node: ph occurs once, with coefficient +1, under
// any sums, differences and selects (`s + a + b`, `a + s - b`, `If c: Set s
// to s + v.` as select(c, ph + v, ph)). None when e is not such an update.
// A null Expr stands for a zero increment (e is ph itself).
std::optional<ir::Expr> increment(const ir::Expr& e, const ir::Expr& ph) {
    using ir::Op;
    if (same_node(e, ph)) return ir::Expr{};
    auto zero_or = [](const ir::Expr& d) { return d ? d : ir::constant(0.0); };
    const auto& a = e->args;
    if (e->op == Op::Add || e->op == Op::Sub) {
        bool in0 = contains(a[0], ph.get()), in1 = contains(a[1], ph.get());
        if (in0 == in1) return std::nullopt;              // none (not an update) or twice
        if (in1 && e->op == Op::Sub) return std::nullopt; // coefficient -1
        auto d = increment(in0 ? a[0] : a[1], ph);
        if (!d) return std::nullopt;
        const ir::Expr& rest = in0 ? a[1] : a[0];
        if (!*d) return e->op == Op::Add ? rest : ir::unary(Op::Neg, rest);
        return ir::binary(e->op, *d, rest);
    }
    if (e->op == Op::Select && !contains(a[0], ph.get())) {
        auto t = increment(a[1], ph), f = increment(a[2], ph);
        if (!t || !f) return std::nullopt;
        if (!*t && !*f) return ir::Expr{};
        return ir::select(a[0], zero_or(*t), zero_or(*f));
    }
    return std::nullopt;
}

// select(t > m, t, m) is max, select(t < m, t, m) min (and the mirrored forms);
// none for any other select (a guarded sum, say, which increment() reads).
std::optional<Match> select_max_min(const ir::Expr& v1, const ir::Expr& ph) {
    using ir::Op;
    const auto& a = v1->args;
    const ir::Expr& c = a[0];
    bool gt = c->op == Op::Gt || c->op == Op::Ge, lt = c->op == Op::Lt || c->op == Op::Le;
    if (!gt && !lt) return std::nullopt;
    const ir::Expr &l = c->args[0], &r = c->args[1];
    auto pick = [&](const ir::Expr& t, bool t_wins_when_greater) -> std::optional<Match> {
        if (same_node(a[1], t) && same_node(a[2], ph))
            return Match{t_wins_when_greater ? ir::ReduceKind::Max : ir::ReduceKind::Min, t, false};
        if (same_node(a[1], ph) && same_node(a[2], t))
            return Match{t_wins_when_greater ? ir::ReduceKind::Min : ir::ReduceKind::Max, t, false};
        return std::nullopt;
    };
    if (same_node(r, ph) && !same_node(l, ph))
        if (auto m = pick(l, gt)) return m; // t > m
    if (same_node(l, ph) && !same_node(r, ph))
        if (auto m = pick(r, lt)) return m; // m < t
    return std::nullopt;
}

// Recognizes the update `v1` of a carried variable whose old value is `ph`.
std::optional<Match> match_update(const ir::Expr& v1, const ir::Expr& ph) {
    using ir::Op;
    const auto& a = v1->args;
    auto other = [&](size_t i) -> ir::Expr { return a[1 - i]; };
    if (v1->op == Op::Add)
        for (size_t i = 0; i < 2; ++i)
            if (same_node(a[i], ph)) return Match{ir::ReduceKind::Sum, other(i), false};
    if (v1->op == Op::Sub && same_node(a[0], ph)) {
        if (a[1]->op == Op::Neg)
            return Match{ir::ReduceKind::Sum, a[1]->args[0], false}; // s - (-t)
        return Match{ir::ReduceKind::Sum, a[1], true};
    }
    if (v1->op == Op::Max || v1->op == Op::Min) {
        auto kind = v1->op == Op::Max ? ir::ReduceKind::Max : ir::ReduceKind::Min;
        for (size_t i = 0; i < 2; ++i)
            if (same_node(a[i], ph)) return Match{kind, other(i), false};
    }
    if (v1->op == Op::Select)
        if (auto m = select_max_min(v1, ph)) return m;
    // Any other sum: the increment, found by algebra.
    if (auto d = increment(v1, ph); d && *d) return Match{ir::ReduceKind::Sum, *d, false};
    return std::nullopt;
}

bool mentions(const ast::Block& block, const std::string& name);

// Whether an expression or statement names `name` anywhere (a read or a write).
bool mentions(const ast::Expr* e, const std::string& name) {
    if (!e) return false;
    return std::visit(
        [&](const auto& n) -> bool {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::NameRef>)
                return n.name == name;
            else if constexpr (std::is_same_v<T, ast::ItemOf>)
                return mentions(n.index.get(), name) || mentions(n.seq.get(), name);
            else if constexpr (std::is_same_v<T, ast::LengthOf>)
                return mentions(n.seq.get(), name);
            else if constexpr (std::is_same_v<T, ast::Slice>)
                return mentions(n.from.get(), name) || mentions(n.to.get(), name) ||
                       mentions(n.seq.get(), name);
            else if constexpr (std::is_same_v<T, ast::NewSeq>)
                return mentions(n.capacity.get(), name);
            else if constexpr (std::is_same_v<T, ast::Call>)
                return std::any_of(n.args.begin(), n.args.end(),
                                   [&](const ast::ExprPtr& a) { return mentions(a.get(), name); });
            else if constexpr (std::is_same_v<T, ast::Cast> || std::is_same_v<T, ast::CopyOf> ||
                               std::is_same_v<T, ast::Unary>)
                return mentions(n.operand.get(), name);
            else if constexpr (std::is_same_v<T, ast::Binary>)
                return mentions(n.lhs.get(), name) || mentions(n.rhs.get(), name);
            else
                return false;
        },
        e->node);
}

bool mentions(const ast::Stmt& s, const std::string& name) {
    return std::visit(
        [&](const auto& n) -> bool {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::Let>)
                return n.name == name || mentions(n.value.get(), name);
            else if constexpr (std::is_same_v<T, ast::SetVar>)
                return n.name == name || mentions(n.value.get(), name);
            else if constexpr (std::is_same_v<T, ast::SetItem>)
                return mentions(n.seq.get(), name) || mentions(n.index.get(), name) ||
                       mentions(n.value.get(), name);
            else if constexpr (std::is_same_v<T, ast::Push>)
                return mentions(n.value.get(), name) || mentions(n.seq.get(), name);
            else if constexpr (std::is_same_v<T, ast::ForEach>)
                return n.var == name || mentions(n.seq.get(), name) || mentions(n.body, name);
            else if constexpr (std::is_same_v<T, ast::ForRange>)
                return n.var == name || mentions(n.from.get(), name) ||
                       mentions(n.to.get(), name) || mentions(n.body, name);
            else if constexpr (std::is_same_v<T, ast::While>)
                return mentions(n.cond.get(), name) || mentions(n.body, name);
            else if constexpr (std::is_same_v<T, ast::If>) {
                for (const auto& b : n.branches)
                    if (mentions(b.cond.get(), name) || mentions(b.body, name)) return true;
                return n.otherwise && mentions(*n.otherwise, name);
            } else if constexpr (std::is_same_v<T, ast::Return>)
                return mentions(n.value.get(), name);
            else
                return mentions(n.cond.get(), name);
        },
        s.node);
}

bool mentions(const ast::Block& block, const std::string& name) {
    return std::any_of(block.begin(), block.end(),
                       [&](const ast::Stmt& s) { return mentions(s, name); });
}

} // namespace

// A variable the row loop's body sets, at its top level, to a value that does
// not read it, before any other statement names it: reset at the start of
// every row, it is the row's own (logos-ops.md §7, r2).
bool reset_per_row(const ast::Block& body, size_t end, const std::string& name) {
    for (size_t i = 0; i < end; ++i) {
        const auto* set = std::get_if<ast::SetVar>(&body[i].node);
        if (set && set->name == name) return !mentions(set->value.get(), name);
        if (mentions(body[i], name)) return false;
    }
    return false;
}

Raiser::Snapshot Raiser::snapshot() const {
    return Snapshot{axes_,          tensors_,  locals_,       loop_stack_,    all_loops_,
                    column_ranges_, scopes_,   helper_stack_, inlined_calls_, placeholders_,
                    returned_,      deferred_, size_params_};
}

void Raiser::restore(Snapshot&& s) {
    axes_ = std::move(s.axes);
    tensors_ = std::move(s.tensors);
    locals_ = std::move(s.locals);
    loop_stack_ = std::move(s.loop_stack);
    all_loops_ = std::move(s.all_loops);
    column_ranges_ = std::move(s.column_ranges);
    scopes_ = std::move(s.scopes);
    helper_stack_ = std::move(s.helper_stack);
    inlined_calls_ = s.inlined_calls;
    placeholders_ = std::move(s.placeholders);
    returned_ = std::move(s.returned);
    deferred_ = std::move(s.deferred);
    size_params_ = std::move(s.size_params);
}

// Whether some input has `axis` as a dimension other than its last (a row dimension).
bool Raiser::is_row_dimension(int axis) {
    const int root = resolve_axis(axis).first;
    for (const TensorParam& t : tensors_) {
        if (t.param->is_output || t.flat) continue;
        for (size_t j = 0; j + 1 < t.dims.size(); ++j)
            if (resolve_axis(t.dims[j]).first == root) return true;
    }
    return false;
}

// Whether every open loop runs over rows (a column reduction may start inside them).
bool Raiser::only_row_loops_open() const {
    return std::all_of(loop_stack_.begin(), loop_stack_.end(), [&](int id) {
        return all_loops_[static_cast<size_t>(id)].kind == LoopKind::Row;
    });
}

LoopKind Raiser::classify(const ast::Block& body) const {
    for (int id : loop_stack_)
        if (all_loops_[static_cast<size_t>(id)].kind != LoopKind::Row) return LoopKind::Inner;
    return contains_loop(body) ? LoopKind::Row : LoopKind::Column;
}

void Raiser::run_loop(const LoopSpec& spec) {
    if (!column_sum_ && only_row_loops_open() && try_column_sum(spec)) return;
    LoopInfo loop;
    loop.kind = classify(*spec.body);
    if (spec.over_local && loop.kind == LoopKind::Row) loop.kind = LoopKind::Column;
    if (spec.over) {
        const TensorParam& t = tensors_[static_cast<size_t>(spec.over->tensor)];
        size_t remaining = t.dims.size() - spec.over->prefix.size();
        if (t.flat && spec.over->prefix.empty()) remaining = 1;
        if (loop.kind != LoopKind::Inner)
            loop.kind = remaining > 1 ? LoopKind::Row : LoopKind::Column;
    }
    // In a column reduction the innermost loop of the nest runs over rows: the
    // loop over the columns runs inside it.
    const bool sum_rows = column_sum_ && !column_sum_->in_column && loop.kind == LoopKind::Column;
    if (sum_rows) loop.kind = LoopKind::Row;
    loop.id = static_cast<int>(all_loops_.size());
    // Variables set inside a column loop but declared outside are carried from
    // one column to the next: each reads a placeholder for its old value.
    std::map<std::string, SourcePos> set_at;
    for (size_t i = 0; i < spec.body_end; ++i)
        assigned_names_of((*spec.body)[i], set_at);
    // A loop inside a merged row is one of its parts; a loop over rows may head one.
    std::optional<int> head;
    if (const LoopInfo* open = column_context(); open && !open->parts.empty()) head = open->id;
    if (head) {
        loop.kind = LoopKind::Column;
        loop.head = head;
    }
    std::vector<std::string> row_totals; // sums over these rows of a merged row's per-row sums
    const bool row_sum = !head && loop.kind == LoopKind::Row && !sum_rows &&
                         starts_row_sum(spec, loop, set_at, row_totals);
    if (!head && loop.kind == LoopKind::Row && !sum_rows && !row_sum) {
        loop.levels = merged_levels(spec, set_at);
        if (loop.levels > 0) {
            loop.kind = LoopKind::Column;
            loop.parts = {loop.id};
        }
    }
    loop.pos = spec.pos;
    loop.extent = canon(spec.hi - spec.lo + Poly::constant(1));
    if (auto k = loop.extent.constant_value()) {
        if (*k <= 0 || *k > (int64_t{1} << 40))
            refuse(spec.pos, Rule::SizeArithmetic,
                   "this loop runs " + std::to_string(*k) +
                       " times; a constant trip count must be positive");
        int ax = new_axis();
        axes_[static_cast<size_t>(ax)].value = *k;
        loop.extent = Poly::atom({Atom::Axis, ax});
    }
    if (loop.kind == LoopKind::Row) {
        auto a = loop.extent.single_atom();
        if (!a || a->kind != Atom::Axis) {
            // Reported at the end unless a read of another row explains it better.
            if (!deferred_)
                deferred_ = refusal(spec.pos, Rule::LoopForm,
                                    "a loop over rows must cover a whole axis (`from 1 to length "
                                    "of x` or `from 0 to n - 1`)");
            int ax = new_axis();
            loop.extent = Poly::atom({Atom::Axis, ax});
            a = Atom{Atom::Axis, ax};
        }
        loop.axis = a->id;
    }
    all_loops_.push_back(loop);
    if (head) all_loops_[static_cast<size_t>(*head)].parts.push_back(loop.id);

    std::map<std::string, Value> before, int_before;
    if (loop.kind != LoopKind::Row && !head) {
        for (const auto& [name, pos] : set_at) {
            Binding* b = lookup(name);
            if (!b || name == spec.counter) continue;
            if (auto* n = std::get_if<NumVal>(&b->value)) {
                before[name] = b->value;
                ir::Expr ph = ir::constant(std::numeric_limits<double>::quiet_NaN());
                placeholders_[name] = ph;
                b->value = NumVal{ph, n->taint};
            } else if (std::holds_alternative<IntVal>(b->value)) {
                int_before[name] = b->value;
            }
        }
    }

    Poly counter = canon(spec.lo + Poly::atom({Atom::Loop, loop.id}));
    loop_stack_.push_back(loop.id);
    scopes_.emplace_back();
    if (spec.over) {
        declare(spec.var, read_item(spec.pos, Value{*spec.over}, IntVal{counter}), false);
    } else if (spec.over_local) {
        declare(spec.var, read_item(spec.pos, Value{*spec.over_local}, IntVal{counter}), false);
    } else if (!spec.var.empty()) {
        declare(spec.var, IntVal{counter}, false);
    } else if (Binding* c = lookup(spec.counter)) {
        c->value = IntVal{counter};
    }
    // Accumulators declared before the row loop and reset in it are the row's
    // own: a copy in the row's scope. After the loop the outer one holds the
    // last row's value, which no row-parallel op can use.
    std::vector<std::string> row_own;
    if (loop.kind == LoopKind::Row)
        for (const auto& [name, pos] : set_at)
            if (Binding* b = lookup(name); b && std::holds_alternative<NumVal>(b->value) &&
                                           reset_per_row(*spec.body, spec.body_end, name)) {
                declare(name, b->value, true);
                row_own.push_back(name);
            }
    if (row_sum) row_sum_ = RowSum{row_totals, loop.id};
    if (sum_rows) {
        run_column_sum_body(spec);
    } else {
        for (size_t i = 0; i < spec.body_end; ++i)
            exec((*spec.body)[i]);
    }
    if (row_sum) row_sum_.reset();
    for (const std::string& row_total : row_totals) {
        Binding* b = lookup(row_total);
        auto* n = b ? std::get_if<NumVal>(&b->value) : nullptr;
        if (!n || n->e->op != ir::Op::Reduce || n->e->reduce_kind != ir::ReduceKind::Sum)
            refuse(set_at.at(row_total), Rule::CrossRow,
                   "'" + row_total + "' is carried across the rows of the loop on line " +
                       std::to_string(spec.pos.line) +
                       ": a sum over rows adds, at every row, the row's sum over a merged row "
                       "(r2 §8), from 0");
        if (n->taint) throw Refused{*n->taint};
        row_sums_[n->e.get()] = loop.id;
        b->value = NumVal{n->e, refusal(set_at.at(row_total), Rule::CrossRow,
                                        "'" + row_total +
                                            "' holds a sum over rows; it can only be stored "
                                            "(`Set item c of out to " +
                                            row_total + ".`)")};
    }
    scopes_.pop_back();
    loop_stack_.pop_back();
    for (const std::string& name : row_own)
        if (Binding* b = lookup(name))
            b->value = NumVal{ir::constant(0.0),
                              refusal(set_at.at(name), Rule::CrossRow,
                                      "'" + name +
                                          "' is read after the loop over rows, where it holds "
                                          "the last row's value")};
    if (!spec.counter.empty())
        if (Binding* c = lookup(spec.counter))
            c->value = IntVal{canon(spec.hi + Poly::constant(1))};

    if (head) return; // its head carries the row's values
    if (!loop.parts.empty()) {
        LoopInfo& mine = all_loops_[static_cast<size_t>(loop.id)];
        mine.extent = Poly::atom({Atom::Axis, merged_axis(mine, spec.pos)});
    }
    if (loop.kind != LoopKind::Row)
        finish_carried(all_loops_[static_cast<size_t>(loop.id)], before, set_at);
    // An Int stepped across the columns is a scan; one chosen by the data is
    // left as data (it is refused where it is used as an index).
    for (const auto& [name, old] : int_before) {
        Binding* b = lookup(name);
        if (auto* now = std::get_if<IntVal>(&b->value);
            now && !(canon(now->p) == canon(std::get<IntVal>(old).p)))
            refuse(set_at.at(name), Rule::Scan,
                   "the Int '" + name + "' is carried from one element to the next");
    }
}

void Raiser::finish_carried(const LoopInfo& loop, const std::map<std::string, Value>& before,
                            const std::map<std::string, SourcePos>& set_at) {
    for (const auto& [name, old] : before) {
        Binding* b = lookup(name);
        ir::Expr ph = placeholders_.at(name);
        placeholders_.erase(name);
        SourcePos pos = set_at.at(name);
        auto* now = std::get_if<NumVal>(&b->value);
        const NumVal& init = std::get<NumVal>(old);
        if (!now) refuse(pos, Rule::ValueKind, "'" + name + "' changes kind inside the loop");
        if (column_sum_ && column_sum_->in_column && name == column_sum_->total) {
            // The column reduction's element: summed over the rows, not the columns. The
            // nest raised as one up to here: a refusal now is the column reduction's.
            column_sum_->reached_update = true;
            auto m = match_update(now->e, ph);
            if (!m || m->kind != ir::ReduceKind::Sum || m->negated ||
                contains(m->element, ph.get()))
                refuse(pos, Rule::CrossRow,
                       "'" + name + "' must sum over the rows (`Set " + name + " to " + name +
                           " + e.`): a column reduction is a sum (r2 §8); a max or a running "
                           "value over the rows is not row-parallel");
            if (now->taint) throw Refused{refusal(pos, *now->taint->rule, now->taint->message)};
            if ((loop.shift && loop.shift->constant_term() != 0) || loop.reversed)
                refuse(pos, Rule::ColumnIndex,
                       "a column reduction must read each column at its own place");
            column_sum_->element = m->element;
            column_sum_->col_loop = loop.id;
            b->value = NumVal{
                ir::constant(0.0),
                refusal(pos, Rule::CrossRow, "'" + name + "' is read inside its column reduction")};
            continue;
        }
        if (same_node(now->e, ph)) {
            b->value = old;
            continue;
        }
        if (!contains(now->e, ph.get())) {
            // Overwritten at every column without reading its old value: an
            // element temporary declared before the loop (r2 §7). After the
            // loop it holds the last column's value, which is not row-parallel.
            b->value = NumVal{ir::constant(0.0),
                              refusal(pos, Rule::Scan,
                                      "'" + name +
                                          "' is read after its loop over the columns, where it "
                                          "holds the last column's value")};
            continue;
        }
        auto m = match_update(now->e, ph);
        if (!m || contains(m->element, ph.get()))
            refuse(pos, Rule::Scan,
                   "'" + name +
                       "' is carried from one element to the next (each step reads the one "
                       "before): a scan, not a reduction");
        for (const auto& [other, oph] : placeholders_)
            if (contains(m->element, oph.get()))
                refuse(pos, Rule::Scan,
                       "'" + name + "' reads '" + other +
                           "' while it is still being accumulated (a scan)");
        if (loop.kind == LoopKind::Inner)
            refuse(loop.pos, Rule::LoopForm,
                   "a loop nested inside a loop over the columns of a row");
        if (now->taint) throw Refused{refusal(pos, *now->taint->rule, now->taint->message)};
        int64_t shift = loop.shift ? loop.shift->constant_term() : 0;
        auto full_dim = [&](const Poly& p) {
            Poly c = canon(p);
            if (c.terms().size() == 1) {
                const auto& [mono, coef] = *c.terms().begin();
                if (mono.size() == 1 && mono[0].kind == Atom::Axis && coef > 0)
                    return ir::Dim{mono[0].id, coef};
            }
            refuse(loop.pos, Rule::LoopForm, "a reduction must run over a whole axis of the row");
        };
        ir::Expr result;
        // Seeded with the column the loop leaves out: the first (a loop from the
        // second), or the last (a reversed loop from the second, r2 §7).
        bool seeded = (shift == 1 && matches_at_column(m->element, init.e, 0)) ||
                      (loop.reversed && shift == 0 && matches_at_column(m->element, init.e, -1));
        int64_t seed_columns = seeded ? 1 - shift : 0; // the loop's extent falls short by 1
        if (m->kind == ir::ReduceKind::Sum && seeded && !m->negated) {
            // Seeded with the first element, the loop from the second (r2 §7).
            result = ir::reduce(ir::ReduceKind::Sum, m->element,
                                full_dim(loop.extent + Poly::constant(shift + seed_columns)));
        } else if (m->kind == ir::ReduceKind::Sum) {
            ir::Expr r = ir::reduce(ir::ReduceKind::Sum, m->element, full_dim(loop.extent));
            if (shift != 0) refuse(loop.pos, Rule::LoopForm, "a sum over part of the row");
            bool zero = init.e->op == ir::Op::Const && init.e->value == 0;
            result = zero ? (m->negated ? ir::unary(ir::Op::Neg, r) : r)
                          : ir::binary(m->negated ? ir::Op::Sub : ir::Op::Add, init.e, r);
        } else {
            double identity = m->kind == ir::ReduceKind::Max ? -INFINITY : INFINITY;
            bool absorbs = (init.e->op == ir::Op::Const && init.e->value == identity) ||
                           matches_at_column(m->element, init.e, 0) || seeded;
            if (absorbs && (shift == 0 || shift == 1)) {
                result = ir::reduce(m->kind, m->element,
                                    full_dim(loop.extent + Poly::constant(shift + seed_columns)));
            } else if (shift == 0) {
                result = ir::binary(m->kind == ir::ReduceKind::Max ? ir::Op::Max : ir::Op::Min,
                                    init.e, ir::reduce(m->kind, m->element, full_dim(loop.extent)));
            } else {
                refuse(loop.pos, Rule::LoopForm,
                       "a max or min over part of the row (start at the first element, or "
                       "initialize with it)");
            }
        }
        b->value = NumVal{result, init.taint};
    }
}

void Raiser::run_column_sum_body(const LoopSpec& innermost_rows) {
    ColumnSum& sum = *column_sum_;
    declare(sum.total, NumVal{ir::constant(0.0), std::nullopt}, true);
    sum.row_loops = current_row_loops();
    LoopSpec column = sum.column;
    column.body = innermost_rows.body;
    column.body_end = innermost_rows.body_end;
    sum.in_column = true;
    run_loop(column);
    sum.in_column = false;
}

namespace {

// A store that ends a column sum's nest, with the statements of its branch before it.
struct ColumnStore {
    std::vector<const ast::Stmt*> before;
    const ast::SetItem* store = nullptr;
};

// The stores that end a column sum's nest: one `Set item c of out to v.`, or an If with
// an Otherwise whose every branch ends in such a store (after Lets of its own). None:
// the statement is something else. Each must store the accumulator (stores_the_total),
// so the same is stored whichever branch runs.
std::vector<ColumnStore> column_stores(const ast::Stmt& s) {
    if (const auto* store = std::get_if<ast::SetItem>(&s.node)) return {{{}, store}};
    const auto* cond = std::get_if<ast::If>(&s.node);
    if (!cond || !cond->otherwise) return {};
    std::vector<ColumnStore> stores;
    auto add = [&](const ast::Block& b) {
        if (b.empty()) return false;
        std::vector<ColumnStore> more = column_stores(b.back());
        for (ColumnStore& m : more) {
            std::vector<const ast::Stmt*> before;
            for (size_t i = 0; i + 1 < b.size(); ++i)
                before.push_back(&b[i]);
            m.before.insert(m.before.begin(), before.begin(), before.end());
            stores.push_back(std::move(m));
        }
        return !more.empty();
    };
    for (const ast::IfBranch& br : cond->branches)
        if (!add(br.body)) return {};
    if (!add(*cond->otherwise)) return {};
    return stores;
}

// Lets, Sets and Ifs of them: the statements that may compute a column sum's stored
// value after its nest (no loop, store or push, whose effects would outlive a column).
bool plain_statement(const ast::Stmt& s) {
    if (std::holds_alternative<ast::Let>(s.node) || std::holds_alternative<ast::SetVar>(s.node))
        return true;
    const auto* cond = std::get_if<ast::If>(&s.node);
    if (!cond) return false;
    auto plain = [](const ast::Block& b) {
        return std::all_of(b.begin(), b.end(), plain_statement);
    };
    return std::all_of(cond->branches.begin(), cond->branches.end(),
                       [&](const ast::IfBranch& br) { return plain(br.body); }) &&
           (!cond->otherwise || plain(*cond->otherwise));
}

} // namespace

// The value a column sum's nest ends by storing is the accumulator itself, however it is
// spelled (`total`, `total * 1.0`, `-(-total)`, through temporaries, selects and Ifs):
// with the accumulator bound to a leaf of its own, the statements after the nest (`tail`),
// then those of the store's branch, raise and the IR's folding gives back that very
// node. Nothing they set outlives the check (a scope of their own; the caller restores
// the raiser's state when the column sum does not apply).
bool Raiser::stores_the_total(const std::vector<const ast::Stmt*>& tail,
                              const std::vector<const ast::Stmt*>& before, const ast::Expr& value,
                              const std::string& total) {
    std::map<std::string, SourcePos> assigned;
    for (const auto* list : {&tail, &before})
        for (const ast::Stmt* st : *list) {
            if (!plain_statement(*st)) return false;
            assigned_names_of(*st, assigned);
        }
    const ir::Expr leaf = ir::scalar(-1); // no input has index -1: a node of its own
    const size_t depth = scopes_.size();
    scopes_.emplace_back();
    declare(total, NumVal{leaf, std::nullopt}, false);
    bool same = false;
    try {
        for (const auto* list : {&tail, &before})
            for (const ast::Stmt* st : *list)
                exec(*st);
        const Value v = eval(value);
        const auto* n = std::get_if<NumVal>(&v);
        same = n && !n->taint && n->e.get() == leaf.get();
        // What they set must be their own: a variable from before the loops, set once
        // here, would be set once per column.
        for (const auto& [name, pos] : assigned)
            if (!scopes_.back().count(name)) same = false;
    } catch (const Refused&) {
    }
    scopes_.resize(depth);
    return same;
}

bool Raiser::try_column_sum(const LoopSpec& spec) {
    if (spec.over || spec.over_local || spec.body_end < 3) return false;
    // The column counter: the loop's own, or a While's (`While c is at most n:`).
    const std::string& counter = spec.var.empty() ? spec.counter : spec.var;
    if (counter.empty()) return false;
    const ast::Block& body = *spec.body;
    const size_t last = spec.body_end - 1; // the store
    // Between the accumulator and the store: the loops over the rows, after the Int
    // counters a While nest declares first (`Let mutable s be 1.`).
    auto is_loop = [](const ast::Stmt& st) {
        return std::holds_alternative<ast::ForRange>(st.node) ||
               std::holds_alternative<ast::ForEach>(st.node) ||
               std::holds_alternative<ast::While>(st.node);
    };
    auto is_counter = [](const ast::Stmt& st) {
        const auto* l = std::get_if<ast::Let>(&st.node);
        return l && l->is_mutable && std::holds_alternative<ast::NumberLit>(l->value->node);
    };
    // The nest: the first loop, after Int counters; the statements after it (`tail`)
    // compute the value stored.
    size_t nest_at = 1;
    while (nest_at < last && !is_loop(body[nest_at])) {
        if (!is_counter(body[nest_at])) return false;
        ++nest_at;
    }
    if (nest_at >= last) return false;
    std::vector<const ast::Stmt*> tail;
    for (size_t i = nest_at + 1; i < last; ++i)
        tail.push_back(&body[i]);
    // The accumulator: declared here (`Let mutable total be 0.`), or declared before the
    // loops and reset here (`Set total to 0.`), the column's own either way.
    const auto* let = std::get_if<ast::Let>(&body[0].node);
    const auto* reset = std::get_if<ast::SetVar>(&body[0].node);
    const ast::Stmt& nest_stmt = body[nest_at];
    const std::vector<ColumnStore> stores = column_stores(body[last]);
    if ((!let || !let->is_mutable) && !reset) return false;
    if (stores.empty()) return false;
    const ast::SetItem* store = stores.front().store;
    const std::string& total = let ? let->name : reset->name;
    Binding* outer = reset ? lookup(total) : nullptr;
    if (reset && (!outer || !outer->is_mutable || !std::holds_alternative<NumVal>(outer->value)))
        return false;
    auto names = [](const ast::Expr& e, const std::string& name) {
        const auto* ref = std::get_if<ast::NameRef>(&e.node);
        return ref && ref->name == name;
    };
    for (const ColumnStore& st : stores)
        if (!names(*st.store->index, counter)) return false;
    // The accumulator starts at a literal 0 (evaluating anything else here could read the
    // column counter before its loop runs).
    const auto* zero = std::get_if<ast::NumberLit>(&(let ? let->value : reset->value)->node);
    if (!zero || zero->value != 0) return false;
    Value target = eval(*store->seq);
    const auto* view = std::get_if<ViewVal>(&target);
    // The row loops around the nest are the output's kept rows (r2 §8: a column output
    // indexed by some row axes, `grad_embeddings[s, c]` summed over the heads): it is
    // indexed by their counters, in order, and the loops inside sum over the others.
    const size_t kept = loop_stack_.size();
    if (!view || view->prefix.size() != kept) return false;
    for (const ColumnStore& st : stores) { // each branch stores at the same place
        Value other = eval(*st.store->seq);
        const auto* v = std::get_if<ViewVal>(&other);
        if (!v || v->tensor != view->tensor || v->prefix.size() != kept) return false;
        for (size_t i = 0; i < kept; ++i)
            if (!(canon(v->prefix[i]) == canon(view->prefix[i]))) return false;
    }
    for (size_t i = 0; i < kept; ++i)
        if (!(canon(view->prefix[i]) == Poly::atom({Atom::Loop, loop_stack_[i]}))) return false;
    TensorParam& out = tensors_[static_cast<size_t>(view->tensor)];
    if (!out.param->is_output || out.dims.size() != kept + 1 || out.flat) return false;

    // The same three statements also make a row sum of a flat tensor (`Set item r of
    // sums to acc` after summing `item ((r - 1) * width + c) of x`): a nest that does not
    // raise as a column reduction is raised again the usual way, from the state before.
    Snapshot saved = snapshot();
    auto restore = [&] {
        this->restore(std::move(saved));
        column_sum_.reset();
        return false;
    };
    for (const ColumnStore& st : stores)
        if (!stores_the_total(tail, st.before, *st.store->value, total)) return restore();
    column_sum_ = ColumnSum{spec, total, false, false, std::nullopt, {}, -1, kept, {}};
    try {
        scopes_.emplace_back(); // the nest's counters
        for (size_t i = 1; i <= nest_at; ++i)
            exec(body[i]);
        scopes_.pop_back();
        if (!column_sum_->element)
            refuse(nest_stmt.pos, Rule::CrossRow,
                   "the loops over the rows never add to '" + total +
                       "': a column reduction sums an element of every row");
    } catch (const Refused&) {
        if (column_sum_->reached_update) throw;
        return restore();
    }
    // The loops it sums over run along row dimensions of the inputs; a loop over an axis
    // of its own (`for k from 1 to 3` inside the column loop) is a reduction in the row.
    for (size_t i = kept; i < column_sum_->row_loops.size(); ++i)
        if (!is_row_dimension(*all_loops_[static_cast<size_t>(column_sum_->row_loops[i])].axis))
            return restore();
    // A summed loop read in reverse adds the same rows; its counter as a value would not
    // follow the reads (the element's row index is the forward one).
    const bool any_reversed =
        std::any_of(column_sum_->reversed.begin(), column_sum_->reversed.end(),
                    [](const auto& entry) { return entry.second; });
    if (any_reversed &&
        ir::any_node(*column_sum_->element, [](const ir::Node& n) { return n.op == ir::Op::Row; }))
        refuse(nest_stmt.pos, Rule::LoopForm,
               "a column sum that reads its rows in reverse and uses a row counter as a value");
    if (out.stored)
        refuse(body[last].pos, Rule::StorePattern,
               "a second store to '" + out.param->name + "'; write each output once");
    Content c;
    c.row_loops = column_sum_->row_loops;
    c.col_loop = column_sum_->col_loop;
    c.value = *column_sum_->element;
    c.pos = body[last].pos;
    c.column_sum = true;
    c.kept_rows = kept;
    for (size_t i = 0; i < kept; ++i)
        unify_dim(out.dims[i],
                  Poly::atom({Atom::Axis, *all_loops_[static_cast<size_t>(loop_stack_[i])].axis}),
                  body[last].pos);
    unify_dim(out.dims[kept], all_loops_[static_cast<size_t>(column_sum_->col_loop)].extent,
              body[last].pos);
    out.stored = c;
    column_sum_.reset();
    // After the loops a reset accumulator holds the last column's sum, which no
    // row-parallel op can use.
    if (reset)
        if (Binding* b = lookup(total))
            b->value = NumVal{ir::constant(0.0),
                              refusal(body[0].pos, Rule::CrossRow,
                                      "'" + total +
                                          "' is read after the loop over columns, where it "
                                          "holds the last column's sum")};
    return true;
}

} // namespace solbench::raise
