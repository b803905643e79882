// Assembly: the symbolic state after the op's body becomes an OpIR. Axes are
// renumbered densely (row axes first, then the column axis) and named.
#include "raise/raiser.h"

#include "ir/walk.h"

#include <algorithm>
#include <functional>

namespace solbench::raise {

namespace {

struct OutputSpec {
    std::string name;
    ir::DType dtype;
    Content content;
    std::vector<int> dims; // raiser axis ids
    SourcePos pos;
    bool flat = false;
    int joined = -1; // see ir::Tensor::joined
};

// The row sets whose outputs read input `input`, in order; the first set when
// none does (an input read only at its shape).
std::vector<int> row_sets_reading(int input, const std::vector<ir::Expr>& values,
                                  const std::vector<int>& set_of) {
    std::set<int> reading;
    for (size_t i = 0; i < values.size(); ++i)
        if (ir::any_node(values[i], [&](const ir::Node& n) {
                return n.op == ir::Op::Load && n.index == input;
            }))
            reading.insert(set_of[i]);
    if (reading.empty()) return {0};
    return {reading.begin(), reading.end()};
}

} // namespace

ir::OpIR Raiser::assemble() {
    std::vector<OutputSpec> outs;
    if (op_.returns) {
        const ast::Type& rt = *op_.returns;
        auto* seq = returned_ ? std::get_if<SeqVal>(&*returned_) : nullptr;
        if (rt.rank == 0 || !seq)
            refuse(op_.pos, Rule::OutputShape,
                   "the op must return a sequence it built with Push (a tensor output)");
        const LocalSeq& local = locals_[static_cast<size_t>(seq->local)];
        if (!local.content) refuse(op_.pos, Rule::OutputShape, "the returned sequence stays empty");
        OutputSpec o{"output", *element_dtype(rt.elem), *local.content, {}, op_.pos, false, -1};
        for (int id : o.content.row_loops)
            o.dims.push_back(*all_loops_[static_cast<size_t>(id)].axis);
        if (o.content.col_loop) {
            const Poly& ext = all_loops_[static_cast<size_t>(*o.content.col_loop)].extent;
            auto a = canon(ext).single_atom();
            if (!a) refuse(o.content.pos, Rule::OutputShape, "the row length must be an axis");
            o.dims.push_back(a->id);
        }
        if (o.content.kept_unit) { // a keepdim output built by Push (r2 §7)
            int unit = new_axis();
            axes_[static_cast<size_t>(unit)].value = 1;
            o.dims.push_back(unit);
        }
        // A flat `-> Seq of E` filled by one Push per element in row-major order
        // is the row-major tensor of the loops' axes (r2 §7).
        if (rt.rank == 1 && o.dims.size() > 1) o.flat = true;
        if (static_cast<int>(o.dims.size()) != rt.rank && !o.flat)
            refuse(o.content.pos, Rule::OutputShape,
                   "the op returns rank " + std::to_string(rt.rank) + " but builds rank " +
                       std::to_string(o.dims.size()));
        outs.push_back(o);
    }
    for (const TensorParam& t : tensors_) {
        if (!t.param->is_output) continue;
        if (!t.stored)
            refuse(t.param->pos, Rule::OutputShape,
                   "output '" + t.param->name + "' is never written");
        std::vector<int> dims = t.dims;
        merge_dims(t, dims);
        outs.push_back(OutputSpec{t.param->name, t.dtype, *t.stored, dims, t.param->pos, t.flat,
                                  t.split_axis ? static_cast<int>(dims.size()) - 2 : -1});
    }
    if (outs.empty()) refuse(op_.pos, Rule::NoFamily, "the op has no output");

    // Row sets: the outputs grouped by the axes of their row loops, in the order
    // they first appear (r2 §8: queries and keys over different head counts).
    std::vector<std::vector<int>> row_sets;
    std::vector<int> set_of(outs.size());
    auto roots_of = [&](const OutputSpec& o) {
        std::vector<int> mine;
        for (int id : o.content.row_loops)
            mine.push_back(resolve_axis(*all_loops_[static_cast<size_t>(id)].axis).first);
        return mine;
    };
    auto join_set = [&](const std::vector<int>& roots) {
        auto it = std::find(row_sets.begin(), row_sets.end(), roots);
        if (it == row_sets.end()) {
            row_sets.push_back(roots);
            it = row_sets.end() - 1;
        }
        return static_cast<int>(it - row_sets.begin());
    };
    for (size_t i = 0; i < outs.size(); ++i)
        if (!outs[i].content.column_sum && !outs[i].content.summed_loop)
            set_of[i] = join_set(roots_of(outs[i]));
    // A column sum whose loops visit a set's rows in another order (the kept heads
    // outside, the summed sequence inside) sums over that set's rows: its kept axes
    // are some positions of the set, in the set's order (r2 §8: an output indexed by
    // a subset of the row axes and the columns).
    std::vector<std::vector<int>> kept_at(outs.size());
    for (size_t i = 0; i < outs.size(); ++i) {
        if (!outs[i].content.column_sum) continue;
        const std::vector<int> mine = roots_of(outs[i]);
        const size_t kept = outs[i].content.kept_rows;
        for (size_t k = 0; k < kept; ++k)
            kept_at[i].push_back(static_cast<int>(k));
        auto permuted = std::find_if(row_sets.begin(), row_sets.end(), [&](const auto& set) {
            return set != mine &&
                   std::is_permutation(set.begin(), set.end(), mine.begin(), mine.end());
        });
        if (std::find(row_sets.begin(), row_sets.end(), mine) != row_sets.end() ||
            permuted == row_sets.end()) {
            set_of[i] = join_set(mine);
            continue;
        }
        if (ir::any_node(outs[i].content.value,
                         [](const ir::Node& n) { return n.op == ir::Op::Row; }))
            refuse(outs[i].content.pos, Rule::OutputShape,
                   "a column sum that visits the rows in another order than the outputs beside "
                   "it uses a row counter as a value; loop over the rows in their order");
        kept_at[i].clear();
        for (size_t k = 0; k < kept; ++k)
            kept_at[i].push_back(static_cast<int>(
                std::find(permuted->begin(), permuted->end(), mine[k]) - permuted->begin()));
        if (!std::is_sorted(kept_at[i].begin(), kept_at[i].end()))
            refuse(outs[i].content.pos, Rule::OutputShape,
                   "a column sum keeps row axes in another order than the rows run (a "
                   "transposed output); keep them in the rows' order");
        set_of[i] = static_cast<int>(permuted - row_sets.begin());
    }

    // A merged row's axes are one row wherever they are read (r2 §8): a loop over one of
    // them as rows, or along the columns alone, elsewhere in the op would address another
    // row than the merged one.
    std::set<int> merged_parts;
    for (const AxisInfo& a : axes_)
        if (a.parts.size() >= 2)
            for (int p : a.parts)
                merged_parts.insert(resolve_axis(p).first);
    auto refuse_split = [&](SourcePos pos, const std::string& what) {
        if (merged_heads_.empty()) { // once more, merging every nest over those axes
            RaiseAgainMerged again;
            for (const AxisInfo& m : axes_)
                if (m.parts.size() >= 2)
                    for (size_t k = 0; k < axes_.size(); ++k)
                        if (resolve_axis(static_cast<int>(k)).first ==
                            resolve_axis(m.parts.front()).first)
                            again.heads.insert(static_cast<int>(k));
            throw again;
        }
        refuse(pos, Rule::LoopForm,
               what + " runs over one of the axes of a merged row (r2 §8) as an axis of its "
                      "own; write every loop nest over them alike (nested, with only Lets "
                      "between)");
    };
    for (const OutputSpec& o : outs) {
        for (int r : roots_of(o))
            if (merged_parts.count(r)) refuse_split(o.content.pos, "'" + o.name + "'");
        if (o.content.col_loop && !o.dims.empty() &&
            merged_parts.count(resolve_axis(o.dims.back()).first))
            refuse_split(o.content.pos, "'" + o.name + "'");
    }
    for (const TensorParam& t : tensors_)
        if (!t.param->is_output && t.column_read && *t.column_read && t.merged_parts == 0 &&
            merged_parts.count(resolve_axis(column_axis(t)).first))
            refuse_split(t.param->pos, "'" + t.param->name + "'");

    // A sum over rows of per-row sums (r2 §8: grad_weight[c] over N and H x W) runs over
    // the rows of a set whose axes are its kept rows' and its summed loop's; the kept
    // ones must be the set's last (each output element adds a column of the [summed,
    // kept] per-row sums, in order).
    for (size_t i = 0; i < outs.size(); ++i) {
        const Content& c = outs[i].content;
        if (!c.summed_loop) continue;
        std::vector<int> mine = roots_of(outs[i]);
        const std::vector<int> kept = mine;
        mine.push_back(resolve_axis(*all_loops_[static_cast<size_t>(*c.summed_loop)].axis).first);
        auto set = std::find_if(row_sets.begin(), row_sets.end(), [&](const auto& s) {
            return std::is_permutation(s.begin(), s.end(), mine.begin(), mine.end());
        });
        if (set == row_sets.end())
            refuse(c.pos, Rule::OutputShape,
                   "'" + outs[i].name +
                       "' sums over rows that no row output of the op runs over; a sum over "
                       "rows rides beside the row outputs of the same rows");
        if (!std::equal(kept.begin(), kept.end(), set->end() - static_cast<long>(kept.size())))
            refuse(c.pos, Rule::OutputShape,
                   "'" + outs[i].name +
                       "' keeps row axes that are not the last of its rows (a sum over inner "
                       "rows); solgen sums over the leading rows");
        for (size_t k = set->size() - kept.size(); k < set->size(); ++k)
            kept_at[i].push_back(static_cast<int>(k));
        set_of[i] = static_cast<int>(set - row_sets.begin());
    }

    // Dense axis numbering: row axes, then the column axis, then the rest.
    ir::OpIR op;
    std::map<int, int> ir_axis;
    std::function<int(int)> use_axis = [&](int root) -> int {
        if (ir_axis.count(root)) return ir_axis[root];
        int k = static_cast<int>(op.axes.size());
        ir_axis[root] = k;
        op.axes.push_back(ir::Axis{
            axes_[static_cast<size_t>(root)].name, axes_[static_cast<size_t>(root)].value, {}});
        std::vector<int> parts; // a merged row's axes
        for (int p : axes_[static_cast<size_t>(root)].parts)
            parts.push_back(use_axis(resolve_axis(p).first));
        op.axes[static_cast<size_t>(k)].parts = parts;
        return k;
    };
    for (size_t k = 0; k < row_sets.size(); ++k) {
        std::vector<int> axes;
        for (int r : row_sets[k])
            axes.push_back(use_axis(r));
        if (k == 0)
            op.row_axes = axes;
        else
            op.other_row_axes.push_back(axes);
    }
    std::optional<int> column_root;
    for (const OutputSpec& o : outs)
        if (o.content.col_loop) {
            column_root = resolve_axis(o.dims.back()).first;
            break;
        }
    // A merged row's axis and its parts are numbered before the expressions', so that
    // the numbering does not follow the order the expressions are written in.
    if (column_root && !axes_[static_cast<size_t>(*column_root)].parts.empty())
        use_axis(*column_root);
    auto to_dim = [&](int axis) {
        auto [root, scale] = resolve_axis(axis);
        return ir::Dim{use_axis(root), scale};
    };

    // Rewrites raiser axis ids inside expressions to IR axes.
    std::map<const ir::Node*, ir::Expr> memo;
    std::function<ir::Expr(const ir::Expr&)> remap = [&](const ir::Expr& e) -> ir::Expr {
        if (auto it = memo.find(e.get()); it != memo.end()) return it->second;
        ir::Node n = *e;
        for (auto& a : n.args)
            a = remap(a);
        if (n.op == ir::Op::AxisSize) {
            auto [root, scale] = resolve_axis(n.index);
            n.index = use_axis(root);
            if (scale != 1) {
                ir::Expr r = ir::binary(ir::Op::Mul, ir::constant(static_cast<double>(scale)),
                                        std::make_shared<const ir::Node>(n));
                return memo[e.get()] = r;
            }
        }
        for (std::optional<ir::Dim>* d : {&n.col_offset, &n.col_wrap, &n.col_div})
            if (*d) {
                auto [root, scale] = resolve_axis((*d)->axis);
                *d = ir::Dim{use_axis(root), scale * (*d)->scale};
            }
        if (n.op == ir::Op::Reduce) {
            auto [root, scale] = resolve_axis(n.extent.axis);
            n.extent = ir::Dim{use_axis(root), scale * n.extent.scale};
            if (!column_root) column_root = root;
        }
        return memo[e.get()] = std::make_shared<const ir::Node>(std::move(n));
    };
    std::vector<ir::Expr> values;
    for (const OutputSpec& o : outs) {
        ir::Expr v = o.content.value;
        // The store rounds to the output's dtype anyway: drop a same-type cast on top.
        if (v->op == ir::Op::Cast && v->dtype == o.dtype) v = v->args[0];
        values.push_back(remap(v));
    }
    if (column_root) op.column_axis = use_axis(*column_root);
    for (const auto& [name, id] : size_params_) {
        int root = resolve_axis(id).first;
        auto it = ir_axis.find(root);
        op.size_params.push_back(ir::SizeParam{
            name, it == ir_axis.end() ? std::nullopt : std::optional<int>(it->second)});
    }

    // Inputs in parameter order; Int parameters are axes, not inputs.
    for (const TensorParam& t : tensors_) {
        if (t.param->is_output) continue;
        ir::Tensor x;
        x.name = t.param->name;
        x.dtype = t.dtype;
        x.pos = t.param->pos;
        x.flat = t.flat;
        if (t.param->type.rank == 0) {
            x.role = ir::Role::Scalar;
            if (t.param->type.elem == ast::ElemType::Real ||
                t.param->type.elem == ast::ElemType::Float64)
                x.dtype = ir::DType::Float32; // a Python float scalar (logos-ops.md §3)
            op.inputs.push_back(x);
            continue;
        }
        std::vector<int> dims = t.dims;
        merge_dims(t, dims);
        for (int d : dims)
            x.shape.push_back(to_dim(d));
        if (t.split_axis) x.joined = static_cast<int>(dims.size()) - 2; // groups x per group
        const std::vector<int> reading =
            row_sets_reading(static_cast<int>(op.inputs.size()), values, set_of);
        std::vector<std::vector<int>> roots;
        for (int k : reading)
            roots.push_back(row_sets[static_cast<size_t>(k)]);
        classify_input(x, t, roots);
        x.row_set = reading.front();
        op.inputs.push_back(x);
    }
    for (size_t i = 0; i < outs.size(); ++i) {
        const OutputSpec& o = outs[i];
        ir::Tensor x;
        x.name = o.name;
        x.dtype = o.dtype;
        x.pos = o.pos;
        x.flat = o.flat;
        for (int d : o.dims)
            x.shape.push_back(to_dim(d));
        x.joined = o.joined;
        x.role = o.content.column_sum    ? ir::Role::ColumnSum
                 : o.content.summed_loop ? ir::Role::RowSum
                 : o.content.col_loop    ? ir::Role::Rows
                                         : ir::Role::PerRow;
        x.row_subset = kept_at[i]; // a column sum's kept rows
        x.row_set = set_of[i];
        op.outputs.push_back(x);
        op.values.push_back(values[i]);
        op.value_pos.push_back(o.content.pos);
    }

    // Names: Int parameters name their axes; the others get the benchmark's usual names.
    static const char* row_names[] = {"batch_size", "seq_len"};
    std::set<std::string> taken;
    for (const ast::Param& p : op_.params)
        taken.insert(p.name);
    for (const ir::Axis& a : op.axes)
        if (!a.name.empty()) taken.insert(a.name);
    auto fresh = [&](std::string base) {
        std::string n = base;
        for (int k = 2; taken.count(n); ++k)
            n = base + "_" + std::to_string(k);
        taken.insert(n);
        return n;
    };
    // Groups that split a dimension (group norm's channels) are the benchmark's num_groups.
    for (const auto* list : {&op.inputs, &op.outputs})
        for (const ir::Tensor& t : *list)
            if (t.joined >= 0) {
                ir::Axis& a =
                    op.axes[static_cast<size_t>(t.shape[static_cast<size_t>(t.joined)].axis)];
                if (a.name.empty()) a.name = fresh("num_groups");
            }
    for (size_t j = 0; j < op.row_axes.size(); ++j) {
        ir::Axis& a = op.axes[static_cast<size_t>(op.row_axes[j])];
        if (a.name.empty())
            a.name = fresh(op.row_axes.size() <= 2 ? row_names[j] : "dim" + std::to_string(j));
    }
    for (const std::vector<int>& rows : op.other_row_axes) // another set's own axes
        for (size_t j = 0; j < rows.size(); ++j) {
            ir::Axis& a = op.axes[static_cast<size_t>(rows[j])];
            if (a.name.empty()) a.name = fresh("dim" + std::to_string(j));
        }
    // A merged row's parts, the benchmark's usual names for the axes of an image.
    static const char* image_names[] = {"height", "width"};
    for (const ir::Axis& merged : op.axes)
        for (size_t j = 0; j < merged.parts.size(); ++j) {
            ir::Axis& a = op.axes[static_cast<size_t>(merged.parts[j])];
            if (a.name.empty())
                a.name =
                    fresh(merged.parts.size() == 2 ? image_names[j] : "dim" + std::to_string(j));
        }
    for (ir::Axis& merged : op.axes) {
        if (merged.parts.empty()) continue;
        std::string name;
        for (int p : merged.parts)
            name += (name.empty() ? "" : "_x_") + op.axes[static_cast<size_t>(p)].name;
        merged.name = fresh(name);
    }
    if (op.column_axis >= 0 && op.axes[static_cast<size_t>(op.column_axis)].name.empty())
        op.axes[static_cast<size_t>(op.column_axis)].name = fresh("hidden_size");
    for (size_t k = 0; k < op.axes.size(); ++k)
        if (op.axes[k].name.empty()) op.axes[k].name = fresh("axis" + std::to_string(k));

    op.name = op_.name;
    op.file = file_;
    op.pos = op_.pos;
    op.description = program_.note;
    return op;
}

// An input read by the outputs of several row sets follows the same positions
// of each (cos and sin tables [seq, dim] of queries [batch, heads, seq] and keys
// [batch, kv_heads, seq]), so that each set's kernel addresses it alike.
void Raiser::classify_input(ir::Tensor& x, const TensorParam& t,
                            const std::vector<std::vector<int>>& row_sets) const {
    classify_in_set(x, t, row_sets.front());
    for (size_t k = 1; k < row_sets.size(); ++k) {
        ir::Tensor other = x;
        classify_in_set(other, t, row_sets[k]);
        if (other.role != x.role || other.row_subset != x.row_subset)
            refuse(t.param->pos, Rule::InputLayout,
                   "'" + x.name +
                       "' is read by outputs over different rows and follows other row "
                       "positions in each (several row sets must read an input alike)");
    }
}

// An input's role from the axes of its dimensions: the row axes it follows
// (in the outputs' order, all or some), kept axes of 1, and, when it is read
// along the columns, the dimension they run along.
void Raiser::classify_in_set(ir::Tensor& x, const TensorParam& t,
                             const std::vector<int>& row_roots) const {
    std::vector<int> dims = t.dims; // a merged row's axes as one
    merge_dims(t, dims);
    const size_t rank = dims.size();
    // Never read: its axes are its own (a definition names them, and binding
    // unifies them with the op's), and the kernel does not take it.
    if (!t.column_read) {
        x.role = ir::Role::Unread;
        return;
    }
    bool along_columns = *t.column_read;
    const size_t column = t.merged_parts > 0 ? rank - 1 : t.column_dim.value_or(rank - 1);
    if (along_columns && column + 1 != rank) x.column = static_cast<int>(column);
    std::vector<int> follows;
    for (size_t j = 0; j < rank; ++j) {
        if (along_columns && j == column) continue;
        auto [root, scale] = resolve_axis(dims[j]);
        auto it = std::find(row_roots.begin(), row_roots.end(), root);
        if (scale == 1 && it != row_roots.end()) {
            int p = static_cast<int>(it - row_roots.begin());
            if (!follows.empty() && p <= follows.back())
                refuse(t.param->pos, Rule::InputLayout,
                       "'" + x.name +
                           "' runs over the row axes in another order than the outputs (a "
                           "transposed read)");
            follows.push_back(p);
        } else if (scale != 1 || axes_[static_cast<size_t>(root)].value != 1) {
            refuse(t.param->pos, Rule::InputLayout,
                   "'" + x.name + "' is neither row-shaped like the outputs nor broadcast along " +
                       "them: dimension " + std::to_string(j + 1) +
                       " is none of the outputs' row axes (nor a kept axis of 1)");
        }
    }
    if (along_columns && !t.read_at_column && !follows.empty())
        x.role = ir::Role::Table; // read only at fixed positions of its rows
    else if (along_columns) // a vector over the columns follows no row (a 1-d op's rows are none)
        x.role = follows.empty() && !row_roots.empty() ? ir::Role::Column : ir::Role::Rows;
    else if (!follows.empty())
        x.role = ir::Role::PerRow;
    else
        refuse(t.param->pos, Rule::InputLayout,
               "'" + x.name + "' runs over none of the outputs' rows or columns");
    if (!follows.empty() && follows.size() != row_roots.size()) {
        if (x.flat)
            refuse(t.param->pos, Rule::InputLayout,
                   "'" + x.name + "' is flat and broadcast over some rows; declare it nested");
        x.row_subset = follows;
    }
}

} // namespace solbench::raise
