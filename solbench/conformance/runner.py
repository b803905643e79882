"""Evaluating a bundle: build once, then every workload in its own process, by the harness's rules."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import backends
from .backends import Backend
from .isolation import WorkerJob, run_worker
from .problem import Bundle, load_bundle, resolve_axes, shape_of, workload_elements
from .rules import BORDERLINE, Comparison, Status
from .trace import Correctness, Evaluation, Performance, _json_float, environment, make_trace

DEFAULT_ROUNDS = 10
DEFAULT_TIMEOUT_S = 300.0

# Budget prior before anything has been measured: seconds per element-round, and per process.
PRIOR_RATE = {Backend.CPU: 2e-6, Backend.CUDA: 1e-8}
PRIOR_OVERHEAD_S = 4.0


# --- one workload, in this process --------------------------------------------------------------


@dataclass
class WorkloadResult:
    status: str
    log: str = ""
    correctness: Correctness | None = None
    performance: Performance | None = None
    compute_seconds: float = 0.0
    margin: float | None = None  # a pass's distance from failing (rules.pass_margin)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status, "log": self.log, "compute_seconds": self.compute_seconds,
            "correctness": None if self.correctness is None else vars(self.correctness),
            "performance": None if self.performance is None else vars(self.performance),
            "margin": None if self.margin is None else _json_float(self.margin),
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> "WorkloadResult":
        c, p, m = d.get("correctness"), d.get("performance"), d.get("margin")
        return WorkloadResult(d["status"], d.get("log", ""),
                              None if c is None else Correctness(**c),
                              None if p is None else Performance(**p),
                              float(d.get("compute_seconds", 0.0)),
                              None if m is None else float(m))


def _short_exc(e: BaseException) -> str:
    text = "".join(traceback.format_exception_only(type(e), e)).strip()
    return text[-2000:]


def evaluate_workload(bundle: Bundle, workload_index: int, plan: backends.BuildPlan,
                      rounds: int = DEFAULT_ROUNDS, timing: bool = False,
                      module: Any = None) -> WorkloadResult:
    """Evaluate one workload on plan.backend; call once per process (the seed is set here)."""
    import torch

    from .inputs import (SEED, ReferenceError, SafetensorsCache, generate_inputs, load_reference,
                         normalize_outputs, torch_dtype)
    from .rules import compare_outputs, pass_margin

    torch.manual_seed(SEED)
    defn, sol = bundle.definition, bundle.solution
    w = bundle.workloads[workload_index]
    backend = plan.backend
    dev = torch.device(backend.torch_device)
    try:
        ns = load_reference(defn)
    except ReferenceError as e:
        return WorkloadResult(Status.INVALID_REFERENCE.value, str(e))
    try:
        mod = module if module is not None else backends.load_built(plan)
        fn = getattr(mod, plan.entry_function)
    except Exception as e:  # noqa: BLE001 - any import failure means the build is unusable
        return WorkloadResult(Status.COMPILE_ERROR.value, _short_exc(e))
    axes = resolve_axes(defn, w.axes)
    out_specs = [(shape_of(s, axes) or (), torch_dtype(s.dtype)) for s in defn.outputs]
    names = defn.output_names
    safet = SafetensorsCache(bundle.problem_dir)
    worst = Comparison(Status.PASSED)
    t0 = time.perf_counter()
    inputs: list[Any] = []
    ref_out: list[Any] = []
    for r in range(rounds):
        try:
            inputs = generate_inputs(defn, w, dev, ns, safet)
            with torch.no_grad():
                result = ns["run"](*[v.clone() if isinstance(v, torch.Tensor) else v
                                     for v in inputs])
            ref_out = normalize_outputs(result, defn.outputs, to_tensor=True, device=dev)
        except Exception as e:  # noqa: BLE001 - the reference or its inputs failed
            return WorkloadResult(Status.INVALID_REFERENCE.value,
                                  f"round {r}: reference failed: {_short_exc(e)}")
        try:
            args = [backend.solution_input(v) for v in inputs]
            if sol.destination_passing_style:
                outs = [backend.solution_output(shape, dt, dev) for shape, dt in out_specs]
                fn(*args, *outs)
                sol_out: list[Any] = outs
            else:
                ret = fn(*args)
                try:
                    sol_out = normalize_outputs(ret, defn.outputs, to_tensor=False)
                except ValueError as e:
                    return WorkloadResult(Status.INCORRECT_SHAPE.value, f"round {r}: {e}")
            if backend is Backend.CUDA:
                torch.cuda.synchronize(dev)
        except Exception as e:  # noqa: BLE001 - a kernel fault or a failed TORCH_CHECK
            return WorkloadResult(Status.RUNTIME_ERROR.value, f"round {r}: {_short_exc(e)}")
        c = compare_outputs(sol_out, ref_out, names, w.tolerance, r)
        worst.max_absolute_error = max(worst.max_absolute_error, c.max_absolute_error)
        worst.max_relative_error = max(worst.max_relative_error, c.max_relative_error)
        worst.error_fraction = max(worst.error_fraction, c.error_fraction)
        worst.matched_ratio = min(worst.matched_ratio, c.matched_ratio)
        if not c.passed:
            corr = Correctness(c.max_absolute_error, c.max_relative_error, c.has_nan, c.has_inf)
            if c.status in (Status.INCORRECT_SHAPE, Status.INCORRECT_DTYPE, Status.REWARD_HACK):
                corr = None
            return WorkloadResult(c.status.value, c.message, corr, None,
                                  time.perf_counter() - t0)
    compute = time.perf_counter() - t0
    corr = Correctness(worst.max_absolute_error, worst.max_relative_error, False, False)
    perf = None
    log = ""
    if timing and backend is Backend.CUDA:  # a latency measured on the CPU would mean nothing
        try:
            perf = _measure(fn, ns["run"], inputs, ref_out, sol.destination_passing_style,
                            out_specs, backend, dev)
        except Exception as e:  # noqa: BLE001 - a fault while timing is a runtime error
            return WorkloadResult(Status.RUNTIME_ERROR.value, f"timing: {_short_exc(e)}", corr)
    margin = pass_margin(worst.error_fraction, worst.matched_ratio,
                         w.tolerance.required_matched_ratio)
    return WorkloadResult(Status.PASSED.value, log, corr, perf, compute, margin)


def _measure(fn: Any, ref_fn: Any, inputs: list[Any], ref_out: list[Any], dps: bool,
             out_specs: list[tuple[tuple[int, ...], Any]], backend: Backend,
             dev: Any) -> Performance:
    import torch

    from . import timing

    outs = [backend.solution_output(s, d, dev) for s, d in out_specs] if dps else []
    latency = timing.time_calls(fn, inputs, outs, dev)
    with torch.no_grad():
        ref_latency = timing.time_calls(ref_fn, inputs, [], dev)
    nbytes = timing.tensor_bytes(inputs) + timing.tensor_bytes(ref_out)
    achieved = timing.bandwidth_gbps(nbytes, latency)
    name = torch.cuda.get_device_name(dev)
    peak = timing.nominal_peak_gbps(name) or timing.measured_copy_gbps(dev)
    return Performance(latency, ref_latency, ref_latency / latency if latency > 0 else 0.0,
                       achieved, timing.roofline_fraction(achieved, peak))


# --- the whole check ------------------------------------------------------------------------------


class CheckError(Exception):
    """A usage or environment problem (exit code 2)."""


@dataclass
class CheckOptions:
    bundle_dir: Path
    problem_dir: Path | None = None
    device: Backend | None = None  # None: CUDA when a device is available, else the CPU
    workloads: int | None = None  # the N smallest
    rounds: int = DEFAULT_ROUNDS
    max_seconds: float | None = None  # evaluation budget (the build is not counted)
    timeout_s: float = DEFAULT_TIMEOUT_S  # per workload
    build_timeout_s: float | None = None
    isolate: bool = True
    timing: bool = True
    cache_dir: Path | None = None


@dataclass
class Row:
    uuid: str
    axes: dict[str, Any]
    status: str  # a Status name, or SKIPPED
    max_absolute_error: float | None
    max_relative_error: float | None
    seconds: float
    log: str = ""
    margin: float | None = None


@dataclass
class CheckReport:
    definition: str
    solution: str
    device: str  # the device's name
    backend: Backend
    rows: list[Row] = field(default_factory=list)
    traces: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    build_seconds: float = 0.0
    build_log: str = ""

    @property
    def ran(self) -> list[Row]:
        return [r for r in self.rows if r.status != "SKIPPED"]

    @property
    def ok(self) -> bool:
        ran = self.ran
        return len(ran) > 0 and all(r.status == Status.PASSED.value for r in ran)

    def summary(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for r in self.rows:
            counts[r.status] = counts.get(r.status, 0) + 1
        return {
            "definition": self.definition, "solution": self.solution, "device": self.device,
            "backend": self.backend.value, "ok": self.ok, "counts": counts,
            "skipped": self.skipped, "build_seconds": round(self.build_seconds, 3),
            "workloads": [
                {"uuid": r.uuid, "axes": r.axes, "status": r.status,
                 "max_absolute_error": _opt_float(r.max_absolute_error),
                 "max_relative_error": _opt_float(r.max_relative_error),
                 "seconds": round(r.seconds, 3),
                 "margin": _opt_float(r.margin),
                 "borderline": r.margin is not None and r.margin < BORDERLINE,
                 "log": r.log}
                for r in self.rows
            ],
        }


def _opt_float(v: float | None) -> float | str | None:
    return None if v is None else _json_float(v)


Progress = Callable[[int, int, str, str], None]  # (done, total, uuid, status)


def parse_device(text: str) -> Backend | None:
    """The --device option: auto (None), cpu or cuda."""
    if text == "auto":
        return None
    try:
        return Backend.parse(text)
    except ValueError:
        raise CheckError(f"--device must be auto, cpu or cuda, not {text!r}") from None


def resolve_backend(requested: Backend | None) -> Backend:
    """The backend asked for, or (None) CUDA when available; CheckError if it cannot run."""
    if requested is not None:
        backend = requested
    else:
        backend = Backend.CUDA if Backend.CUDA.available() else Backend.CPU
    if backend.available():
        return backend
    if backend is Backend.CUDA:
        raise CheckError("--device cuda: no CUDA device is available")
    why = "no CUDA device here, so " if requested is None else ""
    raise CheckError(f"{why}the CPU backend is needed, and solbench.cuda_host (the CPU "
                     "execution layer, with load_cpu_extension) cannot be imported")


class _Budget:
    """Predicts a workload's seconds from its size and what earlier workloads cost."""

    def __init__(self, limit: float | None, backend: Backend, rounds: int) -> None:
        self.limit = limit
        self.rounds = max(rounds, 1)
        self.rate = PRIOR_RATE[backend]
        self.overhead = PRIOR_OVERHEAD_S
        self.measured = False
        self.spent = 0.0

    def predict(self, elements: int) -> float:
        return self.overhead + self.rate * elements * self.rounds

    def allows(self, elements: int) -> bool:
        return self.limit is None or self.spent + self.predict(elements) <= self.limit

    def record(self, elements: int, wall: float, compute: float) -> None:
        self.spent += wall
        if compute <= 0 or elements <= 0:
            return
        rate = compute / (elements * self.rounds)
        overhead = max(wall - compute, 0.0)
        if not self.measured:
            self.rate, self.overhead, self.measured = rate, overhead, True
        else:  # stay pessimistic: the largest rate seen
            self.rate = max(self.rate, rate)
            self.overhead = (self.overhead + overhead) / 2


