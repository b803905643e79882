// Prints the op IR as a float32 PyTorch reference implementation.
#include "codegen/reference_printer.h"

#include "ir/operators.h"

#include "codegen/expr_printer.h"
#include "ir/builtins.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

namespace solbench::codegen {

using ir::Dim;
using ir::Node;
using ir::Op;
using ir::Role;

namespace {

std::string py_float(double v) {
    if (std::isinf(v)) return v > 0 ? "math.inf" : "-math.inf";
    if (std::isnan(v)) return "math.nan";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, end);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return v < 0 ? "(" + s + ")" : s;
}

const char* torch_dtype(ir::DType t) {
    switch (t) {
    case ir::DType::BFloat16:
        return "torch.bfloat16";
    case ir::DType::Float16:
        return "torch.float16";
    case ir::DType::Float64:
        return "torch.float64";
    case ir::DType::Int32:
        return "torch.int32";
    case ir::DType::Int64:
        return "torch.int64";
    case ir::DType::Bool:
        return "torch.bool";
    case ir::DType::Float32:
        return "torch.float32";
    case ir::DType::Int8:
        return "torch.int8";
    case ir::DType::Int16:
        return "torch.int16";
    case ir::DType::UInt8:
        return "torch.uint8";
    case ir::DType::Float8E4M3:
        return "torch.float8_e4m3fn";
    case ir::DType::Float8E5M2:
        return "torch.float8_e5m2";
    }
    return "torch.float32";
}

// `.to(dtype)`, saturating first for FP8 E4M3 (logos-ops.md §6: torch's own
// conversion gives NaN past its range, the op's saturates at +-448).
std::string to_dtype(ir::DType t) {
    std::string to = std::string(".to(") + torch_dtype(t) + ")";
    return t == ir::DType::Float8E4M3 ? ".clamp(-448.0, 448.0)" + to : to;
}

bool has_tensor(const Node& n) {
    if (n.op == Op::Load || n.op == Op::Reduce || n.op == Op::Column || n.op == Op::Row)
        return true;
    for (const auto& a : n.args)
        if (has_tensor(*a)) return true;
    return false;
}

class ReferencePrinter {
  public:
    explicit ReferencePrinter(const ir::OpIR& op) : op_(op) { uses_ = use_counts(op.values); }

    // The whole reference: the signature and inputs, every output, the return.
    std::string run() {
        preamble();
        std::vector<std::string> results;
        print_outputs(results);
        finish(results);
        return out_.str();
    }

    // An op of several row sets: each set's outputs printed by a printer of the
    // set alone (its row axes shape the broadcasts), temporaries numbered on.
    std::string run_row_sets() {
        preamble();
        std::vector<std::string> results;
        for (int k = 0; k < ir::row_set_count(op_); ++k) {
            const ir::OpIR set = ir::project(op_, k); // outlives the printer that refers to it
            ReferencePrinter part(set);
            part.next_ = next_;
            part.print_outputs(results);
            next_ = part.next_;
            out_ << part.out_.str();
        }
        std::vector<std::string> ordered; // the op's output order
        for (const auto& t : op_.outputs)
            ordered.push_back(t.name);
        finish(ordered);
        return out_.str();
    }

  private:
    void preamble() {
        std::vector<std::string> params;
        for (const auto& t : op_.inputs)
            params.push_back(t.name);
        line("import math");
        line("");
        line("import torch");
        line("");
        line("");
        std::string sig = "def run(";
        for (size_t i = 0; i < params.size(); ++i)
            sig += (i ? ", " : "") + params[i];
        line(sig + "):");
        bind_axes();
        for (size_t i = 0; i < op_.inputs.size(); ++i) {
            const auto& t = op_.inputs[i];
            if (t.tensor_scalar())
                body(t.name + " = " + (t.dtype == ir::DType::Bool ? "bool(" : "float(") + t.name +
                     (t.scalar_form == ir::ScalarForm::ZeroD ? ")  # a 0-d tensor"
                                                             : ")  # a one-element tensor"));
            // A merged row's tensor is viewed with the row as one axis (r2 §8).
            if (t.role != Role::Scalar)
                body(t.name + "_f = " + t.name + ".float()" +
                     (merged(t) ? ".reshape(" + shape_of(t) + ")" : ""));
        }
    }

