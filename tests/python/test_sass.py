"""solbench.sass and solbench.load_parallelism on small hand-written SASS listings
(the format `nvdisasm -c` prints), and the occupancy rules on known cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from solbench import sass
from solbench.load_parallelism import B200, H200, KernelFigures, Launch, Variant, \
    at_row_length, launched, max_threads_per_block, per_row_length, resident_threads, \
    row_launches, steady_state, workload_row_lengths


ROOT = Path(__file__).resolve().parents[2]


def listing(name: str, lines: list[str]) -> str:
    """A one-kernel nvdisasm listing: `lines` are instructions (one every 16 bytes) or labels."""
    out = [f".text.{name}:"]
    address = 0
    for line in lines:
        if line.endswith(":"):
            out.append(line)
        else:
            out.append(f"        /*{address:04x}*/                   {line} ;")
            address += 16
    return "\n".join(out) + "\n"


def only_region(lines: list[str]) -> sass.Region:
    body = sass.parse_functions(listing("k", lines))["k"]
    return steady_state(sass.regions(body))


def test_independent_loads_are_all_in_flight_before_the_first_use() -> None:
    r = only_region([
        "LDG.E.128.CONSTANT R12, desc[UR6][R2.64]",
        "LDG.E.128.CONSTANT R16, desc[UR6][R2.64+0x1000]",
        "LDG.E.128.CONSTANT R20, desc[UR6][R2.64+0x2000]",
        "FADD R0, R12, R16",
        "FADD R0, R0, R21",
        "EXIT",
    ])
    assert (r.loads, r.vector_loads, r.peak_loads_in_flight, r.peak_bytes_in_flight) == (3, 3, 3, 48)


def test_a_32_byte_load_writes_two_quads_of_registers() -> None:
    # sm_100's LDG.E.ENL2.256: destinations R4..R7 and R8..R11, 32 bytes.
    r = only_region([
        "LDG.E.ENL2.256.CONSTANT R4, R8, desc[UR4][R2.64]",
        "@!P0 LDG.E.ENL2.256.CONSTANT R12, R16, desc[UR4][R2.64+0x1000]",
        "FADD R0, R0, R11",  # the first load's second quad: it has arrived
        "EXIT",
    ])
    assert (r.loads, r.vector_loads, r.peak_loads_in_flight, r.peak_bytes_in_flight) == (2, 2, 2, 64)
    load = sass.parse_functions(listing("k", ["LDG.E.ENL2.256 R4, R8, desc[UR4][R2.64]"]))["k"][0]
    assert load.load_bytes == 32 and load.written() == set(range(4, 12))
    assert load.read() == {2, 3}  # the address, not the second destination
    store = sass.parse_functions(listing("k", ["STG.E.ENL2.256 desc[UR4][R2.64], R4, R8"]))["k"][0]
    assert store.read() == {2, 3} | set(range(4, 12)) and store.written() == set()


def test_a_use_between_loads_ends_the_first_one() -> None:
    r = only_region([
        "LDG.E.128.CONSTANT R12, desc[UR6][R2.64]",
        "FADD R0, R0, R15",  # the last register of the 16-byte load: the thread waits
        "LDG.E.128.CONSTANT R16, desc[UR6][R2.64+0x1000]",
        "FADD R0, R0, R16",
        "EXIT",
    ])
    assert r.peak_loads_in_flight == 1 and r.peak_bytes_in_flight == 16


def test_a_store_reads_its_data_register() -> None:
    r = only_region([
        "LDG.E R4, desc[UR6][R2.64]",
        "STG.E desc[UR6][R8.64], R4",
        "LDG.E R5, desc[UR6][R2.64+0x4]",
        "EXIT",
    ])
    assert r.peak_loads_in_flight == 1


def test_overwriting_a_pending_register_waits_for_the_load() -> None:
    r = only_region([
        "LDG.E R4, desc[UR6][R2.64]",
        "MOV R4, RZ",
        "LDG.E R5, desc[UR6][R2.64+0x4]",
        "EXIT",
    ])
    assert r.peak_loads_in_flight == 1


def test_the_load_address_is_not_a_use_of_the_pending_load() -> None:
    # R12 is both the address and the destination: reading it to issue the load
    # is not a use of an earlier load's result.
    r = only_region([
        "LDG.E.128.CONSTANT R20, desc[UR6][R2.64]",
        "LDG.E.128.CONSTANT R12, desc[UR6][R12.64]",
        "FADD R0, R20, R12",
        "EXIT",
    ])
    assert r.peak_loads_in_flight == 2


def test_a_label_drops_what_is_pending() -> None:
    r = only_region([
        "LDG.E.128.CONSTANT R12, desc[UR6][R2.64]",
        ".L_x_1:",
        "LDG.E.128.CONSTANT R16, desc[UR6][R2.64+0x1000]",
        "FADD R0, R12, R16",
        "EXIT",
    ])
    assert r.peak_loads_in_flight == 1  # under-counted, never over-counted


def test_the_unrolled_loop_is_the_steady_state_not_a_remainder_loop() -> None:
    body = sass.parse_functions(listing("k", [
        "MOV R0, RZ",
        ".L_x_1:",  # remainder loop: one load an iteration
        "LDG.E.128.CONSTANT R12, desc[UR6][R2.64]",
        "FADD R0, R0, R12",
        "@P0 BRA `(.L_x_1)",
        ".L_x_2:",  # main loop, unrolled by 4
        "LDG.E.128.CONSTANT R12, desc[UR6][R2.64]",
        "LDG.E.128.CONSTANT R16, desc[UR6][R2.64+0x1000]",
        "LDG.E.128.CONSTANT R20, desc[UR6][R2.64+0x2000]",
        "LDG.E.128.CONSTANT R24, desc[UR6][R2.64+0x3000]",
        "FADD R0, R12, R16",
        "FADD R0, R20, R24",
        "@!P1 BRA `(.L_x_2)",
        "EXIT",
        ".L_x_3:",
        "BRA `(.L_x_3)",  # the trailing self-loop nvcc emits: no load, not a stream
    ]))["k"]
    regions = sass.regions(body)
    assert sorted(r.peak_loads_in_flight for r in regions if r.is_loop) == [0, 1, 4]
    main = steady_state(regions)
    assert main.is_loop and main.peak_loads_in_flight == 4 and main.peak_bytes_in_flight == 64


def test_a_nested_loop_is_left_out_of_its_parent() -> None:
    body = sass.parse_functions(listing("k", [
        ".L_x_1:",  # grid-stride loop: two 16-byte loads a step
        "LDG.E.128.CONSTANT R4, desc[UR6][R20.64]",
        "LDG.E.128.CONSTANT R8, desc[UR6][R22.64]",
        "FMUL R4, R4, R8",
        ".L_x_2:",  # a scalar tail inside it
        "LDG.E.U16 R11, desc[UR6][R16.64]",
        "STG.E.U16 desc[UR6][R2.64], R11",
        "@P0 BRA `(.L_x_2)",
        "@P1 BRA `(.L_x_1)",
        "EXIT",
    ]))["k"]
    outer = [r for r in sass.regions(body) if r.is_loop and r.first == 0]
    assert len(outer) == 1 and outer[0].loads == 2 and outer[0].peak_bytes_in_flight == 32
    assert steady_state(sass.regions(body)) == outer[0]


def test_straight_line_code_is_the_steady_state_when_no_loop_loads() -> None:
    r = only_region(["LDG.E.64 R4, desc[UR6][R2.64]", "LDG.E.64 R6, desc[UR6][R2.64+0x8]",
                     "FADD R0, R4, R7", "EXIT"])
    assert not r.is_loop and r.peak_bytes_in_flight == 16


@pytest.mark.parametrize("registers, threads, shared, expected", [
    (32, 256, 0, 2048),   # 8 blocks: the thread limit
    (39, 256, 0, 1536),   # 40 a thread, 1280 a warp: 51 warps, 6 whole blocks
    (62, 256, 0, 1024),   # 64 a thread: 32 warps
    (128, 256, 0, 512),
    (32, 256, 48 * 1024, 1024),  # 228 KB / (48 + 1) KB: 4 blocks
    (16, 32, 0, 1024),    # 32 blocks at most
])
def test_resident_threads(registers: int, threads: int, shared: int, expected: int) -> None:
    assert resident_threads(H200, registers, threads, shared) == expected


def test_littles_law_needs() -> None:
    assert H200.needed_bytes_in_flight(800) == pytest.approx(4.8e12 * 800e-9 / 132)
    assert B200.needed_bytes_in_flight(800) > H200.needed_bytes_in_flight(800)


def test_variants_from_mangled_names() -> None:
    assert Variant.of("_ZN_softmax_kernelILi256ELi4ELi8EEEvPKfPfll") == Variant(256, 4, 8)
    assert Variant.of("_ZN_swiglu_kernelILi8ELi4EEEvPK13__nv_bfloat16PS1_ll") == Variant(None, 8, 4)
    assert Variant.of("_ZN_swiglu_kernelILi1ELi4EEEvPK13__nv_bfloat16PS1_ll").is_fallback
    assert Variant.of("_ZN_swiglu_kernelILi8EEEvPK13__nv_bfloat16PS1_ll") is None
    assert Variant.of("plain") is None


def test_launch_bounds_from_ptx() -> None:
    ptx = """
