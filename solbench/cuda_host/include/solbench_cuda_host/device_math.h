// fp32 math and bit intrinsics of the kernel contract. The libm functions (sqrtf expf logf tanhf
// fabsf erff floorf ceilf rintf fmaxf fminf powf) and INFINITY come from <math.h>; the CUDA-only
// spellings map to their correctly rounded host equivalents (the GPU's fast variants are within a
// few ulp).
#pragma once

#include <cstring>
#include <math.h>

#include "load_trace.h"
#include "runtime_types.h"

inline float rsqrtf(float x) {
    return 1.0f / sqrtf(x);
}
// glibc's <math.h> declares __expf & co. (extern "C", noexcept) but libm does not export them:
// define them here, weak and hidden so every translation unit may carry a copy.
#define SOLBENCH_CH_LIBM_ALIAS(fast, full)                                                         \
    extern "C" __attribute__((weak, visibility("hidden"))) float fast(float x) noexcept {          \
        return full(x);                                                                            \
    }
SOLBENCH_CH_LIBM_ALIAS(__expf, expf)
SOLBENCH_CH_LIBM_ALIAS(__logf, logf)
SOLBENCH_CH_LIBM_ALIAS(__sinf, sinf)
SOLBENCH_CH_LIBM_ALIAS(__cosf, cosf)
SOLBENCH_CH_LIBM_ALIAS(__tanf, tanf)
#undef SOLBENCH_CH_LIBM_ALIAS
extern "C" __attribute__((weak, visibility("hidden"))) float __powf(float x, float y) noexcept {
    return powf(x, y);
}
inline float __fdividef(float a, float b) {
    return a / b;
}
inline float __frcp_rn(float x) {
    return 1.0f / x;
}
inline float __fsqrt_rn(float x) {
    return sqrtf(x);
}
inline float __fadd_rn(float a, float b) {
    return a + b;
}
inline float __fmul_rn(float a, float b) {
    return a * b;
}
inline float __fmaf_rn(float a, float b, float c) {
    return fmaf(a, b, c);
}
inline float __saturatef(float x) {
    return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x == x ? x : 0.0f));
}

inline float __int_as_float(int i) {
    float f;
    std::memcpy(&f, &i, sizeof f);
    return f;
}
inline int __float_as_int(float f) {
    int i;
    std::memcpy(&i, &f, sizeof i);
    return i;
}
inline float __uint_as_float(unsigned int u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}
inline unsigned int __float_as_uint(float f) {
    unsigned int u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
inline int __popc(unsigned int x) {
    return __builtin_popcount(x);
}
inline int __popcll(unsigned long long x) {
    return __builtin_popcountll(x);
}
inline int __clz(int x) {
    return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x));
}
inline int __ffs(int x) {
    return __builtin_ffs(x);
}

// Read-only cache loads are plain loads on the host (recorded when a load
// trace is on: load_trace.h).
template <typename T> inline T __ldg(const T* p) {
    solbench_cuda_host::trace_load(p, sizeof(T));
    return *p;
}
