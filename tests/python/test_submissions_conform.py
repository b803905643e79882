"""Every checked-in bundle in submissions/ (a) builds with nvcc exactly as the
harness builds it, for sm_100a and sm_90, with no warning in its sources and
no ptxas spill, its main loops using 16-byte global loads and its shared memory
within the default 48 KB; and (b) passes `solgen check --device cpu` against
its reference on its three smallest workloads (the same kernel.cu text, run by
solbench's CUDA execution layer)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUNDLES = sorted(p for p in (ROOT / "submissions").iterdir() if (p / "solution.json").exists())
NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if Path("/usr/local/bin/nvcc").exists() else None)


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed (scripts/install-deps does not install CUDA)")
@pytest.mark.parametrize("bundle", BUNDLES, ids=[b.name for b in BUNDLES])
def test_compiles_like_the_harness_without_spills(bundle: Path, tmp_path: Path) -> None:
    from solbench.compile_check import check_bundle, failures

    results = check_bundle(bundle, ["sm_100a", "sm_90"], ptx_dir=tmp_path)
    assert failures(results) == []
    kernels = [k for r in results for k in r.kernels]
    assert {k.arch for k in kernels} == {"sm_100a", "sm_90"}, kernels
    for k in kernels:
        assert k.spill_stores == 0 and k.spill_loads == 0, k
        assert k.shared_bytes <= 48 * 1024, k
    ptx = "".join(p.read_text() for p in tmp_path.glob("*.ptx"))
    assert ptx, "no sm_90 PTX was kept"
    # 16-byte vector loads from global memory (ld.global[.nc].v4.{u32,b32,f32}).
    assert re.search(r"ld\.global(\.nc)?(\.L1::no_allocate)?(\.L2::\w+)?\.v4\.", ptx), \
        "the main loop does not use 16-byte global loads"


@pytest.mark.parametrize("bundle", BUNDLES, ids=[b.name for b in BUNDLES])
def test_passes_cpu_conformance(bundle: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "solbench", "check", str(bundle), "--device", "cpu",
         "--workloads", "3", "--no-timing"],
        capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASSED") >= 3, proc.stdout
