"""Column reductions (logos-ops.md §8, r2; issue 16): an output over the columns that sums a
value over every row, written as a loop over the columns around the row loops, beside the
row outputs of a family. The kernel is two launches, fp32 partial sums over chunks of rows
and then the chunks added in order, with no atomics: the same inputs give the same bits on
every run. Its refusals (a max over the rows, a shifted column, a row reduction inside the
sum, a column reduction alone) are in tests/ops/refuse with the rules named."""

from __future__ import annotations

import json
import re
from pathlib import Path

import torch
from conftest import solgen

import solbench.cuda_host as ch

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "problems" / "real"


def _bind(name: str, out: Path) -> Path:
    problem = REAL / name
    p = solgen(str(problem / "op.lg"), "--definition", str(problem / "definition.json"),
               "--out", str(out))
    assert p.returncode == 0, p.stderr
    return out / "kernel.cu"


def test_explain_names_the_sum_over_rows() -> None:
    p = solgen("explain", str(REAL / "l1_056_mamba_dt_softplus_clamp_backward" / "op.lg"))
    assert p.returncode == 0, p.stderr
    assert re.search(r"grad_dt_bias\[c\] = sum over rows r of select\(", p.stdout), p.stdout
    assert "gated_activation" in p.stdout


def test_two_launches_without_atomics(tmp_path: Path) -> None:
    kernel = _bind("l1_013_fused_residual_rmsnorm_backward", tmp_path / "b").read_text()
    assert "grad_weight_partial" in kernel and "grad_weight_finish" in kernel
    assert "atomic" not in kernel
    # grad_weight is written by its own kernels, not by the row kernel.
    row_kernel = re.search(r"residual_rmsnorm_backward_kernel\(([^)]*)\)", kernel).group(1)
    assert "grad_weight" not in row_kernel and "grad_hidden_states" in row_kernel


def test_same_bits_on_two_runs_and_the_sum_over_rows(tmp_path: Path) -> None:
    """L1 013's grad_weight over 3 x 700 rows (several chunks of rows): two runs give the same
    bits, and they equal the fp64 sum over the rows to fp32 accuracy; the row outputs match
    the norm's backward."""
    kernel = _bind("l1_013_fused_residual_rmsnorm_backward", tmp_path / "b")
    mod = ch.load_cpu_extension("solbench_column_sum_013", [str(kernel)], str(tmp_path / "build"))
    torch.manual_seed(0)
    b, s, h = 3, 700, 2560
    go = torch.randn(b, s, h).bfloat16()
    x = torch.randn(b, s, h)
    normalized = torch.randn(b, s, h)
    rstd = torch.rand(b, s, 1) + 0.5
    weight = torch.randn(h)
    runs = []
    for _ in range(2):
        gh = torch.empty(b, s, h, dtype=torch.bfloat16)
        gr = torch.empty_like(gh)
        gw = torch.full((h,), float("nan"))
        mod.run(go, x, normalized, rstd, weight, gh, gr, gw)
        runs.append((gh, gr, gw))
    assert torch.equal(runs[0][2].view(torch.int32), runs[1][2].view(torch.int32))
    exact = (go.double() * normalized.double()).sum(dim=(0, 1))
    assert torch.allclose(runs[0][2].double(), exact, rtol=1e-4, atol=1e-3)
    g = go.float() * weight
    grad_x = rstd * (g - (g * normalized).mean(-1, keepdim=True) * normalized)
    assert torch.allclose(runs[0][0].float(), grad_x.bfloat16().float(), atol=1e-2, rtol=1e-2)
    assert torch.equal(runs[0][0], runs[0][1])


def test_the_chunking_depends_on_the_shape_alone(tmp_path: Path) -> None:
    """L1 056's bias gradient (40 columns, bfloat16): one row or 5000, every row counts."""
    kernel = _bind("l1_056_mamba_dt_softplus_clamp_backward", tmp_path / "b")
    mod = ch.load_cpu_extension("solbench_column_sum_056", [str(kernel)], str(tmp_path / "build"))
    for rows in (1, 5000):
        g = torch.ones(1, rows, 40).bfloat16()
        dt = torch.zeros(1, rows, 40).bfloat16()  # sigmoid(0) = 0.5
        act = torch.full((1, rows, 40), 0.05).bfloat16()  # inside (0.001, 0.1)
        grad_dt = torch.empty(1, rows, 40, dtype=torch.bfloat16)
        bias = torch.empty(40, dtype=torch.bfloat16)
        mod.run(g, dt, act, 0.001, 0.1, grad_dt, bias)
        assert torch.equal(grad_dt, torch.full_like(grad_dt, 0.5))
        assert torch.equal(bias, torch.full((40,), 0.5 * rows).bfloat16())
    definition = json.loads((REAL / "l1_056_mamba_dt_softplus_clamp_backward" /
                             "definition.json").read_text())
    assert definition["outputs"]["grad_dt_bias"]["shape"] == ["num_heads"]


