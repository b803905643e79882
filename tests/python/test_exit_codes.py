"""One exit-code table for every solgen command (README "Exit codes",
solbench/csrc/cli/exit_codes.h): each code, for each command that can give it,
from the real command line."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from solbench import _core
from solbench.exit_codes import Exit

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
BUNDLES = Path(__file__).parent / "bundles"
RMSNORM = ROOT / "examples" / "rmsnorm.lg"


def solgen(*args: str, timeout: float = 60) -> int:
    exe = os.environ.get("SOLGEN") or shutil.which("solgen") or str(ROOT / "build" / "solgen")
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode


def python_solgen(*args: str, timeout: float = 600) -> int:
    """`python -m solbench ...`: the same command line through the Python package."""
    p = subprocess.run([sys.executable, "-m", "solbench", *args], capture_output=True,
                       text=True, timeout=timeout, cwd=ROOT)
    return p.returncode


def test_one_table_in_core_python_and_readme() -> None:
    table = dict(_core.exit_codes())
    assert table == {"ok": 0, "failed": 1, "rejected": 2, "usage": 64, "unavailable": 69,
                     "internal": 70}
    assert {e.name.lower(): int(e) for e in Exit} == table
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = dict((name, int(code)) for code, name in
                re.findall(r"^\| (\d+) \| (\w+) \| .+\|$", readme, re.M))
    assert rows == table


def test_generate(tmp_path: Path) -> None:
    assert solgen(str(RMSNORM), "--out", str(tmp_path / "ok")) == Exit.OK
    assert solgen(str(CORPUS / "refuse" / "gather.lg"), "--out", str(tmp_path / "r")) \
        == Exit.REJECTED
    assert solgen(str(CORPUS / "refuse" / "bad_syntax.lg"), "--out", str(tmp_path / "s")) \
        == Exit.REJECTED
    bad = tmp_path / "definition.json"
    bad.write_text("{}")
    assert solgen(str(RMSNORM), "--definition", str(bad), "--out", str(tmp_path / "d")) \
        == Exit.REJECTED
    assert solgen(str(RMSNORM), "--out", str(tmp_path / "ok")) == Exit.REJECTED  # not empty
    assert solgen(str(RMSNORM), "--out", str(tmp_path / "u"), "--bogus") == Exit.USAGE
    assert solgen(str(RMSNORM)) == Exit.USAGE  # no --out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["definition.json", "ok"]


def test_explain_and_run(tmp_path: Path) -> None:
    assert solgen("explain", str(RMSNORM)) == Exit.OK
    assert solgen("explain", str(CORPUS / "refuse" / "gather.lg")) == Exit.REJECTED
    assert solgen("explain", str(tmp_path / "missing.lg")) == Exit.REJECTED
    assert solgen("explain", "--op", "nope", str(RMSNORM)) == Exit.REJECTED
    assert solgen("explain") == Exit.USAGE
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"x": [[1.0, 2.0]]}))
    assert solgen("run", str(CORPUS / "accept" / "row_sum.lg"), "--inputs", str(inputs)) \
        == Exit.OK
    inputs.write_text("[1, 2]")
    assert solgen("run", str(CORPUS / "accept" / "row_sum.lg"), "--inputs", str(inputs)) \
        == Exit.REJECTED
    assert solgen("run", str(CORPUS / "accept" / "row_sum.lg")) == Exit.USAGE


def test_check(tmp_path: Path) -> None:
    run = ("--device", "cpu", "--workloads", "1", "--no-timing")
    assert solgen("check", str(BUNDLES / "scale"), *run, timeout=600) == Exit.OK
    assert solgen("check", str(BUNDLES / "scale_wrong"), "--problem", str(BUNDLES / "scale"), *run,
                  timeout=600) == Exit.FAILED
    assert solgen("check", str(tmp_path), *run) == Exit.REJECTED  # no solution.json
    assert solgen("check", str(BUNDLES / "scale"), "--device", "tpu") == Exit.USAGE
    assert python_solgen("check") == Exit.USAGE


def test_compile(tmp_path: Path) -> None:
    assert solgen("compile", str(tmp_path), "--nvcc", "/nonexistent/nvcc") == Exit.UNAVAILABLE
    if shutil.which("nvcc"):
        assert solgen("compile", str(tmp_path)) == Exit.REJECTED  # no solution.json
    assert solgen("compile", str(tmp_path), "--bogus") == Exit.USAGE


def test_bench(tmp_path: Path) -> None:
    import torch

    assert solgen("bench", str(BUNDLES / "scale"), "--iterations", "0") == Exit.USAGE
    assert solgen("bench", str(tmp_path / "missing")) == Exit.REJECTED
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present: bench would run")
    assert solgen("bench", str(BUNDLES / "scale"), timeout=300) == Exit.UNAVAILABLE
