"""The differential runner (issue 18): random ops through the whole pipeline, kernel against
interpreter.

For each generated op (gen.py): `solgen OP.lg --out BUNDLE` (the in-process binding of the same
code), the bundle's kernel.cu built for solbench's CPU execution layer, and on shapes chosen to
reach every launch variant of that kernel (`shapes`), four results compared on the same inputs:

  interpreter  solbench._core.run: the LOGOS interpreter, the semantic oracle (float64)
  ir           solbench._core.evaluate_ir: the op's IR (float64), which the kernel is emitted from
  kernel       the bundle's kernel.cu on the CPU layer, guard-paged inputs and outputs, the
               outputs filled with NaN (-128 for int8) first so that an element never written shows
  reference    the bundle's reference.py (torch, float32), what `solgen check` compares against

The interpreter is the oracle. `ir` must agree with it to 1e-9 relative; `kernel` and
`reference` compute in float32, so they must agree to what float32 explains. Each element's
tolerance is 4x how far the op's own float64 result moves (a) when its float inputs are
perturbed by 2^-20 (all up, and twice by a random factor in [-1, 1] each: conditioning,
cancellation between inputs, a floor or a cast near a boundary) and (b) when every intermediate
value of the op is perturbed by 2^-22 (all up, all down, at random: gen.rounding_variant,
what float32 rounding of the intermediates does, e.g. `sqrt(erf(v)) - tanh(v + 10)`, where float32 gives exactly 0), plus
2^-16 relative and 2^-20 of the output's mean magnitude. An element off by one unit in the
last place of a narrow output type is a "flip": explained where the op's value before that
rounding (the same op with Float32 outputs, gen.wide_variant) lies on a rounding boundary
(`near_tie`: exact ties are common, sums of BFloat16 values hold few bits); elsewhere up to
max(3, 0.5%) flips are allowed, and, only in an op with a discontinuity (a cast, a typed Let,
floor/ceil/round, %, an If on data, Int arithmetic), up to max(2, 0.1%) elements beyond the
tolerance. Anything else is a disagreement. Scalars are rounded to float32 before either side
sees them (the benchmark's scalars are float32); the interpreter's binding gives None for every
non-finite value, which a non-finite kernel value matches.

Builds are the cost (one g++ run against torch's headers, ~15 s here), so the kernels of a batch
of ops are compiled as ONE translation unit: each kernel.cu text is kept byte for byte, inside
its own `namespace opN { ... }`, with what must stay at global scope hoisted above it (its
#include lines, its `extern __shared__ smem[]` declaration, the kernel header's FP8 __ldg
overloads; all identical in every kernel) and its PYBIND11_MODULE replaced by one that defines
runN for each. The build goes through solbench.conformance.backends (the flags, cache key and
lock of `solgen check --device cpu`), under <cache>/differential. When a batch does not
compile, the kernels the compiler's errors point into are reported and the rest built again.

    python3 tests/differential/runner.py --seeds 0:40 [--batch 10] [--work DIR]
        [--json summary.json] [--markdown summary.md] [--avoid LIST] [--minutes M] [--reduce]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
for p in (str(HERE), str(REPO)):
    if p not in sys.path:
        sys.path.insert(0, p)

from gen import DTYPES, Op, generate  # noqa: E402

DELTA = 2.0 ** -20  # the input perturbation that measures the op's own sensitivity
DELTA_ROUND = 2.0 ** -22  # each intermediate's, for float32's rounding of it (2^-24) in the kernel
SENS_FACTOR = 4.0
REL_FLOOR = 2.0 ** -16
ABS_FLOOR = 2.0 ** -20  # of the output's mean magnitude (a cancellation of float32 operands)
IR_REL = 1e-9
ELEMENT_BUDGET = 24000  # row-input elements per shape (the interpreter is the slow part)

# Generator features left out by default, each because it meets a bug that is open (the
# regression tests under regressions/ reproduce each; drop a name here once its bug is fixed).
# None is open. Fixed since: "then-reads" (a tensor read only in the first branch of an If was
# classified 'unread': the kernel did not compile; 804339d), regressions/then_branch_*;
# "int-division" (an Int element divided by an Int was divided as reals),
# regressions/int16_division; "broadcast-output" and "row-free-fold" (reference.py did not
# broadcast an output that reads no row input, and summed a column-invariant term once),
# regressions/output_of_a_weight_only, sum_of_a_*, reduced_seed1376_row_free_sum.
KNOWN_BUGS: dict[str, str] = {}

TORCH_DTYPE = {
    "Float32": "float32", "BFloat16": "bfloat16", "Float16": "float16", "Int8": "int8",
    "Int16": "int16", "Float8E4M3": "float8_e4m3fn", "Float8E5M2": "float8_e5m2",
}
# bits of mantissa and the smallest exponent of each type (for one unit in the last place)
ULP = {"float32": (23, -126), "bfloat16": (7, -126), "float16": (10, -14),
       "float8_e4m3fn": (3, -6), "float8_e5m2": (2, -14)}


# --- shapes -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Shape:
    rows: tuple[int, ...]  # the row axes (outermost first); () for a flat 1-d op
    cols: int  # the column axis (the half width of a packed op)
    aim: str  # the launch variant it was chosen for

    @property
    def nrows(self) -> int:
        return math.prod(self.rows) if self.rows else 1

    def __str__(self) -> str:
        return f"rows={list(self.rows)} cols={self.cols} ({self.aim})"


def kernel_vector(kernel: str) -> int:
    m = re.search(r"constexpr int64_t kVectorWidth = (\d+);", kernel)
    return int(m.group(1)) if m else 1


def row_launches(kernel: str) -> list[Any]:
    from solbench.load_parallelism import row_launches as parse

    return parse(kernel)


def _split_rows(total: int, rank: int, rng) -> tuple[int, ...]:
    """`rank` row axes whose product is about `total` (exactly, when it factors)."""
    if rank == 1:
        return (total,)
    dims = [1] * rank
    left = total
    for i in range(rank - 1):
        divisors = [d for d in range(1, min(left, 8) + 1) if left % d == 0]
        dims[i] = rng.choice(divisors)
        left //= dims[i]
    dims[-1] = left
    rng.shuffle(dims)
    return tuple(dims)


def shapes_for(op: Op, kernel: str, rng, thorough: bool = True) -> list[Shape]:
    """Shapes that reach each launch variant of the kernel: every vectorized branch at its
    longest row and at a shorter one inside it, the streamed variant past the register cache,
    the scalar fallback (a width that is not a whole number of vectors), 1 row and many (an odd
    count, so the last block holds rows past the end)."""
    vec = kernel_vector(kernel)
    width_of_row = sum(2 if p.role == "packed" else 1 for p in op.params
                       if p.role in ("row", "packed"))
    shapes: list[tuple[int, str]] = []
    off = (lambda k: vec * k + rng.randint(1, vec - 1)) if vec > 1 else (lambda k: k)
    if op.const_cols:
        base = op.const_cols // 2 if op.packed else op.const_cols
        aims = [(base, "const")]
    elif "launch_rows<" not in kernel:  # the grid-stride elementwise kernel
        aims = [(vec * rng.randint(1, 8), "vector short"),
                (vec * rng.randint(200, 600), "vector long"),
                (off(rng.randint(20, 400)), "scalar"), (1, "one column"),
                (off(0) if vec > 1 else 3, "scalar short")]
    else:
        launches = row_launches(kernel)
        aims = []
        lower = 0
        for la in launches:
            v = la.variant
            name = f"{v.threads_per_row}x{v.vector}x{v.chunks}"
            if la.max_cols is not None:
                top = la.max_cols
                aims.append((top, name + " full"))
                lo_mult = lower // vec + 1
                hi_mult = top // vec - 1
                if thorough and hi_mult >= lo_mult:
                    aims.append((vec * rng.randint(lo_mult, hi_mult), name + " part"))
                lower = top
            else:
                aims.append((lower + vec * rng.randint(1, 64), name + " streamed"))
        aims.append((off(rng.randint(2, 300)), "scalar"))
        aims.append((rng.choice([1, 3, 5]) if vec > 1 else 1, "scalar tiny"))
    for cols, aim in aims:
        shapes.append((max(1, cols), aim))
    out: list[Shape] = []
    many_done = False
    for i, (cols, aim) in enumerate(shapes):
        per_row = max(1, cols * width_of_row)
        cap = max(1, ELEMENT_BUDGET // per_row)
        if op.layout == "flat1d":
            out.append(Shape((), cols, aim))
            continue
        if i == 0:
            nrows = 1
        elif not many_done and cap >= 33:
            nrows = rng.choice([33, 37, 45])
            many_done = True
        else:
            nrows = min(cap, rng.choice([2, 3, 5, 7, 17]))
        out.append(Shape(_split_rows(nrows, op.row_rank, rng), cols, aim))
    if op.const_cols:  # only the rows vary: one row, a few, many
        cols = out[0].cols
        cap = max(1, ELEMENT_BUDGET // max(1, cols * width_of_row))
        for n in (min(cap, 5), min(cap, 37)):
            out.append(Shape(_split_rows(n, op.row_rank, rng), cols, "const rows"))
    return out


# --- inputs -------------------------------------------------------------------------------------

def _round_to(values: np.ndarray, dtype: str) -> np.ndarray:
    import torch

    t = torch.from_numpy(values.astype(np.float32))
    return t.to(getattr(torch, TORCH_DTYPE[dtype])).to(torch.float64).numpy()


def logical_shape(op: Op, role: str, shape: Shape, axis: int = -1) -> tuple[int, ...]:
    rows, cols = shape.rows, shape.cols
    if role == "row":
        return rows + (cols,)
    if role == "packed":
        return rows + (2 * cols,)
    if role == "weight":
        return (cols,)
    if role == "hweight":
        return (rows[-1], cols)
    if role == "rowscale":
        return rows
    if role == "keepscale":
        return rows + (1,)
    if role == "chscale":
        return (rows[axis],)
    if role == "perrow":
        return rows
    if role == "keepdim":
        return rows + (1,)
    raise AssertionError(role)


def draw(op: Op, shape: Shape, rng: np.random.Generator) -> dict[str, Any]:
    """Inputs inside the ranges the op was generated for, rounded to their element types. Rows
    of a row input are drawn from varied sub-ranges: the whole range, its lower or upper half
    (all negative or all positive rows, which a wrong max or min identity gets wrong), or a
    narrow band."""
    values: dict[str, Any] = {}
    for p in op.params:
        if p.role == "scalar":  # a benchmark float32 scalar: the kernel sees it rounded
            values[p.name] = float(np.float32(rng.uniform(p.lo, p.hi)))
            continue
        dims = logical_shape(op, p.role, shape, p.axis)
        kind = DTYPES[p.dtype][2]
        if p.role in ("row", "packed") and dims:
            flat_rows = int(np.prod(dims[:-1])) if len(dims) > 1 else 1
            arr = np.empty((flat_rows, dims[-1]))
            mid = 0.5 * (p.lo + p.hi)
            for r in range(flat_rows):
                c = rng.integers(4)
                lo, hi = [(p.lo, p.hi), (p.lo, mid), (mid, p.hi), (None, None)][c]
                if lo is None:
                    centre = rng.uniform(p.lo, p.hi)
                    w = (p.hi - p.lo) / 50
                    lo, hi = max(p.lo, centre - w), min(p.hi, centre + w)
                arr[r] = rng.uniform(lo, hi, dims[-1])
            arr = arr.reshape(dims)
        else:
            arr = rng.uniform(p.lo, p.hi, dims)
        if kind == "int":
            arr = np.trunc(arr).astype(np.int64)
            if p.lo > 0:
                arr = np.maximum(arr, 1)
            if p.hi < 0:
                arr = np.minimum(arr, -1)
        else:
            arr = _round_to(arr, p.dtype)
        values[p.name] = arr
    return values


def interpreter_inputs(op: Op, shape: Shape, values: dict[str, Any],
                       axis_names: tuple[str, str] | None) -> dict[str, Any]:
    """The values as the interpreter takes them: nested lists (flat ones flattened), the Int axes
    of a flat op by name, and zeroed `into` outputs of their sizes."""
    out: dict[str, Any] = {}
    for p in op.params:
        v = values[p.name]
        if isinstance(v, np.ndarray):
            out[p.name] = (v.reshape(-1) if op.layout != "nested" else v).tolist()
        else:
            out[p.name] = v
    if op.layout == "flat" and axis_names:
        out[axis_names[0]] = shape.nrows
        out[axis_names[1]] = shape.cols
    elif op.layout == "flat1d" and axis_names:
        out[axis_names[1]] = shape.cols
    if not op.returns:
        for o in op.outputs:
            dims = logical_shape(op, o.role, shape) if op.layout != "flat1d" else (shape.cols,)
            zeros = np.zeros(dims, dtype=np.int64 if DTYPES[o.dtype][2] == "int" else float)
            out[o.name] = (zeros.reshape(-1) if op.layout != "nested" else zeros).tolist()
    return out


def perturbed(op: Op, values: dict[str, Any], how: str, rng: np.random.Generator) -> dict:
    out = {}
    for p in op.params:
        v = values[p.name]
        if isinstance(v, np.ndarray) and v.dtype.kind in "iu":
            out[p.name] = v
        elif isinstance(v, np.ndarray):
            s = 1.0 if how == "up" else rng.uniform(-1.0, 1.0, v.shape)
            out[p.name] = v * (1.0 + DELTA * s)
        else:
            out[p.name] = v * (1.0 + DELTA * (1.0 if how == "up" else rng.uniform(-1.0, 1.0)))
    return out


# --- building -----------------------------------------------------------------------------------

PYBIND = re.compile(r"PYBIND11_MODULE\(TORCH_EXTENSION_NAME, m\) \{.*?\n\}\n?", re.S)
SMEM = "extern __shared__ __align__(16) unsigned char smem[];"
# The FP8 __ldg overloads the kernel header defines at global scope: inside a namespace they
# would hide the unsigned char __ldg they call, so they stay global (identical in every kernel).
GLOBAL_LDG = re.compile(r"^__device__ __forceinline__ __nv_fp8_\w+ __ldg\(.*?\n\}\n", re.S | re.M)


def combine(kernels: list[str]) -> str:
    """One translation unit holding every kernel.cu text unchanged, each in its own namespace
    (its includes and its smem declaration hoisted; one PYBIND11_MODULE defining runN)."""
    return combine_with_lines(kernels)[0]


def combine_with_lines(kernels: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """combine(), and the 1-based line range of each kernel in the text."""
    includes: list[str] = []
    hoisted: list[str] = []
    bodies = []
    for i, text in enumerate(kernels):
        if len(PYBIND.findall(text)) != 1:
            raise ValueError(f"kernel {i} has no single PYBIND11_MODULE block")
        text = PYBIND.sub("", text)
        for m in GLOBAL_LDG.finditer(text):
            if m.group(0) not in hoisted:
                hoisted.append(m.group(0))
        text = GLOBAL_LDG.sub("", text)
        kept = []
        for line in text.splitlines():
            if line.startswith("#include"):
                if line not in includes:
                    includes.append(line)
            elif line.strip() != SMEM:
                kept.append(line)
        bodies.append(f"namespace op{i} {{\n" + "\n".join(kept) + f"\n}} // namespace op{i}\n")
    module = "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n" + "".join(
        f'    m.def("run{i}", &op{i}::run);\n' for i in range(len(kernels))) + "}\n"
    head = "\n".join(includes) + "\n\n" + SMEM + "\n\n" + "".join(hoisted) + "\n"
    ranges = []
    line = head.count("\n") + 1
    for b in bodies:
        n = b.count("\n") + 1  # the joining newline
        ranges.append((line, line + n - 1))
        line += n
    return head + "\n".join(bodies) + "\n" + module, ranges


def build_root() -> Path:
    from solbench.conformance.backends import cache_root

    return Path(os.environ.get("SOLBENCH_DIFFERENTIAL_CACHE") or cache_root() / "differential")


def build_source(text: str, template_solution: Path, root: Path | None = None,
                 entry: str = "run") -> Any:
    """Builds one kernel source for the CPU layer through solbench's own build path (the same
    flags, cache key and lock as `solgen check --device cpu`), under the differential cache."""
    from solbench.conformance import backends, problem

    sol = problem.load_solution(template_solution)
    sol = dataclasses.replace(sol, sources=[problem.Source("kernel.cu", text)],
                              entry_file="kernel.cu", entry_function=entry)
    plan = backends.plan_build(sol, backends.Backend.CPU, root=root or build_root())
    return backends.build(plan, sol), Path(plan.build_dir)


def build_bundle(bundle: Path, root: Path | None = None) -> Any:
    """A bundle's kernel.cu exactly as `solgen check --device cpu` builds it."""
    from solbench.conformance import backends, problem

    sol = problem.load_solution(bundle / "solution.json")
    plan = backends.plan_build(sol, backends.Backend.CPU, root=root or build_root())
    return backends.build(plan, sol)


