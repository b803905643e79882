"""Every launch variant of the row kernels computes what the reference computes.

A row kernel is launched in one of several shapes, picked on the host by the row length: half a
warp per row (at most 16 vectors), a warp per row (up to 1024 columns), 128 threads and then a
block of 256 per row with the row cached in registers (each of these cached ones with rungs of 2,
4, ... chunks for its shorter rows), a block per row re-reading it, and the scalar fallback (a row length that is not a whole number of
16-byte vectors). The bundles' workloads reach only some of them, so this runs each bundle at a
row length inside each variant, with an odd number of rows (the last block holds rows past the
end, which must read and write nothing), on the CPU backend, and compares with the bundle's
reference.py. That the lengths reach every variant the generated launch code has is checked too.

The bf16 bundles also have a 32-byte ladder, which the host takes on a device of compute
capability 10.0 on (B200) when every tensor is on whole 32-byte vectors: the same threads a row,
each thread's chunks paired. The CPU backend stands for such a device under
SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY=10.0 (9.0 when unset), so those variants run here too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from solbench.bench.traffic import call  # noqa: E402
from solbench.conformance.inputs import load_reference, normalize_outputs  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# bundle -> row lengths: half warp, warp (2, 4-chunk rungs, full), 128 threads cached (the same),
# 160, 192 and 224 threads cached, a block of 256 cached, block streamed, scalar fallback (bf16
# and fp16 vectors hold 8 columns, fp32 vectors 4). test_lengths_reach_every_launched_variant
# checks that the lengths reach every variant kernel.cu launches.
LENGTHS = {
    "rmsnorm": [64, 136, 1000, 2000, 4096, 5000, 6000, 7168, 8000, 16384, 20000, 1003],  # bf16
    "rmsnorm_while": [64, 200, 400, 1000, 2000, 2500, 3000, 3500, 4000, 8000, 9000, 33],  # fp32
    "softmax": [64, 100, 300, 1000, 1100, 3000, 5000, 6000, 7000, 8000, 9000, 4097],  # fp32, online
    "log_softmax": [32, 200, 400, 1024, 2000, 4000, 5000, 6000, 7000, 8000, 20000, 70],  # fp32
    "layernorm": [48, 132, 512, 1000, 1028, 4000, 8192, 12288, 5],  # fp32, dependent passes
    "minmax_scale": [128, 200, 1000, 2048, 3000, 8192, 10000, 12000, 14000, 16000, 20000, 999],
    "row_stats": [64, 200, 400, 1000, 1028, 4000, 5000, 6000, 7000, 8000, 9000, 33],  # 2 outputs
    "row_sum": [64, 200, 400, 1000, 1028, 4000, 5000, 6000, 7000, 8000, 9000, 33],  # fp32, one pass
    "l2_norm": [64, 200, 400, 1000, 1028, 4000, 5000, 6000, 7000, 8000, 9000, 33],  # fp32
    "row_max": [64, 304, 1000, 1504, 3000, 6000, 10000, 12000, 14000, 16000, 20000, 1003],  # bf16
    "post_norm_residual": [128, 256, 1000, 2048, 4096, 6000, 10000, 20000, 1001],  # 3-d bf16
    "softcap_softmax": [128, 400, 1000, 2000, 4096, 5000, 6000, 7168, 8000, 9000, 1001],  # bf16
}
CASES = [(b, n) for b, lengths in LENGTHS.items() for n in lengths]


@pytest.mark.parametrize("bundle,cols", CASES, ids=[f"{b}-{n}" for b, n in CASES])
def test_variant_matches_the_reference(bundle: str, cols: int,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY", raising=False)  # 9.0: sm_90
    c = call(ROOT / "submissions" / bundle, cols, rows_per_axis=5)
    ref = load_reference(c.defn)["run"](*c.args)
    want = normalize_outputs(ref, c.defn.outputs, to_tensor=True)
    for spec, got, expected in zip(c.defn.outputs, c.outputs, want):
        tol = 1e-2 if spec.dtype in ("bfloat16", "float16") else 2e-5
        torch.testing.assert_close(got.float(), expected.float(), rtol=tol, atol=tol,
                                   msg=lambda m: f"{spec.name} at {c.axes}: {m}")


@pytest.mark.parametrize("bundle", sorted(LENGTHS))
def test_lengths_reach_every_launched_variant(bundle: str) -> None:
    from solbench.load_parallelism import launched, row_launches

    launches = [l for l in row_launches((ROOT / "submissions" / bundle / "kernel.cu").read_text())
                if not l.wide]  # the 16-byte ladder (the 32-byte one: WIDE_LENGTHS)
    assert launches, "no vectorized launch found in kernel.cu"
    vector = launches[0].variant.vector
    reached = {launched(launches, n) for n in LENGTHS[bundle] if n % vector == 0}
    assert reached == {l.variant for l in launches}
    assert any(n % vector for n in LENGTHS[bundle]), "no length reaches the scalar fallback"


# The bf16 bundles' 32-byte ladders (a device of compute capability 10.0: B200): a length
# inside each `wide` branch, every one a whole number of 32-byte vectors (16 columns).
# The shortest stays a 16-byte half warp (one chunk a thread does not pair).
WIDE_LENGTHS = {
    "rmsnorm": [64, 400, 1008, 2000, 4096, 5008, 6000, 7168, 8000, 16384, 20000],
    "minmax_scale": [128, 400, 1008, 2048, 3008, 8192, 10000, 12000, 14000, 16000, 20000],
    "post_norm_residual": [128, 256, 1008, 4096, 6000, 10000, 20000],
    "row_max": [64, 304, 1008, 1504, 3008, 6000, 10000, 12000, 14000, 16000, 20000],
    "softcap_softmax": [128, 400, 1008, 2000, 4096, 5008, 6000, 7168, 8000, 9008],
}
WIDE_CASES = [(b, n) for b, lengths in WIDE_LENGTHS.items() for n in lengths]
B200_CC = "10.0"


def load_sizes(trace) -> set[int]:
    return {int(n) for n in trace.records[:, 1].unique().tolist()}


def wide_launch(bundle: str, cols: int):
    from solbench.load_parallelism import launched, row_launches

    kernel = (ROOT / "submissions" / bundle / "kernel.cu").read_text()
    return launched(row_launches(kernel), cols, wide=True)


@pytest.mark.parametrize("bundle,cols", WIDE_CASES, ids=[f"{b}-{n}" for b, n in WIDE_CASES])
def test_a_32_byte_variant_matches_the_reference(bundle: str, cols: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """On a device with 32-byte accesses the host takes the `wide` ladder: every load of a
    32-byte variant is one 32-byte pair (recorded by the CPU backend's load trace), and what it
    computes is the reference's."""
    monkeypatch.setenv("SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY", B200_CC)
    c = call(ROOT / "submissions" / bundle, cols, rows_per_axis=5)
    ref = load_reference(c.defn)["run"](*c.args)
    want = normalize_outputs(ref, c.defn.outputs, to_tensor=True)
    for spec, got, expected in zip(c.defn.outputs, c.outputs, want):
        torch.testing.assert_close(got.float(), expected.float(), rtol=1e-2, atol=1e-2,
                                   msg=lambda m: f"{spec.name} at {c.axes}: {m}")
    variant = wide_launch(bundle, cols)
    pairs = variant.vector == 16  # kWideVectorWidth of bf16
    assert load_sizes(c.trace) == ({32} if pairs else {16}), (variant, load_sizes(c.trace))


@pytest.mark.parametrize("bundle", sorted(WIDE_LENGTHS))
def test_wide_lengths_reach_every_32_byte_variant(bundle: str) -> None:
    from solbench.load_parallelism import row_launches

    launches = row_launches((ROOT / "submissions" / bundle / "kernel.cu").read_text())
    wide = [l for l in launches if l.wide]
    assert wide and all(l.multiple == 16 for l in wide), launches
    assert all(n % 16 == 0 for n in WIDE_LENGTHS[bundle])
    reached = {wide_launch(bundle, n) for n in WIDE_LENGTHS[bundle]}
    assert reached == {l.variant for l in wide}
    assert any(l.variant.vector == 16 for l in wide)


def test_a_known_row_takes_its_32_byte_twin(monkeypatch: pytest.MonkeyPatch) -> None:
    """fused add + RMSNorm at its constant 4096 columns: 256 threads of one 32-byte chunk on a
    B200, of two 16-byte ones elsewhere; the same outputs."""
    bundle = ROOT / "submissions" / "fused_add_rmsnorm"
    outputs = {}
    for cc, size in (("9.0", 16), (B200_CC, 32)):
        monkeypatch.setenv("SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY", cc)
        c = call(bundle, 4096, rows_per_axis=5)
        assert load_sizes(c.trace) == {size}, cc
        ref = load_reference(c.defn)["run"](*c.args)
        want = normalize_outputs(ref, c.defn.outputs, to_tensor=True)
        for got, expected in zip(c.outputs, want):
            torch.testing.assert_close(got.float(), expected.float(), rtol=1e-2, atol=1e-2)
        outputs[cc] = [o.clone() for o in c.outputs]
    for a, b in zip(outputs["9.0"], outputs[B200_CC]):
        assert torch.equal(a, b)  # the same sums in the same order: the same bits


def rmsnorm_on(hidden: torch.Tensor, weight: torch.Tensor) -> tuple[torch.Tensor, set[int]]:
    from solbench.bench.traffic import module_for
    from solbench.cuda_host import trace_loads

    mod = module_for(ROOT / "submissions" / "rmsnorm")
    out = torch.empty_like(hidden)
    with trace_loads(mod) as trace:
        mod.run(hidden, weight, out)
    return out, load_sizes(trace)


def test_16_byte_aligned_tensors_take_the_16_byte_ladder(monkeypatch: pytest.MonkeyPatch) -> None:
    """32-byte accesses need every tensor on a 32-byte boundary and rows of whole 32-byte
    vectors; a tensor 16 bytes past one, or 4104 columns, takes the 16-byte ladder (a 32-byte
    load there would fault on the GPU)."""
    monkeypatch.setenv("SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY", B200_CC)
    gen = torch.Generator().manual_seed(1)
    weight = torch.randn(4096, generator=gen).to(torch.bfloat16)
    buffer = torch.randn(5 * 4096 + 64, generator=gen).to(torch.bfloat16)
    base = (-buffer.data_ptr() // 2) % 16  # elements to the first 32-byte boundary
    aligned = buffer[base:base + 5 * 4096].view(5, 4096)
    shifted = buffer[base + 8:base + 8 + 5 * 4096].view(5, 4096)  # 16 bytes past it
    assert aligned.data_ptr() % 32 == 0 and shifted.data_ptr() % 32 == 16
    got, sizes = rmsnorm_on(aligned, weight)
    assert sizes == {32}
    got_shifted, sizes = rmsnorm_on(shifted, weight)
    assert sizes == {16}
    ref = load_reference_of("rmsnorm")
    for x, y in ((aligned, got), (shifted, got_shifted)):
        torch.testing.assert_close(y.float(), ref(x, weight).float(), rtol=1e-2, atol=1e-2)
    odd = torch.randn(5, 4104, generator=gen).to(torch.bfloat16)  # 513 16-byte vectors a row
    _, sizes = rmsnorm_on(odd, torch.randn(4104, generator=gen).to(torch.bfloat16))
    assert sizes == {16}


def load_reference_of(bundle: str):
    from solbench.conformance import problem

    defn = problem.load_definition(ROOT / "submissions" / bundle / "definition.json")
    return load_reference(defn)["run"]


def test_a_malformed_compute_capability_fails_the_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CPU backend's stand-in device must be one: a bad value is cudaErrorInvalidValue,
    which the launch's check reports, never a launch taken by default."""
    monkeypatch.setenv("SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY", "ten")
    x = torch.randn(5, 4096).to(torch.bfloat16)
    with pytest.raises(RuntimeError, match="SOLBENCH_CUDA_HOST_COMPUTE_CAPABILITY is 'ten'"):
        rmsnorm_on(x, torch.ones(4096, dtype=torch.bfloat16))
