// Block-per-row RMSNorm over bf16, written like a generated submission (kernel contract only):
// 16-byte uint4 loads of 8 bf16, a warp-shuffle reduction, then a cross-warp reduction through
// dynamic shared memory.
#include <ATen/cuda/CUDAContext.h>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <torch/extension.h>

constexpr int kThreads = 256;

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void __launch_bounds__(kThreads)
    rmsnorm_kernel(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                   __nv_bfloat16* __restrict__ out, int cols, float eps) {
    extern __shared__ __align__(16) unsigned char smem[];
    float* warp_sums = reinterpret_cast<float*>(smem);
    const int row = blockIdx.x;
    const int vecs = cols / 8;
    const uint4* xv = reinterpret_cast<const uint4*>(x + static_cast<int64_t>(row) * cols);
    const uint4* wv = reinterpret_cast<const uint4*>(w);
    uint4* ov = reinterpret_cast<uint4*>(out + static_cast<int64_t>(row) * cols);

    float sum = 0.0f;
    for (int i = threadIdx.x; i < vecs; i += blockDim.x) {
        const uint4 u = xv[i];
        const __nv_bfloat162* p = reinterpret_cast<const __nv_bfloat162*>(&u);
        for (int k = 0; k < 4; ++k) {
            const float2 f = __bfloat1622float2(p[k]);
            sum += f.x * f.x + f.y * f.y;
        }
    }
    sum = warp_sum(sum);
    const int lane = threadIdx.x % warpSize;
    const int warp = threadIdx.x / warpSize;
    const int nwarps = blockDim.x / warpSize;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        float s = lane < nwarps ? warp_sums[lane] : 0.0f;
        s = warp_sum(s);
        if (lane == 0) warp_sums[0] = s;
    }
    __syncthreads();
    const float inv = rsqrtf(warp_sums[0] / static_cast<float>(cols) + eps);

    for (int i = threadIdx.x; i < vecs; i += blockDim.x) {
        const uint4 u = xv[i];
        const uint4 g = __ldg(&wv[i]);
        const __nv_bfloat162* p = reinterpret_cast<const __nv_bfloat162*>(&u);
        const __nv_bfloat162* q = reinterpret_cast<const __nv_bfloat162*>(&g);
        uint4 r;
        __nv_bfloat162* o = reinterpret_cast<__nv_bfloat162*>(&r);
        for (int k = 0; k < 4; ++k) {
            const float2 a = __bfloat1622float2(p[k]);
            const float2 b = __bfloat1622float2(q[k]);
            o[k] = __floats2bfloat162_rn(a.x * inv * b.x, a.y * inv * b.y);
        }
        ov[i] = r;
    }
}

void run(at::Tensor x, at::Tensor w, double eps, at::Tensor out) {
    auto stream = at::cuda::getCurrentCUDAStream();
    TORCH_CHECK(x.device() == stream.device() && w.device() == stream.device() &&
                    out.device() == stream.device(),
                "tensors must be on the launch's device");
    TORCH_CHECK(x.scalar_type() == at::ScalarType::BFloat16 && x.dim() == 2 && x.is_contiguous());
    TORCH_CHECK(w.scalar_type() == at::ScalarType::BFloat16 && w.numel() == x.size(1));
    TORCH_CHECK(out.scalar_type() == at::ScalarType::BFloat16 && out.is_contiguous());
    const int rows = static_cast<int>(x.size(0));
    const int cols = static_cast<int>(x.size(1));
    TORCH_CHECK(cols % 8 == 0, "cols must be a multiple of 8");

    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(rows);
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = (kThreads / 32) * sizeof(float);
    config.stream = stream.stream();
    cudaLaunchKernelEx(
        &config, rmsnorm_kernel, reinterpret_cast<const __nv_bfloat16*>(x.data_ptr()),
        reinterpret_cast<const __nv_bfloat16*>(w.data_ptr()),
        reinterpret_cast<__nv_bfloat16*>(out.data_ptr()), cols, static_cast<float>(eps));
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "launch failed: ", cudaGetErrorString(err));
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("run", &run, "RMSNorm (bf16)");
}
