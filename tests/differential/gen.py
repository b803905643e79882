"""Random LOGOS ops in solgen's three families, each reproducible from one seed (issue 18).

`generate(seed)` returns an `Op`: the LOGOS source, and what the runner needs to feed it (each
parameter's layout, element type and value range, each output's shape). The op is built as a
small tree (inputs, reductions, per-row values, element temporaries, outputs) and then printed
in one of the spellings docs/logos-language.md allows: nested or flat tensors, 1 to 3 row axes,
constant or variable columns, `Repeat for v in row` / counted / `While` / 0-based loops, return
or `into` outputs, `Push` or `Set item`, English or symbolic operators, helpers, typed `Let`s
and casts, data-dependent `If`s as selects, packed gate/up halves.

Values stay defined by construction: every node carries an interval computed from the inputs'
ranges, and an operation whose argument could leave its domain (sqrt or log of a negative, a
division by something near zero, exp overflowing float32) is either given inputs whose range
keeps it defined or guarded in the op itself (`sqrt(abs(e))`, `exp(min(max(e, -20.0), 10.0))`).
Nothing else is avoided: the data generator (`Op.draw`) only keeps inputs inside those ranges.

    python3 tests/differential/gen.py SEED      # print the op of SEED
"""

from __future__ import annotations

import math
import random
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

# --- element types ------------------------------------------------------------------------------

# LOGOS name -> (benchmark dtype, bytes, kind)
DTYPES = {
    "Float32": ("float32", 4, "float"),
    "BFloat16": ("bfloat16", 2, "float"),
    "Float16": ("float16", 2, "float"),
    "Int8": ("int8", 1, "int"),
    "Int16": ("int16", 2, "int"),
    "Float8E4M3": ("float8_e4m3fn", 1, "fp8"),
    "Float8E5M2": ("float8_e5m2", 1, "fp8"),
}
FLOATS = ("Float32", "BFloat16", "Float16")
MAX_COLS = 20000  # the longest row the runner feeds (for the intervals of sums)
MAX_MAG = 1e12  # no intermediate value may exceed this in magnitude (float32 stays finite)

# --- intervals ----------------------------------------------------------------------------------

Iv = tuple[float, float]


def _span(*xs: float) -> Iv:
    return (min(xs), max(xs))


def iv_ok(a: Iv) -> bool:
    return all(math.isfinite(v) and abs(v) <= MAX_MAG for v in a)


def iv_add(a: Iv, b: Iv) -> Iv:
    return (a[0] + b[0], a[1] + b[1])


def iv_sub(a: Iv, b: Iv) -> Iv:
    return (a[0] - b[1], a[1] - b[0])


def iv_mul(a: Iv, b: Iv) -> Iv:
    return _span(a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])


def iv_away_from_zero(a: Iv, margin: float = 0.05) -> bool:
    return a[0] >= margin or a[1] <= -margin


def iv_div(a: Iv, b: Iv) -> Iv:
    inv = (1.0 / b[1], 1.0 / b[0])
    return iv_mul(a, _span(*inv))


def _mono(f: Callable[[float], float], a: Iv) -> Iv:
    return _span(f(a[0]), f(a[1]))


UNARY_IV: dict[str, Callable[[Iv], Iv]] = {
    "sqrt": lambda a: _mono(math.sqrt, a),
    "exp": lambda a: _mono(math.exp, a),
    "log": lambda a: _mono(math.log, a),
    "tanh": lambda a: _mono(math.tanh, a),
    "erf": lambda a: _mono(math.erf, a),
    "sigmoid": lambda a: _mono(lambda v: 1.0 / (1.0 + math.exp(-v)), a),
    "abs": lambda a: (0.0 if a[0] <= 0.0 <= a[1] else min(abs(a[0]), abs(a[1])),
                      max(abs(a[0]), abs(a[1]))),
    "floor": lambda a: _mono(math.floor, a),
    "ceil": lambda a: _mono(math.ceil, a),
    "round": lambda a: (round(a[0]) - 1.0, round(a[1]) + 1.0),
    "neg": lambda a: (-a[1], -a[0]),
    "sin": lambda a: (-1.0, 1.0),
    "cos": lambda a: (-1.0, 1.0),
}


def unary_domain_ok(f: str, a: Iv) -> bool:
    if f == "sqrt":
        return a[0] >= 0.0
    if f == "log":
        return a[0] >= 0.05
    if f == "exp":
        return -60.0 <= a[0] and a[1] <= 25.0
    if f == "sigmoid":
        return a[0] >= -80.0  # exp(-v) stays finite in float32
    return True


# --- the op tree --------------------------------------------------------------------------------
# An expression is a tuple:
#   ("lit", value, text)           a literal, printed as text
#   ("leaf", kind, name)           kind: elem (a row input at the column), up (the packed up half),
#                                  weight ([cols]), hweight ([last row axis, cols]), rowscale
#                                  (one value per row), keepscale ([rows, 1]), chscale (one value
#                                  per index of a row axis), scalar, len (the row's length, Real),
#                                  rowval (a per-row value), temp (an element temporary),
#                                  param (a helper's parameter)
#   ("un", f, a)                   f in UNARY_IV (neg is unary minus)
#   ("bin", op, a, b)              op in + - * / %
#   ("call", f, a, b)              f in max min pow
#   ("cast", T, a)                 `(a) as T`
#   ("helper", name, [args])       a call of a generated helper


@dataclass
class Param:
    name: str
    role: str  # row | packed | weight | hweight | rowscale | keepscale | chscale | scalar
    dtype: str  # a LOGOS type name; scalars are Real
    lo: float
    hi: float
    axis: int = -1  # chscale: which row axis indexes it


@dataclass
class Output:
    name: str
    role: str  # row | perrow | keepdim
    dtype: str
    expr: Any = None


@dataclass
class Reduction:
    name: str
    kind: str  # sum | max | min
    term: Any  # the expression folded, per column
    form: str  # plus | plus_left | minus | if_plus | if_else | two_terms | max_call | if_greater
    init: Any  # ("lit", ...) or "first" (the term at column 1, loop from 2 or 1)
    loop_from: int = 1
    cond: Any = None  # the data condition of if_plus / if_else (a comparison)
    other: Any = None  # the second term of if_else / two_terms
    reversed: bool = False
    iv: Iv = (0.0, 0.0)


@dataclass
class Helper:
    name: str
    params: list[tuple[str, str]]  # (name, type)
    result: str  # type
    body: Any  # expression over ("leaf", "param", name)


