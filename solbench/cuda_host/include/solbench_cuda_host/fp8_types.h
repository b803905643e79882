// __nv_fp8_e4m3 / __nv_fp8_e5m2: 8-bit storage structs and the two conversion intrinsics the
// kernels use, with the results of CUDA's cuda_fp8.h: float to FP8 rounds to nearest-even, NaN
// becomes 0x7f (E4M3) or 0x7e plus the top mantissa bits (E5M2), and past the largest finite
// value (448, 57344) __NV_SATFINITE gives the largest finite value and __NV_NOSAT NaN (E4M3,
// which has no infinity) or infinity (E5M2). FP8 to half is exact.
#pragma once

#include <algorithm>
#include <cmath>

#include "half_types.h"

using __nv_fp8_storage_t = unsigned char;
enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE };
enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 };

namespace solbench_cuda_host::detail {

struct Fp8Format {
    int mantissa;      // explicit mantissa bits
    int bias;          // exponent bias
    double max_finite; // largest finite value
};

inline Fp8Format fp8_format(__nv_fp8_interpretation_t f) {
    return f == __NV_E4M3 ? Fp8Format{3, 7, 448.0} : Fp8Format{2, 15, 57344.0};
}

// The magnitude `a` (already rounded to the format) as sign-less FP8 bits.
inline unsigned char fp8_encode(double a, const Fp8Format& f) {
    if (a == 0.0) return 0;
    const int min_exp = 1 - f.bias;
    int exp = 0;
    std::frexp(a, &exp); // a = m * 2^exp, m in [0.5, 1)
    const int e = exp - 1;
    if (e < min_exp) // subnormal: a whole number of the smallest quantum
        return static_cast<unsigned char>(std::ldexp(a, f.mantissa - min_exp));
    const double frac = std::ldexp(a, -e) - 1.0; // in [0, 1)
    return static_cast<unsigned char>(((e + f.bias) << f.mantissa) |
                                      static_cast<int>(std::ldexp(frac, f.mantissa)));
}

inline unsigned char float_to_fp8(float x, __nv_saturation_t sat, __nv_fp8_interpretation_t fmt) {
    const Fp8Format f = fp8_format(fmt);
    const unsigned int bits = float_bits(x);
    const unsigned char sign = static_cast<unsigned char>((bits >> 24U) & 0x80U);
    if (std::isnan(x))
        return static_cast<unsigned char>(
            sign | (fmt == __NV_E4M3 ? 0x7fU : (0x7eU | ((bits >> 21U) & 0x3U))));
    const double a = std::fabs(static_cast<double>(x));
    double r = a;
    if (!std::isinf(a)) {
        int exp = 0;
        std::frexp(a, &exp);
        const double quantum = std::ldexp(1.0, std::max(exp - 1, 1 - f.bias) - f.mantissa);
        r = std::nearbyint(a / quantum) * quantum; // nearest-even in the default rounding mode
    }
    if (r > f.max_finite) {
        if (sat == __NV_SATFINITE)
            return static_cast<unsigned char>(sign | fp8_encode(f.max_finite, f));
        return static_cast<unsigned char>(sign | (fmt == __NV_E4M3 ? 0x7fU : 0x7cU));
    }
    return static_cast<unsigned char>(sign | fp8_encode(r, f));
}

inline float fp8_to_float(unsigned char v, __nv_fp8_interpretation_t fmt) {
    const Fp8Format f = fp8_format(fmt);
    const int exp_bits = 7 - f.mantissa;
    const int e = (v >> f.mantissa) & ((1 << exp_bits) - 1);
    const int m = v & ((1 << f.mantissa) - 1);
    const double sign = (v & 0x80U) != 0U ? -1.0 : 1.0;
    if (fmt == __NV_E4M3 && e == 15 && m == 7) return std::copysign(NAN, sign);
    if (fmt == __NV_E5M2 && e == 31)
        return m == 0 ? static_cast<float>(sign * INFINITY) : std::copysign(NAN, sign);
    const double value = e == 0 ? std::ldexp(m, 1 - f.bias - f.mantissa)
                                : std::ldexp(1.0 + std::ldexp(m, -f.mantissa), e - f.bias);
    return static_cast<float>(sign * value);
}

} // namespace solbench_cuda_host::detail

inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t sat,
                                                __nv_fp8_interpretation_t fmt) {
    return solbench_cuda_host::detail::float_to_fp8(x, sat, fmt);
}
inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t fmt) {
    return __half_raw{solbench_cuda_host::detail::float_to_half_rn(
        solbench_cuda_host::detail::fp8_to_float(x, fmt))};
}

struct __attribute__((may_alias)) __nv_fp8_e4m3 {
    __nv_fp8_storage_t __x;
    __nv_fp8_e4m3() = default;
};
struct __attribute__((may_alias)) __nv_fp8_e5m2 {
    __nv_fp8_storage_t __x;
    __nv_fp8_e5m2() = default;
};
