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
from .rules import RERUN_BELOW, Agreement, Comparison, HarnessRecord, Status, is_borderline
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
    rule: str = ""  # the rule that gave the status ("correctness" for a pass)
    harness: str = Agreement.SAME.value  # how the harness's outcome relates (rules.Agreement)
    harness_note: str = ""  # why it differs, when it does
    seeds_tried: int = 0  # a borderline pass re-run on further seeds: how many,
    seeds_failed: int = 0  # and on how many it failed
    stream_after: dict[str, Any] | None = None  # the input stream where this workload left it

    def to_json(self) -> dict[str, Any]:
        d = dict(vars(self))
        d["correctness"] = None if self.correctness is None else vars(self.correctness)
        d["performance"] = None if self.performance is None else vars(self.performance)
        d["margin"] = None if self.margin is None else _json_float(self.margin)
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> "WorkloadResult":
        c, p, m = d.get("correctness"), d.get("performance"), d.get("margin")
        return WorkloadResult(d["status"], d.get("log", ""),
                              None if c is None else Correctness(**c),
                              None if p is None else Performance(**p),
                              float(d.get("compute_seconds", 0.0)),
                              None if m is None else float(m), d.get("rule", ""),
                              d.get("harness", Agreement.SAME.value), d.get("harness_note", ""),
                              int(d.get("seeds_tried", 0)), int(d.get("seeds_failed", 0)),
                              d.get("stream_after"))


def _short_exc(e: BaseException) -> str:
    text = "".join(traceback.format_exception_only(type(e), e)).strip()
    return text[-2000:]


@dataclass
class _Run:
    """What every round of one workload needs."""

    bundle: Bundle
    workload: Any
    plan: backends.BuildPlan
    fn: Any
    ns: dict[str, Any]
    dev: Any
    safetensors: Any
    out_specs: list[tuple[tuple[int, ...], Any]]


@dataclass
class _Rounds:
    """The correctness rounds' outcome: a failure, or the worst figures of a pass."""

    failure: WorkloadResult | None
    worst: Comparison
    inputs: list[Any]
    ref_out: list[Any]
    threads_after_first: int


def _fail(status: Status, rule: str, log: str, corr: Correctness | None = None) -> WorkloadResult:
    return WorkloadResult(status.value, log, corr, rule=rule)


def _call_solution(run: _Run, inputs: list[Any]) -> list[Any]:
    """The solution's outputs as the harness collects them (eval_driver.py,
    _call_and_collect_outputs): preallocated ones, or what it returns, with Python scalars made
    tensors; a return that does not fit the outputs raises (RUNTIME_ERROR there too)."""
    import torch

    from .inputs import normalize_outputs

    backend = run.plan.backend
    args = [backend.solution_input(v) for v in inputs]
    if run.bundle.solution.destination_passing_style:
        outs = [backend.solution_output(shape, dt, run.dev) for shape, dt in run.out_specs]
        run.fn(*args, *outs)
        result: list[Any] = outs
    else:
        result = normalize_outputs(run.fn(*args), run.bundle.definition.outputs, to_tensor=True,
                                   device=run.dev)
    if backend is Backend.CUDA:
        torch.cuda.synchronize(run.dev)
    return result


GUARD_PAGE_NOTE = ("the CPU layer's guard pages stopped an access outside a tensor; on a GPU "
                   "the harness may not notice such an access")


def _solution_failed(run: _Run, r: int, e: Exception) -> WorkloadResult:
    """RUNTIME_ERROR, as the harness says of an exception in the solution; an out-of-bounds
    access caught by the CPU layer is solbench's own, stricter finding."""
    res = _fail(Status.RUNTIME_ERROR, "solution-error", f"round {r}: {_short_exc(e)}")
    if run.plan.backend is Backend.CPU and "out-of-bounds access" in str(e):
        res.rule, res.harness, res.harness_note = ("guard-page", Agreement.STRICTER.value,
                                                   GUARD_PAGE_NOTE)
    return res


