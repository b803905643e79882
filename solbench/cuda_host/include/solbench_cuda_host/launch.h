// cudaLaunchKernelEx on the host: validates the configuration like the CUDA runtime, then runs
// the grid's blocks on a small pool of OS threads (each block entirely on one thread, as fibers).
// Launch-configuration errors are returned as cudaError_t (and kept for cudaGetLastError);
// faults inside the kernel are thrown as std::runtime_error (RuntimeError in Python), naming the
// kernel, the block and the thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <cxxabi.h>
#include <dlfcn.h>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "block_runner.h"
#include "fault.h"
#include "runtime_types.h"

namespace solbench_cuda_host::detail {

// ---- last-error state (per host thread, like the CUDA runtime)
inline thread_local cudaError_t tls_last_error = cudaSuccess;
inline thread_local cudaError_t tls_detail_code = cudaSuccess;
inline thread_local std::string tls_detail;

inline const char* error_string(cudaError_t e) {
    switch (e) {
    case cudaSuccess:
        return "no error";
    case cudaErrorInvalidValue:
        return "invalid argument";
    case cudaErrorMemoryAllocation:
        return "out of memory";
    case cudaErrorInitializationError:
        return "initialization error";
    case cudaErrorInvalidConfiguration:
        return "invalid configuration argument";
    case cudaErrorInvalidDeviceFunction:
        return "invalid device function";
    case cudaErrorNoDevice:
        return "no CUDA-capable device is detected";
    case cudaErrorIllegalAddress:
        return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources:
        return "too many resources requested for launch";
    case cudaErrorLaunchTimeout:
        return "the launch timed out and was terminated";
    case cudaErrorIllegalInstruction:
        return "an illegal instruction was encountered";
    case cudaErrorMisalignedAddress:
        return "misaligned address";
    case cudaErrorLaunchFailure:
        return "unspecified launch failure";
    case cudaErrorNotSupported:
        return "operation not supported";
    case cudaErrorUnknown:
        return "unknown error";
    }
    return "unrecognized error code";
}

inline cudaError_t set_error(cudaError_t e, const std::string& why) {
    tls_last_error = e;
    tls_detail_code = e;
    tls_detail = std::string(error_string(e)) + " (solbench cuda_host: " + why + ")";
    return e;
}

// ---- kernel names for messages
inline std::string strip_signature(std::string s) {
    if (!s.empty() && s.back() == ')') {
        int depth = 0;
        for (std::size_t i = s.size(); i-- > 0;) {
            if (s[i] == ')') ++depth;
            if (s[i] == '(' && --depth == 0) {
                s.resize(i);
                break;
            }
        }
    }
    if (s.rfind("void ", 0) == 0) s.erase(0, 5);
    return s;
}

inline std::string kernel_name(void (*kernel)()) {
    void* p = reinterpret_cast<void*>(kernel);
    Dl_info info{};
    if (dladdr(p, &info) != 0 && info.dli_sname != nullptr && info.dli_saddr == p) {
        int status = 0;
        char* d = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
        std::string name = (status == 0 && d != nullptr) ? d : info.dli_sname;
        std::free(d);
        return strip_signature(name);
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, "<kernel at %p>", p);
    return buf;
}

// ---- one launch, shared by the participating OS threads
struct LaunchState {
    LaunchState(const KernelThunk& k, const cudaLaunchConfig_t& c)
        : thunk(k), grid(c.gridDim), block(c.blockDim), smem_bytes(c.dynamicSmemBytes),
          total_blocks(std::uint64_t{c.gridDim.x} * c.gridDim.y * c.gridDim.z) {}

    const KernelThunk& thunk;
    dim3 grid;
    dim3 block;
    std::size_t smem_bytes;
    std::uint64_t total_blocks;
    std::atomic<std::uint64_t> next{0};
    std::atomic<bool> abort{false};
    std::mutex error_mu;
    std::optional<std::string> error;

    void fail(const std::string& message) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) {
            std::string m = message;
            const std::string placeholder = "{kernel}";
            if (const auto at = m.find(placeholder); at != std::string::npos)
                m.replace(at, placeholder.size(), kernel_name(thunk.kernel));
            error = std::move(m);
        }
        abort = true;
    }

    uint3 block_coords(std::uint64_t linear) const {
        const std::uint64_t xy = std::uint64_t{grid.x} * grid.y;
        return uint3{static_cast<unsigned int>(linear % grid.x),
                     static_cast<unsigned int>((linear / grid.x) % grid.y),
                     static_cast<unsigned int>(linear / xy)};
    }
};

