// Barriers and warp collectives (kernel contract: "Barriers and warp collectives"). Each is a
// scheduling point: the calling fiber suspends until its block (or warp) has met it.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "block_runner.h"

namespace solbench_cuda_host::detail {

template <typename T> std::uint64_t to_bits(T v) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                  "warp shuffles move trivially copyable values of at most 8 bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
}

template <typename T> T from_bits(std::uint64_t bits) {
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}

template <typename T> T shuffle(CollectiveOp op, unsigned int mask, T var, int param, int width) {
    return from_bits<T>(current_worker().collective(op, mask, to_bits(var), param, width));
}

inline std::uint64_t vote(CollectiveOp op, unsigned int mask, int predicate) {
    return current_worker().collective(op, mask, predicate != 0 ? 1U : 0U, 0, 32);
}

} // namespace solbench_cuda_host::detail

inline void __syncthreads() {
    solbench_cuda_host::detail::current_worker().barrier();
}

inline void __syncwarp(unsigned int mask = 0xffffffffU) {
    solbench_cuda_host::detail::vote(solbench_cuda_host::detail::CollectiveOp::SyncWarp, mask, 0);
}

template <typename T> T __shfl_sync(unsigned int mask, T var, int srcLane, int width = 32) {
    using solbench_cuda_host::detail::CollectiveOp;
    return solbench_cuda_host::detail::shuffle(CollectiveOp::ShflIdx, mask, var, srcLane, width);
}

template <typename T>
T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32) {
    using solbench_cuda_host::detail::CollectiveOp;
    return solbench_cuda_host::detail::shuffle(CollectiveOp::ShflUp, mask, var,
                                               static_cast<int>(delta), width);
}

template <typename T>
T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32) {
    using solbench_cuda_host::detail::CollectiveOp;
    return solbench_cuda_host::detail::shuffle(CollectiveOp::ShflDown, mask, var,
                                               static_cast<int>(delta), width);
}

template <typename T> T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = 32) {
    using solbench_cuda_host::detail::CollectiveOp;
    return solbench_cuda_host::detail::shuffle(CollectiveOp::ShflXor, mask, var, laneMask, width);
}

inline unsigned int __ballot_sync(unsigned int mask, int predicate) {
    return static_cast<unsigned int>(solbench_cuda_host::detail::vote(
        solbench_cuda_host::detail::CollectiveOp::Ballot, mask, predicate));
}

inline int __all_sync(unsigned int mask, int predicate) {
    return static_cast<int>(solbench_cuda_host::detail::vote(
        solbench_cuda_host::detail::CollectiveOp::All, mask, predicate));
}

inline int __any_sync(unsigned int mask, int predicate) {
    return static_cast<int>(solbench_cuda_host::detail::vote(
        solbench_cuda_host::detail::CollectiveOp::Any, mask, predicate));
}

inline void __threadfence_block() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void __threadfence() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
}