def build_batch(kernels: list[str], template_solution: Path,
                root: Path | None = None) -> tuple[list[Callable | str], Path | None, float]:
    """The kernels' run functions (or, for one that does not compile, the compiler's message),
    the build directory, and the build's wall time. When the batch does not compile, the
    kernels the compiler's errors point into are set aside and the rest is built again."""
    t = time.time()
    out: list[Callable | str | None] = [None] * len(kernels)
    todo = list(range(len(kernels)))
    where = None
    for _ in range(4):
        text, ranges = combine_with_lines([kernels[i] for i in todo])
        try:
            mod, where = build_source(text, template_solution, root, entry="run0")
            for k, i in enumerate(todo):
                out[i] = getattr(mod, f"run{k}")
            return out, where, time.time() - t  # type: ignore[return-value]
        except Exception as e:  # noqa: BLE001 - find the kernels at fault
            message = str(e)
            lines = [int(m.group(1)) for m in re.finditer(r"kernel_cu\.cpp:(\d+):\d+: error", message)]
            bad = {k for k, (a, b) in enumerate(ranges) for n in lines if a <= n <= b}
            if not bad:
                break
            for k in sorted(bad):
                errors = [ln for ln in message.splitlines() if ": error" in ln]
                out[todo[k]] = "does not compile: " + "\n".join(errors)[:1500]
            todo = [i for k, i in enumerate(todo) if k not in bad]
            if not todo:
                return out, None, time.time() - t  # type: ignore[return-value]
    for i in todo:  # no error points into a kernel: one by one, as solgen check builds it
        try:
            mod, _ = build_source(kernels[i], template_solution, root)
            out[i] = getattr(mod, "run")
        except Exception as e:  # noqa: BLE001
            out[i] = f"does not compile: {type(e).__name__}: {str(e)[-1500:]}"
    if all(callable(f) for f in out):
        raise RuntimeError("the batched build failed but every kernel builds alone")
    return out, None, time.time() - t  # type: ignore[return-value]


