"""The CPU backend's CUDA execution layer (solbench.cuda_host): handwritten kernels in
tests/python/kernels/ use only the kernel-contract vocabulary, are built exactly as a submission
would be (byte-identical copies compiled as C++), and are compared with torch on the CPU.

Builds are slow (~30-60 s per extension), so three extensions are built once per session into a
persistent directory (SOLBENCH_CUDA_HOST_TEST_BUILD, default <tmp>/solbench_cuda_host_tests);
reruns with unchanged sources only re-import them.
"""

from __future__ import annotations

import faulthandler
import math
import os
import re
import tempfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
ch = pytest.importorskip("solbench.cuda_host")

KERNELS = Path(__file__).resolve().parent / "kernels"
BUILD_ROOT = Path(os.environ.get("SOLBENCH_CUDA_HOST_TEST_BUILD",
                                 Path(tempfile.gettempdir()) / "solbench_cuda_host_tests"))
HANG_LIMIT_S = 120


def _build(stem: str):
    return ch.load_cpu_extension(f"solbench_ch_test_{stem}", [str(KERNELS / f"{stem}.cu")],
                                 str(BUILD_ROOT / stem))


@pytest.fixture(scope="session")
def rmsnorm():
    return _build("rmsnorm")


@pytest.fixture(scope="session")
def silu_mul():
    return _build("silu_mul")


@pytest.fixture(scope="session")
def probes():
    return _build("probes")


