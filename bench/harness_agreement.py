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

`--probes` runs instead the cases where the two tools once parted (issue 17), each a checked-in
problem changed in one respect: an in-place reference, values written as strings, an input no
workload describes, max_atol 0 with exact zeros in the reference, one input stream across
workloads. Where solgen check predicts that the harness writes no trace, its verdict counts as
"no trace".
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
from typing import Any

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


def _edit(problem: Path, definition: Any = None, workloads: Any = None) -> None:
    """Rewrite a problem directory's definition (a function of its dict) and workloads (a
    function of the list of workload dicts)."""
    if definition is not None:
        path = problem / "definition.json"
        path.write_text(json.dumps(definition(json.loads(path.read_text())), indent=2))
    if workloads is not None:
        path = problem / "workload.jsonl"
        rows = [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]
        path.write_text("".join(json.dumps(w) + "\n" for w in workloads(rows)))


def _in_place_reference(d: dict) -> dict:
    # the reference updates residual after computing its output (as FlashInfer's fused add +
    # RMSNorm does): the harness hands the updated residual to the solution
    d["reference"] = d["reference"].replace(
        "    return output", "    residual.add_(hidden_states)\n    return output")
    return d


def _strings(rows: list) -> list:
    for w in rows:
        w["axes"] = {k: str(v) for k, v in w["axes"].items()}
        w["tolerance"] = {k: str(v) for k, v in w.get("tolerance", {}).items()}
    return rows


def _undescribed_weight(rows: list) -> list:
    for w in rows:
        w["inputs"].pop("weight", None)
    return rows


_MASKED = {"weight": "x_mask", "bias": "ln_norm_bias"}


def _masked_layernorm(d: dict) -> dict:
    # harness name rules: `x_mask` is random 0/1, `*_norm_bias` zeros; so every reference row
    # has exact zeros beside the (inexact, fp32-summed) others
    d["inputs"] = {_MASKED.get(k, k): v for k, v in d["inputs"].items()}
    for old, new in _MASKED.items():
        d["reference"] = d["reference"].replace(old, new)
    return d


def _masked_exact_tolerance(rows: list) -> list:
    for w in rows:
        w["inputs"] = {_MASKED.get(k, k): v for k, v in w["inputs"].items()}
        w["tolerance"] = {"max_atol": 0.0, "max_rtol": 1e-3}
    return rows


def _exact_tolerance(rows: list) -> list:
    for w in rows:
        w["tolerance"] = {"max_atol": 0.0, "max_rtol": 1e-5}
    return rows


# (name, bundle, definition edit, workloads edit, workloads kept, what it shows)
PROBES = [
    ("in-place reference", "fused_add_rmsnorm", _in_place_reference, None, 2,
     "the reference updates an input after computing its output"),
    ("values as strings", "rmsnorm", None, _strings, 2,
     'axes and tolerances written "7" and "0.01"'),
    ("undescribed input", "rmsnorm", None, _undescribed_weight, 2,
     "the workloads do not describe weight"),
    ("max_atol 0, exact kernel", "minmax_scale", None, _exact_tolerance, 2,
     "an exact zero in every reference row (the row's minimum), max_atol 0, a bit-exact kernel"),
    ("max_atol 0, inexact kernel", "layernorm", _masked_layernorm, _masked_exact_tolerance, 2,
     "exact zeros (a 0/1 weight, a zero bias) beside inexact fp32 elements, max_atol 0"),
    ("one stream", "row_sum", None, None, 4,
     "fp32 sums at 1e-5 over four workloads, the fourth 16 x 7168"),
]


def _probe_rows(harness: Path) -> list[tuple[str, ...]]:
    rows = []
    for name, bundle_name, defn_edit, wl_edit, keep, what in PROBES:
        bundle = ROOT / "submissions" / bundle_name
        with tempfile.TemporaryDirectory(prefix="probe-") as tmp:
            work = Path(tmp)
            problem = _small_problem(bundle, keep, work / "problem")
            _edit(problem, defn_edit, wl_edit)
            so = _build_benchmark_kernel(bundle, work)
            theirs = _harness(harness, problem, so, work)
            ours = _solbench(problem, bundle)
        for uuid, verdict in ours.items():
            a = theirs.get(uuid, "no trace")
            rows.append((name, what, uuid[:8], a, verdict, "yes" if a == verdict else "**no**"))
            print(f"{name:20} {uuid[:8]} harness {a:20} solgen {verdict:20}", flush=True)
    return rows


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
    return {w["uuid"]: "no trace" if w.get("harness") == "no-trace" else w["status"]
            for w in json.loads(p.stdout)["workloads"]}


def main() -> int:
    if sys.argv[1:2] == ["--build"]:
        _build_here(Path(sys.argv[2]), Path(sys.argv[3]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--harness", type=Path, required=True, help="a SOL-ExecBench checkout")
    ap.add_argument("--workloads", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "harness-agreement.md")
    ap.add_argument("--probes", action="store_true",
                    help="the cases where the tools once parted, not the bundles")
    ap.add_argument("bundles", nargs="*", type=Path)
    args = ap.parse_args()
    driver = args.harness / "src" / "sol_execbench" / "driver" / "templates" / "eval_driver.py"
    if not driver.is_file():
        print(f"harness_agreement: {driver} not found: --harness must name a SOL-ExecBench "
              "checkout", file=sys.stderr)
        return 69
    if args.probes:
        return _write_probes(args, _probe_rows(args.harness))
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


def _write_probes(args: argparse.Namespace, rows: list[tuple[str, ...]]) -> int:
    agree = sum(r[-1] == "yes" for r in rows)
    table = ["| probe | what | workload | harness | solgen check | same |",
             "|---|---|---|---|---|---|"] + [f"| {' | '.join(r)} |" for r in rows]
    text = args.out.read_text() if args.out.exists() else "# solgen check against the harness\n"
    marker = "\n## Probes\n"
    text = text.split(marker)[0].rstrip("\n") + "\n" + marker + (
        "\nWritten by `python3 bench/harness_agreement.py --harness PATH --probes`: each probe "
        "is a checked-in problem changed in one respect, a case where the two tools once "
        "parted (issue 17). \"no trace\" for solgen check: it predicts the harness's driver "
        f"fails writing the trace. **{agree} of {len(rows)}** agree.\n\n" + "\n".join(table) + "\n")
    args.out.write_text(text)
    print(f"{agree} of {len(rows)} agree; table in {args.out}")
    return 0 if agree == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
