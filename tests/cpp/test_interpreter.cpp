// The interpreter against independent C++ computations of every accepted
// corpus op, plus its error paths (bad indices, failed contracts, limits,
// ill-shaped inputs).
#include "frontend/interpreter.h"
#include "frontend/parser.h"
#include "ir/op_ir.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace solbench;
using nlohmann::json;

namespace {

using Mat = std::vector<std::vector<double>>;
using Vec = std::vector<double>;

const std::string kCorpus = SOLBENCH_SOURCE_DIR "/tests/corpus/";

ast::Program parse_text(const std::string& text, const std::string& path = "t.lg") {
    SourceFile file(path, text);
    ParseResult r = parse(file);
    for (const Diagnostic& d : r.errors)
        ADD_FAILURE() << render(file, d);
    return std::move(r.program);
}

ast::Program load(const std::string& rel) {
    std::ifstream in(kCorpus + rel);
    EXPECT_TRUE(in) << "cannot open " << kCorpus + rel;
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_text(ss.str(), rel);
}

json run(const ast::Program& p, const json& inputs, const InterpreterLimits& limits = {}) {
    const ast::Function* op = p.find();
    if (!op) throw std::logic_error("no op");
    return interpret(p, *op, inputs, limits);
}

// The RuntimeError `fn` throws; fails the test when it throws none.
template <typename F> RuntimeError runtime_error(F&& fn) {
    try {
        fn();
    } catch (const RuntimeError& e) {
        return e;
    }
    ADD_FAILURE() << "expected a RuntimeError";
    return RuntimeError({}, "");
}

double bf16(double v) {
    return ir::round_to(ir::DType::BFloat16, v);
}
double f32(double v) {
    return ir::round_to(ir::DType::Float32, v);
}
double f16(double v) {
    return ir::round_to(ir::DType::Float16, v);
}

// Deterministic values in [-2, 2), rounded to the input's storage type.
Vec values(size_t n, unsigned seed, double (*round)(double)) {
    Vec v(n);
    uint32_t s = seed * 2654435761u + 12345u;
    for (double& x : v) {
        s = s * 1664525u + 1013904223u;
        x = round((static_cast<double>(s >> 8) / 16777216.0) * 4.0 - 2.0);
    }
    return v;
}

Mat matrix(size_t rows, size_t cols, unsigned seed, double (*round)(double)) {
    Mat m;
    for (size_t r = 0; r < rows; ++r)
        m.push_back(values(cols, seed * 131 + static_cast<unsigned>(r), round));
    return m;
}

void expect_matrix(const json& got, const Mat& want) {
    ASSERT_TRUE(got.is_array());
    ASSERT_EQ(got.size(), want.size());
    for (size_t r = 0; r < want.size(); ++r) {
        ASSERT_EQ(got[r].size(), want[r].size()) << "row " << r;
        for (size_t c = 0; c < want[r].size(); ++c)
            EXPECT_DOUBLE_EQ(got[r][c].get<double>(), want[r][c])
                << "at [" << r << "][" << c << "]";
    }
}

void expect_vector(const json& got, const Vec& want) {
    ASSERT_TRUE(got.is_array());
    ASSERT_EQ(got.size(), want.size());
    for (size_t c = 0; c < want.size(); ++c)
        EXPECT_DOUBLE_EQ(got[c].get<double>(), want[c]) << "at [" << c << "]";
}

double sum_sq(const Vec& row) {
    double s = 0.0;
    for (double v : row)
        s = s + v * v;
    return s;
}

double row_max(const Vec& row) {
    double m = row[0];
    for (double v : row)
        m = std::fmax(m, v);
    return m;
}

// ------------------------------------------------- accepted corpus ops ----

TEST(Interpreter, Rmsnorm) {
    Mat x = matrix(3, 8, 1, bf16);
    Vec w = values(8, 2, bf16);
    Mat want = x;
    for (size_t r = 0; r < x.size(); ++r) {
        double inv = 1.0 / std::sqrt(sum_sq(x[r]) / 8 + 0.00001);
        for (size_t i = 0; i < 8; ++i)
            want[r][i] = bf16(x[r][i] * inv * w[i]);
    }
    json out = run(load("accept/rmsnorm.lg"), {{"hidden_states", x}, {"weight", w}});
    expect_matrix(out.at("output"), want);
}

TEST(Interpreter, FusedAddRmsnormFlatWithPinnedAxis) {
    const size_t rows = 2, h = 4096;
    Vec hs = values(rows * h, 3, bf16), res = values(rows * h, 4, bf16), w = values(h, 5, bf16);
    Vec want(rows * h);
    for (size_t r = 0; r < rows; ++r) {
        double ss = 0.0;
        for (size_t c = 0; c < h; ++c) {
            double x = bf16(hs[r * h + c] + res[r * h + c]);
            ss = ss + x * x;
        }
        double inv = 1.0 / std::sqrt(ss / static_cast<double>(h) + 1e-5);
        for (size_t c = 0; c < h; ++c)
            want[r * h + c] = bf16(bf16(hs[r * h + c] + res[r * h + c]) * inv * w[c]);
    }
    ast::Program p = load("accept/fused_add_rmsnorm.lg");
    json in = {{"hidden_states", hs},
               {"residual", res},
               {"weight", w},
               {"batch_size", rows},
               {"hidden_size", h}};
    // Allocated from `Check that length of output equals batch_size * hidden_size`.
    expect_vector(run(p, in).at("output"), want);
    // Given as an input, its initial contents are overwritten.
    in["output"] = Vec(rows * h, 7.0);
    expect_vector(run(p, in).at("output"), want);
}

TEST(Interpreter, FusedAddRmsnormCheckFailsOffThePinnedAxis) {
    ast::Program p = load("accept/fused_add_rmsnorm.lg");
    json in = {{"hidden_states", Vec(8, 1.0)},
               {"residual", Vec(8, 1.0)},
               {"weight", Vec(4, 1.0)},
               {"batch_size", 2},
               {"hidden_size", 4}};
    RuntimeError e = runtime_error([&] { run(p, in); });
    EXPECT_EQ(e.pos, (SourcePos{7, 5}));
    EXPECT_NE(std::string(e.what()).find("hidden_size equals 4096"), std::string::npos) << e.what();
}

TEST(Interpreter, PostNormResidual) {
    const size_t b = 2, s = 3, h = 6;
    std::vector<Mat> sub, res;
    for (unsigned k = 0; k < b; ++k) {
        sub.push_back(matrix(s, h, 10 + k, bf16));
        res.push_back(matrix(s, h, 20 + k, bf16));
    }
    Vec w = values(h, 6, bf16);
    double eps = 1e-6;
    json out = run(load("accept/post_norm_residual.lg"),
                   {{"sublayer_output", sub}, {"residual", res}, {"weight", w}, {"eps", eps}});
    for (size_t k = 0; k < b; ++k) {
        Mat want = sub[k];
        for (size_t r = 0; r < s; ++r) {
            double inv = 1.0 / std::sqrt(sum_sq(sub[k][r]) / static_cast<double>(h) + eps);
            for (size_t i = 0; i < h; ++i)
                want[r][i] = bf16(res[k][r][i] + bf16(w[i] * sub[k][r][i] * inv));
        }
        expect_matrix(out.at("output")[k], want);
    }
}

Mat softmax_ref(const Mat& x, double (*cap)(double)) {
    Mat want = x;
    for (size_t r = 0; r < x.size(); ++r) {
        Vec c = x[r];
        for (double& v : c)
            v = cap(v);
        double m = row_max(c), total = 0.0;
        for (double v : c)
            total = total + std::exp(v - m);
        for (size_t i = 0; i < c.size(); ++i)
            want[r][i] = std::exp(c[i] - m) / total;
    }
    return want;
}

TEST(Interpreter, Softmax) {
    Mat x = matrix(3, 7, 7, f32);
    Mat want = softmax_ref(x, [](double v) { return v; });
    for (Vec& row : want)
        for (double& v : row)
            v = f32(v);
    expect_matrix(run(load("accept/softmax.lg"), {{"input", x}}).at("output"), want);
}

TEST(Interpreter, SoftcapSoftmaxThroughHelperCalls) {
    Mat x = matrix(2, 9, 8, bf16);
    for (Vec& row : x)
        for (double& v : row)
            v = bf16(v * 40.0); // beyond the cap, so tanh matters
    Mat want = softmax_ref(x, [](double v) { return 30.0 * std::tanh(v / 30.0); });
    for (Vec& row : want)
        for (double& v : row)
            v = bf16(v);
    expect_matrix(run(load("accept/softcap_softmax.lg"), {{"scores", x}}).at("output"), want);
}

TEST(Interpreter, LogSoftmax) {
    Mat x = matrix(2, 5, 9, f32);
    Mat want = x;
    for (size_t r = 0; r < x.size(); ++r) {
        double m = row_max(x[r]), total = 0.0;
        for (double v : x[r])
            total = total + std::exp(v - m);
        for (size_t i = 0; i < x[r].size(); ++i)
            want[r][i] = f32(x[r][i] - (m + std::log(total)));
    }
    expect_matrix(run(load("accept/log_softmax.lg"), {{"logits", x}}).at("output"), want);
}

TEST(Interpreter, Layernorm) {
    Mat x = matrix(3, 6, 11, f32);
    Vec w = values(6, 12, f32), b = values(6, 13, f32);
    double eps = 1e-5;
    Mat want = x;
    for (size_t r = 0; r < x.size(); ++r) {
        double total = 0.0, sq = 0.0;
        for (double v : x[r])
            total = total + v;
        double mean = total / 6;
        for (double v : x[r])
            sq = sq + (v - mean) * (v - mean);
        double inv = 1.0 / std::sqrt(sq / 6 + eps);
        for (size_t i = 0; i < 6; ++i)
            want[r][i] = f32((x[r][i] - mean) * inv * w[i] + b[i]);
    }
    json out =
        run(load("accept/layernorm.lg"), {{"x", x}, {"weight", w}, {"bias", b}, {"eps", eps}});
    expect_matrix(out.at("output"), want);
}

TEST(Interpreter, SwigluPackedHalves) {
    Mat x = matrix(3, 10, 14, bf16);
    Mat want;
    for (const Vec& row : x) {
        Vec y;
        for (size_t i = 0; i < 5; ++i) {
            double g = row[i];
            y.push_back(bf16(g / (1.0 + std::exp(-g)) * row[i + 5]));
        }
        want.push_back(y);
    }
    expect_matrix(run(load("accept/swiglu_packed.lg"), {{"x", x}}).at("output"), want);
}

TEST(Interpreter, Geglu) {
    Mat g = matrix(2, 5, 15, f32), u = matrix(2, 5, 16, f32);
    Mat want = g;
    for (size_t r = 0; r < 2; ++r)
        for (size_t i = 0; i < 5; ++i) {
            double v = g[r][i];
            double gelu =
                0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
            want[r][i] = f32(gelu * u[r][i]);
        }
    expect_matrix(run(load("accept/geglu.lg"), {{"gate", g}, {"up", u}}).at("output"), want);
}

TEST(Interpreter, RowReductions) {
    Mat x = matrix(4, 6, 17, f32);
    Vec sums, norms;
    for (const Vec& row : x) {
        double s = 0.0;
        for (double v : row)
            s = s + v;
        sums.push_back(f32(s));
        norms.push_back(f32(std::sqrt(sum_sq(row))));
    }
    expect_vector(run(load("accept/row_sum.lg"), {{"x", x}}).at("output"), sums);
    expect_vector(run(load("accept/l2_norm.lg"), {{"x", x}}).at("output"), norms);
}

TEST(Interpreter, RowMaxWithIf) {
    Mat x = matrix(4, 7, 18, bf16);
    x[2][0] = 5.0; // the maximum first, last, and in the middle
    x[1][6] = 5.0;
    x[3][3] = 5.0;
    Vec want;
    for (const Vec& row : x)
        want.push_back(row_max(row));
    expect_vector(run(load("accept/row_max.lg"), {{"x", x}}).at("output"), want);
}

TEST(Interpreter, RmsnormWhileFlat) {
    const size_t rows = 3, cols = 5;
    Vec x = values(rows * cols, 19, f32), w = values(cols, 20, f32), want(rows * cols);
    for (size_t r = 0; r < rows; ++r) {
        double acc = 0.0;
        for (size_t c = 0; c < cols; ++c)
            acc = acc + x[r * cols + c] * x[r * cols + c];
        double scale = 1.0 / std::sqrt(acc / static_cast<double>(cols) + 0.000001);
        for (size_t c = 0; c < cols; ++c)
            want[r * cols + c] = f32(x[r * cols + c] * scale * w[c]);
    }
    json out =
        run(load("accept/rmsnorm_while.lg"), {{"x", x}, {"w", w}, {"rows", rows}, {"cols", cols}});
    expect_vector(out.at("y"), want);
    EXPECT_EQ(out.size(), 1u);
}

// -------------------------------------------- refused ops still run ----

TEST(Interpreter, RefusedOpsAreStillMeaningful) {
    json fact = run(load("refuse/recursion.lg"), {{"x", Mat{{1.0, -2.0}}}});
    expect_matrix(fact.at("output"), Mat{{6.0, -12.0}});
    json text = run(load("refuse/text_op.lg"), {{"name", "Ada"}});
    EXPECT_EQ(text.at("output"), "Hello, Ada");
    json gathered =
        run(load("refuse/gather.lg"), {{"table", Mat{{1, 2}, {3, 4}}}, {"ids", {1, 0, 1}}});
    expect_matrix(gathered.at("output"), Mat{{3, 4}, {1, 2}, {3, 4}});
    json prod =
        run(load("refuse/matmul.lg"), {{"a", Mat{{1, 2}, {3, 4}}}, {"b", Mat{{5, 6}, {7, 8}}}});
    expect_matrix(prod.at("output"), Mat{{19, 22}, {43, 50}});
    json sums = run(load("refuse/cumsum.lg"), {{"x", Mat{{1, 2, 3}}}});
    expect_matrix(sums.at("output"), Mat{{1, 3, 6}});
    json counts = run(load("refuse/data_loop.lg"), {{"x", Mat{{1, 2, -1}, {-5, 0, 0}}}});
    expect_vector(counts.at("output"), {2, 0});
}

// ------------------------------------------------------------ semantics ----

TEST(Interpreter, IntDivisionTruncatesTowardZero) {
    ast::Program p = parse_text("## To f (xs: Seq of Real) and (k: Int) -> Seq of Real:\n"
                                "    Let mutable out be a new Seq of Real.\n"
                                "    Push length of xs / 2 to out.\n"
                                "    Push k / 2 to out.\n"
                                "    Push k % 4 to out.\n"
                                "    Push k / 2.0 to out.\n"
                                "    Push item (length of xs / 2) of xs to out.\n"
                                "    Return out.\n");
    json out = run(p, {{"xs", {10, 20, 30, 40, 50, 60, 70}}, {"k", -7}});
    expect_vector(out.at("output"), {3, -3, -3, -3.5, 30});
}

TEST(Interpreter, CastsAndStoresRound) {
    ast::Program p = parse_text("## To f (v: Real) -> Seq of Float16:\n"
                                "    Let mutable out be a new Seq of Float16.\n"
                                "    Push v to out.\n"
                                "    Push (v as BFloat16) * 3.0 to out.\n"
                                "    Let x: Float32 be v.\n"
                                "    Push x - v to out.\n"
                                "    Return out.\n");
    double v = 1.0 + 1.0 / 1024 + 1.0 / 4096 + 1e-9;
    json out = run(p, {{"v", v}});
    expect_vector(out.at("output"), {f16(v), f16(bf16(v) * 3.0), f16(f32(v) - v)});
}

TEST(Interpreter, HelpersReturnFromGuards) {
    ast::Program p = parse_text("## To clamp01 (x: Real) -> Real:\n"
                                "    If x is less than 0.0:\n"
                                "        Return 0.0.\n"
                                "    elif x is greater than 1.0:\n"
                                "        Return 1.0.\n"
                                "    Return x.\n"
                                "\n"
                                "## To f (xs: Seq of Real) -> Seq of Real:\n"
                                "    Let mutable out be a new Seq of Real.\n"
                                "    Repeat for v in xs:\n"
                                "        Push clamp01(v) to out.\n"
                                "    Return out.\n");
    expect_vector(run(p, {{"xs", {-1.0, 0.25, 3.0}}}).at("output"), {0.0, 0.25, 1.0});
}

TEST(Interpreter, NestedIntoOutputGetsRowsToPushTo) {
    ast::Program p = parse_text("## To f (x: Seq of Seq of Real) into (y: Seq of Seq of Real):\n"
                                "    Check that length of y equals length of x.\n"
                                "    Repeat for r from 1 to length of x:\n"
                                "        Repeat for v in item r of x:\n"
                                "            Push v * 2.0 to item r of y.\n");
    expect_matrix(run(p, {{"x", Mat{{1, 2}, {3, 4}}}}).at("y"), Mat{{2, 4}, {6, 8}});
}

// --------------------------------------------------------------- errors ----

TEST(Interpreter, ItemZeroNamesTheRule) {
    ast::Program p = parse_text("## To f (xs: Seq of Real) -> Real:\n"
                                "    Return item 0 of xs.\n");
    RuntimeError e = runtime_error([&] { run(p, {{"xs", {1.0}}}); });
    EXPECT_EQ(e.pos, (SourcePos{2, 12}));
    EXPECT_EQ(std::string(e.what()), "item 0 of xs: LOGOS indices start at 1");
}

TEST(Interpreter, ReadAndWriteOutOfRange) {
    ast::Program read = parse_text("## To f (xs: Seq of Real) -> Real:\n"
                                   "    Return item (length of xs + 1) of xs.\n");
    RuntimeError e = runtime_error([&] { run(read, {{"xs", {1.0, 2.0}}}); });
    EXPECT_EQ(e.pos, (SourcePos{2, 12}));
    EXPECT_NE(std::string(e.what()).find("item 3 of xs is out of range"), std::string::npos);

    ast::Program write = parse_text("## To f (n: Int) into (out: Seq of Real):\n"
                                    "    Check that length of out equals n.\n"
                                    "    Set item (n + 1) of out to 1.0.\n");
    RuntimeError w = runtime_error([&] { run(write, {{"n", 2}}); });
    EXPECT_EQ(w.pos.line, 3);
    EXPECT_NE(std::string(w.what()).find("out of range"), std::string::npos);
}

TEST(Interpreter, StepLimitStopsAnEndlessWhile) {
    ast::Program p = parse_text("## To f (x: Real) -> Real:\n"
                                "    Let mutable n be 0.\n"
                                "    While true:\n"
                                "        Set n to n + 1.\n"
                                "    Return x.\n");
    InterpreterLimits limits;
    limits.max_steps = 10000;
    RuntimeError e = runtime_error([&] { run(p, {{"x", 1.0}}, limits); });
    EXPECT_TRUE(e.pos.line == 3 || e.pos.line == 4) << e.pos.line; // the loop or its body
    EXPECT_NE(std::string(e.what()).find("step limit exceeded"), std::string::npos);
}

TEST(Interpreter, RecursionDepthLimit) {
    ast::Program p = load("refuse/recursion.lg");
    InterpreterLimits limits;
    limits.max_call_depth = 3; // the op, fact(3), fact(2): fact(1) is one too deep
    RuntimeError e = runtime_error([&] { run(p, {{"x", Mat{{1.0}}}}, limits); });
    EXPECT_NE(std::string(e.what()).find("call depth limit"), std::string::npos) << e.what();
    EXPECT_EQ(e.pos.line, 6);

    ast::Program endless = parse_text("## To g (n: Real) -> Real:\n"
                                      "    Return g(n + 1.0).\n"
                                      "\n"
                                      "## To f (x: Real) -> Real:\n"
                                      "    Return g(x).\n");
    RuntimeError d = runtime_error([&] { run(endless, {{"x", 0.0}}); });
    EXPECT_NE(std::string(d.what()).find("call depth limit (256)"), std::string::npos);
}

TEST(Interpreter, BadInputsPointAtTheParameter) {
    ast::Program p = load("accept/rmsnorm_while.lg");
    json good = {{"x", {1, 2, 3, 4}}, {"w", {1, 1}}, {"rows", 2}, {"cols", 2}};
    // Line 3 is the header; each message names the parameter.
    auto fails = [&](json in, const std::string& needle) {
        RuntimeError e = runtime_error([&] { run(p, in); });
        EXPECT_EQ(e.pos.line, 3) << e.what();
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    };
    json missing = good;
    missing.erase("w");
    fails(missing, "missing input `w`");
    json extra = good;
    extra["z"] = 1;
    fails(extra, "unexpected input `z`");
    json nested = good;
    nested["x"] = Mat{{1, 2}, {3, 4}};
    fails(nested, "input `x`");
    json fractional = good;
    fractional["cols"] = 2.5;
    fails(fractional, "input `cols`: expected an integer");
    fails(json::array(), "JSON object");
    json short_x = good; // well-formed, but its contract on line 4 fails
    short_x["x"] = {1, 2, 3};
    RuntimeError check = runtime_error([&] { run(p, short_x); });
    EXPECT_EQ(check.pos, (SourcePos{4, 5}));
    EXPECT_NE(std::string(check.what()).find("(3 vs 4)"), std::string::npos) << check.what();

    ast::Program rect = load("accept/row_sum.lg");
    RuntimeError ragged = runtime_error([&] { run(rect, {{"x", Mat{{1, 2}, {3}}}}); });
    EXPECT_NE(std::string(ragged.what()).find("ragged"), std::string::npos);
}

TEST(Interpreter, OutputUsedBeforeItIsSized) {
    ast::Program p = parse_text("## To f (n: Int) into (out: Seq of Real):\n"
                                "    Set item 1 of out to 1.0.\n"
                                "    Check that length of out equals n.\n");
    RuntimeError e = runtime_error([&] { run(p, {{"n", 2}}); });
    EXPECT_EQ(e.pos, (SourcePos{2, 19}));
    EXPECT_NE(std::string(e.what()).find("before"), std::string::npos) << e.what();
}

TEST(Interpreter, FailedCheckNamesItsPosition) {
    ast::Program p = parse_text("## To f (xs: Seq of Real) -> Real:\n"
                                "    Check that length of xs is at least 3.\n"
                                "    Return item 3 of xs.\n");
    EXPECT_DOUBLE_EQ(run(p, {{"xs", {1, 2, 5}}}).at("output").get<double>(), 5.0);
    RuntimeError e = runtime_error([&] { run(p, {{"xs", {1, 2}}}); });
    EXPECT_EQ(e.pos, (SourcePos{2, 5}));
    EXPECT_NE(std::string(e.what()).find("Check failed"), std::string::npos);
}

} // namespace