@pytest.fixture
def no_hang():
    """Kills the run (with tracebacks) instead of hanging if a launch never returns."""
    faulthandler.dump_traceback_later(HANG_LIMIT_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def bf16_ulp_diff(a, b):
    """Distance in bf16 units in the last place (same-sign finite values)."""
    ia = a.view(torch.int16).to(torch.int32)
    ib = b.view(torch.int16).to(torch.int32)
    return (ia - ib).abs()


# ----------------------------------------------------------------------------- guarded tensors

@pytest.mark.parametrize("shape,dtype", [((64, 4096), torch.bfloat16), ((7,), torch.float32),
                                         ((3, 5), torch.float16), ((1,), torch.int64)])
def test_guarded_tensor_ends_at_a_page(shape, dtype):
    t = ch.guarded_empty(shape, dtype)
    assert tuple(t.shape) == shape and t.dtype == dtype and t.is_contiguous()
    end = t.data_ptr() + t.numel() * t.element_size()
    assert end % 4096 == 0
    if t.numel() * t.element_size() % 16 == 0:
        assert t.data_ptr() % 16 == 0
    t.fill_(1)
    assert int(t.sum()) == t.numel()


def test_guarded_copy_keeps_values_and_mapping_alive():
    src = torch.randn(33, 17)
    g = ch.guarded_copy(src)
    del src  # the copy must not depend on the source
    import gc
    gc.collect()
    assert g.sum().item() == pytest.approx(ch.guarded_copy(g).sum().item())
    assert ch.guarded_empty((0, 4), torch.float32).numel() == 0


def test_sources_are_staged_byte_identical(rmsnorm):
    staged = BUILD_ROOT / "rmsnorm" / "rmsnorm_cu.cpp"
    assert staged.read_bytes() == (KERNELS / "rmsnorm.cu").read_bytes()


# ----------------------------------------------------------------------------- numerics

def rmsnorm_reference(x, w, eps):
    xf = x.float()
    inv = torch.rsqrt(xf.pow(2).mean(dim=1, keepdim=True) + eps)
    return (xf * inv * w.float()).to(torch.bfloat16)


@pytest.mark.parametrize("rows,cols", [(64, 4096), (5, 136), (1, 8)])
def test_rmsnorm_matches_torch(rmsnorm, no_hang, rows, cols):
    torch.manual_seed(rows * 7 + cols)
    x = ch.guarded_copy(torch.randn(rows, cols).to(torch.bfloat16))
    w = ch.guarded_copy((torch.rand(cols) + 0.5).to(torch.bfloat16))
    out = ch.guarded_empty((rows, cols), torch.bfloat16)
    rmsnorm.run(x, w, 1e-6, out)
    ref = rmsnorm_reference(x, w, 1e-6)
    # fp32 accumulation in a different order: at most one bf16 rounding step apart.
    assert int(bf16_ulp_diff(out, ref).max()) <= 1
    assert (out == ref).float().mean().item() > 0.98


def test_silu_mul_matches_torch(silu_mul, no_hang):
    torch.manual_seed(1)
    n = 1000  # not a multiple of the block size: the tail threads must return
    gate = ch.guarded_copy((torch.randn(n) * 4).to(torch.bfloat16))
    up = ch.guarded_copy(torch.randn(n).to(torch.bfloat16))
    out = ch.guarded_empty((n,), torch.bfloat16)
    silu_mul.run(gate, up, out)
    ref = (torch.nn.functional.silu(gate.float()) * up.float()).to(torch.bfloat16)
    assert int(bf16_ulp_diff(out, ref).max()) <= 1


def special_floats():
    vals = [0.0, -0.0, 1.0, -1.0, 65504.0, 65519.0, 65520.0, -65520.0, 1e-8, 5.96e-8, 2.98e-8,
            6.1e-5, 3.0e38, 3.39e38, float("inf"), float("-inf"), 1.0 + 2**-8, 1.0 + 3 * 2**-8,
            1.0 + 2**-11, 1.0 + 3 * 2**-11, 1e-45, -1e-40]
    torch.manual_seed(3)
    rnd = torch.cat([torch.randn(4000), torch.randn(2000) * 1e4, torch.randn(2000) * 1e-6,
                     # random bit patterns over all finite floats
                     torch.randint(0, 0x7F800000, (4000,), dtype=torch.int32).view(torch.float32)])
    return torch.cat([torch.tensor(vals, dtype=torch.float32), rnd])


def test_narrowing_conversions_are_bit_exact(probes, no_hang):
    x = ch.guarded_copy(special_floats())
    n = x.numel()
    bf = ch.guarded_empty((n,), torch.bfloat16)
    hf = ch.guarded_empty((n,), torch.float16)
    bf_back = ch.guarded_empty((n,), torch.float32)
    hf_back = ch.guarded_empty((n,), torch.float32)
    probes.convert(x, bf, hf, bf_back, hf_back)
    assert torch.equal(bf.view(torch.int16), x.to(torch.bfloat16).view(torch.int16))
    assert torch.equal(hf.view(torch.int16), x.to(torch.float16).view(torch.int16))
    assert torch.equal(bf_back.view(torch.int32), x.to(torch.bfloat16).float().view(torch.int32))
    assert torch.equal(hf_back.view(torch.int32), x.to(torch.float16).float().view(torch.int32))


def test_nan_narrows_to_cuda_canonical_nan(probes):
    x = ch.guarded_copy(torch.tensor([float("nan"), -float("nan")]))
    bf = ch.guarded_empty((2,), torch.bfloat16)
    hf = ch.guarded_empty((2,), torch.float16)
    probes.convert(x, bf, hf, ch.guarded_empty((2,), torch.float32),
                   ch.guarded_empty((2,), torch.float32))
    # cvt.rn.bf16.f32 / cvt.rn.f16.f32 give 0x7fff for any NaN (torch gives 0x7fc0 / 0x7e00).
    assert bf.view(torch.int16).tolist() == [0x7FFF, 0x7FFF]
    assert hf.view(torch.int16).tolist() == [0x7FFF, 0x7FFF]


def test_widening_conversions_are_bit_exact_for_all_16_bit_patterns(probes):
    bits = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16)
    bf = ch.guarded_copy(bits.view(torch.bfloat16))
    hf = ch.guarded_copy(bits.view(torch.float16))
    bf_out = ch.guarded_empty((65536,), torch.float32)
    hf_out = ch.guarded_empty((65536,), torch.float32)
    probes.widen(bf, hf, bf_out, hf_out)
    assert torch.equal(bf_out.view(torch.int32), bf.float().view(torch.int32))
    finite = ~hf.float().isnan()
    assert torch.equal(hf_out[finite].view(torch.int32), hf[finite].float().view(torch.int32))
    assert bool(hf_out[~finite].isnan().all())


