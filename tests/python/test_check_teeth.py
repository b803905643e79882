"""`solgen check` has teeth: for each family, a wrong op bound to the right
definition, and generated kernels with a bug planted in them, FAIL with the
right status on the CPU backend (the same kernel.cu text a GPU would run)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "submissions"
WRONG = Path(__file__).parent / "wrong_ops"


def solgen(*args: str) -> subprocess.CompletedProcess:
    exe = os.environ.get("SOLGEN") or shutil.which("solgen") or str(ROOT / "build" / "solgen")
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=60)


def check(bundle: Path) -> dict:
    p = subprocess.run([sys.executable, "-m", "solbench", "check", str(bundle), "--device", "cpu",
                        "--workloads", "1", "--no-timing", "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert p.returncode in (0, 1), p.stderr
    summary = json.loads(p.stdout)
    assert summary["workloads"], summary
    return summary


def statuses(summary: dict) -> set[str]:
    return {w["status"] for w in summary["workloads"]}


@pytest.mark.parametrize("op,problem", [
    ("rmsnorm_centered.lg", "rmsnorm"),
    ("swiglu_gelu.lg", "swiglu"),
    ("row_sum_max.lg", "row_sum"),
], ids=["fused_row", "gated_activation", "reduction"])
def test_wrong_op_bound_to_a_definition_fails(op: str, problem: str, tmp_path: Path) -> None:
    out = tmp_path / "b"
    p = solgen(str(WRONG / op), "--definition", str(SUBMISSIONS / problem / "definition.json"),
               "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert statuses(check(out)) == {"INCORRECT_NUMERICAL"}


def mutated(problem: str, tmp_path: Path, old: str, new: str, count: int = 1,
            axes: dict | None = None) -> Path:
    """A copy of submissions/<problem> whose kernel.cu has `old` replaced by `new`;
    with `axes`, its workloads are the first one alone with those sizes (`check`
    runs the smallest, so a larger shape must be the only one)."""
    bundle = tmp_path / problem
    shutil.copytree(SUBMISSIONS / problem, bundle)
    if axes is not None:
        first = json.loads((bundle / "workload.jsonl").read_text().splitlines()[0])
        first["axes"].update(axes)
        (bundle / "workload.jsonl").write_text(json.dumps(first) + "\n")
    kernel = (bundle / "kernel.cu").read_text()
    assert kernel.count(old) >= count, f"{old!r} not in the generated kernel"
    kernel = kernel.replace(old, new) if count == 0 else kernel.replace(old, new, count)
    (bundle / "kernel.cu").write_text(kernel)
    solution = json.loads((bundle / "solution.json").read_text())
    for s in solution["sources"]:
        if s["path"] == "kernel.cu":
            s["content"] = kernel
    (bundle / "solution.json").write_text(json.dumps(solution, indent=2))
    return bundle


MUTATIONS = {
    # name: (problem, old, new, count (0 = all), expected statuses)
    "epsilon": ("rmsnorm", "1e-05f", "1.0f", 1, {"INCORRECT_NUMERICAL"}),
    "half-row-reduced": ("rmsnorm", "for_each_chunk<kThreads, kVec, kChunks>(live ? cols : 0,",
                         "for_each_chunk<kThreads, kVec, kChunks>(live ? cols / 2 : 0,", 1,
                         {"INCORRECT_NUMERICAL"}),
    "off-by-one-store": ("rmsnorm", "store_vec<kVec>(output_row + base,",
                         "store_vec<kVec>(output_row + base + 1,", 1, {"RUNTIME_ERROR"}),
    "barriers-removed": ("rmsnorm", "__syncthreads();", "", 0, {"INCORRECT_NUMERICAL"}),
    "gated-off-by-one-store": ("swiglu", "store_vec<kVec>(output_row + base,",
                               "store_vec<kVec>(output_row + base + 1,", 1,
                               {"RUNTIME_ERROR"}),
    # softmax's online max/sum: a running sum not rescaled when the running max grows. Only
    # rows too long for registers stream, so the workload run is one of 12288 columns.
    "online-sum-not-rescaled": ("softmax", "s = s * rescale(m, next) + add;", "s = s + add;", 1,
                                {"INCORRECT_NUMERICAL"}, {"batch_size": 3, "hidden_size": 12288}),
    # the cached schedule: each thread's own max, never combined over the row's threads.
    "max-not-reduced-over-the-row": ("softmax",
                                     "max0 = group_reduce<kThreads>(max0, MaxOp{}, scratch);",
                                     "", 1, {"INCORRECT_NUMERICAL"}),
    "reduction-constant": ("row_sum", "float sum0 = 0.0f - arrived;", "float sum0 = 1.0f - arrived;", 1,
                           {"INCORRECT_NUMERICAL"}),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_mutated_kernel_fails(name: str, tmp_path: Path) -> None:
    problem, old, new, count, expected, *axes = MUTATIONS[name]
    summary = check(mutated(problem, tmp_path, old, new, count, *axes))
    assert statuses(summary) == expected, summary
    assert not summary["ok"]
    for w in summary["workloads"]:  # each verdict names its rule and how the harness relates
        if w["status"] == "INCORRECT_NUMERICAL":
            assert w["rule"].startswith("correctness.") and w["harness"] == "same", w
        else:  # an out-of-bounds store: the CPU layer stops it, a GPU may not notice
            assert w["rule"] == "guard-page" and w["harness"] == "stricter", w