# --- one op -------------------------------------------------------------------------------------

@dataclass
class Mismatch:
    oracle: str  # ir | kernel | reference | definition | run
    output: str
    shape: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return dataclasses.asdict(self)


@dataclass
class CaseResult:
    seed: int
    status: str  # agree | disagree | refused | invalid | error
    family: str = ""  # the family solgen recognized
    intended: str = ""
    message: str = ""
    mismatches: list[Mismatch] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)
    shapes: int = 0
    seconds: float = 0.0
    lg: str = ""
    index: int = 0

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["mismatches"] = [m.to_json() for m in self.mismatches]
        return d


@dataclass
class Case:
    op: Op
    workdir: Path
    lg: Path
    bundle: Path
    kernel: str = ""
    explain: dict = field(default_factory=dict)
    refused: str | None = None  # solgen's message when it refused the op
    result: CaseResult | None = None
    index: int = 0  # its place in the list run_ops was given


def prepare(op: Op, workdir: Path) -> Case:
    """The op's file, solgen's explain and bundle (via the binding of solgen's own code)."""
    import solbench._core as core

    workdir.mkdir(parents=True, exist_ok=True)
    lg = workdir / f"{op.name}.lg"
    lg.write_text(op.text)
    case = Case(op, workdir, lg, workdir / "bundle")
    case.explain = core.explain(str(lg))
    if "refused" in case.explain or "errors" in case.explain:
        case.refused = json.dumps(case.explain.get("refused") or case.explain.get("errors"))
        return case
    try:
        if case.bundle.exists():
            shutil.rmtree(case.bundle)
        core.generate(str(lg), str(case.bundle), core.GenerateOptions(force=True))
    except Exception as e:  # noqa: BLE001 - a recognized op that does not generate
        case.refused = f"generate: {e}"
        return case
    case.kernel = (case.bundle / "kernel.cu").read_text()
    return case


