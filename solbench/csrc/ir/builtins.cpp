#include "ir/builtins.h"

#include <cmath>

namespace solbench::ir {

namespace {

// fmax/fmin ignore a NaN operand, as LOGOS's (Rust's) f64::max and CUDA's fmaxf do.
// nearbyint rounds half to even under the default rounding mode, as torch.round.
constexpr Builtin kBuiltins[] = {
    {"sqrt", Op::Sqrt, 1, [](double x, double) { return std::sqrt(x); }, false, "sqrtf",
     "torch.sqrt", "math.sqrt"},
    {"exp", Op::Exp, 1, [](double x, double) { return std::exp(x); }, false, "expf", "torch.exp",
     "math.exp"},
    {"log", Op::Log, 1, [](double x, double) { return std::log(x); }, false, "logf", "torch.log",
     "math.log"},
    {"tanh", Op::Tanh, 1, [](double x, double) { return std::tanh(x); }, false, "tanhf",
     "torch.tanh", "math.tanh"},
    {"abs", Op::Abs, 1, [](double x, double) { return std::fabs(x); }, true, "fabsf", "torch.abs",
     "abs"},
    {"erf", Op::Erf, 1, [](double x, double) { return std::erf(x); }, false, "erff", "torch.erf",
     "math.erf"},
    // The kernel spells these itself: --use_fast_math makes sinf __sinf, whose error grows
    // with |x| (a RoPE angle reaches thousands of radians).
    {"sin", Op::Sin, 1, [](double x, double) { return std::sin(x); }, false, "", "torch.sin",
     "math.sin"},
    {"cos", Op::Cos, 1, [](double x, double) { return std::cos(x); }, false, "", "torch.cos",
     "math.cos"},
    {"sigmoid", Op::Sigmoid, 1, [](double x, double) { return 1.0 / (1.0 + std::exp(-x)); }, false,
     "", "torch.sigmoid", ""},
    {"floor", Op::Floor, 1, [](double x, double) { return std::floor(x); }, true, "floorf",
     "torch.floor", "math.floor"},
    {"ceil", Op::Ceil, 1, [](double x, double) { return std::ceil(x); }, true, "ceilf",
     "torch.ceil", "math.ceil"},
    {"round", Op::Round, 1, [](double x, double) { return std::nearbyint(x); }, true, "rintf",
     "torch.round", "round"},
    {"max", Op::Max, 2, [](double x, double y) { return std::fmax(x, y); }, true, "fmaxf", "", ""},
    {"min", Op::Min, 2, [](double x, double y) { return std::fmin(x, y); }, true, "fminf", "", ""},
    {"pow", Op::Pow, 2, [](double x, double y) { return std::pow(x, y); }, false, "", "", ""},
};

} // namespace

std::span<const Builtin> builtins() {
    return kBuiltins;
}

const Builtin* find_builtin(std::string_view name) {
    for (const Builtin& b : kBuiltins)
        if (b.name == name) return &b;
    return nullptr;
}

const Builtin* find_builtin(Op op) {
    for (const Builtin& b : kBuiltins)
        if (b.op == op) return &b;
    return nullptr;
}

std::string builtin_names() {
    std::string s;
    for (const Builtin& b : kBuiltins)
        s += (s.empty() ? "" : " ") + std::string(b.name);
    return s;
}

} // namespace solbench::ir
