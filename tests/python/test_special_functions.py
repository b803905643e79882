"""Special-function instructions (MUFU: exp2, reciprocal, tanh) per element, read from the
sm_90 SASS of the row kernels (solbench.load_parallelism, no GPU). On a B200 a softmax is
MUFU-bound long before it is memory-bound unless it issues about one per element (issue 15:
bf16 softmax at most 1.25). With the row cached in registers the kernel runs the cached
schedule (codegen/row_schedule.h): the max, then exp(x - max) once per element, kept for the
outputs, which multiply by the row's reciprocal of the sum instead of dividing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import REPO, solgen

NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if Path("/usr/local/bin/nvcc").exists() else None)
MAX_MUFU_PER_ELEMENT = 1.25


def cached_kernels(bundle: Path, keep: Path, arch: str = "sm_90"):
    from solbench import sass
    from solbench.compile_check import Mode, check_bundle, failures
    from solbench.load_parallelism import figures

    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm not found (it comes with triton, which torch installs)")
    from solbench.load_parallelism import CHIPS

    chip = next(c for c in CHIPS.values() if c.arch == arch)
    results = check_bundle(bundle, [arch], ptx_dir=keep, mode=Mode.DEVICE)
    assert failures(results) == []
    kernels = []
    for r in results:
        stem = Path(r.source).stem
        kernels += figures(r.kernels, sass.disassemble(keep / f"{stem}.{arch}.cubin"),
                           (keep / f"{stem}.{arch}.ptx").read_text(), chip)
    return kernels


def bf16_softmax(tmp_path: Path) -> Path:
    op = tmp_path / "softmax_bf16.lg"
    op.write_text((REPO / "examples" / "softmax.lg").read_text().replace("Float32", "BFloat16"))
    out = tmp_path / "bundle"
    proc = solgen(str(op), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed (scripts/install-deps does not install CUDA)")
def test_bf16_softmax_issues_one_exponential_per_element(tmp_path: Path) -> None:
    bundle = bf16_softmax(tmp_path)
    kernels = cached_kernels(bundle, tmp_path / "keep")
    cached = [k for k in kernels if k.mufu_per_element is not None]
    assert len(cached) >= 3, [k.kernel for k in kernels]  # half-warp, warp and block rungs
    for k in cached:
        assert k.mufu_per_element <= MAX_MUFU_PER_ELEMENT, (k.variant.describe(), k.mufu)


def test_cached_softmax_keeps_its_exponentials(tmp_path: Path) -> None:
    """The kernel text: the cached schedule sums the kept exp and the outputs read it."""
    text = (bf16_softmax(tmp_path) / "kernel.cu").read_text()
    cached, streamed = text.split("} else { // the row streamed from memory")
    cached = cached.split("if constexpr (kChunks > 0) { // the row in registers")[1]
    # one exp a column: the scalar loop's, and a lane each in its pair form (two columns a step)
    assert cached.count("expf(") == 3 and "online_max_sum" not in cached
    assert "kept0[chunk][j] = expf(" in cached and "(kept0[chunk][j] *" in cached
    assert "= make_float2(expf(pair0.x), expf(pair0.y));" in cached
    assert "store_pair(kept0[chunk], j, pair1);" in cached and "pair_at(kept0[chunk], j)" in cached
    assert "online_max_sum" in streamed and streamed.count("expf(") == 3  # the outputs' (and pairs')