def _correctness_rounds(run: _Run, rounds: int, record: HarnessRecord | None,
                        snap: Any) -> _Rounds:
    """The harness's correctness loop (eval_driver.py): per round fresh inputs, the reference
    and then the solution on the very same tensors (an in-place reference changes what the
    solution sees, as there), round 0's integrity and structure checks, every round's numbers;
    the first failure ends it."""
    import torch

    from . import integrity
    from .inputs import generate_inputs, normalize_outputs
    from .rules import compare_outputs

    defn, w = run.bundle.definition, run.workload
    worst = Comparison(Status.PASSED)
    inputs: list[Any] = []
    ref_out: list[Any] = []
    threads = 0

    def stop(res: WorkloadResult) -> _Rounds:
        return _Rounds(res, worst, inputs, ref_out, threads)

    for r in range(rounds):
        try:
            inputs = generate_inputs(defn, w, run.dev, run.ns, run.safetensors)
        except Exception as e:  # noqa: BLE001 - RUNTIME_ERROR "gen_inputs failed" there
            return stop(_fail(Status.RUNTIME_ERROR, "inputs",
                              f"round {r}: inputs cannot be generated: {_short_exc(e)}"))
        try:
            with torch.no_grad():
                result = run.ns["run"](*inputs)
            ref_out = normalize_outputs(result, defn.outputs, to_tensor=True, device=run.dev)
        except Exception as e:  # noqa: BLE001 - the reference failed
            return stop(_fail(Status.INVALID_REFERENCE, "reference",
                              f"round {r}: reference failed: {_short_exc(e)}"))
        try:
            sol_out = _call_solution(run, inputs)
        except Exception as e:  # noqa: BLE001 - a kernel fault, a failed TORCH_CHECK
            return stop(_solution_failed(run, r, e))
        if r == 0 and snap is not None:
            try:
                integrity.check_integrity(snap)
            except integrity.RewardHack as e:
                return stop(_fail(Status.REWARD_HACK, f"reward-hack.{e.rule}", f"round 0: {e}"))
            threads = integrity.thread_count()
        c = compare_outputs(sol_out, ref_out, defn.output_names, w.tolerance, r, record)
        worst.max_absolute_error = max(worst.max_absolute_error, c.max_absolute_error)
        worst.max_relative_error = max(worst.max_relative_error, c.max_relative_error)
        worst.error_fraction = max(worst.error_fraction, c.error_fraction)
        worst.matched_ratio = min(worst.matched_ratio, c.matched_ratio)
        if not c.passed:
            corr = Correctness(c.max_absolute_error, c.max_relative_error, c.has_nan, c.has_inf)
            if c.status in (Status.INCORRECT_SHAPE, Status.INCORRECT_DTYPE, Status.REWARD_HACK):
                corr = None
            return stop(_fail(c.status, c.rule, c.message, corr))
    return _Rounds(None, worst, inputs, ref_out, threads)


def _seed_trials(run: _Run, rounds: int, seeds: int, budget_s: float) -> tuple[int, int]:
    """A borderline pass re-run from further seeds, each as the harness would run it (all its
    rounds, the first failure ending it): (seeds tried, seeds failed). Stops at budget_s."""
    from . import stream

    t0 = time.perf_counter()
    tried = failed = 0
    for k in range(1, seeds + 1):
        if tried > 0 and time.perf_counter() - t0 > budget_s:
            break
        stream.seed(stream.SEED + k)
        tried += 1
        failed += _correctness_rounds(run, rounds, None, None).failure is not None
    return tried, failed


SEED_BUDGET_S = 10.0  # seconds a workload's re-runs from further seeds may take


def evaluate_workload(bundle: Bundle, workload_index: int, plan: backends.BuildPlan,
                      rounds: int = DEFAULT_ROUNDS, timing: bool = False,
                      module: Any = None, stream: dict[str, Any] | None = None,
                      replay: list[int] | tuple[int, ...] = (), seeds: int = 0) -> WorkloadResult:
    """Evaluate one workload on plan.backend, continuing the input stream `stream` (None: seed
    it, as for the first workload) after drawing past the workloads `replay`."""
    from . import integrity
    from . import stream as input_stream
    from .inputs import ReferenceError, SafetensorsCache, load_reference, torch_dtype
    from .rules import pass_margin

    import torch

    defn, w = bundle.definition, bundle.workloads[workload_index]
    backend = plan.backend
    dev = torch.device(backend.torch_device)
    input_stream.start(None if stream is None else input_stream.StreamState.from_json(stream))
    try:
        ns = load_reference(defn)
    except ReferenceError as e:
        return _fail(Status.INVALID_REFERENCE, "reference", str(e))
    snap = integrity.snapshot()  # before the solution is imported
    try:
        mod = module if module is not None else backends.load_built(plan)
        fn = getattr(mod, plan.entry_function)
    except Exception as e:  # noqa: BLE001 - any import failure means the build is unusable
        return _fail(Status.COMPILE_ERROR, "build", _short_exc(e))
    try:
        integrity.check_integrity(snap)
    except integrity.RewardHack as e:
        return _fail(Status.REWARD_HACK, f"reward-hack.{e.rule}", f"on import: {e}")
    axes = resolve_axes(defn, w.axes)
    out_specs = [(shape_of(s, axes) or (), torch_dtype(s.dtype)) for s in defn.outputs]
    run = _Run(bundle, w, plan, fn, ns, dev, SafetensorsCache(bundle.problem_dir), out_specs)
    for j in replay:
        wj = bundle.workloads[j]
        input_stream.replay(rounds, lambda wj=wj: _draw(run, wj), ns["run"])
    t0 = time.perf_counter()
    record = HarnessRecord()
    rounds_out = _correctness_rounds(run, rounds, record, snap)
    compute = time.perf_counter() - t0
    after = input_stream.capture().to_json()
    res = rounds_out.failure or _passed(run, rounds_out, timing, compute)
    res.stream_after = after
    if res.status == Status.PASSED.value:
        res.margin = pass_margin(rounds_out.worst.error_fraction, rounds_out.worst.matched_ratio,
                                 w.tolerance.required_matched_ratio)
        if res.margin < RERUN_BELOW and seeds > 0:
            res.seeds_tried, res.seeds_failed = _seed_trials(run, rounds, seeds, SEED_BUDGET_S)
    if not record.writable and res.status in (Status.PASSED.value,
                                              Status.INCORRECT_NUMERICAL.value):
        res.harness, res.harness_note = Agreement.NO_TRACE.value, record.why_not()
    return res


