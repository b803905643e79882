"""Binding an op to a benchmark problem (`solgen op.lg --definition ...`):
names, order, dtypes and constants come from the definition; a definition that
disagrees with the op is refused with both sides named and nothing written."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import cpu_check

ROOT = Path(__file__).resolve().parents[2]
OP = ROOT / "examples" / "rmsnorm.lg"
PROBLEM = Path(__file__).parent / "problems" / "rmsnorm_h4096"


def solgen(*args: str) -> subprocess.CompletedProcess:
    exe = os.environ.get("SOLGEN") or shutil.which("solgen") or str(ROOT / "build" / "solgen")
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=60)


def test_bound_bundle_follows_the_definition(tmp_path: Path) -> None:
    out = tmp_path / "b"
    p = solgen(str(OP), "--definition", str(PROBLEM / "definition.json"), "--out", str(out))
    assert p.returncode == 0, p.stderr
    solution = json.loads((out / "solution.json").read_text())
    assert solution["definition"] == "rmsnorm_h4096"
    kernel = (out / "kernel.cu").read_text()
    assert re.search(r"void run\(const at::Tensor& hidden_states, const at::Tensor& weight, "
                     r"const at::Tensor& output\)", kernel)
    assert re.search(r"constexpr int64_t \w+ = 4096;", kernel)
    # The bundle alone is a problem directory plus solution.
    assert json.loads((out / "definition.json").read_text()) == \
        json.loads((PROBLEM / "definition.json").read_text())
    assert (out / "workload.jsonl").read_text() == (PROBLEM / "workload.jsonl").read_text()


def mutate(tmp_path: Path, change) -> Path:
    d = json.loads((PROBLEM / "definition.json").read_text())
    change(d)
    path = tmp_path / "definition.json"
    path.write_text(json.dumps(d))
    return path


def _dtype(d):
    d["inputs"]["weight"]["dtype"] = "float32"


def _rank(d):
    d["inputs"]["weight"]["shape"] = ["batch_size", "hidden_size"]


def _extra(d):
    d["inputs"]["bias"] = {"shape": ["hidden_size"], "dtype": "bfloat16"}


def _missing(d):
    del d["inputs"]["weight"]


@pytest.mark.parametrize("change,words", [
    (_dtype, ["bfloat16", "float32", "weight"]),
    (_rank, ["weight", "hidden_size", "batch_size"]),
    (_extra, ["bias"]),
    (_missing, ["weight"]),
], ids=["dtype", "rank", "extra-input", "missing-input"])
def test_disagreeing_definition_is_refused(tmp_path: Path, change, words) -> None:
    definition = mutate(tmp_path, change)
    out = tmp_path / "b"
    p = solgen(str(OP), "--definition", str(definition), "--out", str(out))
    assert p.returncode == 2, p.stderr
    assert str(definition) in p.stderr
    for w in words:
        assert w in p.stderr, (w, p.stderr)
    assert not out.exists()
    assert [x.name for x in tmp_path.iterdir()] == ["definition.json"]  # no temp dir left behind


def test_one_axis_name_for_two_axes_is_checked_when_the_kernel_runs(tmp_path: Path) -> None:
    """[N, N]: the harness gives both dimensions one size; the bound kernel runs on the CPU
    layer for square inputs and refuses others, naming both axes."""
    ch = pytest.importorskip("solbench.cuda_host")
    torch = pytest.importorskip("torch")
    definition = ROOT / "tests" / "hostile" / "json" / "def_repeated_axis_name.json"
    out = tmp_path / "b"
    p = solgen(str(OP), "--definition", str(definition), "--out", str(out))
    assert p.returncode == 0, p.stderr
    workloads = [json.loads(line) for line in (out / "workload.jsonl").read_text().splitlines()]
    assert workloads and all(set(w["axes"]) == {"N"} for w in workloads)
    mod = ch.load_cpu_extension("solbench_square_rmsnorm", [str(out / "kernel.cu")],
                                str(tmp_path / "build"))
    x = torch.randn(8, 8).to(torch.bfloat16)
    w = torch.ones(8, dtype=torch.bfloat16)
    y = torch.empty(8, 8, dtype=torch.bfloat16)
    mod.run(x, w, y)
    ref = (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5)).bfloat16()
    assert torch.allclose(y.float(), ref.float(), atol=2e-2, rtol=2e-2)
    with pytest.raises(RuntimeError, match="must equal N"):
        mod.run(torch.zeros(8, 4, dtype=torch.bfloat16), torch.ones(4, dtype=torch.bfloat16),
                torch.empty(8, 4, dtype=torch.bfloat16))


def _bind_alone(tmp_path: Path, op: Path, definition: dict) -> tuple[Path, Path]:
    """Writes `definition` to a directory of its own (no workloads beside it: solgen makes
    them) and binds `op` to it; returns the definition's path and the bundle."""
    path = tmp_path / "def" / "definition.json"
    path.parent.mkdir()
    path.write_text(json.dumps(definition))
    out = tmp_path / "b"
    p = solgen(str(op), "--definition", str(path), "--out", str(out))
    assert p.returncode == 0, p.stderr
    return path, out