def test_no_rows_give_zero_sums(tmp_path: Path) -> None:
    """L1 056 with an empty sequence: nothing to launch, but the bias gradient is a sum over
    no rows, zeros (the output arrives holding NaN)."""
    kernel = _bind("l1_056_mamba_dt_softplus_clamp_backward", tmp_path / "b")
    mod = ch.load_cpu_extension("solbench_column_sum_056_empty", [str(kernel)],
                                str(tmp_path / "build"))
    empty = torch.zeros(2, 0, 40).bfloat16()
    bias = torch.full((40,), float("nan")).bfloat16()
    mod.run(empty, empty, empty, 0.001, 0.1, torch.empty_like(empty), bias)
    assert torch.equal(bias, torch.zeros(40).bfloat16())


def test_a_sum_that_keeps_the_sequence_axis(tmp_path: Path) -> None:
    """L1 019's grad_embeddings [seq, 128] sums over the 16 heads only (r2 §8: a column output
    indexed by a row axis): one thread per element adds its heads in order, so two runs give
    the same bits, equal to the fp64 sum; the rotation's adjoint gives grad_q and grad_k."""
    p = solgen("explain", str(REAL / "l1_019_vision_rope_backward" / "op.lg"))
    assert "grad_embeddings[r:batch_size, c] = sum over the other rows of" in p.stdout, p.stdout
    kernel = _bind("l1_019_vision_rope_backward", tmp_path / "b")
    text = kernel.read_text()
    assert "grad_embeddings_kept" in text and "atomic" not in text
    mod = ch.load_cpu_extension("solbench_column_sum_019", [str(kernel)], str(tmp_path / "build"))
    torch.manual_seed(0)
    s, h, d = 37, 16, 128
    gq, gk, q, k = (torch.randn(s, h, d) for _ in range(4))
    emb = torch.randn(s, d)
    runs = []
    for _ in range(2):
        out = [torch.full((s, h, d), float("nan")), torch.full((s, h, d), float("nan")),
               torch.full((s, d), float("nan"))]
        mod.run(gq, gk, q, k, emb, *out)
        runs.append(out)
    assert torch.equal(runs[0][2].view(torch.int32), runs[1][2].view(torch.int32))
    g64, k64, q64, gk64, e = gq.double(), k.double(), q.double(), gk.double(), emb.double()
    cos, sin = e.cos()[:, None], e.sin()[:, None]

    def rotate(x: torch.Tensor) -> torch.Tensor:
        return torch.cat((-x[..., 64:], x[..., :64]), dim=-1)

    exact = (g64 * (rotate(q64) * cos - q64 * sin) + gk64 * (rotate(k64) * cos - k64 * sin))
    assert torch.allclose(runs[0][2].double(), exact.sum(dim=1), rtol=1e-5, atol=1e-5)
    gs = g64 * sin
    grad_q = g64 * cos + torch.cat((gs[..., 64:], -gs[..., :64]), dim=-1)
    assert torch.allclose(runs[0][0].double(), grad_q, rtol=1e-5, atol=1e-5)


def _sum_beside_doubling(op: Path, explained: str, kernel_name: str, module: str,
                         x: torch.Tensor, sum_shape: tuple[int, ...], tmp: Path) -> None:
    """An accepted op of tests/ops whose row output is 2 x and whose column output sums x
    over the rows: `explain` names the sum, the kernel has its kernel and no atomics, and
    on the CPU two runs give the same bits, equal to the fp64 sum over the first axis."""
    p = solgen("explain", str(op))
    assert p.returncode == 0, p.stderr
    assert explained in p.stdout, p.stdout
    assert solgen(str(op), "--out", str(tmp / "b")).returncode == 0
    kernel = (tmp / "b" / "kernel.cu").read_text()
    assert kernel_name in kernel and "atomic" not in kernel
    mod = ch.load_cpu_extension(module, [str(tmp / "b" / "kernel.cu")], str(tmp / "build"))
    runs = []
    for _ in range(2):
        y, sums = torch.empty_like(x), torch.full(sum_shape, float("nan"))
        mod.run(x, y, sums)
        runs.append(sums)
    assert torch.equal(runs[0], runs[1])
    assert torch.equal(y, 2 * x)
    assert torch.allclose(runs[0].double(), x.double().sum(0), atol=1e-5, rtol=1e-6)


def test_a_sum_that_keeps_an_inner_axis(tmp_path: Path) -> None:
    """Per head, summed over the sequence (r2 §8: an output indexed by a subset of the row
    axes): the op's loops visit heads outside and the sequence inside; the kernel sums the
    rows [seq, heads] that share a head, in the rows' order, the same bits on two runs."""
    torch.manual_seed(3)
    _sum_beside_doubling(ROOT / "tests" / "ops" / "accept" / "column_sum_keeps_inner_axis.lg",
                         "head_sum[r:seq_len, c] = sum over the other rows of x[r, c]",
                         "head_sum_kept", "solbench_column_sum_inner", torch.randn(37, 5, 24),
                         (5, 24), tmp_path)


def test_a_sum_spelled_otherwise_runs_like_the_plain_one(tmp_path: Path) -> None:
    """The accumulator reset per column, the rows read last first, While loops that count
    and the total stored as `total * 1.0` or `-(-total)` in two branches: the same column
    sum as the plain form, forwards in the kernel, the same bits on two runs."""
    torch.manual_seed(5)
    _sum_beside_doubling(ROOT / "tests" / "ops" / "accept" / "column_sum_spelled_otherwise.lg",
                         "sums[c] = sum over rows r of x[r, c]", "sums_partial",
                         "solbench_column_sum_spelled", torch.randn(301, 40), (40,), tmp_path)