.visible .entry _Z1kILi4EEvPf(
	.param .u64 _Z1kILi4EEvPf_param_0
)
.maxntid 256, 1, 1
{
	ret;
}
.visible .entry _Z4freePf(
	.param .u64 _Z4freePf_param_0
)
{
	ret;
}
"""
    assert max_threads_per_block(ptx) == {"_Z1kILi4EEvPf": 256}


LAUNCH = """
constexpr int kBlockThreads = 256;
constexpr int64_t kVectorWidth = 4;
    if (vectorized && hidden_size <= 64) {
        status = launch_rows<16, kVectorWidth, 1>(rows, stream.stream(), a, b, rows, cols);
    } else if (vectorized && hidden_size <= 1024) {
        status = launch_rows<kWarpSize, kVectorWidth, 8>(rows, stream.stream(), a, b, rows, cols);
    } else if (vectorized) {
        status = launch_rows<kBlockThreads, kVectorWidth, 0>(rows, stream.stream(), a, b);
    } else {
        status = launch_rows<kBlockThreads, 1, 0>(rows, stream.stream(), a, b, rows, cols);
    }
"""


def test_row_launches_read_from_the_generated_host_code() -> None:
    launches = row_launches(LAUNCH)
    assert launches == [Launch(64, Variant(16, 4, 1)), Launch(1024, Variant(32, 4, 8)),
                        Launch(None, Variant(256, 4, 0))]
    assert launched(launches, 64) == Variant(16, 4, 1)
    assert launched(launches, 65) == Variant(32, 4, 8)
    assert launched(launches, 1 << 20) == Variant(256, 4, 0)


WIDE_LAUNCH = """
constexpr int kBlockThreads = 256;
constexpr int64_t kVectorWidth = 8;
constexpr int64_t kWideVectorWidth = 16;
    if (wide && hidden_size <= 128) {
        status = launch_rows<16, kVectorWidth, 1>(rows, stream.stream(), a, b, rows, cols);
    } else if (wide && hidden_size <= 512) {
        status = launch_rows<kWarpSize, kWideVectorWidth, 1>(rows, stream.stream(), a, b, rows, cols);
    } else if (vectorized && hidden_size <= 128) {
        status = launch_rows<16, kVectorWidth, 1>(rows, stream.stream(), a, b, rows, cols);
    } else if (vectorized && hidden_size <= 512) {
        status = launch_rows<kWarpSize, kVectorWidth, 2>(rows, stream.stream(), a, b, rows, cols);
    } else if (vectorized) {
        status = launch_rows<kBlockThreads, kVectorWidth, 0>(rows, stream.stream(), a, b);
    }
