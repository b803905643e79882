// Cooperative fibers: one per CUDA thread of the running block. On x86-64 the switch is six
// pushes, a stack swap, six pops and an indirect jump (no signal-mask syscall, unlike
// swapcontext; jmp rather than ret, which would mispredict on every switch). Elsewhere, or with
// -DSOLBENCH_CUDA_HOST_UCONTEXT, it falls back to ucontext. Numbers: docs/cpu-backend.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(SOLBENCH_CUDA_HOST_UCONTEXT)
#define SOLBENCH_CH_ASM_FIBERS 1
#else
#define SOLBENCH_CH_ASM_FIBERS 0
#include <ucontext.h>
#endif

namespace solbench_cuda_host::detail {

using FiberEntry = void (*)(void*);

#if SOLBENCH_CH_ASM_FIBERS

extern "C" __attribute__((visibility("hidden"))) void solbench_ch_switch(void** save_sp,
                                                                         void* next_sp);
extern "C" __attribute__((visibility("hidden"))) void solbench_ch_trampoline();

// Weak + hidden: every translation unit of an extension may carry a copy; the linker keeps one.
asm(R"(
    .pushsection .text
    .weak solbench_ch_switch
    .hidden solbench_ch_switch
    .type solbench_ch_switch, @function
solbench_ch_switch:
    .cfi_startproc
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    popq %rcx
    jmpq *%rcx
    .cfi_endproc
    .size solbench_ch_switch, .-solbench_ch_switch

    .weak solbench_ch_trampoline
    .hidden solbench_ch_trampoline
    .type solbench_ch_trampoline, @function
solbench_ch_trampoline:
    .cfi_startproc
    .cfi_undefined rip
    movq %r12, %rdi
    callq *%r13
    ud2
    .cfi_endproc
    .size solbench_ch_trampoline, .-solbench_ch_trampoline
    .popsection
)");

// A suspended execution: its saved stack pointer (callee-saved registers live on that stack).
struct FiberContext {
    void* sp = nullptr;
};

inline void fiber_switch(FiberContext& from, const FiberContext& to) {
    solbench_ch_switch(&from.sp, to.sp);
}

// Lays out the frame solbench_ch_switch pops: r15 r14 r13=entry r12=arg rbx rbp, then the
// return address (the trampoline), placed so the trampoline starts with a 16-byte aligned rsp.
inline void fiber_prepare(FiberContext& ctx, void* stack_lo, std::size_t size, FiberEntry entry,
                          void* arg) {
    const std::uintptr_t top =
        (reinterpret_cast<std::uintptr_t>(stack_lo) + size) & ~std::uintptr_t{15};
    auto** slots = reinterpret_cast<void**>(top - 72);
    slots[0] = nullptr;
    slots[1] = nullptr;
    slots[2] = reinterpret_cast<void*>(entry);
    slots[3] = arg;
    slots[4] = nullptr;
    slots[5] = nullptr;
    slots[6] = reinterpret_cast<void*>(&solbench_ch_trampoline);
    ctx.sp = slots;
}

#else

struct FiberContext {
    ucontext_t uc;
};

inline void fiber_switch(FiberContext& from, const FiberContext& to) {
    swapcontext(&from.uc, const_cast<ucontext_t*>(&to.uc));
}

inline void fiber_uc_entry(unsigned int hi_entry, unsigned int lo_entry, unsigned int hi_arg,
                           unsigned int lo_arg) {
    const auto entry = (static_cast<std::uintptr_t>(hi_entry) << 32U) | lo_entry;
    const auto arg = (static_cast<std::uintptr_t>(hi_arg) << 32U) | lo_arg;
    reinterpret_cast<FiberEntry>(entry)(reinterpret_cast<void*>(arg));
    __builtin_trap();
}

inline void fiber_prepare(FiberContext& ctx, void* stack_lo, std::size_t size, FiberEntry entry,
                          void* arg) {
    getcontext(&ctx.uc);
    ctx.uc.uc_stack.ss_sp = stack_lo;
    ctx.uc.uc_stack.ss_size = size;
    ctx.uc.uc_link = nullptr;
    const auto e = reinterpret_cast<std::uintptr_t>(entry);
    const auto a = reinterpret_cast<std::uintptr_t>(arg);
    makecontext(&ctx.uc, reinterpret_cast<void (*)()>(&fiber_uc_entry), 4,
                static_cast<unsigned int>(e >> 32U), static_cast<unsigned int>(e),
                static_cast<unsigned int>(a >> 32U), static_cast<unsigned int>(a));
}

#endif

// A fiber stack: mmap'd, lazily committed, with a PROT_NONE page below it to catch overflow.
class FiberStack {
  public:
    explicit FiberStack(std::size_t usable) : usable_(usable) {
        const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        guard_ = page;
        void* p = mmap(nullptr, guard_ + usable_, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        base_ = static_cast<unsigned char*>(p);
        mprotect(base_, guard_, PROT_NONE);
    }
    FiberStack(const FiberStack&) = delete;
    FiberStack& operator=(const FiberStack&) = delete;
    FiberStack(FiberStack&& o) noexcept : base_(o.base_), guard_(o.guard_), usable_(o.usable_) {
        o.base_ = nullptr;
    }
    FiberStack& operator=(FiberStack&&) = delete;
    ~FiberStack() {
        if (base_ != nullptr) munmap(base_, guard_ + usable_);
    }

    void* lo() const { return base_ + guard_; }
    std::size_t size() const { return usable_; }
    bool guard_contains(const void* addr) const {
        const auto* a = static_cast<const unsigned char*>(addr);
        return a >= base_ && a < base_ + guard_;
    }

  private:
    unsigned char* base_ = nullptr;
    std::size_t guard_ = 0;
    std::size_t usable_ = 0;
};

} // namespace solbench_cuda_host::detail
