#!/usr/bin/env python3
"""Benchmarks for the CPU backend's CUDA execution layer (solbench.cuda_host).

Default: build tests/python/kernels/rmsnorm.cu for the CPU and time a [64, 4096] bf16 RMSNorm
(one 256-thread block per row) for 10 rounds, checking the result against torch.

--switch-micro: compile a small C++ program (no torch, a few seconds) that measures one fiber
resume (scheduler -> fiber -> scheduler, two switches) with the engine's x86-64 switch, with
_setjmp/_longjmp, with ucontext's swapcontext, and an OS-thread handoff (the alternative to
fibers: one OS thread per CUDA thread).

Usage: python bench/cpu_exec_bench.py [--rounds 10] [--rows 64] [--cols 4096] [--threads N]
       python bench/cpu_exec_bench.py --switch-micro
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def bench_rmsnorm(rounds: int, rows: int, cols: int) -> int:
    import torch

    import solbench.cuda_host as ch

    build_dir = Path(tempfile.gettempdir()) / "solbench_cpu_exec_bench"
    t0 = time.perf_counter()
    mod = ch.load_cpu_extension("solbench_cpu_exec_bench_rmsnorm",
                                [str(REPO / "tests/python/kernels/rmsnorm.cu")], str(build_dir))
    print(f"build/load: {time.perf_counter() - t0:.1f} s")

    torch.manual_seed(0)
    x = ch.guarded_copy(torch.randn(rows, cols).to(torch.bfloat16))
    w = ch.guarded_copy((torch.rand(cols) + 0.5).to(torch.bfloat16))
    out = ch.guarded_empty((rows, cols), torch.bfloat16)

    wall = []
    cpu = []
    for _ in range(rounds):
        w0, c0 = time.perf_counter(), time.process_time()
        mod.run(x, w, 1e-6, out)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)

    xf = x.float()
    ref = (xf * torch.rsqrt(xf.pow(2).mean(1, keepdim=True) + 1e-6) * w.float()).to(torch.bfloat16)
    max_err = (out.float() - ref.float()).abs().max().item()
    threads = os.environ.get("SOLBENCH_CUDA_HOST_THREADS", f"{os.cpu_count()} (all cores)")
    print(f"rmsnorm [{rows}, {cols}] bf16, 256 threads/block, {rounds} rounds, "
          f"pool threads: {threads}")
    print(f"  total wall {sum(wall):.3f} s, total CPU {sum(cpu):.3f} s")
    print(f"  per round: wall min {min(wall) * 1e3:.1f} ms, median "
          f"{sorted(wall)[len(wall) // 2] * 1e3:.1f} ms; CPU median "
          f"{sorted(cpu)[len(cpu) // 2] * 1e3:.1f} ms")
    print(f"  max |out - torch| = {max_err:.3g}")
    ok = max_err <= 0.02 * max(1.0, ref.float().abs().max().item()) and sum(wall) < 5.0
    print("  OK" if ok else "  FAILED (numerics or > 5 s total)")
    return 0 if ok else 1


SWITCH_MICRO = r"""
#include "solbench_cuda_host/fiber.h"
#include <atomic>
#include <ctime>
#include <csetjmp>
#include <cstdio>
#include <thread>
#include <ucontext.h>
#include <vector>

using namespace solbench_cuda_host::detail;
constexpr int kFibers = 256, kRounds = 2000;

// Thread CPU time, not wall time: robust against a loaded machine.
struct Clock {
    using time_point = double;
    static double now() {
        timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
    }
};

static double ns_per(double t0, long n) { return (Clock::now() - t0) / double(n); }

// 1) the engine's switch (asm on x86-64; ucontext when built with -DSOLBENCH_CUDA_HOST_UCONTEXT)
static FiberContext sched, fibers[kFibers];
static void engine_entry(void* arg) {
    auto i = reinterpret_cast<long>(arg);
    for (;;) fiber_switch(fibers[i], sched);
}
static double bench_engine() {
    std::vector<FiberStack> stacks;
    for (long i = 0; i < kFibers; ++i) {
        stacks.emplace_back(64 * 1024);
        // Stack tops staggered as in the engine, so they do not all alias in the L1 cache.
        fiber_prepare(fibers[i], stacks[i].lo(), stacks[i].size() - (i % 61) * 64, &engine_entry,
                      reinterpret_cast<void*>(i));
    }
    auto t0 = Clock::now();
    for (int r = 0; r < kRounds; ++r)
        for (int i = 0; i < kFibers; ++i) fiber_switch(sched, fibers[i]);
    return ns_per(t0, long(kRounds) * kFibers);
}

