"""Does `solgen check` give the harness's verdict? Both, on the CPU, on the same workloads.

    python3 bench/harness_agreement.py --harness PATH [--workloads N] [BUNDLE ...]

PATH is a checkout of NVIDIA's SOL-ExecBench (its `src/` holds the `sol_execbench` package);
nothing of it is copied here: its own eval driver runs, unchanged, from that checkout. For each
bundle (default: every bundle in submissions/) the N smallest workloads (default 3) are written
to a problem directory of their own, and both tools evaluate that whole file:
- the harness: its eval_driver.py staged as its problem packager stages it (definition.json,
  workload.jsonl, solution.json, benchmark_kernel.so), the .so being the bundle's kernel.cu built
  by solbench's CPU execution layer, run with no GPU. Two things a CPU cannot give are stood in
  for before the driver starts, outside its integrity snapshot: `cupti` (imported by its timing
  module) and `time_runnable` (CUPTI kernel timing), which calls the solution once and reports
  no latency. Everything else (inputs, seeds, the reference, the checks, the traces) is its own.
- solbench: `solgen check DIR --device cpu --seeds 0 --json`.
Per workload the two statuses are compared; the table goes to docs/harness-agreement.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solbench.conformance import backends  # noqa: E402
from solbench.conformance.backends import Backend  # noqa: E402
from solbench.conformance.problem import load_bundle, workload_elements  # noqa: E402

# Runs the harness's driver with the two CPU stand-ins (see the module's docstring).
_LAUNCHER = """
import runpy, sys, types
cupti = types.ModuleType("cupti"); cupti.cupti = types.SimpleNamespace()
sys.modules.setdefault("cupti", cupti)
import sol_execbench.core.bench.timing as timing
def _one_call(fn, inputs, outputs, device, warmup=0, rep=0):
    fn(*inputs, *outputs)
    return 0.0
timing.time_runnable = _one_call
runpy.run_path(sys.argv[1], run_name="__main__")
"""


def _small_problem(bundle: Path, n: int, dest: Path) -> Path:
    """The bundle's problem with only its n smallest workloads, in their file order."""
    b = load_bundle(bundle)
    sizes = [workload_elements(b.definition, w) for w in b.workloads]
    keep = sorted(sorted(range(len(sizes)), key=lambda i: (sizes[i], i))[:n])
    dest.mkdir(parents=True)
    shutil.copyfile(b.problem_dir / "definition.json", dest / "definition.json")
    lines = [ln for ln in (b.problem_dir / "workload.jsonl").read_text().splitlines() if ln.strip()]
    (dest / "workload.jsonl").write_text("".join(lines[i] + "\n" for i in keep))
    shutil.copyfile(bundle / "solution.json", dest / "solution.json")
    return dest


def _build_benchmark_kernel(bundle: Path, work: Path) -> Path:
    """kernel.cu built by the CPU layer as a module named benchmark_kernel (the driver's name),
    in a process of its own (torch renames a second module of one name built in one process)."""
    subprocess.run([sys.executable, __file__, "--build", str(bundle), str(work)], check=True,
                   timeout=1800)
    return next((work / "benchmark_kernel").glob("benchmark_kernel*.so"))


def _build_here(bundle: Path, work: Path) -> None:
    b = load_bundle(bundle)
    plan = backends.plan_build(b.solution, Backend.CPU, work, *Backend.CPU.device_facts())
    build_dir = work / "benchmark_kernel"
    plan = dataclasses.replace(plan, name="benchmark_kernel", build_dir=str(build_dir),
                               stage_dir=str(build_dir / "src"),
                               sources=[str(build_dir / "src" / p)
                                        for p in b.solution.compiled_sources()])
    backends.build(plan, b.solution)


def _harness(harness: Path, problem: Path, so: Path, work: Path) -> dict[str, str]:
    stage = work / "stage"
    stage.mkdir()
    for f in ("definition.json", "workload.jsonl", "solution.json"):
        shutil.copyfile(problem / f, stage / f)
    shutil.copyfile(so, stage / "benchmark_kernel.so")
    driver = harness / "src" / "sol_execbench" / "driver" / "templates" / "eval_driver.py"
    shutil.copyfile(driver, stage / "eval_driver.py")
    env = dict(os.environ, PYTHONPATH=str(harness / "src"), CUDA_VISIBLE_DEVICES="")
    p = subprocess.run([sys.executable, "-c", _LAUNCHER, str(stage / "eval_driver.py")],
                       capture_output=True, text=True, env=env, timeout=3600)
    out: dict[str, str] = {}
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            t = json.loads(line)
            out[t["workload"]["uuid"]] = t["evaluation"]["status"]
    if p.returncode != 0 and not out:
        out["<driver>"] = "DRIVER FAILED: " + (p.stderr.strip().splitlines() or ["?"])[-1][:200]
    return out


def _solbench(problem: Path, bundle: Path) -> dict[str, str]:
    p = subprocess.run([sys.executable, "-m", "solbench", "check", str(bundle), "--problem",
                        str(problem), "--device", "cpu", "--seeds", "0", "--no-timing", "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=3600)
    if p.returncode not in (0, 1):
        return {"<check>": "CHECK FAILED: " + p.stderr.strip()[-200:]}
    return {w["uuid"]: w["status"] for w in json.loads(p.stdout)["workloads"]}


def main() -> int:
    if sys.argv[1:2] == ["--build"]:
        _build_here(Path(sys.argv[2]), Path(sys.argv[3]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--harness", type=Path, required=True, help="a SOL-ExecBench checkout")
    ap.add_argument("--workloads", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "harness-agreement.md")
    ap.add_argument("bundles", nargs="*", type=Path)
    args = ap.parse_args()
    driver = args.harness / "src" / "sol_execbench" / "driver" / "templates" / "eval_driver.py"
    if not driver.is_file():
        print(f"harness_agreement: {driver} not found: --harness must name a SOL-ExecBench "
              "checkout", file=sys.stderr)
        return 69
    bundles = args.bundles or sorted(p for p in (ROOT / "submissions").iterdir() if p.is_dir())
    rows, agree, total = [], 0, 0
    for bundle in bundles:
        with tempfile.TemporaryDirectory(prefix="agreement-") as tmp:
            work = Path(tmp)
            problem = _small_problem(bundle, args.workloads, work / "problem")
            so = _build_benchmark_kernel(bundle, work)
            theirs = _harness(args.harness, problem, so, work)
            ours = _solbench(problem, bundle)
        for uuid in sorted(set(theirs) | set(ours), key=lambda u: list(ours).index(u)
                           if u in ours else len(ours)):
            a, b = theirs.get(uuid, "no trace"), ours.get(uuid, "-")
            total += 1
            agree += a == b
            rows.append((bundle.name, uuid[:8], a, b, "yes" if a == b else "**no**"))
            print(f"{bundle.name:24} {uuid[:8]} harness {a:20} solgen {b:20}", flush=True)
    table = ["| bundle | workload | harness | solgen check | same |", "|---|---|---|---|---|"]
    table += [f"| {' | '.join(r)} |" for r in rows]
    args.out.write_text(
        "# solgen check against the harness\n\n"
        f"Written by `python3 bench/harness_agreement.py --harness PATH --workloads "
        f"{args.workloads}` (its docstring says how each side runs; both on the CPU, the "
        "kernel built by the CPU execution layer). "
        f"**{agree} of {total}** workload verdicts agree.\n\n" + "\n".join(table) + "\n")
    print(f"{agree} of {total} agree; table in {args.out}")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