"""


def test_a_wide_ladder_runs_only_on_a_chip_with_32_byte_accesses() -> None:
    launches = row_launches(WIDE_LAUNCH)
    assert [l.wide for l in launches] == [True, True, False, False, False]
    assert launches[1] == Launch(512, Variant(32, 16, 1), wide=True, multiple=16)
    assert not H200.wide_accesses and B200.wide_accesses
    assert launched(launches, 512) == Variant(32, 8, 2)  # an H200's
    assert launched(launches, 512, wide=True) == Variant(32, 16, 1)
    assert launched(launches, 64, wide=True) == Variant(16, 8, 1)  # the half warp's stays
    # Not whole 32-byte vectors: the 16-byte ladder, then past it the streamed block.
    assert launched(launches, 504, wide=True) == Variant(32, 8, 2)
    assert launched(launches, 4096, wide=True) == Variant(256, 8, 0)


def figures_of(variant: Variant, regions: list[sass.Region], threads: int = 2048) -> KernelFigures:
    main = steady_state(regions)
    return KernelFigures("k", variant, 32, 256, threads, main.peak_loads_in_flight,
                         main.peak_bytes_in_flight, tuple(regions))


def region(is_loop: bool, loads: int, peak: int) -> sass.Region:
    return sass.Region(0, 0, is_loop, loads, loads, peak, 16 * peak)


def test_a_short_row_fills_only_part_of_the_cache() -> None:
    k = figures_of(Variant(32, 4, 8), [region(False, 8, 8)])
    assert at_row_length(k, 1024) == (8, 128)  # 256 vectors: 8 a thread
    assert at_row_length(k, 512) == (4, 64)
    assert at_row_length(k, 136) == (34 / 32, 34 / 32 * 16)  # 34 vectors over 32 threads
    serialized = figures_of(Variant(32, 8, 2), [region(False, 2, 1)])  # the 2 loads one by one
    assert at_row_length(serialized, 512) == (1, 16)
    assert at_row_length(serialized, 256) == (1, 16)
    two_inputs = figures_of(Variant(256, 8, 2), [region(False, 4, 4)])
    assert at_row_length(two_inputs, 2048) == (2, 32)  # 1 chunk of each input


def test_a_streamed_row_shorter_than_the_unroll_runs_the_remainder_loop() -> None:
    k = figures_of(Variant(256, 4, 0), [region(True, 1, 1), region(True, 4, 4)])
    assert at_row_length(k, 32768) == (4, 64)  # 32 iterations a thread: the unrolled loop
    assert at_row_length(k, 4096) == (4, 64)  # 4: one pass of it
    assert at_row_length(k, 3072) == (1, 16)  # 3: the remainder loop only
    # nvcc's layout for a small body: a remainder loop, a loop of 16 and a block of 4.
    by16 = figures_of(Variant(256, 4, 0), [region(True, 1, 1), region(True, 16, 4),
                                          region(False, 12, 4)])
    assert at_row_length(by16, 8192) == (4, 64)  # 8 a thread: blocks of 4, not the 16-loop
    assert at_row_length(by16, 2048) == (1, 16)


def test_the_elementwise_kernel_does_not_depend_on_the_row() -> None:
    k = figures_of(Variant(None, 8, 4), [region(True, 2, 2)])
    assert at_row_length(k, 128) == at_row_length(k, 1 << 16) == (2, 32)


def test_workload_row_lengths_keep_the_large_ones(tmp_path) -> None:
    import json

    (tmp_path / "definition.json").write_text(json.dumps({
        "name": "d", "op_type": "t", "axes": {"b": {"type": "var"}, "h": {"type": "var"},
                                              "h2": {"type": "expr", "expression": "2 * h"}},
        "inputs": {"x": {"shape": ["b", "h2"], "dtype": "bfloat16"}},
        "outputs": {"y": {"shape": ["b", "h"], "dtype": "bfloat16"}},
        "reference": "def run(x):\n    return x\n"}))
    (tmp_path / "workload.jsonl").write_text("\n".join(json.dumps(
        {"uuid": str(i), "axes": {"b": b, "h": 2048}, "inputs": {"x": {"type": "random"}}})
        for i, b in enumerate([1, 4096, 16384])) + "\n")
    assert workload_row_lengths(tmp_path, 16 << 20) == [4096]  # the expr axis, resolved
    assert workload_row_lengths(tmp_path, 1 << 40) == []
    for bundle in ("softmax", "swiglu", "fused_add_rmsnorm"):
        assert workload_row_lengths(ROOT / "submissions" / bundle, 16 << 20), bundle


def test_rows_per_length_pick_the_launched_kernel() -> None:
    half = figures_of(Variant(16, 4, 1), [region(False, 1, 1)])
    warp = figures_of(Variant(32, 4, 8), [region(False, 8, 8)], threads=1024)
    block = figures_of(Variant(256, 4, 0), [region(True, 4, 4)])
    fallback = figures_of(Variant(256, 1, 0), [region(True, 4, 4)])
    definition = {"axes": {"r": {"type": "var"}, "c": {"type": "var"}},
                  "inputs": {"x": {"shape": ["r", "c"], "dtype": "float32"}}}
    rows = per_row_length([half, warp, block, fallback], LAUNCH, definition)
    by_cols = {r.cols: r for r in rows}
    assert by_cols[128].kernel is warp and by_cols[128].bytes_in_flight_per_sm == 1024 * 16
    assert by_cols[256].bytes_in_flight_per_sm == 1024 * 32  # 2 of its 8 chunks
    assert by_cols[1024].kernel is warp and by_cols[1024].bytes_in_flight_per_sm == 1024 * 128
    assert by_cols[32768].kernel is block and by_cols[32768].loads_in_flight == 4
    assert all(r.kernel is not fallback for r in rows)
    constant = dict(definition, axes={"r": {"type": "var"}, "c": {"type": "const", "value": 64}})
    assert [(r.cols, r.kernel) for r in per_row_length([half, warp, block], LAUNCH, constant)] \
        == [(64, half)]
    assert [r.cols for r in per_row_length([half, warp, block], LAUNCH, definition,
                                           [3001, 3072])] == [3072]  # 3001: not whole vectors


def round_trips_of(lines: list[str]) -> int:
    return sass.round_trips(sass.parse_functions(listing("k", lines))["k"])


def test_loads_with_no_wait_between_them_are_one_round_trip() -> None:
    assert round_trips_of([
        "LDG.E.128.CONSTANT R12, desc[UR6][R2.64]",
        "@P0 BRA `(.L_x_1)",
        ".L_x_1:",  # a forward branch leaves the first load in flight
        "LDG.E.128.CONSTANT R16, desc[UR6][R2.64+0x1000]",
        "FADD R0, R12, R16",
        "EXIT",
    ]) == 1


def test_a_load_after_a_wait_is_another_round_trip() -> None:
    assert round_trips_of([
        "LDG.E.128.CONSTANT R12, desc[UR6][R2.64]",
        "FADD R0, R0, R15",  # the thread waits for the row
        "BAR.SYNC.DEFER_BLOCKING 0x0",
        "LDG.E.128.CONSTANT R16, desc[UR6][R4.64]",  # the weight, after the reduction
        "FMUL R0, R0, R16",
        "LDG.E.128.CONSTANT R20, desc[UR6][R4.64+0x1000]",  # after the weight's use: a third
        "EXIT",
    ]) == 3
    assert round_trips_of(["FADD R0, R0, R1", "EXIT"]) == 0
