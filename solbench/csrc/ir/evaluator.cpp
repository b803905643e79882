#include "ir/evaluator.h"

#include "ir/builtins.h"
#include "ir/operators.h"

#include <cmath>
#include <functional>
#include <map>

namespace solbench::ir {

namespace {

struct Buffer {
    std::vector<double> data;
    int64_t row_length = 1; // the last dimension
};

void flatten(const nlohmann::json& j, std::vector<double>& out, std::vector<int64_t>& shape,
             size_t depth) {
    if (j.is_array()) {
        if (shape.size() <= depth)
            shape.push_back(static_cast<int64_t>(j.size()));
        else if (shape[depth] != static_cast<int64_t>(j.size()))
            throw EvalError("ragged nested array");
        for (const auto& x : j)
            flatten(x, out, shape, depth + 1);
    } else if (j.is_number()) {
        out.push_back(j.get<double>());
    } else if (j.is_boolean()) { // a Bool tensor: 1 and 0, as the kernel reads it
        out.push_back(j.get<bool>() ? 1.0 : 0.0);
    } else {
        throw EvalError("tensor elements must be numbers or booleans");
    }
}

class Evaluator {
  public:
    Evaluator(const OpIR& op, const nlohmann::json& inputs) : op_(op), inputs_(inputs) {
        bind_axes();
    }

    nlohmann::json run() {
        int64_t rows = 1;
        for (int a : op_.row_axes)
            rows *= axis_[static_cast<size_t>(a)];
        std::vector<std::vector<double>> out(op_.outputs.size());
        // A column sum with kept rows has one row of sums per index of them.
        auto kept_count = [&](const Tensor& t) {
            int64_t n = 1;
            for (int p : t.row_subset)
                n *= axis_[static_cast<size_t>(op_.row_axes[static_cast<size_t>(p)])];
            return n;
        };
        for (size_t i = 0; i < op_.outputs.size(); ++i)
            if (op_.outputs[i].role == Role::ColumnSum)
                out[i].assign(static_cast<size_t>(kept_count(op_.outputs[i]) *
                                                  dim(column_dim(op_.outputs[i]))),
                              0.0);
            else if (op_.outputs[i].role == Role::RowSum)
                out[i].assign(static_cast<size_t>(kept_count(op_.outputs[i])), 0.0);
        for (int64_t r = 0; r < rows; ++r) {
            memo_.clear();
            for (size_t i = 0; i < op_.outputs.size(); ++i) {
                const Tensor& t = op_.outputs[i];
                if (t.role == Role::ColumnSum) { // summed over the rows, rounded at the end
                    const int64_t cols = dim(column_dim(t));
                    // The row of sums of its kept rows' coordinates (none: the only one).
                    const int64_t at = is_broadcast(t) ? row_start(t, r) * cols : 0;
                    for (int64_t c = 0; c < cols; ++c)
                        out[i][static_cast<size_t>(at + c)] += eval(op_.values[i], r, c);
                } else if (t.role == Role::RowSum) { // per row, added at its kept rows
                    out[i][static_cast<size_t>(row_start(t, r))] += eval(op_.values[i], r, 0);
                } else if (t.role == Role::PerRow) {
                    out[i].push_back(round_to(t.dtype, eval(op_.values[i], r, 0)));
                } else {
                    int64_t cols = dim(column_dim(t));
                    for (int64_t c = 0; c < cols; ++c)
                        out[i].push_back(round_to(t.dtype, eval(op_.values[i], r, c)));
                }
            }
        }
        for (size_t i = 0; i < op_.outputs.size(); ++i)
            if (op_.outputs[i].role == Role::ColumnSum || op_.outputs[i].role == Role::RowSum)
                for (double& v : out[i])
                    v = round_to(op_.outputs[i].dtype, v);
        nlohmann::json result = nlohmann::json::object();
        for (size_t i = 0; i < op_.outputs.size(); ++i)
            result[op_.outputs[i].name] = shape_like(op_.outputs[i], out[i]);
        return result;
    }

