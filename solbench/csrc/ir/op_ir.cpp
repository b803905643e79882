// Op IR builders, dependency order of reductions, and the printed form.
#include "ir/op_ir.h"

#include "ir/builtins.h"
#include "ir/operators.h"
#include "ir/walk.h"

#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace solbench::ir {

const char* to_string(ReduceKind k) {
    switch (k) {
    case ReduceKind::Sum:
        return "sum";
    case ReduceKind::Max:
        return "max";
    case ReduceKind::Min:
        return "min";
    }
    return "sum";
}

const char* to_string(Op op) {
    if (const Operator* o = find_operator(op)) return o->name.data();
    if (const Builtin* b = find_builtin(op)) return b->name.data();
    return "?";
}

int arity(Op op) {
    if (const Operator* o = find_operator(op)) return o->arity;
    if (const Builtin* b = find_builtin(op)) return b->arity;
    return 2;
}

namespace {
Expr make(Node n) {
    return std::make_shared<const Node>(std::move(n));
}
} // namespace

Expr constant(double v) {
    Node n;
    n.op = Op::Const;
    n.value = v;
    return make(std::move(n));
}

Expr scalar(int input) {
    Node n;
    n.op = Op::Scalar;
    n.index = input;
    return make(std::move(n));
}

Expr axis_size(int axis) {
    Node n;
    n.op = Op::AxisSize;
    n.index = axis;
    return make(std::move(n));
}

Expr load(int input, std::optional<Dim> col_offset, std::optional<Dim> col_wrap,
          std::optional<Dim> col_div) {
    Node n;
    n.op = Op::Load;
    n.index = input;
    n.col_offset = col_offset;
    n.col_wrap = col_wrap;
    n.col_div = col_div;
    return make(std::move(n));
}

Expr column_index() {
    Node n;
    n.op = Op::Column;
    return make(std::move(n));
}

Expr row_index(int position) {
    Node n;
    n.op = Op::Row;
    n.index = position;
    return make(std::move(n));
}

Expr load_fixed(int input, int64_t column) {
    Node n;
    n.op = Op::Load;
    n.index = input;
    n.fixed_column = column;
    return make(std::move(n));
}

Expr reduce(ReduceKind kind, Expr element, Dim extent) {
    Node n;
    n.op = Op::Reduce;
    n.reduce_kind = kind;
    n.extent = extent;
    n.args = {std::move(element)};
    return make(std::move(n));
}

namespace {
bool is_const(const Expr& e, double v) {
    return e->op == Op::Const && e->value == v;
}
} // namespace

// The builders fold the identities that keep every value (x + 0, x * 1, x / 1,
// -(-x)), so that one computation has one IR however it is spelt: `v + 0.0`
// is the `v` a max was seeded with. (x + 0 turns -0 into +0: equal values.)
Expr unary(Op op, Expr a) {
    if (op == Op::Neg && a->op == Op::Neg) return a->args[0];
    Node n;
    n.op = op;
    n.args = {std::move(a)};
    return make(std::move(n));
}

Expr binary(Op op, Expr a, Expr b) {
    if ((op == Op::Add || op == Op::Sub) && is_const(b, 0)) return a;
    if (op == Op::Add && is_const(a, 0)) return b;
    if ((op == Op::Mul || op == Op::Div) && is_const(b, 1)) return a;
    if (op == Op::Mul && is_const(a, 1)) return b;
    Node n;
    n.op = op;
    n.args = {std::move(a), std::move(b)};
    return make(std::move(n));
}

Expr select(Expr c, Expr a, Expr b) {
    if (a.get() == b.get()) return a; // both branches give the same node
    // select(a != 0, a, 0) is a (what a guard `If v is not equal to 0.0` keeps of v).
    if (c->op == Op::Ne && is_const(b, 0) && is_const(c->args[1], 0) && same(c->args[0], a))
        return a;
    Node n;
    n.op = Op::Select;
    n.args = {std::move(c), std::move(a), std::move(b)};
    return make(std::move(n));
}

Expr cast(DType t, Expr a) {
    Node n;
    n.op = Op::Cast;
    n.dtype = t;
    n.args = {std::move(a)};
    return make(std::move(n));
}