@dataclass
class Op:
    seed: int
    name: str
    family: str  # the family it was generated for
    layout: str  # nested | flat | flat1d
    row_rank: int  # number of row axes
    params: list[Param]
    outputs: list[Output]
    reductions: list[Reduction] = field(default_factory=list)
    rowvals: list[tuple[str, Any, str | None]] = field(default_factory=list)  # name, expr, type
    temps: list[tuple[str, Any, Any]] = field(default_factory=list)  # name, expr, select|None
    helpers: list[Helper] = field(default_factory=list)
    const_cols: int | None = None
    packed: bool = False
    returns: bool = False  # `-> R` with Push, else `into`
    text: str = ""
    style: dict[str, Any] = field(default_factory=dict)
    avoid: frozenset[str] = frozenset()
    axis_names: tuple[str, ...] = ()  # a flat op's Int axes (rows, cols), as printed
    plain: bool = False  # printed in render's one plain spelling

    @property
    def tensors(self) -> list[Param]:
        return [p for p in self.params if p.role != "scalar"]

    def describe(self) -> str:
        forms = sorted(k for k, v in self.style.items() if v)
        return (f"seed {self.seed}: {self.family} {self.layout} rank {self.row_rank}"
                f"{' const cols ' + str(self.const_cols) if self.const_cols else ''}"
                f"{' packed' if self.packed else ''}, forms {forms}")


# --- literals -----------------------------------------------------------------------------------

def lit(v: float, rng: random.Random | None = None, intish: bool = False) -> tuple:
    """A Real literal; sometimes written as an Int (`2`) or with an exponent (`1e-5`)."""
    if intish and float(v).is_integer() and abs(v) < 1000:
        return ("lit", float(v), str(int(v)))
    if v != 0.0 and (abs(v) < 1e-3 or abs(v) >= 1e5) and rng is not None and rng.random() < 0.5:
        text = f"{v:.6g}".replace("e-0", "e-").replace("e+0", "e+")
        if "e" not in text:
            text = repr(float(v))
        return ("lit", float(v), text)
    text = repr(float(v))
    if "e" in text:  # 1e-05 -> 0.00001
        text = f"{v:.12f}".rstrip("0")
        if text.endswith("."):
            text += "0"
    return ("lit", float(v), text)


CONSTANTS = [0.5, 2.0, 1.5, 0.25, 3.0, 0.125, 0.1, 1.702, 0.044715, 0.7978845608028654, 10.0,
             0.01, 1.0, 0.3, 4.0, 0.0625, 1e-5, 1e-6]
EPS_VALUES = [1e-5, 1e-6, 0.00001, 1e-8, 0.001]
CONST_COLS = [16, 64, 96, 128, 200, 512, 1000, 1024, 2048, 3000, 4096, 5000]


# --- the generator ------------------------------------------------------------------------------