def test_zero_d_input_binds_to_a_scalar_parameter(tmp_path: Path) -> None:
    """A definition's `shape: []` input (a 0-d tensor, as the harness passes it) binds to a
    scalar parameter of the op (logos-ops.md §6, r2): run() takes a tensor, the kernel reads
    its element on the device, the workloads make it random, and the CPU check passes."""
    definition = {
        "name": "scaled_add_0d", "op_type": None,
        "axes": {"M": {"type": "var"}, "N": {"type": "var"}},
        "inputs": {"x": {"shape": ["M", "N"], "dtype": "float32"},
                   "y": {"shape": ["M", "N"], "dtype": "float32"},
                   "alpha": {"shape": [], "dtype": "float32"}},
        "outputs": {"output": {"shape": ["M", "N"], "dtype": "float32"}},
        "reference": "def run(x, y, alpha):\n    return x + alpha * y\n"}
    op = ROOT / "tests" / "ops" / "accept" / "scaled_add.lg"
    path, out = _bind_alone(tmp_path, op, definition)
    kernel = (out / "kernel.cu").read_text()
    assert "const at::Tensor& alpha" in kernel and "to_float(alpha[0])" in kernel
    assert "alpha.dim() == 0" in kernel
    assert json.loads((out / "definition.json").read_text())["inputs"]["alpha"]["shape"] == []
    for line in (out / "workload.jsonl").read_text().splitlines():
        assert json.loads(line)["inputs"]["alpha"] == {"type": "random"}
    assert [w["status"] for w in cpu_check(out)["workloads"]] == ["PASSED", "PASSED"]
    # A 0-d definition input cannot bind to a tensor parameter.
    definition["inputs"]["y"]["shape"] = []
    path.write_text(json.dumps(definition))
    p = solgen(str(op), "--definition", str(path), "--out", str(tmp_path / "c"))
    assert p.returncode == 2 and "'y'" in p.stderr and not (tmp_path / "c").exists()


def test_one_element_input_binds_to_a_scalar_parameter(tmp_path: Path) -> None:
    """A definition's `shape: ["1"]` input (a one-element tensor the reference reads with
    `.item()`, as in L1 042) binds to a scalar parameter: run() takes a tensor and checks it
    holds one element, the kernel reads it on the device, and the CPU check passes. Two elements ("2", or an axis const at 2) are not a
    scalar: refused, naming the input, nothing written."""
    definition = {
        "name": "scaled_add_one_element",
        "axes": {"M": {"type": "var"}, "N": {"type": "var"}, "one": {"type": "const", "value": 1}},
        "inputs": {"x": {"shape": ["M", "N"], "dtype": "float32"},
                   "y": {"shape": ["M", "N"], "dtype": "float32"},
                   "alpha": {"shape": ["1"], "dtype": "float32"}},
        "outputs": {"output": {"shape": ["M", "N"], "dtype": "float32"}},
        "reference": "def run(x, y, alpha):\n    return x + alpha.item() * y\n"}
    op = ROOT / "tests" / "ops" / "accept" / "scaled_add.lg"
    path, out = _bind_alone(tmp_path, op, definition)
    kernel = (out / "kernel.cu").read_text()
    assert "const at::Tensor& alpha" in kernel and "to_float(alpha[0])" in kernel
    assert "alpha.dim() == 1" in kernel and "alpha.size(0) == 1" in kernel
    assert [w["status"] for w in cpu_check(out)["workloads"]] == ["PASSED", "PASSED"]
    # An axis const at 1 is one element too.
    definition["inputs"]["alpha"]["shape"] = ["one"]
    path.write_text(json.dumps(definition))
    p = solgen(str(op), "--definition", str(path), "--out", str(tmp_path / "b1"))
    assert p.returncode == 0, p.stderr
    for shape in (["2"], ["M"], ["1", "1"]):
        definition["inputs"]["alpha"]["shape"] = shape
        path.write_text(json.dumps(definition))
        p = solgen(str(op), "--definition", str(path), "--out", str(tmp_path / "c"))
        assert p.returncode == 2 and "'alpha'" in p.stderr, (shape, p.stderr)
        assert not (tmp_path / "c").exists()


