"""Ops written as whole LOGOS programs (tests/programs/, issue 13) and the r2
forms in them become kernels that compute the op: each bundle passes
`solgen check --device cpu` against its generated reference on its two
smallest workloads (the same kernel.cu text a GPU runs, on solbench's CPU
execution layer). The reference is torch code printed from the op IR, so a
slice read at the wrong offset, or a builtin spelt differently in the kernel
and in torch, fails here."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import cpu_check, solgen

from solbench.exit_codes import Exit

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"


@pytest.mark.parametrize("program,op", [
    ("programs/swiglu_program.lg", None),       # slices, a mutable output, `the length of`
    ("programs/forms_program.lg", None),        # **, to the power of, is between, floor, round
    ("programs/softmax_show_last.lg", "softmax"),  # --op, with the printing helper last
    ("ops/accept/sum_two_terms.lg", None),      # s + a + b, raised by algebra (issue 12)
    ("ops/accept/signed_sum_if_otherwise.lg", None),  # a sum of a select
    ("ops/accept/position_table.lg", None),     # a narrow table at fixed places, c / 2, % 3
    ("ops/accept/qk_prep_kv_heads.lg", None),   # two row sets: RMSNorm and a scale, a column sum
])
def test_program_op_passes_the_cpu_check(program: str, op: str | None, tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    args = [str(TESTS / program), "--out", str(bundle)] + (["--op", op] if op else [])
    g = solgen(*args)
    assert g.returncode == Exit.OK, g.stderr
    summary = cpu_check(bundle)
    assert [w["status"] for w in summary["workloads"]] == ["PASSED", "PASSED"]