def axis_names(op: Op) -> tuple[str, str] | None:
    return tuple(op.axis_names) if op.axis_names else None  # type: ignore[return-value]


def ulp(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype in ("int8", "int16"):
        return np.ones_like(values)
    bits, emin = ULP[dtype]
    with np.errstate(divide="ignore"):
        e = np.floor(np.log2(np.maximum(np.abs(values), 1e-300)))
    e = np.maximum(e, emin)
    return np.exp2(e - bits)


@dataclass
class Verdict:
    ok: bool
    detail: str = ""


def near_tie(v: np.ndarray, dtype: str, sens: np.ndarray | None) -> np.ndarray:
    """Where a value (before its rounding to dtype) is within float32's reach of a rounding
    boundary of dtype: halfway between two neighbours, so that a float32 and a float64
    computation of it may round to either (common: sums of BFloat16 or Float16 values hold few
    bits, and land exactly on a BFloat16 tie). Reach: 2^-17 relative, or 4x its sensitivity."""
    import torch

    with np.errstate(invalid="ignore", over="ignore"):
        r = torch.from_numpy(v.astype(np.float32)).to(getattr(torch, dtype)).to(
            torch.float64).numpy()
        u = ulp(np.maximum(np.abs(v), np.abs(r)), dtype)
        dist = np.abs(np.abs(v - r) - u / 2)
        reach = 2.0 ** -17 * np.abs(v)
        if sens is not None:
            reach = np.maximum(reach, SENS_FACTOR * np.asarray(sens).reshape(-1))
        return np.isfinite(v) & (dist <= reach)


def compare(got: np.ndarray, want: np.ndarray, sens: np.ndarray | None, dtype: str,
            discontinuous: bool, rel: float | None = None,
            ties: np.ndarray | None = None) -> Verdict:
    """See the module docstring: `sens` None means the tight float64 comparison; `ties` marks
    the elements on a rounding boundary of the output type (a flip there is explained)."""
    got = np.asarray(got, dtype=float).reshape(-1)
    want = np.asarray(want, dtype=float).reshape(-1)
    if got.shape != want.shape:
        return Verdict(False, f"{got.size} elements instead of {want.size}")
    n = want.size
    if n == 0:
        return Verdict(True)
    # the interpreter's binding gives None (NaN here) for every non-finite value, +-inf too
    same = (got == want) | (np.isnan(want) & ~np.isfinite(got))
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(got - want)
        if sens is None:
            tol = (rel or IR_REL) * np.abs(want) + 1e-12
        else:
            s = np.asarray(sens, dtype=float).reshape(-1)
            s = np.where(np.isfinite(s), s, np.inf)
            finite = np.abs(want[np.isfinite(want)])
            scale = float(finite.mean()) if finite.size else 0.0
            tol = SENS_FACTOR * s + REL_FLOOR * np.abs(want) + ABS_FLOOR * scale + 1e-30
    within = same | (err <= tol)
    either = np.maximum(np.abs(np.nan_to_num(got)), np.abs(np.nan_to_num(want)))
    flip = ~within & (err <= ulp(either, dtype) * (1.0 + 1e-9)) & np.isfinite(err)
    if ties is not None and ties.shape == flip.shape:
        within = within | (flip & ties)
        flip = flip & ~ties
    beyond = ~within & ~flip
    flips, bad = int(flip.sum()), int(beyond.sum())
    flip_budget = max(3, int(0.005 * n))
    bad_budget = max(2, int(0.001 * n)) if discontinuous else 0
    ok = flips <= flip_budget and bad <= bad_budget
    if ok:
        return Verdict(True)
    idx = np.nonzero(beyond if bad > bad_budget else flip)[0]
    worst = idx[np.argmax(np.where(np.isfinite(err[idx]), err[idx], np.inf))]
    detail = (f"{bad} beyond tolerance, {flips} off by one ulp, of {n}; e.g. element {worst}: "
              f"got {got[worst]!r}, want {want[worst]!r}, tolerance {tol[worst]:.3g}")
    return Verdict(False, detail)


def discontinuous(op: Op) -> bool:
    found = False

    def walk(e: Any) -> None:
        nonlocal found
        if isinstance(e, tuple):
            if e and e[0] == "un" and e[1] in ("floor", "ceil", "round"):
                found = True
            if e and e[0] in ("cast", "cmp", "between"):
                found = True
            if e and e[0] == "bin" and e[1] == "%":
                found = True
            for c in e:
                walk(c)
        elif isinstance(e, list):
            for c in e:
                walk(c)
    walk([o.expr for o in op.outputs] + [[t[1], t[2]] for t in op.temps] +
         [rv[1] for rv in op.rowvals] + [[r.term, r.cond, r.other] for r in op.reductions] +
         [h.body for h in op.helpers])
    if any(rv[2] for rv in op.rowvals) or any(t[2][1] for t in op.temps):
        found = True
    if any(t != "Real" for h in op.helpers for _, t in h.params + [("", h.result)]):
        found = True
    if any(DTYPES[p.dtype][2] == "int" for p in op.params if p.role != "scalar"):
        found = True  # Int arithmetic (truncating divisions) in the interpreter
    return found


def variant_of(case: Case, shape: Shape, tensors: dict[str, Any], axes: dict[str, int]) -> str:
    """Which branch of the host launch these tensors take (as kernel.cu decides it)."""
    kernel = case.kernel
    m = re.search(r"const bool vectorized = (.*?);\n", kernel)
    vec = kernel_vector(kernel)
    if not m:
        return "grid"
    cond = m.group(1)

    def aligned(name: str) -> bool:
        t = tensors.get(name.rstrip("_"))
        return t is None or t.data_ptr() % 16 == 0
    py = re.sub(r"aligned16\((\w+)\)", lambda mm: str(aligned(mm.group(1))), cond)
    py = py.replace("&&", " and ").replace("kVectorWidth", str(vec))
    names: dict[str, int] = {m.group(1): int(m.group(2)) for m in
                             re.finditer(r"constexpr int(?:64_t)? (k\w+) = (\d+);", kernel)}
    for a, v in axes.items():  # the kernel's spelling of an axis that shadows its own `cols`
        names[a] = names[a + "_"] = v
    try:
        vectorized = bool(eval(py, {"__builtins__": {}}, names))  # noqa: S307 - our text
    except Exception:  # noqa: BLE001
        return "unknown"
    if not vectorized:
        return "scalar"
    launches = row_launches(kernel)
    if not launches:
        return f"vector{vec}"
    from solbench.load_parallelism import launched

    v = launched(launches, shape.cols)
    return f"{v.threads_per_row}x{v.vector}x{v.chunks}" if v else "unknown"


@dataclass
class ShapeRun:
    """Everything one shape gave (kept for debugging and for the reducer)."""
    shape: Shape
    values: dict[str, Any]
    want: dict[str, np.ndarray] = field(default_factory=dict)
    got: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)  # oracle -> outputs
    sens: dict[str, np.ndarray] = field(default_factory=dict)
    mismatches: list[Mismatch] = field(default_factory=list)
    invalid: str = ""
    variant: str = ""
    ties: dict[str, np.ndarray] = field(default_factory=dict)


