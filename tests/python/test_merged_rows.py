"""Reductions over several trailing axes (logos-ops.md §8, r2; issue 16): the loops over H and
W of an [N, C, H, W] tensor, nested one in the other, raise as one row of H x W columns. The
tensors keep their four dimensions on the host (the definition's shapes, the checks), the
kernel runs over rows N x C of H * W columns. Refusals beside the rule (a weight over some of
the merged axes, a shifted read, a merged counter as a number, an update between the loops)
are in tests/ops/refuse with the rules named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from conftest import solgen

import solbench.cuda_host as ch

ROOT = Path(__file__).resolve().parents[2]
OP = ROOT / "tests" / "ops" / "accept" / "instance_norm_over_height_width.lg"


def test_explain_shows_one_row_of_height_times_width() -> None:
    p = solgen("explain", str(OP))
    assert p.returncode == 0, p.stderr
    assert "height_x_width = height * width" in p.stdout
    assert "sum over c < height_x_width of x[r, c]" in p.stdout
    p = solgen("explain", "--json", str(OP))
    assert p.returncode == 0, p.stderr
    ir = json.loads(p.stdout)
    x = next(t for t in _tensors(ir) if t["name"] == "x")
    assert x["rank"] == 4 and x["shape"] == ["batch_size", "seq_len", "height", "width"]


def _tensors(j: object) -> list[dict]:
    """Every tensor object (a dict with name, rank and shape) anywhere in explain's JSON."""
    found: list[dict] = []
    if isinstance(j, dict):
        if {"name", "rank", "shape"} <= j.keys():
            found.append(j)
        for v in j.values():
            found += _tensors(v)
    elif isinstance(j, list):
        for v in j:
            found += _tensors(v)
    return found


