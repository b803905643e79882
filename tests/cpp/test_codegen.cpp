// Expression printing, kernel emission per family, and the reference printer.
#include "codegen/expr_printer.h"
#include "codegen/kernel_emitter.h"
#include "codegen/reference_printer.h"
#include "codegen/templater.h"
#include "ir_fixtures.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

using namespace solbench;
using namespace solbench::ir;
using solbench::codegen::ExprNames;
using solbench::codegen::ExprPrinter;

namespace {

ExprNames simple_names() {
    ExprNames n;
    n.load = [](int input, const std::optional<Dim>& off, const std::optional<Dim>& wrap,
                const std::optional<Dim>& div) {
        return std::string(div ? "div" : wrap ? "wrap" : off ? "hi" : "x") + std::to_string(input);
    };
    n.scalar = [](int input) { return "s" + std::to_string(input); };
    n.axis = [](int axis) { return "axis" + std::to_string(axis); };
    n.reduction = [](const Node&) { return std::string("red"); };
    n.column = [] { return std::string("col"); };
    n.row = [](int p) { return "row" + std::to_string(p); };
    return n;
}

// Prints one expression; statements joined with newlines, then "=> value".
std::string print_one(const Expr& e) {
    auto uses = codegen::use_counts({e});
    ExprPrinter p(simple_names(), uses, "t");
    std::string v = p.print(e);
    std::string out;
    for (const auto& s : p.take_statements())
        out += s + "\n";
    return out + "=> " + v;
}

std::string kernel(const OpDescription& op, bool dps = true) {
    auto r = codegen::emit_kernel(op, {dps, op.ir.file});
    if (auto* e = std::get_if<codegen::EmitError>(&r)) {
        ADD_FAILURE() << e->message;
        return "";
    }
    return std::get<std::string>(r);
}

int count(const std::string& text, const std::string& needle) {
    int n = 0;
    for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1))
        ++n;
    return n;
}

} // namespace

TEST(ExprPrinter, FloatLiterals) {
    EXPECT_EQ(codegen::float_literal(1.0), "1.0f");
    EXPECT_EQ(codegen::float_literal(1e-5), "1e-05f");
    EXPECT_EQ(codegen::float_literal(0.5), "0.5f");
    EXPECT_EQ(codegen::float_literal(-2.0), "(-2.0f)");
    EXPECT_EQ(codegen::float_literal(INFINITY), "INFINITY");
}

TEST(ExprPrinter, CastsRoundThroughTheNarrowType) {
    Expr e = cast(DType::BFloat16, binary(Op::Add, load(0), load(1)));
    EXPECT_EQ(print_one(e), "=> __bfloat162float(__float2bfloat16_rn(x0 + x1))");
    Expr h = cast(DType::Float16, load(0));
    EXPECT_EQ(print_one(h), "=> __half2float(__float2half_rn(x0))");
    EXPECT_EQ(print_one(cast(DType::Float32, load(0))), "=> x0");
}

// Int / Int in int64: fast-math float division (the bundles' flags) could put 6 / 3 at
// 1.9999999, which truncates to 1.
TEST(ExprPrinter, IntegerDivisionIsDoneInIntegers) {
    EXPECT_EQ(print_one(binary(Op::IntDiv, load(0), load(1))),
              "=> (x1 == 0.0f ? x0 / x1 : static_cast<float>(static_cast<int64_t>(x0) / "
              "static_cast<int64_t>(x1)))");
}

// In double: --use_fast_math would make sinf the approximation whose error grows with |x|.
TEST(ExprPrinter, SinAndCosAreAccurateUnderFastMath) {
    EXPECT_EQ(print_one(unary(Op::Sin, load(0))),
              "=> static_cast<float>(sin(static_cast<double>(x0)))");
    EXPECT_EQ(print_one(unary(Op::Cos, binary(Op::Mul, load(0), load(1)))),
              "=> static_cast<float>(cos(static_cast<double>(x0 * x1)))");
}

