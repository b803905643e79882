#!/usr/bin/env python3
"""Times `solgen check --device cpu` on the generated RMSNorm bundle for a
[64, 4096] bf16 workload: the 10 correctness rounds (fresh inputs, reference,
the kernel.cu run by solbench's CUDA execution layer, comparison), build
excluded (it is cached by content). Target: under 5 s. Writes
docs/bench-cpu-check.md.

    python3 bench/cpu_check_bench.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def rounds_seconds(bundle: Path, repeats: int) -> list[float]:
    """The 10 rounds alone, in this process (module loaded, torch imported)."""
    sys.path.insert(0, str(ROOT))
    from solbench.conformance import backends
    from solbench.conformance.problem import load_bundle
    from solbench.conformance.runner import evaluate_workload

    b = load_bundle(bundle, bundle)
    plan = backends.plan_build(b.solution, backends.Backend.CPU)
    module = backends.load_built(plan)
    out = []
    for _ in range(repeats):
        res = evaluate_workload(b, 0, plan, 10, False, module=module)
        assert res.status == "PASSED", res
        out.append(res.compute_seconds)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "docs" / "bench-cpu-check.md"))
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp())
    bundle = work / "rmsnorm"
    shutil.copytree(ROOT / "submissions" / "rmsnorm", bundle)
    workload = {"uuid": "bench-64x4096", "axes": {"batch_size": 64, "hidden_size": 4096},
                "inputs": {"hidden_states": {"type": "random"}, "weight": {"type": "random"}},
                "tolerance": {"max_atol": 0.01, "max_rtol": 0.05}}
    (bundle / "workload.jsonl").write_text(json.dumps(workload) + "\n")
    cmd = [sys.executable, "-m", "solbench", "check", str(bundle), "--device", "cpu",
           "--rounds", "10", "--no-timing", "--json"]
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)  # builds (cached) once
    seconds = []  # the whole workload subprocess, as `solgen check` reports it
    for _ in range(args.repeats):
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout
        row = json.loads(out)["workloads"][0]
        assert row["status"] == "PASSED", row
        seconds.append(row["seconds"])
    rounds = rounds_seconds(bundle, args.repeats)
    shutil.rmtree(work, ignore_errors=True)
    text = ("# CPU conformance timing\n\nMeasured by `bench/cpu_check_bench.py`: "
            "`solgen check --device cpu --rounds 10` of submissions/rmsnorm on one "
            "[64, 4096] bfloat16 workload, build cached, on this project's 2-core machine. "
            "The time covers the workload's subprocess: 10 rounds of fresh inputs, the "
            "PyTorch reference, the generated kernel.cu run by solbench's CUDA execution "
            "layer, and the comparisons.\n\n"
            "| what | runs | median s | min s | max s | target s |\n|---|---|---|---|---|---|\n"
            f"| the 10 rounds (in process) | {len(rounds)} | {statistics.median(rounds):.2f} | "
            f"{min(rounds):.2f} | {max(rounds):.2f} | 5 |\n"
            f"| the whole workload subprocess (python + torch import + module load + rounds) | "
            f"{len(seconds)} | {statistics.median(seconds):.2f} | {min(seconds):.2f} | "
            f"{max(seconds):.2f} | - |\n")
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
