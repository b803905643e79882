"""`solgen bench`: the parts that need no GPU (score, bytes, roofline, report, chart, exit 2).

The GPU measurements themselves run only on a CUDA machine (bench/gpu_session.sh).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solbench.exit_codes import Exit

from solbench.bench import chart, report, score
from solbench.bench.cli import NO_CUDA_MESSAGE
from solbench.bench.cli import main as bench_main
from solbench.conformance.problem import load_definition

REPO = Path(__file__).resolve().parents[2]


def _definition(tmp_path: Path, body: dict) -> object:
    raw = {"name": "t", "reference": "def run(x):\n    return x\n", **body}
    path = tmp_path / "definition.json"
    path.write_text(json.dumps(raw))
    return load_definition(path)


# --- the score --------------------------------------------------------------------------------


def test_score_is_half_at_the_baseline_and_one_at_the_bound():
    assert score.sol_score(t_k=40.0, t_b=40.0, t_sol=10.0) == pytest.approx(0.5)
    assert score.sol_score(t_k=10.0, t_b=40.0, t_sol=10.0) == pytest.approx(1.0)
    # halfway between bound and baseline in time: 1 / (1 + 0.5)
    assert score.sol_score(t_k=25.0, t_b=40.0, t_sol=10.0) == pytest.approx(2 / 3)


def test_score_is_unclamped():
    assert score.sol_score(t_k=5.0, t_b=40.0, t_sol=10.0) > 1.0  # under the bound
    slower = score.sol_score(t_k=100.0, t_b=40.0, t_sol=10.0)
    assert slower is not None and 0.0 < slower < 0.5  # slower than the baseline


def test_score_is_undefined_when_the_baseline_is_at_the_bound():
    assert score.sol_score(t_k=5.0, t_b=10.0, t_sol=10.0) is None
    assert score.sol_score(t_k=5.0, t_b=9.0, t_sol=10.0) is None
    assert score.sol_score(t_k=-40.0, t_b=20.0, t_sol=10.0) is None  # 1 + ratio <= 0


def test_baseline_is_the_faster_of_reference_and_compiled():
    assert score.baseline_ms(3.0, 2.0) == 2.0
    assert score.baseline_ms(3.0, None) == 3.0
    assert score.baseline_ms(None, None) is None


def test_bandwidth_and_sol_time():
    assert score.bandwidth_gbps(2_000_000, 0.001) == pytest.approx(2000.0)
    assert score.sol_time_ms(7_670_000, score.B200_GBPS) == pytest.approx(0.001)
    with pytest.raises(ValueError):
        score.bandwidth_gbps(1, 0.0)


# --- bytes ------------------------------------------------------------------------------------


def test_bytes_count_dtypes_and_skip_scalars(tmp_path):
    defn = _definition(tmp_path, {
        "axes": {"b": {"type": "var"}, "h": {"type": "const", "value": 4096}},
        "inputs": {"x": {"shape": ["b", "h"], "dtype": "bfloat16"},
                   "w": {"shape": ["h"], "dtype": "float32"},
                   "eps": {"shape": None, "dtype": "float32"},
                   "z": {"shape": [], "dtype": "int64"}},
        "outputs": {"y": {"shape": ["b", "h"], "dtype": "float16"},
                    "idx": {"shape": ["b"], "dtype": "int8"}},
        "reference": "def run(x, w, eps, z):\n    return x, x\n",
    })
    b = 3
    expected = b * 4096 * 2 + 4096 * 4 + 0 + 8 + b * 4096 * 2 + b * 1
    assert score.workload_bytes(defn, {"b": b}) == expected


def test_bytes_follow_expr_axes(tmp_path):
    defn = _definition(tmp_path, {
        "axes": {"b": {"type": "var"}, "h": {"type": "var"},
                 "h2": {"type": "expr", "expression": "h * 2"}},
        "inputs": {"x": {"shape": ["b", "h2"], "dtype": "bfloat16"}},
        "outputs": {"y": {"shape": ["b", "h"], "dtype": "bfloat16"}},
    })
    assert score.workload_bytes(defn, {"b": 5, "h": 1024}) == 5 * 2048 * 2 + 5 * 1024 * 2
    assert score.rows_and_cols(defn, {"b": 5, "h": 1024}) == (5, 2048)


def test_rows_and_cols_of_a_3d_output(tmp_path):
    defn = _definition(tmp_path, {
        "axes": {"b": {"type": "var"}, "s": {"type": "var"}, "h": {"type": "const", "value": 64}},
        "inputs": {"x": {"shape": ["b", "s", "h"], "dtype": "float32"}},
        "outputs": {"y": {"shape": ["b", "s", "h"], "dtype": "float32"}},
    })
    assert score.rows_and_cols(defn, {"b": 2, "s": 3}) == (6, 64)


def test_every_dtype_has_a_size():
    from solbench.conformance.problem import DTYPES

    assert set(DTYPES) <= set(score.DTYPE_BYTES)


def test_spread_picks_smallest_and_largest():
    sizes = [50, 10, 40, 20, 30]
    assert score.spread_indices(sizes, None) == [1, 3, 4, 2, 0]
    assert score.spread_indices(sizes, 3) == [1, 4, 0]
    assert score.spread_indices(sizes, 1) == [0]
    assert score.spread_indices(sizes, 9) == [1, 3, 4, 2, 0]


# --- the roofline -----------------------------------------------------------------------------


@pytest.mark.parametrize("targets, device, label, gbps", [
    (["B200"], "NVIDIA B200", "B200", 7670.0),
    (["B200", "LOCAL"], "NVIDIA B200", "B200", 7670.0),
    (["LOCAL"], "NVIDIA H200", "H200", 4800.0),
    (["LOCAL"], "NVIDIA H100 80GB HBM3", "H100", 3350.0),
    (["B200"], "NVIDIA H200", "H200", 4800.0),  # a B200 solution timed elsewhere
    (["LOCAL"], "NVIDIA GeForce RTX 4090", "measured copy", 900.0),
])
def test_roofline_selection(targets, device, label, gbps):
    r = score.select_roofline(targets, device, measured_copy_gbps=900.0)
    assert (r.label, r.gbps) == (label, gbps)
    assert r.source


def test_roofline_says_when_the_target_is_not_this_device():
    r = score.select_roofline(["B200"], "NVIDIA H200", 4300.0)
    assert "targets B200" in r.source and "H200" in r.source


def test_roofline_unknown_device_without_measurement_is_an_error():
    with pytest.raises(ValueError):
        score.select_roofline(["LOCAL"], "Mystery GPU", None)


# --- the report -------------------------------------------------------------------------------


def _synthetic() -> report.BenchReport:
    facts = report.DeviceFacts("NVIDIA H200", "9.0", "2.11.0", "13.0", copy_gbps=4300.0,
                               copy_bytes=1 << 30, copy_samples=10, empty_kernel_ms=0.0021,
                               empty_kernel_how="test")
    roof = score.select_roofline(["LOCAL"], facts.name, facts.copy_gbps)
    r = report.BenchReport("rmsnorm", "rmsnorm_solgen", ["LOCAL"], facts, roof,
                           "max-autotune-no-cudagraphs", 10, 50)
    r.workloads = [
        report.WorkloadMeasurement("aaaaaaaa-1", {"batch_size": 1, "hidden_size": 4096}, 1,
                                   4096, 24576, "PASSED", solution_ms=0.0031,
                                   reference_ms=0.0212, compiled_ms=0.0095),
        report.WorkloadMeasurement("bbbbbbbb-2", {"batch_size": 16384, "hidden_size": 4096},
                                   16384, 4096, 268_443_648, "PASSED", solution_ms=0.0712,
                                   reference_ms=0.3101, compiled_ms=None,
                                   compiled_note="compile failed: boom"),
        report.WorkloadMeasurement("cccccccc-3", {"batch_size": 7, "hidden_size": 2048}, 7,
                                   2048, 61_440, "INCORRECT_NUMERICAL", note="round 0: bad"),
    ]
    return r


def test_report_has_one_row_per_workload_with_formatted_numbers():
    r = _synthetic()
    text = report.render_markdown(r)
    table = [ln for ln in text.splitlines() if ln.startswith("| ") and "workload" not in ln]
    assert len(table) == len(r.workloads)
    big = r.workloads[1]
    d = r.derived(big)
    assert d["achieved_gbps"] == pytest.approx(268_443_648 / 0.0712e-3 / 1e9)
    row = next(ln for ln in table if ln.startswith("| bbbbbbbb"))
    assert "71.20" in row  # solution us
    assert f"{d['achieved_gbps']:.0f}" in row
    assert f"{d['copy_share'] * 100:.1f}%" in row
    assert f"{0.3101 / 0.0712:.2f}x" in row
    assert "n/a*" in row  # compiled failed
    s = score.sol_score(0.0712, 0.3101, 268_443_648 / 4800e9 * 1e3)
    assert f"{s:.3f}" in row
    failed = next(ln for ln in table if ln.startswith("| cccccccc"))
    assert "INCORRECT_NUMERICAL" in failed
    assert "4300 GB/s" in text and "H200 nominal" in text
    assert "compile failed: boom" in text
    assert "launch-bound" in text and "`aaaaaaaa`" in text  # 3.1 us vs a 2.1 us empty kernel


def test_report_json_round_trips():
    r = _synthetic()
    d = r.to_json()
    assert d["summary"]["timed"] == 2
    assert d["workloads"][0]["sol_score"] is not None
    back = report.from_json(json.loads(json.dumps(d)))
    assert report.render_markdown(back) == report.render_markdown(r)


def test_chart_renders_a_png(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (scripts/install-deps)")
    path = chart.render(_synthetic(), tmp_path / "bandwidth.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
    over = chart.render_overview([_synthetic(), _synthetic()], tmp_path / "all.png")
    assert over.read_bytes()[:4] == b"\x89PNG"


def test_chart_series_groups_by_row_length():
    s = chart.series(_synthetic())
    assert sorted(s) == [4096]  # the failed workload (2048) has no point
    assert [p[0] for p in s[4096]] == [1, 16384]


# --- without CUDA -----------------------------------------------------------------------------


def test_bench_without_cuda_is_unavailable(monkeypatch, capsys):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    rc = bench_main([str(REPO / "tests/python/bundles/scale")])
    assert rc == Exit.UNAVAILABLE
    assert NO_CUDA_MESSAGE in capsys.readouterr().err


def test_bench_module_entry_point_without_cuda():
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present: bench would run")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "solbench.bench",
                           str(REPO / "tests/python/bundles/scale")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == Exit.UNAVAILABLE
    assert "no CUDA device is available" in proc.stderr


def test_bench_bad_bundle_is_rejected(tmp_path, capsys):
    assert bench_main([str(tmp_path / "missing")]) == Exit.REJECTED
    assert "not a directory" in capsys.readouterr().err


# --- the measurement flow, with the GPU timer replaced -------------------------------------------


def test_measure_workload_checks_then_times(monkeypatch, scale_bundle):
    """A wrong solution is not timed; a right one gets solution and reference latencies from
    conformance's time_calls (replaced here: this machine has no GPU to time on)."""
    import torch

    from solbench.bench import measure
    from solbench.conformance import timing
    from solbench.conformance.inputs import load_reference
    from solbench.conformance.problem import load_bundle

    timed = []

    def fake_time_calls(fn, inputs, outputs, device, warmup=10, iterations=50):
        fn(*inputs, *outputs)
        timed.append(fn)
        return 0.5 * len(timed)

    monkeypatch.setattr(timing, "time_calls", fake_time_calls)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a, **k: None)
    b = load_bundle(scale_bundle)
    ref = load_reference(b.definition)

    def right(x, scale, y):
        y.copy_(x * scale)

    def wrong(x, scale, y):
        y.copy_(x * scale + 1.0)

    s = measure.Session(b, right, ref, torch.device("cpu"), "none", 10, 50)
    m = measure.measure_workload(s, 0)
    assert m.status == "PASSED"
    assert (m.solution_ms, m.reference_ms, m.compiled_ms) == (0.5, 1.0, None)
    assert "skipped" in m.compiled_note
    assert timed[0] is right
    assert m.nbytes == 2 * m.rows * 64 * 4 and m.cols == 64
    s.fn = wrong
    bad = measure.measure_workload(s, 0)
    assert bad.status == "INCORRECT_NUMERICAL" and bad.solution_ms is None
    assert len(timed) == 2  # the wrong solution was never timed


