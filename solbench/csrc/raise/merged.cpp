// Merged rows (r2 §8): a reduction over several trailing axes, the row being
// their flattened product (instance norm over H x W of [N, C, H, W]). The loops
// over those axes, each nested in the one before, run as one loop over the
// columns of the merged row: the outermost (the head) is the column loop that
// carries the reductions, the loops inside it (its parts) only address. A read
// or store inside them is at the loops' own element, every merged axis indexed
// by its loop's counter, so the element is the head's column.
#include "raise/raiser.h"

#include <algorithm>

namespace solbench::raise {

namespace {

// The body of the one loop of a block of Lets and that loop; none for any other block.
const ast::Block* only_loop_body(const ast::Block& block, size_t end) {
    const ast::Block* inner = nullptr;
    for (size_t i = 0; i < end; ++i) {
        const ast::Stmt& s = block[i];
        if (std::holds_alternative<ast::Let>(s.node)) continue;
        const ast::Block* body = nullptr;
        if (const auto* f = std::get_if<ast::ForEach>(&s.node)) body = &f->body;
        if (const auto* r = std::get_if<ast::ForRange>(&s.node)) body = &r->body;
        if (!body || inner) return nullptr;
        inner = body;
    }
    return inner;
}

// The loops nested in a loop whose body is `body`, when they form a perfect nest:
// at each level Lets and one loop, the innermost loop free of loops. Statements
// between the levels would run once per outer index, not once per element, so
// anything else is not a merged row (0).
size_t nest_levels(const ast::Block& body, size_t end) {
    size_t levels = 0;
    const ast::Block* block = &body;
    size_t block_end = end;
    while (contains_loop(*block)) {
        block = only_loop_body(*block, block_end);
        if (!block) return 0;
        block_end = block->size();
        ++levels;
    }
    return levels;
}

} // namespace

// A loop that would run over rows is the head of a merged row when its body is a
// perfect nest and either it updates an accumulator of the rows around it (a
// reduction over its axis and those inside: the row is their product), or its axis
// already heads a merged row (the epilogue of the same norm, which must address
// the row as the reductions do).
size_t Raiser::merged_levels(const LoopSpec& spec, const std::map<std::string, SourcePos>& set_at) {
    if (column_sum_ || loop_stack_.empty() || !only_row_loops_open()) return 0;
    const size_t levels = nest_levels(*spec.body, spec.body_end);
    if (levels == 0) return 0;
    Poly extent = canon(spec.hi - spec.lo + Poly::constant(1));
    if (auto a = extent.single_atom(); a && a->kind == Atom::Axis) {
        const int root = resolve_axis(a->id).first;
        for (const AxisInfo& axis : axes_)
            if (!axis.parts.empty() && resolve_axis(axis.parts.front()).first == root)
                return levels;
        if (merged_heads_.count(a->id) || merged_heads_.count(root)) return levels;
    }
    // The accumulator is the row's own: declared in the innermost row loop (one declared
    // further out sums over rows, cross-row), or one of a sum over rows (row_sum_).
    for (const auto& [name, pos] : set_at) {
        Binding* b = lookup(name);
        const bool summed = row_sum_ && std::find(row_sum_->totals.begin(), row_sum_->totals.end(),
                                                  name) != row_sum_->totals.end();
        if (b && b->is_mutable && std::holds_alternative<NumVal>(b->value) &&
            (b->depth == loop_stack_.size() || summed) && name != spec.counter &&
            !reset_per_row(*spec.body, spec.body_end, name))
            return levels;
    }
    return 0;
}

// A loop over rows that sums, into an accumulator of the rows around it, the per-row
// sums of a merged row nested in it (r2 §8: a per-channel sum over N and H x W,
// `Repeat for c: Let mutable t be 0. Repeat for n: <loops over H, W: Set t to t + e.>
// Set item c of grad_weight to t.`): its axis is a row axis of the op already (an
// earlier loop ran over it as rows), its body a merged row's perfect nest.
bool Raiser::starts_row_sum(const LoopSpec& spec, const LoopInfo& loop,
                            const std::map<std::string, SourcePos>& set_at,
                            std::vector<std::string>& totals) {
    if (column_sum_ || row_sum_ || loop_stack_.empty() || !only_row_loops_open()) return false;
    if (nest_levels(*spec.body, spec.body_end) < 2) return false;
    auto a = canon(spec.hi - spec.lo + Poly::constant(1)).single_atom();
    if (!a || a->kind != Atom::Axis) return false;
    const int root = resolve_axis(a->id).first;
    const bool earlier_rows =
        std::any_of(all_loops_.begin(), all_loops_.end(), [&](const LoopInfo& l) {
            return l.kind == LoopKind::Row && l.axis && resolve_axis(*l.axis).first == root &&
                   std::find(loop_stack_.begin(), loop_stack_.end(), l.id) == loop_stack_.end();
        });
    if (!earlier_rows) return false;
    std::vector<std::string> carried;
    for (const auto& [name, pos] : set_at) {
        Binding* b = lookup(name);
        if (b && b->is_mutable && std::holds_alternative<NumVal>(b->value) && b->depth > 0 &&
            name != spec.counter && !reset_per_row(*spec.body, spec.body_end, name))
            carried.push_back(name);
    }
    (void)loop;
    totals = carried;
    return !carried.empty();
}

// The axis of a merged row, once its loops have run: the product of the parts'
// axes (one axis for every merged row over the same axes).
int Raiser::merged_axis(LoopInfo& head, SourcePos pos) {
    if (head.parts.size() != head.levels + 1)
        refuse(pos, Rule::LoopForm, "the loops over a merged row must nest one in the other");
    std::vector<int> roots;
    std::optional<int64_t> value = 1;
    for (int id : head.parts) {
        const LoopInfo& part = all_loops_[static_cast<size_t>(id)];
        auto a = canon(part.extent).single_atom();
        if (!a || a->kind != Atom::Axis || resolve_axis(a->id).second != 1)
            refuse(part.pos, Rule::LoopForm,
                   "a loop over one of the axes merged into the row (r2 §8) must cover a "
                   "whole axis");
        const int root = resolve_axis(a->id).first;
        roots.push_back(root);
        const auto& v = axes_[static_cast<size_t>(root)].value;
        value = value && v ? std::optional<int64_t>(*value * *v) : std::nullopt;
    }
    for (size_t k = 0; k < axes_.size(); ++k) {
        std::vector<int> mine;
        for (int p : axes_[k].parts)
            mine.push_back(resolve_axis(p).first);
        if (!mine.empty() && mine == roots) return static_cast<int>(k);
    }
    const int merged = new_axis();
    axes_[static_cast<size_t>(merged)].parts = roots;
    axes_[static_cast<size_t>(merged)].value = value;
    return merged;
}

// The number of trailing indices of an access inside a merged row that name its
// loops (0: the access is per row, or at a fixed place).
std::optional<size_t> Raiser::merged_rank(const LoopInfo& head,
                                          const std::vector<Poly>& index0) const {
    for (size_t j = 0; j < index0.size(); ++j)
        for (int id : head.parts)
            if (index0[j].mentions({Atom::Loop, id})) return index0.size() - j;
    return std::nullopt;
}

// A read or store of `t` inside a merged row: its trailing dimensions index the
// merged axes, each by its own loop's counter (so the element is the row's column),
// or the outermost alone (a per-channel weight: the column divided by the inner
// parts). The first of them may join a row loop's counter, `(g - 1) * per_group + k`
// of a dimension of groups x per_group (group norm's channels). The leading ones
// are checked as rows by the caller.
Raiser::MergedIndex Raiser::check_merged_index(const LoopInfo& head, TensorParam& t,
                                               const std::vector<Poly>& index0, SourcePos pos) {
    const std::string& name = t.param->name;
    const size_t n = head.parts.size();
    if (n != head.levels + 1)
        refuse(pos, Rule::ColumnIndex,
               "'" + name +
                   "' is read inside the loops over a merged row's outer axes; read and write "
                   "elements in the innermost loop (r2 §8)");
    MergedIndex m;
    m.parts = *merged_rank(head, index0);
    if (m.parts > n)
        refuse(pos, Rule::ColumnIndex,
               "'" + name +
                   "' is indexed by a merged row's loops on both sides of another dimension: "
                   "the merged axes must be its last ones (a sum over N and H x W of [N, C, H, "
                   "W] is not one row, r2 §8)");
    if (m.parts != n && m.parts != 1)
        refuse(pos, Rule::ColumnIndex,
               "'" + name + "' is indexed by " + std::to_string(m.parts) + " of the " +
                   std::to_string(n) +
                   " axes merged into the row; a tensor inside a merged row runs over all of "
                   "them, or over the outermost alone (r2 §8)");
    const size_t lead = index0.size() - m.parts;
    m.rows.assign(index0.begin(), index0.begin() + static_cast<long>(lead));
    const std::vector<int> rows = current_row_loops();
    for (size_t i = 0; i < m.parts; ++i) {
        const LoopInfo& part = all_loops_[static_cast<size_t>(head.parts[i])];
        const Atom counter{Atom::Loop, part.id};
        Poly idx = canon(index0[lead + i]);
        if (i == 0 && !(idx == Poly::atom(counter))) {
            // groups x per group: `g * per_group + k` in a dimension of both
            auto [coef, rest] = idx.split_by(counter);
            std::optional<Atom> g;
            for (int r : rows)
                if (canon(rest) == canon(Poly::atom({Atom::Loop, r}) * part.extent))
                    g = Atom{Atom::Loop, r};
            if (coef == Poly::constant(1) && g) {
                const LoopInfo& split = all_loops_[static_cast<size_t>(g->id)];
                auto groups = axes_[static_cast<size_t>(*split.axis)].value;
                auto per = canon(part.extent).single_atom();
                if (groups && per && per->kind == Atom::Axis) {
                    // the dimension holds every group's channels: groups * per_group
                    unify_dim(t.dims[lead],
                              Poly::atom({Atom::Axis, resolve_axis(per->id).first})
                                  .scaled(*groups * resolve_axis(per->id).second),
                              pos);
                    m.split = split.id;
                    m.rows.push_back(Poly::atom(*g));
                    if (t.split_axis && *t.split_axis != *split.axis)
                        refuse(pos, Rule::ColumnIndex,
                               "'" + name + "' is split into groups by two different loops");
                    t.split_axis = *split.axis;
                    continue;
                }
            }
        }
        for (size_t j = i + 1; j < n && m.parts < n; ++j)
            if (idx == Poly::atom({Atom::Loop, head.parts[j]}))
                refuse(pos, Rule::ColumnIndex,
                       "'" + name +
                           "' runs over an inner axis of the merged row alone; a tensor there "
                           "runs over all its axes, or over the outermost alone (r2 §8)");
        if (!(idx == Poly::atom(counter)))
            refuse(pos, Rule::ColumnIndex,
                   "'" + name +
                       "' is indexed along the merged row (r2 §8) by something other "
                       "than each axis' own loop counter (a shifted, reversed or strided read)");
        unify_dim(t.dims[lead + i], part.extent, pos);
    }
    if (t.merged_parts != 0 && t.merged_parts != m.parts)
        refuse(pos, Rule::ColumnIndex,
               "'" + name + "' is read along different numbers of a merged row's axes");
    if (m.parts < n) {
        // The column over the outer part: divided by the inner parts' product.
        LoopInfo inner = head;
        inner.parts.assign(head.parts.begin() + 1, head.parts.end());
        inner.levels = inner.parts.size() - 1;
        m.div = ir::Dim{
            inner.parts.size() == 1
                ? canon(all_loops_[static_cast<size_t>(inner.parts[0])].extent).single_atom()->id
                : merged_axis(inner, pos),
            1};
    }
    t.merged_parts = m.parts;
    return m;
}

// The row loop a split index joins (groups) comes after the row loops of the leading
// indices, as the dimensions do; else the read crosses rows.
void Raiser::check_split_row(int split, const std::vector<Poly>& index0, size_t n_lead,
                             SourcePos pos, std::optional<Diagnostic>& taint) {
    const std::vector<int> rows = current_row_loops();
    const auto at = std::find(rows.begin(), rows.end(), split);
    for (size_t j = 0; j < n_lead; ++j) {
        auto a = canon(index0[j]).single_atom();
        auto it = a ? std::find(rows.begin(), rows.end(), a->id) : rows.end();
        if (a && a->kind == Atom::Loop && it != rows.end() && it >= at && !taint)
            taint = refusal(pos, Rule::InputLayout,
                            "a dimension split into groups runs over the rows in another order "
                            "than the outputs (the groups' loop must come after the others')");
    }
}

// A tensor's dimensions as the IR sees them inside a merged row: its trailing ones
// replaced by the row's axis (or, read over the outermost part alone, by that part),
// a dimension split into groups x per group by the groups' axis and the rest.
void Raiser::merge_dims(const TensorParam& t, std::vector<int>& dims) const {
    if (t.merged_parts == 0) return;
    for (size_t k = 0; k < axes_.size(); ++k) {
        const std::vector<int>& parts = axes_[k].parts;
        if (parts.size() < 2 || dims.size() < t.merged_parts) continue;
        const size_t lead = dims.size() - t.merged_parts;
        const auto first = resolve_axis(dims[lead]);
        const int64_t groups =
            t.split_axis ? axes_[static_cast<size_t>(*t.split_axis)].value.value_or(0) : 1;
        bool same = first == std::pair<int, int64_t>{resolve_axis(parts[0]).first, groups};
        for (size_t i = 1; i < t.merged_parts && same; ++i)
            same = resolve_axis(dims[lead + i]) ==
                   std::pair<int, int64_t>{resolve_axis(parts[i]).first, 1};
        if (!same) continue;
        dims.resize(lead);
        if (t.split_axis) dims.push_back(*t.split_axis);
        dims.push_back(t.merged_parts == parts.size() ? static_cast<int>(k)
                                                      : resolve_axis(parts[0]).first);
        return;
    }
}

} // namespace solbench::raise