class Context:
    """What the shapes of one case share: the definition, the reference, the flags."""

    def __init__(self, case: Case, oracles: tuple[str, ...]):
        from solbench.conformance import problem
        from solbench.conformance.inputs import load_reference

        self.case = case
        self.oracles = oracles
        self.defn = problem.load_definition(case.bundle / "definition.json")
        self.reference = load_reference(self.defn)["run"] if "reference" in oracles else None
        self.names = axis_names(case.op)
        self.disc = discontinuous(case.op)
        self.rounding: tuple[Op, list[str], Path] | None = None
        if "ir" in oracles:
            import solbench._core as core
            from gen import rounding_variant

            from gen import wide_variant

            v, qs = rounding_variant(wide_variant(case.op) or case.op)
            path = case.workdir / f"{case.op.name}_rounding.lg"
            path.write_text(v.text)
            ex = core.explain(str(path))
            if "refused" not in ex and "errors" not in ex:
                self.rounding = (v, qs, path)
            else:  # the variant should be accepted as the op is; say so, measure without it
                self.rounding_refused = json.dumps(ex.get("refused") or ex.get("errors"))
            self.wide: Path | None = None
            w = wide_variant(case.op)
            if w is not None:
                wpath = case.workdir / f"{w.name}.lg"
                wpath.write_text(w.text)
                ex = core.explain(str(wpath))
                if "refused" not in ex and "errors" not in ex:
                    self.wide = wpath
        else:
            self.wide = None


