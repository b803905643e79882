"""A borderline pass is reported with how often the harness would fail it; a wide one is not
(issue 17). Real generated kernels on the CPU execution layer, the harness's input stream."""

from __future__ import annotations

from pathlib import Path

from conftest import cpu_check

SUBMISSIONS = Path(__file__).resolve().parents[2] / "submissions"


def _by_axes(summary: dict) -> dict[tuple, dict]:
    return {tuple(sorted(w["axes"].items())): w for w in summary["workloads"]}


def test_fp32_row_sum_at_16_by_7168_is_borderline_with_its_failure_rate() -> None:
    # fp32 at atol = rtol = 1e-5: on the harness's stream it passes, on other seeds it does not
    rows = _by_axes(cpu_check(SUBMISSIONS / "row_sum", workloads=4, seeds=20))
    w = rows[(("batch_size", 16), ("hidden_size", 7168))]
    assert w["status"] == "PASSED" and w["borderline"]
    assert w["seeds"]["tried"] == 20 and w["seeds"]["failed"] > 0


def test_bf16_rmsnorm_has_a_wide_margin_and_is_not_borderline() -> None:
    for w in cpu_check(SUBMISSIONS / "rmsnorm", workloads=2, seeds=20)["workloads"]:
        m = w["margin"]  # "Infinity" for an exact pass (JSON has no inf)
        assert w["status"] == "PASSED" and (m == "Infinity" or m >= 10)
        assert not w["borderline"] and w["seeds"]["tried"] == 0  # not worth re-running