TEST(Interpreter, R2Forms) {
    ast::Program p = parse_text("## To f (xs: Seq of Real) -> Seq of Real:\n"
                                "    Let mutable out be a new Seq of Real.\n"
                                "    Push 2.0 ** 3 to out.\n"
                                "    Push 2 to the power of 0.5 to out.\n"
                                "    Push round(2.5) + round(-0.5) + round(3.5) to out.\n"
                                "    Push floor(-1.5) + ceil(-1.5) to out.\n"
                                "    Push floor(7) to out.\n"
                                "    Let s be items 2 through 3 of xs.\n"
                                "    Push the length of s to out.\n"
                                "    Push item 1 of s to out.\n"
                                "    If item 2 of s is between 25 and 30:\n"
                                "        Push 1.0 to out.\n"
                                "    Push length of items 3 through 2 of xs to out.\n"
                                "    Return out.\n");
    json out = run(p, {{"xs", {10, 20, 30, 40}}});
    // round is half to even: 2 + (-0) + 4.
    expect_vector(out.at("output"), {8, std::sqrt(2.0), 6, -3, 7, 2, 20, 1, 0});
}

TEST(Interpreter, SliceOutsideTheSequenceIsAnError) {
    ast::Program p = parse_text("## To f (xs: Seq of Real) -> Real:\n"
                                "    Let s be items 2 through 5 of xs.\n"
                                "    Return item 1 of s.\n");
    RuntimeError e = runtime_error([&] { run(p, {{"xs", {1, 2, 3}}}); });
    EXPECT_EQ(e.pos.line, 2);
    EXPECT_NE(std::string(e.what()).find("items 2 through 5 of a sequence of 3 items"),
              std::string::npos)
        << e.what();
}

