// The op IR: what a LOGOS op computes, as row-parallel tensor expressions.
//
// Every op solgen accepts has the same skeleton: a set of ROW axes (all but
// the last axis of the row-shaped tensors) over which rows are independent,
// and a COLUMN axis inside a row. The IR states, for each output, one
// expression that computes an element of it:
//   - a Rows output's expression is evaluated at every column c of the row;
//   - a PerRow output's expression once per row.
// Expressions read inputs at the current row (Load), scalars, axis sizes,
// and row reductions (Reduce: sum/max/min over the columns of an element
// expression, which may itself contain earlier Reduces: softmax's sum of
// exp(x - max)). Nodes are immutable and shared, so a reduction used twice
// is one node.
#pragma once

#include "frontend/source.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace solbench::ir {

// Element types, spelt as the benchmark spells them by benchmark_name().
enum class DType {
    Float32,
    Float16,
    BFloat16,
    Float64,
    Int32,
    Int64,
    Bool,
    Int8,       // r2
    Int16,      // r2
    UInt8,      // r2: a LOGOS type, not a benchmark dtype
    Float8E4M3, // r2: float8_e4m3fn
    Float8E5M2, // r2
};
const char* benchmark_name(DType t); // "float32", "bfloat16", ...
std::optional<DType> dtype_from_benchmark(std::string_view name);
bool is_floating(DType t);
bool is_integer(DType t); // not Bool
// The smallest and largest value of an integer type.
std::pair<int64_t, int64_t> integer_range(DType t);
// Rounds a double to the nearest value of t (nearest-even for floats).
double round_to(DType t, double v);

struct Axis {
    std::string name;
    std::optional<int64_t> value; // set when the axis is a compile-time constant
    // A row of several trailing axes (r2 §8, instance norm's H x W): this axis is
    // the product of these (indices into OpIR::axes, outermost first). A tensor
    // dimension on it stands for their dimensions (see real_shape()).
    std::vector<int> parts;
};

// One dimension of a tensor: `scale * axes[axis]` (scale 2 for a packed
// gate/up axis that holds two halves).
struct Dim {
    int axis = 0;
    int64_t scale = 1;
    friend bool operator==(const Dim&, const Dim&) = default;
};

enum class Role {
    Rows,   // shape [row axes..., column dim]: one row per row index
    Column, // shape [column dim]: a vector broadcast over every row (a weight)
    PerRow, // shape [row axes...]: one value per row (a reduction's output, a per-row scale)
    Scalar, // no shape: a Python scalar argument
    Unread, // an input the op never reads: only its shape and dtype are checked
    // An output of shape [column dim]: per column, the sum over every row of its
    // value, in fp32 (r2 §8 column reductions: grad_weight, grad_bias). With a
    // row_subset (the first k row axes), [those axes..., column dim]: per index
    // of them, the sum over the other rows (grad_embeddings[seq, d] over heads).
    ColumnSum,
    // An output of shape [the last k row axes]: per index of them, the sum over the
    // other rows of a per-row value, in fp32 (r2 §8: grad_weight[C] of an instance
    // norm's backward, the per-row sums over H x W added over N). row_subset: the kept
    // positions.
    RowSum,
    // shape [row axes..., width]: a few values per row, each read at a fixed
    // position of the row (r2 §8: a [seq, 3] table of positions read as
    // `item 1 of row`, `item 2 of row`); never read along the columns.
    Table,
};
// A Rows or PerRow tensor may follow only some of the row axes and be
// broadcast over the others (a per-head weight [heads, head_dim] of rows
// [batch, seq, heads]; a per-channel bias [C] of rows [B, C, H]), and any
// tensor may keep dimensions of size 1 (keepdim: a per-row scale [M, 1]).
// Kept dimensions are axes fixed at 1 that are neither row nor column axes;
// they take no part in addressing.

// An Int parameter of the op: a size. A benchmark definition may pass it as an
// int scalar of the same name (L1 028's past_key_values_length_scalar).
struct SizeParam {
    std::string name;
    std::optional<int> axis; // the IR axis it sizes; nullopt: the op never uses it
};

