"""How many times a bundle's kernel reads each input, counted on the CPU backend.

``python3 -m solbench.bench.traffic BUNDLE... [--cols N ...] [--rows-per-axis N] [--markdown]``

The ops are memory-bound: their floor is one read of every input and one write of every output.
This runs a bundle's ``kernel.cu`` once through solbench.cuda_host with the load trace on
(``solbench.cuda_host.trace_loads``) and attributes every global load to the call's tensors:
``passes`` = bytes loaded from a tensor / its size. A row input read once per call has 1 pass; a
weight broadcast over R rows has R (from L2 on a GPU, so the DRAM estimate counts it once).

No GPU is needed, and no timing is involved: the count is a property of the kernel's code, the
same on any device. Stores are not traced (each output element is written by one thread, once,
by construction of the templates).
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class TensorTraffic:
    name: str
    nbytes: int
    loaded: int       # bytes loaded in all
    distinct: int     # bytes loaded at least once
    broadcast: bool   # a column (weight) read by every row

    @property
    def passes(self) -> float:
        return self.loaded / self.nbytes if self.nbytes else 0.0


@dataclass
class Traffic:
    bundle: str
    axes: dict[str, int]
    rows: int
    inputs: list[TensorTraffic]
    output_bytes: int

    def dram_ratio(self) -> float:
        """Estimated DRAM bytes / the roofline's bytes: row inputs as often as they are read,
        broadcast inputs once (L2 keeps them), outputs once."""
        floor = sum(t.nbytes for t in self.inputs) + self.output_bytes
        moved = sum(t.nbytes if t.broadcast else t.loaded for t in self.inputs) + self.output_bytes
        return moved / floor if floor else 0.0


def module_for(bundle: Path) -> Any:
    """The bundle's CPU module, built (or reused) exactly as `solgen check --device cpu` builds."""
    from solbench.conformance import backends, problem

    solution = problem.load_solution(bundle / "solution.json")
    plan = backends.plan_build(solution, backends.Backend.CPU)
    return backends.build(plan, solution)  # loads a cached build


def column_axes(defn: Any) -> set[str]:
    """The var axes that size a row: the last dim of an input, or the axes of its expression."""
    from solbench.conformance import problem

    names: set[str] = set()
    for spec in defn.inputs:
        if not spec.shape:
            continue
        last = defn.axes[spec.shape[-1]]
        if last.kind == "var":
            names.add(last.name)
        elif last.kind == "expr":
            names |= problem._names_in(problem._parse_expression(last.expression or ""))
    return names


@dataclass
class TracedCall:
    """One call of a bundle's kernel on random inputs, with its load trace."""
    defn: Any
    axes: dict[str, int]
    args: list[Any]      # the inputs in definition order (tensors and scalars)
    outputs: list[Any]   # the outputs the kernel wrote
    trace: Any           # solbench.cuda_host.LoadTrace


def call(bundle: Path, cols: int, rows_per_axis: int = 4, seed: int = 0) -> TracedCall:
    """Runs the bundle once on random inputs, every var row axis `rows_per_axis` long and every
    var column axis `cols` (constant axes keep their value), with the load trace on."""
    import torch

    from solbench.conformance import problem
    from solbench.cuda_host import trace_loads

    defn = problem.load_definition(bundle / "definition.json")
    columns = column_axes(defn)
    var = {a.name: (cols if a.name in columns else rows_per_axis)
           for a in defn.axes.values() if a.kind == "var"}
    axes = problem.resolve_axes(defn, var)
    gen = torch.Generator().manual_seed(seed)
    args: list[Any] = []
    for spec in defn.inputs:
        shape = problem.shape_of(spec, axes)
        if shape is None:
            args.append(1e-6)  # a scalar (eps): the definitions' scalars are small positives
        else:
            args.append(torch.randn(shape, generator=gen).to(getattr(torch, spec.dtype)))
    outputs = [torch.empty(problem.shape_of(s, axes), dtype=getattr(torch, s.dtype))
               for s in defn.outputs]
    mod = module_for(bundle)
    with trace_loads(mod) as trace:
        getattr(mod, "run")(*args, *outputs)
    return TracedCall(defn, axes, args, outputs, trace)


def measure(bundle: Path, cols: int, rows_per_axis: int = 4, seed: int = 0) -> Traffic:
    """The bytes one call (see :func:`call`) reads from each input."""
    c = call(bundle, cols, rows_per_axis, seed)
    tensors = [(spec.name, a) for spec, a in zip(c.defn.inputs, c.args) if spec.shape]
    first = max((t for _, t in tensors), key=lambda t: t.dim())
    rows = math.prod(first.shape[:-1])
    inputs = []
    for name, t in tensors:
        loaded, distinct = c.trace.bytes_from(t)
        nbytes = t.numel() * t.element_size()
        inputs.append(TensorTraffic(name, nbytes, loaded, distinct,
                                    broadcast=t.dim() == 1 and rows > 1))
    out_bytes = sum(o.numel() * o.element_size() for o in c.outputs)
    return Traffic(bundle.name, c.axes, rows, inputs, out_bytes)


def _row(t: Traffic) -> str:
    reads = ", ".join(f"{i.name} {i.passes:g}" + (" (per row)" if i.broadcast else "")
                      for i in t.inputs)
    shape = ", ".join(f"{k}={v}" for k, v in t.axes.items())
    return f"| {t.bundle} | {shape} | {reads} | {t.dram_ratio():.2f} |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m solbench.bench.traffic",
                                 description="Count the bytes a bundle's kernel reads from each "
                                             "input (CPU backend, no GPU needed).")
    ap.add_argument("bundles", nargs="+", type=Path)
    ap.add_argument("--cols", type=int, nargs="+", default=[1024, 4096, 32768],
                    help="row lengths for var column axes (default: 1024 4096 32768)")
    ap.add_argument("--rows-per-axis", type=int, default=4)
    args = ap.parse_args(argv)
    print("| bundle | axes | passes over each input | DRAM bytes / roofline bytes |")
    print("|---|---|---|---|")
    for bundle in args.bundles:
        from solbench.conformance import problem

        defn = problem.load_definition(bundle / "definition.json")
        widths = args.cols if column_axes(defn) else [0]
        for cols in widths:
            print(_row(measure(bundle, cols, args.rows_per_axis)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
