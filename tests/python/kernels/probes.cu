// Probe kernels for the CPU execution layer's tests: deliberate faults (out-of-bounds reads,
// shared-memory overflow, barrier and warp divergence), conversions, warp collectives, math and
// index mapping. Kernel-contract vocabulary only; several bindings in one module to keep the
// number of (slow) extension builds small.
#include <ATen/cuda/CUDAContext.h>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <torch/extension.h>

namespace {

void check_launch() {
    const cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "launch failed: ", cudaGetErrorString(err));
}

cudaLaunchConfig_t config_for(dim3 grid, dim3 block, size_t smem) {
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem;
    config.stream = at::cuda::getCurrentCUDAStream().stream();
    return config;
}

} // namespace

// out[i] = x[i] + x[i + 1]: the last thread reads one element past the end of x.
__global__ void shift_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + x[i + 1];
}

void shift_sum(at::Tensor x, at::Tensor out) {
    const int n = static_cast<int>(x.numel());
    auto config = config_for(dim3((n + 127) / 128), dim3(128), 0);
    cudaLaunchKernelEx(&config, shift_sum_kernel, x.data_ptr<float>(), out.data_ptr<float>(), n);
    check_launch();
}

// Each thread stores one float into dynamic shared memory sized by the caller.
__global__ void smem_fill_kernel(float* __restrict__ out) {
    extern __shared__ __align__(16) unsigned char smem[];
    float* buf = reinterpret_cast<float*>(smem);
    buf[threadIdx.x] = static_cast<float>(threadIdx.x);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
}

void smem_fill(at::Tensor out, int64_t threads, int64_t smem_bytes) {
    const auto blocks = static_cast<unsigned int>(out.numel() / threads);
    auto config = config_for(dim3(blocks), dim3(static_cast<unsigned int>(threads)),
                             static_cast<size_t>(smem_bytes));
    cudaLaunchKernelEx(&config, smem_fill_kernel, out.data_ptr<float>());
    check_launch();
}

// Threads at or above `live` return before the barrier the others wait at.
__global__ void early_exit_kernel(float* __restrict__ out, int live) {
    if (static_cast<int>(threadIdx.x) >= live) return;
    __syncthreads();
    out[threadIdx.x] = 1.0f;
}

void early_exit(at::Tensor out, int64_t threads, int64_t live) {
    auto config = config_for(dim3(1), dim3(static_cast<unsigned int>(threads)), 0);
    cudaLaunchKernelEx(&config, early_exit_kernel, out.data_ptr<float>(), static_cast<int>(live));
    check_launch();
}

// Lanes below `live` of each warp reduce with shuffles; the others have returned.
__global__ void partial_shuffle_kernel(float* __restrict__ out, int live) {
    const int lane = threadIdx.x % warpSize;
    if (lane >= live) return;
    float v = 1.0f;
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    out[threadIdx.x] = v;
}

void partial_shuffle(at::Tensor out, int64_t live) {
    auto config = config_for(dim3(1), dim3(64), 0);
    cudaLaunchKernelEx(&config, partial_shuffle_kernel, out.data_ptr<float>(),
                       static_cast<int>(live));
    check_launch();
}

// Round trips through the conversion intrinsics, element pairs through the x2 forms.
__global__ void convert_kernel(const float* __restrict__ x, __nv_bfloat16* __restrict__ bf,
                               __half* __restrict__ hf, float* __restrict__ bf_back,
                               float* __restrict__ hf_back, int pairs) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pairs) return;
    const float a = x[2 * i];
    const float b = x[2 * i + 1];
    const __nv_bfloat162 b2 = __floats2bfloat162_rn(a, b);
    const __half2 h2 = __floats2half2_rn(a, b);
    reinterpret_cast<__nv_bfloat162*>(bf)[i] = b2;
    reinterpret_cast<__half2*>(hf)[i] = h2;
    const float2 fb = __bfloat1622float2(b2);
    const float2 fh = __half22float2(h2);
    bf_back[2 * i] = __bfloat162float(__float2bfloat16_rn(a));
    bf_back[2 * i + 1] = fb.y;
    hf_back[2 * i] = __half2float(__float2half_rn(a));
    hf_back[2 * i + 1] = fh.y;
}

void convert(at::Tensor x, at::Tensor bf, at::Tensor hf, at::Tensor bf_back, at::Tensor hf_back) {
    TORCH_CHECK(x.numel() % 2 == 0);
    const int pairs = static_cast<int>(x.numel() / 2);
    auto config = config_for(dim3((pairs + 255) / 256), dim3(256), 0);
    cudaLaunchKernelEx(&config, convert_kernel, x.data_ptr<float>(),
                       reinterpret_cast<__nv_bfloat16*>(bf.data_ptr()),
                       reinterpret_cast<__half*>(hf.data_ptr()), bf_back.data_ptr<float>(),
                       hf_back.data_ptr<float>(), pairs);
    check_launch();
}

// Widening only: bf16/half bit patterns to float.
__global__ void widen_kernel(const __nv_bfloat16* __restrict__ bf, const __half* __restrict__ hf,
                             float* __restrict__ bf_out, float* __restrict__ hf_out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bf_out[i] = __bfloat162float(bf[i]);
    hf_out[i] = __half2float(hf[i]);
}

void widen(at::Tensor bf, at::Tensor hf, at::Tensor bf_out, at::Tensor hf_out) {
    const int n = static_cast<int>(bf.numel());
    auto config = config_for(dim3((n + 255) / 256), dim3(256), 0);
    cudaLaunchKernelEx(&config, widen_kernel, reinterpret_cast<const __nv_bfloat16*>(bf.data_ptr()),
                       reinterpret_cast<const __half*>(hf.data_ptr()), bf_out.data_ptr<float>(),
                       hf_out.data_ptr<float>(), n);
    check_launch();
}