# --- gathering a GPU session ---------------------------------------------------------------------


def test_gather_assembles_few_files(tmp_path):
    from solbench.bench import gather

    work, out = tmp_path / "work", tmp_path / "out"
    (work / "checks").mkdir(parents=True)
    (work / "bench").mkdir()
    (work / "env.txt").write_text("device: test\n")
    (work / "checks" / "good.rc").write_text("0\n")
    (work / "checks" / "good.json").write_text(json.dumps(
        {"ok": True, "counts": {"PASSED": 3}, "build_seconds": 41.2, "workloads": []}))
    (work / "checks" / "slow.rc").write_text("124\n")
    r = _synthetic()
    (work / "bench" / "good.rc").write_text("0\n")
    (work / "bench" / "good").mkdir()
    (work / "bench" / "good" / "report.md").write_text(report.render_markdown(r))
    (work / "bench" / "good" / "report.json").write_text(json.dumps(r.to_json()))
    (work / "bench" / "slow.rc").write_text("124\n")
    (work / "bench" / "slow.err").write_text("Traceback...\nKilled\n")
    files = gather.assemble(work, out, max_png=4)
    assert len(files) <= 8 and all(f.parent == out for f in files)
    text = (out / "gpu_report.md").read_text()
    assert "| good | OK: PASSED 3 | 41 |" in text
    assert "| slow | TIMEOUT" in text
    assert "## bench: good (complete)" in text and "### How this was measured" in text
    assert "## bench: slow (TIMEOUT" in text and "Killed" in text
    assert len((out / "bench.jsonl").read_text().splitlines()) == 1
    summary = gather.summary_table([r.to_json()])
    assert summary[-1].startswith("| rmsnorm_solgen | 2/3 | 3770 | 87.7% |")
