"""The runner: build flags, isolation, traces, the CLI, and end-to-end checks on the CPU."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from solbench.exit_codes import Exit
import torch

from conftest import cuda_host_missing_reason
from solbench.conformance import backends, runner
from solbench.conformance.backends import Backend
from solbench.conformance.cli import main as cli_main
from solbench.conformance.isolation import JobMode, WorkerJob, run_command
from solbench.conformance.problem import load_bundle
from solbench.conformance.trace import Correctness, Evaluation, make_trace, write_traces

# --- build flags and the plan ---------------------------------------------------------------------


def test_gencode_injection_rules() -> None:
    base = ["-O3", "--use_fast_math"]
    assert backends.cuda_flags_for(base, "B200", (10, 0)) == [
        "-gencode=arch=compute_100a,code=sm_100a", "-O3", "--use_fast_math"]
    assert backends.cuda_flags_for(base, "LOCAL", (9, 0))[0] == "-gencode=arch=compute_90,code=sm_90"
    assert backends.cuda_flags_for(base, "LOCAL", (12, 0))[0] == (
        "-gencode=arch=compute_120,code=sm_120")
    own = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]
    assert backends.cuda_flags_for(own, "B200", (10, 0)) == own
    assert backends.cuda_flags_for(["-arch=sm_80"], "LOCAL", (9, 0)) == ["-arch=sm_80"]
    assert backends.select_hardware(["B200", "LOCAL"], "NVIDIA B200") == "B200"
    assert backends.select_hardware(["B200", "LOCAL"], "NVIDIA H200") == "LOCAL"
    assert backends.select_hardware(["B200"], "NVIDIA H100 80GB HBM3") == "B200"


def test_plan_is_content_addressed(tmp_path: Path, scale_bundle: Path, bundles_dir: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLBENCH_CACHE", str(tmp_path))
    good = load_bundle(scale_bundle).solution
    wrong = load_bundle(bundles_dir / "scale_wrong", scale_bundle).solution
    p1, p2 = backends.plan_build(good, Backend.CPU), backends.plan_build(good, Backend.CPU)
    assert p1.name == p2.name and p1.name.startswith("benchmark_kernel_")
    assert Path(p1.build_dir).parent == tmp_path / "cpu"  # the cache layout: <cache>/cpu/<name>
    assert backends.plan_build(wrong, Backend.CPU).name != p1.name
    gpu = backends.plan_build(good, Backend.CUDA, tmp_path, "NVIDIA H200", (9, 0))
    assert gpu.name != p1.name and gpu.cuda_cflags[0].endswith("code=sm_90")
    assert Path(gpu.build_dir).parent == tmp_path / "cuda"
    assert gpu.ldflags == ["-lcuda"] and p1.ldflags == []
    assert gpu.to_json()["backend"] == "cuda"
    assert backends.BuildPlan.from_json(json.loads(json.dumps(gpu.to_json()))) == gpu


def test_backend_names_and_policy() -> None:
    assert Backend.parse("cpu") is Backend.CPU and Backend.parse("cuda") is Backend.CUDA
    with pytest.raises(ValueError, match="cpu or cuda"):
        Backend.parse("tpu")
    assert Backend.CUDA.build_timeout_s == backends.BUILD_TIMEOUT_S
    assert Backend.CPU.build_timeout_s == backends.CPU_BUILD_TIMEOUT_S
    assert Backend.CPU.hardware(["B200", "LOCAL"], "cpu") == "CPU"
    assert Backend.CUDA.hardware(["B200", "LOCAL"], "NVIDIA H200") == "LOCAL"
    assert runner.parse_device("auto") is None and runner.parse_device("cpu") is Backend.CPU
    with pytest.raises(runner.CheckError, match="auto, cpu or cuda"):
        runner.parse_device("tpu")


def test_worker_job_round_trips(tmp_path: Path, scale_bundle: Path) -> None:
    plan = backends.plan_build(load_bundle(scale_bundle).solution, Backend.CPU, tmp_path)
    build = WorkerJob.build(plan, scale_bundle, None)
    ev = WorkerJob.evaluate(plan, scale_bundle, scale_bundle, 2, 10, True)
    for job in (build, ev):
        assert WorkerJob.from_json(json.loads(json.dumps(job.to_json()))) == job
    assert build.mode is JobMode.BUILD and build.to_json()["mode"] == "build"
    assert ev.mode is JobMode.EVAL and ev.to_json()["plan"]["backend"] == "cpu"


def test_stage_sources_keeps_layout_and_compiles_top_level(tmp_path: Path,
                                                            scale_bundle: Path) -> None:
    from solbench.conformance.problem import Source

    sol = load_bundle(scale_bundle).solution
    sol.sources.append(Source("inc/helper.cuh", "// helper\n"))
    built = backends.stage_sources(sol, tmp_path)
    assert built == [str(tmp_path / "kernel.cu")]
    assert (tmp_path / "inc" / "helper.cuh").read_text() == "// helper\n"


def test_bundle_solution_json_matches_kernel_files(bundles_dir: Path) -> None:
    for name in ("scale", "scale_wrong", "scale_crash"):
        sol = json.loads((bundles_dir / name / "solution.json").read_text())
        assert sol["sources"][0]["content"] == (bundles_dir / name / "kernel.cu").read_text(), (
            f"run tests/python/bundles/sync_solutions.py ({name})")


# --- isolation ------------------------------------------------------------------------------------


def _py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_child_result_crash_and_timeout(tmp_path: Path) -> None:
    res = tmp_path / "r.json"
    ok = run_command(_py(f"open({str(res)!r}, 'w').write('{{\"status\": \"PASSED\"}}')"), res, 30)
    assert ok.kind == "ok" and ok.result == {"status": "PASSED"}

    crash = run_command(_py("import os; print('dying'); os.abort()"), tmp_path / "none.json", 30)
    assert crash.kind == "crash" and "SIGABRT" in crash.describe() and "dying" in crash.output

    segv = run_command(_py("import ctypes; ctypes.string_at(0)"), tmp_path / "none.json", 30)
    assert segv.kind == "crash" and "SIGSEGV" in segv.describe()

    hang = run_command(_py("import time; time.sleep(60)"), tmp_path / "none.json", 1.0)
    assert hang.kind == "timeout" and hang.wall_seconds < 30


# --- traces ---------------------------------------------------------------------------------------


def test_trace_shape(tmp_path: Path, scale_bundle: Path) -> None:
    b = load_bundle(scale_bundle)
    ev = Evaluation("INCORRECT_NUMERICAL", "round 0: NaN",
                    Correctness(float("nan"), float("inf"), True, False), None,
                    {"device": "cpu", "torch": torch.__version__, "backend": "cpu"})
    t = make_trace("scale_rows_c64", "scale_rows_ok", b.workloads[0], ev)
    write_traces(tmp_path / "t.jsonl", [t, t])
    lines = (tmp_path / "t.jsonl").read_text().splitlines()
    assert len(lines) == 2
    rec = json.loads(lines[0])  # strict JSON: NaN is written as a string
    assert set(rec) == {"definition", "solution", "workload", "evaluation"}
    assert rec["workload"] == {"uuid": b.workloads[0].uuid, "axes": {"rows": 3},
                               "inputs": {"x": {"type": "random"}, "scale": {"type": "random"}}}
    e = rec["evaluation"]
    assert set(e) == {"status", "log", "correctness", "performance", "environment", "timestamp"}
    assert e["correctness"] == {"max_absolute_error": "NaN", "max_relative_error": "Infinity",
                                "has_nan": True, "has_inf": False}
    assert e["performance"] is None and e["environment"]["backend"] == "cpu"


# --- the evaluation loop, in process, with Python stand-ins for the compiled module -------------


class FakeModule:
    def __init__(self, fn: Any) -> None:
        self.run = fn


def _eval(bundle_dir: Path, fn: Any, index: int = 0, rounds: int = 10, dps: bool = True,
          reference: str | None = None) -> runner.WorkloadResult:
    b = load_bundle(bundle_dir)
    b.solution.destination_passing_style = dps
    if reference is not None:
        b.definition.reference = reference
    plan = backends.plan_build(b.solution, Backend.CPU, Path("/nonexistent"))
    return runner.evaluate_workload(b, index, plan, rounds, module=FakeModule(fn))


def test_in_process_statuses(scale_bundle: Path) -> None:
    calls: list[float] = []

    def good(x: torch.Tensor, scale: float, y: torch.Tensor) -> None:
        calls.append(scale)
        y.copy_(x * scale)

    r = _eval(scale_bundle, good)
    assert r.status == "PASSED" and r.correctness is not None
    assert r.correctness.max_absolute_error <= 1e-6
    assert len(calls) == 10 and len(set(calls)) == 10  # fresh random scalars every round

    r = _eval(scale_bundle, lambda x, s, y: y.copy_(x * s + 1e-3))
    assert r.status == "INCORRECT_NUMERICAL" and abs(r.correctness.max_absolute_error - 1e-3) < 1e-5

    def raises(x: torch.Tensor, s: float, y: torch.Tensor) -> None:
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    r = _eval(scale_bundle, raises)
    assert r.status == "RUNTIME_ERROR" and "illegal memory access" in r.log

    r = _eval(scale_bundle, lambda x, s, y: None)  # never writes: garbage or zeros
    assert r.status == "INCORRECT_NUMERICAL"

    r = _eval(scale_bundle, good, reference="def run(x, scale):\n    raise ValueError('bad')\n")
    assert r.status == "INVALID_REFERENCE" and "bad" in r.log


def test_in_process_return_style(scale_bundle: Path) -> None:
    r = _eval(scale_bundle, lambda x, s: x * s, dps=False)
    assert r.status == "PASSED"
    r = _eval(scale_bundle, lambda x, s: (x * s).half(), dps=False)
    assert r.status == "INCORRECT_DTYPE"
    r = _eval(scale_bundle, lambda x, s: (x * s).flatten(), dps=False)
    assert r.status == "INCORRECT_SHAPE"
    # two values for one output: the harness's normalize_outputs raises (core/bench/io.py), and
    # a failure inside the solution's call is a RUNTIME_ERROR there (eval_driver.py)
    r = _eval(scale_bundle, lambda x, s: (x * s, x), dps=False)
    assert r.status == "RUNTIME_ERROR" and r.rule == "solution-error"
    r = _eval(scale_bundle, lambda x, s: (x * s).tolist(), dps=False)
    assert r.status != "PASSED"


def test_run_check_orders_limits_and_budgets(scale_bundle: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "_build", lambda plan, opts: (True, "", 0.0))
    monkeypatch.setattr(backends, "load_built",
                        lambda plan: FakeModule(lambda x, s, y: y.copy_(x * s)))
    monkeypatch.setattr(backends, "cpu_backend_available", lambda: True)
    opts = runner.CheckOptions(scale_bundle, device=Backend.CPU, isolate=False, rounds=2,
                               cache_dir=tmp_path)
    rep = runner.run_check(opts)
    assert [r.axes["rows"] for r in rep.rows] == [3, 1, 9]  # the harness's order: the file's
    assert rep.ok and len(rep.traces) == 3
    assert runner.run_check(runner.CheckOptions(scale_bundle, device=Backend.CPU, isolate=False,
                                                workloads=1, cache_dir=tmp_path)).rows[0].axes == {
        "rows": 1}
    # a budget too small for anything: all skipped, nothing ran, so not ok
    tiny = runner.run_check(runner.CheckOptions(scale_bundle, device=Backend.CPU, isolate=False,
                                                max_seconds=0.001, cache_dir=tmp_path))
    assert [r.status for r in tiny.rows] == ["SKIPPED"] * 3 and not tiny.ok
    assert tiny.traces == [] and len(tiny.skipped) == 3
    # a failed build: every workload is a COMPILE_ERROR
    monkeypatch.setattr(runner, "_build", lambda plan, opts: (False, "error: boom", 1.0))
    bad = runner.run_check(opts)
    assert {r.status for r in bad.rows} == {"COMPILE_ERROR"} and "boom" in bad.rows[0].log


def test_budget_extrapolates_from_measurements() -> None:
    b = runner._Budget(100.0, Backend.CPU, rounds=10)
    b.record(elements=1000, wall=3.0, compute=1.0)  # 1e-4 s per element-round, 2 s overhead
    assert b.predict(1000) == pytest.approx(3.0)
    assert b.allows(90_000)  # 3 + 2 + 90 = 95 <= 100
    assert not b.allows(100_000)  # 3 + 2 + 100 > 100
    assert runner._Budget(None, Backend.CPU, 10).allows(10**12)


# --- the CLI --------------------------------------------------------------------------------------


def test_cli_usage_and_bundle_errors(tmp_path: Path, scale_bundle: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main([]) == Exit.USAGE
    assert cli_main([str(scale_bundle), "--device", "tpu"]) == Exit.USAGE
    assert cli_main([str(tmp_path)]) == Exit.REJECTED
    assert "solution.json: file not found" in capsys.readouterr().err
    (tmp_path / "solution.json").write_text("{\n  nope\n}")
    assert cli_main([str(tmp_path), "--problem", str(scale_bundle)]) == Exit.REJECTED
    assert "solution.json:2:3: invalid JSON" in capsys.readouterr().err


def test_main_dispatch() -> None:
    from solbench.cli import main

    assert main(["check", "/nonexistent/bundle"]) == Exit.REJECTED  # a bundle error
    assert main(["frobnicate"]) == Exit.USAGE  # not an op file and no --out


# --- end to end on the CPU (needs solbench.cuda_host) ---------------------------------------------

_NO_HOST = cuda_host_missing_reason()
needs_host = pytest.mark.skipif(_NO_HOST is not None, reason=_NO_HOST or "")


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("solbench-cache")


def _check(bundle: Path, problem: Path, cache: Path, out: Path, *extra: str,
           monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    monkeypatch.setenv("SOLBENCH_CACHE", str(cache))
    rc = cli_main([str(bundle), "--problem", str(problem), "--device", "cpu", "--json",
                   "-o", str(out), "--timeout", "120", *extra])
    return rc, json.loads(capsys.readouterr().out)


@needs_host
def test_e2e_good_bundle_passes(scale_bundle: Path, shared_cache: Path, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    rc, summary = _check(scale_bundle, scale_bundle, shared_cache, tmp_path / "t.jsonl",
                         monkeypatch=monkeypatch, capsys=capsys)
    assert rc == 0, summary
    assert [w["status"] for w in summary["workloads"]] == ["PASSED"] * 3
    traces = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert len(traces) == 3 and traces[0]["evaluation"]["status"] == "PASSED"
    assert traces[0]["evaluation"]["correctness"]["max_absolute_error"] <= 1e-5


@needs_host
def test_e2e_wrong_bundle_is_incorrect_numerical(scale_bundle: Path, bundles_dir: Path,
                                                 shared_cache: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rc, summary = _check(bundles_dir / "scale_wrong", scale_bundle, shared_cache,
                         tmp_path / "t.jsonl", "--workloads", "2", monkeypatch=monkeypatch,
                         capsys=capsys)
    assert rc == 1
    assert [w["status"] for w in summary["workloads"]] == ["INCORRECT_NUMERICAL"] * 2


@needs_host
def test_e2e_out_of_bounds_bundle_is_runtime_error(scale_bundle: Path, bundles_dir: Path,
                                                   shared_cache: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rc, summary = _check(bundles_dir / "scale_crash", scale_bundle, shared_cache,
                         tmp_path / "t.jsonl", monkeypatch=monkeypatch, capsys=capsys)
    assert rc == 1
    assert [w["status"] for w in summary["workloads"]] == ["RUNTIME_ERROR"] * 3
    # the run went on past the first crash and wrote a trace for each workload
    assert len((tmp_path / "t.jsonl").read_text().splitlines()) == 3


# --- timing helpers (the GPU loop itself needs a GPU) ------------------------------------------


def test_timing_helpers() -> None:
    from solbench.conformance import timing

    t = torch.arange(10, dtype=torch.float32)
    copies = [timing.aligned_copy(t) for _ in range(4)]
    assert all(c.data_ptr() % 256 == 0 and torch.equal(c, t) for c in copies)
    assert len({c.data_ptr() for c in copies}) == 4  # a new address every time
    assert timing.nominal_peak_gbps("NVIDIA H200") == 4800.0
    assert timing.nominal_peak_gbps("NVIDIA H100 80GB HBM3") == 3350.0
    assert timing.nominal_peak_gbps("NVIDIA B200") == 7670.0
    assert timing.nominal_peak_gbps("NVIDIA A100-SXM4-80GB") is None
    assert timing.tensor_bytes([t, 3.0, torch.ones(2, dtype=torch.bfloat16)]) == 44
    assert timing.bandwidth_gbps(4_800_000_000, 1000.0) == pytest.approx(4.8)
    assert timing.roofline_fraction(2400.0, 4800.0) == 0.5
    assert (timing.WARMUP, timing.ITERATIONS) == (10, 50)
