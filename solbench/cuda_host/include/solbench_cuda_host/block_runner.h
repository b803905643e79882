// Runs one thread block: a fiber per CUDA thread, scheduled warp by warp. A fiber runs until it
// reaches a scheduling point (__syncthreads, a warp collective, or its end). A warp collective
// completes when all lanes of the warp wait at it; __syncthreads completes when every thread of
// the block waits at it. Any other combination is a divergence, reported, never a hang.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_state.h"
#include "fault.h"
#include "fiber.h"
#include "shared_memory.h"

namespace solbench_cuda_host::detail {

enum class LaneState : std::uint8_t { Ready, AtCollective, AtBarrier, Exited, SmemOverflow };
enum class CollectiveOp : std::uint8_t {
    ShflIdx,
    ShflUp,
    ShflDown,
    ShflXor,
    Ballot,
    All,
    Any,
    SyncWarp
};

inline const char* collective_name(CollectiveOp op) {
    switch (op) {
    case CollectiveOp::ShflIdx:
        return "__shfl_sync";
    case CollectiveOp::ShflUp:
        return "__shfl_up_sync";
    case CollectiveOp::ShflDown:
        return "__shfl_down_sync";
    case CollectiveOp::ShflXor:
        return "__shfl_xor_sync";
    case CollectiveOp::Ballot:
        return "__ballot_sync";
    case CollectiveOp::All:
        return "__all_sync";
    case CollectiveOp::Any:
        return "__any_sync";
    case CollectiveOp::SyncWarp:
        return "__syncwarp";
    }
    return "?";
}

struct Lane {
    FiberContext ctx;
    uint3 tid{0, 0, 0};
    LaneState state = LaneState::Ready;
    CollectiveOp op = CollectiveOp::SyncWarp;
    unsigned int mask = 0;
    int param = 0;
    int width = 32;
    std::uint64_t value = 0;
    std::uint64_t result = 0;
};

// Type-erased kernel call: invoke(kernel, args) calls kernel with the packed arguments.
struct KernelThunk {
    void (*invoke)(void (*kernel)(), const void* args);
    void (*kernel)();
    const void* args;
};

inline std::string coords(uint3 v) {
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

// What went wrong in a block, before the kernel's name is attached (see launch.h).
class BlockFault : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

inline std::size_t fiber_stack_bytes() {
    static const std::size_t bytes = [] {
        const char* env = std::getenv("SOLBENCH_CUDA_HOST_STACK_KB");
        const long kb = env != nullptr ? std::atol(env) : 0;
        return static_cast<std::size_t>(kb >= 16 ? kb : 128) * 1024;
    }();
    return bytes;
}

class Worker;
inline thread_local Worker* tls_worker = nullptr;

class Worker {
  public:
    FaultTarget fault;
    SmemArena arena;

    // Per launch on this OS thread: the block shape and shared memory size.
    void begin_launch(const KernelThunk& thunk, dim3 grid, dim3 block, std::size_t smem_bytes) {
        thunk_ = &thunk;
        gridDim = grid;
        blockDim = block;
        nthreads_ = block.x * block.y * block.z;
        while (stacks_.size() < nthreads_)
            stacks_.emplace_back(fiber_stack_bytes());
        lanes_.resize(nthreads_);
        for (unsigned int i = 0; i < nthreads_; ++i)
            lanes_[i].tid = uint3{i % block.x, (i / block.x) % block.y, i / (block.x * block.y)};
        arena.open(smem_bytes);
        tls_worker = this;
    }

    void end_launch() {
        arena.close();
        tls_worker = nullptr;
        current_ = nullptr;
    }

    uint3 block() const { return block_; }
    // The thread whose fiber was running last (the culprit of a hardware fault).
    std::optional<uint3> current_thread() const {
        if (current_ == nullptr) return std::nullopt;
        return current_->tid;
    }
    bool on_stack_guard(const void* addr) const {
        for (unsigned int i = 0; i < nthreads_ && i < stacks_.size(); ++i)
            if (stacks_[i].guard_contains(addr)) return true;
        return false;
    }

    void run_block(uint3 block_idx) {
        block_ = block_idx;
        blockIdx = block_idx;
        arena.begin_block();
        for (unsigned int i = 0; i < nthreads_; ++i) {
            lanes_[i].state = LaneState::Ready;
            // Staggered stack tops: equal offsets modulo 4 KiB would alias in the L1 cache.
            fiber_prepare(lanes_[i].ctx, stacks_[i].lo(), stacks_[i].size() - (i % 61) * 64,
                          &fiber_main, this);
        }
        const unsigned int nwarps = (nthreads_ + 31) / 32;
        for (;;) {
            for (unsigned int w = 0; w < nwarps; ++w)
                run_warp(w * 32, std::min(32U, nthreads_ - w * 32));
            if (const auto off = arena.tail_corruption(SIZE_MAX))
                throw BlockFault(smem_overflow_message(*off, std::nullopt));
            const Lane* waiting = nullptr;
            const Lane* exited = nullptr;
            for (unsigned int i = 0; i < nthreads_; ++i) {
                if (lanes_[i].state == LaneState::AtBarrier && waiting == nullptr)
                    waiting = &lanes_[i];
                if (lanes_[i].state == LaneState::Exited && exited == nullptr) exited = &lanes_[i];
            }
            if (waiting == nullptr) return;
            if (exited != nullptr)
                throw BlockFault("barrier divergence in kernel {kernel}: block " + coords(block_) +
                                 " thread " + coords(waiting->tid) +
                                 " waits at __syncthreads while thread " + coords(exited->tid) +
                                 " has exited");
            for (unsigned int i = 0; i < nthreads_; ++i)
                lanes_[i].state = LaneState::Ready;
        }
    }

    // ---- called on a fiber, by the device intrinsics
    void barrier() { suspend(LaneState::AtBarrier); }

    std::uint64_t collective(CollectiveOp op, unsigned int mask, std::uint64_t value, int param,
                             int width) {
        Lane& lane = *current_;
        lane.op = op;
        lane.mask = mask;
        lane.value = value;
        lane.param = param;
        lane.width = width;
        suspend(LaneState::AtCollective);
        return lane.result;
    }

  private:
    static void fiber_main(void* arg) {
        auto* self = static_cast<Worker*>(arg);
        self->thunk_->invoke(self->thunk_->kernel, self->thunk_->args);
        self->suspend(LaneState::Exited);
        __builtin_unreachable();
    }

    void suspend(LaneState state) {
        Lane& lane = *current_;
        // Only this fiber ran since the last check, so a fresh write past the end is its own.
        lane.state =
            arena.tail_corruption(SmemArena::kQuickCheckBytes) ? LaneState::SmemOverflow : state;
        fiber_switch(lane.ctx, sched_);
    }

    void resume(Lane& lane) {
        current_ = &lane;
        threadIdx = lane.tid;
        fiber_switch(sched_, lane.ctx);
        if (lane.state == LaneState::SmemOverflow)
            throw BlockFault(smem_overflow_message(
                *arena.tail_corruption(SmemArena::kQuickCheckBytes), lane.tid));
    }

    void run_warp(unsigned int first, unsigned int count) {
        for (;;) {
            unsigned int at_collective = 0;
            for (unsigned int i = first; i < first + count; ++i) {
                if (lanes_[i].state == LaneState::Ready) resume(lanes_[i]);
                if (lanes_[i].state == LaneState::AtCollective) ++at_collective;
            }
            if (at_collective == 0) return;
            if (at_collective != count) throw BlockFault(warp_divergence_message(first, count));
            complete_collective(first, count);
        }
    }

    std::string warp_divergence_message(unsigned int first, unsigned int count) const {
        const Lane* in = nullptr;
        const Lane* out = nullptr;
        for (unsigned int i = first; i < first + count; ++i) {
            if (lanes_[i].state == LaneState::AtCollective) {
                if (in == nullptr) in = &lanes_[i];
            } else if (out == nullptr) {
                out = &lanes_[i];
            }
        }
        const std::string other =
            out->state == LaneState::Exited ? "has exited" : "waits at __syncthreads";
        return "barrier divergence in kernel {kernel}: block " + coords(block_) + " thread " +
               coords(in->tid) + " waits at " + collective_name(in->op) + " while thread " +
               coords(out->tid) + " " + other + " (a warp collective needs all 32 lanes)";
    }

    std::string smem_overflow_message(std::size_t offset, std::optional<uint3> thread) const {
        const std::string who = thread ? " thread " + coords(*thread) : std::string(" (a thread)");
        return "out-of-bounds access in kernel {kernel}: block " + coords(block_) + who +
               ": shared memory write at byte offset " + std::to_string(offset) +
               ", past dynamicSmemBytes=" + std::to_string(arena.bytes());
    }

    std::string collective_error(const Lane& lane, const std::string& what) const {
        return "invalid warp collective in kernel {kernel}: block " + coords(block_) + " thread " +
               coords(lane.tid) + ": " + collective_name(lane.op) + " " + what;
    }

    void complete_collective(unsigned int first, unsigned int count) {
        const Lane& lead = lanes_[first];
        const unsigned int full = count == 32 ? 0xffffffffU : (1U << count) - 1U;
        for (unsigned int i = first; i < first + count; ++i) {
            const Lane& l = lanes_[i];
            if (l.op != lead.op || l.mask != lead.mask || l.width != lead.width)
                throw BlockFault(collective_error(
                    l, "meets " + std::string(collective_name(lead.op)) + " of thread " +
                           coords(lead.tid) + " (lanes must execute the same collective)"));
        }
        if (lead.mask != full) {
            char buf[96];
            std::snprintf(buf, sizeof buf,
                          "has mask 0x%08x; it must name exactly the warp's %u threads (0x%08x)",
                          lead.mask, count, full);
            throw BlockFault(collective_error(lead, buf));
        }
        const int width = lead.width;
        if (width < 1 || width > 32 || (width & (width - 1)) != 0)
            throw BlockFault(collective_error(lead, "width " + std::to_string(width) +
                                                        " is not a power of two in [1, 32]"));
        switch (lead.op) {
        case CollectiveOp::Ballot:
        case CollectiveOp::All:
        case CollectiveOp::Any: {
            unsigned int ballot = 0;
            for (unsigned int r = 0; r < count; ++r)
                if (lanes_[first + r].value != 0) ballot |= 1U << r;
            const std::uint64_t result = lead.op == CollectiveOp::Ballot ? ballot
                                         : lead.op == CollectiveOp::All  ? (ballot == full)
                                                                         : (ballot != 0);
            for (unsigned int r = 0; r < count; ++r)
                lanes_[first + r].result = result;
            break;
        }
        case CollectiveOp::SyncWarp:
            break;
        default:
            for (unsigned int r = 0; r < count; ++r) {
                const unsigned int src = shuffle_source(lanes_[first + r], r, width);
                if (src >= count)
                    throw BlockFault(
                        collective_error(lanes_[first + r], "reads lane " + std::to_string(src) +
                                                                ", which does not exist"));
                lanes_[first + r].result = lanes_[first + src].value;
            }
        }
        for (unsigned int i = first; i < first + count; ++i)
            lanes_[i].state = LaneState::Ready;
    }

    // PTX shfl.sync semantics with CUDA's width segments: out-of-segment reads return own value.
    static unsigned int shuffle_source(const Lane& l, unsigned int lane, int width) {
        const auto w = static_cast<unsigned int>(width);
        const unsigned int seg_lo = lane & ~(w - 1U);
        const unsigned int seg_hi = seg_lo + w - 1U;
        const auto p = static_cast<unsigned int>(l.param);
        switch (l.op) {
        case CollectiveOp::ShflIdx:
            return seg_lo + (p & (w - 1U));
        case CollectiveOp::ShflUp:
            return (p <= lane - seg_lo) ? lane - p : lane;
        case CollectiveOp::ShflDown:
            return (p <= seg_hi - lane) ? lane + p : lane;
        case CollectiveOp::ShflXor: {
            const unsigned int j = lane ^ (p & 31U);
            return (j >= seg_lo && j <= seg_hi) ? j : lane;
        }
        default:
            return lane;
        }
    }

    const KernelThunk* thunk_ = nullptr;
    FiberContext sched_;
    std::vector<FiberStack> stacks_;
    std::vector<Lane> lanes_;
    Lane* current_ = nullptr;
    unsigned int nthreads_ = 0;
    uint3 block_{0, 0, 0};
};

inline Worker& current_worker() {
    if (tls_worker == nullptr)
        throw std::logic_error("solbench cuda_host: device intrinsic called outside a kernel");
    return *tls_worker;
}

} // namespace solbench_cuda_host::detail