// 2) makecontext to start, _setjmp/_longjmp to switch
static ucontext_t main_uc, boot_uc[kFibers];
static jmp_buf sched_jb, fib_jb[kFibers];
static void sj_entry(int i) {
    if (_setjmp(fib_jb[i]) == 0) swapcontext(&boot_uc[i], &main_uc);
    for (;;)
        if (_setjmp(fib_jb[i]) == 0) _longjmp(sched_jb, 1);
}
static double bench_setjmp() {
    std::vector<FiberStack> stacks;
    for (int i = 0; i < kFibers; ++i) {
        stacks.emplace_back(64 * 1024);
        getcontext(&boot_uc[i]);
        boot_uc[i].uc_stack.ss_sp = stacks[i].lo();
        boot_uc[i].uc_stack.ss_size = stacks[i].size();
        makecontext(&boot_uc[i], reinterpret_cast<void (*)()>(&sj_entry), 1, i);
        swapcontext(&main_uc, &boot_uc[i]);
    }
    auto t0 = Clock::now();
    for (int r = 0; r < kRounds; ++r)
        for (int i = 0; i < kFibers; ++i)
            if (_setjmp(sched_jb) == 0) _longjmp(fib_jb[i], 1);
    return ns_per(t0, long(kRounds) * kFibers);
}

// 3) swapcontext both ways (one rt_sigprocmask syscall per switch)
static ucontext_t uc_sched, uc_fib[kFibers];
static void uc_entry(int i) {
    for (;;) swapcontext(&uc_fib[i], &uc_sched);
}
static double bench_ucontext() {
    std::vector<FiberStack> stacks;
    for (int i = 0; i < kFibers; ++i) {
        stacks.emplace_back(64 * 1024);
        getcontext(&uc_fib[i]);
        uc_fib[i].uc_stack.ss_sp = stacks[i].lo();
        uc_fib[i].uc_stack.ss_size = stacks[i].size();
        makecontext(&uc_fib[i], reinterpret_cast<void (*)()>(&uc_entry), 1, i);
    }
    const int rounds = kRounds / 10;
    auto t0 = Clock::now();
    for (int r = 0; r < rounds; ++r)
        for (int i = 0; i < kFibers; ++i) swapcontext(&uc_sched, &uc_fib[i]);
    return ns_per(t0, long(rounds) * kFibers);
}

// 4) OS threads: hand a token to another thread and wait for it back (futex wait/notify)
static double bench_threads() {
    std::atomic<int> turn{0};
    const int n = 20000;
    std::thread other([&] {
        for (int k = 0; k < n; ++k) {
            while (turn.load() != 1) turn.wait(0);
            turn.store(0);
            turn.notify_one();
        }
    });
    timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    for (int k = 0; k < n; ++k) {
        turn.store(1);
        turn.notify_one();
        while (turn.load() != 0) turn.wait(1);
    }
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double r = (double(w1.tv_sec - w0.tv_sec) * 1e9 + double(w1.tv_nsec - w0.tv_nsec)) / n;
    other.join();
    return r;
}

int main() {
    std::printf("engine switch (%s): %.1f ns per resume\n",
                SOLBENCH_CH_ASM_FIBERS ? "x86-64 asm" : "ucontext", bench_engine());
    std::printf("_setjmp/_longjmp:        %.1f ns per resume\n", bench_setjmp());
    std::printf("swapcontext:             %.1f ns per resume\n", bench_ucontext());
    std::printf("OS thread handoff:       %.1f ns per resume (wall time)\n", bench_threads());
}
"""


def switch_micro() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "switch_micro.cpp"
        exe = Path(tmp) / "switch_micro"
        src.write_text(SWITCH_MICRO)
        include = REPO / "solbench/cuda_host/include"
        subprocess.run(["g++", "-std=c++20", "-O2", "-U_FORTIFY_SOURCE", f"-I{include}",
                        str(src), "-o", str(exe), "-lpthread"], check=True)
        return subprocess.run([str(exe)], check=False).returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--rows", type=int, default=64)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=0, help="OS threads for blocks (0: all cores)")
    ap.add_argument("--switch-micro", action="store_true")
    args = ap.parse_args()
    if args.switch_micro:
        return switch_micro()
    if args.threads > 0:
        os.environ["SOLBENCH_CUDA_HOST_THREADS"] = str(args.threads)
    return bench_rmsnorm(args.rounds, args.rows, args.cols)


if __name__ == "__main__":
    sys.exit(main())
