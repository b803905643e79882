// An optional record of every global load (__ldg) a kernel makes, so tests and
// docs can count the bytes a kernel reads from each tensor (how many passes it
// makes over DRAM). Off unless solbench_load_trace_begin() is called, which
// solbench.cuda_host.trace_loads does through ctypes; when off, a load costs
// one relaxed atomic read. Plain stores are not recorded.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace solbench_cuda_host {

struct LoadTrace {
    std::atomic<bool> on{false};
    std::mutex mutex;                   // blocks run on several OS threads
    std::vector<std::uint64_t> records; // address, bytes, address, bytes, ...
};

inline LoadTrace& load_trace() {
    static LoadTrace trace;
    return trace;
}

inline void trace_load(const void* p, std::size_t bytes) {
    LoadTrace& t = load_trace();
    if (!t.on.load(std::memory_order_relaxed)) return;
    std::lock_guard<std::mutex> lock(t.mutex);
    t.records.push_back(reinterpret_cast<std::uintptr_t>(p));
    t.records.push_back(bytes);
}

} // namespace solbench_cuda_host

// The C entry points, found by name in the built module with ctypes. `used`
// keeps them although nothing in the module calls them.
#define SOLBENCH_TRACE_EXPORT extern "C" __attribute__((used, visibility("default"))) inline

SOLBENCH_TRACE_EXPORT void solbench_load_trace_begin() {
    auto& t = solbench_cuda_host::load_trace();
    std::lock_guard<std::mutex> lock(t.mutex);
    t.records.clear();
    t.on.store(true);
}

// Stops recording; returns the number of loads recorded.
SOLBENCH_TRACE_EXPORT std::uint64_t solbench_load_trace_end() {
    auto& t = solbench_cuda_host::load_trace();
    t.on.store(false);
    std::lock_guard<std::mutex> lock(t.mutex);
    return t.records.size() / 2;
}

// Copies the records (2 x count uint64: address, bytes) to out.
SOLBENCH_TRACE_EXPORT void solbench_load_trace_copy(std::uint64_t* out) {
    auto& t = solbench_cuda_host::load_trace();
    std::lock_guard<std::mutex> lock(t.mutex);
    for (std::size_t i = 0; i < t.records.size(); ++i)
        out[i] = t.records[i];
}

#undef SOLBENCH_TRACE_EXPORT