def run_shape(ctx: Context, fn: Callable | None, shape: Shape, seed: int, index: int) -> ShapeRun:
    """One shape: inputs drawn from (seed, index) alone, so any shape can be replayed."""
    import torch

    import solbench._core as core
    from solbench.conformance import backends, problem
    from solbench.conformance.inputs import normalize_outputs

    case, op, defn = ctx.case, ctx.case.op, ctx.defn
    rng = np.random.default_rng([seed, index, 0])
    values = draw(op, shape, rng)
    run = ShapeRun(shape, values)
    where = str(shape)
    inputs = interpreter_inputs(op, shape, values, ctx.names)
    try:
        want = core.run(str(case.lg), inputs)
    except Exception as e:  # noqa: BLE001 - the op faults on its own inputs
        run.invalid = f"the interpreter stopped on {shape}: {str(e)[:600]}"
        return run
    want = {k: np.asarray(v, dtype=float) for k, v in want.items()}
    logical = {}
    for o in op.outputs:
        name = "output" if op.returns else o.name
        dims = (shape.cols,) if op.layout == "flat1d" else logical_shape(op, o.role, shape)
        if name not in want or want[name].size != math.prod(dims):
            run.mismatches.append(Mismatch("run", name, where,
                                           f"the interpreter gave {list(want)} of sizes "
                                           f"{[v.size for v in want.values()]}"))
            return run
        want[name] = want[name].reshape(dims)
        logical[name] = dims
    run.want = want
    sens: dict[str, np.ndarray] = {k: np.zeros(v.size) for k, v in want.items()}
    run.sens = sens
    if "ir" in ctx.oracles:
        try:
            got = core.evaluate_ir(str(case.lg), inputs)
        except Exception as e:  # noqa: BLE001 - the interpreter ran this op on these inputs
            run.mismatches.append(Mismatch("ir", "", where, f"evaluate_ir raised "
                                           f"{type(e).__name__}: {str(e)[:600]}"))
            return run
        run.got["ir"] = {}
        for name in logical:
            g = np.asarray(got.get(name, []), dtype=float)
            run.got["ir"][name] = g
            v = compare(g, want[name], None, defn_dtype(defn, name), ctx.disc)
            if not v.ok:
                run.mismatches.append(Mismatch("ir", name, where, v.detail))
        # the op's sensitivity, measured on its values before the outputs' own rounding (the
        # wide variant; for Float32 outputs the same): a narrow output hides what is under
        # its last place, and float32's errors there decide which way it rounds
        path = ctx.wide or case.lg
        base = got
        if ctx.wide is not None:
            try:
                base = core.evaluate_ir(str(ctx.wide), inputs)
            except Exception:  # noqa: BLE001
                base, path = got, case.lg
        base_v = {name: np.asarray(base[name], dtype=float).reshape(-1) for name in logical}

        def measure(out: dict) -> None:
            for name in logical:
                pv = np.asarray(out[name], dtype=float).reshape(-1)
                w = base_v[name]
                with np.errstate(invalid="ignore"):
                    d = np.abs(pv - w)
                d = np.where(np.isnan(d) & ~(np.isnan(pv) & np.isnan(w)), np.inf,
                             np.nan_to_num(d, nan=0.0))
                sens[name] = np.maximum(sens[name], d)
        prng = np.random.default_rng([seed, index, 1])
        for how in ("up", "random", "random"):
            p_in = interpreter_inputs(op, shape, perturbed(op, values, how, prng), ctx.names)
            try:
                measure(core.evaluate_ir(str(path), p_in))
            except Exception:  # noqa: BLE001 - perturbed out of the op's domain: no measure
                continue
        if ctx.rounding is not None:  # each intermediate rounded (see gen.rounding_variant)
            v, qs, qpath = ctx.rounding
            for k in range(3):  # all up, all down (a threshold just crossed), at random
                qv = dict(values)
                qv.update({q: 1.0 + DELTA_ROUND * ((1.0, -1.0)[k] if k < 2 else
                                                   prng.uniform(-1.0, 1.0)) for q in qs})
                try:
                    measure(core.evaluate_ir(str(qpath), interpreter_inputs(v, shape, qv,
                                                                            ctx.names)))
                except Exception:  # noqa: BLE001
                    continue
        ties: dict[str, np.ndarray] = {}
        if ctx.wide is not None:  # elements whose exact value sits on a rounding boundary
            for spec in defn.outputs:
                if spec.name in base_v and spec.dtype in ULP and spec.dtype != "float32":
                    ties[spec.name] = near_tie(base_v[spec.name], spec.dtype, sens[spec.name])
    else:
        ties = {}
    run.ties = ties

    def record(oracle: str, outs: list) -> None:
        """The float32 oracles' outputs, each against the interpreter within its tolerance."""
        run.got[oracle] = {}
        for spec, o in zip(defn.outputs, outs):
            g = o.to(torch.float64).numpy()
            run.got[oracle][spec.name] = g
            v = compare(g, want[spec.name], sens[spec.name], spec.dtype, ctx.disc,
                        ties=ties.get(spec.name))
            if not v.ok:
                run.mismatches.append(Mismatch(oracle, spec.name, where, v.detail))

    axes, problems = definition_axes(defn, op, shape)
    if problems:
        run.mismatches.append(Mismatch("definition", "", where, problems))
        return run
    args: list[Any] = []
    for spec in defn.inputs:
        v = values.get(spec.name)
        if spec.shape is None:
            args.append(float(v))
            continue
        arr = np.asarray(v)
        if arr.dtype.kind in "iu":
            t = torch.from_numpy(arr.astype(np.int64)).to(getattr(torch, spec.dtype))
        else:
            t = torch.from_numpy(arr.astype(np.float32)).to(getattr(torch, spec.dtype))
        args.append(t.reshape(problem.shape_of(spec, axes)))
    if ctx.reference is not None:
        try:
            with torch.no_grad():
                r = ctx.reference(*[a.clone() if isinstance(a, torch.Tensor) else a
                                    for a in args])
            r = normalize_outputs(r, defn.outputs, to_tensor=True)
            record("reference", r)
        except Exception as e:  # noqa: BLE001
            run.mismatches.append(Mismatch("reference", "", where,
                                           f"reference.py raised {type(e).__name__}: {e}"))
    if fn is not None and "kernel" in ctx.oracles:
        cpu = backends.Backend.CPU
        k_args = [cpu.solution_input(a) for a in args]
        tensors = {spec.name: a for spec, a in zip(defn.inputs, k_args) if spec.shape is not None}
        k_outs = []
        for spec in defn.outputs:
            o = cpu.solution_output(problem.shape_of(spec, axes), getattr(torch, spec.dtype),
                                    "cpu")
            sentinel(o)
            tensors[spec.name] = o
            k_outs.append(o)
        run.variant = variant_of(case, shape, tensors, axes)
        try:
            fn(*k_args, *k_outs)
        except Exception as e:  # noqa: BLE001 - a fault in the kernel
            run.mismatches.append(Mismatch("kernel", "", where,
                                           f"the kernel raised {type(e).__name__}: "
                                           f"{str(e)[:800]}"))
            return run
        record("kernel", k_outs)
    return run


def run_case(case: Case, fn: Callable | None, shapes: list[Shape], seed: int,
             oracles: tuple[str, ...] = ("ir", "kernel", "reference")) -> CaseResult:
    """Runs one prepared op on its shapes; fn is the built kernel's run (None: no kernel)."""
    op = case.op
    res = CaseResult(op.seed, "agree", family=case.explain.get("family", ""),
                     intended=op.family, forms=sorted(k for k, v in op.style.items() if v),
                     lg=op.text)
    t0 = time.time()
    ctx = Context(case, oracles)
    for i, shape in enumerate(shapes):
        run = run_shape(ctx, fn, shape, seed, i)
        if run.invalid:
            res.status, res.message = "invalid", run.invalid
            break
        res.mismatches += run.mismatches
        if run.variant:
            res.variants.append(run.variant)
        res.shapes += 1
    if res.mismatches and res.status == "agree":
        res.status = "disagree"
    res.seconds = time.time() - t0
    return res


def defn_dtype(defn: Any, name: str) -> str:
    return next(s.dtype for s in defn.outputs if s.name == name)


def sentinel(t: Any) -> None:
    """Fill an output with what no op writes: NaN, or -128 for int8 (ops clamp to +-127)."""
    import torch

    if t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        t.view(torch.uint8).fill_(0x7F)
    elif t.dtype == torch.int8:
        t.fill_(-128)
    elif t.dtype == torch.int16:
        t.fill_(-32768)
    else:
        t.fill_(float("nan"))


