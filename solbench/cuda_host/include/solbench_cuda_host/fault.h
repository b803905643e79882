// Hardware faults inside a kernel (SIGSEGV on a guard page, SIGBUS, SIGFPE, SIGILL) become a
// siglongjmp back to the worker that runs the block, which turns them into a launch error.
// The handlers are installed only for the duration of a launch and chain to the previous ones
// for faults on threads that are not running kernel code.
#pragma once

#include <array>
#include <atomic>
#include <csetjmp>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <pthread.h>
#include <ucontext.h>

namespace solbench_cuda_host::detail {

struct FaultInfo {
    int signo = 0;
    int code = 0;
    void* addr = nullptr;
    bool is_write = false;
};

// Where a faulting worker jumps back to; armed only while the worker runs blocks.
struct FaultTarget {
    sigjmp_buf jmp;
    FaultInfo info;
};

// Which OS threads are running kernel code, and where each jumps back to. A plain global table,
// not thread_local: the handler must not touch TLS (a foreign thread's dynamic TLS would be
// allocated with malloc inside the signal), and initial-exec TLS would force the module's whole
// TLS segment, shared memory arena included, into the small static TLS area.
struct FaultSlot {
    std::atomic<pthread_t> thread{0};
    std::atomic<FaultTarget*> target{nullptr};
};
inline constexpr std::size_t kFaultSlots = 1024;
inline FaultSlot fault_slots[kFaultSlots];

// Arms `target` for the calling thread; false when the table is full (faults then crash).
inline bool arm_fault_target(FaultTarget* target) {
    const pthread_t self = pthread_self();
    for (auto& slot : fault_slots) {
        pthread_t owner = slot.thread.load();
        if (owner == 0 && slot.thread.compare_exchange_strong(owner, self)) owner = self;
        if (owner == self) {
            slot.target.store(target);
            return true;
        }
    }
    return false;
}

inline void disarm_fault_target() {
    const pthread_t self = pthread_self();
    for (auto& slot : fault_slots)
        if (slot.thread.load() == self) slot.target.store(nullptr);
}

inline FaultTarget* take_fault_target() {
    const pthread_t self = pthread_self();
    for (auto& slot : fault_slots)
        if (slot.thread.load() == self) return slot.target.exchange(nullptr);
    return nullptr;
}

inline constexpr std::array<int, 4> kFaultSignals = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

inline std::array<struct sigaction, kFaultSignals.size()>& previous_actions() {
    static std::array<struct sigaction, kFaultSignals.size()> prev{};
    return prev;
}

inline bool fault_was_write(void* uctx) {
#if defined(__x86_64__)
    // Page-fault error code bit 1: the access was a write.
    const auto* uc = static_cast<const ucontext_t*>(uctx);
    return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)uctx;
    return false;
#endif
}

inline void fault_handler(int sig, siginfo_t* si, void* uctx) {
    FaultTarget* target = take_fault_target();
    if (target == nullptr) {
        // Not kernel code: hand the fault to whoever handled it before; it re-executes and
        // re-faults into that handler.
        for (std::size_t i = 0; i < kFaultSignals.size(); ++i)
            if (kFaultSignals[i] == sig) sigaction(sig, &previous_actions()[i], nullptr);
        return;
    }
    target->info = FaultInfo{sig, si->si_code, si->si_addr, fault_was_write(uctx)};
    siglongjmp(target->jmp, 1);
}

// Installs the fault handlers for one launch.
class ScopedFaultHandlers {
  public:
    ScopedFaultHandlers() {
        struct sigaction sa {};
        sa.sa_sigaction = &fault_handler;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        for (std::size_t i = 0; i < kFaultSignals.size(); ++i)
            sigaction(kFaultSignals[i], &sa, &previous_actions()[i]);
    }
    ScopedFaultHandlers(const ScopedFaultHandlers&) = delete;
    ScopedFaultHandlers& operator=(const ScopedFaultHandlers&) = delete;
    ~ScopedFaultHandlers() {
        for (std::size_t i = 0; i < kFaultSignals.size(); ++i)
            sigaction(kFaultSignals[i], &previous_actions()[i], nullptr);
    }
};

inline constexpr std::size_t kAltStackBytes = 64 * 1024;

// The handler runs on an alternate stack so a fiber stack overflow can still be reported.
class ScopedAltStack {
  public:
    ScopedAltStack() : mem_(new unsigned char[kAltStackBytes]) {
        stack_t ss{};
        ss.ss_sp = mem_.get();
        ss.ss_size = kAltStackBytes;
        installed_ = sigaltstack(&ss, &old_) == 0;
    }
    ScopedAltStack(const ScopedAltStack&) = delete;
    ScopedAltStack& operator=(const ScopedAltStack&) = delete;
    ~ScopedAltStack() {
        if (installed_) sigaltstack(&old_, nullptr);
    }

  private:
    std::unique_ptr<unsigned char[]> mem_;
    stack_t old_{};
    bool installed_ = false;
};

} // namespace solbench_cuda_host::detail
