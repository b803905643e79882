"""Collects one GPU session's checks and bench reports into the few files that come back.

    python3 -m solbench.bench.gather WORK OUT [--max-png N]

WORK (written by bench/gpu_session.sh): env.txt; checks/NAME.json (`check --json` output),
checks/NAME.rc, checks/NAME.err; bench/NAME/report.{md,json} and bandwidth.png, bench/NAME.rc,
bench/NAME.err. OUT gets gpu_report.md (everything in one Markdown file), bench.jsonl (one
report a line), bandwidth_all.png (every bundle, a panel each) and up to N per-bundle charts.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

TIMEOUT_RCS = {124, 137}


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _rc(path: Path) -> int | None:
    text = _read(path).strip()
    return int(text) if text.lstrip("-").isdigit() else None


def names(work: Path) -> list[str]:
    found = {p.stem for p in (work / "checks").glob("*.rc")}
    found |= {p.stem for p in (work / "bench").glob("*.rc")}
    return sorted(found)


def check_row(work: Path, name: str) -> str:
    """One Markdown row: the check's verdict for a bundle."""
    rc = _rc(work / "checks" / f"{name}.rc")
    if rc is None:
        return f"| {name} | not run | | |"
    if rc in TIMEOUT_RCS:
        return f"| {name} | TIMEOUT (check killed at its time limit) | | |"
    try:
        s: dict[str, Any] = json.loads(_read(work / "checks" / f"{name}.json"))
    except json.JSONDecodeError:
        err = _read(work / "checks" / f"{name}.err").strip().splitlines()
        return f"| {name} | exit {rc}: {(err[-1] if err else 'no output')[:200]} | | |"
    counts = ", ".join(f"{k} {v}" for k, v in sorted(s.get("counts", {}).items()))
    first_bad = next((w for w in s.get("workloads", [])
                      if w.get("status") not in ("PASSED", "SKIPPED")), None)
    why = ""
    if first_bad:
        log = (first_bad.get("log") or "").strip().splitlines()
        why = f"{first_bad['uuid'][:8]} {first_bad['status']}: {(log[-1] if log else '')[:200]}"
    verdict = "OK" if s.get("ok") else "FAIL"
    return f"| {name} | {verdict}: {counts} | {s.get('build_seconds', 0):.0f} | {why} |"


def bench_section(work: Path, name: str, chart_ref: str | None) -> str:
    """The bundle's report.md, headings demoted one level, the chart link pointed at OUT."""
    rc = _rc(work / "bench" / f"{name}.rc")
    md = _read(work / "bench" / name / "report.md")
    status = {None: "not run", 0: "complete"}.get(rc, f"exit {rc}")
    if rc in TIMEOUT_RCS:
        status = "TIMEOUT: the report below is partial (workloads measured before the limit)"
    lines = [f"## bench: {name} ({status})", ""]
    if not md:
        err = _read(work / "bench" / f"{name}.err").strip().splitlines()
        lines += ["No report was written.", "", "```", *err[-15:], "```", ""]
        return "\n".join(lines)
    for ln in md.splitlines():
        if ln.startswith("# "):
            continue  # the section heading above replaces the title
        if ln.startswith("## "):
            ln = "#" + ln
        if ln.startswith("![achieved bandwidth]"):
            ln = f"![achieved bandwidth]({chart_ref})" if chart_ref else ""
        lines.append(ln)
    return "\n".join(lines) + "\n"


def assemble(work: Path, out: Path, max_png: int = 4) -> list[Path]:
    """Write OUT's files; returns them."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    all_names = names(work)
    charts: dict[str, str] = {}
    for name in all_names:
        png = work / "bench" / name / "bandwidth.png"
        if png.exists() and len(charts) < max_png:
            dest = out / f"{name}_bandwidth.png"
            shutil.copyfile(png, dest)
            charts[name] = dest.name
            written.append(dest)
    reports = []
    with open(out / "bench.jsonl", "w", encoding="utf-8") as fh:
        for name in all_names:
            text = _read(work / "bench" / name / "report.json")
            if text:
                try:
                    d = json.loads(text)
                except json.JSONDecodeError:
                    continue
                fh.write(json.dumps(d) + "\n")
                reports.append(d)
    written.append(out / "bench.jsonl")
    overview = _overview(reports, out / "bandwidth_all.png")
    if overview:
        written.append(overview)
    parts = ["# GPU session: checks and bench", "", "```", _read(work / "env.txt").strip(), "```",
             "", "## Summary", "", *summary_table(reports), "",
             "## Correctness (`python3 -m solbench check BUNDLE --device cuda --no-timing`)",
             "", "| bundle | verdict | build s | first failure |", "|---|---|---|---|",
             *[check_row(work, n) for n in all_names], ""]
    if overview:
        parts += ["![every bundle](bandwidth_all.png)", ""]
    parts += [bench_section(work, n, charts.get(n)) for n in all_names]
    (out / "gpu_report.md").write_text("\n".join(parts), encoding="utf-8")
    written.append(out / "gpu_report.md")
    return written


def summary_table(reports: list[dict[str, Any]]) -> list[str]:
    """One line per bundle: the figures to read first."""
    from .report import fmt_gbps, fmt_pct, fmt_score, fmt_x, from_json

    lines = ["| bundle | timed | best GB/s | best of copy bw | mean S | vs ref | vs compiled |",
             "|---|---|---|---|---|---|---|"]
    for d in reports:
        try:
            r = from_json(d)
        except (KeyError, TypeError, ValueError):
            continue
        s = d.get("summary") or {}
        best = max((r.derived(m)["achieved_gbps"] or 0.0 for m in r.workloads), default=0.0)
        lines.append(f"| {r.solution} | {s.get('timed')}/{s.get('workloads')} | "
                     f"{fmt_gbps(best or None)} | {fmt_pct(s.get('best_copy_share'))} | "
                     f"{fmt_score(s.get('mean_sol_score'))} | "
                     f"{fmt_x(s.get('geomean_speedup_vs_reference'))} | "
                     f"{fmt_x(s.get('geomean_speedup_vs_compiled'))} |")
    return lines


def _overview(reports: list[dict[str, Any]], path: Path) -> Path | None:
    from .chart import ChartUnavailable, render_overview
    from .report import from_json

    parsed = []
    for d in reports:
        try:
            parsed.append(from_json(d))
        except (KeyError, TypeError, ValueError):
            continue
    if not parsed:
        return None
    try:
        return render_overview(parsed, path)
    except ChartUnavailable as e:
        print(f"gather: {e}", file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m solbench.bench.gather")
    p.add_argument("work", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--max-png", type=int, default=4)
    args = p.parse_args(argv)
    for path in assemble(args.work, args.out, args.max_png):
        print(path)
    reports = [json.loads(ln) for ln in _read(args.out / "bench.jsonl").splitlines() if ln]
    print("\n".join(summary_table(reports)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
