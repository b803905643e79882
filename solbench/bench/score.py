"""The arithmetic of a benchmark row: bytes moved, the roofline, derived rates and the SOL score.

Stdlib only (no torch): everything here is testable without a GPU. Latencies are milliseconds,
bandwidths GB/s (1e9 bytes per second), sizes bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from solbench.conformance.problem import Definition, TensorSpec, resolve_axes, shape_of

# Bytes per element of each definition dtype. float4_e2m1 packs two values a byte;
# float4_e2m1fn_x2 is already the packed pair, one byte an element.
DTYPE_BYTES: dict[str, float] = {
    "float64": 8, "float32": 4, "float16": 2, "bfloat16": 2,
    "float8_e4m3fn": 1, "float8_e5m2": 1, "float4_e2m1": 0.5, "float4_e2m1fn_x2": 1,
    "int64": 8, "int32": 4, "int16": 2, "int8": 1, "bool": 1,
}

# SOLAR's B200 bound (sol-execbench.md §6) and the nominal DRAM bandwidth of other GPUs, GB/s.
B200_GBPS = 7670.0
NOMINAL_GBPS: dict[str, float] = {"B200": B200_GBPS, "H200": 4800.0, "H100": 3350.0}


def tensor_bytes(spec: TensorSpec, axes: dict[str, int]) -> int:
    """Bytes of one input or output at these axis values; a Python scalar moves none."""
    shape = shape_of(spec, axes)
    if shape is None:
        return 0
    return math.ceil(math.prod(shape) * DTYPE_BYTES[spec.dtype])


def workload_bytes(defn: Definition, var_axes: dict[str, Any]) -> int:
    """The fewest bytes a kernel must move: every input read once, every output written once."""
    axes = resolve_axes(defn, var_axes)
    return sum(tensor_bytes(s, axes) for s in defn.inputs + defn.outputs)


def rows_and_cols(defn: Definition, var_axes: dict[str, Any]) -> tuple[int, int]:
    """(rows, row length) of the largest output: the last axis is the row, the rest are rows."""
    axes = resolve_axes(defn, var_axes)
    best: tuple[int, ...] | None = None
    for spec in defn.outputs + defn.inputs:
        shape = shape_of(spec, axes)
        if shape and (best is None or math.prod(shape) > math.prod(best)):
            best = shape
    if not best:
        return 1, 1
    return math.prod(best[:-1]), best[-1]


# --- the roofline ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Roofline:
    """The DRAM bandwidth that T_sol is computed from, and why it was chosen."""

    label: str  # "B200", "H200", "measured copy", ...
    gbps: float
    source: str  # a sentence for the report


def nominal_gbps(device_name: str) -> tuple[str, float] | None:
    upper = device_name.upper()
    for key, gbps in NOMINAL_GBPS.items():
        if key in upper:
            return key, gbps
    return None


def select_roofline(target_hardware: list[str], device_name: str,
                    measured_copy_gbps: float | None) -> Roofline:
    """B200 on a B200 uses SOLAR's 7.67 TB/s; LOCAL (or a B200 solution measured elsewhere) uses
    the device's nominal bandwidth, or the measured copy bandwidth for an unknown GPU."""
    nominal = nominal_gbps(device_name)
    on_b200 = nominal is not None and nominal[0] == "B200"
    if on_b200 and "B200" in target_hardware:
        return Roofline("B200", B200_GBPS, "SOLAR's B200 DRAM bound (7.67 TB/s at locked clocks)")
    why = "" if "LOCAL" in target_hardware else (
        f"the solution targets {', '.join(target_hardware)} but runs on {device_name}, so the "
        "bound is this device's; ")
    if nominal is not None:
        return Roofline(nominal[0], nominal[1],
                        f"{why}{nominal[0]} nominal DRAM bandwidth ({nominal[1] / 1000:.2f} TB/s)")
    if measured_copy_gbps is not None and measured_copy_gbps > 0:
        return Roofline("measured copy", measured_copy_gbps,
                        f"{why}no nominal figure for {device_name}: the measured device-to-device "
                        f"copy bandwidth ({measured_copy_gbps:.0f} GB/s)")
    raise ValueError(f"no roofline for {device_name!r}: no nominal figure and no measured copy")


# --- derived figures ------------------------------------------------------------------------


def bandwidth_gbps(nbytes: int, latency_ms: float) -> float:
    if latency_ms <= 0:
        raise ValueError("latency must be positive")
    return nbytes / (latency_ms * 1e-3) / 1e9


def sol_time_ms(nbytes: int, roofline_gbps: float) -> float:
    """T_sol of a memory-bound kernel: its bytes at the roofline bandwidth."""
    if roofline_gbps <= 0:
        raise ValueError("roofline bandwidth must be positive")
    return nbytes / (roofline_gbps * 1e9) * 1e3


def baseline_ms(reference_ms: float | None, compiled_ms: float | None) -> float | None:
    """T_b: the faster of the eager reference and torch.compile of it (whichever exist)."""
    known = [t for t in (reference_ms, compiled_ms) if t is not None]
    return min(known) if known else None


def sol_score(t_k: float, t_b: float, t_sol: float) -> float | None:
    """S = 1 / (1 + (T_k - T_sol) / (T_b - T_sol)): 0.5 at the baseline, 1 at the bound,
    unclamped (over 1 below the bound). None where undefined: a baseline at or under the bound,
    or a kernel so far under the bound that the denominator vanishes or turns negative."""
    if t_b <= t_sol:
        return None
    denom = 1.0 + (t_k - t_sol) / (t_b - t_sol)
    if denom <= 0:
        return None
    return 1.0 / denom


def speedup(baseline: float | None, kernel: float) -> float | None:
    return None if baseline is None or kernel <= 0 else baseline / kernel


def geomean(values: list[float]) -> float | None:
    positive = [v for v in values if v > 0]
    if not positive:
        return None
    return math.exp(sum(math.log(v) for v in positive) / len(positive))


def spread_indices(sizes: list[int], n: int | None) -> list[int]:
    """Indices of n workloads spread evenly over the size order, smallest and largest included
    (n = 1: the largest, whose bandwidth matters most); all of them, smallest first, for None."""
    order = sorted(range(len(sizes)), key=lambda i: (sizes[i], i))
    if n is None or n >= len(order):
        return order
    if n < 1:
        raise ValueError("the number of workloads must be at least 1")
    if n == 1:
        return [order[-1]]
    return [order[round(k * (len(order) - 1) / (n - 1))] for k in range(n)]
