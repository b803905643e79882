"""Every launch variant of the row kernels computes what the reference computes.

A row kernel is launched in one of several shapes, picked on the host by the row length: half a
warp per row (at most 16 vectors), a warp per row (up to 1024 columns), 128 threads and then a
block of 256 per row with the row cached in registers (each of these cached ones with rungs of 2,
4, ... chunks for its shorter rows), a block per row re-reading it, and the scalar fallback (a row length that is not a whole number of
16-byte vectors). The bundles' workloads reach only some of them, so this runs each bundle at a
row length inside each variant, with an odd number of rows (the last block holds rows past the
end, which must read and write nothing), on the CPU backend, and compares with the bundle's
reference.py. That the lengths reach every variant the generated launch code has is checked too.
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
def test_variant_matches_the_reference(bundle: str, cols: int) -> None:
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

    launches = row_launches((ROOT / "submissions" / bundle / "kernel.cu").read_text())
    assert launches, "no vectorized launch found in kernel.cu"
    vector = launches[0].variant.vector
    reached = {launched(launches, n) for n in LENGTHS[bundle] if n % vector == 0}
    assert reached == {l.variant for l in launches}
    assert any(n % vector for n in LENGTHS[bundle]), "no length reaches the scalar fallback"