    void print_outputs(std::vector<std::string>& results) {
        for (size_t i = 0; i < op_.outputs.size(); ++i) {
            const auto& t = op_.outputs[i];
            std::optional<Dim> extent;
            if (t.role == Role::Rows || t.role == Role::ColumnSum) extent = t.shape.back();
            const Node& value = *op_.values[i];
            std::string v = print(op_.values[i], extent);
            std::string shaped = v;
            // A value that reads no input over every row (a weight, a scalar, a
            // per-head value) is broadcast to the rows first.
            if (t.role == Role::PerRow) {
                bool kept = static_cast<size_t>(t.rank()) > op_.row_axes.size();
                if (!covers_rows(value))
                    shaped = "torch.as_tensor(" + strip(v) + ", device=" + device() + ").expand(" +
                             row_sizes() + ", 1)";
                shaped = kept ? as_operand(shaped) + ".reshape(" + shape_of(t) + ")"
                              : as_operand(shaped) + ".squeeze(-1)";
            } else if (t.role == Role::RowSum) {
                // A sum over rows: the per-row value, summed in fp32 over the rows it
                // does not keep.
                if (!covers_rows(value))
                    shaped = "torch.as_tensor(" + strip(v) + ", device=" + device() + ").expand(" +
                             row_sizes() + ", 1)";
                shaped =
                    as_operand(shaped) + ".squeeze(-1).float().sum(dim=" + summed_dims(t) + ")";
            } else if (t.role == Role::ColumnSum) {
                // A column reduction: the value over every row, summed in fp32 over the
                // rows it does not keep.
                if (!covers_rows(value) || !column_dependent(value))
                    shaped = "torch.as_tensor(" + strip(v) + ", device=" + device() + ").expand(" +
                             row_sizes() + ", " + dim(t.shape.back()) + ")";
                shaped = as_operand(shaped) + ".float().sum(dim=" + summed_dims(t) + ")";
            } else if (!covers_rows(value) || !column_dependent(value)) {
                shaped = "torch.as_tensor(" + strip(v) + ", device=" + device() + ").expand(" +
                         shape_of(t) + ")";
            }
            std::string name = t.name;
            body(name + " = " + as_operand(shaped) + to_dtype(t.dtype) +
                 (merged(t) ? ".reshape(" + real_shape_of(t) + ")" : ""));
            results.push_back(name);
        }
    }

    void finish(const std::vector<std::string>& results) {
        std::string ret = results.size() == 1 ? results[0] : "";
        if (results.size() > 1)
            for (size_t i = 0; i < results.size(); ++i)
                ret += (i ? ", " : "") + results[i];
        body("return " + ret);
    }

    void line(const std::string& s) { out_ << s << "\n"; }

    // `s` as the receiver of a method call: parenthesized unless it is a name,
    // a call or already parenthesized.
    static std::string as_operand(const std::string& s) {
        bool simple = true;
        int depth = 0;
        for (char c : s) {
            if (c == '(' || c == '[') ++depth;
            if (c == ')' || c == ']') --depth;
            if (depth == 0 && (c == ' ' || c == '-' || c == '*' || c == '/' || c == '+'))
                simple = false;
        }
        return simple ? s : "(" + s + ")";
    }
    void body(const std::string& s) { out_ << "    " << s << "\n"; }

    static std::string strip(const std::string& s) {
        if (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
            int depth = 0;
            for (size_t i = 0; i < s.size(); ++i) {
                if (s[i] == '(') ++depth;
                if (s[i] == ')' && --depth == 0 && i + 1 != s.size()) return s;
            }
            return s.substr(1, s.size() - 2);
        }
        return s;
    }

    // Axis sizes as Python values: constants, or read from the first tensor with the axis.
    void bind_axes() {
        std::vector<bool> bound(op_.axes.size(), false);
        for (const auto& t : op_.inputs) {
            const std::vector<Dim> shape = ir::real_shape(op_, t);
            for (size_t d = 0; d < shape.size(); ++d) {
                const Dim& dim = shape[d];
                if (bound[dim.axis] || op_.axes[dim.axis].value) continue;
                bound[dim.axis] = true;
                std::string size = t.name + ".shape[" + std::to_string(d) + "]";
                body(op_.axes[dim.axis].name + " = " + size +
                     (dim.scale == 1 ? "" : " // " + std::to_string(dim.scale)));
            }
        }
        for (size_t a = 0; a < op_.axes.size(); ++a)
            if (op_.axes[a].value)
                body(op_.axes[a].name + " = " + std::to_string(*op_.axes[a].value));
        for (const ir::Axis& a : op_.axes) { // a merged row: the product of its parts
            if (a.parts.empty() || a.value) continue;
            std::string product;
            for (int p : a.parts)
                product += (product.empty() ? "" : " * ") + op_.axes[static_cast<size_t>(p)].name;
            body(a.name + " = " + product);
        }
    }