def test_fp8_conversions_are_bit_exact_with_torch_in_range(probes, no_hang):
    """logos-ops.md §6 (r2): nearest-even as torch's .to() in range; past it, E4M3
    saturates at +-448 (CUDA's __NV_SATFINITE; torch gives NaN) and E5M2 goes to
    +-inf. Every one of the 256 byte patterns widens exactly as torch widens it."""
    x = special_floats()
    x = torch.cat([x, torch.tensor([448.0, 464.0, 464.1, 480.0, -1000.0, 57344.0, 61439.0,
                                    61440.0, -1e6, 2.0**-9, 2.0**-10, 3 * 2.0**-11, 2.0**-16,
                                    2.0**-17, 3 * 2.0**-18, float("nan")])])
    n = x.numel()
    e4m3 = ch.guarded_empty((n,), torch.uint8)
    e5m2 = ch.guarded_empty((n,), torch.uint8)
    widened = ch.guarded_empty((512,), torch.float32)
    probes.fp8(ch.guarded_copy(x), e4m3, e5m2, widened)
    in4 = x.abs() <= 448.0
    assert torch.equal(e4m3[in4], x[in4].to(torch.float8_e4m3fn).view(torch.uint8))
    over4 = (x.abs() > 448.0) & ~x.isnan()
    assert bool(over4.any())
    assert torch.equal(e4m3[over4], torch.where(x[over4] > 0, 0x7E, 0xFE).to(torch.uint8))
    in5 = x.abs() < 57344.0 + 4096.0
    assert torch.equal(e5m2[in5], x[in5].to(torch.float8_e5m2).view(torch.uint8))
    over5 = (x.abs() >= 61440.0) & ~x.isnan()
    assert bool(over5.any())
    assert torch.equal(e5m2[over5], torch.where(x[over5] > 0, 0x7C, 0xFC).to(torch.uint8))
    assert e4m3[x.isnan()].tolist() == [0x7F]  # CUDA's NaN (sign kept)
    bytes_ = torch.arange(256, dtype=torch.int32).to(torch.uint8)
    for k, dtype in enumerate((torch.float8_e4m3fn, torch.float8_e5m2)):
        want = bytes_.view(dtype).float()
        got = widened[256 * k:256 * (k + 1)]
        finite = ~want.isnan()
        assert torch.equal(got[finite].view(torch.int32), want[finite].view(torch.int32))
        assert bool(got[~finite].isnan().all())


def test_warp_collectives(probes, no_hang):
    torch.manual_seed(5)
    x = torch.randint(-5, 6, (128,)).float()
    x[64:96] = torch.arange(1, 33).float()  # a warp where every predicate is true
    out = ch.guarded_empty((128, 8), torch.int32)
    probes.collectives(ch.guarded_copy(x), out)
    xs = x.long().tolist()
    for t in range(128):
        base = t - t % 32
        lane = t % 32
        warp = xs[base:base + 32]
        ballot = sum(1 << i for i, v in enumerate(warp) if v > 0)
        expected = [
            warp[3],
            warp[lane ^ 5],
            warp[lane + 4] if lane + 4 < 32 else warp[lane],
            ballot - (1 << 32) if ballot >= 1 << 31 else ballot,
            1,
            0,
            (31 - lane) * 10,
            lane ^ 1,  # width 16: stays inside the 16-lane segment
        ]
        assert out[t].tolist() == expected, f"thread {t}"


def test_math_functions_match_torch(probes):
    torch.manual_seed(9)
    x = torch.cat([torch.randn(500) * 3, torch.tensor([0.0, -0.0, 200.0, -200.0, 1e-30])])
    n = x.numel()
    out = ch.guarded_empty((13, n), torch.float32)
    probes.math(ch.guarded_copy(x), out)
    a = x.abs() + 0.5
    expected = [a.sqrt(), a.rsqrt(), x.exp(), x.exp(), a.log(), a.log(), x.tanh(),
                torch.special.erf(x), x.clamp(min=0.25) + x.clamp(max=-0.25), a.pow(1.5), x / a,
                1.0 / a, torch.where(x > 100, torch.tensor(math.inf), torch.tensor(0.0))]
    for row, ref in enumerate(expected):
        torch.testing.assert_close(out[row], ref, rtol=2e-6, atol=1e-7, equal_nan=True,
                                   msg=f"math row {row}")


def test_thread_and_block_indices_in_3d(probes):
    grid, block = [3, 2, 2], [4, 2, 3]  # 24 threads: a partial warp
    blocks, tpb = 12, 24
    out = ch.guarded_empty((blocks * tpb,), torch.int32)
    probes.indices(out, grid, block)
    expected = [b * 10000 + t for b in range(blocks) for t in range(tpb)]
    assert out.tolist() == expected


def test_shared_memory_exact_fit_works(probes, no_hang):
    out = ch.guarded_empty((4 * 64,), torch.float32)
    probes.smem_fill(out, 64, 64 * 4)
    expected = [float((t % 64 + 1) % 64) for t in range(256)]
    assert out.tolist() == expected


def test_binding_device_check_accepts_cpu_tensors(probes):
    probes.device_check(torch.zeros(2))


# ----------------------------------------------------------------------------- faults