class Gen:
    def __init__(self, seed: int, avoid: frozenset[str] = frozenset()):
        self.seed = seed
        self.rng = random.Random(seed)
        self.avoid = avoid
        self.params: list[Param] = []
        self.helpers: list[Helper] = []
        self.temps: list[tuple[str, Any, Any]] = []
        self.rowvals: list[tuple[str, Any, str | None]] = []
        self.reductions: list[Reduction] = []
        self.ivs: dict[str, Iv] = {}  # leaf name -> interval
        self.int_leaves: set[str] = set()  # leaves that hold Ints (Int8/Int16 elements)
        self.counter = 0
        self.style: dict[str, Any] = {}
        self.temps_hint: tuple | None = None

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # leaves -------------------------------------------------------------------------------------

    def leaf_iv(self, node: tuple) -> Iv:
        _, kind, name = node
        if kind == "len":
            return (1.0, float(MAX_COLS))
        return self.ivs[name]

    def column_leaves(self, allow_rowvals: bool, allow_temps: bool = True) -> list[tuple]:
        leaves = []
        for p in self.params:
            if p.role in ("row", "packed"):
                leaves.append(("leaf", "elem", p.name))
                if p.role == "packed":
                    leaves.append(("leaf", "up", p.name))
            elif p.role in ("weight", "hweight", "rowscale", "keepscale", "chscale", "scalar"):
                leaves.append(("leaf", p.role, p.name))
        if allow_rowvals:
            leaves += [("leaf", "rowval", n) for n, _, _ in self.rowvals]
            leaves += [("leaf", "rowval", r.name) for r in self.reductions]
        if allow_temps:
            leaves += [("leaf", "temp", n) for n, _, _ in self.temps]
        return leaves

    def row_leaves(self, pure: bool = False) -> list[tuple]:
        """Per-row values. pure: only what reductions, scalars and sizes give (a per-row
        output must come from reductions alone, docs/logos-language.md §6: not from a per-row
        input)."""
        per_row_inputs = {p.name for p in self.params
                          if p.role in ("rowscale", "keepscale", "chscale")}
        impure = set(per_row_inputs)
        for n, e, _ in self.rowvals:
            if names_used(e) & impure:
                impure.add(n)
        leaves = [("leaf", "rowval", n) for n, _, _ in self.rowvals if not (pure and n in impure)]
        leaves += [("leaf", "rowval", r.name) for r in self.reductions]
        leaves += [("leaf", p.role, p.name) for p in self.params
                   if p.role == "scalar" or (p.role in per_row_inputs and not pure)]
        leaves.append(("leaf", "len", "n"))
        return leaves

    # expressions --------------------------------------------------------------------------------

    def iv(self, e: tuple) -> Iv:
        """The interval of an expression (recomputed; raises on a domain error)."""
        k = e[0]
        if k == "lit":
            return (e[1], e[1])
        if k == "leaf":
            return self.leaf_iv(e)
        if k == "un":
            a = self.iv(e[2])
            if not unary_domain_ok(e[1], a):
                raise ValueError(f"{e[1]} outside its domain on {a}")
            return UNARY_IV[e[1]](a)
        if k == "bin":
            a, b = self.iv(e[2]), self.iv(e[3])
            op = e[1]
            if op == "+":
                return iv_add(a, b)
            if op == "-":
                return iv_sub(a, b)
            if op == "*":
                return iv_mul(a, b)
            if op == "/":
                if not iv_away_from_zero(b):
                    raise ValueError("division by something near zero")
                return iv_div(a, b)
            if op == "%":
                m = max(abs(b[0]), abs(b[1]))
                return (-m, m) if a[0] < 0 else (0.0, m)
        if k == "call":
            a, b = self.iv(e[2]), self.iv(e[3])
            if e[1] == "max":
                return (max(a[0], b[0]), max(a[1], b[1]))
            if e[1] == "min":
                return (min(a[0], b[0]), min(a[1], b[1]))
            if e[1] == "pow":
                if b[0] == b[1] and float(b[0]).is_integer():
                    n = int(b[0])
                    vals = [a[0] ** n, a[1] ** n] + ([0.0] if a[0] < 0 < a[1] else [])
                    return _span(*vals)
                if a[0] < 0.05:
                    raise ValueError("pow of a base that may be negative")
                corners = [math.exp(y * math.log(x)) for x in a for y in b]
                return _span(*corners)
        if k == "cast":
            a = self.iv(e[2])
            kind = DTYPES[e[1]][2]
            if kind == "int" and (a[0] < -127.0 or a[1] > 127.0):
                raise ValueError("an integer cast out of range")
            if kind == "int":
                return (math.trunc(a[0]), math.trunc(a[1]))
            if e[1] == "Float16" and max(abs(a[0]), abs(a[1])) > 60000.0:
                raise ValueError("Float16 overflow")
            return a
        if k == "helper":
            h = next(h for h in self.helpers if h.name == e[1])
            saved = dict(self.ivs)
            for (pname, _), arg in zip(h.params, e[2]):
                self.ivs[pname] = self.iv(arg)
            try:
                return self.iv(h.body)
            finally:
                self.ivs = saved
        raise AssertionError(f"unknown node {e!r}")

    def checked(self, e: tuple) -> tuple | None:
        try:
            a = self.iv(e)
        except (ValueError, OverflowError, ZeroDivisionError):
            return None
        return e if iv_ok(a) else None

    def expr(self, leaves: list[tuple], depth: int) -> tuple:
        """A random expression over leaves whose value stays defined."""
        for _ in range(40):
            e = self._expr(leaves, depth)
            if self.checked(e) is not None:
                return e
        return self.rng.choice(leaves) if leaves else lit(1.0)

    def _leaf(self, leaves: list[tuple]) -> tuple:
        if not leaves or self.chance(0.15):
            return lit(self.rng.choice(CONSTANTS), self.rng, intish=self.chance(0.3))
        # favour the row elements: the op is about its rows
        elems = [l for l in leaves if l[1] in ("elem", "up", "temp", "param")]
        if elems and self.chance(0.5):
            return self.rng.choice(elems)
        return self.rng.choice(leaves)

    def _expr(self, leaves: list[tuple], depth: int) -> tuple:
        if depth <= 0 or self.chance(0.2):
            return self._leaf(leaves)
        r = self.rng.random()
        if r < 0.45:
            op = self.rng.choice(["+", "-", "*", "*", "/", "+", "-"] +
                                 (["%"] if "modulo" not in self.avoid else []))
            a = self._expr(leaves, depth - 1)
            if op == "%":
                return ("bin", "%", self.guard_dividend(a),
                        lit(self.rng.choice([2.0, 3.0, 0.5, 1.5]), self.rng))
            b = self._expr(leaves, depth - 1)
            if op == "/":
                b = self.guard_denominator(b)
            if op in ("/", "%") and self.int_only(a) and self.int_only(b) and (
                    "int-division" in self.avoid or names_used([a, b], "len")):
                b = ("bin", "*", b, lit(1.0))  # sizes solgen cannot divide exactly: a Real
            return ("bin", op, a, b)
        if r < 0.75:
            f = self.rng.choice(["sqrt", "exp", "log", "tanh", "abs", "erf", "sigmoid", "floor",
                                 "ceil", "round", "neg", "exp", "tanh", "sigmoid", "sin",
                                 "cos"])
            a = self._expr(leaves, depth - 1)
            return self.guarded_unary(f, a)
        if r < 0.9:
            f = self.rng.choice(["max", "min", "pow"])
            a = self._expr(leaves, depth - 1)
            if f == "pow":
                return self.guarded_pow(a, leaves, depth)
            b = self._expr(leaves, depth - 1)
            return ("call", f, a, b)
        if r < 0.96:
            a = self._expr(leaves, depth - 1)
            return self.cast(a)
        if self.helpers is not None and depth >= 2:
            return self.make_helper(leaves, depth - 1)
        return self._leaf(leaves)

    def int_only(self, e: tuple) -> bool:
        """An expression the interpreter computes in Int (Int8/Int16 elements, Int literals)."""
        k = e[0]
        if k == "lit":
            return "." not in e[2] and "e" not in e[2]
        if k == "leaf":
            return e[2] in self.int_leaves or e[1] == "len"
        if k == "bin":
            return self.int_only(e[2]) and self.int_only(e[3])
        if k == "un":
            return e[1] in ("abs", "neg", "floor", "ceil", "round") and self.int_only(e[2])
        if k == "call":
            return e[1] in ("max", "min") and self.int_only(e[2]) and self.int_only(e[3])
        if k == "cast":
            return DTYPES[e[1]][2] == "int"
        return False

    def guard_denominator(self, b: tuple) -> tuple:
        try:
            if iv_away_from_zero(self.iv(b)):
                return b
        except (ValueError, OverflowError, ZeroDivisionError):
            pass
        self.style["guarded"] = True
        if self.chance(0.5):
            return ("bin", "+", ("un", "abs", b), lit(self.rng.choice([0.5, 1.0, 2.0]), self.rng))
        return ("bin", "+", ("bin", "*", b, b), lit(self.rng.choice([0.25, 1.0]), self.rng))

    def guard_dividend(self, a: tuple) -> tuple:
        """A `%` whose dividend may pass 2^20: float32 keeps no fraction there (past 2^24 not
        even the units), so its remainder is the rounding's, in the kernel as in
        reference.py; clamped in the op, as an overflowing exp is (seed 50935: x * sum(x^2)
        % 2.0 of 6e9 is 0 in float32)."""
        try:
            lo, hi = self.iv(a)
            if max(abs(lo), abs(hi)) <= 2.0 ** 20:
                return a
        except (ValueError, OverflowError, ZeroDivisionError):
            pass
        self.style["guarded"] = True
        return ("call", "min", ("call", "max", a, lit(-1000.0)), lit(1000.0))

    def guarded_unary(self, f: str, a: tuple) -> tuple:
        try:
            if unary_domain_ok(f, self.iv(a)):
                return ("un", f, a)
        except (ValueError, OverflowError, ZeroDivisionError):
            return ("un", f, a)  # rejected by the caller's check
        self.style["guarded"] = True
        if f == "sqrt":
            return ("un", "sqrt", ("un", "abs", a))
        if f == "log":
            return ("un", "log", ("bin", "+", ("un", "abs", a), lit(1.0)))
        if f in ("exp", "sigmoid"):
            lo, hi = self.rng.choice([(-20.0, 10.0), (-30.0, 5.0), (-8.0, 8.0)])
            return ("un", f, ("call", "min", ("call", "max", a, lit(lo)), lit(hi)))
        return ("un", f, a)

    def guarded_pow(self, a: tuple, leaves: list[tuple], depth: int) -> tuple:
        r = self.rng.random()
        if r < 0.4:
            return ("call", "pow", a, lit(self.rng.choice([2.0, 3.0]), self.rng))
        try:
            positive = self.iv(a)[0] >= 0.05
        except (ValueError, OverflowError, ZeroDivisionError):
            positive = False
        base = a if positive else ("bin", "+", ("un", "abs", a), lit(0.5))
        if r < 0.8:
            return ("call", "pow", base, lit(self.rng.choice([0.5, 1.5, -0.5, -1.0, 0.25, 2.5])))
        e = self._expr(leaves, max(depth - 2, 0))
        return ("call", "pow", base, ("un", "tanh", e))  # an exponent in (-1, 1)

    def cast(self, a: tuple) -> tuple:
        self.style["cast"] = True
        t = self.rng.choice(["BFloat16", "BFloat16", "Float16", "Float32"] +
                            (["Int8", "Float8E4M3"] if "int-cast" not in self.avoid else []))
        if DTYPES[t][2] == "int":
            a = ("call", "min", ("call", "max", ("un", "round", a), lit(-127.0)), lit(127.0))
        if t == "Float16":
            a = ("call", "min", ("call", "max", a, lit(-60000.0)), lit(60000.0))
        return ("cast", t, a)

    def make_helper(self, leaves: list[tuple], depth: int) -> tuple:
        """A helper of one or two Real (or narrow) parameters, called once here."""
        self.style["helper"] = True
        n = self.rng.choice([1, 1, 2])
        args = [self._expr(leaves, depth - 1) for _ in range(n)]
        name = self.fresh("helper_f")
        params = [(f"p{i + 1}", self.rng.choice(["Real", "Real", "Real", "BFloat16", "Float32"]))
                  for i in range(n)]
        if any(t != "Real" for _, t in params):
            self.style["narrow_helper"] = True
        for (pname, _), arg in zip(params, args):
            try:
                self.ivs[pname] = self.iv(arg)
            except (ValueError, OverflowError, ZeroDivisionError):
                self.ivs[pname] = (1.0, 1.0)
        body = self.expr([("leaf", "param", p) for p, _ in params], max(depth, 1))
        for pname, _ in params:  # every argument matters (a per-row output through it must)
            if pname not in names_used(body):
                grown = ("bin", self.rng.choice(["+", "*", "-"]), body, ("leaf", "param", pname))
                body = grown if self.checked(grown) else ("bin", "+", body, ("leaf", "param",
                                                                             pname))
        result = self.rng.choice(["Real", "Real", "Real", "BFloat16"])
        self.helpers.append(Helper(name, params, result, body))
        return ("helper", name, args)

    def branch_leaves(self, leaves: list[tuple], *seen: Any) -> list[tuple]:
        """Leaves for a value assigned under an If. With `then-reads` avoided (a known bug:
        tensors read only there lose their layout), only tensors the condition or the other
        branch reads."""
        if "then-reads" not in self.avoid:
            return leaves
        tensors = {p.name for p in self.params if p.role != "scalar"}
        allowed = names_used(list(seen)) & tensors
        return [l for l in leaves if l[2] not in tensors or l[2] in allowed] or \
            [l for l in leaves if l[2] not in tensors]

    def condition(self, leaves: list[tuple]) -> tuple:
        """A data comparison: ("cmp", op, a, b), possibly under and / or / not."""
        a = self.expr(leaves, 1)
        if self.chance(0.5):
            b = lit(self.rng.choice([0.0, 0.5, -0.5, 1.0, -1.0]))
        else:
            b = self.expr(leaves, 1)
        c = ("cmp", self.rng.choice([">", "<", ">=", "<=", "between"]), a, b)
        if c[1] == "between":
            lo = self.rng.choice([-1.0, -0.5, 0.0])
            c = ("between", a, lit(lo), lit(lo + self.rng.choice([0.5, 1.0, 2.0])))
        r = self.rng.random()
        if r < 0.1:
            return ("not", c)
        if r < 0.2:
            return (self.rng.choice(["and", "or"]), c, self.condition(leaves))
        return c

    # params -------------------------------------------------------------------------------------

    def add_param(self, name: str, role: str, dtype: str, axis: int = -1,
                  rng_class: str | None = None) -> Param:
        kind = DTYPES[dtype][2] if dtype in DTYPES else "float"
        cls = rng_class or self.rng.choice(["mixed", "mixed", "mixed", "positive", "negative",
                                            "wide"])
        if kind == "int":
            hi = 100.0 if dtype == "Int8" else 1000.0
            lo, hi = {"positive": (1.0, hi), "negative": (-hi, -1.0)}.get(cls, (-hi, hi))
            self.int_leaves.add(name)
        elif kind == "fp8":
            lo, hi = {"positive": (0.125, 8.0), "negative": (-8.0, -0.125)}.get(cls, (-8.0, 8.0))
        else:
            lo, hi = {"mixed": (-3.0, 3.0), "positive": (0.25, 4.0), "negative": (-4.0, -0.25),
                      "wide": (-20.0, 20.0)}[cls]
        if role == "scalar":
            lo, hi = {"positive": (0.05, 2.0), "negative": (-2.0, -0.05)}.get(cls, (-2.0, 2.0))
            if name == "eps":
                lo, hi = (1e-6, 1e-5)
        p = Param(name, role, dtype, lo, hi, axis)
        self.params.append(p)
        self.ivs[name] = (lo, hi)
        return p


