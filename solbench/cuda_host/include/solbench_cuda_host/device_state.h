// The built-in index variables. The engine sets them per OS thread: gridDim/blockDim per launch,
// blockIdx per block, threadIdx before resuming each fiber.
#pragma once

#include "runtime_types.h"

inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};

// Like nvcc's warpSize: an int in expressions, but not a constant expression.
struct solbench_ch_warp_size {
    operator int() const noexcept { return 32; }
};
inline constexpr solbench_ch_warp_size warpSize{};