TEST(ExprPrinter, TheColumnIsAValueThatIsNeverHoisted) {
    EXPECT_EQ(print_one(binary(Op::Mul, load(0), column_index())), "=> (x0 * col)");
    EXPECT_FALSE(codegen::column_invariant(column_index()));
}

TEST(ReferencePrinter, TheColumnIsAnArangeOnTheInputsDevice) {
    OpIR op = fixtures::rmsnorm().ir;
    op.values[0] = binary(Op::Mul, load(0), column_index());
    std::string ref = codegen::print_reference(op);
    EXPECT_NE(
        ref.find("torch.arange(hidden_size, dtype=torch.float32, device=hidden_states.device)"),
        std::string::npos)
        << ref;
}

TEST(ReferencePrinter, IntegerDivisionTruncates) {
    OpIR op = fixtures::rmsnorm().ir;
    op.values[0] = binary(Op::IntDiv, load(0), constant(3));
    EXPECT_NE(codegen::print_reference(op).find("torch.trunc(hidden_states_f / 3.0)"),
              std::string::npos)
        << codegen::print_reference(op);
}

TEST(ExprPrinter, SelectUsesTheComparisonDirectly) {
    Expr e = select(binary(Op::Gt, load(0), scalar(1)), load(0), constant(0.0));
    EXPECT_EQ(print_one(e), "=> (x0 > s1 ? x0 : 0.0f)");
    Expr flag = binary(Op::Lt, load(0), constant(1.0));
    EXPECT_EQ(print_one(flag), "=> (x0 < 1.0f ? 1.0f : 0.0f)");
}

TEST(ExprPrinter, PowMaxMin) {
    EXPECT_EQ(print_one(binary(Op::Pow, load(0), constant(3.0))), "=> (x0 * x0 * x0)");
    EXPECT_EQ(print_one(binary(Op::Pow, load(0), constant(0.5))), "=> sqrtf(x0)");
    EXPECT_EQ(print_one(binary(Op::Pow, load(0), constant(1.7))), "=> powf(x0, 1.7f)");
    EXPECT_EQ(print_one(binary(Op::Max, load(0), load(1, Dim{1, 1}))), "=> fmaxf(x0, hi1)");
    EXPECT_EQ(print_one(binary(Op::Min, load(0), axis_size(1))), "=> fminf(x0, axis1)");
}

TEST(ExprPrinter, SharedNodesBecomeOneTemporary) {
    Expr x = unary(Op::Exp, load(0));
    Expr e = binary(Op::Div, x, binary(Op::Add, x, constant(1.0)));
    EXPECT_EQ(print_one(e), "const float t0 = expf(x0);\n=> (t0 / (t0 + 1.0f))");
}

TEST(ExprPrinter, ColumnInvariantValuesAreHoisted) {
    Expr inv =
        binary(Op::Div, constant(1.0), unary(Op::Sqrt, reduce(ReduceKind::Sum, load(0), {1, 1})));
    Expr e = binary(Op::Mul, load(0), inv);
    auto uses = codegen::use_counts({e});
    ExprPrinter row(simple_names(), uses, "v");
    ExprPrinter element(simple_names(), uses, "t", &row);
    EXPECT_EQ(element.print(e), "(x0 * v0)");
    auto hoisted = row.take_statements();
    ASSERT_EQ(hoisted.size(), 1u);
    EXPECT_EQ(hoisted[0], "const float v0 = 1.0f / sqrtf(red);");
    EXPECT_TRUE(element.take_statements().empty());
}