# --- building an op ------------------------------------------------------------------------------

def _element_type(g: Gen, extra: bool = False) -> str:
    if extra and g.chance(0.25):
        return g.rng.choice(["Int8", "Int16", "Float8E4M3", "Float8E5M2"])
    return g.rng.choice(["Float32", "Float32", "BFloat16", "BFloat16", "Float16"])


def _output_type(g: Gen, role: str) -> str:
    r = g.rng.random()
    if role != "row" or r < 0.9:
        return g.rng.choice(["Float32", "Float32", "BFloat16", "BFloat16", "Float16"])
    return g.rng.choice(["Int8", "Float8E4M3", "Float8E5M2"])


def _fit_output(g: Gen, e: tuple, dtype: str) -> tuple:
    """What an output of dtype may hold: Int8 is rounded and clamped (the op's own job)."""
    kind = DTYPES[dtype][2]
    if kind == "int":
        return ("cast", dtype, ("call", "min", ("call", "max", ("un", "round", e), lit(-127.0)),
                                lit(127.0)))
    if dtype == "Float16" and g.checked(e) is not None:
        lo, hi = g.iv(e)
        if max(abs(lo), abs(hi)) > 60000.0:
            return ("call", "min", ("call", "max", e, lit(-60000.0)), lit(60000.0))
    return e


