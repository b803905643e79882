"""`python -m solbench check BUNDLE ...`: evaluate a bundle by SOL-ExecBench's rules.

Exit codes (solbench.exit_codes): OK when at least one workload ran and every one that ran
PASSED; FAILED otherwise; REJECTED for a malformed bundle or problem (the message names the
file); USAGE for a wrong command line.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, TextIO

from solbench.exit_codes import ArgumentParser, Exit

from .problem import BundleError


def _parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="solgen check",
                description="Check a SOL-ExecBench bundle with the benchmark's correctness rules.")
    p.add_argument("bundle", type=Path, help="directory with solution.json (and the problem)")
    p.add_argument("--problem", type=Path, default=None,
                   help="directory with definition.json and workload.jsonl (default: BUNDLE)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--workloads", type=int, default=None, metavar="N",
                   help="only the N smallest workloads (by total elements)")
    p.add_argument("--rounds", type=int, default=10, metavar="N",
                   help="correctness rounds per workload (default 10, as the harness)")
    p.add_argument("--max-seconds", type=float, default=None, metavar="S",
                   help="evaluation budget; workloads predicted to exceed it are skipped")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S",
                   help="per-workload time limit (default 300)")
    p.add_argument("--no-timing", action="store_true", help="skip GPU timing")
    p.add_argument("--seeds", type=int, default=20, metavar="N",
                   help="re-run a pass with a margin under 10x from up to N further seeds "
                        "to estimate how often the harness would fail it (default 20; 0: off)")
    p.add_argument("-o", "--output", type=Path, default=None, metavar="TRACES.jsonl",
                   help="write the traces (JSON Lines) here")
    p.add_argument("--json", action="store_true", help="print one JSON summary object")
    return p


class _ProgressBar:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()

    def __call__(self, done: int, total: int, uuid: str, status: str) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / max(total, 1))
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r[{bar}] {done}/{total} {uuid[:8]} {status:<20}")
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def _fmt_err(v: float | str | None) -> str:
    if v is None:
        return "-"
    if isinstance(v, str) or math.isnan(v) or math.isinf(v):
        return str(v)
    return f"{v:.3g}"


def _fmt_margin(w: dict[str, Any]) -> str:
    """A pass's margin: "12x", "inf" (exact); under 2x "1.3x, borderline" and, when it was
    re-run on further seeds, "fails 3 of 20 seeds"."""
    m = w.get("margin")
    if m is None:
        return "-"
    text = "inf" if isinstance(m, str) or math.isinf(m) else f"{m:.3g}x"
    seeds = w.get("seeds") or {}
    rate = f"fails {seeds['failed']} of {seeds['tried']} seeds" if seeds.get("tried") else ""
    if not w.get("borderline"):
        return text + (f", {rate}" if rate else "")
    return text + ", borderline" + (f": {rate}" if rate else "")


_AGREEMENT = {"same": "same", "stricter": "stricter", "no-trace": "NO TRACE"}


def format_table(summary: dict[str, Any]) -> str:
    header = ("workload", "axes", "status", "max_abs", "max_rel", "margin", "harness", "time_s")
    rows = [header]
    for w in summary["workloads"]:
        axes = ",".join(f"{k}={v}" for k, v in w["axes"].items()) or "-"
        rows.append((w["uuid"][:8], axes, w["status"], _fmt_err(w["max_absolute_error"]),
                     _fmt_err(w["max_relative_error"]), _fmt_margin(w),
                     _AGREEMENT.get(w.get("harness", "same"), "?") if w["status"] != "SKIPPED"
                     else "-", f"{w['seconds']:.2f}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in rows]
    counts = ", ".join(f"{k} {v}" for k, v in sorted(summary["counts"].items()))
    lines.append("")
    lines.append(f"{summary['solution']} on {summary['device']} ({summary['backend']}): {counts}"
                 f" -> {'OK' if summary['ok'] else 'FAIL'}")
    if summary["skipped"]:
        lines.append("skipped (over --max-seconds): " + ", ".join(summary["skipped"]))
    for w in summary["workloads"]:
        if w["status"] not in ("PASSED", "SKIPPED") and w["log"]:
            first = w["log"].strip().splitlines()[-1] if w["log"].strip() else ""
            lines.append(f"  {w['uuid'][:8]} {w['status']} ({w.get('rule') or '?'}): "
                         f"{first[:200]}")
        if w.get("harness_note"):
            lines.append(f"  {w['uuid'][:8]} harness: {w['harness']}: {w['harness_note']}")
    for note in summary.get("notes", []):
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from .runner import CheckError, CheckOptions, parse_device, run_check
    from .trace import write_traces

    args_list = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as e:  # --help (OK) or a usage error (USAGE)
        return int(e.code or 0)
    try:
        opts = CheckOptions(bundle_dir=args.bundle, problem_dir=args.problem,
                            device=parse_device(args.device), workloads=args.workloads,
                            rounds=args.rounds, max_seconds=args.max_seconds,
                            timeout_s=args.timeout, timing=not args.no_timing,
                            seeds=args.seeds)
        report = run_check(opts, progress=_ProgressBar(sys.stderr))
    except (BundleError, CheckError) as e:
        print(f"solgen check: error: {e}", file=sys.stderr)
        return Exit.REJECTED
    if args.output is not None:
        try:
            write_traces(args.output, report.traces)
        except OSError as e:
            print(f"solgen check: error: {args.output}: {e.strerror}", file=sys.stderr)
            return Exit.REJECTED
    summary = report.summary()
    if args.json:
        print(json.dumps(summary, default=_json_default))
    else:
        print(format_table(summary))
    return Exit.OK if report.ok else Exit.FAILED


def _json_default(o: Any) -> Any:
    return str(o)
