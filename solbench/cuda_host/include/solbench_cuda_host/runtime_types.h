// Host-visible CUDA runtime types: errors, streams, vector types, dim3, launch configuration.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qualifiers.h"

enum cudaError_t : int {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorIllegalInstruction = 715,
    cudaErrorMisalignedAddress = 716,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
    cudaErrorUnknown = 999,
};
using cudaError = cudaError_t;

struct CUstream_st;
using cudaStream_t = CUstream_st*;

// may_alias: kernels pun between uint4, __nv_bfloat162 and scalar storage the way nvcc allows.
#define SOLBENCH_CH_VEC2(T, name, al)                                                              \
    struct __attribute__((may_alias)) __align__(al) name {                                         \
        T x, y;                                                                                    \
    };                                                                                             \
    inline constexpr name make_##name(T x, T y) {                                                  \
        return name{x, y};                                                                         \
    }
#define SOLBENCH_CH_VEC3(T, name)                                                                  \
    struct __attribute__((may_alias)) name {                                                       \
        T x, y, z;                                                                                 \
    };                                                                                             \
    inline constexpr name make_##name(T x, T y, T z) {                                             \
        return name{x, y, z};                                                                      \
    }
#define SOLBENCH_CH_VEC4(T, name, al)                                                              \
    struct __attribute__((may_alias)) __align__(al) name {                                         \
        T x, y, z, w;                                                                              \
    };                                                                                             \
    inline constexpr name make_##name(T x, T y, T z, T w) {                                        \
        return name{x, y, z, w};                                                                   \
    }

SOLBENCH_CH_VEC2(float, float2, 8)
SOLBENCH_CH_VEC3(float, float3)
SOLBENCH_CH_VEC4(float, float4, 16)
SOLBENCH_CH_VEC2(int, int2, 8)
SOLBENCH_CH_VEC3(int, int3)
SOLBENCH_CH_VEC4(int, int4, 16)
SOLBENCH_CH_VEC2(unsigned int, uint2, 8)
SOLBENCH_CH_VEC3(unsigned int, uint3)
SOLBENCH_CH_VEC4(unsigned int, uint4, 16)
SOLBENCH_CH_VEC2(double, double2, 16)

#undef SOLBENCH_CH_VEC2
#undef SOLBENCH_CH_VEC3
#undef SOLBENCH_CH_VEC4

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

struct cudaLaunchAttribute {
    int id;
    unsigned char val[64];
};

struct cudaLaunchConfig_t {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute* attrs;
    unsigned int numAttrs;
};