  private:
    int64_t dim(const Dim& d) const { return d.scale * axis_[static_cast<size_t>(d.axis)]; }

    void bind_axes() {
        axis_.assign(op_.axes.size(), -1);
        for (size_t a = 0; a < op_.axes.size(); ++a) {
            if (op_.axes[a].value) axis_[a] = *op_.axes[a].value;
            if (inputs_.contains(op_.axes[a].name) && inputs_[op_.axes[a].name].is_number_integer())
                axis_[a] = inputs_[op_.axes[a].name].get<int64_t>();
        }
        for (const Tensor& t : op_.inputs) {
            if (t.role == Role::Scalar) continue;
            if (!inputs_.contains(t.name)) throw EvalError("missing input '" + t.name + "'");
            Buffer b;
            std::vector<int64_t> shape;
            flatten(inputs_[t.name], b.data, shape, 0);
            if (!t.flat) {
                const std::vector<Dim> real = real_shape(op_, t); // a merged row's parts
                if (shape.size() != real.size())
                    throw EvalError("'" + t.name + "' has the wrong rank");
                for (size_t j = 0; j < shape.size(); ++j) {
                    const Dim& d = real[j];
                    int64_t& v = axis_[static_cast<size_t>(d.axis)];
                    if (shape[j] % d.scale != 0) throw EvalError("odd packed axis");
                    if (v < 0)
                        v = shape[j] / d.scale;
                    else if (v * d.scale != shape[j])
                        throw EvalError("'" + t.name + "' disagrees on axis '" +
                                        op_.axes[static_cast<size_t>(d.axis)].name + "'");
                }
            }
            buffers_[t.name] = std::move(b);
        }
        for (size_t a = 0; a < axis_.size(); ++a) { // a merged row: the product of its parts
            if (op_.axes[a].parts.empty() || axis_[a] >= 0) continue;
            axis_[a] = 1;
            for (int p : op_.axes[a].parts)
                axis_[a] *= axis_[static_cast<size_t>(p)];
        }
        for (size_t a = 0; a < axis_.size(); ++a)
            if (axis_[a] < 0) throw EvalError("no value for axis '" + op_.axes[a].name + "'");
        for (const Tensor& t : op_.inputs)
            if (t.role != Role::Scalar) {
                Buffer& b = buffers_[t.name];
                b.row_length = dim(column_dim(t));
                int64_t total = 1;
                for (const Dim& d : t.shape)
                    total *= dim(d);
                if (static_cast<int64_t>(b.data.size()) != total)
                    throw EvalError("'" + t.name + "' has the wrong number of elements");
            }
    }

    // Row r's coordinate along row_axes[position] (row-major over the row axes).
    int64_t row_coordinate(int64_t r, int position) const {
        for (size_t k = op_.row_axes.size(); k-- > static_cast<size_t>(position) + 1;)
            r /= axis_[static_cast<size_t>(op_.row_axes[k])];
        return r % axis_[static_cast<size_t>(op_.row_axes[static_cast<size_t>(position)])];
    }

    // Where row r of the op starts in t, in elements: a broadcast tensor
    // starts at the offset of the row coordinates it follows.
    int64_t row_start(const Tensor& t, int64_t r) const {
        if (t.role == Role::Column) return 0;
        int64_t per_row = t.role == Role::Rows || t.role == Role::Table ? dim(column_dim(t)) : 1;
        if (!is_broadcast(t)) return r * per_row;
        int64_t at = 0;
        for (int p : t.row_subset)
            at = at * axis_[static_cast<size_t>(op_.row_axes[static_cast<size_t>(p)])] +
                 row_coordinate(r, p);
        return at * per_row;
    }

    double load(const Node& n, int64_t r, int64_t c) const {
        const Tensor& t = op_.inputs[static_cast<size_t>(n.index)];
        const Buffer& b = buffers_.at(t.name);
        int64_t at = row_start(t, r);
        if (t.role != Role::PerRow) {
            int64_t col = !n.fixed_column       ? c
                          : *n.fixed_column < 0 ? b.row_length + *n.fixed_column
                                                : *n.fixed_column;
            if (n.col_offset) col += dim(*n.col_offset);
            if (n.col_wrap) col %= dim(*n.col_wrap);
            if (n.col_div) col /= dim(*n.col_div);
            if (col < 0 || col >= b.row_length) throw EvalError("read outside '" + t.name + "'");
            at += col;
        }
        if (at < 0 || at >= static_cast<int64_t>(b.data.size()))
            throw EvalError("read outside '" + t.name + "'");
        return b.data[static_cast<size_t>(at)];
    }