def definition_axes(defn: Any, op: Op, shape: Shape) -> tuple[dict[str, int], str]:
    """The definition's axis values for the shape, and any tensor whose shape in the definition
    is not the one the op was written for."""
    from solbench.conformance import problem

    mine: dict[str, tuple[int, ...]] = {}
    for p in op.params:
        if p.role != "scalar":
            mine[p.name] = (shape.cols,) if op.layout == "flat1d" else \
                logical_shape(op, p.role, shape, p.axis)
    for o in op.outputs:
        name = "output" if op.returns else o.name
        mine[name] = (shape.cols,) if op.layout == "flat1d" else logical_shape(op, o.role, shape)
    var: dict[str, int] = {}
    for spec in list(defn.inputs) + list(defn.outputs):
        if spec.shape is None or spec.name not in mine:
            continue
        dims = mine[spec.name]
        if len(dims) != len(spec.shape):
            return {}, f"{spec.name}: definition shape {spec.shape} for a tensor of shape {dims}"
        for a, d in zip(spec.shape, dims):
            axis = defn.axes.get(a)
            if axis is not None and axis.kind == "var":
                var.setdefault(a, d)
    try:
        axes = problem.resolve_axes(defn, var)
    except Exception as e:  # noqa: BLE001
        return {}, f"axes do not resolve: {e}"
    for spec in list(defn.inputs) + list(defn.outputs):
        if spec.shape is None or spec.name not in mine:
            continue
        if problem.shape_of(spec, axes) != mine[spec.name]:
            return {}, (f"{spec.name}: definition shape {spec.shape} = "
                        f"{problem.shape_of(spec, axes)}, the op's is {mine[spec.name]}")
    return axes, ""


# --- many ops -----------------------------------------------------------------------------------

@dataclass
class RunSummary:
    results: list[CaseResult] = field(default_factory=list)
    builds: list[dict[str, Any]] = field(default_factory=list)
    started: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        from collections import Counter

        statuses = Counter(r.status for r in self.results)
        variants = Counter(v for r in self.results for v in r.variants)
        forms = Counter(f for r in self.results for f in r.forms if r.status in
                        ("agree", "disagree"))
        families = Counter(r.family for r in self.results if r.family)
        return {
            "ops": len(self.results), "statuses": dict(statuses),
            "families": dict(families), "variants": dict(sorted(variants.items())),
            "forms": dict(sorted(forms.items())),
            "shapes_run": sum(r.shapes for r in self.results),
            "builds": self.builds,
            "build_seconds": round(sum(b["seconds"] for b in self.builds), 1),
            "wall_seconds": round(time.time() - self.started, 1),
            "disagreements": [r.to_json() for r in self.results if r.status == "disagree"],
            "refusals": [{"seed": r.seed, "intended": r.intended, "message": r.message,
                          "lg": r.lg} for r in self.results if r.status == "refused"],
            "invalid": [{"seed": r.seed, "message": r.message} for r in self.results
                        if r.status == "invalid"],
            "errors": [{"seed": r.seed, "message": r.message} for r in self.results
                       if r.status == "error"],
        }


def run_seeds(seeds: list[int], work: Path, batch: int = 10, avoid: frozenset[str] = frozenset(),
              log: Callable[[str], None] = print, keep_builds: bool = True,
              on_batch: Callable[[RunSummary], None] | None = None,
              deadline: float | None = None) -> RunSummary:
    """Generates the ops of the seeds, builds them (a batch at a time, the next batch building
    while this one runs) and compares."""
    summary = RunSummary()
    step = batch * 5  # generated and prepared as they are needed
    for k in range(0, len(seeds), step):
        if deadline is not None and time.time() > deadline:
            break
        run_ops([generate(s, avoid) for s in seeds[k:k + step]], work, batch, log, keep_builds,
                summary=summary, on_batch=on_batch, deadline=deadline)
    return summary


def run_ops(ops: list[Op], work: Path, batch: int = 10, log: Callable[[str], None] = print,
            keep_builds: bool = True, mutations: list[tuple[str, str, int] | None] | None = None,
            summary: RunSummary | None = None,
            shapes: list[list[Shape] | None] | None = None,
            on_batch: Callable[[RunSummary], None] | None = None,
            deadline: float | None = None) -> RunSummary:
    """run_seeds for given ops. mutations[i], when given, is (old, new, count) to patch into
    op i's kernel.cu text before it is built (the planted-miscompile tests; count 0: all);
    shapes[i], the shapes to run op i on instead of its own. on_batch is called after each
    batch; past the deadline (time.time()) no new batch starts."""
    summary = summary or RunSummary()
    pending: list[Case] = []
    for i, op in enumerate(ops):
        s = op.seed
        case = prepare(op, work / f"op_{op.name}_{i}")
        if case.refused:
            summary.results.append(CaseResult(s, "refused", intended=op.family,
                                              message=case.refused, lg=op.text, index=i,
                                              forms=sorted(k for k, v in op.style.items() if v)))
            log(f"seed {s}: refused: {case.refused[:300]}")
            continue
        if mutations is not None and mutations[i] is not None:
            old, new, count = mutations[i]
            if case.kernel.count(old) < max(count, 1):
                raise ValueError(f"{op.name}: {old!r} is not in the generated kernel")
            case.kernel = case.kernel.replace(old, new) if count == 0 else \
                case.kernel.replace(old, new, count)
        case.index = i
        pending.append(case)
    batches = [pending[i:i + batch] for i in range(0, len(pending), batch)]
    builder: dict[int, Any] = {}

    def start(i: int) -> None:
        def work_fn() -> None:
            try:
                builder[i] = build_batch([c.kernel for c in batches[i]],
                                         batches[i][0].bundle / "solution.json")
            except Exception as e:  # noqa: BLE001
                builder[i] = e
        th = threading.Thread(target=work_fn, daemon=True)
        th.start()
        builder[-1 - i] = th

    if batches:
        start(0)
    for i, cases in enumerate(batches):
        builder[-1 - i].join()
        late = deadline is not None and time.time() > deadline
        if i + 1 < len(batches) and not late:
            start(i + 1)  # one build at a time, overlapping this batch's runs
        built = builder.pop(i)
        if isinstance(built, Exception):
            for c in cases:
                summary.results.append(CaseResult(c.op.seed, "error", message=f"build: {built}",
                                                  lg=c.op.text, index=c.index))
            log(f"batch {i}: build failed: {built}")
            continue
        fns, where, secs = built
        summary.builds.append({"ops": len(cases), "seconds": round(secs, 1)})
        log(f"batch {i}: {len(cases)} kernels built in {secs:.0f} s")
        for c, fn in zip(cases, fns):
            if isinstance(fn, str):
                r = CaseResult(c.op.seed, "disagree", family=c.explain.get("family", ""),
                               intended=c.op.family, lg=c.op.text,
                               mismatches=[Mismatch("compile", "", "", fn)])
            else:
                try:
                    sh = (shapes[c.index] if shapes and shapes[c.index] else
                          shapes_for(c.op, c.kernel, random.Random(c.op.seed)))
                    r = run_case(c, fn, sh, c.op.seed)
                except Exception:  # noqa: BLE001 - the runner's own fault: report it
                    r = CaseResult(c.op.seed, "error", message=traceback.format_exc()[-2000:],
                                   lg=c.op.text)
            c.result = r
            r.index = c.index
            summary.results.append(r)
            line = f"seed {c.op.seed}: {r.status} ({r.family}, {r.shapes} shapes, " \
                   f"{r.seconds:.1f} s)"
            if r.mismatches:
                line += "".join(f"\n    {m.oracle} {m.output} {m.shape}: {m.detail[:400]}"
                                for m in r.mismatches[:4])
            if r.status in ("invalid", "error"):
                line += f": {r.message[:400]}"
            log(line)
        if not keep_builds and where is not None:
            shutil.rmtree(where, ignore_errors=True)
        if on_batch is not None:
            on_batch(summary)
        if late:
            log(f"stopped at the deadline after batch {i}")
            break
    return summary


