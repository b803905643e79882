"""Packed FP32 on sm_100a (B200), read from the SASS of the generated kernels (no GPU).

ptxas does not pair scalar float code into FFMA2/FMUL2/FADD2, so the row loops have a pair
form that calls them (solbench/csrc/codegen/pair_printer.h, row_helpers.mustache's add2, mul2,
fma2, sub2). On sm_100a every cached variant of an even vector width runs it: at least one
packed instruction for each pair of the row's columns a thread holds. The odd-vector fallback
runs the scalar loop, and on sm_90, which has no packed FP32, the pair form compiles to the
scalar instructions (the same count as before it existed is what bench/compare_bundles.py
shows; docs/performance.md)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from test_round_trips import NVCC, bundle_of, bf16
from test_special_functions import cached_kernels

CASES = {
    "softcap_softmax": lambda tmp: bundle_of(tmp, "softcap_softmax"),
    "rmsnorm": lambda tmp: bundle_of(tmp, "rmsnorm"),
    "softmax": lambda tmp: bundle_of(tmp, "softmax", bf16),
    "layernorm": lambda tmp: bundle_of(tmp, "layernorm", bf16),
}


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed (scripts/install-deps does not install CUDA)")
@pytest.mark.parametrize("op", sorted(CASES))
def test_cached_row_loops_run_packed_fp32_on_sm_100a(op: str, tmp_path: Path) -> None:
    bundle = CASES[op](tmp_path)
    text = (bundle / "kernel.cu").read_text()
    assert "if constexpr (kVec % 2 == 0) { // two columns a step" in text
    kernels = cached_kernels(bundle, tmp_path / "keep", "sm_100a")
    cached = [k for k in kernels if k.variant and k.variant.chunks and k.variant.vector % 2 == 0]
    assert cached, [k.kernel for k in kernels]
    for k in cached:
        pairs = k.variant.chunks * k.variant.vector // 2
        assert k.packed_fp32 >= pairs, (k.variant.describe(), k.packed_fp32, pairs)
    odd = [k for k in kernels if k.variant and k.variant.vector % 2 == 1]
    assert odd and all(k.packed_fp32 == 0 for k in odd), [(k.kernel, k.packed_fp32) for k in odd]


def test_a_loop_with_a_cast_keeps_its_scalar_form(tmp_path: Path) -> None:
    """fused add + RMSNorm rounds h + r to bf16 in every loop (a cast has no pair form)."""
    text = (bundle_of(tmp_path, "fused_add_rmsnorm") / "kernel.cu").read_text()
    assert "__float2bfloat16_rn(hidden_states_v[j] + residual_v[j])" in text
    assert "j += 2" not in text and "float2 pair_at" not in text


# The host stand-ins of the packed intrinsics, exact as sm_100's (one rounding each), for
# compiling the kernel's exp2_fma on the host: its arithmetic is all IEEE round-to-nearest.
SHIM = r"""
#include <cmath>
#include <cstdio>
#include <cstring>
struct float2 { float x, y; };
static float2 make_float2(float a, float b) { return {a, b}; }
static float2 __fadd2_rn(float2 a, float2 b) { return {a.x + b.x, a.y + b.y}; }
static float2 __fmul2_rn(float2 a, float2 b) { return {a.x * b.x, a.y * b.y}; }
static float2 __ffma2_rn(float2 a, float2 b, float2 c) {
    return {std::fma(a.x, b.x, c.x), std::fma(a.y, b.y, c.y)};
}
static unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
static float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
#define __device__
#define __forceinline__ inline
"""

MAIN = r"""
int main() {
    double worst = 0;
    for (int i = 0; i <= 1300000; ++i) {  // t over [-130, 0], both lanes
        const float t = -130.0f + static_cast<float>(i) * 1e-4f;
        const float2 r = exp2_fma(make_float2(t, t * 0.5f));
        const double ref[2] = {std::exp2(static_cast<double>(t)), std::exp2(0.5 * t)};
        const float got[2] = {r.x, r.y};
        for (int l = 0; l < 2; ++l) {
            if (ref[l] < 0x1p-126) {  // flushed to zero, as ex2.approx.ftz
                if (got[l] != 0.0f && std::fabs(got[l] - ref[l]) / ref[l] > 4e-7) return 2;
                continue;
            }
            worst = std::fmax(worst, std::fabs(got[l] - ref[l]) / ref[l]);
        }
    }
    const float2 special = exp2_fma(make_float2(-INFINITY, NAN));
    const float2 ends = exp2_fma(make_float2(0.0f, -1000.0f));
    std::printf("%.3g %g %d %g %g\n", worst, special.x, std::isnan(special.y) ? 1 : 0, ends.x, ends.y);
    return 0;
}
"""


def exp2_fma_source(kernel_cu: str) -> str:
    start = kernel_cu.index("__device__ __forceinline__ float2 exp2_fma(float2 t) {")
    return kernel_cu[start:kernel_cu.index("\n}\n", start) + 3]


@pytest.mark.skipif(shutil.which("g++") is None, reason="no host C++ compiler")
def test_the_fma_pipe_exp2_is_as_close_as_the_mufu_one(tmp_path: Path) -> None:
    """softcap_softmax's exp2_fma, compiled on the host with exact stand-ins of the packed
    intrinsics: within 4e-7 relative of 2^t over [-130, 0] (ex2.approx: 2 ulp, 2.4e-7),
    flushing under 2^-126, 0 for -inf and for t far under -127, NaN for NaN, 1 at 0."""
    text = (REPO / "submissions" / "softcap_softmax" / "kernel.cu").read_text()
    src = tmp_path / "exp2_fma.cpp"
    src.write_text(SHIM + exp2_fma_source(text) + MAIN)
    exe = tmp_path / "exp2_fma"
    build = subprocess.run(["g++", "-std=c++17", "-O2", "-ffp-contract=off", str(src), "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, (run.returncode, run.stdout)
    worst, minus_inf, nan, one, far = run.stdout.split()
    assert float(worst) < 4e-7, worst
    assert (float(minus_inf), int(nan), float(one), float(far)) == (0.0, 1, 1.0, 0.0), run.stdout


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed (scripts/install-deps does not install CUDA)")
def test_softcap_takes_a_quarter_of_its_exps_off_the_mufu_on_sm_100a(tmp_path: Path) -> None:
    """A tanh and an exp an element: on sm_100a one pair of exps in four runs exp2_fma, so a
    cached variant of 8 or more a vector issues at most 1.75 MUFU an element (plus the row's
    reciprocal); on sm_90 every exp stays on the MUFU (2 an element)."""
    bundle = CASES["softcap_softmax"](tmp_path)
    for arch, most, least in (("sm_100a", 1.75, 1.5), ("sm_90", None, 2.0)):
        kernels = cached_kernels(bundle, tmp_path / f"keep_{arch}", arch)
        cached = [k for k in kernels if k.variant and k.variant.chunks and k.variant.vector >= 8]
        assert cached, arch
        for k in cached:
            elements = k.variant.chunks * k.variant.vector
            assert k.mufu >= least * elements, (arch, k.variant.describe(), k.mufu)
            if most is not None:
                assert k.mufu <= most * elements + 1, (arch, k.variant.describe(), k.mufu)