// FP8 both ways, as the kernels convert: E4M3 saturating, E5M2 to infinity;
// then every byte pattern of each back to float through half.
__global__ void fp8_kernel(const float* __restrict__ x, unsigned char* __restrict__ e4m3,
                           unsigned char* __restrict__ e5m2, float* __restrict__ widened, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        e4m3[i] = __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E4M3);
        e5m2[i] = __nv_cvt_float_to_fp8(x[i], __NV_NOSAT, __NV_E5M2);
    }
    if (i < 256) {
        const auto byte = static_cast<__nv_fp8_storage_t>(i);
        widened[i] = __half2float(__half(__nv_cvt_fp8_to_halfraw(byte, __NV_E4M3)));
        widened[256 + i] = __half2float(__half(__nv_cvt_fp8_to_halfraw(byte, __NV_E5M2)));
    }
}

void fp8(at::Tensor x, at::Tensor e4m3, at::Tensor e5m2, at::Tensor widened) {
    const int n = static_cast<int>(x.numel());
    const int threads = n > 256 ? n : 256;
    auto config = config_for(dim3((threads + 255) / 256), dim3(256), 0);
    cudaLaunchKernelEx(&config, fp8_kernel, x.data_ptr<float>(),
                       static_cast<unsigned char*>(e4m3.data_ptr()),
                       static_cast<unsigned char*>(e5m2.data_ptr()), widened.data_ptr<float>(), n);
    check_launch();
}

// Per thread, 8 results of warp collectives on v = x[thread].
__global__ void collectives_kernel(const float* __restrict__ x, int* __restrict__ out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % warpSize;
    const float v = x[t];
    int* o = out + 8 * t;
    o[0] = static_cast<int>(__shfl_sync(0xffffffffu, v, 3));
    o[1] = static_cast<int>(__shfl_xor_sync(0xffffffffu, v, 5));
    o[2] = static_cast<int>(__shfl_down_sync(0xffffffffu, v, 4));
    o[3] = static_cast<int>(__ballot_sync(0xffffffffu, v > 0.0f));
    o[4] = __all_sync(0xffffffffu, v > -1000.0f);
    o[5] = __any_sync(0xffffffffu, v > 1000.0f);
    o[6] = __shfl_sync(0xffffffffu, lane * 10, 31 - lane);
    o[7] = static_cast<int>(__shfl_xor_sync(0xffffffffu, static_cast<unsigned int>(lane), 1, 16));
}

void collectives(at::Tensor x, at::Tensor out) {
    auto config = config_for(dim3(static_cast<unsigned int>(x.numel() / 64)), dim3(64), 0);
    cudaLaunchKernelEx(&config, collectives_kernel, x.data_ptr<float>(), out.data_ptr<int>());
    check_launch();
}

// The contract's fp32 math functions, one per output row.
__global__ void math_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = x[i];
    const float a = fabsf(v) + 0.5f;
    out[0 * n + i] = sqrtf(a);
    out[1 * n + i] = rsqrtf(a);
    out[2 * n + i] = expf(v);
    out[3 * n + i] = __expf(v);
    out[4 * n + i] = logf(a);
    out[5 * n + i] = __logf(a);
    out[6 * n + i] = tanhf(v);
    out[7 * n + i] = erff(v);
    out[8 * n + i] = fmaxf(v, 0.25f) + fminf(v, -0.25f);
    out[9 * n + i] = powf(a, 1.5f);
    out[10 * n + i] = __fdividef(v, a);
    out[11 * n + i] = __frcp_rn(a);
    out[12 * n + i] = v > 100.0f ? INFINITY : 0.0f;
}

void math(at::Tensor x, at::Tensor out) {
    const int n = static_cast<int>(x.numel());
    auto config = config_for(dim3((n + 127) / 128), dim3(128), 0);
    cudaLaunchKernelEx(&config, math_kernel, x.data_ptr<float>(), out.data_ptr<float>(), n);
    check_launch();
}

// Every thread of a 3-D grid of 3-D blocks records its global linear id.
__global__ void index_kernel(int* __restrict__ out) {
    const int tpb = blockDim.x * blockDim.y * blockDim.z;
    const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    out[block * tpb + thread] = block * 10000 + thread;
}

void indices(at::Tensor out, std::vector<int64_t> grid, std::vector<int64_t> block) {
    auto dim = [](const std::vector<int64_t>& v) {
        return dim3(static_cast<unsigned int>(v[0]), static_cast<unsigned int>(v[1]),
                    static_cast<unsigned int>(v[2]));
    };
    auto config = config_for(dim(grid), dim(block), 0);
    cudaLaunchKernelEx(&config, index_kernel, out.data_ptr<int>());
    check_launch();
}

void too_much_smem(at::Tensor out) {
    auto config = config_for(dim3(1), dim3(32), 64 * 1024);
    cudaLaunchKernelEx(&config, smem_fill_kernel, out.data_ptr<float>());
    check_launch();
}

void device_check(at::Tensor t) {
    auto stream = at::cuda::getCurrentCUDAStream();
    TORCH_CHECK(t.device() == stream.device(), "tensor is not on the launch's device");
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("shift_sum", &shift_sum);
    m.def("smem_fill", &smem_fill);
    m.def("early_exit", &early_exit);
    m.def("partial_shuffle", &partial_shuffle);
    m.def("convert", &convert);
    m.def("widen", &widen);
    m.def("fp8", &fp8);
    m.def("collectives", &collectives);
    m.def("math", &math);
    m.def("indices", &indices);
    m.def("too_much_smem", &too_much_smem);
    m.def("device_check", &device_check);
}