TEST(Interpreter, MutableOutputParameter) {
    ast::Program p = parse_text("## To f (x: Seq of Real) and (out: mutable Seq of Real):\n"
                                "    Check that length of out equals length of x.\n"
                                "    Repeat for i from 1 to length of x:\n"
                                "        Set item i of out to item i of x * 2.0.\n");
    json out = run(p, {{"x", {1, 2}}});
    expect_vector(out.at("out"), {2, 4});
}

// logos-ops.md §6 (r2): to an integer type, truncation toward zero; outside
// the type's range, an error in the op, at the cast or at the store.
TEST(Interpreter, NarrowIntegerCastsTruncateAndCheckTheRange) {
    ast::Program p = parse_text("## To q (x: Seq of Float32) into (y: Seq of Int8):\n"
                                "    Repeat for i from 1 to length of x:\n"
                                "        Set item i of y to item i of x as Int8.\n");
    json out = run(p, {{"x", Vec{2.9, -2.9, 127.0, -128.0}}, {"y", Vec(4, 0.0)}});
    EXPECT_EQ(out.at("y"), json::parse("[2, -2, 127, -128]"));
    RuntimeError e = runtime_error([&] { run(p, {{"x", Vec{200.0}}, {"y", Vec{0.0}}}); });
    EXPECT_NE(std::string(e.what()).find("outside the range of Int8"), std::string::npos)
        << e.what();
    ast::Program store = parse_text("## To q (x: Seq of Int16) into (y: Seq of Int8):\n"
                                    "    Repeat for i from 1 to length of x:\n"
                                    "        Set item i of y to item i of x.\n");
    RuntimeError s = runtime_error([&] { run(store, {{"x", Vec{300.0}}, {"y", Vec{0.0}}}); });
    EXPECT_NE(std::string(s.what()).find("outside the range of Int8"), std::string::npos)
        << s.what();
}

TEST(Interpreter, Float8StoresRound) {
    ast::Program p = parse_text("## To f (x: Seq of Float32) into (y: Seq of Float8E4M3):\n"
                                "    Repeat for i from 1 to length of x:\n"
                                "        Set item i of y to item i of x.\n");
    json out = run(p, {{"x", Vec{0.3, 464.0, -1000.0}}, {"y", Vec(3, 0.0)}});
    expect_vector(out.at("y"), Vec{0.3125, 448.0, -448.0});
}