def _draw(run: _Run, w: Any) -> list[Any]:
    from .inputs import generate_inputs

    return generate_inputs(run.bundle.definition, w, run.dev, run.ns, run.safetensors)


def _passed(run: _Run, r: _Rounds, timing: bool, compute: float) -> WorkloadResult:
    """After every round passed: the harness's checks around timing, then the timing."""
    from . import integrity

    backend = run.plan.backend
    corr = Correctness(r.worst.max_absolute_error, r.worst.max_relative_error, False, False)
    perf = None
    try:
        if backend is Backend.CUDA and timing:  # a latency measured on the CPU means nothing
            integrity.check_monkey_patch()
            try:
                perf = _measure(run.fn, run.ns["run"], r.inputs, r.ref_out,
                                run.bundle.solution.destination_passing_style, run.out_specs,
                                backend, run.dev)
            except Exception as e:  # noqa: BLE001 - a fault while timing is a runtime error
                from .timing import KernelSetChanged

                rule = "timing.kernel-set" if isinstance(e, KernelSetChanged) else "timing"
                return WorkloadResult(Status.RUNTIME_ERROR.value, f"timing: {_short_exc(e)}",
                                      corr, rule=rule)
        # the harness counts threads after timing; with no timing, after the last round
        integrity.check_threads(r.threads_after_first, integrity.thread_count())
    except integrity.RewardHack as e:
        return _fail(Status.REWARD_HACK, f"reward-hack.{e.rule}", str(e))
    return WorkloadResult(Status.PASSED.value, "", corr, perf, compute, rule="correctness")


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
    seeds: int = 20  # further seeds for a borderline pass (0: none)


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
    rule: str = ""
    harness: str = Agreement.SAME.value
    harness_note: str = ""
    seeds_tried: int = 0
    seeds_failed: int = 0

    @staticmethod
    def of(w: Any, res: WorkloadResult, seconds: float) -> "Row":
        c = res.correctness
        return Row(w.uuid, w.axes, res.status, None if c is None else c.max_absolute_error,
                   None if c is None else c.max_relative_error, seconds, res.log, res.margin,
                   res.rule, res.harness, res.harness_note, res.seeds_tried, res.seeds_failed)


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
    notes: list[str] = field(default_factory=list)  # what the harness accepts but may surprise

    @property
    def ran(self) -> list[Row]:
        return [r for r in self.rows if r.status != "SKIPPED"]

    @property
    def ok(self) -> bool:
        """Every workload run passed, and the harness could write each one's trace."""
        ran = self.ran
        return len(ran) > 0 and all(r.status == Status.PASSED.value and
                                    r.harness != Agreement.NO_TRACE.value for r in ran)

    def summary(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for r in self.rows:
            counts[r.status] = counts.get(r.status, 0) + 1
        return {
            "definition": self.definition, "solution": self.solution, "device": self.device,
            "backend": self.backend.value, "ok": self.ok, "counts": counts,
            "skipped": self.skipped, "build_seconds": round(self.build_seconds, 3),
            "notes": self.notes,
            "workloads": [
                {"uuid": r.uuid, "axes": r.axes, "status": r.status,
                 "max_absolute_error": _opt_float(r.max_absolute_error),
                 "max_relative_error": _opt_float(r.max_relative_error),
                 "seconds": round(r.seconds, 3),
                 "margin": _opt_float(r.margin),
                 "borderline": is_borderline(r.margin, r.seeds_failed),
                 "seeds": {"tried": r.seeds_tried, "failed": r.seeds_failed},
                 "rule": r.rule, "harness": r.harness, "harness_note": r.harness_note,
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
    if opts.seeds < 0:
        raise CheckError("--seeds must be 0 or more")
    backend = resolve_backend(opts.device)
    device_name, capability = backend.device_facts()
    plan = backends.plan_build(bundle.solution, backend, opts.cache_dir, device_name, capability)
    env = environment(device_name, backend)
    env["hardware"] = backend.hardware(bundle.solution.target_hardware, device_name)
    report = CheckReport(bundle.definition.name, bundle.solution.name, device_name, backend)

    sizes = [workload_elements(bundle.definition, w) for w in bundle.workloads]
    chosen = sorted(range(len(bundle.workloads)), key=lambda i: (sizes[i], i))
    if opts.workloads is not None:
        if opts.workloads < 1:
            raise CheckError("--workloads must be at least 1")
        chosen = chosen[: opts.workloads]
    for w in bundle.workloads:
        report.notes += [f"{w.uuid[:8]} (line {w.line}): {n}" for n in w.notes]

    ok, build_log, build_s = _build(plan, opts)
    report.build_seconds, report.build_log = build_s, build_log
    budget = _Budget(opts.max_seconds, backend, opts.rounds)
    # In the harness's order (workload.jsonl's), one input stream: each workload continues
    # where the last one evaluated left it, after drawing past those not evaluated here.
    stream: dict[str, Any] | None = None
    replay: list[int] = []
    order = sorted(chosen)
    previous = -1
    for done, i in enumerate(order, start=1):
        replay += range(previous + 1, i)  # the workloads between, not chosen here
        previous = i
        w = bundle.workloads[i]
        if not ok:
            res = WorkloadResult(Status.COMPILE_ERROR.value, build_log[-4000:], rule="build")
            wall = 0.0
        elif not budget.allows(sizes[i]):
            report.skipped.append(w.uuid)
            report.rows.append(Row(w.uuid, w.axes, "SKIPPED", None, None, 0.0,
                                   f"predicted {budget.predict(sizes[i]):.1f} s exceeds the "
                                   f"--max-seconds budget"))
            replay.append(i)
            if progress:
                progress(done, len(order), w.uuid, "SKIPPED")
            continue
        else:
            res, wall = _run_one(bundle, i, plan, opts, stream, replay)
            budget.record(sizes[i], wall, res.compute_seconds)
            if res.stream_after is not None:
                stream, replay = res.stream_after, []
            else:  # its process died: the next one draws past it from the same place
                replay.append(i)
        ev = Evaluation(res.status, res.log, res.correctness, res.performance, dict(env))
        report.traces.append(make_trace(bundle.definition.name, bundle.solution.name, w, ev,
                                        _solbench_fields(res)))
        report.rows.append(Row.of(w, res, wall))
        if progress:
            progress(done, len(order), w.uuid, res.status)
    return report


def _solbench_fields(res: WorkloadResult) -> dict[str, Any]:
    """What solbench adds to a trace beside the harness's fields."""
    return {"rule": res.rule, "harness": res.harness, "harness_note": res.harness_note,
            "margin": None if res.margin is None else _json_float(res.margin),
            "borderline": is_borderline(res.margin, res.seeds_failed),
            "seeds": {"tried": res.seeds_tried, "failed": res.seeds_failed}}


def _run_one(bundle: Bundle, index: int, plan: backends.BuildPlan, opts: CheckOptions,
             stream: dict[str, Any] | None, replay: list[int]) -> tuple[WorkloadResult, float]:
    t0 = time.monotonic()
    if not opts.isolate:
        res = evaluate_workload(bundle, index, plan, opts.rounds, opts.timing, stream=stream,
                                replay=replay, seeds=opts.seeds)
        return res, time.monotonic() - t0
    job = WorkerJob.evaluate(plan, bundle.bundle_dir, bundle.problem_dir, index, opts.rounds,
                             opts.timing, stream, replay, opts.seeds)
    out = run_worker(job, opts.timeout_s)
    if out.kind == "timeout":
        return WorkloadResult(Status.TIMEOUT.value, f"{out.describe()}\n{out.output}",
                              rule="timeout", harness=Agreement.STRICTER.value,
                              harness_note="solbench's limit per workload (--timeout); the "
                              "harness limits only the whole run"), out.wall_seconds
    if out.kind == "crash" or out.result is None:
        note = (GUARD_PAGE_NOTE + " (it killed the process)" if plan.backend is Backend.CPU else
                "the process died: the harness's driver would die with it and write no trace "
                "for this workload or any after it")
        agreement = Agreement.STRICTER if plan.backend is Backend.CPU else Agreement.NO_TRACE
        return (WorkloadResult(Status.RUNTIME_ERROR.value, f"{out.describe()}\n{out.output}",
                               rule="process-died", harness=agreement.value, harness_note=note),
                out.wall_seconds)
    return WorkloadResult.from_json(out.result), out.wall_seconds
