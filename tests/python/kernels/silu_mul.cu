// Elementwise SiLU(gate) * up over bf16, one element per thread, written like a submission.
#include <ATen/cuda/CUDAContext.h>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <torch/extension.h>

__global__ void silu_mul_kernel(const __nv_bfloat16* __restrict__ gate,
                                const __nv_bfloat16* __restrict__ up,
                                __nv_bfloat16* __restrict__ out, int64_t n) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float g = __bfloat162float(gate[i]);
    const float u = __bfloat162float(__ldg(&up[i]));
    const float silu = __fdividef(g, 1.0f + __expf(-g));
    out[i] = __float2bfloat16_rn(silu * u);
}

void run(at::Tensor gate, at::Tensor up, at::Tensor out) {
    auto stream = at::cuda::getCurrentCUDAStream();
    TORCH_CHECK(gate.device() == stream.device() && up.device() == stream.device() &&
                    out.device() == stream.device(),
                "tensors must be on the launch's device");
    TORCH_CHECK(gate.scalar_type() == at::ScalarType::BFloat16 && gate.is_contiguous());
    TORCH_CHECK(up.numel() == gate.numel() && out.numel() == gate.numel());
    const int64_t n = gate.numel();
    if (n == 0) return;
    constexpr int threads = 256;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned int>((n + threads - 1) / threads));
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = 0;
    config.stream = stream.stream();
    cudaLaunchKernelEx(&config, silu_mul_kernel,
                       reinterpret_cast<const __nv_bfloat16*>(gate.data_ptr()),
                       reinterpret_cast<const __nv_bfloat16*>(up.data_ptr()),
                       reinterpret_cast<__nv_bfloat16*>(out.data_ptr()), n);
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "launch failed: ", cudaGetErrorString(err));
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("run", &run, "SiLU(gate) * up (bf16)");
}
