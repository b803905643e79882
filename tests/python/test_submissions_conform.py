"""Every checked-in bundle in submissions/ (a) builds with nvcc exactly as the
harness builds it, for sm_100a and sm_90, with no warning in its sources and
no ptxas spill, its main loops using 16-byte global loads and its shared memory
within the default 48 KB, and, on its workloads of 16M elements or more, its
kernels keeping the bytes in flight an H200 needs to stream at its DRAM
bandwidth (read from the SASS: solbench.load_parallelism); and (b) passes `solgen check --device cpu` against
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
def test_compiles_like_the_harness_without_spills_and_streams(bundle: Path, tmp_path: Path) -> None:
    from solbench.compile_check import Mode, check_bundle, failures

    # Device code only (test_compile_check shows it reports what the full build does).
    results = check_bundle(bundle, ["sm_100a", "sm_90"], ptx_dir=tmp_path, mode=Mode.DEVICE)
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
    # One compile serves both checks (each bundle takes a minute or two of nvcc).
    assert_enough_loads_in_flight(bundle, results, tmp_path)


def assert_enough_loads_in_flight(bundle: Path, results, kept: Path) -> None:
    """Little's law on an H200, where the issue's bandwidth target applies (workloads of
    at least 16M elements): at each of their row lengths, the vectorized kernel the launch
    code picks keeps >= 4.8 TB/s x 800 ns / 132 SMs in flight per SM, in 16-byte loads.
    docs/performance.md has every row length, these and the others."""
    import json

    from solbench import sass
    from solbench.load_parallelism import DEFAULT_LATENCY_NS, H200, figures, per_row_length, \
        workload_row_lengths

    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm not found (it comes with triton, which torch installs)")
    need = H200.needed_bytes_in_flight(DEFAULT_LATENCY_NS)
    definition = json.loads((bundle / "definition.json").read_text())
    lengths = workload_row_lengths(bundle, 16 << 20)
    rows = []
    for r in results:
        stem = Path(r.source).stem
        cubin, ptx = kept / f"{stem}.sm_90.cubin", kept / f"{stem}.sm_90.ptx"
        assert cubin.exists(), f"no sm_90 cubin was kept for {r.source}"
        kernels = figures(r.kernels, sass.disassemble(cubin), ptx.read_text())
        assert all(k.bytes_in_flight == 16 * k.loads_in_flight for k in kernels
                   if k.variant and not k.variant.is_fallback), kernels
        rows += per_row_length(kernels, (bundle / r.source).read_text(), definition, lengths)
    assert rows, f"no vectorized kernel runs the workloads of >= 16M elements ({lengths})"
    for row in rows:
        k = row.kernel
        assert row.bytes_in_flight_per_sm >= need, (
            f"{row.cols} columns, {k.variant.describe()}: {row.bytes_in_flight_per_sm:.0f} "
            f"bytes in flight per SM ({k.resident_threads} threads x "
            f"{row.bytes_in_flight:.1f}), needs {need:.0f}")


@pytest.mark.parametrize("bundle", BUNDLES, ids=[b.name for b in BUNDLES])
def test_passes_cpu_conformance(bundle: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "solbench", "check", str(bundle), "--device", "cpu",
         "--workloads", "3", "--no-timing"],
        capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASSED") >= 3, proc.stdout


def test_elementwise_rows_past_the_grid_loop_inside_the_kernel(tmp_path: Path) -> None:
    """Rows past CUDA's 65535 grid rows are taken by the elementwise kernel's row loop, which
    no CPU-sized workload reaches. With the cap at one grid row, every row after the first
    block's comes from that loop (SwiGLU: 1 x 4096, 7 x 2048 at 4 rows a block, 16 x 7168)."""
    import json

    bundle = tmp_path / "swiglu"
    shutil.copytree(ROOT / "submissions" / "swiglu", bundle)
    solution = json.loads((bundle / "solution.json").read_text())
    (source,) = solution["sources"]
    assert "constexpr int64_t kMaxGridRows = 65535;" in source["content"]
    source["content"] = source["content"].replace("kMaxGridRows = 65535", "kMaxGridRows = 1")
    (bundle / "solution.json").write_text(json.dumps(solution, indent=2))
    (bundle / "kernel.cu").write_text(source["content"])
    proc = subprocess.run(
        [sys.executable, "-m", "solbench", "check", str(bundle), "--device", "cpu",
         "--workloads", "3", "--no-timing"],
        capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASSED") >= 3, proc.stdout