std::vector<Dim> real_shape(const OpIR& op, const Tensor& t) {
    std::vector<Dim> shape;
    for (size_t i = 0; i < t.shape.size(); ++i) {
        const Dim& d = t.shape[i];
        if (static_cast<int>(i) == t.joined && i + 1 < t.shape.size()) {
            // groups x the next dimension's first part: one dimension
            const int64_t k = d.scale * op.axes[static_cast<size_t>(d.axis)].value.value_or(1);
            const Dim& next = t.shape[++i];
            const std::vector<int>& parts = op.axes[static_cast<size_t>(next.axis)].parts;
            if (parts.empty()) {
                shape.push_back(Dim{next.axis, k * next.scale});
                continue;
            }
            shape.push_back(Dim{parts.front(), k});
            for (size_t j = 1; j < parts.size(); ++j)
                shape.push_back(Dim{parts[j], 1});
            continue;
        }
        const std::vector<int>& parts = op.axes[static_cast<size_t>(d.axis)].parts;
        if (parts.empty()) {
            shape.push_back(d);
            continue;
        }
        for (int p : parts)
            shape.push_back(Dim{p, 1});
    }
    return shape;
}

std::vector<int> followed_rows(const OpIR& op, const Tensor& t) {
    if (t.role != Role::Rows && t.role != Role::PerRow && t.role != Role::Table) return {};
    if (is_broadcast(t)) return t.row_subset;
    std::vector<int> all(row_axes_of(op, t.row_set).size());
    for (size_t k = 0; k < all.size(); ++k)
        all[k] = static_cast<int>(k);
    return all;
}

const std::vector<int>& row_axes_of(const OpIR& op, int set) {
    return set == 0 ? op.row_axes : op.other_row_axes[static_cast<size_t>(set - 1)];
}

OpIR project(const OpIR& op, int set) {
    OpIR part = op;
    part.row_axes = row_axes_of(op, set);
    part.other_row_axes.clear();
    part.outputs.clear();
    part.values.clear();
    part.value_pos.clear();
    std::set<int> read;
    for (size_t i = 0; i < op.outputs.size(); ++i) {
        if (op.outputs[i].row_set != set) continue;
        Tensor t = op.outputs[i];
        t.row_set = 0;
        part.outputs.push_back(t);
        part.values.push_back(op.values[i]);
        part.value_pos.push_back(op.value_pos[i]);
        visit(op.values[i], [&](const Node& n) {
            if (n.op == Op::Load || n.op == Op::Scalar) read.insert(n.index);
        });
    }
    if (op.other_row_axes.empty()) return part;
    // The set's own column axis: its rows' length, a column sum's, or its reductions'.
    std::optional<int> column;
    for (const Tensor& t : part.outputs)
        if (!column && (t.role == Role::Rows || t.role == Role::ColumnSum) && !t.shape.empty())
            column = column_dim(t).axis;
    for (const Expr& v : part.values)
        if (!column)
            visit(v, [&](const Node& n) {
                if (!column && n.op == Op::Reduce) column = n.extent.axis;
            });
    if (column) part.column_axis = *column;
    for (size_t k = 0; k < part.inputs.size(); ++k) {
        Tensor& t = part.inputs[k];
        t.row_set = 0; // its positions are the same in every set that reads it
        if (read.count(static_cast<int>(k)) || t.role == Role::Scalar || t.role == Role::Unread)
            continue;
        t.role = Role::Unread;
        t.row_subset.clear();
        t.column = -1;
    }
    return part;
}

std::vector<Expr> reductions_in_order(const OpIR& op) {
    std::vector<Expr> order;
    std::set<const Node*> seen;
    // Post-order: a Reduce is listed after every Reduce inside its element.
    std::function<void(const Expr&)> visit = [&](const Expr& e) {
        if (!seen.insert(e.get()).second) return;
        for (const Expr& a : e->args)
            visit(a);
        if (e->op == Op::Reduce) order.push_back(e);
    };
    for (const Expr& v : op.values)
        visit(v);
    return order;
}

namespace {

std::string format_number(double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    std::string t = s.str();
    // Shortest form that reads back to the same double.
    for (int p = 1; p <= 17; ++p) {
        std::ostringstream q;
        q.precision(p);
        q << v;
        if (std::stod(q.str()) == v) return q.str();
    }
    return t;
}

std::string dim_text(const OpIR& op, const Dim& d) {
    std::string name = d.axis >= 0 && d.axis < static_cast<int>(op.axes.size())
                           ? op.axes[static_cast<size_t>(d.axis)].name
                           : "?";
    return d.scale == 1 ? name : std::to_string(d.scale) + "*" + name;
}

struct Printer {
    const OpIR& op;
    const std::map<const Node*, std::string>& reduce_names;