    double eval(const Expr& e, int64_t r, int64_t c) {
        const Node& n = *e;
        auto arg = [&](size_t i) { return eval(n.args[i], r, c); };
        switch (n.op) {
        case Op::Const:
            return n.value;
        case Op::Scalar:
            return inputs_.at(op_.inputs[static_cast<size_t>(n.index)].name).get<double>();
        case Op::AxisSize:
            return static_cast<double>(axis_[static_cast<size_t>(n.index)]);
        case Op::Load:
            return load(n, r, c);
        case Op::Column:
            return static_cast<double>(c);
        case Op::Row:
            return static_cast<double>(row_coordinate(r, n.index));
        case Op::Reduce: {
            if (auto it = memo_.find(&n); it != memo_.end()) return it->second;
            int64_t extent = dim(n.extent);
            double acc = n.reduce_kind == ReduceKind::Sum   ? 0.0
                         : n.reduce_kind == ReduceKind::Max ? -INFINITY
                                                            : INFINITY;
            for (int64_t k = 0; k < extent; ++k) {
                double v = eval(n.args[0], r, k);
                acc = n.reduce_kind == ReduceKind::Sum   ? acc + v
                      : n.reduce_kind == ReduceKind::Max ? std::max(acc, v)
                                                         : std::min(acc, v);
            }
            return memo_[&n] = acc;
        }
        case Op::And:
            return (arg(0) != 0) && (arg(1) != 0);
        case Op::Or:
            return (arg(0) != 0) || (arg(1) != 0);
        case Op::Select:
            return arg(0) != 0 ? arg(1) : arg(2);
        case Op::Cast:
            return round_to(n.dtype, arg(0));
        default:
            break;
        }
        // The rest by the tables' float64 meaning (ir/operators.h, ir/builtins.h).
        if (const Operator* o = find_operator(n.op); o && o->eval)
            return o->eval(arg(0), o->arity == 2 ? arg(1) : 0.0);
        if (const Builtin* b = find_builtin(n.op))
            return b->eval(arg(0), b->arity == 2 ? arg(1) : 0.0);
        return 0;
    }

    nlohmann::json shape_like(const Tensor& t, const std::vector<double>& flat) const {
        if (t.flat || t.shape.size() <= 1) return flat;
        std::vector<int64_t> dims;
        for (const Dim& d : real_shape(op_, t))
            dims.push_back(dim(d));
        size_t at = 0;
        std::function<nlohmann::json(size_t)> build = [&](size_t depth) {
            nlohmann::json a = nlohmann::json::array();
            for (int64_t i = 0; i < dims[depth]; ++i)
                a.push_back(depth + 1 == dims.size() ? nlohmann::json(flat[at++])
                                                     : build(depth + 1));
            return a;
        };
        return build(0);
    }

    const OpIR& op_;
    const nlohmann::json& inputs_;
    std::vector<int64_t> axis_;
    std::map<std::string, Buffer> buffers_;
    std::map<const Node*, double> memo_;
};

} // namespace

nlohmann::json evaluate(const OpIR& op, const nlohmann::json& inputs) {
    if (row_set_count(op) == 1) return Evaluator(op, inputs).run();
    // Several row sets: each computes its own outputs; the result keeps the op's order.
    nlohmann::json parts = nlohmann::json::object();
    for (int k = 0; k < row_set_count(op); ++k)
        parts.update(Evaluator(project(op, k), inputs).run());
    nlohmann::json result = nlohmann::json::object();
    for (const Tensor& t : op.outputs)
        result[t.name] = parts[t.name];
    return result;
}

} // namespace solbench::ir
