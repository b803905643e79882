// Hand-built op descriptions for the codegen and packager tests: the IR the
// raiser and recognizers produce for the corpus ops, made with the builders.
#pragma once

#include "ir/op_ir.h"
#include "recognizers/recognizer.h"

namespace solbench::fixtures {

using namespace solbench::ir;

inline Tensor rows_tensor(std::string name, DType t, std::vector<Dim> shape) {
    Tensor x;
    x.name = std::move(name);
    x.dtype = t;
    x.role = Role::Rows;
    x.shape = std::move(shape);
    return x;
}

inline Tensor column_tensor(std::string name, DType t, Dim d) {
    Tensor x = rows_tensor(std::move(name), t, {d});
    x.role = Role::Column;
    return x;
}

inline Tensor scalar_tensor(std::string name, DType t = DType::Float32) {
    Tensor x;
    x.name = std::move(name);
    x.dtype = t;
    x.role = Role::Scalar;
    return x;
}

inline OpDescription describe(Family f, OpIR ir) {
    OpDescription d;
    d.family = f;
    d.reductions = reductions_in_order(ir);
    d.online = online_pairs(d.reductions);
    d.ir = std::move(ir);
    return d;
}

// rmsnorm: out = x * (1 / sqrt(sum(x*x)/H + eps)) * w; eps a constant or a scalar input.
inline OpDescription rmsnorm(DType t = DType::BFloat16, std::optional<int64_t> hidden = {},
                             bool eps_scalar = false) {
    OpIR ir;
    ir.name = "rmsnorm";
    ir.file = "rmsnorm.lg";
    ir.description = "Root-mean-square normalization of each row.";
    ir.axes = {{"batch_size", {}, {}}, {"hidden_size", hidden, {}}};
    ir.row_axes = {0};
    ir.column_axis = 1;
    ir.inputs = {rows_tensor("hidden_states", t, {{0, 1}, {1, 1}}),
                 column_tensor("weight", t, {1, 1})};
    Expr eps = constant(1e-5);
    if (eps_scalar) {
        ir.inputs.push_back(scalar_tensor("eps"));
        eps = scalar(2);
    }
    ir.outputs = {rows_tensor("output", t, {{0, 1}, {1, 1}})};
    Expr x = load(0);
    Expr ss = reduce(ReduceKind::Sum, binary(Op::Mul, x, x), {1, 1});
    Expr inv = binary(Op::Div, constant(1.0),
                      unary(Op::Sqrt, binary(Op::Add, binary(Op::Div, ss, axis_size(1)), eps)));
    ir.values = {binary(Op::Mul, binary(Op::Mul, x, inv), load(1))};
    return describe(Family::FusedRow, std::move(ir));
}

// softmax over fp32 rows: exp(x - max) / sum(exp(x - max)).
inline OpDescription softmax() {
    OpIR ir;
    ir.name = "softmax";
    ir.file = "softmax.lg";
    ir.axes = {{"batch_size", {}, {}}, {"hidden_size", {}, {}}};
    ir.row_axes = {0};
    ir.column_axis = 1;
    ir.inputs = {rows_tensor("input", DType::Float32, {{0, 1}, {1, 1}})};
    ir.outputs = {rows_tensor("output", DType::Float32, {{0, 1}, {1, 1}})};
    Expr x = load(0);
    Expr m = reduce(ReduceKind::Max, x, {1, 1});
    Expr e = unary(Op::Exp, binary(Op::Sub, x, m));
    Expr s = reduce(ReduceKind::Sum, e, {1, 1});
    ir.values = {binary(Op::Div, e, s)};
    return describe(Family::FusedRow, std::move(ir));
}

// fused add + rmsnorm at a constant hidden size; the sum rounds to bf16 first.
inline OpDescription fused_add_rmsnorm() {
    OpIR ir;
    ir.name = "fused_add_rmsnorm";
    ir.file = "fused_add_rmsnorm.lg";
    ir.axes = {{"batch_size", {}, {}}, {"hidden_size", 4096, {}}};
    ir.row_axes = {0};
    ir.column_axis = 1;
    DType bf = DType::BFloat16;
    ir.inputs = {rows_tensor("hidden_states", bf, {{0, 1}, {1, 1}}),
                 rows_tensor("residual", bf, {{0, 1}, {1, 1}}),
                 column_tensor("weight", bf, {1, 1})};
    ir.outputs = {rows_tensor("output", bf, {{0, 1}, {1, 1}})};
    Expr h = cast(bf, binary(Op::Add, load(0), load(1)));
    Expr ss = reduce(ReduceKind::Sum, binary(Op::Mul, h, h), {1, 1});
    Expr inv =
        binary(Op::Div, constant(1.0),
               unary(Op::Sqrt, binary(Op::Add, binary(Op::Div, ss, axis_size(1)), constant(1e-5))));
    ir.values = {binary(Op::Mul, binary(Op::Mul, h, inv), load(2))};
    return describe(Family::FusedRow, std::move(ir));
}

// SwiGLU on a packed [rows, 2 * n] input: silu(x[:, c]) * x[:, c + n].
inline OpDescription swiglu_packed(DType t = DType::BFloat16) {
    OpIR ir;
    ir.name = "swiglu";
    ir.file = "swiglu_packed.lg";
    ir.description = "SwiGLU on a packed gate/up tensor.";
    ir.axes = {{"num_tokens", {}, {}}, {"intermediate_size", {}, {}}};
    ir.row_axes = {0};
    ir.column_axis = 1;
    ir.inputs = {rows_tensor("x", t, {{0, 1}, {1, 2}})};
    ir.outputs = {rows_tensor("output", t, {{0, 1}, {1, 1}})};
    Expr g = load(0);
    Expr silu =
        binary(Op::Div, g, binary(Op::Add, constant(1.0), unary(Op::Exp, unary(Op::Neg, g))));
    ir.values = {binary(Op::Mul, silu, load(0, Dim{1, 1}))};
    OpDescription d = describe(Family::GatedActivation, std::move(ir));
    d.packed_halves = true;
    return d;
}

// GeGLU (tanh GELU) on separate fp32 gate and up tensors.
inline OpDescription geglu() {
    OpIR ir;
    ir.name = "geglu";
    ir.file = "geglu.lg";
    ir.axes = {{"num_tokens", {}, {}}, {"hidden_size", {}, {}}};
    ir.row_axes = {0};
    ir.column_axis = 1;
    ir.inputs = {rows_tensor("gate", DType::Float32, {{0, 1}, {1, 1}}),
                 rows_tensor("up", DType::Float32, {{0, 1}, {1, 1}})};
    ir.outputs = {rows_tensor("output", DType::Float32, {{0, 1}, {1, 1}})};
    Expr g = load(0);
    Expr inner = binary(
        Op::Mul, constant(0.7978845608028654),
        binary(Op::Add, g, binary(Op::Mul, constant(0.044715), binary(Op::Pow, g, constant(3.0)))));
    Expr gelu = binary(Op::Mul, binary(Op::Mul, constant(0.5), g),
                       binary(Op::Add, constant(1.0), unary(Op::Tanh, inner)));
    ir.values = {binary(Op::Mul, gelu, load(1))};
    return describe(Family::GatedActivation, std::move(ir));
}

// row_max over bf16 rows, written with a select (the If form).
inline OpDescription row_max() {
    OpIR ir;
    ir.name = "row_max";
    ir.file = "row_max.lg";
    ir.axes = {{"batch_size", {}, {}}, {"hidden_size", {}, {}}};
    ir.row_axes = {0};
    ir.column_axis = 1;
    ir.inputs = {rows_tensor("x", DType::BFloat16, {{0, 1}, {1, 1}})};
    Tensor out;
    out.name = "output";
    out.dtype = DType::BFloat16;
    out.role = Role::PerRow;
    out.shape = {{0, 1}};
    ir.outputs = {out};
    ir.values = {reduce(ReduceKind::Max, load(0), {1, 1})};
    return describe(Family::Reduction, std::move(ir));
}

// l2 norm of 3-d fp32 rows: sqrt(sum(x * x)).
inline OpDescription l2_norm_3d() {
    OpIR ir;
    ir.name = "l2_norm";
    ir.file = "l2_norm.lg";
    ir.axes = {{"batch_size", {}, {}}, {"seq_len", {}, {}}, {"hidden_size", {}, {}}};
    ir.row_axes = {0, 1};
    ir.column_axis = 2;
    ir.inputs = {rows_tensor("x", DType::Float32, {{0, 1}, {1, 1}, {2, 1}})};
    Tensor out;
    out.name = "output";
    out.dtype = DType::Float32;
    out.role = Role::PerRow;
    out.shape = {{0, 1}, {1, 1}};
    ir.outputs = {out};
    Expr x = load(0);
    ir.values = {unary(Op::Sqrt, reduce(ReduceKind::Sum, binary(Op::Mul, x, x), {2, 1}))};
    return describe(Family::Reduction, std::move(ir));
}

} // namespace solbench::fixtures