    bool merged(const ir::Tensor& t) const {
        return ir::real_shape(op_, t).size() != t.shape.size();
    }
    std::string real_shape_of(const ir::Tensor& t) const {
        std::string s;
        for (const Dim& d : ir::real_shape(op_, t))
            s += (s.empty() ? "" : ", ") + dim(d);
        return s;
    }

    std::string dim(const Dim& d) const {
        const std::string& a = op_.axes[d.axis].name;
        return d.scale == 1 ? a : std::to_string(d.scale) + " * " + a;
    }

    std::string shape_of(const ir::Tensor& t) const {
        std::string s;
        for (size_t i = 0; i < t.shape.size(); ++i)
            s += (i ? ", " : "") + dim(t.shape[i]);
        return s;
    }

    // Where a tensor made here lives: the inputs' device (an op of scalars alone: CUDA
    // where there is one, as the harness runs it).
    std::string device() const {
        for (const auto& t : op_.inputs)
            if (t.role != Role::Scalar && t.role != Role::Unread) return t.name + ".device";
        return "(\"cuda\" if torch.cuda.is_available() else \"cpu\")";
    }

    // The row dimensions a column sum adds over: those it does not keep.
    std::string summed_dims(const ir::Tensor& t) const {
        std::vector<std::string> dims;
        for (int p = 0; p < static_cast<int>(op_.row_axes.size()); ++p)
            if (std::find(t.row_subset.begin(), t.row_subset.end(), p) == t.row_subset.end())
                dims.push_back(std::to_string(p));
        std::string text;
        for (const std::string& d : dims)
            text += (text.empty() ? "" : ", ") + d;
        return "(" + text + (dims.size() == 1 ? ",)" : ")");
    }

    std::string row_sizes() const {
        std::string s;
        for (size_t i = 0; i < op_.row_axes.size(); ++i)
            s += (i ? ", " : "") + op_.axes[static_cast<size_t>(op_.row_axes[i])].name;
        return s;
    }

    // Whether n's value has every row axis: it reads a row or per-row input
    // that is not broadcast over some of them.
    bool covers_rows(const Node& n) const {
        if (n.op == Op::Load) {
            const auto& t = op_.inputs[n.index];
            return (t.role == Role::Rows || t.role == Role::PerRow || t.role == Role::Table) &&
                   !ir::is_broadcast(t);
        }
        for (const auto& a : n.args)
            if (covers_rows(*a)) return true;
        return false;
    }

    bool column_dependent(const Node& n) const {
        if (n.op == Op::Load) return !n.fixed_column && op_.inputs[n.index].role != Role::PerRow;
        if (n.op == Op::Column) return true;
        if (n.op == Op::Reduce) return false;
        for (const auto& a : n.args)
            if (column_dependent(*a)) return true;
        return false;
    }

    // A broadcast tensor, or one with kept axes of 1, viewed with the
    // outputs' rank: its own sizes on the axes it follows, 1 elsewhere.
    std::string broadcast_view(const ir::Tensor& t) const {
        std::vector<int> follows = ir::followed_rows(op_, t);
        size_t own = follows.size() + (t.role == Role::PerRow ? 0 : 1);
        if (!ir::is_broadcast(t) && static_cast<size_t>(t.rank()) == own) return "";
        std::vector<std::string> sizes(op_.row_axes.size(), "1");
        for (int p : follows)
            sizes[static_cast<size_t>(p)] = op_.axes[op_.row_axes[static_cast<size_t>(p)]].name;
        sizes.push_back(t.role == Role::PerRow ? "1" : dim(ir::column_dim(t)));
        std::string out;
        for (size_t i = 0; i < sizes.size(); ++i)
            out += (i ? ", " : "") + sizes[i];
        return ".reshape(" + out + ")";
    }

