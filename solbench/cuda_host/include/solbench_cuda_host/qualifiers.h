// CUDA declaration qualifiers spelled as host C++ (kernel contract: "Qualifiers").
#pragma once

#define __host__
#define __device__
#define __global__
#define __device_builtin__
#define __constant__
// As in CUDA's host_defines.h, so `inline __forceinline__` is rejected on both backends.
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
// Block-scope thread_local is static per OS thread; a block runs entirely on one OS thread, so
// all fibers of the block see the same object: CUDA's per-block sharing. The dynamic buffer
// `extern __shared__ ... smem[]` resolves to the engine's guarded arena (see shared_memory.h).
#define __shared__ thread_local
// __restrict__ is a GNU keyword already.