def test_off_by_one_read_names_kernel_block_and_thread(probes, no_hang):
    n = 300
    x = ch.guarded_copy(torch.arange(n, dtype=torch.float32))
    out = ch.guarded_empty((n,), torch.float32)
    with pytest.raises(RuntimeError) as err:
        probes.shift_sum(x, out)
    msg = str(err.value)
    # Thread n-1 = block 2, thread 43 reads x[300], the first byte of the guard page.
    assert "out-of-bounds access in kernel shift_sum_kernel" in msg
    assert "block (2,0,0) thread (43,0,0)" in msg
    assert "invalid read" in msg
    # The process and the layer are intact afterwards.
    out2 = ch.guarded_empty((64,), torch.float32)
    probes.smem_fill(out2, 64, 256)
    assert out2[0].item() == 1.0


def test_write_past_dynamic_shared_memory(probes, no_hang):
    out = ch.guarded_empty((2 * 64,), torch.float32)
    with pytest.raises(RuntimeError) as err:
        probes.smem_fill(out, 64, 63 * 4)
    msg = str(err.value)
    assert "out-of-bounds access in kernel smem_fill_kernel" in msg
    assert "thread (63,0,0)" in msg
    assert "byte offset 252, past dynamicSmemBytes=252" in msg


def test_far_write_past_dynamic_shared_memory(probes, no_hang):
    # 1024 threads * 4 bytes overrun a 4000-byte buffer by up to 96 bytes; depending on where
    # the page boundary falls this hits the canary or the guard page: reported either way.
    out = ch.guarded_empty((1024,), torch.float32)
    with pytest.raises(RuntimeError, match=r"out-of-bounds access in kernel smem_fill_kernel.*"
                                           r"dynamicSmemBytes=4000"):
        probes.smem_fill(out, 1024, 4000)


def test_threads_exiting_before_syncthreads_is_divergence(probes, no_hang):
    out = ch.guarded_empty((128,), torch.float32)
    probes.early_exit(out, 128, 128)  # everyone reaches the barrier: fine
    with pytest.raises(RuntimeError) as err:
        probes.early_exit(out, 128, 64)
    msg = str(err.value)
    assert "barrier divergence in kernel early_exit_kernel" in msg
    assert re.search(r"thread \(\d+,0,0\) waits at __syncthreads while thread \(64,0,0\) has "
                     r"exited", msg), msg


def test_shuffle_missing_lanes_is_divergence(probes, no_hang):
    out = ch.guarded_empty((64,), torch.float32)
    probes.partial_shuffle(out, 32)
    assert out.tolist() == [32.0] * 64
    with pytest.raises(RuntimeError, match=r"divergence in kernel partial_shuffle_kernel.*"
                                           r"waits at __shfl_xor_sync while thread \(16,0,0\) "
                                           r"has exited"):
        probes.partial_shuffle(out, 16)


def test_oversized_shared_memory_is_a_launch_error(probes):
    out = ch.guarded_empty((32,), torch.float32)
    with pytest.raises(RuntimeError, match=r"launch failed: invalid argument.*48 KiB"):
        probes.too_much_smem(out)
    # The error was consumed by cudaGetLastError: the next launch is clean.
    probes.smem_fill(out, 32, 128)


# --- the precompiled prelude ----------------------------------------------------------------------


def test_prelude_is_precompiled_and_used_by_a_build(tmp_path: Path) -> None:
    """A CPU build takes torch/extension.h from the .gch: g++ -H marks a used PCH with '!'."""
    import subprocess

    from solbench.cuda_host import prelude

    header = prelude.prelude_header(ch._engine_flags(), ch.engine_digest())
    if header is None:
        pytest.skip("no precompiled header with this compiler (not GCC)")
    assert Path(header + ".gch").stat().st_size > 0
    src = tmp_path / "k.cpp"
    src.write_text("#include <torch/extension.h>\nint f() { return at::kFloat == at::kFloat; }\n")
    cmd = [prelude.compiler(), *prelude.torch_cflags(), "-DTORCH_EXTENSION_NAME=any_name",
           *ch.cpu_cflags([str(tmp_path)], header), "-Winvalid-pch", "-Werror=invalid-pch", "-H",
           "-fsyntax-only", str(src)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"! {header}.gch" in done.stderr.splitlines()[0], done.stderr[:500]


def test_prelude_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from solbench.cuda_host import prelude

    monkeypatch.setenv("SOLBENCH_NO_PCH", "1")
    assert prelude.prelude_header(ch._engine_flags(), ch.engine_digest()) is None
    assert ch.engine_header() in ch.cpu_cflags([], None)