    std::string load(const Node& n, const std::optional<Dim>& extent) {
        const auto& t = op_.inputs[n.index];
        std::string v = t.name + "_f";
        if (std::string view = broadcast_view(t); !view.empty()) {
            v += view;
            if (t.role == Role::PerRow) return v;
        } else if (t.role == Role::PerRow) {
            return v + ".unsqueeze(-1)";
        }
        if (n.fixed_column) { // a Table's value at one position of the row, kept 2-d
            const int64_t k = *n.fixed_column;
            return v + "[..., " + std::to_string(k) + ":" + (k == -1 ? "" : std::to_string(k + 1)) +
                   "]";
        }
        Dim last = ir::column_dim(t);
        if (n.col_div) // over a merged row's outer axis: each column repeated for the inner ones
            return v + ".repeat_interleave(" + dim(*n.col_div) + ", dim=-1)";
        if (n.col_wrap) { // a read by a select on the column: its columns, modulo the width
            std::string start = n.col_offset ? dim(*n.col_offset) + " + " : "";
            return v + "[..., (" + start + "torch.arange(" + dim(extent ? *extent : last) +
                   ", device=" + v + ".device)) % (" + dim(*n.col_wrap) + ")]";
        }
        bool whole = !n.col_offset && extent && *extent == last;
        if (whole) return v;
        std::string start = n.col_offset ? dim(*n.col_offset) : "0";
        std::string len = extent ? dim(*extent) : dim(last);
        std::string stop = start == "0" ? len : start + " + " + len;
        return v + "[..., " + (start == "0" ? "" : start) + ":" + stop + "]";
    }

    std::string print(const ir::Expr& e, const std::optional<Dim>& extent) {
        // Column-invariant values are the same in every context.
        bool invariant = !column_dependent(*e);
        auto key = std::make_pair(e.get(), invariant || !extent ? std::string() : dim(*extent));
        if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        std::string v = print_node(*e, extent);
        bool leaf =
            e->op == Op::Const || e->op == Op::Scalar || e->op == Op::AxisSize || e->op == Op::Load;
        auto u = uses_.find(e.get());
        if (!leaf && (e->op == Op::Reduce || (u != uses_.end() && u->second > 1))) {
            std::string name = "t" + std::to_string(next_++);
            body(name + " = " + strip(v));
            v = name;
        }
        memo_[key] = v;
        return v;
    }