def test_int_scalar_inputs_pass_the_ops_int_parameters(tmp_path: Path) -> None:
    """A definition's int scalar named like one of the op's Int parameters (a size) passes
    it (L1 028: past_key_values_length_scalar): run() takes an int64, the host checks it and
    takes the axis from it, the kernel takes the axis, not the scalar; an Int parameter the
    op never uses is taken and checked only. A float scalar, or an int scalar named like no
    Int parameter, is refused naming it, nothing written."""
    real = ROOT / "tests" / "problems" / "real" / "l1_028_hybrid_attention_mask"
    op = real / "op.lg"
    definition = json.loads((real / "definition.json").read_text())
    _, out = _bind_alone(tmp_path, op, definition)
    kernel = (out / "kernel.cu").read_text()
    assert re.search(r"void run\(int64_t batch_size_scalar, int64_t seq_length_scalar, "
                     r"int64_t past_key_values_length_scalar, const at::Tensor& "
                     r"full_attention_mask", kernel)
    assert "past_key_values_length_scalar >= 0" in kernel
    params = re.search(r"_kernel\(([^)]*)\)", kernel).group(1)
    assert "batch_size_scalar" not in params and "past_key_values_length_scalar" in params
    bad = copy.deepcopy(definition)
    bad["inputs"]["past_key_values_length_scalar"]["dtype"] = "float32"
    path = tmp_path / "bad" / "definition.json"
    path.parent.mkdir()
    path.write_text(json.dumps(bad))
    p = solgen(str(op), "--definition", str(path), "--out", str(tmp_path / "c"))
    assert p.returncode == 2 and "past_key_values_length_scalar" in p.stderr, p.stderr
    bad = copy.deepcopy(definition)
    bad["inputs"] = {("past_len" if k == "past_key_values_length_scalar" else k): v
                     for k, v in bad["inputs"].items()}
    path.write_text(json.dumps(bad))
    p = solgen(str(op), "--definition", str(path), "--out", str(tmp_path / "c"))
    assert p.returncode == 2 and "past_len" in p.stderr, p.stderr
    assert not (tmp_path / "c").exists()


def test_unread_input_takes_the_definition_axes(tmp_path: Path) -> None:
    """An input the op never reads is not refused: its axes are its own, binding names them
    from the definition (one name with the op's axes: equal at run time), and the kernel
    checks its shape but does not take it."""
    definition = {
        "name": "scale_with_mask",
        "axes": {"M": {"type": "var"}, "N": {"type": "var"}},
        "inputs": {"x": {"shape": ["M", "N"], "dtype": "float32"},
                   "mask": {"shape": ["M", "N"], "dtype": "float32"}},
        "outputs": {"output": {"shape": ["M", "N"], "dtype": "float32"}},
        "reference": "def run(x, mask):\n    return x * 2.0\n"}
    op = ROOT / "tests" / "ops" / "accept" / "unread_input.lg"
    _, out = _bind_alone(tmp_path, op, definition)
    kernel = (out / "kernel.cu").read_text()
    assert "mask.scalar_type() == at::ScalarType::Float" in kernel
    assert re.search(r"TORCH_CHECK\(\w+ == \w+, \"\w+ must equal M", kernel)
    params = re.search(r"_kernel\(([^)]*)\)", kernel).group(1)
    assert "mask" not in params, params  # not a kernel parameter
    cpu_check(out)
