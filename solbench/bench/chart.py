"""Achieved bandwidth against rows, one line per row length, with the roofline and the measured
copy bandwidth as horizontal lines. matplotlib is imported only here, and only when drawing.

`python3 -m solbench.bench.chart OUT.png REPORT.json...` draws one panel per report.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from .report import BenchReport, from_json


class ChartUnavailable(Exception):
    """matplotlib is not installed; the report is written without its chart."""


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")  # headless: never needs a display
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ChartUnavailable(f"matplotlib is not installed ({e}); pip install matplotlib") from e
    return plt


def series(r: BenchReport) -> dict[int, list[tuple[int, float]]]:
    """Row length -> [(rows, achieved GB/s)], sorted by rows; only timed workloads."""
    out: dict[int, list[tuple[int, float]]] = {}
    for m in r.workloads:
        achieved = r.derived(m)["achieved_gbps"]
        if achieved is not None:
            out.setdefault(m.cols, []).append((m.rows, achieved))
    return {cols: sorted(points) for cols, points in sorted(out.items())}


def _draw(ax: Any, r: BenchReport) -> None:
    for cols, points in series(r).items():
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                label=f"row length {cols}")
    ax.axhline(r.roofline.gbps, color="black", linestyle="--",
               label=f"roofline {r.roofline.label} {r.roofline.gbps:.0f} GB/s")
    ax.axhline(r.device.copy_gbps, color="gray", linestyle=":",
               label=f"measured copy {r.device.copy_gbps:.0f} GB/s")
    ax.set_xscale("log")
    ax.set_xlabel("rows")
    ax.set_ylabel("achieved GB/s (inputs + outputs)")
    ax.set_title(f"{r.definition} on {r.device.name}", fontsize=9)
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, loc="best")


def render(r: BenchReport, path: Path) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    try:
        _draw(ax, r)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
    finally:
        plt.close(fig)
    return path


def render_overview(reports: list[BenchReport], path: Path) -> Path:
    """All reports in one figure, a panel each (the GPU session brings back few files)."""
    if not reports:
        raise ValueError("no reports to draw")
    plt = _pyplot()
    ncols = min(3, len(reports))
    nrows = math.ceil(len(reports) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.5 * ncols, 4 * nrows), squeeze=False)
    try:
        for i, ax in enumerate(axes.flat):
            if i < len(reports):
                _draw(ax, reports[i])
            else:
                ax.axis("off")
        fig.tight_layout()
        fig.savefig(path, dpi=90)
    finally:
        plt.close(fig)
    return path


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: python3 -m solbench.bench.chart OUT.png REPORT.json...", file=sys.stderr)
        return 2
    reports = []
    for p in argv[1:]:
        try:
            reports.append(from_json(json.loads(Path(p).read_text(encoding="utf-8"))))
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"{p}: skipped: {e}", file=sys.stderr)
    if not reports:
        print("no readable reports", file=sys.stderr)
        return 2
    try:
        render_overview(reports, Path(argv[0]))
    except ChartUnavailable as e:
        print(str(e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