def _reduction(g: Gen, leaves: list[tuple], idx: int) -> Reduction:
    kind = g.rng.choice(["sum", "sum", "sum", "max", "min"])
    name = g.rng.choice(["acc", "total", "s", "m", "peak", "lo", "ss"]) + str(idx)
    x = next(p for p in g.params if p.role in ("row", "packed"))
    elem = ("leaf", "elem", x.name)
    r = g.rng.random()
    if r < 0.3:
        term = elem
    elif r < 0.5:
        term = ("bin", "*", elem, elem)
    else:
        term = g.expr(leaves, g.rng.choice([1, 2, 2, 3]))
        if not names_used(term, "elem") and g.checked(("bin", "+", term, elem)):
            term = ("bin", g.rng.choice(["+", "*"]), term, elem)
            if g.checked(term) is None:
                term = ("bin", "+", term[2], elem)
    red = Reduction(name, kind, term, form="", init=lit(0.0))
    red.reversed = g.chance(0.12)
    if red.reversed:
        g.style["reversed"] = True
    if kind == "sum":
        red.form = g.rng.choice(["plus", "plus", "plus_left", "minus", "if_plus", "if_else",
                                 "two_terms"])
        if red.form in ("if_plus", "if_else"):
            red.cond = g.condition(leaves)
        if red.form in ("if_else", "two_terms"):
            red.other = g.expr(leaves, g.rng.choice([1, 2]))
        if red.form in ("if_plus", "if_else") and "then-reads" in g.avoid:
            bl = g.branch_leaves(leaves, red.cond, red.other)
            if not names_used(term) <= {l[2] for l in bl}:
                term = g.expr(bl, g.rng.choice([1, 2]))
            red.term = term
        r = g.rng.random()
        if red.form == "plus" and term == elem and r < 0.25 and not red.reversed:
            red.init, red.loop_from = "first", 2
        elif r < 0.6:
            red.init = lit(0.0, intish=g.chance(0.3))
        else:
            red.init = lit(g.rng.choice([1.0, -2.0, 0.5, 10.0]))
    else:
        red.form = g.rng.choice(["max_call", "max_call", "max_call_swapped", "if_greater"])
        r = g.rng.random()
        simple = names_used(term) <= {"x"} | {p.name for p in g.params if p.role == "scalar"} \
            and not names_used(term, "up")
        if r < 0.55 and simple:  # `item 1 of row`, or `item 1 of row / temperature`
            red.init, red.loop_from = "first", 1 if red.reversed else g.rng.choice([1, 2])
        else:
            red.init = lit(g.rng.choice([0.0, -1.0, 1.0, 0.5, -1000.0, 1000.0]),
                           intish=g.chance(0.3))
    if "row-free-fold" in g.avoid and not names_used([red.term, red.cond, red.other], "elem"):
        if red.cond is not None:  # a condition that holds on every element, but reads it
            red.cond = ("and", red.cond, ("cmp", ">", elem, lit(-1e6)))
        else:
            grown = ("bin", "+", red.term, elem)
            red.term = grown if g.checked(grown) else elem
        term = red.term
    # the interval of the folded value
    t = g.iv(term)
    if red.other is not None:
        o = g.iv(red.other)
        t = (min(t[0], o[0]), max(t[1], o[1]))
    if kind == "sum":
        if red.form in ("if_plus",):
            t = (min(t[0], 0.0), max(t[1], 0.0))
        n = float(MAX_COLS) * (2 if red.form == "two_terms" else 1)
        lo, hi = min(t[0], n * t[0]), max(t[1], n * t[1])
        if red.form == "minus":
            lo, hi = -hi, -lo
        init = 0.0 if red.init == "first" else red.init[1]
        red.iv = (lo + min(init, 0.0) - abs(t[0]), hi + max(init, 0.0) + abs(t[1]))
    else:
        init = None if red.init == "first" else red.init[1]
        lo, hi = t
        if init is not None:
            lo, hi = (max(lo, init), max(hi, init)) if kind == "max" else \
                (min(lo, init), min(hi, init))
        red.iv = (lo, hi)
    return red


def _motif(g: Gen, x: Param) -> None:
    """A known structure (softmax, layernorm, rmsnorm, minmax, l2) as reductions and row values."""
    elem = ("leaf", "elem", x.name)
    n = ("leaf", "len", "n")
    motif = g.rng.choice(["softmax", "layernorm", "rmsnorm", "minmax", "l2", "absmax"])
    g.style["motif_" + motif] = True
    scaled = elem
    if g.chance(0.4):
        k = lit(g.rng.choice([0.125, 0.5, 2.0, 1.0 / 3.0]))
        scaled = ("bin", g.rng.choice(["*", "/"]), elem, k)

    def red(kind: str, name: str, term: tuple, form: str, init: Any = None,
            loop_from: int = 1) -> Reduction:
        r = Reduction(name, kind, term, form, init if init is not None else lit(0.0),
                      loop_from=loop_from)
        g.reductions.append(r)
        g.ivs[name] = (-1.0, 1.0)  # set properly below
        return r

    def rowval(name: str, e: tuple, typ: str | None = None) -> None:
        g.rowvals.append((name, e, typ))
        try:
            g.ivs[name] = g.iv(e)
        except (ValueError, OverflowError, ZeroDivisionError):
            g.ivs[name] = (-1e4, 1e4)  # set below

    if motif == "softmax":
        red("max", "m", scaled, g.rng.choice(["max_call", "if_greater"]),
            init="first", loop_from=g.rng.choice([1, 2]))
        g.ivs["m"] = g.iv(scaled)
        diff = ("bin", "-", scaled, ("leaf", "rowval", "m"))
        red("sum", "total", ("un", "exp", diff), "plus")
        g.ivs["total"] = (1.0, float(MAX_COLS))
        g.temps_hint = ("softmax", diff)
        if g.chance(0.5):
            rowval("lse", ("bin", "+", ("leaf", "rowval", "m"),
                           ("un", "log", ("leaf", "rowval", "total"))))
    elif motif == "layernorm":
        red("sum", "total", elem, "plus")
        g.ivs["total"] = (x.lo * MAX_COLS, x.hi * MAX_COLS)
        rowval("mean", ("bin", "/", ("leaf", "rowval", "total"), n))
        g.ivs["mean"] = (x.lo, x.hi)
        d = ("bin", "-", elem, ("leaf", "rowval", "mean"))
        sq = ("call", "pow", d, lit(2.0)) if g.chance(0.3) else ("bin", "*", d, d)
        red("sum", "sq", sq, "plus")
        w = (x.hi - x.lo) ** 2
        g.ivs["sq"] = (0.0, w * MAX_COLS)
        eps = next((p for p in g.params if p.name == "eps"), None)
        e = ("leaf", "scalar", "eps") if eps else lit(g.rng.choice(EPS_VALUES), g.rng)
        rowval("inv", ("bin", "/", lit(1.0), ("un", "sqrt", ("bin", "+", (
            "bin", "/", ("leaf", "rowval", "sq"), n), e))))
        g.ivs["inv"] = (0.0, 1e4)  # 1 / sqrt(eps) at most
        g.style["centered"] = True
    elif motif == "rmsnorm":
        red("sum", "ss", ("bin", "*", elem, elem), "plus",
            init=lit(0.0, intish=g.chance(0.3)))
        g.ivs["ss"] = (0.0, max(x.lo ** 2, x.hi ** 2) * MAX_COLS)
        eps = next((p for p in g.params if p.name == "eps"), None)
        e = ("leaf", "scalar", "eps") if eps else lit(g.rng.choice(EPS_VALUES), g.rng)
        rowval("inv", ("bin", "/", lit(1.0), ("un", "sqrt", ("bin", "+", (
            "bin", "/", ("leaf", "rowval", "ss"), n), e))))
        g.ivs["inv"] = (0.0, 1e4)
    elif motif == "minmax":
        red("min", "lo", elem, g.rng.choice(["max_call", "if_greater"]), init="first")
        red("max", "hi", elem, g.rng.choice(["max_call", "if_greater"]), init="first")
        g.ivs["lo"] = g.ivs["hi"] = (x.lo, x.hi)
        rowval("span", ("bin", "+", ("bin", "-", ("leaf", "rowval", "hi"),
                                     ("leaf", "rowval", "lo")), lit(g.rng.choice([1e-6, 0.01]))))
        g.ivs["span"] = (1e-6, x.hi - x.lo + 0.01)
    elif motif == "l2":
        red("sum", "ss", ("bin", "*", elem, elem), "plus")
        g.ivs["ss"] = (0.0, max(x.lo ** 2, x.hi ** 2) * MAX_COLS)
        rowval("norm", ("call", "max", ("un", "sqrt", ("leaf", "rowval", "ss")),
                        lit(1e-12 if g.chance(0.5) else 1e-6)))
        g.ivs["norm"] = (1e-6, math.sqrt(g.ivs["ss"][1]))
    else:  # absmax
        red("max", "peak", ("un", "abs", elem), "max_call", init=lit(0.0))
        g.ivs["peak"] = (0.0, max(abs(x.lo), abs(x.hi)))
        rowval("scale", ("bin", "/", ("call", "max", ("leaf", "rowval", "peak"), lit(1e-7)),
                         lit(127.0)))
        g.ivs["scale"] = (1e-9, g.ivs["peak"][1] / 127.0)
    g.style["motif"] = motif


