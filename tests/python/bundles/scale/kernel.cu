// Elementwise scale: y = x * scale, for float32 tensors of any shape.
// Written to docs/kernel-contract.md so it builds with nvcc and with solbench.cuda_host.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <cstdint>

__global__ void __launch_bounds__(256)
    scale_kernel(const float* __restrict__ x, float* __restrict__ y, float s, int64_t n) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] * s;
    }
}

void run(at::Tensor x, double scale, at::Tensor y) {
    auto stream = at::cuda::getCurrentCUDAStream();
    TORCH_CHECK(x.device() == stream.device(), "x must be on the launch's device");
    TORCH_CHECK(y.device() == stream.device(), "y must be on the launch's device");
    TORCH_CHECK(x.scalar_type() == at::ScalarType::Float, "x must be float32");
    TORCH_CHECK(y.scalar_type() == at::ScalarType::Float, "y must be float32");
    TORCH_CHECK(x.is_contiguous() && y.is_contiguous(), "x and y must be contiguous");
    TORCH_CHECK(x.numel() == y.numel(), "x and y must have the same size");
    const int64_t n = x.numel();
    if (n == 0) {
        return;
    }
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>((n + threads - 1) / threads);
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = 0;
    config.stream = stream.stream();
    const float* xp = static_cast<const float*>(x.data_ptr());
    float* yp = static_cast<float*>(y.data_ptr());
    const float s = static_cast<float>(scale);
    cudaLaunchKernelEx(&config, scale_kernel, xp, yp, s, n);
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "scale_kernel launch failed: ", cudaGetErrorString(err));
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("run", &run, "y = x * scale (destination-passing)");
}
