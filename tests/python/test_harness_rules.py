"""`solgen check` follows the harness's order of things (issue 17), one rule per test.

Each test names the harness behaviour it mirrors (SOL-ExecBench v1.0.2: file and function) and
uses a probe that tells the right behaviour from the wrong one. The solutions are Python stand-ins
(FakeModule) run in this process, so the probes need no build.
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
import torch

from solbench.conformance import backends, coerce, integrity, rules, runner
from solbench.conformance.backends import Backend
from solbench.conformance.problem import BundleError, load_bundle, load_solution
from solbench.conformance.rules import Agreement

SCALE = Path(__file__).parent / "bundles" / "scale"  # y = x * scale, x [rows, 64] fp32


class FakeModule:
    def __init__(self, fn: Any) -> None:
        self.run = fn


def _bundle(tmp_path: Path, workloads: list[dict[str, Any]] | None = None,
            definition: dict[str, Any] | None = None) -> Path:
    """A copy of the scale bundle, its workloads and definition optionally replaced."""
    b = tmp_path / "scale"
    shutil.copytree(SCALE, b)
    if workloads is not None:
        (b / "workload.jsonl").write_text("".join(json.dumps(w) + "\n" for w in workloads))
    if definition is not None:
        (b / "definition.json").write_text(json.dumps(definition))
    return b


def _workload(rows: int, scale: Any = None, **extra: Any) -> dict[str, Any]:
    inputs: dict[str, Any] = {"x": {"type": "random"}}
    inputs["scale"] = {"type": "random"} if scale is None else {"type": "scalar", "value": scale}
    return {"uuid": f"w{rows}-{scale}", "axes": {"rows": rows}, "inputs": inputs, **extra}


def _evaluate(bundle_dir: Path, fn: Any, index: int = 0, rounds: int = 3, dps: bool = True,
              reference: str | None = None, **kw: Any) -> runner.WorkloadResult:
    b = load_bundle(bundle_dir)
    b.solution.destination_passing_style = dps
    if reference is not None:
        b.definition.reference = reference
    plan = backends.plan_build(b.solution, Backend.CPU, Path("/nonexistent"))
    return runner.evaluate_workload(b, index, plan, rounds, module=FakeModule(fn), **kw)


def _check(bundle_dir: Path, fn: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
           **opts: Any) -> runner.CheckReport:
    monkeypatch.setattr(runner, "_build", lambda plan, o: (True, "", 0.0))
    monkeypatch.setattr(backends, "load_built", lambda plan: FakeModule(fn))
    monkeypatch.setattr(backends, "cpu_backend_available", lambda: True)
    return runner.run_check(runner.CheckOptions(bundle_dir, device=Backend.CPU, isolate=False,
                                                cache_dir=tmp_path / "cache", **opts))


def exact(x: torch.Tensor, s: float, y: torch.Tensor) -> None:
    y.copy_(x * s)


# --- the input stream -------------------------------------------------------------------------


def _harness_stream(rows_and_scales: list[tuple[int, Any]], rounds: int) -> list[list[Any]]:
    """The inputs the harness draws, written out: seed 200 once (correctness.py, set_seed, called
    by eval_driver.py before its workload loop), then per workload, per round, each input in
    definition order (io.py, gen_inputs): x = randn(rows, 64), scale = randn(()).item() when
    random."""
    torch.manual_seed(200)
    out = []
    for rows, scale in rows_and_scales:
        rounds_seen = []
        for _ in range(rounds):
            x = torch.randn(rows, 64)
            s = torch.randn(()).item() if scale is None else scale
            rounds_seen.append((x, s))
        out.append(rounds_seen)
    return out


def _recorder() -> tuple[list[tuple[torch.Tensor, float]], Any]:
    seen: list[tuple[torch.Tensor, float]] = []

    def fn(x: torch.Tensor, s: float, y: torch.Tensor) -> None:
        seen.append((x.clone(), s))
        y.copy_(x * s)

    return seen, fn


def test_one_stream_across_workloads_as_the_harness_draws_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plan = [(3, None), (1, 0.5), (9, -2.0)]
    bundle = _bundle(tmp_path, [_workload(r, s) for r, s in plan])
    want = _harness_stream(plan, rounds=2)
    seen, fn = _recorder()
    rep = _check(bundle, fn, monkeypatch, tmp_path, rounds=2)
    assert rep.ok and [r.axes["rows"] for r in rep.rows] == [3, 1, 9]
    got = [seen[i:i + 2] for i in range(0, 6, 2)]
    for w_got, w_want in zip(got, want):
        for (x, s), (wx, ws) in zip(w_got, w_want):
            assert torch.equal(x, wx) and s == ws
    # reseeding per workload (what solgen check did before) would draw workload 2's first x
    # as torch.manual_seed(200); randn(1, 64): not the harness's
    torch.manual_seed(200)
    assert not torch.equal(got[1][0][0], torch.randn(1, 64))


def test_a_subset_of_workloads_still_sees_the_harness_inputs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # --workloads 1 evaluates only rows=1, the file's second: the first is drawn past (replayed)
    plan = [(3, None), (1, 0.5), (9, -2.0)]
    bundle = _bundle(tmp_path, [_workload(r, s) for r, s in plan])
    want = _harness_stream(plan, rounds=2)
    seen, fn = _recorder()
    rep = _check(bundle, fn, monkeypatch, tmp_path, rounds=2, workloads=1)
    assert [r.axes["rows"] for r in rep.rows] == [1]
    assert len(seen) == 2 and all(torch.equal(x, wx) for (x, _), (wx, _) in zip(seen, want[1]))


def test_the_stream_survives_the_process_boundary(tmp_path: Path) -> None:
    # each workload runs in its own process: the state it hands on must continue the stream
    bundle = _bundle(tmp_path, [_workload(3), _workload(2)])
    first = _evaluate(bundle, exact, 0, rounds=2)
    assert first.stream_after is not None
    json.dumps(first.stream_after)  # it travels as JSON
    seen, fn = _recorder()
    _evaluate(bundle, fn, 1, rounds=1, stream=first.stream_after)
    want = _harness_stream([(3, None), (2, None)], rounds=2)
    assert torch.equal(seen[0][0], want[1][0][0]) and seen[0][1] == want[1][0][1]


# --- the reference and the solution share their inputs ------------------------------------------


def test_an_in_place_reference_changes_what_the_solution_sees(tmp_path: Path) -> None:
    # eval_driver.py: the reference and then the solution are called on the same _inputs (no
    # clone), so a reference that updates an input in place hands the solution the new values
    # (FlashInfer's fused add + RMSNorm updates `residual`). The harness fails this solution.
    reference = ("import torch\n\ndef run(x, scale):\n    y = x * scale\n    x.add_(1.0)\n"
                 "    return y\n")
    r = _evaluate(_bundle(tmp_path), exact, reference=reference)
    assert r.status == "INCORRECT_NUMERICAL" and r.rule == "correctness.tolerance"
    # the same reference without the update passes: the failure is the shared input's
    r = _evaluate(_bundle(tmp_path / "b"), exact,
                  reference="def run(x, scale):\n    return x * scale\n")
    assert r.status == "PASSED"


# --- pydantic's coercions and defaults ----------------------------------------------------------


def test_values_are_coerced_as_pydantic_coerces_them() -> None:
    # core/data/workload.py ScalarInput.value: Union[int, float, bool]; NonNegativeInt axes
    assert coerce.scalar("1e-05") == 1e-05 and isinstance(coerce.scalar("1e-05"), float)
    assert coerce.scalar("4096") == 4096 and isinstance(coerce.scalar("4096"), int)
    assert coerce.scalar("true") is True and coerce.scalar(0.5) == 0.5
    with pytest.raises(coerce.CoercionError):
        coerce.scalar("about one")
    assert coerce.size("4096") == 4096 and coerce.size(7.0) == 7
    assert coerce.size(-1) is None and coerce.size(7.5) is None and coerce.size("x") is None


def test_a_scalar_written_as_a_string_is_a_number(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, [_workload(2, "0.5", tolerance={"max_atol": "1e-05"})])
    b = load_bundle(bundle)
    assert b.workloads[0].inputs["scale"]["value"] == 0.5
    assert b.workloads[0].tolerance.max_atol == 1e-05
    seen, fn = _recorder()
    assert _evaluate(bundle, fn).status == "PASSED"
    assert all(s == 0.5 and isinstance(s, float) for _, s in seen)  # never the string "0.5"


def test_an_input_the_workload_does_not_describe_is_random(tmp_path: Path) -> None:
    # io.py, gen_inputs: an input missing from workload.inputs takes the random branch
    w = _workload(2, 0.5)
    del w["inputs"]["x"]
    bundle = _bundle(tmp_path, [w])
    assert any("'x' is not described" in n for n in load_bundle(bundle).workloads[0].notes)
    seen, fn = _recorder()
    assert _evaluate(bundle, fn, rounds=1).status == "PASSED"
    torch.manual_seed(200)
    assert torch.equal(seen[0][0], torch.randn(2, 64))


def test_an_empty_author_is_rejected_as_the_harness_rejects_it(tmp_path: Path) -> None:
    # core/data/solution.py, Solution.author: NonEmptyString
    sol = json.loads((SCALE / "solution.json").read_text())
    for author in ("", None):
        sol["author"] = author
        (tmp_path / "solution.json").write_text(json.dumps(sol))
        with pytest.raises(BundleError, match="author"):
            load_solution(tmp_path / "solution.json")


def test_random_float64_inputs_are_a_runtime_error(tmp_path: Path) -> None:
    # io.py, _rand_tensor has no float64 rule; eval_driver.py reports "gen_inputs failed" as
    # RUNTIME_ERROR
    d = json.loads((SCALE / "definition.json").read_text())
    d["inputs"]["x"]["dtype"] = "float64"
    d["outputs"]["y"]["dtype"] = "float64"
    r = _evaluate(_bundle(tmp_path, definition=d), exact)
    assert r.status == "RUNTIME_ERROR" and r.rule == "inputs" and "float64" in r.log


# --- the harness's own failure: no trace --------------------------------------------------------


def test_max_atol_zero_with_an_inexact_kernel_leaves_the_harness_without_a_trace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # correctness.py, compute_error_stats: max_relative_error divides by max(|ref|, max_atol);
    # eval_driver.py, _emit: json.dumps(allow_nan=False). With max_atol 0, a reference of zeros
    # and one inexact element the kept figure is NaN and the driver fails writing the trace.
    tol = {"max_atol": 0.0, "max_rtol": 1e-2, "required_matched_ratio": 0.9}
    bundle = _bundle(tmp_path, [_workload(2, 0.0, tolerance=tol)])

    def one_off(x: torch.Tensor, s: float, y: torch.Tensor) -> None:
        y.copy_(x * s)
        y[0, 0] = 1e-3

    rep = _check(bundle, one_off, monkeypatch, tmp_path, rounds=2)
    row = rep.rows[0]
    assert row.status == "PASSED"  # 1 of 128 elements off, 0.9 matched is enough
    assert row.harness == Agreement.NO_TRACE.value and "allow_nan=False" in row.harness_note
    assert not rep.ok
    # the exact kernel: the harness keeps no figure (max abs 0) and writes its trace
    rep = _check(_bundle(tmp_path / "e", [_workload(2, 0.0, tolerance=tol)]), exact,
                 monkeypatch, tmp_path, rounds=2)
    assert rep.ok and rep.rows[0].harness == Agreement.SAME.value


# --- reward-hack checks --------------------------------------------------------------------------


class Lazy(torch.Tensor):
    pass


def test_an_output_that_is_not_exactly_a_tensor_is_a_reward_hack(tmp_path: Path) -> None:
    # reward_hack.py, check_lazy_outputs: type(t) is torch.Tensor, round 0
    r = _evaluate(_bundle(tmp_path), lambda x, s: (x * s).as_subclass(Lazy), dps=False)
    assert r.status == "REWARD_HACK" and r.rule == "reward-hack.lazy-outputs"
    r = _evaluate(_bundle(tmp_path / "p"), lambda x, s: torch.nn.Parameter(x * s, False),
                  dps=False)
    assert r.status == "REWARD_HACK"
    # a Python scalar is made a tensor first, as the harness's normalize_outputs does
    r = _evaluate(_bundle(tmp_path / "s", [_workload(1, 0.5)]), lambda x, s: x * s, dps=False)
    assert r.status == "PASSED"


def test_replacing_an_evaluation_function_is_a_reward_hack(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # reward_hack.py, snapshot_critical_functions / check_eval_integrity, after round 0
    def cheat(x: torch.Tensor, s: float, y: torch.Tensor) -> None:
        monkeypatch.setattr(rules, "compare_values",
                            lambda name, x, y, tol: rules.Comparison(rules.Status.PASSED))
        y.zero_()

    r = _evaluate(_bundle(tmp_path), cheat)
    assert r.status == "REWARD_HACK" and r.rule == "reward-hack.integrity"
    assert "compare_values" in r.log


def test_a_solution_that_starts_threads_is_a_reward_hack(tmp_path: Path) -> None:
    # reward_hack.py, check_thread_injection: more threads after the calls than after round 0
    calls = []
    stop = threading.Event()

    def spawner(x: torch.Tensor, s: float, y: torch.Tensor) -> None:
        calls.append(1)
        if len(calls) == 2:
            threading.Thread(target=stop.wait, daemon=True).start()
        y.copy_(x * s)

    try:
        r = _evaluate(_bundle(tmp_path), spawner)
    finally:
        stop.set()
    assert r.status == "REWARD_HACK" and r.rule == "reward-hack.thread-injection"


def test_a_patched_elapsed_time_is_a_reward_hack(monkeypatch: pytest.MonkeyPatch) -> None:
    # reward_hack.py, check_monkey_patch: torch.cuda.Event.elapsed_time's identity, before timing
    integrity.check_monkey_patch()
    monkeypatch.setattr(torch.cuda.Event, "elapsed_time", lambda self, end: 0.001)
    with pytest.raises(integrity.RewardHack) as e:
        integrity.check_monkey_patch()
    assert e.value.rule == "monkey-patch"


# --- what solbench adds: stricter verdicts, margins and seeds -----------------------------------


def test_stricter_verdicts_say_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from solbench.conformance.isolation import Outcome

    bundle = _bundle(tmp_path)
    b = load_bundle(bundle)
    plan = backends.plan_build(b.solution, Backend.CPU, tmp_path)
    opts = runner.CheckOptions(bundle, device=Backend.CPU)
    for kind, status in (("timeout", "TIMEOUT"), ("crash", "RUNTIME_ERROR")):
        monkeypatch.setattr(runner, "run_worker",
                            lambda job, limit, kind=kind: Outcome(kind, None, -11, "", 1.0))
        res, _ = runner._run_one(b, 0, plan, opts, None, [])
        assert res.status == status and res.harness == Agreement.STRICTER.value
        assert res.harness_note and res.stream_after is None


def test_a_borderline_pass_is_rerun_on_further_seeds(tmp_path: Path) -> None:
    # one element off by |x[0, 0]| times its bound (atol 1e-3): it fails where |x[0, 0]| > 1,
    # which seed 200's first draw (-0.98) is not, and some of the next 20 seeds' are
    tol = {"max_atol": 1e-3, "max_rtol": 0.0, "required_matched_ratio": 1.0}
    bundle = _bundle(tmp_path, [_workload(4, 1.0, tolerance=tol)])

    def off_by_x00(x: torch.Tensor, s: float, y: torch.Tensor) -> None:
        y.copy_(x * s)
        y[0, 0] += 1e-3 * abs(float(x[0, 0]))

    r = _evaluate(bundle, off_by_x00, rounds=1, seeds=20)
    assert r.status == "PASSED" and r.margin is not None and r.margin < rules.BORDERLINE
    assert r.seeds_tried == 20 and 0 < r.seeds_failed < 20
    # a wide margin is not re-run
    wide = _evaluate(bundle, exact, rounds=1, seeds=20)
    assert wide.status == "PASSED" and wide.seeds_tried == 0


def test_the_table_says_borderline_with_its_failure_rate() -> None:
    from solbench.conformance.cli import _fmt_margin

    w = {"margin": 1.2, "borderline": True, "seeds": {"tried": 20, "failed": 3}}
    assert _fmt_margin(w) == "1.2x, borderline: fails 3 of 20 seeds"
    assert _fmt_margin({"margin": 12.0, "borderline": False}) == "12x"


def test_a_replayed_workload_draws_without_calling_the_solution(tmp_path: Path) -> None:
    # replaying workload 0 draws its inputs and runs its reference; only workload 1 calls the
    # solution, once per round
    bundle = _bundle(tmp_path, [_workload(64), _workload(1)])
    calls = []
    _evaluate(bundle, lambda x, s, y: calls.append(1) or y.copy_(x * s), 1, rounds=10,
              replay=[0])
    assert len(calls) == 10


def test_a_changing_set_of_kernels_is_a_runtime_error() -> None:
    # timing.py, bench_gpu_time_with_cupti: the kernels of each timed call must be the same
    # (a solution that caches on pointers and skips work on later calls is caught); the
    # profiling itself needs a GPU, the rule is checked here on lists of kernel names
    from solbench.conformance import timing

    timing.check_same_kernels([["rms_kernel", "copy"], ["copy", "rms_kernel"]])  # order free
    with pytest.raises(timing.KernelSetChanged, match="changed"):
        timing.check_same_kernels([["rms_kernel"], ["rms_kernel"], []])
