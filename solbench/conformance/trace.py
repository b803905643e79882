"""Trace records (one JSON object per evaluated workload, JSON Lines), as the harness writes."""

from __future__ import annotations

import json
import math
import platform
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from .problem import Workload

if TYPE_CHECKING:
    from .backends import Backend


@dataclass
class Correctness:
    max_absolute_error: float
    max_relative_error: float
    has_nan: bool = False
    has_inf: bool = False


@dataclass
class Performance:
    latency_ms: float
    reference_latency_ms: float
    speedup: float
    bandwidth_gbps: float
    roofline_fraction: float


@dataclass
class Evaluation:
    status: str
    log: str = ""
    correctness: Correctness | None = None
    performance: Performance | None = None
    environment: dict[str, Any] = field(default_factory=dict)
    timestamp: str = field(default_factory=lambda: datetime.now().isoformat())


def _json_float(v: float) -> float | str:
    """JSON has no NaN/Inf: write them as the strings "NaN", "Infinity", "-Infinity"."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def environment(device: str, backend: Backend) -> dict[str, Any]:
    env: dict[str, Any] = {"device": device, "backend": backend.value,
                           "python": sys.version.split()[0], "platform": platform.platform()}
    try:
        import torch

        env["torch"] = torch.__version__
        env["cuda"] = torch.version.cuda
    except ImportError:  # pragma: no cover - torch is a requirement
        env["torch"] = None
    return env


def evaluation_to_dict(ev: Evaluation) -> dict[str, Any]:
    corr = None
    if ev.correctness is not None:
        c = ev.correctness
        corr = {"max_absolute_error": _json_float(c.max_absolute_error),
                "max_relative_error": _json_float(c.max_relative_error),
                "has_nan": c.has_nan, "has_inf": c.has_inf}
    perf = None
    if ev.performance is not None:
        p = ev.performance
        perf = {k: _json_float(getattr(p, k)) for k in
                ("latency_ms", "reference_latency_ms", "speedup", "bandwidth_gbps",
                 "roofline_fraction")}
    return {"status": ev.status, "log": ev.log, "correctness": corr, "performance": perf,
            "environment": ev.environment, "timestamp": ev.timestamp}


def make_trace(definition: str, solution: str, workload: Workload, ev: Evaluation,
               solbench: dict[str, Any] | None = None) -> dict[str, Any]:
    """A trace as the harness writes it; `solbench` (the rule, the agreement with the harness,
    the margin) goes under its own key, which the harness's Trace model ignores."""
    trace = {
        "definition": definition,
        "solution": solution,
        "workload": {"uuid": workload.uuid, "axes": workload.axes, "inputs": workload.inputs},
        "evaluation": evaluation_to_dict(ev),
    }
    if solbench is not None:
        trace["solbench"] = solbench
    return trace


def write_traces(path: Path, traces: Iterable[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for t in traces:
            fh.write(json.dumps(t, allow_nan=False) + "\n")