    std::string operator()(const Expr& e) const {
        if (auto it = reduce_names.find(e.get()); it != reduce_names.end()) return it->second;
        const Node& n = *e;
        switch (n.op) {
        case Op::Const:
            return format_number(n.value);
        case Op::Scalar:
            return op.inputs[static_cast<size_t>(n.index)].name;
        case Op::AxisSize:
            return op.axes[static_cast<size_t>(n.index)].name;
        case Op::Load: {
            const Tensor& t = op.inputs[static_cast<size_t>(n.index)];
            std::string col = n.fixed_column ? std::to_string(*n.fixed_column) : "c";
            if (n.col_offset) col += " + " + dim_text(op, *n.col_offset);
            if (n.col_wrap) col = "(" + col + ") % (" + dim_text(op, *n.col_wrap) + ")";
            if (n.col_div) col = col + " / " + dim_text(op, *n.col_div);
            std::string row = "r";
            if (is_broadcast(t)) {
                row += ":";
                for (size_t k = 0; k < t.row_subset.size(); ++k)
                    row += (k ? "," : "") +
                           op.axes[static_cast<size_t>(
                                       op.row_axes[static_cast<size_t>(t.row_subset[k])])]
                               .name;
            }
            if (t.role == Role::PerRow) return t.name + "[" + row + "]";
            return t.name +
                   (t.role == Role::Column ? "[" + col + "]" : "[" + row + ", " + col + "]");
        }
        case Op::Column:
            return "c";
        case Op::Row: // the row's coordinate along one row axis
            return "index(" +
                   op.axes[static_cast<size_t>(op.row_axes[static_cast<size_t>(n.index)])].name +
                   ")";
        case Op::Reduce:
            return std::string(to_string(n.reduce_kind)) + "_c(" + (*this)(n.args[0]) + ")";
        case Op::Cast:
            return std::string("(") + (*this)(n.args[0]) + " as " + benchmark_name(n.dtype) + ")";
        case Op::Neg:
            return "-" + (*this)(n.args[0]);
        case Op::Not:
            return "not " + (*this)(n.args[0]);
        case Op::Select:
            return "select(" + (*this)(n.args[0]) + ", " + (*this)(n.args[1]) + ", " +
                   (*this)(n.args[2]) + ")";
        default:
            break;
        }
        if (arity(n.op) == 1) return std::string(to_string(n.op)) + "(" + (*this)(n.args[0]) + ")";
        bool infix = n.op == Op::Add || n.op == Op::Sub || n.op == Op::Mul || n.op == Op::Div ||
                     n.op == Op::Mod || (n.op >= Op::Lt && n.op <= Op::Or);
        if (infix)
            return "(" + (*this)(n.args[0]) + " " + to_string(n.op) + " " + (*this)(n.args[1]) +
                   ")";
        return std::string(to_string(n.op)) + "(" + (*this)(n.args[0]) + ", " + (*this)(n.args[1]) +
               ")";
    }
};

std::map<const Node*, std::string> name_reductions(const OpIR& op) {
    std::map<const Node*, std::string> names;
    int i = 0;
    for (const Expr& r : reductions_in_order(op))
        names[r.get()] = "red" + std::to_string(i++);
    return names;
}

std::string shape_text(const OpIR& op, const Tensor& t) {
    if (t.role == Role::Scalar) return "scalar";
    std::string s = "[";
    for (size_t i = 0; i < t.shape.size(); ++i)
        s += (i ? ", " : "") + dim_text(op, t.shape[i]);
    return s + "]";
}

} // namespace

std::string print(const OpIR& op, const Expr& e) {
    static const std::map<const Node*, std::string> none;
    return Printer{op, none}(e);
}

namespace {

// Nodes used more than once (other than leaves) are printed once, as named
// temporaries, so the text stays linear in the size of the expression DAG.
std::vector<const Node*> shared_nodes(const OpIR& op) {
    std::map<const Node*, int> uses;
    std::vector<const Node*> order;
    std::function<void(const Expr&)> count = [&](const Expr& e) {
        if (uses[e.get()]++ > 0) return;
        for (const Expr& a : e->args)
            count(a);
        order.push_back(e.get()); // post-order: operands first
    };
    for (const Expr& v : op.values)
        count(v);
    std::vector<const Node*> shared;
    for (const Node* n : order)
        if (uses[n] > 1 && n->op != Op::Reduce && arity(n->op) > 0) shared.push_back(n);
    return shared;
}

void print_values(const OpIR& op, std::ostream& out);

} // namespace

