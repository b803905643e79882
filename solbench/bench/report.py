"""What a bench run measured, the figures derived from it, and its Markdown and JSON forms.

Stdlib only: a report can be rendered (and tested) from synthetic measurements.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import score
from .score import Roofline

LAUNCH_BOUND_FACTOR = 2.0  # a kernel within this factor of the empty kernel is launch-bound


@dataclass
class DeviceFacts:
    name: str
    capability: str  # "9.0"
    torch_version: str
    cuda_version: str
    copy_gbps: float  # median device-to-device copy, read + write counted
    copy_bytes: int
    copy_samples: int
    empty_kernel_ms: float | None  # launch-to-end of a kernel that does nothing
    empty_kernel_how: str


@dataclass
class WorkloadMeasurement:
    uuid: str
    axes: dict[str, Any]
    rows: int
    cols: int
    nbytes: int
    status: str  # PASSED, or why nothing was timed (INCORRECT_NUMERICAL, RUNTIME_ERROR, ...)
    note: str = ""
    solution_ms: float | None = None
    reference_ms: float | None = None
    compiled_ms: float | None = None
    compiled_note: str = ""  # why torch.compile has no figure (n/a)


@dataclass
class BenchReport:
    definition: str
    solution: str
    target_hardware: list[str]
    device: DeviceFacts
    roofline: Roofline
    compile_mode: str
    warmup: int
    iterations: int
    workloads: list[WorkloadMeasurement] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def derived(self, m: WorkloadMeasurement) -> dict[str, float | None]:
        return derive(m, self.roofline.gbps, self.device.copy_gbps)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["workloads"] = [dict(asdict(m), **self.derived(m)) for m in self.workloads]
        out["summary"] = summary(self)
        return out

    def write_json(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")


def from_json(d: dict[str, Any]) -> BenchReport:
    """Read back a report written by BenchReport.to_json (derived fields are recomputed)."""
    fields = set(WorkloadMeasurement.__dataclass_fields__)
    return BenchReport(
        d["definition"], d["solution"], list(d["target_hardware"]), DeviceFacts(**d["device"]),
        Roofline(**d["roofline"]), d["compile_mode"], int(d["warmup"]), int(d["iterations"]),
        [WorkloadMeasurement(**{k: v for k, v in w.items() if k in fields})
         for w in d["workloads"]],
        list(d.get("notes", [])))


def derive(m: WorkloadMeasurement, roofline_gbps: float,
           copy_gbps: float) -> dict[str, float | None]:
    """Achieved bandwidth, its share of the copy bandwidth, speedups, T_sol and S."""
    t_k = m.solution_ms
    t_b = score.baseline_ms(m.reference_ms, m.compiled_ms)
    t_sol = score.sol_time_ms(m.nbytes, roofline_gbps)
    achieved = score.bandwidth_gbps(m.nbytes, t_k) if t_k else None
    return {
        "achieved_gbps": achieved,
        "copy_share": None if achieved is None or copy_gbps <= 0 else achieved / copy_gbps,
        "speedup_vs_reference": None if not t_k else score.speedup(m.reference_ms, t_k),
        "speedup_vs_compiled": None if not t_k else score.speedup(m.compiled_ms, t_k),
        "baseline_ms": t_b,
        "sol_ms": t_sol,
        "sol_score": None if not t_k or t_b is None else score.sol_score(t_k, t_b, t_sol),
    }


def summary(r: BenchReport) -> dict[str, Any]:
    timed = [m for m in r.workloads if m.solution_ms]
    d = [r.derived(m) for m in timed]
    scores = [x["sol_score"] for x in d if x["sol_score"] is not None]
    return {
        "workloads": len(r.workloads),
        "timed": len(timed),
        "geomean_speedup_vs_reference": score.geomean(
            [x["speedup_vs_reference"] for x in d if x["speedup_vs_reference"]]),
        "geomean_speedup_vs_compiled": score.geomean(
            [x["speedup_vs_compiled"] for x in d if x["speedup_vs_compiled"]]),
        "mean_sol_score": sum(scores) / len(scores) if scores else None,
        "best_copy_share": max((x["copy_share"] for x in d if x["copy_share"]), default=None),
    }


# --- Markdown ------------------------------------------------------------------------------


def fmt_us(ms: float | None) -> str:
    return "n/a" if ms is None else f"{ms * 1e3:.2f}"


def fmt_gbps(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.0f}"


def fmt_pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v * 100:.1f}%"


def fmt_x(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.2f}x"


def fmt_score(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def fmt_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


def _axes_text(axes: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in axes.items()) or "-"


_HEADER = ("workload", "axes", "rows x cols", "bytes", "solution us", "reference us",
           "compiled us", "achieved GB/s", "of copy bw", "vs ref", "vs compiled", "T_sol us",
           "S")


def workload_table(r: BenchReport) -> list[str]:
    lines = ["| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    for m in r.workloads:
        d = r.derived(m)
        compiled = fmt_us(m.compiled_ms)
        if m.compiled_ms is None and m.compiled_note:
            compiled = "n/a*"
        cells = [m.uuid[:8], _axes_text(m.axes), f"{m.rows} x {m.cols}", fmt_bytes(m.nbytes)]
        if m.status != "PASSED":
            cells += [m.status] + [""] * (len(_HEADER) - len(cells) - 1)
        else:
            cells += [fmt_us(m.solution_ms), fmt_us(m.reference_ms), compiled,
                      fmt_gbps(d["achieved_gbps"]), fmt_pct(d["copy_share"]),
                      fmt_x(d["speedup_vs_reference"]), fmt_x(d["speedup_vs_compiled"]),
                      fmt_us(d["sol_ms"]), fmt_score(d["sol_score"])]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _footnotes(r: BenchReport) -> list[str]:
    out = []
    for m in r.workloads:
        if m.status != "PASSED" and m.note:
            out.append(f"- `{m.uuid[:8]}` {m.status}: {m.note.strip().splitlines()[-1][:300]}")
        elif m.compiled_ms is None and m.compiled_note:
            out.append(f"- `{m.uuid[:8]}` torch.compile n/a*: {m.compiled_note[:300]}")
    empty = r.device.empty_kernel_ms
    if empty:
        bound = [m.uuid[:8] for m in r.workloads
                 if m.solution_ms and m.solution_ms <= LAUNCH_BOUND_FACTOR * empty]
        if bound:
            out.append(f"- launch-bound (solution within {LAUNCH_BOUND_FACTOR:g}x of the empty "
                       f"kernel's {fmt_us(empty)} us): " + ", ".join(f"`{u}`" for u in bound))
    return out


def render_markdown(r: BenchReport, chart_name: str | None = "bandwidth.png") -> str:
    dev, s = r.device, summary(r)
    lines = [
        f"# solgen bench: {r.solution} ({r.definition})",
        "",
        f"- device: {dev.name} (compute capability {dev.capability}), torch {dev.torch_version}, "
        f"CUDA {dev.cuda_version}",
        f"- target hardware: {', '.join(r.target_hardware)}; roofline for T_sol: "
        f"{r.roofline.gbps:.0f} GB/s, {r.roofline.source}",
        f"- measured device-to-device copy: {dev.copy_gbps:.0f} GB/s (median of "
        f"{dev.copy_samples} copies of {fmt_bytes(dev.copy_bytes)}, read + write counted)",
        f"- empty kernel, launch to end: {fmt_us(dev.empty_kernel_ms)} us ({dev.empty_kernel_how})",
        f"- baseline T_b = min(eager reference, torch.compile(reference, mode="
        f"\"{r.compile_mode}\"))",
        f"- geomean speedup: {fmt_x(s['geomean_speedup_vs_reference'])} vs the reference, "
        f"{fmt_x(s['geomean_speedup_vs_compiled'])} vs torch.compile; mean S "
        f"{fmt_score(s['mean_sol_score'])}; best share of copy bandwidth "
        f"{fmt_pct(s['best_copy_share'])} ({s['timed']} of {s['workloads']} workloads timed)",
        "",
        *workload_table(r),
        "",
    ]
    foot = _footnotes(r)
    if foot:
        lines += foot + [""]
    if r.notes:
        lines += [f"- {n}" for n in r.notes] + [""]
    if chart_name:
        lines += [f"![achieved bandwidth]({chart_name})", ""]
    lines += [
        "## How this was measured",
        "",
        f"Each latency is the median of {r.iterations} calls after {r.warmup} warm-ups, as "
        "SOL-ExecBench times: before every call the L2 is flushed (a buffer of twice its size is "
        "zeroed) and the inputs are copied to a fresh 256-byte-aligned address. A call is timed "
        "with CUDA events around it, so launch overhead is included (the harness times from the "
        "first kernel's start to the last one's end with CUPTI: our figures are a slight "
        "over-estimate, most visible on the smallest workloads). bytes = every input read once "
        "plus every output written once, from the definition's dtypes and the workload's axes "
        "(scalars count 0). achieved = bytes / solution latency; 'of copy bw' divides it by the "
        "copy bandwidth measured in this run. T_sol = bytes / roofline bandwidth; "
        "S = 1 / (1 + (T_k - T_sol) / (T_b - T_sol)), 0.5 at the baseline and 1 at the bound, "
        "unclamped. The solution's output is compared with the reference's once (the "
        "benchmark's tolerances) before it is timed; a failing workload is not timed. "
        "n/a* marks a torch.compile baseline that failed to compile or recompiled while timed.",
        "",
    ]
    return "\n".join(lines)