    std::string print_node(const Node& n, const std::optional<Dim>& extent) {
        auto a = [&](size_t i) { return print(n.args[i], extent); };
        const bool tensor = has_tensor(n);
        auto fn = [&](const char* torch_fn, const char* math_fn) {
            return std::string(tensor ? torch_fn : math_fn) + "(" + strip(a(0)) + ")";
        };
        auto infix = [&](const char* op) { return "(" + a(0) + op + a(1) + ")"; };
        auto flag = [&](const std::string& cond) {
            return tensor ? "(" + cond + ").float()" : "float(" + cond + ")";
        };
        switch (n.op) {
        case Op::Const:
            return py_float(n.value);
        case Op::Scalar:
            return op_.inputs[n.index].name;
        case Op::AxisSize:
            return op_.axes[n.index].name;
        case Op::Load:
            return load(n, extent);
        case Op::Reduce: {
            if (!column_dependent(*n.args[0])) {
                // The same term at every column: a sum is extent times it, a max or min it.
                std::string term = print(n.args[0], n.extent);
                if (!has_tensor(*n.args[0]))
                    term = "torch.as_tensor(" + strip(term) + ", device=" + device() + ")";
                if (n.reduce_kind != ir::ReduceKind::Sum) return term;
                return "(" + term + " * " + dim(n.extent) + ")";
            }
            const char* f = n.reduce_kind == ir::ReduceKind::Sum   ? "torch.sum"
                            : n.reduce_kind == ir::ReduceKind::Max ? "torch.amax"
                                                                   : "torch.amin";
            return std::string(f) + "(" + strip(print(n.args[0], n.extent)) +
                   ", dim=-1, keepdim=True)";
        }
        case Op::Row: { // [1, .., size, .., 1, 1]: the coordinates along one row axis
            std::vector<std::string> sizes(op_.row_axes.size() + 1, "1");
            std::string size =
                op_.axes[static_cast<size_t>(op_.row_axes[static_cast<size_t>(n.index)])].name;
            sizes[static_cast<size_t>(n.index)] = size;
            std::string shape;
            for (size_t i = 0; i < sizes.size(); ++i)
                shape += (i ? ", " : "") + sizes[i];
            return "torch.arange(" + size + ", dtype=torch.float32, device=" + device() +
                   ").reshape(" + shape + ")";
        }
        case Op::Column: // the columns of this context, 0-based
            return "torch.arange(" + (extent ? dim(*extent) : std::string("1")) +
                   ", dtype=torch.float32, device=" + device() + ")";
        case Op::Mod:
            return tensor ? "torch.fmod(" + a(0) + ", " + a(1) + ")"
                          : "math.fmod(" + a(0) + ", " + a(1) + ")";
        case Op::IntDiv:
            return tensor ? "torch.trunc(" + a(0) + " / " + a(1) + ")"
                          : "float(math.trunc(" + a(0) + " / " + a(1) + "))";
        case Op::Neg:
            return "(-" + a(0) + ")";
        case Op::And:
            return flag("(" + a(0) + " != 0) & (" + a(1) + " != 0)");
        case Op::Or:
            return flag("(" + a(0) + " != 0) | (" + a(1) + " != 0)");
        case Op::Not:
            return flag(a(0) + " == 0");
        case Op::Select:
            if (!tensor) return "(" + a(1) + " if " + a(0) + " != 0 else " + a(2) + ")";
            return "torch.where(torch.as_tensor(" + a(0) + " != 0), " + a(1) + ", " + a(2) + ")";
        case Op::Sigmoid:
            return tensor ? "torch.sigmoid(" + strip(a(0)) + ")"
                          : "(1.0 / (1.0 + math.exp(-" + a(0) + ")))";
        case Op::Max:
        case Op::Min: {
            bool t0 = has_tensor(*n.args[0]), t1 = has_tensor(*n.args[1]);
            const char* both = n.op == Op::Max ? "torch.maximum" : "torch.minimum";
            const char* bound = n.op == Op::Max ? "min" : "max";
            if (t0 && t1) return std::string(both) + "(" + a(0) + ", " + a(1) + ")";
            if (t0) return "torch.clamp(" + a(0) + ", " + bound + "=" + a(1) + ")";
            if (t1) return "torch.clamp(" + a(1) + ", " + bound + "=" + a(0) + ")";
            return std::string(n.op == Op::Max ? "max(" : "min(") + a(0) + ", " + a(1) + ")";
        }
        case Op::Pow:
            return tensor ? "torch.pow(" + a(0) + ", " + a(1) + ")"
                          : "(" + a(0) + " ** " + a(1) + ")";
        case Op::Cast:
            if (n.dtype == ir::DType::Float32 || n.dtype == ir::DType::Float64) return a(0);
            if (!tensor)
                return "torch.tensor(" + a(0) + ")" + to_dtype(n.dtype) + ".float().item()";
            return strip(a(0)) == a(0) ? a(0) + to_dtype(n.dtype) + ".float()"
                                       : "(" + strip(a(0)) + ")" + to_dtype(n.dtype) + ".float()";
        default:
            break;
        }
        // Infix arithmetic and comparisons, spelt by the operator table (as in Python).
        if (const ir::Operator* o = ir::find_operator(n.op); o && !o->infix.empty()) {
            if (o->kind == ir::OperatorKind::Comparison) return flag(a(0) + o->infix.data() + a(1));
            return infix(o->infix.data());
        }
        // The plain unary builtins, with the table's torch and Python spellings.
        if (const ir::Builtin* b = ir::find_builtin(n.op); b && b->arity == 1 && !b->python.empty())
            return fn(std::string(b->torch).c_str(), std::string(b->python).c_str());
        return "0.0";
    }

    const ir::OpIR& op_;
    std::map<const Node*, int> uses_;
    std::map<std::pair<const Node*, std::string>, std::string> memo_;
    std::ostringstream out_;
    int next_ = 0;
};

} // namespace

std::string print_reference(const ir::OpIR& op) {
    if (ir::row_set_count(op) > 1) return ReferencePrinter(op).run_row_sets();
    return ReferencePrinter(op).run();
}

} // namespace solbench::codegen
