// Shim for <ATen/cuda/CUDAContext.h>: the "current stream" of the CPU backend. Its device() is
// the CPU, so a binding's TORCH_CHECK(t.device() == stream.device()) means "on the launch's
// device" on both backends.
#pragma once

#include <c10/core/Device.h>

#include "solbench_cuda_host.h"

namespace c10::cuda {

class CUDAStream {
  public:
    cudaStream_t stream() const { return nullptr; }
    operator cudaStream_t() const { return stream(); }
    c10::Device device() const { return c10::Device(c10::DeviceType::CPU); }
    c10::DeviceIndex device_index() const { return -1; }
    void synchronize() const {}
    bool query() const { return true; }
};

inline CUDAStream getCurrentCUDAStream(c10::DeviceIndex = -1) {
    return CUDAStream{};
}
inline CUDAStream getDefaultCUDAStream(c10::DeviceIndex = -1) {
    return CUDAStream{};
}

} // namespace c10::cuda

namespace at::cuda {
using c10::cuda::CUDAStream;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
} // namespace at::cuda