// How a Scalar input reaches the kernel (see Tensor::scalar_form).
enum class ScalarForm { Number, ZeroD, OneElement };

struct Tensor {
    std::string name;
    DType dtype = DType::Float32;
    Role role = Role::Rows;
    std::vector<Dim> shape; // empty for Scalar
    SourcePos pos;          // the parameter in the source
    bool flat = false;      // declared as a flat Seq with a row-major contract
    // Rows/PerRow: the row axes it follows (positions in OpIR::row_axes, in
    // order) when it is broadcast over the others; empty: it follows them all.
    std::vector<int> row_subset;
    // Scalar: how the benchmark passes it. A Python number, or a tensor read
    // on the device: 0-d (a definition's `shape: []`) or of one element
    // (`shape: ["1"]`, which the reference reads with `.item()`).
    ScalarForm scalar_form = ScalarForm::Number;
    bool tensor_scalar() const { return scalar_form != ScalarForm::Number; }
    // Scalar bound to a definition's int scalar that gives one of the op's Int
    // parameters (a size): the host takes the axis' value from it (when the op
    // uses the axis) and the kernel does not take it.
    std::optional<SizeParam> size;
    // Rows/Column inputs: the shape index of the column dimension, when kept
    // axes of 1 follow it ([batch, half, 1]); -1: the last dimension.
    int column = -1;
    // A merged row's tensor whose dimension `joined` (a row axis of constant size k)
    // and the next one's first part are one dimension of size k * part (group norm's
    // channels [G * C/G], read as groups and channels per group); -1: none.
    int joined = -1;
    // The row set (see OpIR::other_row_axes) an output runs over, or the first
    // one reading an input (its row_subset positions are the same in each): 0
    // for OpIR::row_axes.
    int row_set = 0;
    int rank() const { return static_cast<int>(shape.size()); }
};

// The dimension a Rows or Column tensor runs along the columns (its last one,
// unless kept axes of 1 follow it).
inline const Dim& column_dim(const Tensor& t) {
    return t.column < 0 ? t.shape.back() : t.shape[static_cast<size_t>(t.column)];
}

enum class ReduceKind { Sum, Max, Min };
const char* to_string(ReduceKind k); // "sum", "max", "min"

enum class Op {
    Const,    // value
    Scalar,   // inputs[index], a Scalar
    AxisSize, // axes[index], as a real number
    Load,     // inputs[index] at the current row and column (+ col_offset)
    Column,   // the current column (0-based), as a real number: a loop counter as a value
    Row,      // the current row's coordinate along row_axes[index] (0-based), as a real
    Reduce,   // reduce_kind over columns [0, extent) of args[0]
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    IntDiv, // a / b of two Ints: the quotient truncated toward zero
    Neg,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    Not,    // 1.0 / 0.0 valued
    Select, // args[0] != 0 ? args[1] : args[2]
    Sqrt,
    Exp,
    Log,
    Tanh,
    Abs,
    Erf,
    Sin,
    Cos,
    Sigmoid,
    Floor,
    Ceil,
    Round,
    Max,
    Min,
    Pow,  // ir/builtins.h
    Cast, // args[0] rounded to dtype
};
const char* to_string(Op op);
int arity(Op op); // number of args; 0 for leaves

struct Node;
using Expr = std::shared_ptr<const Node>;

struct Node {
    Op op = Op::Const;
    std::vector<Expr> args;
    double value = 0;              // Const
    int index = -1;                // Scalar, Load: input index; AxisSize: axis index
    std::optional<Dim> col_offset; // Load: column + scale * axes[axis]
    // Load: the column (+ col_offset) taken modulo this width: a read by a select on
    // the column (r2 §8: rotate-half, concatenated halves), in range where selected.
    std::optional<Dim> col_wrap;
    // Load: the column divided by this size: a tensor over the outer axis of a merged
    // row (r2 §8: group norm's per-channel weight, column / (H * W) of cpg x H x W).
    std::optional<Dim> col_div;
    // Load at a fixed column instead of the current one: a Table's value, or
    // (made by the raiser only, never in a recognized op) a max's initial
    // `item 1 of row`.
    std::optional<int64_t> fixed_column;      // negative: from the row's end (-1 the last)
    ReduceKind reduce_kind = ReduceKind::Sum; // Reduce
    Dim extent;                               // Reduce: the columns it runs over
    DType dtype = DType::Float32;             // Cast
};