TEST(Templater, FailsOnAMissingVariable) {
    auto ok = codegen::render_text("t", "a {{x}} b", {{"x", "1"}});
    ASSERT_TRUE(std::holds_alternative<std::string>(ok));
    EXPECT_EQ(std::get<std::string>(ok), "a 1 b\n");
    auto bad = codegen::render_text("t", "a {{y}} b", {{"x", "1"}});
    ASSERT_TRUE(std::holds_alternative<codegen::TemplateError>(bad));
    EXPECT_NE(std::get<codegen::TemplateError>(bad).message.find("'y'"), std::string::npos);
    // Tags inside an empty section need not be defined.
    auto empty = codegen::render_text("t", "{{#items}}{{missing}}{{/items}}ok",
                                      {{"items", nlohmann::json::array()}});
    EXPECT_TRUE(std::holds_alternative<std::string>(empty));
}

TEST(KernelEmitter, RmsnormFollowsTheContract) {
    std::string k = kernel(fixtures::rmsnorm());
    EXPECT_NE(k.find("// rmsnorm: fused_row kernel generated by solgen"), std::string::npos);
    EXPECT_NE(k.find("from rmsnorm.lg."), std::string::npos);
    EXPECT_NE(k.find("void run(const at::Tensor& hidden_states, const at::Tensor& weight, "
                     "const at::Tensor& output)"),
              std::string::npos);
    EXPECT_NE(k.find("TORCH_CHECK(hidden_states.device() == stream.device()"), std::string::npos);
    EXPECT_NE(k.find("TORCH_CHECK(weight.scalar_type() == at::ScalarType::BFloat16"),
              std::string::npos);
    EXPECT_NE(k.find("TORCH_CHECK(output.is_contiguous()"), std::string::npos);
    EXPECT_NE(k.find("TORCH_CHECK(weight.size(0) == hidden_size"), std::string::npos);
    EXPECT_NE(k.find("at::cuda::getCurrentCUDAStream()"), std::string::npos);
    EXPECT_NE(k.find("cudaLaunchKernelEx(&config, rmsnorm_kernel<"), std::string::npos);
    EXPECT_NE(k.find("cudaGetLastError()"), std::string::npos);
    EXPECT_NE(k.find("__launch_bounds__(kRowBlock<kThreads>)"), std::string::npos);
    EXPECT_NE(k.find("__shfl_xor_sync(0xffffffffu"), std::string::npos);
    EXPECT_NE(k.find("extern __shared__ __align__(16) unsigned char smem[];"), std::string::npos);
    EXPECT_NE(k.find("reinterpret_cast<const uint4*>"), std::string::npos);
    EXPECT_EQ(count(k, "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)"), 1);
    EXPECT_EQ(k.find("<<<"), std::string::npos);
    EXPECT_EQ(k.find("__shared__ float"), std::string::npos); // dynamic shared memory only
    EXPECT_EQ(k.find("/work/"), std::string::npos);           // no absolute paths
    // Variable hidden size: the variant is chosen at launch (warp, cached 128 threads,
    // cached block, streamed block, scalar fallback).
    EXPECT_NE(k.find("launch_rows<kWarpSize, kVectorWidth, 4>"), std::string::npos);
    EXPECT_NE(k.find("launch_rows<128, kVectorWidth, 4>"), std::string::npos);
    EXPECT_NE(k.find("launch_rows<kBlockThreads, kVectorWidth, 0>"), std::string::npos);
    EXPECT_NE(k.find("launch_rows<kBlockThreads, 1, 0>"), std::string::npos);
    EXPECT_NE(k.find("hidden_states_cache"), std::string::npos);
    EXPECT_NE(k.find("const float v0 = 1.0f / sqrtf"), std::string::npos); // hoisted per row
}

