"""A static estimate of each generated kernel's share of the DRAM roofline, without a GPU.

    python -m solbench.perf_model BUNDLE... [--chip H200] [--chip B200] [--rows 1 16 ...]
                                            [--cols 4096 7168] [--latency-ns 800] [--fixed-ns 2000]

For a call of `rows` rows of `cols` columns, the kernel the host launches there (its branches
read from kernel.cu, its figures from the SASS of the chip's build: solbench.load_parallelism)
is estimated to take

    T = T_fixed + max(T_dram, T_latency, T_issue, T_mufu)

    T_dram     the bytes the benchmark counts (every input, output and weight once:
               score.workload_bytes) / the chip's nominal DRAM bandwidth: the roofline itself
    T_latency  waves x trips x L. A wave is the rows the chip holds at once (resident threads
               per SM / threads per row, times the SMs); a row pays `trips` dependent DRAM
               latencies L: for a cached row its round trips read from the SASS, for a streamed
               one passes x ceil(chunks a thread / loads it keeps in flight); an elementwise
               (gated) thread one latency per row it takes (its chunks of it loaded together)
    T_issue    warp instructions / (4 per SM-clock x SMs x clock): every instruction of a
               cached (straight-line) kernel, once per warp of a row; for a loop, the
               instructions outside it plus its one-chunk (remainder) loop's per chunk and pass
    T_mufu     MUFU instructions counted the same way / (16 per SM-clock x SMs x clock)
    T_fixed    the kernel's start and drain, as CUPTI times a kernel (the benchmark times from
               the first kernel's start to the last one's end: the host's launch is not in it)

share = T_dram / T (1.0 at the roofline). The small-batch ratio is T / (T_fixed + L + T_dram):
how far a call is from one round trip to memory (the issue's target: within 1.5x).

Assumptions, all to be calibrated against a GPU table: L = 800 ns (loaded, as
solbench.load_parallelism); T_fixed = 2 us; the terms overlap perfectly (max, not a sum), so
the estimate is optimistic where two are close; stores never stall; a weight broadcast over the
rows is read from DRAM once (then from L2); re-reads of a streamed row cost latency (trips),
not DRAM bytes; the clocks of load_parallelism.Chip (the benchmark locks the B200 at 1500 MHz).
The instruction counts are upper bounds where the code branches: every instruction of a region
counts, both sides of a branch (a row's tail, a 32- or 64-bit division) included.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from solbench.bench.score import workload_bytes
from solbench.conformance.problem import BundleError, Definition, load_definition
from solbench.load_parallelism import CHIPS, DEFAULT_LATENCY_NS, H200, Chip, KernelFigures, \
    at_row_length, bundle_figures, launched, row_launches

DEFAULT_FIXED_NS = 2000.0
WARP_ISSUE_PER_SM_CLOCK = 4  # one warp instruction per scheduler, four schedulers an SM
MUFU_PER_SM_CLOCK = 16  # special-function lanes an SM (sm_90 and sm_100)
STANDARD_ROWS = (1, 16, 128, 1024, 16384)
STANDARD_COLS = (4096, 7168)  # the issue's row lengths (LLM hidden sizes) for a var axis


@dataclass(frozen=True)
class Assumptions:
    latency_ns: float = DEFAULT_LATENCY_NS
    fixed_ns: float = DEFAULT_FIXED_NS


@dataclass(frozen=True)
class Work:
    """What one kernel does for one call, per unit of parallel work: a row of a row kernel (a
    group of threads), a thread of an elementwise kernel."""

    units: int  # rows, or elementwise threads
    threads_per_unit: int
    trips: int  # dependent DRAM latencies a unit pays
    instructions: float  # per thread of a unit
    mufu: float  # per thread of a unit


@dataclass(frozen=True)
class Estimate:
    chip: str
    rows: int
    cols: int
    kernel: KernelFigures
    work: Work
    t_dram: float  # seconds
    t_latency: float
    t_issue: float
    t_mufu: float
    t_fixed: float
    latency: float

    @property
    def total(self) -> float:
        return self.t_fixed + max(self.t_dram, self.t_latency, self.t_issue, self.t_mufu)

    @property
    def share(self) -> float:
        """Of the roofline: T_dram / T."""
        return self.t_dram / self.total

    @property
    def small_batch_ratio(self) -> float:
        """T against the floor of one round trip: T_fixed + L + T_dram."""
        return self.total / (self.t_fixed + self.latency + self.t_dram)

    @property
    def bound(self) -> str:
        terms = {"DRAM": self.t_dram, "latency": self.t_latency, "issue": self.t_issue,
                 "MUFU": self.t_mufu}
        return max(terms, key=lambda k: terms[k])


def function_name(mangled: str) -> str:
    """The unqualified name in an Itanium-mangled function name: _Z<len><name>I... or, inside
    namespaces (the generated kernels' anonymous one), _ZN<len><ns>...<len><name>I..."""
    rest = mangled.removeprefix("_Z")
    if rest == mangled:
        raise ValueError(f"{mangled}: not a mangled C++ name")
    rest = rest.removeprefix("N")
    name = None
    while m := re.match(r"(\d+)", rest):
        start = m.end()
        name, rest = rest[start:start + int(m.group(1))], rest[start + int(m.group(1)):]
    if not name:
        raise ValueError(f"{mangled}: not a mangled C++ name")
    return name


def kernel_function(source: str, mangled: str) -> str:
    """The body of the __global__ function `mangled` names."""
    name = function_name(mangled)
    start = re.search(r"__global__ void[^\n]*\b" + re.escape(name) + r"\(", source)
    if not start:
        raise ValueError(f"{name}: no __global__ function of that name in the sources")
    end = source.find("\n}\n", start.end())
    return source[start.start():end if end >= 0 else len(source)]


def passes(source: str, mangled: str) -> int:
    """Passes a row kernel makes over its row: its for_each_chunk loops (the reductions' passes
    and the epilogue). A streamed row re-reads its inputs in each."""
    return max(kernel_function(source, mangled).count("for_each_chunk<"), 1)


def one_chunk_loop(k: KernelFigures):
    """The loop that handles one vector chunk an iteration (nvcc's remainder loop, or a loop it
    did not unroll): the fewest instructions of the loops with vector loads."""
    loops = [r for r in k.regions if r.is_loop and r.vector_loads]
    return min(loops, key=lambda r: r.instructions) if loops else None


def straight_line(k: KernelFigures):
    return next(r for r in k.regions if not r.is_loop)


def row_work(k: KernelFigures, rows: int, cols: int, source: str) -> Work:
    """A row kernel's work per row at this length."""
    v = k.variant
    assert v is not None and v.threads_per_row is not None
    per_thread = math.ceil(math.ceil(cols / v.vector) / v.threads_per_row)  # chunks, the most
    if v.chunks:  # straight-line: every instruction issues, predicated or not
        return Work(rows, v.threads_per_row, k.trips,
                    sum(r.instructions for r in k.regions), k.mufu)
    loads, _ = at_row_length(k, cols)
    n = passes(source, k.kernel)
    trips = n * math.ceil(per_thread / max(loads, 1.0))
    loop, outside = one_chunk_loop(k), straight_line(k)
    chunk_instructions, chunk_mufu = (loop.instructions, loop.mufu) if loop else (0, 0)
    return Work(rows, v.threads_per_row, max(trips, 1),
                outside.instructions + n * per_thread * chunk_instructions,
                outside.mufu + n * per_thread * chunk_mufu)


def max_grid_rows(source: str) -> int:
    """The elementwise launch's cap on the grid's rows of blocks, the `kMaxGridRows` constant of
    the host code (CUDA's gridDim.y limit): the kernel loops over the rows past it."""
    found = re.search(r"constexpr\s+int64_t\s+kMaxGridRows\s*=\s*(\d+)", source)
    if found is None:
        raise ValueError("an elementwise kernel without a kMaxGridRows constant in its sources")
    return int(found.group(1))


def element_block(cols: int, vector: int, chunks: int, block_threads: int) -> tuple[int, int, int]:
    """launch_elements' shape for rows of `cols` columns: threads a row (blockDim.x, halved
    from a whole block while half still holds the row's chunks), rows a block (blockDim.y) and
    blocks a row (gridDim.x)."""
    row_threads = math.ceil(math.ceil(cols / vector) / chunks)
    x = block_threads
    while x > 1 and x // 2 >= row_threads:
        x //= 2
    return x, block_threads // x, math.ceil(row_threads / x)


def element_work(k: KernelFigures, rows: int, cols: int, source: str) -> Work:
    """An elementwise (2-D grid) kernel's work per thread: its chunks of one row a step of its
    row loop, all loaded before any is used (one trip), rows past the grid's looping."""
    v = k.variant
    x, y, grid_x = element_block(cols, v.vector, v.chunks or 1, k.block_threads)
    grid_y = min(math.ceil(rows / y), max_grid_rows(source))
    row_steps = math.ceil(rows / (grid_y * y))
    threads = grid_x * x * min(rows, grid_y * y)
    loop, outside = one_chunk_loop(k), straight_line(k)
    step_instructions, step_mufu = (loop.instructions, loop.mufu) if loop else (0, 0)
    return Work(threads, 1, row_steps, outside.instructions + row_steps * step_instructions,
                outside.mufu + row_steps * step_mufu)


def estimate(k: KernelFigures, defn: Definition, rows: int, cols: int, source: str,
             chip: Chip = H200, assume: Assumptions = Assumptions()) -> Estimate:
    v = k.variant
    if v is None or v.is_fallback:
        raise ValueError(f"{k.kernel}: not a vectorized solbench kernel")
    if v.threads_per_row is None:
        work = element_work(k, rows, cols, source)
    else:
        work = row_work(k, rows, cols, source)
    units_per_sm = max(k.resident_threads // work.threads_per_unit, 1)
    waves = math.ceil(work.units / (units_per_sm * chip.sms))
    latency = assume.latency_ns * 1e-9
    warps = work.units * work.threads_per_unit / 32
    per_clock = chip.sms * chip.sm_clock_hz
    return Estimate(
        chip=chip.name, rows=rows, cols=cols, kernel=k, work=work,
        t_dram=workload_bytes(defn, axes_for(defn, rows, cols)) / chip.dram_bytes_per_s,
        t_latency=waves * work.trips * latency,
        t_issue=warps * work.instructions / (WARP_ISSUE_PER_SM_CLOCK * per_clock),
        t_mufu=warps * 32 * work.mufu / (MUFU_PER_SM_CLOCK * per_clock),
        t_fixed=assume.fixed_ns * 1e-9, latency=latency)


def row_axis(defn: Definition) -> str:
    """The axis along a row: the last axis of the first tensor (inputs, then outputs) whose last
    axis is a const or a var (an expr such as swiglu's 2 x hidden follows from one)."""
    for spec in defn.inputs + defn.outputs:
        if spec.shape and spec.shape[-1] in defn.axes and \
                defn.axes[spec.shape[-1]].kind in ("const", "var"):
            return spec.shape[-1]
    raise ValueError(f"{defn.name}: no tensor ends in a const or var axis")


def axes_for(defn: Definition, rows: int, cols: int) -> dict[str, int]:
    """The var axes of a call of `rows` rows of `cols` columns: the row axis is `cols` (unless
    const), the first other var axis of the row's tensor is `rows`, every other var axis 1."""
    along = row_axis(defn)
    spec = next(s for s in defn.inputs + defn.outputs if s.shape and s.shape[-1] == along)
    leading = [a for a in spec.shape[:-1] if a in defn.axes and defn.axes[a].kind == "var"]
    values = {a.name: 1 for a in defn.axes.values() if a.kind == "var"}
    if defn.axes[along].kind == "var":
        values[along] = cols
    if leading:
        values[leading[0]] = rows
    elif rows != 1:
        raise ValueError(f"{defn.name}: no var axis for the rows")
    return values


def lengths(defn: Definition, asked: list[int] | None) -> list[int]:
    axis = defn.axes[row_axis(defn)]
    if axis.kind == "const":
        return [int(axis.value)]
    return list(asked or STANDARD_COLS)


def estimates(kernels: list[KernelFigures], defn: Definition, source: str, chip: Chip,
              rows: list[int], cols: list[int] | None = None,
              assume: Assumptions = Assumptions()) -> list[Estimate]:
    """Every (row length, rows) of a bundle on `chip`, from its kernels' figures for the chip's
    arch (load_parallelism.figures) and its sources (the launch branches, the passes)."""
    launches = row_launches(source)
    vector = [k for k in kernels if k.variant and not k.variant.is_fallback]
    out = []
    for c in lengths(defn, cols):
        if launches:
            variant = launched(launches, c, chip.wide_accesses)
            kernel = next((k for k in vector if k.variant == variant), None)
        else:  # gated: one vector kernel for every shape
            kernel = vector[0] if vector else None
        if kernel is None:
            raise ValueError(f"no compiled vectorized kernel takes rows of {c} columns")
        out += [estimate(kernel, defn, r, c, source, chip, assume) for r in rows]
    return out


def estimate_at(kernels: list[KernelFigures], defn: Definition, source: str, chip: Chip,
                rows: int, cols: int) -> Estimate | None:
    """estimates() at one (rows, cols); None where the bundle's row length is a constant other
    than cols (the bench scripts' tables skip that length)."""
    try:
        (e,) = estimates(kernels, defn, source, chip, [rows], [cols])
    except ValueError as err:
        if "const" in str(err):
            return None
        raise
    return e if e.cols == cols else None


def bundle_estimates(bundle: Path, chip: Chip, rows: list[int], cols: list[int] | None = None,
                     assume: Assumptions = Assumptions()) -> list[Estimate]:
    """estimates() of a bundle directory: compiles it for the chip's arch (nvcc, nvdisasm)."""
    defn = load_definition(bundle / "definition.json")
    source = "".join(p.read_text() for p in sorted(bundle.glob("*.cu")))
    return estimates(bundle_figures(bundle, chip), defn, source, chip, rows, cols, assume)


def markdown(bundle: str, row: list[Estimate]) -> str:
    """One table row: a bundle, a chip and a row length, its share at every row count."""
    first, last = row[0], row[-1]
    k = first.kernel
    small = max(e.small_batch_ratio for e in row if e.rows <= 128) if first.rows <= 128 else None
    return (f"| {bundle} | {first.chip} | {first.cols} | {k.variant.describe()} | {k.registers} | "
            f"{first.work.trips} | " + " | ".join(f"{e.share:.3f}" for e in row) +
            f" | {'-' if small is None else f'{small:.2f}'} | {last.bound} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solbench.perf_model",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("bundles", type=Path, nargs="+")
    parser.add_argument("--chip", choices=sorted(CHIPS), action="append")
    parser.add_argument("--rows", type=int, nargs="+", default=list(STANDARD_ROWS))
    parser.add_argument("--cols", type=int, nargs="+",
                        help=f"row lengths for a var row axis (default {STANDARD_COLS})")
    parser.add_argument("--latency-ns", type=float, default=DEFAULT_LATENCY_NS)
    parser.add_argument("--fixed-ns", type=float, default=DEFAULT_FIXED_NS)
    args = parser.parse_args(argv)
    if any(r < 1 for r in args.rows) or any(c < 1 for c in args.cols or []):
        parser.error("--rows and --cols must be positive")
    assume = Assumptions(args.latency_ns, args.fixed_ns)
    rows = sorted(set(args.rows))
    print("| bundle | chip | cols | kernel variant | registers | trips/row | " +
          " | ".join(f"{r} rows" for r in rows) + " | small-batch ratio | bound at most rows |")
    print("|---|---|---|---|---|---|" + "---|" * len(rows) + "---|---|")
    status = 0
    for bundle in args.bundles:
        for chip in [CHIPS[c] for c in (args.chip or ["H200", "B200"])]:
            try:
                found = bundle_estimates(bundle, chip, rows, args.cols, assume)
            except (OSError, ValueError, KeyError, BundleError) as e:
                print(f"{bundle}: {chip.name}: error: {e}", file=sys.stderr)
                status = 2
                continue
            for i in range(0, len(found), len(rows)):
                print(markdown(bundle.name.rstrip("/") or str(bundle), found[i:i + len(rows)]),
                      flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