inline std::string describe_fault(const Worker& w, const FaultInfo& f) {
    const std::string where = "block " + coords(w.block()) +
                              (w.current_thread() ? " thread " + coords(*w.current_thread()) : "");
    char addr[32];
    std::snprintf(addr, sizeof addr, "%p", f.addr);
    const char* rw = f.is_write ? "write" : "read";
    if (f.signo == SIGFPE)
        return "arithmetic fault in kernel {kernel}: " + where +
               ": SIGFPE (integer division by zero?)";
    if (f.signo == SIGILL)
        return "illegal instruction in kernel {kernel}: " + where + ": SIGILL (trap)";
    std::string detail;
    if (const auto off = w.arena.guard_offset(f.addr)) {
        detail = std::string("shared memory ") + rw + " at byte offset " + std::to_string(*off) +
                 ", past dynamicSmemBytes=" + std::to_string(w.arena.bytes());
    } else if (w.on_stack_guard(f.addr)) {
        detail = "fiber stack overflow (set SOLBENCH_CUDA_HOST_STACK_KB to enlarge)";
    } else if (f.signo == SIGSEGV && f.code == SI_KERNEL) {
        detail = "general protection fault (misaligned 16-byte vector access or wild pointer)";
    } else {
        detail = std::string("invalid ") + rw + " of address " + addr +
                 " (unmapped or guard page: past the end of a tensor?)";
    }
    return "out-of-bounds access in kernel {kernel}: " + where + ": " + detail;
}

// Runs blocks of `launch` on the calling OS thread until none are left.
inline void participate(LaunchState& launch) {
    static thread_local Worker worker;
    Worker& w = worker;
    try {
        w.begin_launch(launch.thunk, launch.grid, launch.block, launch.smem_bytes);
    } catch (const std::exception& e) {
        launch.fail(std::string("cannot start kernel {kernel}: ") + e.what());
        return;
    }
    if (sigsetjmp(w.fault.jmp, 1) == 0) {
        arm_fault_target(&w.fault);
        try {
            for (;;) {
                if (launch.abort.load(std::memory_order_relaxed)) break;
                const std::uint64_t b = launch.next.fetch_add(1, std::memory_order_relaxed);
                if (b >= launch.total_blocks) break;
                w.run_block(launch.block_coords(b));
            }
        } catch (const std::exception& e) {
            launch.fail(e.what());
        }
        disarm_fault_target();
    } else {
        launch.fail(describe_fault(w, w.fault.info));
    }
    w.end_launch();
}

inline unsigned int pool_threads() {
    static const unsigned int n = [] {
        const char* env = std::getenv("SOLBENCH_CUDA_HOST_THREADS");
        const long v = env != nullptr ? std::atol(env) : 0;
        if (v > 0) return static_cast<unsigned int>(v);
        return std::max(1U, std::thread::hardware_concurrency());
    }();
    return n;
}

// Helper OS threads that join launches with more than one block. Leaked on purpose: they
// sleep on a condition variable until the process exits.
class WorkerPool {
  public:
    static WorkerPool& instance() {
        static auto* pool = new WorkerPool(pool_threads() - 1);
        return *pool;
    }

    void run(LaunchState& launch) {
        const auto helpers = static_cast<unsigned int>(
            std::min<std::uint64_t>(threads_.size(), launch.total_blocks - 1));
        if (helpers > 0) {
            std::lock_guard<std::mutex> lock(mu_);
            job_ = &launch;
            slots_ = helpers;
            pending_ = helpers;
            ++generation_;
        }
        if (helpers > 0) wake_.notify_all();
        participate(launch);
        if (helpers > 0) {
            std::unique_lock<std::mutex> lock(mu_);
            done_.wait(lock, [&] { return pending_ == 0; });
            job_ = nullptr;
        }
    }

  private:
    explicit WorkerPool(unsigned int helpers) {
        for (unsigned int i = 0; i < helpers; ++i)
            threads_.emplace_back([this] { loop(); });
        for (auto& t : threads_)
            t.detach();
    }

    void loop() {
        ScopedAltStack alt; // for the thread's lifetime
        std::uint64_t seen = 0;
        for (;;) {
            LaunchState* job = nullptr;
            {
                std::unique_lock<std::mutex> lock(mu_);
                wake_.wait(lock, [&] { return generation_ != seen; });
                seen = generation_;
                if (slots_ == 0) continue;
                --slots_;
                job = job_;
            }
            participate(*job);
            {
                std::lock_guard<std::mutex> lock(mu_);
                --pending_;
            }
            done_.notify_all();
        }
    }

    std::vector<std::thread> threads_;
    std::mutex mu_;
    std::condition_variable wake_;
    std::condition_variable done_;
    LaunchState* job_ = nullptr;
    unsigned int slots_ = 0;
    unsigned int pending_ = 0;
    std::uint64_t generation_ = 0;
};