TEST(KernelEmitter, CachedVariantsHaveAShortRowRungInOrder) {
    // bf16, one cached input as raw words: 8 chunks of 8 at most. Each cached variant with
    // more than 2 chunks gets rungs of 2, 4, ... chunks for its shorter rows, tried first;
    // rows over a warp take 128 threads while those hold them (4 chunks at most: the weight
    // is read ahead too), then a warp more at a time, then a block of 256.
    std::string k = kernel(fixtures::rmsnorm());
    const std::vector<std::string> order = {
        "hidden_size <= 128) {\n        status = launch_rows<16, kVectorWidth, 1>",
        "hidden_size <= 512) {\n        status = launch_rows<kWarpSize, kVectorWidth, 2>",
        "hidden_size <= 1024) {\n        status = launch_rows<kWarpSize, kVectorWidth, 4>",
        "hidden_size <= 2048) {\n        status = launch_rows<128, kVectorWidth, 2>",
        "hidden_size <= 4096) {\n        status = launch_rows<128, kVectorWidth, 4>",
        "hidden_size <= 7168) {\n        status = launch_rows<224, kVectorWidth, 4>",
        "hidden_size <= 8192) {\n        status = launch_rows<kBlockThreads, kVectorWidth, 4>",
        "hidden_size <= 16384) {\n        status = launch_rows<kBlockThreads, kVectorWidth, 8>",
        "if (vectorized) {\n        status = launch_rows<kBlockThreads, kVectorWidth, 0>"};
    size_t at = 0;
    for (const std::string& branch : order) {
        const size_t found = k.find(branch, at);
        ASSERT_NE(found, std::string::npos) << branch;
        at = found;
    }
}

TEST(KernelEmitter, ConstantAxesAreConstexprAndChosenAtGeneration) {
    std::string k = kernel(fixtures::rmsnorm(DType::BFloat16, 7168, true));
    EXPECT_NE(k.find("constexpr int64_t kHiddenSize = 7168;"), std::string::npos);
    EXPECT_NE(k.find("TORCH_CHECK(hidden_states.size(1) == kHiddenSize"), std::string::npos);
    EXPECT_NE(k.find("double eps"), std::string::npos);
    EXPECT_NE(k.find("static_cast<float>(eps)"), std::string::npos);
    // 7168 bf16 columns, 896 vectors: the fewest warps holding 4 chunks each (as many as a
    // block under 256 threads holds with the weight ahead), 7, every chunk full; no runtime
    // width test.
    EXPECT_NE(k.find("launch_rows<224, kVectorWidth, 4>"), std::string::npos);
    EXPECT_EQ(k.find("hidden_size <= "), std::string::npos);
}

TEST(KernelEmitter, ReturnStyleAllocatesTheOutputs) {
    std::string k = kernel(fixtures::softmax(), false);
    EXPECT_NE(k.find("at::Tensor run(const at::Tensor& input)"), std::string::npos);
    EXPECT_NE(k.find("torch::empty({batch_size, hidden_size}"), std::string::npos);
    EXPECT_NE(k.find("return output;"), std::string::npos);
    EXPECT_NE(k.find("-INFINITY"), std::string::npos);
}

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
        ++n;
    return n;
}

// The loops over a row at the kernel's top level: the reduction passes and
// the epilogue (the register cache's fill loop is nested deeper).
size_t row_loops(const std::string& k) {
    return occurrences(k, "\n    for_each_chunk<kThreads, kVec, kChunks>(");
}

// A kernel with two schedules (codegen/row_schedule.h): the text of the row-in-registers one
// and of the streamed one; a kernel with one has it as the streamed part.
struct Schedules {
    std::string cached, streamed;
};
Schedules schedules(const std::string& k) {
    const std::string open = "if constexpr (kChunks > 0) { // the row in registers";
    const std::string split = "} else { // the row streamed from memory";
    const size_t a = k.find(open), b = k.find(split);
    if (a == std::string::npos || b == std::string::npos) return {"", k};
    return {k.substr(a, b - a), k.substr(b)};
}

