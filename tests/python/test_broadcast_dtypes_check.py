"""Issue 11's op shapes and element types become kernels that compute the op:
inputs broadcast along some row axes (a per-row scale, a per-head weight, a
per-channel bias), keepdim inputs and outputs ([rows, 1]), INT8/INT16 and FP8
tensors. Each bundle passes `solgen check --device cpu` against its generated
reference on its smallest workloads (the kernel.cu text a GPU runs, on
solbench's CPU execution layer). The middle row axes of a broadcast op's
workloads are 3, so a wrong row offset reads the wrong head or channel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import cpu_check, solgen

from solbench.conformance.rules import BORDERLINE
from solbench.exit_codes import Exit

ROOT = Path(__file__).resolve().parents[2]
OPS = ROOT / "tests" / "ops" / "accept"


@pytest.mark.parametrize("op", [
    "row_scale_per_row",        # s[rows] read in the column loop
    "per_head_rmsnorm",         # w[heads, head_dim] for rows [batch, seq, heads]
    "per_head_scale_elementwise",  # the same weight in an elementwise (gated-family) map
    "leaky_relu_channel_bias",  # bias[C] of [B, C, H, W]: a middle row axis
    "absmax_scale_keepdim",     # a keepdim output scale[rows, 1]
    "dequant_keepdim_scale",    # a keepdim input scale[rows, 1]
    "per_token_int8_quant",     # int8 codes and a keepdim fp32 scale
    "cast_fp32_to_fp8",         # FP8 E4M3 output
    "dequant_fp8_e5m2",         # FP8 E5M2 and int16 inputs
    "leaky_relu_set_per_branch",  # one Set item per branch (issue 12)
    "clamp_push_per_branch",    # one Push per branch of If / elif / Otherwise (issue 12)
    "rmsnorm_reset_3d",         # an accumulator declared before the row loops, reset per row
    "swiglu_const_half",        # cols / 2 of a constant axis (issue 12)
    "temporary_before_column_loop",  # element temporaries declared before the loop (issue 12)
    "softmax_row_buffer",       # a row buffer read back by later loops of the row (issue 12)
    "silu_flat_push_output",    # a flat output filled by Push in row-major order (issue 12)
    "row_max_keepdim_push",     # a keepdim output built by Push
    "sum_of_squares_first_seed",  # a sum seeded with the first element (issue 12)
    "int8_integer_division",    # Int / Int and Int % Int of int8 data (issue 18)
    "snake_activation",         # sin (issue 16)
    "column_counter_values",    # the column counter as a value, a select on it (issue 16)
    "row_counter_values",       # row counters as values, cos (issue 16)
    "kept_axis_after_columns",  # w[C, 1] and g[rows, C, 1]: kept axes after the columns (issue 16)
    "bool_mask_in_and_out",     # a bool input read as a select and a bool output (issue 16)
    "int64_positions_as_values",  # int64 positions as values, an integer quotient (issue 16)
    "rope_rotate_half",         # rotate-half: reads wrapped by a select on the column (issue 16)
    "cos_sin_repeated_halves",  # outputs twice as wide as their angles (issue 16)
    "constant_inner_loop",      # a reduction over an axis no tensor has (issue 16)
])
def test_op_passes_the_cpu_check(op: str, tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    g = solgen(str(OPS / f"{op}.lg"), "--out", str(bundle))
    assert g.returncode == Exit.OK, g.stderr
    summary = cpu_check(bundle)
    assert [w["status"] for w in summary["workloads"]] == ["PASSED", "PASSED"]


def test_keepdim_axis_is_the_literal_one_in_the_definition(tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    assert solgen(str(OPS / "per_token_int8_quant.lg"), "--out", str(bundle)).returncode == 0
    d = json.loads((bundle / "definition.json").read_text())
    assert d["outputs"]["codes"] == {"shape": ["batch_size", "hidden_size"], "dtype": "int8"}
    assert d["outputs"]["scale"] == {"shape": ["batch_size", "1"], "dtype": "float32"}
    assert set(d["axes"]) == {"batch_size", "hidden_size"}


def test_broadcast_workloads_exercise_the_middle_row_axes(tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    assert solgen(str(OPS / "leaky_relu_channel_bias.lg"), "--out", str(bundle)).returncode == 0
    lines = (bundle / "workload.jsonl").read_text().splitlines()
    middle = [json.loads(line)["axes"]["dim1"] for line in lines]
    assert middle[1:] and all(v == 3 for v in middle[1:]), middle


def test_a_pass_says_its_margin_and_borderline_passes_are_flagged() -> None:
    """issue 17: fp32 row sums at atol = rtol = 1e-5 pass close to their bound (how close
    depends on the kernel's summation order), and a pass within 2x of it is flagged
    borderline; bf16 RMSNorm at its bf16 tolerance passes with a wide margin."""
    tight = cpu_check(ROOT / "submissions" / "row_sum")["workloads"]
    assert all(w["status"] == "PASSED" and w["margin"] >= 1.0 for w in tight), tight
    assert all(w["borderline"] == (w["margin"] < BORDERLINE) for w in tight), tight
    assert any(w["borderline"] for w in tight), tight  # 2048 fp32 sums at 1e-5: within 2x
    wide = cpu_check(ROOT / "submissions" / "rmsnorm")["workloads"]
    assert all(not w["borderline"] for w in wide), wide
    assert all(w["margin"] == "Infinity" or w["margin"] > 4.0 for w in wide)