@pytest.fixture(scope="module")
def instance_norm(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("merged") / "b"
    p = solgen(str(OP), "--out", str(out))
    assert p.returncode == 0, p.stderr
    return ch.load_cpu_extension("solbench_merged_rows", [str(out / "kernel.cu")],
                                 str(out.parent / "build"))


@pytest.mark.parametrize("shape", [(2, 3, 5, 7), (1, 4, 16, 8), (3, 1, 1, 9)])
def test_the_kernel_is_instance_norm(instance_norm, shape: tuple[int, int, int, int]) -> None:
    """Against torch's own instance norm: planes whose H and W differ (a transposed plane
    would show), an odd row length (the scalar path) and a vectorized one."""
    torch.manual_seed(1)
    x = torch.randn(*shape) * 3 + 1
    out = torch.full_like(x, float("nan"))
    instance_norm.run(x, 1e-5, out)
    want = torch.nn.functional.instance_norm(x, eps=1e-5)
    assert torch.allclose(out, want, atol=1e-5, rtol=1e-4), (out - want).abs().max()


def test_the_host_checks_the_four_dimensions(instance_norm) -> None:
    x = torch.randn(2, 3, 5, 7)
    with pytest.raises(RuntimeError, match="x must be 4-d"):
        instance_norm.run(x.reshape(2, 3, 35), 1e-5, torch.empty(2, 3, 5, 7))
    with pytest.raises(RuntimeError, match=r"output.size\(2\) must be height \(5\), got 7"):
        instance_norm.run(x, 1e-5, torch.empty(2, 3, 7, 5))


def test_binds_to_a_definition_of_four_axes_and_passes_the_cpu_check(tmp_path: Path) -> None:
    """A definition in the benchmark's form (N var, C const, H and W var): the op's axes take
    its names, the bundle's definition keeps four axes per tensor, and the check passes on
    planes of different heights and widths."""
    problem = tmp_path / "problem"
    problem.mkdir()
    shape = ["N", "C", "H", "W"]
    definition = {
        "name": "instance_norm_2d",
        "axes": {"N": {"type": "var"}, "C": {"type": "const", "value": 8},
                 "H": {"type": "var"}, "W": {"type": "var"}},
        "inputs": {"x": {"shape": shape, "dtype": "float32"},
                   "eps": {"shape": None, "dtype": "float32"}},
        "outputs": {"output": {"shape": shape, "dtype": "float32"}},
        "reference": ("import torch\n\n\ndef run(x, eps):\n"
                      "    return torch.nn.functional.instance_norm(x, eps=eps)\n"),
    }
    (problem / "definition.json").write_text(json.dumps(definition))
    rows = [{"uuid": f"0000000{k}-0000-4000-8000-000000000000", "axes": axes,
             "inputs": {"x": {"type": "random"}, "eps": {"type": "scalar", "value": 1e-5}},
             "tolerance": {"max_atol": 1e-4, "max_rtol": 1e-4}}
            for k, axes in enumerate([{"N": 2, "H": 6, "W": 10}, {"N": 1, "H": 3, "W": 64}])]
    (problem / "workload.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "b"
    p = solgen(str(OP), "--definition", str(problem / "definition.json"), "--out", str(out))
    assert p.returncode == 0, p.stderr
    written = json.loads((out / "definition.json").read_text())
    assert written["inputs"]["x"]["shape"] == shape
    kernel = (out / "kernel.cu").read_text()
    assert "const int64_t H = x.size(2);" in kernel and "const int64_t W = x.size(3);" in kernel
    assert "x.dim() == 4" in kernel
    p = solgen("check", str(out), "--problem", str(problem), "--device", "cpu")
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("PASSED") >= 2, p.stdout


GROUP_OP = ROOT / "tests" / "ops" / "accept" / "group_norm_four_groups.lg"


@pytest.fixture(scope="module")
def group_norm(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("group") / "b"
    p = solgen(str(GROUP_OP), "--out", str(out))
    assert p.returncode == 0, p.stderr
    kernel = (out / "kernel.cu").read_text()
    # The per-channel weight runs over the row's outer axis: one value per H x W columns.
    assert "weight_row[(base + i) / dim1_x_dim2]" in kernel
    return ch.load_cpu_extension("solbench_group_norm", [str(out / "kernel.cu")],
                                 str(out.parent / "build"))


@pytest.mark.parametrize("shape", [(2, 12, 5, 7), (1, 8, 4, 8), (3, 4, 1, 1)])
def test_the_kernel_is_group_norm(group_norm, shape: tuple[int, int, int, int]) -> None:
    """Against torch's group norm with 4 groups: 3 channels per group and odd planes (the
    scalar path), 2 per group and aligned rows (the vectorized one), one channel a group."""
    torch.manual_seed(2)
    x = torch.randn(*shape) * 2 - 1
    weight, bias = torch.randn(shape[1]), torch.randn(shape[1])
    out = torch.full_like(x, float("nan"))
    group_norm.run(x, weight, bias, 1e-5, out)
    want = torch.nn.functional.group_norm(x, 4, weight, bias, eps=1e-5)
    assert torch.allclose(out, want, atol=1e-5, rtol=1e-4), (out - want).abs().max()


def test_channels_must_split_into_the_groups(group_norm) -> None:
    x = torch.randn(1, 6, 2, 2)
    with pytest.raises(RuntimeError, match=r"x.size\(1\) must be a multiple of 4"):
        group_norm.run(x, torch.randn(6), torch.randn(6), 1e-5, torch.empty_like(x))


def test_sums_over_rows_are_deterministic_and_exact(tmp_path: Path) -> None:
    """L1 039's grad_weight and grad_bias [C]: the row kernel's per-row sums over H x W, then
    added over N in order by their own kernel: two runs give the same bits, equal to the
    fp64 sums over N, H and W; grad_input matches the norm's backward."""
    problem = ROOT / "tests" / "problems" / "real" / "l1_039_adaptive_instance_norm_backward"
    out = tmp_path / "b"
    p = solgen(str(problem / "op.lg"), "--definition", str(problem / "definition.json"),
               "--out", str(out))
    assert p.returncode == 0, p.stderr
    kernel = (out / "kernel.cu").read_text()
    assert "grad_weight_rows[row]" in kernel and "atomic" not in kernel
    mod = ch.load_cpu_extension("solbench_row_sum_039", [str(out / "kernel.cu")],
                                str(tmp_path / "build"))
    torch.manual_seed(3)
    n, c, h, w = 5, 32, 6, 9
    go, x = torch.randn(n, c, h, w), torch.randn(n, c, h, w)
    weight = torch.randn(c)
    mean = x.mean(dim=(2, 3), keepdim=True)
    std = x.std(dim=(2, 3), keepdim=True) + 0.1
    runs = []
    for _ in range(2):
        gi = torch.empty_like(x)
        gw, gb = torch.full((c,), float("nan")), torch.full((c,), float("nan"))
        mod.run(go, x, weight, mean, std, gi, gw, gb)
        runs.append((gi, gw, gb))
    for k in (1, 2):
        assert torch.equal(runs[0][k].view(torch.int32), runs[1][k].view(torch.int32))
    xhat = (x.double() - mean.double()) / std.double()
    assert torch.allclose(runs[0][1].double(), (go.double() * xhat).sum(dim=(0, 2, 3)),
                          rtol=1e-4, atol=1e-4)
    assert torch.allclose(runs[0][2].double(), go.double().sum(dim=(0, 2, 3)),
                          rtol=1e-4, atol=1e-4)
    g = go.double() * weight.double().view(1, c, 1, 1)
    d = x.double() - mean.double()
    s = std.double()
    dvar = (g * d).sum(dim=(2, 3), keepdim=True) * -0.5 / s ** 3
    dmean = -(g / s).sum(dim=(2, 3), keepdim=True) \
        + dvar * (-2.0 * d).sum(dim=(2, 3), keepdim=True) / (h * w)
    want = g / s + dvar * 2.0 * d / (h * w) + dmean / (h * w)
    assert torch.allclose(runs[0][0].double(), want, rtol=1e-3, atol=1e-3)