def replay(seed: int, work: Path, avoid: frozenset[str] = frozenset(), kernel: bool = True,
           shape_index: int | None = None) -> list[ShapeRun]:
    """Runs one seed alone (its kernel built alone, cached) and returns every shape's results."""
    case = prepare(generate(seed, avoid), work / f"op_{seed}")
    if case.refused:
        raise ValueError(f"seed {seed} is refused: {case.refused}")
    fn = build_batch([case.kernel], case.bundle / "solution.json")[0][0] if kernel else None
    if isinstance(fn, str):
        raise ValueError(fn)
    shapes = shapes_for(case.op, case.kernel, random.Random(seed))
    ctx = Context(case, ("ir", "kernel", "reference") if kernel else ("ir", "reference"))
    return [run_shape(ctx, fn, sh, seed, i) for i, sh in enumerate(shapes)
            if shape_index is None or i == shape_index]


def markdown(summary: dict[str, Any]) -> str:
    lines = ["# Differential run", "",
             f"{summary['ops']} ops, {summary['shapes_run']} shapes, "
             f"{summary['wall_seconds']} s wall ({summary['build_seconds']} s building, "
             f"{len(summary['builds'])} batched builds)", "",
             "| status | ops |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in sorted(summary["statuses"].items())]
    lines += ["", "| family (as recognized) | ops |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in sorted(summary["families"].items())]
    lines += ["", "| launch variant | shapes |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in summary["variants"].items()]
    lines += ["", "| form | ops |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in summary["forms"].items()]
    if summary["disagreements"]:
        lines += ["", "## Disagreements", ""]
        for d in summary["disagreements"]:
            lines.append(f"- seed {d['seed']} ({d['family']}): " + "; ".join(
                f"{m['oracle']} {m['output']} at {m['shape']}: {m['detail'][:300]}"
                for m in d["mismatches"][:3]))
    if summary["refusals"]:
        lines += ["", "## Refusals of generated ops", ""]
        for d in summary["refusals"]:
            lines.append(f"- seed {d['seed']} ({d['intended']}): {d['message'][:300]}")
    if summary["invalid"] or summary["errors"]:
        lines += ["", "## Invalid ops and runner errors", ""]
        for d in summary["invalid"] + summary["errors"]:
            lines.append(f"- seed {d['seed']}: {d['message'][:300]}")
    return "\n".join(lines) + "\n"


def parse_seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if ":" in part:
            a, b = part.split(":")
            out += list(range(int(a), int(b)))
        elif part:
            out.append(int(part))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0:20", help="A:B (half-open), or a comma list")
    ap.add_argument("--batch", type=int, default=10, help="kernels per build")
    ap.add_argument("--work", type=Path, default=None, help="where the ops and bundles go")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--markdown", type=Path, default=None)
    ap.add_argument("--avoid", default=",".join(sorted(KNOWN_BUGS)),
                    help="comma list of generator features to leave out (default: those of "
                         "the open bugs in KNOWN_BUGS; '' for none; also modulo, int-cast)")
    ap.add_argument("--no-keep-builds", action="store_true",
                    help="delete each batch's build once its ops ran")
    ap.add_argument("--reduce", action="store_true", help="reduce each disagreement")
    ap.add_argument("--minutes", type=float, default=None,
                    help="start no new batch after this many minutes")
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="solbench-differential-"))
    avoid = frozenset(a for a in args.avoid.split(",") if a)
    work.mkdir(parents=True, exist_ok=True)
    logf = open(work / "log.txt", "a")

    def log(s: str) -> None:
        print(s, flush=True)
        if logf:
            logf.write(s + "\n")
            logf.flush()
    def write(summary: RunSummary) -> None:
        js = summary.to_json()
        js["avoid"] = sorted(avoid)
        if args.json:
            args.json.write_text(json.dumps(js, indent=2))
        if args.markdown:
            args.markdown.write_text(markdown(js))
    deadline = time.time() + 60 * args.minutes if args.minutes else None
    summary = run_seeds(parse_seeds(args.seeds), work, args.batch, avoid, log,
                        keep_builds=not args.no_keep_builds, on_batch=write, deadline=deadline)
    js = summary.to_json()
    js["avoid"] = sorted(avoid)
    if args.reduce and js["disagreements"]:
        from reduce import reduce_case

        js["reduced"] = []
        for d in js["disagreements"]:
            red = reduce_case(d["seed"], work / f"reduce_{d['seed']}", avoid, log)
            js["reduced"].append(red)
    if args.json:
        args.json.write_text(json.dumps(js, indent=2))
    if args.markdown:
        args.markdown.write_text(markdown(js))
    print(markdown(js))
    return 1 if js["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
