// The device the CPU backend stands for, as cudaDeviceGetAttribute reports it: compute
// capability SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY ("10.0": a B200; read at every call, so a
// test can switch it between launches), 9.0 (an H100 or H200) when unset. A kernel.cu's host
// picks its launch by it (its 32-byte vectors from 10.0 on), so the CPU check runs the launch
// that device takes.
#pragma once

#include <cstdlib>
#include <string>

#include "launch.h"
#include "runtime_types.h"

enum cudaDeviceAttr : int {
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
};

namespace solbench_cuda_host {

struct ComputeCapability {
    int major = 9, minor = 0;
};

// "MAJOR.MINOR" (or "MAJOR"); {0, 0} when the text is not one.
inline ComputeCapability parse_compute_capability(const char* text) {
    char* end = nullptr;
    const long major = std::strtol(text, &end, 10);
    long minor = 0;
    if (end != text && *end == '.') {
        const char* rest = end + 1;
        minor = std::strtol(rest, &end, 10);
        if (end == rest) return {0, 0};
    }
    if (end == text || *end != '\0' || major <= 0 || major > 99 || minor < 0 || minor > 9)
        return {0, 0};
    return {static_cast<int>(major), static_cast<int>(minor)};
}

inline ComputeCapability host_compute_capability() {
    const char* env = std::getenv("SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY");
    return env != nullptr && *env != '\0' ? parse_compute_capability(env) : ComputeCapability{};
}

} // namespace solbench_cuda_host

// Any device index names the one device. A malformed SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY is
// cudaErrorInvalidValue, recorded as the last error as CUDA records a failed call's, so the
// launch's cudaGetLastError() check reports it instead of the host quietly taking a launch.
inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int /*device*/) {
    namespace d = solbench_cuda_host::detail;
    const solbench_cuda_host::ComputeCapability cc = solbench_cuda_host::host_compute_capability();
    if (cc.major == 0)
        return d::set_error(cudaErrorInvalidValue,
                            std::string("SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY is '") +
                                std::getenv("SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY") +
                                "', not MAJOR.MINOR");
    if (value == nullptr) return d::set_error(cudaErrorInvalidValue, "a null value pointer");
    switch (attr) {
    case cudaDevAttrComputeCapabilityMajor:
        *value = cc.major;
        return cudaSuccess;
    case cudaDevAttrComputeCapabilityMinor:
        *value = cc.minor;
        return cudaSuccess;
    }
    return d::set_error(cudaErrorInvalidValue, "an attribute other than the compute capability");
}
