// Dynamic shared memory: `extern __shared__ __align__(16) unsigned char smem[];` names the
// per-OS-thread arena below (a block runs on one OS thread, so its fibers share it and blocks
// running in parallel do not). For a launch with dynamicSmemBytes = S the pages from the first
// page boundary at or after smem + S are PROT_NONE; the few bytes between smem + S and that
// boundary hold a canary pattern that is checked at every scheduling point.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <sys/mman.h>
#include <unistd.h>

namespace solbench_cuda_host::detail {

// CUDA's default dynamic shared memory limit without cudaFuncSetAttribute (not in the contract).
inline constexpr std::size_t kSmemLimit = 48 * 1024;
inline constexpr std::size_t kArenaPage = 4096;
inline constexpr std::size_t kArenaBytes = kSmemLimit + 2 * kArenaPage;

} // namespace solbench_cuda_host::detail

alignas(16) inline thread_local unsigned char smem[solbench_cuda_host::detail::kArenaBytes];

namespace solbench_cuda_host::detail {

// Fill for uninitialised shared memory and the canary: 32-bit words 0x7fffffff, a NaN as float,
// as bf16 pairs and as half pairs, so reading either shows up in results.
inline unsigned char fill_byte(std::size_t offset) {
    return offset % 4 == 3 ? 0x7f : 0xff;
}

inline const unsigned char* fill_pattern() {
    static const auto* pattern = [] {
        static unsigned char p[kArenaBytes];
        for (std::size_t i = 0; i < kArenaBytes; ++i)
            p[i] = fill_byte(i);
        return p;
    }();
    return pattern;
}

class SmemArena {
  public:
    static constexpr std::size_t kQuickCheckBytes = 64;

    void open(std::size_t bytes) {
        base_ = ::smem;
        bytes_ = bytes;
        const auto lo = reinterpret_cast<std::uintptr_t>(base_);
        const bool paged = static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) == kArenaPage;
        const std::uintptr_t guard_lo = (lo + bytes + kArenaPage - 1) & ~(kArenaPage - 1);
        const std::uintptr_t guard_hi = (lo + kArenaBytes) & ~(kArenaPage - 1);
        guard_lo_ = paged ? guard_lo : lo + kArenaBytes;
        guard_hi_ = paged ? guard_hi : lo + kArenaBytes;
        std::memcpy(base_, fill_pattern(), guard_lo_ - lo);
        protected_ = guard_lo_ < guard_hi_ && mprotect(reinterpret_cast<void*>(guard_lo_),
                                                       guard_hi_ - guard_lo_, PROT_NONE) == 0;
    }

    void close() {
        if (protected_)
            mprotect(reinterpret_cast<void*>(guard_lo_), guard_hi_ - guard_lo_,
                     PROT_READ | PROT_WRITE);
        protected_ = false;
    }

    // Uninitialised shared memory reads as NaN, like the garbage it is on the GPU.
    void begin_block() { std::memcpy(base_, fill_pattern(), bytes_); }

    std::size_t bytes() const { return bytes_; }

    // Offset of the first corrupted canary byte among the first `limit` bytes past the end.
    std::optional<std::size_t> tail_corruption(std::size_t limit) const {
        const std::size_t slack = guard_lo_ - reinterpret_cast<std::uintptr_t>(base_) - bytes_;
        const std::size_t n = std::min(limit, slack);
        if (std::memcmp(base_ + bytes_, fill_pattern() + bytes_, n) == 0) return std::nullopt;
        for (std::size_t i = 0; i < n; ++i)
            if (base_[bytes_ + i] != fill_byte(bytes_ + i)) return bytes_ + i;
        return std::nullopt;
    }

    // Byte offset from smem of an address on the guard pages, if it is one.
    std::optional<std::size_t> guard_offset(const void* addr) const {
        const auto a = reinterpret_cast<std::uintptr_t>(addr);
        if (!protected_ || a < guard_lo_ || a >= guard_hi_) return std::nullopt;
        return a - reinterpret_cast<std::uintptr_t>(base_);
    }

  private:
    unsigned char* base_ = nullptr;
    std::size_t bytes_ = 0;
    std::uintptr_t guard_lo_ = 0;
    std::uintptr_t guard_hi_ = 0;
    bool protected_ = false;
};

} // namespace solbench_cuda_host::detail