TEST(KernelEmitter, SoftmaxMaxAndSumShareOnePassOnline) {
    const Schedules k = schedules(kernel(fixtures::softmax()));
    EXPECT_NE(k.streamed.find("online_max_sum<kVec>(max0_chunk, max0, sum1);"), std::string::npos);
    EXPECT_NE(k.streamed.find("group_reduce_online<kThreads>(max0, sum1, scratch);"),
              std::string::npos);
    EXPECT_EQ(k.streamed.find("MaxOp{}"), std::string::npos);
    EXPECT_EQ(k.streamed.find("SumOp{}"), std::string::npos);
    EXPECT_EQ(row_loops(k.streamed), 2u); // the online pass and the epilogue
    // Two floats per warp for the pair's block reduction.
    EXPECT_NE(k.streamed.find("2 * (kRowBlock<kThreads> / kWarpSize) * sizeof(float)"),
              std::string::npos);
    // In registers: the max, then the sum of exp kept for the outputs (no rescale, one exp).
    EXPECT_EQ(k.cached.find("online_max_sum"), std::string::npos);
    EXPECT_EQ(row_loops(k.cached), 3u);
    // One exp a column: in the column loop, and a lane each in its pair form (two columns a
    // step, pair_printer.h), which keeps the same values.
    EXPECT_EQ(occurrences(k.cached, "expf("), 3u);
    EXPECT_NE(k.cached.find("kept0[chunk][j] = expf("), std::string::npos);
    EXPECT_NE(k.cached.find("= make_float2(expf(pair0.x), expf(pair0.y));"), std::string::npos);
    EXPECT_NE(k.cached.find("store_pair(kept0[chunk], j, pair1);"), std::string::npos);
}

TEST(KernelEmitter, SumOfExpAgainstAnotherMaxIsNotOnline) {
    // sum(exp(2x - max(x))): the exponent is not the max's own element, so the
    // sum needs the finished max and gets its own pass.
    OpDescription op = fixtures::softmax();
    ir::Expr x = ir::load(0);
    ir::Expr m = ir::reduce(ir::ReduceKind::Max, x, {1, 1});
    ir::Expr e = ir::unary(ir::Op::Exp,
                           ir::binary(ir::Op::Sub, ir::binary(ir::Op::Mul, ir::constant(2), x), m));
    ir::Expr s = ir::reduce(ir::ReduceKind::Sum, e, {1, 1});
    op.ir.values = {ir::binary(ir::Op::Div, e, s)};
    op.reductions = ir::reductions_in_order(op.ir);
    op.online = online_pairs(op.reductions);
    const Schedules k = schedules(kernel(op));
    EXPECT_EQ(k.streamed.find("online_max_sum"), std::string::npos);
    EXPECT_NE(k.streamed.find("MaxOp{}"), std::string::npos);
    EXPECT_NE(k.streamed.find("SumOp{}"), std::string::npos);
    EXPECT_EQ(row_loops(k.streamed), 3u);
}

TEST(KernelEmitter, IndependentReductionsShareOnePass) {
    // min and max of the same row: one loop, two accumulators.
    OpDescription op = fixtures::softmax();
    ir::Expr x = ir::load(0);
    ir::Expr lo = ir::reduce(ir::ReduceKind::Min, x, {1, 1});
    ir::Expr hi = ir::reduce(ir::ReduceKind::Max, x, {1, 1});
    op.ir.values = {
        ir::binary(ir::Op::Div, ir::binary(ir::Op::Sub, x, lo), ir::binary(ir::Op::Sub, hi, lo))};
    op.reductions = ir::reductions_in_order(op.ir);
    op.online = online_pairs(op.reductions);
    std::string k = kernel(op);
    EXPECT_EQ(row_loops(k), 2u);
    EXPECT_NE(
        k.find("min0 = fminf(min0, input_v[j]);\n            max1 = fmaxf(max1, input_v[j]);"),
        std::string::npos);
}

