"""solbench.compile_check: the harness's nvcc command, ptxas parsing, and one real compile."""

from __future__ import annotations

import json
from dataclasses import asdict
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import built_solgen
from solbench import compile_check as cc

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

PTXAS = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z6kernelILi32ELi8ELi4EEvPKf' for 'sm_90'
ptxas info    : Function properties for _Z6kernelILi32ELi8ELi4EEvPKf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 32 bytes smem, 400 bytes cmem[0]
ptxas info    : Compiling entry function '_Z6kernelILi256ELi1ELi0EEvPKf' for 'sm_100a'
ptxas info    : Function properties for _Z6kernelILi256ELi1ELi0EEvPKf
    24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 400 bytes cmem[0]
"""


def test_parse_ptxas_per_kernel_and_arch():
    kernels = {(k.kernel, k.arch): k for k in cc.parse_ptxas(PTXAS)}
    first = kernels[("_Z6kernelILi32ELi8ELi4EEvPKf", "sm_90")]
    assert (first.registers, first.spill_stores, first.spill_loads, first.shared_bytes) == \
        (40, 0, 0, 32)
    second = kernels[("_Z6kernelILi256ELi1ELi0EEvPKf", "sm_100a")]
    assert (second.registers, second.spill_stores, second.spill_loads) == (255, 8, 12)
    result = cc.SourceResult(source="kernel.cu", ok=True, returncode=0, commands=[],
                             kernels=list(kernels.values()))
    assert any("spills" in p for p in cc.failures([result]))


def test_gencode_and_command_match_the_harness(tmp_path):
    assert cc.gencode("sm_100a") == "-gencode=arch=compute_100a,code=sm_100a"
    assert cc.gencode("sm_90") == "-gencode=arch=compute_90,code=sm_90"
    with pytest.raises(ValueError):
        cc.gencode("hopper")
    cmd = cc.nvcc_command("nvcc", tmp_path / "kernel.cu", tmp_path, tmp_path / "k.o",
                          ["-O3", "--use_fast_math"], ["sm_100a", "sm_90"], None)
    for flag in ("-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                 "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__",
                 "--expt-relaxed-constexpr", "-O3", "--use_fast_math", "-c",
                 "-gencode=arch=compute_100a,code=sm_100a", "-gencode=arch=compute_90,code=sm_90",
                 "-DTORCH_EXTENSION_NAME=benchmark_kernel"):
        assert flag in cmd, flag
    assert cmd[cmd.index("-Xptxas") + 1] == "-v"
    assert any(f.startswith("-std=") for f in cmd)
    # A solution that pins its own arch gets no extra -gencode (the harness rule).
    pinned = cc.nvcc_command("nvcc", tmp_path / "k.cu", tmp_path, tmp_path / "k.o",
                             ["-O3", "-gencode=arch=compute_90,code=sm_90"], ["sm_100a"], None)
    assert "-gencode=arch=compute_100a,code=sm_100a" not in pinned


def test_own_diagnostics_ignore_other_files():
    text = ("/usr/include/torch/foo.h(3): warning #20012-D: something\n"
            "/tmp/x/staging/kernel.cu(12): warning #177-D: variable \"v\" was declared but never "
            "referenced\n"
            "/tmp/x/staging/kernel.cu:40:7: warning: unused variable 'k' [-Wunused-variable]\n")
    found = cc._own_diagnostics(text, {"kernel.cu"}, "warning")
    assert len(found) == 2 and all("kernel.cu" in f for f in found)


@pytest.fixture(scope="module")
def compiled_rmsnorm(tmp_path_factory):
    """One real compile (sm_90, with PTX) of the solgen rmsnorm bundle: ~1 min of nvcc."""
    if not (shutil.which("nvcc") or Path("/usr/local/bin/nvcc").exists()):
        pytest.skip("nvcc is not installed")
    solgen = built_solgen()
    if solgen is None:
        pytest.skip("no solgen binary built (set SOLBENCH_SOLGEN)")
    tmp = tmp_path_factory.mktemp("cc")
    bundle = tmp / "rmsnorm"
    proc = subprocess.run([str(solgen), str(EXAMPLES / "rmsnorm.lg"), "--out",
                           str(bundle)], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        pytest.skip(f"solgen cannot generate rmsnorm yet: {proc.stderr.strip()[:200]}")
    ptx = tmp / "ptx"
    report = tmp / "report.json"
    with open(report, "w") as f:
        rc = subprocess.run(
            [os.environ.get("PYTHON", "python3"), "-m", "solbench.compile_check", str(bundle),
             "--arch", "sm_90", "--ptx", str(ptx), "--json"],
            stdout=f, stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=1800).returncode
    return rc, json.loads(report.read_text()), ptx, bundle


def test_device_only_mode_runs_one_cubin_per_arch(tmp_path):
    cmd = cc.nvcc_command("nvcc", tmp_path / "kernel.cu", tmp_path, tmp_path / "k.sm_90.cubin",
                          ["-O3"], ["sm_90"], None, cc.Mode.DEVICE)
    assert "-cubin" in cmd and "-c" not in cmd
    assert [f for f in cmd if f.startswith("-gencode")] == ["-gencode=arch=compute_90,code=sm_90"]


def test_device_only_compile_reports_what_the_full_compile_reports(compiled_rmsnorm, tmp_path):
    """The tests check every bundle with --device-only; it must see what the harness's build sees."""
    _, full, full_ptx, bundle = compiled_rmsnorm
    ptx = tmp_path / "ptx"
    device = cc.check_bundle(bundle, ["sm_90"], ptx_dir=ptx, mode=cc.Mode.DEVICE)
    # Names differ only in the per-compilation hash of internal-linkage symbols.
    anon = lambda text: re.sub(r"(_GLOBAL__N__|_INTERNAL_)[0-9a-f]{8}_", r"\1", text)
    usage = lambda kernels: sorted((anon(k["kernel"]), k["arch"], k["registers"],
                                    k["spill_stores"], k["spill_loads"], k["shared_bytes"])
                                   for k in kernels)
    assert usage(asdict(k) for k in device[0].kernels) == usage(full["sources"][0]["kernels"])
    assert device[0].warnings == full["sources"][0]["warnings"]
    assert anon((ptx / "kernel.sm_90.ptx").read_text()) == \
        anon((full_ptx / "kernel.sm_90.ptx").read_text())
    # Run again: replayed from the content cache, the same report and files.
    again = cc.check_bundle(bundle, ["sm_90"], ptx_dir=tmp_path / "again", mode=cc.Mode.DEVICE)
    assert again[0].from_cache
    assert (again[0].kernels, again[0].warnings) == (device[0].kernels, device[0].warnings)
    assert (tmp_path / "again" / "kernel.sm_90.cubin").read_bytes() == \
        (ptx / "kernel.sm_90.cubin").read_bytes()


def test_generated_kernel_compiles_without_warnings_or_spills(compiled_rmsnorm):
    rc, report, _, _ = compiled_rmsnorm
    assert rc == 0, report["problems"]
    assert report["ok"]
    kernels = report["sources"][0]["kernels"]
    assert kernels, "ptxas reported no kernels"
    assert all(k["arch"] == "sm_90" for k in kernels)
    assert all(k["spill_stores"] == 0 and k["spill_loads"] == 0 for k in kernels)


def test_generated_kernel_uses_16_byte_loads(compiled_rmsnorm):
    _, _, ptx, _ = compiled_rmsnorm
    text = "".join(p.read_text() for p in ptx.glob("*.ptx"))
    assert text, "no PTX written"
    assert "ld.global.nc.v4" in text or "ld.global.v4" in text
    assert "st.global.v4" in text
