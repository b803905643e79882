"""solbench.perf_model, the static estimate of a kernel's share of the roofline, on hand-built
kernel figures (no nvcc): each term of the model moves the estimate the way it should."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solbench import sass
from solbench.conformance.problem import load_definition
from solbench.load_parallelism import B200, H200, KernelFigures, Variant
from solbench.perf_model import Assumptions, axes_for, element_block, estimate, estimates, \
    kernel_function, lengths, main, passes

ROOT = Path(__file__).resolve().parents[2]
ASSUME = Assumptions(latency_ns=800.0, fixed_ns=2000.0)

ROW_SOURCE = """
template <int kThreads, int kVec, int kChunks>
__global__ void __launch_bounds__(kBlockThreads) norm_kernel(const float* x, float* y) {
    for_each_chunk<kThreads, kVec, kChunks>(cols, [&](int chunk, int64_t base) {});
    for_each_chunk<kThreads, kVec, kChunks>(cols, [&](int chunk, int64_t base) {});
}
"""
ROW_KERNEL = "_Z11norm_kernelILi256ELi8ELi2EEvPKfPf"


def definition(tmp_path: Path, dtype: str = "bfloat16", const_cols: int | None = None):
    axes = {"batch_size": {"type": "var"},
            "hidden_size": {"type": "const", "value": const_cols} if const_cols else
            {"type": "var"}}
    (tmp_path / "definition.json").write_text(json.dumps({
        "name": "norm", "op_type": "rmsnorm", "axes": axes,
        "inputs": {"x": {"shape": ["batch_size", "hidden_size"], "dtype": dtype},
                   "w": {"shape": ["hidden_size"], "dtype": dtype}},
        "outputs": {"y": {"shape": ["batch_size", "hidden_size"], "dtype": dtype}},
        "reference": "def run(x, w):\n    return x * w\n"}))
    return load_definition(tmp_path / "definition.json")


def kernel(variant: Variant, trips: int = 1, instructions: int = 200, mufu: int = 0,
           resident: int = 2048, loops: tuple[sass.Region, ...] = (),
           in_flight: int = 4) -> KernelFigures:
    straight = sass.Region(0, 0, False, in_flight, in_flight, in_flight, 16 * in_flight,
                           instructions, mufu)
    return KernelFigures(ROW_KERNEL, variant, 32, 256, resident, in_flight, 16 * in_flight,
                         (*loops, straight), mufu=mufu, trips=trips)


CACHED = Variant(256, 8, 2)


def test_one_trip_at_one_row_is_the_floor(tmp_path) -> None:
    e = estimate(kernel(CACHED), definition(tmp_path), 1, 4096, ROW_SOURCE, H200, ASSUME)
    assert e.t_latency == pytest.approx(800e-9)
    assert e.bound == "latency"
    assert e.small_batch_ratio == pytest.approx((2000 + 800) / (2000 + 800 + e.t_dram * 1e9))
    assert e.small_batch_ratio <= 1.0


def test_each_dependent_trip_costs_a_latency(tmp_path) -> None:
    defn = definition(tmp_path)
    one = estimate(kernel(CACHED, trips=1), defn, 1, 4096, ROW_SOURCE, H200, ASSUME)
    three = estimate(kernel(CACHED, trips=3), defn, 1, 4096, ROW_SOURCE, H200, ASSUME)
    assert three.total - one.total == pytest.approx(1600e-9)
    assert three.small_batch_ratio > 1.5  # the issue's small-batch target fails at 3 trips


def test_rows_past_a_wave_pay_another_latency(tmp_path) -> None:
    defn = definition(tmp_path)
    wave = 132 * 2048 // 256  # H200: 8 rows of 256 threads on each SM
    full = estimate(kernel(CACHED), defn, wave, 4096, ROW_SOURCE, H200, ASSUME)
    more = estimate(kernel(CACHED), defn, wave + 1, 4096, ROW_SOURCE, H200, ASSUME)
    assert (full.t_latency, more.t_latency) == pytest.approx((800e-9, 1600e-9))
    fewer = estimate(kernel(CACHED, resident=1024), defn, wave, 4096, ROW_SOURCE, H200, ASSUME)
    assert fewer.t_latency == pytest.approx(1600e-9)  # half the occupancy: two waves


def test_many_rows_are_bound_by_dram(tmp_path) -> None:
    e = estimate(kernel(CACHED), definition(tmp_path), 16384, 4096, ROW_SOURCE, H200, ASSUME)
    nbytes = 16384 * 4096 * 2 * 2 + 4096 * 2  # x and y, the weight once
    assert e.t_dram == pytest.approx(nbytes / 4.8e12)
    assert e.bound == "DRAM"
    assert e.share == pytest.approx(e.t_dram / (e.t_dram + 2e-6))
    assert e.share > 0.9


def test_the_b200_is_bound_by_issue_where_the_h200_is_not(tmp_path) -> None:
    """The B200 moves more bytes per SM-clock (7.67 TB/s at 1.5 GHz over 148 SMs), so a kernel of
    many instructions an element meets the issue limit there first."""
    defn = definition(tmp_path)
    busy = kernel(CACHED, instructions=320)  # 20 an element (16 a thread)
    h200 = estimate(busy, defn, 16384, 4096, ROW_SOURCE, H200, ASSUME)
    b200 = estimate(busy, defn, 16384, 4096, ROW_SOURCE, B200, ASSUME)
    assert h200.bound == "DRAM" and b200.bound == "issue"
    warps = 16384 * 256 / 32
    assert b200.t_issue == pytest.approx(warps * 320 / (4 * 148 * 1.5e9))
    assert b200.share < h200.share


def test_special_functions_have_their_own_limit(tmp_path) -> None:
    defn = definition(tmp_path)
    e = estimate(kernel(CACHED, instructions=50, mufu=60), defn, 16384, 4096, ROW_SOURCE,
                 B200, ASSUME)
    assert e.bound == "MUFU"
    assert e.t_mufu == pytest.approx(16384 * 256 * 60 / (16 * 148 * 1.5e9))


def test_a_streamed_row_pays_a_trip_per_batch_of_loads_in_each_pass(tmp_path) -> None:
    defn = definition(tmp_path)
    one_chunk = sass.Region(0, 0, True, 1, 1, 1, 16, instructions=12, mufu=1)
    unrolled = sass.Region(0, 0, True, 4, 4, 4, 64, instructions=40, mufu=4)
    streamed = kernel(Variant(256, 8, 0), trips=0, instructions=100,
                      loops=(one_chunk, unrolled))
    e = estimate(streamed, defn, 1, 32768, ROW_SOURCE, H200, ASSUME)
    # 4096 vectors over 256 threads: 16 chunks a thread, 4 in flight, 2 passes.
    assert e.work.trips == 2 * 16 // 4
    assert e.work.instructions == 100 + 2 * 16 * 12
    assert e.work.mufu == 2 * 16 * 1
    assert e.t_latency == pytest.approx(8 * 800e-9)


def test_an_elementwise_thread_pays_a_trip_per_row_it_takes(tmp_path) -> None:
    defn = definition(tmp_path, dtype="float32")
    loop = sass.Region(0, 0, True, 8, 8, 8, 128, instructions=30)
    gated = KernelFigures("_Z11gate_kernelILi4ELi4EEvPKfPf", Variant(None, 4, 4), 24, 256, 2048,
                          8, 128, (loop, sass.Region(0, 0, False, 0, 0, 0, 0, 20)))
    host = "constexpr int64_t kMaxGridRows = 65535;"
    # 4096 floats: 1024 vectors, 4 a thread, 256 threads a row: one block a row. 2^20 rows are
    # 65535 grid rows, so a thread takes 17 rows (17 trips), each its 4 chunks at once.
    e = estimate(gated, defn, 1 << 20, 4096, host, H200, ASSUME)
    assert (e.work.units, e.work.trips, e.work.instructions) == (65535 * 256, 17, 20 + 17 * 30)
    small = estimate(gated, defn, 1, 4096, host, H200, ASSUME)
    assert (small.work.units, small.work.trips) == (256, 1)
    # Short rows share a block: 64 floats are 16 vectors, 4 threads a row, 64 rows a block.
    short = estimate(gated, defn, 1024, 64, host, H200, ASSUME)
    assert (short.work.units, short.work.trips) == (1024 * 4, 1)
    # The cap is the host's: a quarter of the grid rows, four times the rows a thread.
    fewer = estimate(gated, defn, 1 << 20, 4096, host.replace("65535", "16384"), H200, ASSUME)
    assert (fewer.work.units, fewer.work.trips) == (16384 * 256, 64)
    with pytest.raises(ValueError, match="kMaxGridRows"):
        estimate(gated, defn, 1, 4096, "", H200, ASSUME)


def test_the_elementwise_block_follows_launch_elements() -> None:
    # A block of 256 threads halved while half still holds the row: blockDim.x, .y, gridDim.x.
    assert element_block(4096, 8, 4, 256) == (128, 2, 1)
    assert element_block(7168, 8, 4, 256) == (256, 1, 1)
    assert element_block(1 << 20, 8, 4, 256) == (256, 1, 128)
    assert element_block(8, 8, 4, 256) == (1, 256, 1)


def test_the_row_kernel_is_found_by_its_mangled_name() -> None:
    assert "norm_kernel(" in kernel_function(ROW_SOURCE, ROW_KERNEL)
    assert passes(ROW_SOURCE, ROW_KERNEL) == 2
    with pytest.raises(ValueError, match="other_kernel"):
        kernel_function(ROW_SOURCE, "_Z12other_kernelILi4EEvv")


def test_axes_of_a_call(tmp_path) -> None:
    defn = definition(tmp_path)
    assert axes_for(defn, 16, 4096) == {"batch_size": 16, "hidden_size": 4096}
    assert lengths(defn, None) == [4096, 7168]
    const = definition(tmp_path, const_cols=2048)
    assert axes_for(const, 16, 4096) == {"batch_size": 16}
    assert lengths(const, [4096]) == [2048]
    swiglu = load_definition(ROOT / "submissions" / "swiglu" / "definition.json")
    assert axes_for(swiglu, 8, 4096) == {"batch_size": 8, "hidden_size": 4096}
    three_d = load_definition(ROOT / "submissions" / "post_norm_residual" / "definition.json")
    assert axes_for(three_d, 8, 4096) == {"batch_size": 8, "seq_len": 1, "hidden_size": 4096}


def test_the_kernel_each_length_launches(tmp_path) -> None:
    source = ROW_SOURCE + """
    if (vectorized && cols <= 4096) {
        status = launch_rows<256, kVectorWidth, 2>(rows, stream.stream(), x, y);
    } else if (vectorized) {
        status = launch_rows<256, kVectorWidth, 0>(rows, stream.stream(), x, y);
    }
    constexpr int64_t kVectorWidth = 8;
    """
    cached, streamed = kernel(CACHED), kernel(Variant(256, 8, 0), trips=0)
    found = estimates([cached, streamed], definition(tmp_path), source, H200, [1, 16],
                      [4096, 8192], ASSUME)
    assert [(e.cols, e.rows, e.kernel.variant.chunks) for e in found] == \
        [(4096, 1, 2), (4096, 16, 2), (8192, 1, 0), (8192, 16, 0)]
    with pytest.raises(ValueError, match="16384"):
        estimates([cached], definition(tmp_path), source, H200, [1], [16384], ASSUME)


def test_the_command_names_a_bad_bundle_and_fails(tmp_path, capsys) -> None:
    assert main([str(tmp_path / "missing"), "--chip", "H200"]) == 2
    assert "missing" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--rows", "0"])
