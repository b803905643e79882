"""Dependent trips to DRAM a cached row pays, read from the sm_90 SASS (solbench.sass, no GPU).

A batch of a few rows costs the launch plus one row's chain of memory latencies, so issue 15
asks for one trip a row for RMSNorm, fused add + RMSNorm, LayerNorm and softmax at 4096 and
7168 columns: the row, and every input the loops read at its columns (a weight, a bias, a
residual), loaded before the first reduction (row_helpers.mustache's RowCache and
after_arrival), not the weight after the reduction one chunk at a time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import REPO, solgen
from test_special_functions import cached_kernels

NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if Path("/usr/local/bin/nvcc").exists() else None)
COLS = (4096, 7168)


def bundle_of(tmp_path: Path, example: str, edit=lambda text: text) -> Path:
    op = tmp_path / f"{example}.lg"
    op.write_text(edit((REPO / "examples" / f"{example}.lg").read_text()))
    out = tmp_path / "bundle"
    proc = solgen(str(op), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def bf16(text: str) -> str:
    return text.replace("Float32", "BFloat16")


CASES = {
    "rmsnorm": lambda tmp, cols: bundle_of(tmp, "rmsnorm"),  # bf16, any row length
    "layernorm": lambda tmp, cols: bundle_of(tmp, "layernorm", bf16),  # weight and bias ahead
    "layernorm_fp32": lambda tmp, cols: bundle_of(tmp, "layernorm"),  # 8 registers a vector
    "softmax": lambda tmp, cols: bundle_of(tmp, "softmax", bf16),
    "fused_add_rmsnorm": lambda tmp, cols: bundle_of(  # two cached inputs, a fixed row length
        tmp, "fused_add_rmsnorm", lambda t: t.replace("equals 4096", f"equals {cols}")),
}


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed (scripts/install-deps does not install CUDA)")
@pytest.mark.parametrize("cols", COLS)
@pytest.mark.parametrize("op", sorted(CASES))
def test_a_cached_row_makes_one_trip_to_memory(op: str, cols: int, tmp_path: Path) -> None:
    from solbench.load_parallelism import launched, row_launches

    bundle = CASES[op](tmp_path, cols)
    variant = launched(row_launches((bundle / "kernel.cu").read_text()), cols)
    assert variant is not None and variant.chunks, f"{cols} columns are not cached: {variant}"
    kernels = {k.variant: k for k in cached_kernels(bundle, tmp_path / "keep")}
    k = kernels[variant]
    assert k.trips == 1, (variant.describe(), k.trips)


# The bf16 ops, which take 32-byte vectors on sm_100a (B200).
WIDE_OPS = ("rmsnorm", "layernorm", "softmax", "fused_add_rmsnorm")


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed (scripts/install-deps does not install CUDA)")
@pytest.mark.parametrize("cols", COLS)
@pytest.mark.parametrize("op", WIDE_OPS)
def test_a_32_byte_row_makes_one_trip_on_sm_100a(op: str, cols: int, tmp_path: Path) -> None:
    """On a B200 the host takes the 32-byte twin of the sm_90 variant: in its sm_100a SASS every
    global load is a 32-byte one (LDG.E.ENL2.256), half the sm_90 twin's count, and all of
    them are in flight at once: one trip a row."""
    from solbench.load_parallelism import launched, row_launches

    bundle = CASES[op](tmp_path, cols)
    launches = row_launches((bundle / "kernel.cu").read_text())
    variant = launched(launches, cols, wide=True)
    assert variant is not None and variant.vector == 16 and variant.chunks, variant
    twin = launched(launches, cols)
    assert (twin.threads_per_row, twin.chunks) == (variant.threads_per_row, 2 * variant.chunks)
    kernels = {k.variant: k for k in cached_kernels(bundle, tmp_path / "keep", "sm_100a")}
    k, k16 = kernels[variant], kernels[twin]
    assert k.trips == 1, (variant.describe(), k.trips)
    assert k.bytes_in_flight == 32 * k.loads_in_flight, k
    assert 2 * k.loads_in_flight == k16.loads_in_flight, (k, k16)


def test_the_weight_is_read_ahead_of_the_reduction(tmp_path: Path) -> None:
    """The kernel text: RMSNorm's weight fills a cache before the sum; the outputs read it there."""
    text = (bundle_of(tmp_path, "rmsnorm") / "kernel.cu").read_text()
    body = text[text.index("__global__"):]
    fill = body.index("fill_cache<kThreads, kVec, kAheadChunks>(live ? cols : 0, weight, weight_ahead);")
    assert fill < body.index("float sum0 = 0.0f - arrived;") < body.index("group_reduce")
    assert "fetch(weight_ahead, chunk, weight + base, weight_v);" in body
    assert "load_vec<kVec>(weight + base" not in body
