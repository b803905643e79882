"""`solgen bench BUNDLE ...` (also `python3 -m solbench.bench`): time a bundle on a CUDA GPU
against its reference and torch.compile, and write report.md, report.json and bandwidth.png.

Exit codes: 0 when at least one workload was timed; 1 when none was (all failed); 2 on usage
errors, a malformed bundle, a failed build, or no CUDA device (no number is ever estimated).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from solbench.conformance.problem import Bundle, BundleError, load_bundle
from solbench.exit_codes import ArgumentParser, Exit

from . import report as rep
from . import score

NO_CUDA_MESSAGE = (
    "solgen bench: no CUDA device is available (torch.cuda.is_available() is False). bench "
    "measures latency on an NVIDIA GPU and never estimates it; run it on a machine with one "
    "(`python3 -m solbench check BUNDLE --device cpu` checks correctness without a GPU).")


def _parser() -> argparse.ArgumentParser:
    from .measure import COMPILE_MODES

    p = ArgumentParser(prog="solgen bench",
                description="Time a SOL-ExecBench bundle on a CUDA GPU: latency, achieved "
                            "bandwidth, speedups and a SOL-score estimate per workload.")
    p.add_argument("bundle", type=Path, help="directory with solution.json (and the problem)")
    p.add_argument("--problem", type=Path, default=None,
                   help="directory with definition.json and workload.jsonl (default: BUNDLE)")
    p.add_argument("--workloads", type=int, default=None, metavar="N",
                   help="N workloads spread over the sizes, smallest and largest included "
                        "(default: all)")
    p.add_argument("-o", "--output", type=Path, default=None, metavar="DIR",
                   help="report directory (default: ./bench_<solution name>)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--compile-mode", choices=COMPILE_MODES, default=COMPILE_MODES[0],
                   help="torch.compile mode of the baseline (default %(default)s)")
    p.add_argument("--warmup", type=int, default=10, help="warm-up calls (default 10)")
    p.add_argument("--iterations", type=int, default=50, help="timed calls (default 50)")
    p.add_argument("--build-timeout", type=float, default=None, metavar="S",
                   help="build limit in seconds (default: the harness's 120)")
    return p


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    try:
        args = parser.parse_args(args_list)
        if args.warmup < 0 or args.iterations < 1:
            parser.error("--warmup must be >= 0 and --iterations >= 1")
        if args.workloads is not None and args.workloads < 1:
            parser.error("--workloads must be at least 1")
    except SystemExit as e:  # --help (OK) or a usage error (USAGE)
        return int(e.code or 0)
    try:
        bundle = load_bundle(args.bundle, args.problem)
    except BundleError as e:
        print(f"solgen bench: error: {e}", file=sys.stderr)
        return Exit.REJECTED
    import torch

    if not torch.cuda.is_available():
        print(NO_CUDA_MESSAGE, file=sys.stderr)
        return Exit.UNAVAILABLE
    return _run(bundle, args)


def _build(bundle: Bundle, device_name: str, capability: tuple[int, int],
           timeout: float | None) -> Any:
    """The conformance build plan, built in a child process unless already cached."""
    from solbench.conformance import backends
    from solbench.conformance.isolation import WorkerJob, run_worker

    plan = backends.plan_build(bundle.solution, backends.Backend.CUDA, None, device_name,
                               capability)
    if plan.marker.exists():
        return plan, ""
    job = WorkerJob.build(plan, bundle.bundle_dir, bundle.problem_dir)
    out = run_worker(job, timeout or plan.backend.build_timeout_s)
    if out.kind != "ok" or not (out.result or {}).get("ok"):
        why = out.describe() if out.kind != "ok" else str((out.result or {}).get("log", ""))
        return None, f"{why}\n{out.output}".strip()
    return plan, ""


def _run(bundle: Bundle, args: argparse.Namespace) -> int:
    import torch

    from . import measure

    device = torch.device("cuda:0")
    name, cap = torch.cuda.get_device_name(device), torch.cuda.get_device_capability(device)
    measure.log(f"solgen bench: {bundle.solution.name} on {name}: building")
    plan, build_log = _build(bundle, name, cap, args.build_timeout)
    if plan is None:
        print(f"solgen bench: error: the build failed (COMPILE_ERROR):\n{build_log[-4000:]}",
              file=sys.stderr)
        return Exit.FAILED
    out_dir = args.output or Path(f"bench_{bundle.solution.name}")
    out_dir.mkdir(parents=True, exist_ok=True)
    measure.log("solgen bench: measuring copy bandwidth and the empty kernel")
    facts = measure.device_facts(device, args.warmup, args.iterations)
    report = rep.BenchReport(
        bundle.definition.name, bundle.solution.name, list(bundle.solution.target_hardware),
        facts, score.select_roofline(bundle.solution.target_hardware, name, facts.copy_gbps),
        args.compile_mode, args.warmup, args.iterations)
    session = measure.load_session(bundle, plan, device, args.compile_mode, args.warmup,
                                   args.iterations)
    sizes = [score.workload_bytes(bundle.definition, w.axes) for w in bundle.workloads]
    chosen = score.spread_indices(sizes, args.workloads)
    # The largest first (the roofline), then the rest by size: a partial report (a session's
    # time limit) still holds the figures that matter most.
    chosen = chosen[-1:] + chosen[:-1]
    for done, i in enumerate(chosen, start=1):
        m = measure.measure_workload(session, i)
        report.workloads.append(m)
        report.workloads.sort(key=lambda x: x.nbytes)
        d = report.derived(m)
        measure.log(f"  [{done}/{len(chosen)}] {m.uuid[:8]} {m.status} solution "
                    f"{rep.fmt_us(m.solution_ms)} us, {rep.fmt_gbps(d['achieved_gbps'])} GB/s, "
                    f"S {rep.fmt_score(d['sol_score'])}")
        _write(report, out_dir, chart=False)  # a partial report survives a timeout
    _write(report, out_dir, chart=True)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print("\n".join(rep.workload_table(report)))
        print(f"\nreport: {out_dir / 'report.md'}")
    return Exit.OK if any(m.solution_ms for m in report.workloads) else Exit.FAILED


def _write(report: rep.BenchReport, out_dir: Path, chart: bool) -> None:
    from .chart import ChartUnavailable, render

    chart_name: str | None = None
    if chart:
        try:
            render(report, out_dir / "bandwidth.png")
            chart_name = "bandwidth.png"
        except ChartUnavailable as e:
            report.notes.append(f"no chart: {e}")
    report.write_json(out_dir / "report.json")
    (out_dir / "report.md").write_text(rep.render_markdown(report, chart_name), encoding="utf-8")
