// The IR means what the op means: for every accepted op of both corpora, the
// IR evaluator and the tree-walking interpreter agree (relative error <= 1e-6,
// float64) on random inputs of three shapes.
#include "corpus_util.h"
#include "driver/compile.h"
#include "frontend/interpreter.h"
#include "ir/evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

using namespace solbench;
using solbench::testing::load_json;

namespace {

struct OpFile {
    std::string path;
};
void PrintTo(const OpFile& f, std::ostream* os) {
    *os << f.path;
}

std::vector<OpFile> accepted() {
    std::vector<OpFile> out;
    for (const std::string& dir : solbench::testing::corpora()) {
        nlohmann::json manifest = load_json(dir + "/manifest.json");
        for (auto& [file, _] : manifest["accept"].items())
            out.push_back({dir + "/" + file});
    }
    return out;
}

nlohmann::json nested(const std::vector<int64_t>& dims, size_t depth,
                      const std::function<nlohmann::json()>& next) {
    nlohmann::json a = nlohmann::json::array();
    for (int64_t i = 0; i < dims[depth]; ++i)
        a.push_back(depth + 1 == dims.size() ? nlohmann::json(next())
                                             : nested(dims, depth + 1, next));
    return a;
}

// Random inputs (and zeroed `into` outputs) for one shape choice.
nlohmann::json make_inputs(const ast::Function& fn, const ir::OpIR& op, int shape,
                           std::mt19937& rng) {
    std::vector<int64_t> axis(op.axes.size());
    const int64_t row_sizes[] = {1, 3, 2}, col_sizes[] = {5, 8, 1};
    for (size_t a = 0; a < op.axes.size(); ++a) {
        bool is_row = std::find(op.row_axes.begin(), op.row_axes.end(), static_cast<int>(a)) !=
                      op.row_axes.end();
        axis[a] = op.axes[a].value ? *op.axes[a].value
                  : is_row         ? row_sizes[shape] + static_cast<int64_t>(a)
                                   : col_sizes[shape];
    }
    // A merged row (r2 §8): parts of different sizes (a transposed plane shows), the row
    // their product.
    for (size_t a = 0; a < op.axes.size(); ++a)
        if (!op.axes[a].parts.empty()) {
            axis[a] = 1;
            for (size_t j = 0; j < op.axes[a].parts.size(); ++j) {
                const auto p = static_cast<size_t>(op.axes[a].parts[j]);
                if (!op.axes[p].value) axis[p] = col_sizes[shape] + static_cast<int64_t>(j);
                axis[a] *= axis[p];
            }
        }
    std::normal_distribution<double> normal;
    auto dims_of = [&](const ir::Tensor& t) {
        std::vector<int64_t> d;
        for (const ir::Dim& x : ir::real_shape(op, t)) // as the interpreter sees it
            d.push_back(x.scale * axis[static_cast<size_t>(x.axis)]);
        return d;
    };
    auto tensor_json = [&](const ir::Tensor& t, bool zeros) {
        std::vector<int64_t> d = dims_of(t);
        // A Bool tensor holds true or false (the interpreter takes no numbers for it).
        auto next = [&]() -> nlohmann::json {
            if (t.dtype == ir::DType::Bool) return !zeros && normal(rng) > 0.0;
            return zeros ? 0.0 : ir::round_to(t.dtype, normal(rng));
        };
        if (t.flat) {
            int64_t n = 1;
            for (int64_t x : d)
                n *= x;
            return nested({n}, 0, next);
        }
        return nested(d, 0, next);
    };
    nlohmann::json j = nlohmann::json::object();
    for (size_t a = 0; a < op.axes.size(); ++a)
        for (const ast::Param& p : fn.params) {
            if (p.type.elem != ast::ElemType::Int || p.type.rank != 0) continue;
            if (p.name == op.axes[a].name) j[p.name] = axis[a];
            // `cols / 2` made cols two halves: the IR keeps the half axis.
            if (p.name + "_half" == op.axes[a].name) j[p.name] = 2 * axis[a];
        }
    for (const ast::Param& p : fn.params) {
        auto find = [&](const std::vector<ir::Tensor>& ts) -> const ir::Tensor* {
            for (const ir::Tensor& t : ts)
                if (t.name == p.name) return &t;
            return nullptr;
        };
        if (p.is_output) {
            if (const ir::Tensor* t = find(op.outputs)) j[p.name] = tensor_json(*t, true);
        } else if (const ir::Tensor* t = find(op.inputs)) {
            if (t->role == ir::Role::Scalar)
                j[p.name] =
                    p.name.find("eps") != std::string::npos ? 1e-5 : 0.5 + std::fabs(normal(rng));
            else
                j[p.name] = tensor_json(*t, false);
        }
    }
    return j;
}

void expect_close(const nlohmann::json& a, const nlohmann::json& b, const std::string& where) {
    if (a.is_array()) {
        ASSERT_TRUE(b.is_array()) << where;
        ASSERT_EQ(a.size(), b.size()) << where;
        for (size_t i = 0; i < a.size(); ++i)
            expect_close(a[i], b[i], where + "[" + std::to_string(i) + "]");
        return;
    }
    auto number = [](const nlohmann::json& v) {
        return v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>();
    };
    double x = number(a), y = number(b);
    EXPECT_LE(std::fabs(x - y), 1e-6 * std::max(std::fabs(x), std::fabs(y)) + 1e-300)
        << where << ": interpreter " << x << " vs IR " << y;
}

class Agreement : public ::testing::TestWithParam<OpFile> {};

} // namespace

TEST_P(Agreement, IrEvaluatorMatchesInterpreter) {
    Compiled c = compile_file(GetParam().path);
    const auto* d = std::get_if<OpDescription>(&c.result);
    ASSERT_NE(d, nullptr) << GetParam().path << " is not recognized";
    std::mt19937 rng(1234);
    for (int shape = 0; shape < 3; ++shape) {
        nlohmann::json inputs = make_inputs(*c.op, d->ir, shape, rng);
        nlohmann::json want = interpret(c.program, *c.op, inputs);
        nlohmann::json got = ir::evaluate(d->ir, inputs);
        ASSERT_EQ(want.size(), got.size()) << want.dump() << " vs " << got.dump();
        for (auto& [name, value] : want.items()) {
            ASSERT_TRUE(got.contains(name)) << name;
            expect_close(value, got[name], name + " (shape " + std::to_string(shape) + ")");
        }
    }
}

TEST(AgreementCheck, DetectsADifferentOp) {
    // The comparison has teeth: rmsnorm's IR against softmax's interpreter run differs.
    Compiled rms = compile_file(solbench::testing::base_corpus() + "/accept/softmax.lg");
    Compiled lsm = compile_file(solbench::testing::base_corpus() + "/accept/log_softmax.lg");
    const auto& a = std::get<OpDescription>(rms.result);
    const auto& b = std::get<OpDescription>(lsm.result);
    nlohmann::json in = {{"input", {{1.0, 2.0, 3.0}}}, {"logits", {{1.0, 2.0, 3.0}}}};
    EXPECT_NE(ir::evaluate(a.ir, in)["output"], ir::evaluate(b.ir, in)["output"]);
}

INSTANTIATE_TEST_SUITE_P(Corpora, Agreement, ::testing::ValuesIn(accepted()),
                         [](const ::testing::TestParamInfo<OpFile>& p) {
                             std::string n =
                                 p.param.path.substr(p.param.path.find_last_of('/') + 1);
                             n = solbench::testing::corpus_label(p.param.path) + n;
                             for (char& ch : n)
                                 if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return n;
                         });
