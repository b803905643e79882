// Element types: benchmark spellings and IEEE rounding to narrow types.
#include "ir/op_ir.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace solbench::ir {

const char* benchmark_name(DType t) {
    switch (t) {
    case DType::Float32:
        return "float32";
    case DType::Float16:
        return "float16";
    case DType::BFloat16:
        return "bfloat16";
    case DType::Float64:
        return "float64";
    case DType::Int32:
        return "int32";
    case DType::Int64:
        return "int64";
    case DType::Bool:
        return "bool";
    case DType::Int8:
        return "int8";
    case DType::Int16:
        return "int16";
    case DType::UInt8:
        return "uint8";
    case DType::Float8E4M3:
        return "float8_e4m3fn";
    case DType::Float8E5M2:
        return "float8_e5m2";
    }
    return "float32";
}

std::optional<DType> dtype_from_benchmark(std::string_view name) {
    // Not UInt8: the benchmark has no unsigned dtype.
    for (DType t : {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64, DType::Int32,
                    DType::Int64, DType::Bool, DType::Int8, DType::Int16, DType::Float8E4M3,
                    DType::Float8E5M2})
        if (name == benchmark_name(t)) return t;
    return std::nullopt;
}

bool is_floating(DType t) {
    return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16 ||
           t == DType::Float64 || t == DType::Float8E4M3 || t == DType::Float8E5M2;
}

bool is_integer(DType t) {
    return t == DType::Int8 || t == DType::Int16 || t == DType::UInt8 || t == DType::Int32 ||
           t == DType::Int64;
}

std::pair<int64_t, int64_t> integer_range(DType t) {
    switch (t) {
    case DType::Int8:
        return {-128, 127};
    case DType::Int16:
        return {-32768, 32767};
    case DType::UInt8:
        return {0, 255};
    case DType::Int32:
        return {INT32_MIN, INT32_MAX};
    default:
        return {INT64_MIN, INT64_MAX};
    }
}

namespace {

// bfloat16 is the top half of a float32: round the low 16 bits to nearest-even.
double round_bf16(double v) {
    float f = static_cast<float>(v);
    if (std::isnan(f)) return v;
    uint32_t bits = std::bit_cast<uint32_t>(f);
    uint32_t lsb = (bits >> 16) & 1u;
    bits += 0x7fffu + lsb;
    bits &= 0xffff0000u;
    return static_cast<double>(std::bit_cast<float>(bits));
}

// IEEE binary16: 10 explicit mantissa bits, exponent range [-14, 15].
double round_fp16(double v) {
    if (std::isnan(v) || std::isinf(v)) return v;
    double a = std::fabs(v);
    if (a >= 65520.0) return std::copysign(INFINITY, v); // rounds past the max finite 65504
    int exp = 0;
    std::frexp(a, &exp);            // a = m * 2^exp, m in [0.5, 1)
    int e = std::max(exp - 1, -14); // subnormals share the -14 exponent
    double quantum = std::ldexp(1.0, e - 10);
    return std::copysign(std::nearbyint(a / quantum) * quantum, v); // nearest-even (default mode)
}

// A small binary float with `mantissa` explicit bits, normal exponents down
// to `min_exp` (subnormals below share it) and `max_finite` as its largest
// value: nearest-even from the float32 value, as a kernel converts it. Past
// the largest value: `max_finite` when saturating (FP8 E4M3), else infinity.
double round_minifloat(double v, int mantissa, int min_exp, double max_finite, bool saturate) {
    v = static_cast<double>(static_cast<float>(v));
    if (std::isnan(v)) return v;
    double a = std::fabs(v), r = a;
    if (!std::isinf(a)) {
        int exp = 0;
        std::frexp(a, &exp);
        double quantum = std::ldexp(1.0, std::max(exp - 1, min_exp) - mantissa);
        r = std::nearbyint(a / quantum) * quantum; // nearest-even (default mode)
    }
    if (r > max_finite) r = saturate ? max_finite : INFINITY;
    return std::copysign(r, v);
}

} // namespace

double round_to(DType t, double v) {
    switch (t) {
    case DType::Float32:
        return static_cast<double>(static_cast<float>(v));
    case DType::BFloat16:
        return round_bf16(v);
    case DType::Float16:
        return round_fp16(v);
    case DType::Float64:
        return v;
    case DType::Float8E4M3:
        return round_minifloat(v, 3, -6, 448.0, true);
    case DType::Float8E5M2:
        return round_minifloat(v, 2, -14, 57344.0, false);
    case DType::Int8:
    case DType::Int16:
    case DType::UInt8:
    case DType::Int32:
    case DType::Int64:
        return std::trunc(v);
    case DType::Bool:
        return v != 0.0 ? 1.0 : 0.0;
    }
    return v;
}

} // namespace solbench::ir