def _motif_epilogue(g: Gen, x: Param) -> tuple | None:
    """The row output that belongs to the motif, if it has one."""
    elem = ("leaf", "elem", x.name)
    motif = g.style.get("motif")
    if motif == "softmax":
        diff = g.temps_hint[1]
        if any(n == "lse" for n, _, _ in g.rowvals) and g.chance(0.5):
            return ("bin", "-", elem, ("leaf", "rowval", "lse"))
        return ("bin", "/", ("un", "exp", diff), ("leaf", "rowval", "total"))
    if motif == "layernorm":
        e = ("bin", "*", ("bin", "-", elem, ("leaf", "rowval", "mean")), ("leaf", "rowval", "inv"))
    elif motif == "rmsnorm":
        e = ("bin", "*", elem, ("leaf", "rowval", "inv"))
    elif motif == "minmax":
        return ("bin", "/", ("bin", "-", elem, ("leaf", "rowval", "lo")),
                ("leaf", "rowval", "span"))
    elif motif == "l2":
        return ("bin", "/", elem, ("leaf", "rowval", "norm"))
    elif motif == "absmax":
        e = ("bin", "/", elem, ("leaf", "rowval", "scale"))
        return ("call", "min", ("call", "max", ("un", "round", e), lit(-127.0)), lit(127.0))
    else:
        return None
    for p in g.params:
        if p.role == "weight" and g.chance(0.7):
            e = ("bin", "*", e, ("leaf", "weight", p.name))
            break
    if g.chance(0.3):
        e = ("bin", "*", ("cast", "BFloat16", e), lit(1.0)) if g.chance(0.5) else e
    return e


