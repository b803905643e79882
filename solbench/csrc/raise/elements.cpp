// Element reads and writes: an element of a row-parallel op is addressed by
// the row loops' counters (outermost first) and the column loop's counter.
#include "raise/raiser.h"

#include <algorithm>

namespace solbench::raise {

namespace {

std::string dim_ordinal(size_t j) {
    static const char* names[] = {"first", "second", "third", "fourth", "fifth"};
    return j < 5 ? names[j] : std::to_string(j + 1) + "th";
}

} // namespace

bool Raiser::is_unit_index(const TensorParam& t, size_t j, const Poly& index0) const {
    auto [root, scale] = resolve_axis(t.dims[j]);
    return scale == 1 && axes_[static_cast<size_t>(root)].value == 1 &&
           index0.constant_value() == 0;
}

// Inside a column sum's nest, the loop a leading index reads along: its counter
// (`at`), or, for a summed loop, the counter reversed (`item (n + 1 - s) of x`,
// 0-based `n - 1 - s`: the same rows summed). A summed loop is read one way only.
std::optional<Atom> Raiser::summed_row_read(std::optional<Atom> at, const Poly& idx,
                                            SourcePos pos) {
    ColumnSum& sum = *column_sum_;
    for (size_t i = sum.kept; i < sum.row_loops.size(); ++i) {
        const int id = sum.row_loops[i];
        const Atom loop{Atom::Loop, id};
        const Poly& extent = all_loops_[static_cast<size_t>(id)].extent;
        const bool forward = at && *at == loop;
        const bool reverse =
            !at && canon(idx) == canon(extent - Poly::constant(1) - Poly::atom(loop));
        if (!forward && !reverse) continue;
        auto [it, first] = sum.reversed.emplace(id, reverse);
        if (!first && it->second != reverse) {
            // The nest raised as a column sum up to here: the refusal is its own.
            sum.reached_update = true;
            refuse(pos, Rule::LoopForm,
                   "the rows of the loop on line " +
                       std::to_string(all_loops_[static_cast<size_t>(id)].pos.line) +
                       " are read both forwards and in reverse: a column sum reads each "
                       "summed row one way");
        }
        return loop;
    }
    return at;
}

// The leading indices of an element access: each is the counter of a row
// loop (loops in the order of the tensor's dimensions; a tensor may follow
// only some of them, broadcast over the others), or 0 on a kept axis of 1.
// Anything else reads another row.
void Raiser::check_row_indices(const TensorParam& t, const std::vector<Poly>& index0, size_t n_lead,
                               SourcePos pos, std::optional<Diagnostic>& taint) {
    std::vector<int> rows = current_row_loops();
    const std::string& name = t.param->name;
    size_t next = 0; // the first row loop the next dimension may follow
    // Inside a column sum's nest the kept rows' loops run outside the summed ones,
    // whatever their order in the tensors (per head, summed over the sequence): a
    // read may follow the loops in any order, each loop once; assemble() then
    // sums over the rows of the outputs beside it.
    const bool any_order = column_sum_.has_value() || row_sum_.has_value(); // also a row sum's
    std::set<int> used;
    for (size_t j = 0; j < n_lead; ++j) {
        const Poly& idx = index0[j];
        for (const auto& [mono, coef] : idx.terms())
            for (const Atom& a : mono)
                if (a.kind == Atom::Loop &&
                    all_loops_[static_cast<size_t>(a.id)].kind != LoopKind::Row)
                    refuse(pos, Rule::NonLastAxisReduction,
                           "the " + dim_ordinal(j) + " axis of '" + name +
                               "' is indexed by a loop inside the row (line " +
                               std::to_string(all_loops_[static_cast<size_t>(a.id)].pos.line) +
                               "): a reduction over an axis that is not the last");
        if (is_unit_index(t, j, idx)) continue;
        auto at = idx.single_atom();
        if (column_sum_) at = summed_row_read(at, idx, pos);
        const size_t from = any_order ? 0 : std::min(next, rows.size());
        auto loop = at && at->kind == Atom::Loop && !(any_order && used.count(at->id))
                        ? std::find(rows.begin() + static_cast<long>(from), rows.end(), at->id)
                        : rows.end();
        if (loop != rows.end()) used.insert(at->id);
        if (loop == rows.end()) {
            if (!taint)
                taint = refusal(pos, Rule::CrossRow,
                                "this reads another row of '" + name +
                                    "' (a fixed or shifted row), so rows are not independent");
            continue;
        }
        next = static_cast<size_t>(loop - rows.begin()) + 1;
        unify_dim(t.dims[j], all_loops_[static_cast<size_t>(at->id)].extent, pos);
    }
}

namespace {

// Every term has a positive coefficient (axis sizes are at least 1) and no counter.
bool nonnegative(const Poly& p) {
    for (const auto& [mono, coef] : p.terms()) {
        if (coef < 0) return false;
        for (const Atom& a : mono)
            if (a.kind == Atom::Loop) return false;
    }
    return true;
}

// p as coef * axis (0 for the zero polynomial); nullopt otherwise.
std::optional<std::pair<int, int64_t>> axis_multiple(const Poly& p, std::optional<int> axis) {
    if (p.terms().empty()) return std::pair{axis.value_or(-1), int64_t{0}};
    if (p.terms().size() != 1) return std::nullopt;
    const auto& [mono, coef] = *p.terms().begin();
    if (mono.size() != 1 || mono[0].kind != Atom::Axis || (axis && *axis != mono[0].id))
        return std::nullopt;
    return std::pair{mono[0].id, coef};
}

} // namespace

// A read inside a branch on the column (`If c <= half:` ... `item (c + half) of x`) that
// stays in the row for the branch's columns but not for the whole loop: the column wraps
// around the row, (counter + offset) mod width, so the kernel never reads past it.
std::optional<ColumnRead> Raiser::wrapped_read(LoopInfo& loop, const TensorParam& t,
                                               const Poly& rest) {
    auto range = std::find_if(column_ranges_.rbegin(), column_ranges_.rend(),
                              [&](const ColumnRange& r) { return r.loop == loop.id; });
    if (range == column_ranges_.rend() || loop.reversed) return std::nullopt;
    if (rest.constant_term() != 0 || (loop.shift && loop.shift->constant_term() != 0))
        return std::nullopt;
    const Poly width = last_dim(t), extent = canon(loop.extent);
    const bool in_branch =
        nonnegative(canon(range->lo + rest)) && nonnegative(canon(width - (range->hi + rest)));
    const bool in_loop = nonnegative(rest) && nonnegative(canon(width - (extent + rest)));
    if (!in_branch || in_loop) return std::nullopt;
    // Offset, width and extent as multiples of one axis: offset mod width in [0, width),
    // and the loop within two widths of it (one conditional subtraction wraps it).
    auto w = axis_multiple(width, std::nullopt);
    if (!w || w->second <= 0) return std::nullopt;
    auto off = axis_multiple(rest, w->first), ext = axis_multiple(extent, w->first);
    if (!off || !ext) return std::nullopt;
    const int64_t shift = ((off->second % w->second) + w->second) % w->second;
    if (ext->second + shift > 2 * w->second) return std::nullopt;
    if (!loop.shift) loop.shift = Poly::constant(0);
    ColumnRead read;
    if (shift) read.offset = ir::Dim{w->first, shift};
    read.wrap = ir::Dim{w->first, w->second};
    return read;
}

// The columns of `If c <= half:` (and <, >, >=, on the counter of the column loop) and of
// its other branches, when both sides are integers.
std::optional<std::pair<ColumnRange, ColumnRange>> Raiser::column_split(const ast::Expr& cond) {
    if (const auto* u = std::get_if<ast::Unary>(&cond.node); u && u->op == ast::UnaryOp::Not) {
        auto inner = column_split(*u->operand); // `not (c <= half)`: the branches swap
        if (inner) std::swap(inner->first, inner->second);
        return inner;
    }
    const auto* bin = std::get_if<ast::Binary>(&cond.node);
    LoopInfo* loop = column_context();
    if (!bin || !loop || !loop->parts.empty()) return std::nullopt;
    using B = ast::BinaryOp;
    if (bin->op != B::Lt && bin->op != B::Le && bin->op != B::Gt && bin->op != B::Ge)
        return std::nullopt;
    Value l = eval(*bin->lhs), r = eval(*bin->rhs);
    auto* li = std::get_if<IntVal>(&l);
    auto* ri = std::get_if<IntVal>(&r);
    if (!li || !ri) return std::nullopt;
    const Atom k{Atom::Loop, loop->id};
    Poly lp = canon(li->p), rp = canon(ri->p);
    B op = bin->op;
    if (!lp.mentions(k)) { // t OP k + a: k + a OP' t
        std::swap(lp, rp);
        op = op == B::Lt ? B::Gt : op == B::Le ? B::Ge : op == B::Gt ? B::Lt : B::Le;
    }
    auto [coef, a] = lp.split_by(k);
    if (!(coef == Poly::constant(1)) || rp.mentions_kind(Atom::Loop) || a.mentions_kind(Atom::Loop))
        return std::nullopt;
    // k + a OP t as k < T (then below) or k >= T (then above).
    Poly t = canon(rp - a);
    bool below = op == B::Lt || op == B::Le;
    Poly split = op == B::Lt || op == B::Ge ? t : canon(t + Poly::constant(1));
    ColumnRange low{loop->id, Poly::constant(0), split}, high{loop->id, split, canon(loop->extent)};
    return below ? std::pair{low, high} : std::pair{high, low};
}

// The column read at `index0` inside `loop`: counter + shift + an axis offset.
ColumnRead Raiser::column_offset(LoopInfo& loop, const TensorParam& t, const Poly& index0,
                                 SourcePos pos) {
    Atom k{Atom::Loop, loop.id};
    auto [coef, rest] = index0.split_by(k);
    if (coef == Poly::constant(1))
        if (auto w = wrapped_read(loop, t, canon(rest))) return *w;
    // A reversed read, (s + n - 1) - k for a loop of n steps: the loop visits
    // columns s .. s + n - 1 once each, in the other order (r2 §7). A reduction
    // does not care for the order, so it is the forward loop with shift s (the
    // whole row for s = 0; from the second column, seeded with the first, for 1).
    if (coef == Poly::constant(-1)) {
        auto first = canon(rest + Poly::constant(1) - loop.extent).constant_value();
        if (first) {
            if (loop.shift && !loop.reversed)
                refuse(pos, Rule::ColumnIndex,
                       "reads of one loop in both directions along the row");
            if (loop.shift && loop.shift->constant_term() != *first)
                refuse(pos, Rule::ColumnIndex, "reads of one loop at two different column shifts");
            loop.reversed = true;
            loop.shift = Poly::constant(*first);
            cover_columns(t, canon(loop.extent + Poly::constant(*first)), *first, pos, true);
            return {};
        }
    }
    if (!(coef == Poly::constant(1)))
        refuse(pos, Rule::ColumnIndex,
               "the column index must be the loop counter plus a constant (a strided read, or a "
               "reversed one of part of the row, is not row-parallel in solgen's families)");
    if (loop.reversed)
        refuse(pos, Rule::ColumnIndex, "reads of one loop in both directions along the row");
    int64_t shift = rest.constant_term();
    Poly off = canon(rest - Poly::constant(shift));
    if (!loop.shift)
        loop.shift = Poly::constant(shift);
    else if (loop.shift->constant_term() != shift)
        refuse(pos, Rule::ColumnIndex, "reads of one loop at two different column shifts");
    std::optional<ir::Dim> dim;
    if (!off.terms().empty()) {
        const auto& [mono, c] = *off.terms().begin();
        if (off.terms().size() != 1 || mono.size() != 1 || mono[0].kind != Atom::Axis || c <= 0)
            refuse(pos, Rule::ColumnIndex, "a column offset must be a multiple of an axis");
        dim = ir::Dim{mono[0].id, c};
    }
    Poly covered = canon(Poly::constant(shift) + loop.extent + off);
    if (dim)
        unify_or_keep(t, covered, pos);
    else
        cover_columns(t, covered, shift, pos);
    return {dim, std::nullopt};
}

// The columns a loop reads (up to `covered`, from `shift`) must lie in the
// tensor's last dimension: all of it, or its first half (a slice `items 1
// through half`, whole or from the second column when seeded with the first).
void Raiser::cover_columns(const TensorParam& t, const Poly& covered, int64_t shift, SourcePos pos,
                           bool reversed) {
    Poly mine = last_dim(t);
    bool first_half = (shift == 0 || shift == 1) && mine == canon(covered.scaled(2));
    // A reversed loop from the second element: all but the last column, which
    // seeds it (loops.cpp refuses the loop unless that seed completes the row).
    bool but_last = reversed && shift == 0 && mine == canon(covered + Poly::constant(1));
    if (!first_half && !but_last) unify_or_keep(t, covered, pos);
}

// The dimension the columns of `t` run along: the last, unless kept axes of 1
// follow it.
int Raiser::column_axis(const TensorParam& t) {
    return t.dims[t.column_dim.value_or(t.dims.size() - 1)];
}

Poly Raiser::last_dim(const TensorParam& t) {
    auto [root, scale] = resolve_axis(column_axis(t));
    return Poly::atom({Atom::Axis, root}).scaled(scale);
}

void Raiser::unify_or_keep(const TensorParam& t, const Poly& covered, SourcePos pos) {
    auto [root, scale] = resolve_axis(column_axis(t));
    if (!(Poly::atom({Atom::Axis, root}).scaled(scale) == covered))
        unify_dim(column_axis(t), covered, pos);
}

Value Raiser::element_load(int tensor, const std::vector<Poly>& index0, SourcePos pos) {
    TensorParam& t = tensors_[static_cast<size_t>(tensor)];
    if (t.param->is_output)
        refuse(pos, Rule::Scan,
               "reads output '" + t.param->name +
                   "' while writing it: an element that depends on earlier ones (a scan)");
    LoopInfo* loop = column_context();
    if (loop && !loop->parts.empty())
        if (merged_rank(*loop, index0)) {
            if (loop->parts.size() != loop->levels + 1) // deferred: a use as an index is a gather
                return NumVal{ir::constant(0.0),
                              refusal(pos, Rule::ColumnIndex,
                                      "'" + t.param->name +
                                          "' is read inside the loops over a merged row's outer "
                                          "axes; read elements in the innermost loop (r2 §8)")};
            const MergedIndex m = check_merged_index(*loop, t, index0, pos);
            if (t.column_read && !*t.column_read)
                refuse(pos, Rule::ColumnIndex,
                       "'" + t.param->name + "' is read both along the columns and once per row");
            t.column_read = true;
            t.read_at_column = true;
            t.column_rank = m.parts;
            t.column_dim = index0.size() - 1;
            std::optional<Diagnostic> taint;
            check_row_indices(t, index0, index0.size() - m.parts, pos, taint);
            if (m.split) check_split_row(*m.split, index0, index0.size() - m.parts, pos, taint);
            std::optional<ir::DType> elem = element_dtype(t.param->type.elem);
            return NumVal{ir::load(input_index_.at(t.param), std::nullopt, std::nullopt, m.div),
                          taint, elem && ir::is_integer(*elem)};
        }
    // The column index is the last one but kept axes of 1 after it ([b, half, 1]).
    size_t last = index0.size() - 1;
    while (last > 0 && is_unit_index(t, last, index0[last]))
        --last;
    const Poly& col = index0[last];
    // One value per row: the last index is a row counter or 0 on a kept axis.
    bool at_column = loop && col.mentions({Atom::Loop, loop->id});
    bool per_row = false;
    if (!at_column) {
        std::vector<int> rows = current_row_loops();
        auto at = col.single_atom();
        per_row = is_unit_index(t, last, col) ||
                  (at && at->kind == Atom::Loop &&
                   std::find(rows.begin(), rows.end(), at->id) != rows.end());
    }
    if (t.column_read && *t.column_read == per_row)
        refuse(pos, Rule::ColumnIndex,
               "'" + t.param->name + "' is read both along the columns and once per row");
    t.column_read = !per_row;
    std::optional<Diagnostic> taint;
    size_t n_lead = per_row ? index0.size() : last;
    size_t n_row_dims = 0;
    for (size_t j = 0; j < n_lead; ++j)
        n_row_dims += !is_unit_index(t, j, index0[j]);
    if (n_row_dims > current_row_loops().size())
        taint = refusal(pos, Rule::CrossRow,
                        "'" + t.param->name + "' is read outside the loop over its rows");
    check_row_indices(t, index0, n_lead, pos, taint);
    int input = input_index_.at(t.param);
    std::optional<ir::DType> elem = element_dtype(t.param->type.elem);
    const bool integer = elem && ir::is_integer(*elem);
    if (per_row) return NumVal{ir::load(input), taint, integer};
    if (t.column_dim && *t.column_dim != last)
        refuse(pos, Rule::ColumnIndex, "'" + t.param->name + "' is read along two different axes");
    t.column_dim = last;
    if (at_column) {
        t.read_at_column = true;
        ColumnRead read = column_offset(*loop, t, canon(col), pos);
        return NumVal{ir::load(input, read.offset, read.wrap), taint, integer};
    }
    if (col.mentions_kind(Atom::Loop))
        refuse(pos, Rule::ColumnIndex, "a column read with a counter of an outer loop");
    auto k = col.constant_value();
    if (!k && canon(col + Poly::constant(1)) == last_dim(t))
        k = -1; // the last column (`item (length of row) of row`): a reversed loop's seed
    if (!k) refuse(pos, Rule::ColumnIndex, "a column read at a symbolic position");
    return NumVal{ir::load_fixed(input, *k), taint, integer};
}

// `Set item i of out to v`: an output element at the current row and column.
void Raiser::exec_set_item(const ast::Stmt& s, const ast::SetItem& set) {
    Value target = eval(*set.seq);
    auto* view = std::get_if<ViewVal>(&target);
    if (!view) refuse(s.pos, Rule::StorePattern, "Set item on a local sequence; Push instead");
    TensorParam& t = tensors_[static_cast<size_t>(view->tensor)];
    if (!t.param->is_output)
        refuse(s.pos, Rule::StorePattern,
               "writes input '" + t.param->name + "'; write an `into` output");
    Poly idx0 = canon(to_int(eval(*set.index), set.index->pos).p - Poly::constant(1));
    std::vector<Poly> full = view->prefix;
    if (t.flat && view->prefix.empty())
        full = decompose_flat(t, idx0, s.pos);
    else
        full.push_back(idx0);
    if (full.size() != t.dims.size())
        refuse(s.pos, Rule::StorePattern,
               "a store must address one element of '" + t.param->name + "'");
    NumVal v = to_num(eval(*set.value), set.value->pos);
    std::optional<int> summed; // a sum over rows of per-row sums (merged.cpp)
    if (auto it = row_sums_.find(v.e.get()); it != row_sums_.end()) {
        summed = it->second;
        v.taint.reset();
    }
    require_clean(v, s.pos);
    if (t.stored)
        refuse(s.pos, Rule::StorePattern,
               "a second store to '" + t.param->name + "'; write each output once");
    std::vector<int> rows = current_row_loops();
    LoopInfo* loop = column_context();
    if (loop && loop->kind == LoopKind::Inner)
        refuse(s.pos, Rule::StorePattern, "a store inside a loop nested in a column loop");
    const bool merged = loop && !loop->parts.empty();
    std::optional<int> split;
    if (merged) {
        const MergedIndex m = check_merged_index(*loop, t, full, s.pos);
        if (m.div)
            refuse(s.pos, Rule::StorePattern,
                   "a store over the outer axis of a merged row alone: write each element");
        split = m.split;
        t.column_rank = m.parts;
    }
    size_t n_lead = loop ? t.dims.size() - t.column_rank : t.dims.size();
    size_t n_rows = 0; // the leading dimensions that are not kept axes of 1
    for (size_t j = 0; j < n_lead; ++j)
        n_rows += !is_unit_index(t, j, canon(full[j]));
    if (loop_stack_.empty()) {
        // One fixed element written outside every loop: say so only if nothing
        // more specific turns up.
        if (!deferred_)
            deferred_ = refusal(s.pos, Rule::StorePattern,
                                "a store of one fixed element outside the loops");
        return;
    }
    if (split) ++n_rows; // groups x per group: one dimension, two loops
    if (n_rows != rows.size())
        refuse(s.pos, Rule::CrossRow,
               "'" + t.param->name + "' has " + std::to_string(n_rows) +
                   " row axes but the store is inside " + std::to_string(rows.size()) +
                   " row loops");
    if (loop && !merged) {
        Atom k{Atom::Loop, loop->id};
        if (!(canon(full.back()) == Poly::atom(k)))
            refuse(s.pos, Rule::StorePattern,
                   "an output element must be stored at the loop counter's own column");
    }
    std::optional<Diagnostic> taint;
    check_row_indices(t, full, n_lead, s.pos, taint);
    if (split) check_split_row(*split, full, n_lead, s.pos, taint);
    if (taint) throw Refused{*taint};
    Content c;
    c.row_loops = rows;
    c.value = v.e;
    c.pos = s.pos;
    c.summed_loop = summed;
    if (summed && loop)
        refuse(s.pos, Rule::StorePattern,
               "a sum over rows stored inside a loop over the columns; store it once per row");
    if (merged) {
        c.col_loop = loop->id;
    } else if (loop) {
        Atom k{Atom::Loop, loop->id};
        if (!(canon(full.back()) == Poly::atom(k)))
            refuse(s.pos, Rule::StorePattern,
                   "an output element must be stored at the loop counter's own column");
        if (loop->shift && loop->shift->constant_term() != 0)
            refuse(s.pos, Rule::StorePattern, "the output is a shifted copy of the input");
        if (loop->reversed)
            refuse(s.pos, Rule::StorePattern,
                   "the output reads the input in reverse (a permutation of the row)");
        unify_dim(t.dims.back(), loop->extent, s.pos);
        c.col_loop = loop->id;
    }
    t.stored = c;
}

void Raiser::exec_push(const ast::Stmt& s, const ast::Push& push) {
    Value target = eval(*push.seq);
    auto* seq = std::get_if<SeqVal>(&target);
    if (!seq)
        refuse(s.pos, Rule::StorePattern, "Push onto a parameter; Push onto a local sequence");
    Value v = eval(*push.value);
    LocalSeq& local = locals_[static_cast<size_t>(seq->local)];
    if (local.content)
        refuse(s.pos, Rule::StorePattern,
               "a second Push to this sequence; solgen raises one Push per iteration");
    Content c = content_for_push(v, local.depth, s.pos);
    // A store into a narrow sequence rounds (logos-ops.md §6).
    if (std::holds_alternative<NumVal>(v) || std::holds_alternative<IntVal>(v)) {
        std::optional<ir::DType> d = element_dtype(local.type.elem);
        if (d && ir::is_floating(*d) && *d != ir::DType::Float64) c.value = ir::cast(*d, c.value);
    }
    locals_[static_cast<size_t>(seq->local)].content = c;
}

Content Raiser::content_for_push(const Value& v, size_t target_depth, SourcePos pos) {
    std::vector<int> new_loops(loop_stack_.begin() + static_cast<long>(target_depth),
                               loop_stack_.end());
    Content c;
    c.pos = pos;
    auto take_rows = [&](size_t count) {
        for (size_t i = 0; i < count; ++i) {
            const LoopInfo& l = all_loops_[static_cast<size_t>(new_loops[i])];
            if (l.kind != LoopKind::Row)
                refuse(pos, Rule::StorePattern, "a Push inside a loop nested in a column loop");
            c.row_loops.push_back(l.id);
        }
    };
    if (const auto* inner = std::get_if<SeqVal>(&v)) {
        const LocalSeq& z = locals_[static_cast<size_t>(inner->local)];
        if (!z.content) refuse(pos, Rule::StorePattern, "a Push of an empty sequence");
        take_rows(new_loops.size());
        c.row_loops.insert(c.row_loops.end(), z.content->row_loops.begin(),
                           z.content->row_loops.end());
        c.col_loop = z.content->col_loop;
        c.value = z.content->value;
        // A sequence that received one Push outside any loop holds one element.
        c.kept_unit =
            z.content->kept_unit || (z.content->row_loops.empty() && !z.content->col_loop);
        return c;
    }
    if (std::holds_alternative<ViewVal>(v))
        refuse(pos, Rule::StorePattern, "a Push of a whole row; build the row element by element");
    NumVal n = to_num(v, pos);
    require_clean(n, pos);
    c.value = n.e;
    if (!new_loops.empty() &&
        all_loops_[static_cast<size_t>(new_loops.back())].kind != LoopKind::Row) {
        LoopInfo& col = all_loops_[static_cast<size_t>(new_loops.back())];
        if (col.kind == LoopKind::Inner)
            refuse(pos, Rule::StorePattern, "a Push inside a loop nested in a column loop");
        if (col.head || !col.parts.empty())
            refuse(pos, Rule::StorePattern,
                   "a Push inside the loops over a merged row (r2 §8); write the output with "
                   "`Set item`");
        if (col.shift && col.shift->constant_term() != 0)
            refuse(pos, Rule::StorePattern,
                   "the pushed row is a shifted copy of the input (starts at another column)");
        if (col.reversed)
            refuse(pos, Rule::StorePattern,
                   "the pushed row reads the input in reverse (a permutation of the row)");
        take_rows(new_loops.size() - 1);
        c.col_loop = col.id;
    } else {
        take_rows(new_loops.size());
    }
    return c;
}

} // namespace solbench::raise