std::string print(const OpIR& op) {
    std::ostringstream out;
    out << "op " << op.name << "\n";
    out << "  axes:";
    for (size_t i = 0; i < op.axes.size(); ++i) {
        const Axis& a = op.axes[i];
        out << (i ? ", " : " ") << a.name;
        for (size_t j = 0; j < a.parts.size(); ++j) // a merged row
            out << (j ? " * " : " = ") << op.axes[static_cast<size_t>(a.parts[j])].name;
        if (a.value) out << " = " << *a.value;
    }
    out << "\n";
    auto tensor_line = [&](const char* dir, const Tensor& t) {
        out << "  " << dir << " " << t.name << ": " << benchmark_name(t.dtype) << shape_text(op, t)
            << "\n";
    };
    for (const Tensor& t : op.inputs)
        tensor_line("in ", t);
    for (const Tensor& t : op.outputs)
        tensor_line("out", t);
    if (row_set_count(op) == 1) {
        print_values(op, out);
        return out.str();
    }
    for (int k = 0; k < row_set_count(op); ++k) { // each row set on its own
        out << "  rows [";
        const std::vector<int>& rows = row_axes_of(op, k);
        for (size_t j = 0; j < rows.size(); ++j)
            out << (j ? ", " : "") << op.axes[static_cast<size_t>(rows[j])].name;
        out << "]:\n";
        print_values(project(op, k), out);
    }
    return out.str();
}

namespace {

// The reductions, shared temporaries and output values of an op of one row set.
void print_values(const OpIR& op, std::ostream& out) {
    std::map<const Node*, std::string> names = name_reductions(op);
    std::set<const Node*> reductions;
    for (const auto& [node, name] : names)
        reductions.insert(node);
    // Temporaries and reductions are defined in dependency (post-)order.
    std::map<const Node*, int> order_index;
    std::vector<const Node*> defs;
    {
        std::set<const Node*> seen;
        std::set<const Node*> shared;
        for (const Node* n : shared_nodes(op))
            shared.insert(n);
        std::function<void(const Node*)> visit = [&](const Node* n) {
            if (!seen.insert(n).second) return;
            for (const Expr& a : n->args)
                visit(a.get());
            if (reductions.count(n) || shared.count(n)) defs.push_back(n);
        };
        for (const Expr& v : op.values)
            visit(v.get());
    }
    int temp = 0;
    for (const Node* n : defs) {
        std::map<const Node*, std::string> inner = names;
        inner.erase(n); // print the definition, not the name
        Printer p{op, inner};
        if (n->op == Op::Reduce) {
            out << "  " << names[n] << "[r] = " << to_string(n->reduce_kind) << " over c < "
                << dim_text(op, n->extent) << " of " << p(n->args[0]) << "\n";
        } else {
            std::string name = "t" + std::to_string(temp++);
            // A temporary keeps its node alive through the expressions that own it.
            Expr self(std::shared_ptr<const Node>(), n);
            out << "  " << name << " = " << p(self) << "\n";
            names[n] = name;
        }
    }
    Printer p{op, names};
    for (size_t i = 0; i < op.outputs.size() && i < op.values.size(); ++i) {
        const Tensor& t = op.outputs[i];
        if (t.role == Role::ColumnSum && t.row_subset.empty())
            out << "  " << t.name << "[c] = sum over rows r of " << p(op.values[i]) << "\n";
        else if (t.role == Role::ColumnSum) { // its kept rows lead, as a broadcast read's do
            std::string kept;
            for (int k : t.row_subset)
                kept += (kept.empty() ? "" : ",") +
                        op.axes[static_cast<size_t>(op.row_axes[static_cast<size_t>(k)])].name;
            out << "  " << t.name << "[r:" << kept << ", c] = sum over the other rows of "
                << p(op.values[i]) << "\n";
        } else if (t.role == Role::RowSum) {
            std::string kept;
            for (int k : t.row_subset)
                kept += (kept.empty() ? "" : ",") +
                        op.axes[static_cast<size_t>(op.row_axes[static_cast<size_t>(k)])].name;
            out << "  " << t.name << "[r:" << kept << "] = sum over the other rows of "
                << p(op.values[i]) << "\n";
        } else
            out << "  " << t.name << (t.role == Role::PerRow ? "[r]" : "[r, c]") << " = "
                << p(op.values[i]) << "\n";
    }
}

} // namespace

} // namespace solbench::ir
