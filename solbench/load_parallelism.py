"""Bytes in flight per multiprocessor, for every kernel of a bundle, without a GPU.

Little's law: to stream at a bandwidth B through a memory whose loaded latency
is L, B x L bytes must be requested and not yet returned at any moment; spread
over the multiprocessors, each must keep B x L / SMs in flight. A kernel keeps

    resident threads per SM (occupancy: registers, block size, shared memory)
  x bytes each thread has in flight (independent loads before the first use)

and both are fixed when it is compiled: the first from ptxas's report, the
second from the SASS (solbench.sass). This module puts them side by side with
what the chip needs, for the build of each kernel for the chip (sm_90 for the H200,
sm_100a for the B200) that nvcc makes the way the harness does (solbench.compile_check).

    python -m solbench.load_parallelism BUNDLE... [--latency-ns 800] [--chip H200|B200]

The latency is an assumption, not a measurement: about twice the idle DRAM
latency reported for Hopper (~600 core cycles), for a memory system under full
load. The figure is the kernel's steady state on large inputs (a grid of many
waves); a batch of a few rows is bound by the launch, not by this.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from solbench import sass
from solbench.bench.score import NOMINAL_GBPS
from solbench.compile_check import KernelUsage, Mode, check_bundle, failures

DEFAULT_LATENCY_NS = 800.0
NVCC_UNROLL = 4  # nvcc unrolls a streaming loop by at least this, after a remainder loop


@dataclass(frozen=True)
class Chip:
    name: str
    arch: str  # what the harness compiles for it
    sms: int
    dram_bytes_per_s: float  # nominal
    sm_clock_hz: float  # while timed
    registers_per_sm: int = 65536
    threads_per_sm: int = 2048
    blocks_per_sm: int = 32
    shared_bytes_per_sm: int = 228 * 1024
    shared_reserved_per_block: int = 1024
    register_unit: int = 256  # registers are allocated per warp in units of this
    wide_accesses: bool = False  # 32-byte global accesses: the launches' `wide` ladder runs

    def needed_bytes_in_flight(self, latency_ns: float) -> float:
        """Per SM, to stream at the nominal bandwidth (Little's law)."""
        return self.dram_bytes_per_s * latency_ns * 1e-9 / self.sms


# The bandwidths are score.NOMINAL_GBPS (SOLAR's bound for the B200). The benchmark locks the
# B200 at 1500 MHz (sol-execbench.md §6); an H200 runs at its boost clock, 1980 MHz.
H200 = Chip("H200", "sm_90", sms=132, dram_bytes_per_s=NOMINAL_GBPS["H200"] * 1e9,
            sm_clock_hz=1.98e9)
B200 = Chip("B200", "sm_100a", sms=148, dram_bytes_per_s=NOMINAL_GBPS["B200"] * 1e9,
            sm_clock_hz=1.5e9, wide_accesses=True)
CHIPS = {c.name: c for c in (H200, B200)}


def resident_threads(chip: Chip, registers: int, block_threads: int, shared_bytes: int) -> int:
    """Threads per SM when the grid has blocks to spare (the occupancy calculator's rules)."""
    warps_per_block = math.ceil(block_threads / 32)
    per_warp = math.ceil(max(registers, 1) * 32 / chip.register_unit) * chip.register_unit
    by_registers = (chip.registers_per_sm // per_warp) // warps_per_block
    by_threads = chip.threads_per_sm // (warps_per_block * 32)
    by_shared = (chip.shared_bytes_per_sm // (shared_bytes + chip.shared_reserved_per_block)
                 if shared_bytes else chip.blocks_per_sm)
    return min(chip.blocks_per_sm, by_registers, by_threads, by_shared) * block_threads


@dataclass(frozen=True)
class Variant:
    """A solbench kernel's template arguments: <kThreads, kVec, kChunks> for the row
    families, <kVec, kChunks> for the elementwise (gated) one, kChunks its chunks in flight."""

    threads_per_row: int | None
    vector: int
    chunks: int | None

    @classmethod
    def of(cls, mangled: str) -> Variant | None:
        args = [int(a) for a in re.findall(r"Li(\d+)E", mangled)]
        if len(args) == 3:
            return cls(args[0], args[1], args[2])
        if len(args) == 2:
            return cls(None, args[0], args[1])
        return None

    @property
    def is_fallback(self) -> bool:
        """The width-1 instance, launched only for misaligned tensors."""
        return self.vector == 1

    def describe(self) -> str:
        if self.threads_per_row is None:
            return f"2-D grid, {self.vector}/vector, {self.chunks} chunks a thread"
        group = {16: "half warp", 32: "warp"}.get(self.threads_per_row,
                                                   f"{self.threads_per_row} threads")
        cache = f"{self.chunks} chunks cached" if self.chunks else "streamed"
        return f"{group}/row, {self.vector}/vector, {cache}"


@dataclass(frozen=True)
class KernelFigures:
    kernel: str
    variant: Variant | None
    registers: int
    block_threads: int
    resident_threads: int  # per SM, on the chip asked for
    loads_in_flight: int  # per thread, in the steady state (the longest row it takes)
    bytes_in_flight: int  # per thread, idem
    regions: tuple[sass.Region, ...]
    mufu: int = 0  # special-function instructions (MUFU: EX2, RCP, TANH, ...) in the kernel
    trips: int = 0  # dependent trips to memory through the SASS in order (sass.round_trips)
    packed_fp32: int = 0  # sm_100's packed FP32 instructions (FFMA2, FMUL2, FADD2)

    @property
    def bytes_in_flight_per_sm(self) -> int:
        return self.resident_threads * self.bytes_in_flight

    @property
    def mufu_per_element(self) -> float | None:
        """MUFU instructions per element of the row a thread handles, for a cached kernel:
        it is fully unrolled, so its SASS is a row's whole work (kChunks x kVec elements a
        thread, the per-row reductions and the special-function slow paths counted too, an
        upper bound). None for a loop, whose trip count the SASS does not give."""
        v = self.variant
        if v is None or v.threads_per_row is None or not v.chunks or v.is_fallback:
            return None
        return self.mufu / (v.chunks * v.vector)

    @property
    def round_trips_per_row(self) -> int | None:
        """DRAM latencies one row pays in a row of a cached kernel (straight-line code: its
        trips are the row's). None for a loop (a streamed row: one trip per iteration's batch
        of loads, times a trip count the SASS does not give) and for the grid-stride kernels."""
        v = self.variant
        if v is None or v.threads_per_row is None or not v.chunks or v.is_fallback:
            return None
        return self.trips


def steady_state(regions: list[sass.Region]) -> sass.Region | None:
    """The region that moves a long row's bytes: the loop with the most loads in
    flight (nvcc unrolls a streaming loop and leaves a short remainder loop
    beside it), or the straight-line code when no loop loads (a cached row is
    filled by an unrolled sequence of loads)."""
    loading = [r for r in regions if r.is_loop and r.loads]
    if loading:
        return max(loading, key=lambda r: (r.peak_bytes_in_flight, r.peak_loads_in_flight))
    straight = [r for r in regions if not r.is_loop and r.loads]
    return straight[0] if straight else None


def max_threads_per_block(ptx: str) -> dict[str, int]:
    """Entry name -> its `.maxntid` (the kernel's __launch_bounds__)."""
    found = {}
    for m in re.finditer(r"\.entry\s+(\S+)\s*\((.*?)\)\s*(.*?)\{", ptx, re.S):
        # `.maxntid 256, 1, 1` (sm_90's PTX) or `.maxntid 256` (sm_100a's)
        if b := re.search(r"\.maxntid\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?", m.group(3)):
            found[m.group(1)] = math.prod(int(g) for g in b.groups() if g)
    return found


def figures(usage: list[KernelUsage], sass_text: str, ptx: str,
            chip: Chip = H200) -> list[KernelFigures]:
    """Join ptxas's report for the chip's arch, the SASS and the PTX launch bounds, per kernel."""
    bodies = sass.parse_functions(sass_text)
    bounds = max_threads_per_block(ptx)
    out = []
    for k in sorted((k for k in usage if k.arch == chip.arch), key=lambda k: k.kernel):
        if k.kernel not in bodies:
            raise ValueError(f"{k.kernel}: in ptxas's report but not in the SASS")
        if k.kernel not in bounds:
            raise ValueError(f"{k.kernel}: no __launch_bounds__ (.maxntid) in the PTX")
        regions = sass.regions(bodies[k.kernel])
        main = steady_state(regions)
        out.append(KernelFigures(
            kernel=k.kernel, variant=Variant.of(k.kernel), registers=k.registers,
            block_threads=bounds[k.kernel],
            resident_threads=resident_threads(chip, k.registers, bounds[k.kernel], k.shared_bytes),
            loads_in_flight=main.peak_loads_in_flight if main else 0,
            bytes_in_flight=main.peak_bytes_in_flight if main else 0,
            regions=tuple(regions), mufu=sass.count(bodies[k.kernel], "MUFU"),
            trips=sass.round_trips(bodies[k.kernel]),
            packed_fp32=sum(sass.count(bodies[k.kernel], op) for op in sass.PACKED_FP32)))
    return out


def at_row_length(k: KernelFigures, cols: int) -> tuple[float, float]:
    """(loads, bytes) a thread of the row keeps in flight on a row of `cols`
    columns, on average over the row's threads.

    A cached row kernel fills its register cache with one straight run of
    guarded loads, so a row shorter than the cache issues only its chunks
    (vectors / threads a thread, on average) of kChunks, never more than the
    SASS shows in flight at once (where the compiler serialized them). A
    streamed one is nvcc's unrolled loop: it runs the first (chunks mod 4) one
    load at a time in a remainder loop, then blocks of 4 (and of 16 where the
    body is small) with their loads together; a thread with fewer than 4
    chunks runs only the remainder loop."""
    v = k.variant
    if v is None or v.threads_per_row is None:
        return k.loads_in_flight, k.bytes_in_flight  # grid-stride: the row length does not matter
    per_thread = max(cols // v.vector, 1) / v.threads_per_row  # chunks a thread, on average
    width = k.bytes_in_flight / max(k.loads_in_flight, 1)
    if v.chunks:
        per_chunk = -(-k.loads_in_flight // v.chunks)  # one load per row input it reads
        loads = min(float(k.loads_in_flight), per_thread * per_chunk)
        return loads, loads * width
    loading = [r for r in k.regions if r.loads]
    loops = [r for r in loading if r.is_loop]
    if not loops:
        return k.loads_in_flight, k.bytes_in_flight
    steady = max(loading, key=lambda r: (r.peak_bytes_in_flight, r.peak_loads_in_flight))
    remainder = min(loops, key=lambda r: r.loads)
    taken = steady if per_thread >= NVCC_UNROLL else remainder
    return float(taken.peak_loads_in_flight), float(taken.peak_bytes_in_flight)


@dataclass(frozen=True)
class Launch:
    """One branch of a row kernel's generated host launch: rows of at most
    `max_cols` columns (None: any) run `variant` when the tensors are aligned: on whole
    16-byte vectors, or for a `wide` branch on whole 32-byte ones of `multiple` columns, on a
    device with 32-byte accesses."""

    max_cols: int | None
    variant: Variant
    wide: bool = False
    multiple: int = 1  # a wide branch's rows are whole kWideVectorWidth vectors


_LAUNCH = re.compile(r"if \((vectorized|wide)(?: && [^)]*? <= (\d+))?\) \{\s*status = "
                     r"launch_rows<(\w+), (\w+), (\d+)>")


def row_launches(kernel_cu: str) -> list[Launch]:
    """The vectorized branches of a generated row kernel's launch, in order (the 32-byte
    `wide` ones first, where it has them)."""
    constants = {m.group(1): int(m.group(2)) for m in
                 re.finditer(r"constexpr int(?:64_t)? (k\w+) = (\d+);", kernel_cu)}
    constants["kWarpSize"] = constants.get("kWarpSize", 32)

    def value(token: str) -> int:
        return int(token) if token.isdigit() else constants[token]

    wide_width = constants.get("kWideVectorWidth", 1)
    return [Launch(int(m.group(2)) if m.group(2) else None,
                   Variant(value(m.group(3)), value(m.group(4)), value(m.group(5))),
                   wide=m.group(1) == "wide", multiple=wide_width if m.group(1) == "wide" else 1)
            for m in _LAUNCH.finditer(kernel_cu)]


def launched(launches: list[Launch], cols: int, wide: bool = False) -> Variant | None:
    """The variant rows of `cols` columns take (aligned tensors), on a device with 32-byte
    accesses when `wide` (Chip.wide_accesses)."""
    return next((l.variant for l in launches
                 if (not l.wide or (wide and cols % l.multiple == 0))
                 and (l.max_cols is None or cols <= l.max_cols)), None)


def bundle_figures(bundle: Path, chip: Chip = H200) -> list[KernelFigures]:
    """Compile `bundle` for the chip's arch as the harness would, and read its kernels."""
    with tempfile.TemporaryDirectory(prefix="solbench-mlp-") as tmp:
        keep = Path(tmp)
        results = check_bundle(bundle, [chip.arch], ptx_dir=keep, mode=Mode.DEVICE)
        if problems := failures(results):
            raise ValueError("; ".join(problems))
        out = []
        for r in results:
            stem = Path(r.source).stem
            cubin, ptx = keep / f"{stem}.{chip.arch}.cubin", keep / f"{stem}.{chip.arch}.ptx"
            out += figures(r.kernels, sass.disassemble(cubin), ptx.read_text(), chip)
        return out


STANDARD_COLS = (128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)


def row_lengths(definition: dict) -> list[int] | None:
    """The row lengths to look at: the constant one when the row axis (the last of
    the first input) is constant, else STANDARD_COLS; None when it has no axis."""
    inputs = list(definition.get("inputs", {}).values())
    shape = inputs[0].get("shape") if inputs else None
    if not shape:
        return None
    axis = definition.get("axes", {}).get(shape[-1], {})
    return [int(axis["value"])] if axis.get("type") == "const" else list(STANDARD_COLS)


@dataclass(frozen=True)
class RowFigures:
    """What one row length of a bundle runs, and what it keeps in flight."""

    cols: int | None  # None: a grid-stride kernel, the same at every length
    kernel: KernelFigures
    loads_in_flight: float  # per thread, on average
    bytes_in_flight: float  # per thread, on average

    @property
    def bytes_in_flight_per_sm(self) -> float:
        return self.kernel.resident_threads * self.bytes_in_flight


def workload_row_lengths(bundle: Path, min_elements: int) -> list[int]:
    """The row lengths (last axis of the first input) of the bundle's workloads whose
    first input has at least `min_elements`; const, var and expr axes resolved as the
    conformance checker resolves them."""
    from solbench.conformance.problem import load_definition, load_workloads, resolve_axes

    defn = load_definition(bundle / "definition.json")
    shaped = [s for s in defn.inputs if s.shape]
    if not shaped:
        return []
    found = set()
    for w in load_workloads(bundle / "workload.jsonl", defn):
        axes = resolve_axes(defn, w.axes)
        dims = [axes[a] for a in shaped[0].shape]
        if math.prod(dims) >= min_elements:
            found.add(dims[-1])
    return sorted(found)


def per_row_length(kernels: list[KernelFigures], kernel_cu: str, definition: dict,
                   lengths: list[int] | None = None, chip: Chip = H200) -> list[RowFigures]:
    """The vectorized kernel each row length launches on `chip` (`lengths`, by default
    row_lengths(definition)), and its bytes in flight there."""
    launches = row_launches(kernel_cu)
    vector = [k for k in kernels if k.variant and not k.variant.is_fallback]
    if not launches:  # gated: one vector kernel for every shape
        return [RowFigures(None, k, k.loads_in_flight, k.bytes_in_flight) for k in vector]
    if lengths is None:
        lengths = row_lengths(definition) or []
    out = []
    for cols in lengths:
        variant = launched(launches, cols, chip.wide_accesses)
        if variant is None:
            raise ValueError(f"no vectorized launch takes rows of {cols} columns")
        if cols % variant.vector:
            continue  # not vectorizable: the fallback runs
        kernel = next((k for k in vector if k.variant == variant), None)
        if kernel is None:
            raise ValueError(f"the launch runs {variant}, which was not compiled")
        out.append(RowFigures(cols, kernel, *at_row_length(kernel, cols)))
    return out


def bundle_rows(bundle: Path, chip: Chip = H200) -> list[RowFigures]:
    kernels = bundle_figures(bundle, chip)
    definition = json.loads((bundle / "definition.json").read_text())
    sources = "".join(p.read_text() for p in sorted(bundle.glob("*.cu")))
    return per_row_length(kernels, sources, definition, chip=chip)


def markdown_row(bundle: str, r: RowFigures, need: float) -> str:
    k = r.kernel
    width = k.bytes_in_flight // max(k.loads_in_flight, 1)
    return (f"| {bundle} | {r.cols if r.cols is not None else 'any'} | "
            f"{k.variant.describe() if k.variant else '?'} | {k.registers} | "
            f"{k.resident_threads} | {r.loads_in_flight:.1f} x {width} B | "
            f"{r.bytes_in_flight_per_sm / 1024:.0f} KiB | {r.bytes_in_flight_per_sm / need:.1f}x | "
            f"{'-' if k.mufu_per_element is None else f'{k.mufu_per_element:.2f}'} | "
            f"{'-' if k.round_trips_per_row is None else k.round_trips_per_row} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solbench.load_parallelism",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("bundles", type=Path, nargs="+")
    parser.add_argument("--latency-ns", type=float, default=DEFAULT_LATENCY_NS,
                        help=f"assumed loaded DRAM latency (default {DEFAULT_LATENCY_NS:g})")
    parser.add_argument("--chip", choices=["H200", "B200"], default="H200")
    args = parser.parse_args(argv)
    chip = CHIPS[args.chip]
    need = chip.needed_bytes_in_flight(args.latency_ns)
    print(f"{chip.name}: {chip.dram_bytes_per_s / 1e12:g} TB/s x {args.latency_ns:g} ns / "
          f"{chip.sms} SMs = {need / 1024:.1f} KiB in flight per SM needed\n")
    print("| bundle | cols | kernel variant | registers | threads/SM | in flight/thread "
          "| in flight/SM | vs needed | MUFU/element | round trips/row |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    status = 0
    for bundle in args.bundles:
        try:
            rows = bundle_rows(bundle, chip)
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
            print(f"{bundle}: error: {e!r}", file=sys.stderr)
            status = 2
            continue
        for r in rows:
            print(markdown_row(bundle.name, r, need), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