def _build(plan: backends.BuildPlan, opts: CheckOptions) -> tuple[bool, str, float]:
    """Build in a child process under the time limit; (ok, log, seconds). Cached builds skip."""
    if plan.marker.exists():
        return True, "cached build", 0.0
    limit = opts.build_timeout_s or plan.backend.build_timeout_s
    out = run_worker(WorkerJob.build(plan, opts.bundle_dir, opts.problem_dir), limit)
    if out.kind == "timeout":
        return False, f"build exceeded the {limit:.0f} s limit\n{out.output}", out.wall_seconds
    if out.kind == "crash" or out.result is None:
        return False, f"build {out.describe()}\n{out.output}", out.wall_seconds
    ok = bool(out.result.get("ok"))
    return ok, str(out.result.get("log", "")) + ("" if ok else "\n" + out.output), out.wall_seconds


def run_check(opts: CheckOptions, progress: Progress | None = None) -> CheckReport:
    bundle = load_bundle(opts.bundle_dir, opts.problem_dir)  # BundleError: exit code 2
    if opts.rounds < 1:
        raise CheckError("--rounds must be at least 1")
    backend = resolve_backend(opts.device)
    device_name, capability = backend.device_facts()
    plan = backends.plan_build(bundle.solution, backend, opts.cache_dir, device_name, capability)
    env = environment(device_name, backend)
    env["hardware"] = backend.hardware(bundle.solution.target_hardware, device_name)
    report = CheckReport(bundle.definition.name, bundle.solution.name, device_name, backend)

    sizes = [workload_elements(bundle.definition, w) for w in bundle.workloads]
    order = sorted(range(len(bundle.workloads)), key=lambda i: (sizes[i], i))
    if opts.workloads is not None:
        if opts.workloads < 1:
            raise CheckError("--workloads must be at least 1")
        order = order[: opts.workloads]

    ok, build_log, build_s = _build(plan, opts)
    report.build_seconds, report.build_log = build_s, build_log
    budget = _Budget(opts.max_seconds, backend, opts.rounds)
    for done, i in enumerate(order, start=1):
        w = bundle.workloads[i]
        if not ok:
            res = WorkloadResult(Status.COMPILE_ERROR.value, build_log[-4000:])
            wall = 0.0
        elif not budget.allows(sizes[i]):
            report.skipped.append(w.uuid)
            report.rows.append(Row(w.uuid, w.axes, "SKIPPED", None, None, 0.0,
                                   f"predicted {budget.predict(sizes[i]):.1f} s exceeds the "
                                   f"--max-seconds budget"))
            if progress:
                progress(done, len(order), w.uuid, "SKIPPED")
            continue
        else:
            res, wall = _run_one(bundle, i, plan, opts)
            budget.record(sizes[i], wall, res.compute_seconds)
        ev = Evaluation(res.status, res.log, res.correctness, res.performance, dict(env))
        report.traces.append(make_trace(bundle.definition.name, bundle.solution.name, w, ev))
        c = res.correctness
        report.rows.append(Row(w.uuid, w.axes, res.status,
                               None if c is None else c.max_absolute_error,
                               None if c is None else c.max_relative_error, wall, res.log,
                               res.margin))
        if progress:
            progress(done, len(order), w.uuid, res.status)
    return report


def _run_one(bundle: Bundle, index: int, plan: backends.BuildPlan,
             opts: CheckOptions) -> tuple[WorkloadResult, float]:
    t0 = time.monotonic()
    if not opts.isolate:
        res = evaluate_workload(bundle, index, plan, opts.rounds, opts.timing)
        return res, time.monotonic() - t0
    job = WorkerJob.evaluate(plan, bundle.bundle_dir, bundle.problem_dir, index, opts.rounds,
                             opts.timing)
    out = run_worker(job, opts.timeout_s)
    if out.kind == "timeout":
        return WorkloadResult(Status.TIMEOUT.value, f"{out.describe()}\n{out.output}"), out.wall_seconds
    if out.kind == "crash" or out.result is None:
        return (WorkloadResult(Status.RUNTIME_ERROR.value, f"{out.describe()}\n{out.output}"),
                out.wall_seconds)
    return WorkloadResult.from_json(out.result), out.wall_seconds
