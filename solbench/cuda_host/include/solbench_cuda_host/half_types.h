// __nv_bfloat16 / __half and their pairs: 16-bit storage structs plus the conversion intrinsics,
// bit-exact with CUDA's round-to-nearest-even (cuda_bf16.hpp / cuda_fp16.hpp). As under torch's
// nvcc flags (__CUDA_NO_HALF_CONVERSIONS__ etc.), there are no implicit float conversions and no
// arithmetic operators: kernels must use the explicit intrinsics.
#pragma once

#include <cstring>

#include "runtime_types.h"

namespace solbench_cuda_host::detail {

inline unsigned int float_bits(float f) {
    unsigned int u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

inline float bits_float(unsigned int u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// cvt.rn.bf16.f32: NaN becomes the canonical 0x7fff.
inline unsigned short float_to_bf16_rn(float f) {
    const unsigned int x = float_bits(f);
    if ((x & 0x7fffffffU) > 0x7f800000U) return 0x7fffU;
    const unsigned int remainder = x << 16U;
    unsigned int r = x >> 16U;
    if (remainder > 0x80000000U || (remainder == 0x80000000U && (r & 1U) != 0U)) ++r;
    return static_cast<unsigned short>(r);
}

// cvt.rn.f16.f32 (CUDA's __internal_float2half + rn rounding); NaN becomes 0x7fff.
inline unsigned short float_to_half_rn(float f) {
    const unsigned int x = float_bits(f);
    unsigned int u = x & 0x7fffffffU;
    const unsigned int sign = (x >> 16U) & 0x8000U;
    unsigned int remainder;
    unsigned int r;
    if (u >= 0x7f800000U) {
        return static_cast<unsigned short>(u == 0x7f800000U ? (sign | 0x7c00U) : 0x7fffU);
    } else if (u > 0x477fefffU) {
        remainder = 0x80000000U;
        r = sign | 0x7bffU;
    } else if (u >= 0x38800000U) {
        remainder = u << 19U;
        u -= 0x38000000U;
        r = sign | (u >> 13U);
    } else if (u < 0x33000001U) {
        remainder = u;
        r = sign;
    } else {
        const unsigned int exponent = u >> 23U;
        const unsigned int shift = 0x7eU - exponent;
        const unsigned int mantissa = (u & 0x7fffffU) | 0x800000U;
        remainder = mantissa << (32U - shift);
        r = (sign | (mantissa >> shift)) & 0xffffU;
    }
    if (remainder > 0x80000000U || (remainder == 0x80000000U && (r & 1U) != 0U)) ++r;
    return static_cast<unsigned short>(r);
}

// Exact widening (cvt.f32.f16); NaN payloads are kept, as the hardware does.
inline float half_to_float(unsigned short h) {
    const unsigned int sign = (static_cast<unsigned int>(h) & 0x8000U) << 16U;
    unsigned int exponent = (static_cast<unsigned int>(h) >> 10U) & 0x1fU;
    unsigned int mantissa = static_cast<unsigned int>(h) & 0x3ffU;
    if (exponent == 0x1fU) return bits_float(sign | 0x7f800000U | (mantissa << 13U));
    if (exponent == 0U) {
        if (mantissa == 0U) return bits_float(sign);
        exponent = 0x71U; // renormalise a subnormal
        while ((mantissa & 0x400U) == 0U) {
            mantissa <<= 1U;
            --exponent;
        }
        mantissa &= 0x3ffU;
        return bits_float(sign | (exponent << 23U) | (mantissa << 13U));
    }
    return bits_float(sign | ((exponent + 0x70U) << 23U) | (mantissa << 13U));
}

} // namespace solbench_cuda_host::detail

struct __nv_bfloat16_raw {
    unsigned short x;
};
struct __attribute__((may_alias)) __align__(2) __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    constexpr __nv_bfloat16(const __nv_bfloat16_raw& r) : __x(r.x) {}
    constexpr operator __nv_bfloat16_raw() const {
        return __nv_bfloat16_raw{__x};
    }
};
struct __attribute__((may_alias)) __align__(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
    __nv_bfloat162() = default;
    constexpr __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b) : x(a), y(b) {}
};
using nv_bfloat16 = __nv_bfloat16;
using nv_bfloat162 = __nv_bfloat162;

struct __half_raw {
    unsigned short x;
};
struct __attribute__((may_alias)) __align__(2) __half {
    unsigned short __x;
    __half() = default;
    constexpr __half(const __half_raw& r) : __x(r.x) {}
    constexpr operator __half_raw() const {
        return __half_raw{__x};
    }
};
struct __attribute__((may_alias)) __align__(4) __half2 {
    __half x, y;
    __half2() = default;
    constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
};
using half = __half;
using half2 = __half2;

// ---- bfloat16 conversions
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) {
    return __nv_bfloat16_raw{u};
}
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) {
    return h.__x;
}
inline __nv_bfloat16 __float2bfloat16_rn(float f) {
    return __nv_bfloat16_raw{solbench_cuda_host::detail::float_to_bf16_rn(f)};
}
inline __nv_bfloat16 __float2bfloat16(float f) {
    return __float2bfloat16_rn(f);
}
inline float __bfloat162float(__nv_bfloat16 h) {
    return solbench_cuda_host::detail::bits_float(static_cast<unsigned int>(h.__x) << 16U);
}
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
    return __nv_bfloat162(__float2bfloat16_rn(a), __float2bfloat16_rn(b));
}
inline __nv_bfloat162 __float2bfloat162_rn(float a) {
    return __floats2bfloat162_rn(a, a);
}
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) {
    return __floats2bfloat162_rn(f.x, f.y);
}
inline float2 __bfloat1622float2(__nv_bfloat162 h) {
    return make_float2(__bfloat162float(h.x), __bfloat162float(h.y));
}
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) {
    return {a, b};
}
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) {
    return {a, a};
}
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) {
    return h.x;
}
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) {
    return h.y;
}
inline float __low2float(__nv_bfloat162 h) {
    return __bfloat162float(h.x);
}
inline float __high2float(__nv_bfloat162 h) {
    return __bfloat162float(h.y);
}

// ---- half conversions
inline __half __ushort_as_half(unsigned short u) {
    return __half_raw{u};
}
inline unsigned short __half_as_ushort(__half h) {
    return h.__x;
}
inline __half __float2half_rn(float f) {
    return __half_raw{solbench_cuda_host::detail::float_to_half_rn(f)};
}
inline __half __float2half(float f) {
    return __float2half_rn(f);
}
inline float __half2float(__half h) {
    return solbench_cuda_host::detail::half_to_float(h.__x);
}
inline __half2 __floats2half2_rn(float a, float b) {
    return __half2(__float2half_rn(a), __float2half_rn(b));
}
inline __half2 __float2half2_rn(float a) {
    return __floats2half2_rn(a, a);
}
inline __half2 __float22half2_rn(float2 f) {
    return __floats2half2_rn(f.x, f.y);
}
inline float2 __half22float2(__half2 h) {
    return make_float2(__half2float(h.x), __half2float(h.y));
}
inline __half2 __halves2half2(__half a, __half b) {
    return {a, b};
}
inline __half2 __half2half2(__half a) {
    return {a, a};
}
inline __half __low2half(__half2 h) {
    return h.x;
}
inline __half __high2half(__half2 h) {
    return h.y;
}
inline float __low2float(__half2 h) {
    return __half2float(h.x);
}
inline float __high2float(__half2 h) {
    return __half2float(h.y);
}