// Builders (the only way nodes are made, so every node is well formed; they
// fold x + 0, x - 0, x * 1, x / 1 and -(-x), see op_ir.cpp).
Expr constant(double v);
Expr scalar(int input);
Expr axis_size(int axis);
Expr load(int input, std::optional<Dim> col_offset = std::nullopt,
          std::optional<Dim> col_wrap = std::nullopt, std::optional<Dim> col_div = std::nullopt);
Expr load_fixed(int input, int64_t column);
Expr column_index();
Expr row_index(int position); // along row_axes[position]
Expr reduce(ReduceKind kind, Expr element, Dim extent);
Expr unary(Op op, Expr a);
Expr binary(Op op, Expr a, Expr b);
Expr select(Expr c, Expr a, Expr b);
Expr cast(DType t, Expr a);

struct OpIR {
    std::string name;        // the op's function name
    std::string file;        // the .lg path, for messages
    SourcePos pos;           // the op's `## To` header
    std::string description; // the `## Note` text, if any

    std::vector<Axis> axes;
    std::vector<int> row_axes; // indices into axes, outermost first
    // Several row sets in one op (r2 §8: queries over [batch, heads, seq] and keys
    // over [batch, kv_heads, seq]): the row axes of the outputs whose row_set is
    // k > 0 are other_row_axes[k - 1]. Each set is its own row-parallel op over
    // the same inputs (project()); an input read by several sets follows the same
    // positions in each. Empty for the usual op of one row set.
    std::vector<std::vector<int>> other_row_axes;
    int column_axis = -1; // index into axes: the axis outputs' columns run over

    std::vector<Tensor> inputs;       // in the op's parameter order
    std::vector<Tensor> outputs;      // in the op's output order
    std::vector<Expr> values;         // values[i] computes outputs[i]
    std::vector<SourcePos> value_pos; // the statement that writes outputs[i]
    // (a, b): axes whose sizes must be equal at run time, because one axis name
    // of the benchmark's definition stands for both (a shape like [N, N]).
    std::vector<std::pair<int, int>> equal_axes;
    std::vector<SizeParam> size_params; // the op's Int parameters, in order
};

// A tensor's shape as torch sees it: a merged row's dimension (an Axis with
// parts) expanded into its parts' dimensions. Equal to t.shape for every other op.
std::vector<Dim> real_shape(const OpIR& op, const Tensor& t);

// The row axes (positions in op.row_axes) a Rows or PerRow tensor follows;
// none for the others.
std::vector<int> followed_rows(const OpIR& op, const Tensor& t);
// A Rows or PerRow tensor that follows only some row axes.
inline bool is_broadcast(const Tensor& t) {
    return !t.row_subset.empty();
}

// The number of row sets, and the row axes of set k.
inline int row_set_count(const OpIR& op) {
    return 1 + static_cast<int>(op.other_row_axes.size());
}
const std::vector<int>& row_axes_of(const OpIR& op, int set);
// The op of row set k alone: its outputs (in order), row_axes those of the set,
// its own column axis (its rows' length), and every input, those its outputs
// never read turned Unread (checked on the host, not taken by its kernel). The
// identity for an op of one row set.
OpIR project(const OpIR& op, int set);

// Reduce nodes reachable from the outputs, each after the ones it depends on.
std::vector<Expr> reductions_in_order(const OpIR& op);

// A readable, deterministic text form (for `solgen explain` and tests).
std::string print(const OpIR& op);
std::string print(const OpIR& op, const Expr& e);

} // namespace solbench::ir
