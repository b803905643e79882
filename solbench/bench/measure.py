"""The GPU measurements of a bench run. Needs CUDA; every latency comes from
solbench.conformance.timing.time_calls (L2 flushed, fresh 256-byte-aligned inputs, median).
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from solbench.conformance import backends, timing
from solbench.conformance.inputs import (SEED, SafetensorsCache, generate_inputs, load_reference,
                                         normalize_outputs, torch_dtype)
from solbench.conformance.problem import Bundle, resolve_axes, shape_of
from solbench.conformance.rules import compare_outputs

from . import score
from .report import DeviceFacts, WorkloadMeasurement

COPY_BYTES = 1 << 30
COPY_SAMPLES = 10
COMPILE_MODES = ("max-autotune-no-cudagraphs", "default", "none")


def _short(e: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(e), e)).strip()[-1000:]


def copy_bandwidth_gbps(device: Any, nbytes: int = COPY_BYTES,
                        samples: int = COPY_SAMPLES) -> float:
    """Median over `samples` timed copies of nbytes device to device; read + write counted."""
    import torch

    src = torch.empty(nbytes, dtype=torch.uint8, device=device).random_(0, 255)
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    times = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(samples):
        torch.cuda.synchronize(device)
        start.record()
        dst.copy_(src)
        end.record()
        torch.cuda.synchronize(device)
        times.append(start.elapsed_time(end))
    del src, dst
    torch.cuda.empty_cache()
    return score.bandwidth_gbps(2 * nbytes, statistics.median(times))


def empty_kernel_ms(device: Any, warmup: int, iterations: int) -> tuple[float, str]:
    """Launch-to-end of a kernel that does no work, timed like a solution: the floor of the
    small-batch workloads, which no kernel can beat."""
    import torch

    sleep = getattr(torch.cuda, "_sleep", None)
    if callable(sleep):
        ms = timing.time_calls(lambda: sleep(0), [], [], device, warmup, iterations)
        return ms, "torch.cuda._sleep(0): one spin kernel of zero cycles, CUDA events around it"
    one = torch.zeros(1, device=device)
    ms = timing.time_calls(lambda: one.fill_(0.0), [], [], device, warmup, iterations)
    return ms, "a one-element fill_, CUDA events around it"


def device_facts(device: Any, warmup: int, iterations: int) -> DeviceFacts:
    import torch

    cap = torch.cuda.get_device_capability(device)
    empty, how = empty_kernel_ms(device, warmup, iterations)
    return DeviceFacts(
        name=torch.cuda.get_device_name(device), capability=f"{cap[0]}.{cap[1]}",
        torch_version=torch.__version__, cuda_version=str(torch.version.cuda),
        copy_gbps=copy_bandwidth_gbps(device), copy_bytes=COPY_BYTES, copy_samples=COPY_SAMPLES,
        empty_kernel_ms=empty, empty_kernel_how=how)


@contextlib.contextmanager
def _fail_on_recompile() -> Iterator[None]:
    """While timing the compiled baseline a recompile would time the compiler (or, past the
    recompile limit, eager code): make it an error instead."""
    import torch

    set_stance = getattr(getattr(torch, "compiler", None), "set_stance", None)
    if set_stance is None:
        yield
        return
    with set_stance("fail_on_recompile"):
        yield


def compiled_latency(ref_fn: Callable[..., Any], inputs: list[Any], device: Any, mode: str,
                     warmup: int, iterations: int) -> tuple[float | None, str]:
    """torch.compile(reference) latency, or (None, why) when it cannot be had."""
    import torch

    if mode == "none":
        return None, "skipped (--compile-mode none)"
    try:
        torch._dynamo.reset()  # a fresh cache per workload: no recompile limit carried over
        cfn = torch.compile(ref_fn, mode=None if mode == "default" else mode, dynamic=False)
        with torch.no_grad():
            cfn(*[timing.aligned_copy(v) if isinstance(v, torch.Tensor) else v for v in inputs])
        torch.cuda.synchronize(device)
    except Exception as e:  # noqa: BLE001 - any compiler failure means no compiled baseline
        return None, f"compile failed: {_short(e)}"
    try:
        with torch.no_grad(), _fail_on_recompile():
            return timing.time_calls(cfn, inputs, [], device, warmup, iterations), ""
    except Exception as e:  # noqa: BLE001 - a guard failure or a fault while timed
        return None, f"recompiled or failed while timed: {_short(e)}"


@dataclass
class Session:
    """What every workload of one bundle shares: the loaded solution and reference."""

    bundle: Bundle
    fn: Callable[..., Any]
    reference: dict[str, Any]
    device: Any
    compile_mode: str
    warmup: int
    iterations: int


def load_session(bundle: Bundle, plan: backends.BuildPlan, device: Any, compile_mode: str,
                 warmup: int, iterations: int) -> Session:
    import torch

    torch.manual_seed(SEED)
    mod = backends.load_built(plan)
    return Session(bundle, getattr(mod, plan.entry_function), load_reference(bundle.definition),
                   device, compile_mode, warmup, iterations)


def measure_workload(s: Session, index: int) -> WorkloadMeasurement:
    """Check one round against the reference, then time solution, reference and compiled."""
    defn, w = s.bundle.definition, s.bundle.workloads[index]
    rows, cols = score.rows_and_cols(defn, w.axes)
    m = WorkloadMeasurement(w.uuid, dict(w.axes), rows, cols, score.workload_bytes(defn, w.axes),
                            status="PASSED")
    try:
        inputs, outs = _check_once(s, index)
    except _NotTimed as e:
        m.status, m.note = e.status, e.note
        return m
    import torch

    ref_fn = s.reference["run"]
    try:
        m.solution_ms = timing.time_calls(s.fn, inputs, outs, s.device, s.warmup, s.iterations)
        with torch.no_grad():
            m.reference_ms = timing.time_calls(ref_fn, inputs, [], s.device, s.warmup,
                                               s.iterations)
    except Exception as e:  # noqa: BLE001 - a fault while timing ends this workload
        m.status, m.note = "RUNTIME_ERROR", f"timing: {_short(e)}"
        m.solution_ms = m.reference_ms = None
        return m
    m.compiled_ms, m.compiled_note = compiled_latency(ref_fn, inputs, s.device, s.compile_mode,
                                                      s.warmup, s.iterations)
    return m


class _NotTimed(Exception):
    def __init__(self, status: str, note: str) -> None:
        super().__init__(note)
        self.status, self.note = status, note


def _check_once(s: Session, index: int) -> tuple[list[Any], list[Any]]:
    """One correctness round by the benchmark's rules; returns (inputs, outputs to write)."""
    import torch

    defn, sol = s.bundle.definition, s.bundle.solution
    w = s.bundle.workloads[index]
    try:
        inputs = generate_inputs(defn, w, s.device, s.reference,
                                 SafetensorsCache(s.bundle.problem_dir))
        with torch.no_grad():
            ref = s.reference["run"](*[v.clone() if isinstance(v, torch.Tensor) else v
                                       for v in inputs])
        ref_out = normalize_outputs(ref, defn.outputs, to_tensor=True, device=s.device)
    except Exception as e:  # noqa: BLE001
        raise _NotTimed("INVALID_REFERENCE", _short(e)) from e
    axes = resolve_axes(defn, w.axes)
    outs = [torch.empty(shape_of(o, axes) or (), dtype=torch_dtype(o.dtype), device=s.device)
            for o in defn.outputs] if sol.destination_passing_style else []
    try:
        ret = s.fn(*[v.clone() if isinstance(v, torch.Tensor) else v for v in inputs], *outs)
        torch.cuda.synchronize(s.device)
        got = outs if sol.destination_passing_style else normalize_outputs(
            ret, defn.outputs, to_tensor=False)
    except Exception as e:  # noqa: BLE001
        raise _NotTimed("RUNTIME_ERROR", _short(e)) from e
    c = compare_outputs(got, ref_out, defn.output_names, w.tolerance, 0)
    if not c.passed:
        raise _NotTimed(c.status.value, c.message)
    return inputs, outs


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