def generate(seed: int, avoid: frozenset[str] | set[str] = frozenset()) -> Op:
    """The op of a seed (the same on every machine: only `random.Random(seed)` decides)."""
    g = Gen(seed, frozenset(avoid))
    rng = g.rng
    family = rng.choice(["gated_activation", "reduction", "fused_row", "fused_row"])
    layout = rng.choices(["nested", "flat", "flat1d"],
                         [70, 25, 5 if family == "gated_activation" else 0])[0]
    row_rank = 1 if layout != "nested" else rng.choices([1, 2, 3], [60, 25, 15])[0]
    packed = family == "gated_activation" and layout == "nested" and rng.random() < 0.3
    const_cols = rng.choice(CONST_COLS) if layout != "flat1d" and rng.random() < 0.15 else None
    if packed and const_cols:
        const_cols = max(2, const_cols // 2) * 2  # the packed row holds 2 * half
    main = _element_type(g)
    x = g.add_param("x", "packed" if packed else "row", main)
    # more inputs
    extra_rows = rng.choices([0, 1, 2], [55, 35, 10])[0] if not packed else 0
    for i in range(extra_rows):
        g.add_param(["z", "res", "u"][i], "row", _element_type(g, extra=True))
    if layout != "flat1d" and not packed:
        for i in range(rng.choices([0, 1, 2], [45, 40, 15])[0]):
            g.add_param(["w", "bias"][i], "weight", _element_type(g, extra=True))
    if layout != "flat1d" and rng.random() < 0.25:
        if row_rank >= 2 and rng.random() < 0.5:
            if rng.random() < 0.5 and not packed:
                g.add_param("hw", "hweight", _element_type(g))
            else:
                g.add_param("ch", "chscale", _element_type(g), axis=rng.randrange(row_rank - 1))
        elif layout == "nested" and row_rank == 1 and rng.random() < 0.3:
            g.add_param("ks", "keepscale", "Float32")
        else:
            g.add_param("sc", "rowscale", _element_type(g))
    for i in range(rng.choices([0, 1, 2], [55, 35, 10])[0]):
        g.add_param(["alpha", "eps"][i] if family != "gated_activation" else
                    ["alpha", "beta"][i], "scalar", "Real")

    outputs: list[Output] = []
    if family != "gated_activation":
        if rng.random() < 0.5:
            _motif(g, x)
        else:
            for i in range(rng.choices([1, 2, 3], [45, 40, 15])[0]):
                leaves = g.column_leaves(allow_rowvals=True, allow_temps=False)
                red = _reduction(g, leaves, i)
                g.reductions.append(red)
                g.ivs[red.name] = red.iv
            if g.reductions and rng.random() < 0.6:
                name = g.fresh("rv")
                e = g.expr(g.row_leaves(), rng.choice([1, 2]))
                if not _uses_rowval(e):
                    e = ("bin", "+", e, ("leaf", "rowval", g.reductions[-1].name))
                    if g.checked(e) is None:
                        e = ("leaf", "rowval", g.reductions[-1].name)
                typ = rng.choice([None, None, None, "BFloat16", "Float32"])
                g.rowvals.append((name, e, typ))
                g.ivs[name] = g.iv(e)
                if typ:
                    g.style["typed_let"] = True
    # element temporaries (inside the output loop)
    if family != "reduction" and rng.random() < 0.5:
        for _ in range(rng.choice([1, 1, 2])):
            name = g.fresh("t")
            leaves = g.column_leaves(allow_rowvals=True)
            e = g.expr(leaves, rng.choice([1, 2, 3]))
            select = None
            if rng.random() < 0.35:
                if g.int_only(e):  # `Let mutable t be 3.` holds an Int: a Real branch can't Set it
                    e = ("bin", "*", e, lit(1.0))
                cond = g.condition(leaves)
                bl = g.branch_leaves(leaves, cond, e)
                alt = g.expr(bl, rng.choice([0, 1, 2]))
                cond2 = g.condition(leaves) if rng.random() < 0.3 else None
                alt2 = g.expr(g.branch_leaves(leaves, cond, e, cond2) if cond2 is not None
                              else leaves, 1) if rng.random() < 0.3 else None
                select = (cond, alt, alt2, cond2)
                g.style["select"] = True
            typ = rng.choice([None, None, None, "BFloat16", "Float16"]) if not select else None
            g.temps.append((name, e, (select, typ)))
            ivs = [g.iv(e)] + ([g.iv(select[1])] if select else []) + \
                ([g.iv(select[2])] if select and select[2] is not None else [])
            g.ivs[name] = (min(i[0] for i in ivs), max(i[1] for i in ivs))
            if typ:
                g.style["typed_let"] = True
    # outputs
    if family == "gated_activation":
        n_out = rng.choices([1, 2, 3], [60, 30, 10])[0]
        for i in range(n_out):
            dt = _output_type(g, "row")
            e = g.expr(g.column_leaves(allow_rowvals=False), rng.choice([1, 2, 3, 3]))
            if packed and i == 0 and rng.random() < 0.6:  # a GLU: act(gate) * up
                gate = ("leaf", "elem", x.name)
                act = rng.choice([("un", "sigmoid", gate), ("un", "tanh", gate),
                                  ("call", "max", lit(0.0, intish=True), gate),
                                  ("bin", "*", gate, ("un", "sigmoid", gate)),
                                  ("un", "erf", ("bin", "*", gate, lit(0.7071067811865476)))])
                e = ("bin", "*", act, ("leaf", "up", x.name))
            outputs.append(Output(["y", "out2", "out3"][i], "row", dt, _fit_output(g, e, dt)))
    else:
        n_row = 0 if family == "reduction" else rng.choices([1, 2], [75, 25])[0]
        n_per = rng.choices([1, 2, 3], [55, 35, 10])[0] if family == "reduction" else \
            rng.choices([0, 1, 2], [60, 30, 10])[0]
        motif_e = _motif_epilogue(g, x) if g.style.get("motif") else None
        for i in range(n_row):
            dt = _output_type(g, "row")
            leaves = g.column_leaves(allow_rowvals=True)
            if motif_e is not None and i == 0:
                e = motif_e
                if rng.random() < 0.3:
                    e = ("bin", rng.choice(["+", "*"]), e, g.expr(leaves, 1))
            else:
                e = g.expr(leaves, rng.choice([1, 2, 3]))
                if g.reductions and not _uses_rowval(e):
                    rv = ("leaf", "rowval", rng.choice(g.reductions).name)
                    e = ("bin", rng.choice(["+", "-", "*"]), e, rv)
            if g.checked(e) is None:
                e = ("leaf", "elem", x.name)
            outputs.append(Output(["y", "y2"][i], "row", dt, _fit_output(g, e, dt)))
        for i in range(n_per):
            role = "keepdim" if layout == "nested" and rng.random() < 0.25 else "perrow"
            dt = _output_type(g, role)
            e = g.expr(g.row_leaves(pure=True), rng.choice([0, 1, 2]))
            if not _uses_rowval(e):
                e = ("bin", "+", ("leaf", "rowval", rng.choice(g.reductions).name), e) \
                    if g.checked(("bin", "+", ("leaf", "rowval", g.reductions[0].name), e)) \
                    else ("leaf", "rowval", g.reductions[0].name)
            if g.checked(e) is None:
                e = ("leaf", "rowval", g.reductions[0].name)
            outputs.append(Output(["stat", "stat2", "stat3"][i], role, dt, _fit_output(g, e, dt)))
        if not outputs:
            outputs.append(Output("stat", "perrow", "Float32",
                                  ("leaf", "rowval", g.reductions[0].name)))
    if "broadcast-output" in g.avoid:  # a known bug: reference.py does not broadcast these
        temps = {n: (e, extra) for n, e, extra in g.temps}

        def live_parts(t: str) -> list:
            e, (select, typ) = temps[t]
            if select is not None and select[2] is not None and select[3] is None:
                return [select]  # If / Otherwise both set it: its first value is dead
            return [e, select]

        def reads_row(e: Any) -> bool:
            if names_used(e, "elem") or names_used(e, "up"):
                return True
            return any(reads_row(live_parts(t)) for t in names_used(e, "temp") if t in temps)
        for o in outputs:
            if o.role == "row" and not reads_row(o.expr):
                inner = o.expr[2][2][2][2] if DTYPES[o.dtype][2] == "int" else o.expr
                e = ("bin", rng.choice(["+", "*", "-"]), inner, ("leaf", "elem", x.name))
                o.expr = _fit_output(g, e if g.checked(e) else ("leaf", "elem", x.name), o.dtype)
    returns = len(outputs) == 1 and rng.random() < 0.6
    op = Op(seed, f"diff_{seed}", family, layout, row_rank, g.params, outputs, g.reductions,
            g.rowvals, g.temps, g.helpers, const_cols, packed, returns, style=g.style,
            avoid=frozenset(avoid))
    _drop_unused(op)
    from render import render  # the printer (render.py, beside this file)

    op.text = render(op, random.Random(seed * 7919 + 1))
    return op


def _uses_rowval(e: Any) -> bool:
    if isinstance(e, tuple):
        if e[:2] == ("leaf", "rowval"):
            return True
        return any(_uses_rowval(c) for c in e)
    if isinstance(e, list):
        return any(_uses_rowval(c) for c in e)
    return False


def names_used(e: Any, kind: str | None = None) -> set[str]:
    """The leaf names an expression (or any nested structure of them) reads."""
    out: set[str] = set()
    if isinstance(e, tuple):
        if len(e) == 3 and e[0] == "leaf":
            if kind is None or e[1] == kind:
                out.add(e[2])
            return out
        for c in (e[1:] if e and isinstance(e[0], str) else e):
            out |= names_used(c, kind)
    elif isinstance(e, list):
        for c in e:
            out |= names_used(c, kind)
    return out


def _drop_unused(op: Op) -> None:
    """Remove temporaries, row values and helpers nothing reads (the op would still be valid,
    but dead code only slows the interpreter down)."""
    changed = True
    while changed:
        changed = False
        live = set()
        for o in op.outputs:
            live |= names_used(o.expr)
        for _, e, extra in op.temps:
            live |= names_used(e) | names_used(extra)
        for _, e, _ in op.rowvals:
            live |= names_used(e)
        for r in op.reductions:
            live |= names_used([r.term, r.cond, r.other])
        for t in list(op.temps):
            if t[0] not in live:
                op.temps.remove(t)
                changed = True
        for rv in list(op.rowvals):
            if rv[0] not in live:
                op.rowvals.remove(rv)
                changed = True
    called = set()

    def calls(e: Any) -> None:
        if isinstance(e, tuple):
            if e and e[0] == "helper":
                called.add(e[1])
            for c in e:
                calls(c)
        elif isinstance(e, list):
            for c in e:
                calls(c)
    for o in op.outputs:
        calls(o.expr)
    for _, e, extra in op.temps:
        calls(e)
        calls(extra)
    for _, e, _ in op.rowvals:
        calls(e)
    for r in op.reductions:
        calls([r.term, r.cond, r.other])
    for h in op.helpers:
        calls(h.body)
    op.helpers = [h for h in op.helpers if h.name in called]


if __name__ == "__main__":
    pass
    o = generate(int(sys.argv[1]))
    print(o.text)
    print("#", o.describe(), file=sys.stderr)


# --- the rounding variant -----------------------------------------------------------------------

ROUNDING_PREFIX = "q_round"


def _int_only(e: Any, ints: set[str]) -> bool:
    k = e[0]
    if k == "lit":
        return "." not in e[2] and "e" not in e[2].lower()
    if k == "leaf":
        return e[2] in ints or e[1] == "len"
    if k == "bin":
        return _int_only(e[2], ints) and _int_only(e[3], ints)
    if k == "un":
        return e[1] in ("abs", "neg", "floor", "ceil", "round") and _int_only(e[2], ints)
    if k == "call":
        return e[1] in ("max", "min") and _int_only(e[2], ints) and _int_only(e[3], ints)
    if k == "cast":
        return DTYPES[e[1]][2] == "int"
    return False


def rounding_variant(op: Op) -> tuple[Op, list[str]]:
    """The op with every intermediate value multiplied by a scalar parameter of its own
    (q_round1, q_round2, ...). At 1 it is the op; at 1 +- 2^-22 each, it shows how much the op's
    result moves when each intermediate is rounded, as float32 rounds it in the kernel (a
    cancellation after a value float32 cannot hold, `1 - tanh(10)`, shows up here and not in a
    perturbation of the inputs)."""
    import copy

    v = copy.deepcopy(op)
    ints = {p.name for p in op.params if p.role != "scalar" and DTYPES[p.dtype][2] == "int"}
    names: list[str] = []

    def q() -> tuple:
        names.append(f"{ROUNDING_PREFIX}{len(names) + 1}")
        return ("leaf", "scalar", names[-1])

    def wrap(e: Any) -> Any:
        if not isinstance(e, tuple) or not e:
            return e
        k = e[0]
        if k in ("cmp",):
            return (k, e[1], wrap(e[2]), wrap(e[3]))
        if k == "between":
            return (k, wrap(e[1]), wrap(e[2]), wrap(e[3]))
        if k == "not":
            return (k, wrap(e[1]))
        if k in ("and", "or"):
            return (k, wrap(e[1]), wrap(e[2]))
        if k == "leaf":
            return e
        if k == "lit":
            new = e
        elif k == "un":
            new = (k, e[1], wrap(e[2]))
        elif k in ("bin", "call"):
            new = (k, e[1], wrap(e[2]), wrap(e[3]))
        elif k == "cast":
            new = (k, e[1], wrap(e[2]))
        elif k == "helper":
            new = (k, e[1], [wrap(a) for a in e[2]])
        else:
            return e
        if _int_only(e, ints) or (k == "cast" and DTYPES[e[1]][2] == "int"):
            return new
        if k == "call" and e[1] == "pow" and e[3][0] == "lit":
            new = (k, e[1], new[2], e[3])  # the kernel's pow(x, 2.0) is x * x: keep it so
        return ("bin", "*", new, q())

    for o in v.outputs:
        o.expr = wrap(o.expr)
    v.temps = [(n, wrap(e), ((tuple(wrap(c) if c is not None else None for c in sel) if sel
                              else None), typ)) for n, e, (sel, typ) in v.temps]
    v.rowvals = [(n, wrap(e), typ) for n, e, typ in v.rowvals]
    for r in v.reductions:
        r.term = wrap(r.term)  # a "first" start is the wrapped term at column 1, as it may be
        r.cond = wrap(r.cond) if r.cond is not None else None
        r.other = wrap(r.other) if r.other is not None else None
    for n in names:
        v.params.append(Param(n, "scalar", "Real", 1.0, 1.0))
    from render import render

    v.name = op.name + "_rounding"
    v.text = render(v, random.Random(op.seed * 7919 + 1))
    return v, names


def wide_variant(op: Op) -> Op | None:
    """The op with its narrow float outputs (BFloat16, Float16, FP8) stored as Float32: their
    value before the last rounding, to tell a rounding tie (where float32 and float64 may round
    either way) from a wrong value. None when no output is narrow."""
    import copy

    narrow = [o for o in op.outputs if o.dtype in ("BFloat16", "Float16", "Float8E4M3",
                                                   "Float8E5M2")]
    if not narrow:
        return None
    v = copy.deepcopy(op)
    for o in v.outputs:
        if o.dtype in ("BFloat16", "Float16", "Float8E4M3", "Float8E5M2"):
            o.dtype = "Float32"
    from render import render

    v.name = op.name + "_wide"
    v.text = render(v, random.Random(op.seed * 7919 + 1), plain=op.plain)
    return v