TEST(KernelEmitter, GatedReadsPackedHalvesDirectly) {
    std::string k = kernel(fixtures::swiglu_packed());
    EXPECT_NE(k.find("// swiglu: gated_activation kernel"), std::string::npos);
    EXPECT_NE(k.find("x + row * 2 * cols"), std::string::npos);
    EXPECT_NE(k.find("fill_chunk(whole, x_row + base + cols, x_hi_chunks, k);"), std::string::npos);
    EXPECT_NE(k.find("TORCH_CHECK(x.size(1) % 2 == 0"), std::string::npos);
    EXPECT_NE(k.find("const int64_t intermediate_size = x.size(1) / 2;"), std::string::npos);
    // Rows of whole vectors in the vectorized launch (its condition): no scalar tail.
    EXPECT_EQ(k.find("for (int64_t c = base; c < cols; ++c)"), std::string::npos);
}

TEST(KernelEmitter, ElementwiseOnePieceOpsRunFlat) {
    std::string k = kernel(fixtures::geglu(), false);
    EXPECT_NE(k.find("launch_elements<kVectorWidth, 4>(1, rows * hidden_size"), std::string::npos);
    // One row of every element: its end may be a partial vector, done one element at a time.
    EXPECT_NE(k.find("for (int64_t c = base; c < cols; ++c)"), std::string::npos);
    EXPECT_NE(k.find("(gate * gate * gate)"), std::string::npos);
    EXPECT_NE(k.find("tanhf("), std::string::npos);
}

TEST(KernelEmitter, ReductionWritesOneValuePerRow) {
    std::string k = kernel(fixtures::row_max());
    EXPECT_NE(k.find("// row_max: reduction kernel"), std::string::npos);
    EXPECT_NE(k.find("output[row] = from_float<__nv_bfloat16>(max0);"), std::string::npos);
    std::string l2 = kernel(fixtures::l2_norm_3d());
    EXPECT_NE(l2.find("const int64_t rows = batch_size * seq_len;"), std::string::npos);
    EXPECT_NE(l2.find("TORCH_CHECK(x.dim() == 3"), std::string::npos);
    EXPECT_NE(l2.find("sqrtf(sum0)"), std::string::npos);
}

TEST(KernelEmitter, RendersAreByteIdentical) {
    EXPECT_EQ(kernel(fixtures::fused_add_rmsnorm()), kernel(fixtures::fused_add_rmsnorm()));
    EXPECT_EQ(kernel(fixtures::swiglu_packed()), kernel(fixtures::swiglu_packed()));
}

TEST(KernelEmitter, RefusesUnsupportedDtypes) {
    OpDescription op = fixtures::softmax();
    op.ir.inputs[0].dtype = DType::Float64;
    auto r = codegen::emit_kernel(op, {});
    ASSERT_TRUE(std::holds_alternative<codegen::EmitError>(r));
    EXPECT_NE(std::get<codegen::EmitError>(r).message.find("float64"), std::string::npos);
}

TEST(ReferencePrinter, RmsnormInFloat32) {
    std::string ref = codegen::print_reference(fixtures::rmsnorm().ir);
    EXPECT_NE(ref.find("def run(hidden_states, weight):"), std::string::npos);
    EXPECT_NE(ref.find("hidden_states_f = hidden_states.float()"), std::string::npos);
    EXPECT_NE(ref.find("torch.sum(hidden_states_f * hidden_states_f, dim=-1, keepdim=True)"),
              std::string::npos);
    EXPECT_NE(ref.find(".to(torch.bfloat16)"), std::string::npos);
    EXPECT_NE(ref.find("return output"), std::string::npos);
}

TEST(ReferencePrinter, PackedHalvesAreSlices) {
    std::string ref = codegen::print_reference(fixtures::swiglu_packed().ir);
    EXPECT_NE(ref.find("intermediate_size = x.shape[1] // 2"), std::string::npos);
    EXPECT_NE(ref.find("x_f[..., intermediate_size:intermediate_size + intermediate_size]"),
              std::string::npos);
    EXPECT_NE(ref.find("x_f[..., :intermediate_size]"), std::string::npos);
}
