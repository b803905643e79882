// Shim for <c10/cuda/CUDAGuard.h>: there is one device, the CPU; guards do nothing.
#pragma once

#include <c10/core/Device.h>
#include <optional>

#include "solbench_cuda_host.h"

namespace c10::cuda {

struct CUDAGuard {
    explicit CUDAGuard(c10::Device) {}
    explicit CUDAGuard(c10::DeviceIndex) {}
    CUDAGuard(const CUDAGuard&) = delete;
    CUDAGuard& operator=(const CUDAGuard&) = delete;
    void set_device(c10::Device) {}
    void set_index(c10::DeviceIndex) {}
};

struct OptionalCUDAGuard {
    OptionalCUDAGuard() = default;
    explicit OptionalCUDAGuard(std::optional<c10::Device>) {}
    explicit OptionalCUDAGuard(c10::Device) {}
    OptionalCUDAGuard(const OptionalCUDAGuard&) = delete;
    OptionalCUDAGuard& operator=(const OptionalCUDAGuard&) = delete;
    void set_device(c10::Device) {}
    void reset() {}
};

} // namespace c10::cuda

namespace at::cuda {
using c10::cuda::CUDAGuard;
using c10::cuda::OptionalCUDAGuard;
} // namespace at::cuda