inline cudaError_t validate(const cudaLaunchConfig_t& c) {
    const dim3 b = c.blockDim;
    const dim3 g = c.gridDim;
    const std::uint64_t threads = std::uint64_t{b.x} * b.y * b.z;
    if (threads == 0 || b.x > 1024 || b.y > 1024 || b.z > 64 || threads > 1024)
        return set_error(cudaErrorInvalidConfiguration,
                         "blockDim " + coords(b) + " must have 1..1024 threads");
    if (std::uint64_t{g.x} * g.y * g.z == 0 || g.x > 2147483647U || g.y > 65535 || g.z > 65535)
        return set_error(cudaErrorInvalidConfiguration, "gridDim " + coords(g) + " out of range");
    if (c.dynamicSmemBytes > kSmemLimit)
        return set_error(cudaErrorInvalidValue,
                         "dynamicSmemBytes=" + std::to_string(c.dynamicSmemBytes) +
                             " exceeds the 48 KiB default; raising it needs "
                             "cudaFuncSetAttribute, which the kernel contract does not include");
    if (c.numAttrs != 0)
        return set_error(cudaErrorNotSupported, "launch attributes are not in the kernel contract");
    return cudaSuccess;
}

inline void launch(const cudaLaunchConfig_t& config, const KernelThunk& thunk) {
    static std::mutex launch_mu;
    std::lock_guard<std::mutex> lock(launch_mu);
    LaunchState state(thunk, config);
    {
        ScopedFaultHandlers handlers;
        ScopedAltStack alt;
        WorkerPool::instance().run(state);
    }
    if (state.error) throw std::runtime_error(*state.error);
}

template <typename Tuple, typename... Params>
void invoke_kernel(void (*kernel)(), const void* args) {
    std::apply(reinterpret_cast<void (*)(Params...)>(kernel), *static_cast<const Tuple*>(args));
}

} // namespace solbench_cuda_host::detail

template <typename... ExpTypes, typename... ActTypes>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(ExpTypes...),
                               ActTypes&&... args) {
    static_assert(sizeof...(ExpTypes) == sizeof...(ActTypes),
                  "cudaLaunchKernelEx: argument count does not match the kernel's parameters");
    namespace d = solbench_cuda_host::detail;
    if (config == nullptr) return d::set_error(cudaErrorInvalidValue, "null launch config");
    if (kernel == nullptr) return d::set_error(cudaErrorInvalidDeviceFunction, "null kernel");
    if (const cudaError_t e = d::validate(*config); e != cudaSuccess) return e;
    // Arguments convert to the parameter types implicitly, exactly as in CUDA's own template.
    return [&](ExpTypes... coerced) {
        using Tuple = std::tuple<std::decay_t<ExpTypes>...>;
        const Tuple packed(coerced...);
        const d::KernelThunk thunk{&d::invoke_kernel<Tuple, ExpTypes...>,
                                   reinterpret_cast<void (*)()>(kernel), &packed};
        d::launch(*config, thunk);
        return cudaSuccess;
    }(std::forward<ActTypes>(args)...);
}

inline cudaError_t cudaGetLastError() {
    const cudaError_t e = solbench_cuda_host::detail::tls_last_error;
    solbench_cuda_host::detail::tls_last_error = cudaSuccess;
    return e;
}
inline cudaError_t cudaPeekAtLastError() {
    return solbench_cuda_host::detail::tls_last_error;
}
inline const char* cudaGetErrorString(cudaError_t e) {
    namespace d = solbench_cuda_host::detail;
    return e == d::tls_detail_code && !d::tls_detail.empty() ? d::tls_detail.c_str()
                                                             : d::error_string(e);
}
inline const char* cudaGetErrorName(cudaError_t e) {
    switch (e) {
#define SOLBENCH_CH_NAME(code)                                                                     \
    case code:                                                                                     \
        return #code;
        SOLBENCH_CH_NAME(cudaSuccess)
        SOLBENCH_CH_NAME(cudaErrorInvalidValue)
        SOLBENCH_CH_NAME(cudaErrorMemoryAllocation)
        SOLBENCH_CH_NAME(cudaErrorInitializationError)
        SOLBENCH_CH_NAME(cudaErrorInvalidConfiguration)
        SOLBENCH_CH_NAME(cudaErrorInvalidDeviceFunction)
        SOLBENCH_CH_NAME(cudaErrorNoDevice)
        SOLBENCH_CH_NAME(cudaErrorIllegalAddress)
        SOLBENCH_CH_NAME(cudaErrorLaunchOutOfResources)
        SOLBENCH_CH_NAME(cudaErrorLaunchTimeout)
        SOLBENCH_CH_NAME(cudaErrorIllegalInstruction)
        SOLBENCH_CH_NAME(cudaErrorMisalignedAddress)
        SOLBENCH_CH_NAME(cudaErrorLaunchFailure)
        SOLBENCH_CH_NAME(cudaErrorNotSupported)
        SOLBENCH_CH_NAME(cudaErrorUnknown)
#undef SOLBENCH_CH_NAME
    }
    return "cudaErrorUnknown";
}
// Launches are synchronous on the host.
inline cudaError_t cudaDeviceSynchronize() {
    return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) {
    return cudaSuccess;
}
