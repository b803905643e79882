"""Fixed ops for the planted-miscompile tests: the same trees as gen.py builds, written by hand
and printed in one plain spelling, so that the kernel text a test patches stays put."""

from __future__ import annotations

import random

from gen import Op, Output, Param, Reduction, lit
from render import render

X = ("leaf", "elem", "x")


def _op(name: str, family: str, params: list[Param], outputs: list[Output], **kw) -> Op:
    op = Op(seed=0, name=name, family=family, layout="nested", row_rank=1, params=params,
            outputs=outputs, **kw)
    op.text = render(op, random.Random(0), plain=True)
    return op


def row_stats() -> Op:
    """Reduction: a row's sum and its maximum (sum identity 0, max from -inf)."""
    return _op("fixed_row_stats", "reduction", [Param("x", "row", "Float32", -3.0, 3.0)],
               [Output("total", "perrow", "Float32", ("leaf", "rowval", "s0")),
                Output("peak", "perrow", "Float32", ("leaf", "rowval", "m1"))],
               reductions=[Reduction("s0", "sum", X, "plus", lit(0.0)),
                           Reduction("m1", "max", X, "max_call", "first")])


def rmsnorm_cast() -> Op:
    """Fused row: RMSNorm with the normalized value rounded to BFloat16 before the weight."""
    inv = ("bin", "/", lit(1.0), ("un", "sqrt", ("bin", "+", ("bin", "/", ("leaf", "rowval", "ss"),
                                                              ("leaf", "len", "n")), lit(1e-5))))
    y = ("bin", "*", ("cast", "BFloat16", ("bin", "*", X, ("leaf", "rowval", "inv"))),
         ("leaf", "weight", "w"))
    return _op("fixed_rmsnorm_cast", "fused_row",
               [Param("x", "row", "BFloat16", -3.0, 3.0), Param("w", "weight", "BFloat16", -2.0, 2.0)],
               [Output("y", "row", "Float32", y)],
               reductions=[Reduction("ss", "sum", ("bin", "*", X, X), "plus", lit(0.0))],
               rowvals=[("inv", inv, None)])


def softmax() -> Op:
    """Fused row: softmax, max then the sum of exp(x - max) (one online pass in the kernel)."""
    d = ("bin", "-", X, ("leaf", "rowval", "m"))
    return _op("fixed_softmax", "fused_row", [Param("x", "row", "Float32", -20.0, 20.0)],
               [Output("y", "row", "Float32", ("bin", "/", ("un", "exp", d),
                                               ("leaf", "rowval", "total")))],
               reductions=[Reduction("m", "max", X, "max_call", "first"),
                           Reduction("total", "sum", ("un", "exp", d), "plus", lit(0.0))])


def int8_scale() -> Op:
    """Gated (elementwise): INT8 codes times a per-row scale, into BFloat16."""
    y = ("bin", "*", X, ("leaf", "rowscale", "sc"))
    return _op("fixed_int8_scale", "gated_activation",
               [Param("x", "row", "Int8", -100.0, 100.0), Param("sc", "rowscale", "Float32", 0.25, 4.0)],
               [Output("y", "row", "BFloat16", y)])


FIXED = {f.__name__: f for f in (row_stats, rmsnorm_cast, softmax, int8_scale)}
