"""Printing a generated op (gen.Op) as LOGOS source, in one of the spellings the language allows.

The spelling is chosen by its own random stream, so the same tree can be printed several ways;
every choice made is recorded in `op.style` (the runner reports which forms were covered).
Expressions are printed so that they parse back into exactly the generated tree (floating-point
sums are not associative): a right operand of the same precedence is parenthesized.
"""

from __future__ import annotations

import random
from typing import Any

from gen import Op, Param, Reduction, names_used

ENGLISH = {"+": "plus", "-": "minus", "*": "times", "/": "divided by", "%": "modulo"}
LEVEL = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}
CMP_WORDS = {">": ["is greater than", ">", "is above", "is more than"],
             "<": ["is less than", "<", "is below"],
             ">=": ["is at least", ">=", "is greater than or equal to"],
             "<=": ["is at most", "<=", "is less than or equal to"]}


def seq(depth: int, elem: str) -> str:
    return "Seq of " * depth + elem


class Printer:
    """Expressions, with leaves printed by the statement context (`leaf` callback)."""

    def __init__(self, rng: random.Random, english: float):
        self.rng = rng
        self.english = english
        self.parens = 0.08  # extra parentheses around a binary operation

    def expr(self, e: tuple, leaf) -> str:
        return self._p(e, leaf)[0]

    def _wrap(self, text: str, level: int, need: int) -> str:
        return text if level >= need else f"({text})"

    def _p(self, e: tuple, leaf) -> tuple[str, int]:
        k = e[0]
        if k == "lit":
            return (e[2], 6) if e[1] >= 0 else (f"({e[2]})", 6)
        if k == "leaf":
            text, level = leaf(e)
            return text, level
        if k == "bin":
            op = e[1]
            lv = LEVEL[op]
            a, la = self._p(e[2], leaf)
            b, lb = self._p(e[3], leaf)
            sym = ENGLISH[op] if self.rng.random() < self.english else op
            text = f"{self._wrap(a, la, lv)} {sym} {self._wrap(b, lb, lv + 1)}"
            if self.rng.random() < self.parens:
                return f"({text})", 6
            return text, lv
        if k == "un":
            a, la = self._p(e[2], leaf)
            if e[1] == "neg":
                return f"-{self._wrap(a, la, 6)}", 4
            return f"{e[1]}({a})", 6
        if k == "call":
            a, _ = self._p(e[2], leaf)
            b, lb = self._p(e[3], leaf)
            if e[1] == "pow" and self.rng.random() < 0.4:
                a, la = self._p(e[2], leaf)
                word = "to the power of" if self.rng.random() < 0.4 else "**"
                return f"{self._wrap(a, la, 6)} {word} {self._wrap(b, lb, 6)}", 3
            return f"{e[1]}({a}, {b})", 6
        if k == "cast":
            a, la = self._p(e[2], leaf)
            return f"{self._wrap(a, la, 7)} as {e[1]}", 5
        if k == "helper":
            args = ", ".join(self._p(a, leaf)[0] for a in e[2])
            return f"{e[1]}({args})", 6
        raise AssertionError(e)

    def cond(self, c: tuple, leaf) -> str:
        k = c[0]
        if k == "cmp":
            a = self.expr(c[2], leaf)
            b = self.expr(c[3], leaf)
            return f"{a} {self.rng.choice(CMP_WORDS[c[1]])} {b}"
        if k == "between":
            return (f"{self._wrap(*self._p(c[1], leaf), 2)} is between "
                    f"{self._wrap(*self._p(c[2], leaf), 2)} and "
                    f"{self._wrap(*self._p(c[3], leaf), 2)}")
        if k == "not":
            return f"not ({self.cond(c[1], leaf)})"
        if k in ("and", "or"):
            return f"({self.cond(c[1], leaf)}) {k} ({self.cond(c[2], leaf)})"
        raise AssertionError(c)


class Body:
    """Lines of a block, with indentation."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)


def render(op: Op, rng: random.Random, plain: bool = False) -> str:
    """plain: one fixed spelling (counted loops, `item c of row`, symbols), for the fixed ops
    of the planted-miscompile tests, whose kernel text they patch."""
    return Renderer(op, rng, plain).text()


class Renderer:
    def __init__(self, op: Op, rng: random.Random, plain: bool = False):
        self.op = op
        self.rng = rng
        self.style = op.style
        self.pr = Printer(rng, english=rng.choice([0.0, 0.0, 0.3, 0.8]))
        self.index_syntax = rng.random() < 0.2  # x[r][c] instead of item c of item r of x
        if self.index_syntax:
            self.style["index_syntax"] = True
        self.english = self.pr.english > 0
        if self.english:
            self.style["english_ops"] = True
        R = op.row_rank
        self.counters = {1: ["r"], 2: ["b", "r"], 3: ["b", "s", "r"]}[R]
        if op.layout != "nested":
            self.rows_name, self.cols_name = rng.choice(
                [("rows", "cols"), ("tokens", "hidden"), ("batch", "width"), ("nrows", "ncols")])
            if op.layout == "flat1d":
                self.cols_name = rng.choice(["n", "size", "count"])
            op.axis_names = (self.rows_name, self.cols_name)
        self.zero_based = op.layout == "flat" and rng.random() < 0.4
        if self.zero_based:
            self.style["zero_based_rows"] = True
        self.alias = op.layout == "nested" and rng.random() < 0.6  # Let row be item r of x.
        self.col = rng.choice(["c", "c", "i", "j"])
        self.row_while = rng.random() < 0.15
        self.col_loop_form = rng.choice(["count", "count", "foreach", "foreach", "while"])
        self.len_form = rng.choice(["length of", "the length of", "length(", "let"])
        self.inline_base = op.layout == "flat" and rng.random() < 0.3
        if plain:
            self.pr.english, self.pr.parens = 0.0, 0.0
            self.index_syntax = self.zero_based = self.row_while = self.inline_base = False
            self.alias, self.col_loop_form, self.len_form = True, "count", "length of"
            self.english = False
            self.style.pop("index_syntax", None)
            self.style.pop("english_ops", None)
            self.style.pop("zero_based_rows", None)
        self.foreach_rows = self.can_foreach_rows() and rng.random() < 0.5 and not plain
        self._declared: set[str] = set()
        self._while_open: list[str | None] = []

    # names --------------------------------------------------------------------------------------

    def param(self, name: str) -> Param:
        return next(p for p in self.op.params if p.name == name)

    def row_prefix(self, name: str) -> str:
        """A row input's current row (nested layout)."""
        if self.alias and name == "x":
            return "row"
        return self.index_of(name, self.counters)

    def index_of(self, name: str, idx: list[str]) -> str:
        """name indexed by idx (outermost first): `item r of item b of name` or `name[b][r]`."""
        idx = [self.row_index(i) for i in idx]
        if self.index_syntax:
            return name + "".join(f"[{i}]" for i in idx)
        text = name
        for i in idx:
            text = f"item {self._ix(i)} of {text}"
        return text

    def row_index(self, counter: str) -> str:
        if self.zero_based and counter == self.counters[-1]:
            return f"{counter} + 1"
        return counter

    def _ix(self, i: str) -> str:
        return i if i.isidentifier() or i.isdigit() else f"({i})"

    def item(self, col: str, of: str) -> str:
        if self.index_syntax and of.replace("_", "").isalnum():
            return f"{of}[{col}]"
        return f"item {self._ix(col)} of {of}"

    def length_text(self) -> str:
        """The row's length as a Real-context operand."""
        op = self.op
        if op.layout != "nested":
            return self.cols_name
        if self.len_form == "let":
            return "n"
        of = self.row_prefix("x")
        if self.len_form == "length(":
            return f"length({of})"
        return f"{self.len_form} {of}" if of.isidentifier() else f"{self.len_form} ({of})"

    # leaves -------------------------------------------------------------------------------------

    def leaf_fn(self, col: str | None, loop_var: str | None = None, up_col: str | None = None,
                rowvals: dict[str, str] | None = None, reversed_: bool = False):
        """The printer of leaves at column `col` (None outside a column loop)."""
        op = self.op

        def at(c: str) -> str:
            if reversed_:
                return f"{self.nname} + 1 - {c}"
            return c

        def leaf(e: tuple) -> tuple[str, int]:
            _, kind, name = e
            if kind == "elem" or kind == "up":
                if loop_var is not None and kind == "elem" and name == "x":
                    return loop_var, 6
                c = at(col) if kind == "elem" else up_col
                if op.layout == "nested":
                    return self.item(c, self.row_prefix(name)), 6
                return self.item(self.flat_index(c), name), 6
            if kind == "weight":
                return self.item(at(col), name), 6
            if kind == "hweight":
                return self.item(at(col), self.index_of(name, [self.counters[-1]])), 6
            if kind == "rowscale":
                if op.layout == "nested":
                    return self.index_of(name, self.counters), 6
                return self.item(self.row_index(self.counters[-1]), name), 6
            if kind == "keepscale":
                return self.item("1", self.index_of(name, self.counters)), 6
            if kind == "chscale":
                p = self.param(name)
                return self.index_of(name, [self.counters[p.axis]]), 6
            if kind == "scalar":
                return name, 6
            if kind == "len":
                t = self.length_text()
                return t, 6
            if kind in ("rowval", "temp", "param"):
                return (rowvals or {}).get(name, name), 6
            raise AssertionError(e)
        return leaf

    def flat_index(self, c: str) -> str:
        if self.op.layout == "flat1d":
            return c
        if self.inline_base:
            r = self.counters[-1]
            row0 = r if self.zero_based else f"({r} - 1)"
            return f"{row0} * {self.cols_name} + {c}"
        return f"base + {c}"

    # the op -------------------------------------------------------------------------------------

    def text(self) -> str:
        op = self.op
        out: list[str] = [f"# Differential-test op (tests/differential/gen.py), seed {op.seed}: "
                          f"{op.family}, {op.layout} layout, {op.row_rank} row axes", ""]
        for h in op.helpers:
            params = " and ".join(f"({n}: {t})" for n, t in h.params)
            out.append(f"## To {h.name} {params} -> {h.result}:")
            body = self.pr.expr(h.body, lambda e: (e[2], 6))
            out.append(f"    Return {body}.")
            out.append("")
        out.append(self.header() + ":")
        b = Body()
        self.body(b)
        out += b.lines
        out.append("")
        return "\n".join(out)

    def tensor_type(self, p: Param) -> str:
        op = self.op
        R = op.row_rank
        if op.layout != "nested":
            return seq(1, p.dtype)
        depth = {"row": R + 1, "packed": R + 1, "weight": 1, "hweight": 2, "rowscale": R,
                 "keepscale": R + 1, "chscale": 1}[p.role]
        return seq(depth, p.dtype)

    def output_type(self, o) -> str:
        op = self.op
        R = op.row_rank
        if op.layout != "nested":
            return seq(1, o.dtype)
        return seq({"row": R + 1, "perrow": R, "keepdim": R + 1}[o.role], o.dtype)

    def header(self) -> str:
        op = self.op
        groups = []
        for p in op.params:
            t = "Real" if p.role == "scalar" else self.tensor_type(p)
            groups.append(f"({p.name}: {t})")
        if op.layout == "flat":
            groups += [f"({self.rows_name}: Int)", f"({self.cols_name}: Int)"]
        elif op.layout == "flat1d":
            groups.append(f"({self.cols_name}: Int)")
        joined = groups[0]
        for gtext in groups[1:]:
            joined += self.rng.choice([" and ", " and ", ", ", " with ", " and "]) + gtext
        head = f"## To {op.name} {joined}"
        if op.returns:
            return head + f" -> {self.output_type(op.outputs[0])}"
        outs = " and ".join(f"({o.name}: {self.output_type(o)})" for o in op.outputs)
        return head + f" into {outs}"

    def body(self, b: Body) -> None:
        op = self.op
        d = 1
        if op.layout == "flat":
            n = f"{self.rows_name} * {self.cols_name}"
            for p in op.params:
                if p.role == "row":
                    b.add(d, f"Check that length of {p.name} equals {n}.")
                elif p.role == "weight":
                    b.add(d, f"Check that length of {p.name} equals {self.cols_name}.")
                elif p.role == "rowscale":
                    b.add(d, f"Check that length of {p.name} equals {self.rows_name}.")
            if not op.returns:
                for o in op.outputs:
                    size = n if o.role == "row" else self.rows_name
                    b.add(d, f"Check that length of {o.name} equals {size}.")
            if op.const_cols:
                b.add(d, f"Check that {self.cols_name} equals {op.const_cols}.")
                self.style["const_cols"] = True
        elif op.layout == "flat1d":
            for p in op.params:
                if p.role == "row":
                    b.add(d, f"Check that length of {p.name} equals {self.cols_name}.")
            if not op.returns:
                for o in op.outputs:
                    b.add(d, f"Check that length of {o.name} equals {self.cols_name}.")
        elif op.const_cols:
            first = "x"
            for _ in range(op.row_rank):
                first = f"item 1 of {first}"
            width = op.const_cols
            b.add(d, f"Check that length of {first} equals {width}.")
            self.style["const_cols"] = True
        if op.returns:
            o = op.outputs[0]
            self.result = self.rng.choice(["output", "result", "out"])
            depth = 1 if op.layout != "nested" else \
                {"row": op.row_rank + 1, "perrow": op.row_rank, "keepdim": op.row_rank + 1}[o.role]
            b.add(d, f"Let mutable {self.result} be a new {seq(depth, o.dtype)}.")
        if op.layout == "flat1d":
            self.flat1d_body(b, d)
        else:
            self.rows(b, d, 0, self.result if op.returns else None)
        if op.returns:
            b.add(d, f"Return {self.result}.")

    # loops over rows ----------------------------------------------------------------------------

    def can_foreach_rows(self) -> bool:
        op = self.op
        if op.layout != "nested" or not op.returns or self.index_syntax:
            return False
        for p in op.params:
            if p.role in ("row", "packed") and p.name != "x":
                return False
            if p.role in ("rowscale", "keepscale", "chscale", "hweight"):
                return False
        return self.alias

    def rows(self, b: Body, d: int, level: int, parent: str | None) -> None:
        """The loop over row axis `level` (and the ones inside it)."""
        op = self.op
        R = op.row_rank
        counter = self.counters[level]
        last = level == R - 1
        foreach = self.foreach_rows
        if op.layout == "flat":
            rows = self.rows_name
            if self.row_while:
                self.style["while_rows"] = True
                b.add(d, f"Let mutable {counter} be {0 if self.zero_based else 1}.")
                cmp = "is less than" if self.zero_based else "is at most"
                b.add(d, f"While {counter} {cmp} {rows}:")
            elif self.zero_based:
                b.add(d, f"Repeat for {counter} from 0 to {rows} - 1:")
            else:
                b.add(d, f"Repeat for {counter} from 1 to {rows}:")
        else:
            of = "x" if level == 0 else self.index_of("x", self.counters[:level])
            if foreach:
                self.style["foreach_rows"] = True
                name = "row" if last else ["plane", "block"][level]
                parent_name = "x" if level == 0 else self._foreach_parent
                b.add(d, f"Repeat for {name} in {parent_name}:")
                self._foreach_parent = name
                self.counters_foreach = True
            elif self.row_while and last:
                self.style["while_rows"] = True
                b.add(d, f"Let mutable {counter} be 1.")
                b.add(d, f"While {counter} is at most length of {of}:")
            else:
                b.add(d, f"Repeat for {counter} from 1 to length of {of}:")
        inner = d + 1
        level_seq = None
        if parent is not None and not last:
            o = op.outputs[0]
            depth = {"row": R - level, "perrow": R - level - 1, "keepdim": R - level}[o.role]
            level_seq = f"out_{counter}"
            b.add(inner, f"Let mutable {level_seq} be a new {seq(depth, o.dtype)}.")
        if last:
            self.row_body(b, inner, parent, foreach)
        else:
            self.rows(b, inner, level + 1, level_seq if parent is not None else None)
            if level_seq:
                b.add(inner, f"Push {level_seq} to {parent}.")
        if (self.row_while and (last or op.layout == "flat")) and not foreach:
            b.add(inner, f"Set {counter} to {counter} + 1.")

    # one row ------------------------------------------------------------------------------------

    def row_body(self, b: Body, d: int, parent: str | None, foreach_rows: bool) -> None:
        op = self.op
        if op.layout == "flat" and not self.inline_base:
            r = self.counters[-1]
            row0 = r if self.zero_based else f"({r} - 1)"
            b.add(d, f"Let base be {row0} * {self.cols_name}.")
        if op.layout == "nested" and self.alias and not foreach_rows:
            b.add(d, f"Let row be {self.index_of('x', self.counters)}.")
        for p in op.params:
            if p.role == "keepscale":
                b.add(d, f"Check that length of {self.index_of(p.name, self.counters)} equals 1.")
                self.style["keepdim_input"] = True
        if not op.returns:
            for o in op.outputs:
                if o.role == "keepdim":
                    b.add(d, f"Check that length of {self.index_of(o.name, self.counters)} "
                             "equals 1.")
        if op.layout == "nested" and self.len_form == "let":
            b.add(d, f"Let n be length of {self.row_prefix('x')}.")
        self.nname = "n" if self.len_form == "let" else None
        if op.packed:
            ofx = self.row_prefix("x")
            word = self.rng.choice(["/", "divided by"])
            b.add(d, f"Let half be length of {ofx} {word} 2.")
        # reductions and per-row values, in dependency order
        self.emit_reductions(b, d)
        # row outputs
        row_outs = [o for o in op.outputs if o.role == "row"]
        if row_outs:
            self.output_loop(b, d, row_outs, parent)
        for o in op.outputs:
            if o.role == "row":
                continue
            leaf = self.leaf_fn(None)
            value = self.pr.expr(o.expr, leaf)
            if parent is not None:
                if o.role == "keepdim":
                    b.add(d, f"Let mutable kept be a new Seq of {o.dtype}.")
                    b.add(d, f"Push {value} to kept.")
                    b.add(d, f"Push kept to {parent}.")
                else:
                    b.add(d, f"Push {value} to {parent}.")
            elif op.layout == "flat":
                b.add(d, f"Set {self.item(self.row_index(self.counters[-1]), o.name)} to "
                         f"{value}.")
            elif o.role == "keepdim":
                b.add(d, f"Set item 1 of {self.index_of(o.name, self.counters)} to {value}.")
            else:
                b.add(d, f"Set {self.index_of(o.name, self.counters)} to {value}.")
            if o.role == "keepdim":
                self.style["keepdim_output"] = True

    def emit_reductions(self, b: Body, d: int) -> None:
        op = self.op
        done: set[str] = set()
        pending_r = list(op.reductions)
        pending_v = list(op.rowvals)
        while pending_r or pending_v:
            progressed = False
            for rv in list(pending_v):  # per-row values whose inputs are ready
                deps = names_used(rv[1], "rowval")
                if deps <= done:
                    name, e, typ = rv
                    text = self.pr.expr(e, self.leaf_fn(None))
                    b.add(d, f"Let {name}: {typ} be {text}." if typ else f"Let {name} be {text}.")
                    done.add(name)
                    pending_v.remove(rv)
                    progressed = True
            ready = [r for r in pending_r
                     if names_used([r.term, r.cond, r.other], "rowval") <= done]
            if ready:
                first = ready[0]
                group = [first] + [r for r in ready[1:] if r.reversed == first.reversed
                                   and r.loop_from == first.loop_from and self.rng.random() < 0.6]
                self.reduction_loop(b, d, group)
                for r in group:
                    pending_r.remove(r)
                    done.add(r.name)
                progressed = True
            if not progressed:
                raise AssertionError("a dependency cycle in the generated op")

    def col_loop(self, b: Body, d: int, start: int, end: str, reads_only_x: bool,
                 reversed_: bool = False) -> tuple[int, str | None, str]:
        """Opens a column loop; returns (body depth, loop variable or None, the counter)."""
        op = self.op
        form = self.col_loop_form
        if form == "foreach" and (not reads_only_x or start != 1 or reversed_ or
                                  op.layout != "nested"):
            form = "count"
        c = self.col
        if form == "foreach":
            self.style["foreach_cols"] = True
            b.add(d, f"Repeat for v in {self.row_prefix('x')}:")
            return d + 1, "v", c
        if form == "while":
            self.style["while_cols"] = True
            if c in self._declared:
                b.add(d, f"Set {c} to {start}.")
            else:
                b.add(d, f"Let mutable {c} be {start}.")
                self._declared.add(c)
            if self.rng.random() < 0.5:
                b.add(d, f"While {c} is at most {end}:")
            else:
                b.add(d, f"While {c} is less than {end} + 1:")
            self._while_open.append(c)
            return d + 1, None, c
        b.add(d, f"Repeat for {c} from {start} to {end}:")
        self._while_open.append(None)
        return d + 1, None, c

    def close_loop(self, b: Body, d: int) -> None:
        c = self._while_open.pop() if self._while_open else None
        if c is not None:
            b.add(d, f"Set {c} to {c} + 1.")

    def end_text(self) -> str:
        op = self.op
        if op.layout != "nested":
            return self.cols_name
        if self.op.packed:
            return "half"
        if self.len_form == "let":
            return "n"
        return f"length of {self.row_prefix('x')}"

    def reads_only_x(self, exprs: list) -> bool:
        names = names_used(exprs)
        others = names - {"x"} - {n for n, _, _ in self.op.rowvals} - \
            {r.name for r in self.op.reductions} - {t[0] for t in self.op.temps}
        scalars = {p.name for p in self.op.params if p.role == "scalar"}
        kinds = set()

        def walk(e: Any) -> None:
            if isinstance(e, tuple):
                if len(e) == 3 and e[0] == "leaf":
                    kinds.add(e[1])
                    return
                for c in e:
                    walk(c)
            elif isinstance(e, list):
                for c in e:
                    walk(c)
        walk(exprs)
        return not (others - scalars) and "up" not in kinds and "len" not in kinds

    def reduction_loop(self, b: Body, d: int, group: list[Reduction]) -> None:
        op = self.op
        rev = group[0].reversed
        if rev and self.len_form != "let" and op.layout == "nested":
            b.add(d, f"Let n be length of {self.row_prefix('x')}.")
            self.len_form = "let"
        if rev and op.layout != "nested":
            rev = False
        self.nname = "n" if op.layout == "nested" else self.cols_name
        for r in group:
            if r.init == "first":
                first = self.pr.expr(r.term, self.leaf_fn("1", reversed_=False))
                b.add(d, f"Let mutable {r.name} be {first}.")
                self.style["init_first"] = True
            else:
                b.add(d, f"Let mutable {r.name} be {r.init[2]}.")
        start = group[0].loop_from
        exprs = [[r.term, r.cond, r.other] for r in group]
        body_d, var, c = self.col_loop(b, d, start, self.end_text(), self.reads_only_x(exprs),
                                       reversed_=rev)
        leaf = self.leaf_fn(c, loop_var=var, reversed_=rev)
        for r in group:
            self.fold(b, body_d, r, leaf)
        self.close_loop(b, body_d)

    def fold(self, b: Body, d: int, r: Reduction, leaf) -> None:
        t = self.pr.expr(r.term, leaf)
        s = r.name
        plus = "plus" if self.english and self.rng.random() < 0.5 else "+"
        self.style["fold_" + r.form] = True
        if r.form == "plus":
            b.add(d, f"Set {s} to {s} {plus} {self._paren_sum(t)}.")
        elif r.form == "plus_left":
            b.add(d, f"Set {s} to {self._paren_sum(t, left=True)} {plus} {s}.")
        elif r.form == "minus":
            b.add(d, f"Set {s} to {s} - {self._paren_sum(t)}.")
        elif r.form == "two_terms":
            o = self.pr.expr(r.other, leaf)
            b.add(d, f"Set {s} to {s} + {self._paren_sum(t)} + {self._paren_sum(o)}.")
        elif r.form in ("if_plus", "if_else"):
            b.add(d, f"If {self.pr.cond(r.cond, leaf)}:")
            b.add(d + 1, f"Set {s} to {s} + {self._paren_sum(t)}.")
            if r.form == "if_else":
                b.add(d, self.rng.choice(["Otherwise:", "Else:"]))
                o = self.pr.expr(r.other, leaf)
                b.add(d + 1, f"Set {s} to {s} + {self._paren_sum(o)}.")
        elif r.form in ("max_call", "max_call_swapped"):
            f = r.kind
            if r.form == "max_call":
                b.add(d, f"Set {s} to {f}({s}, {t}).")
            else:
                b.add(d, f"Set {s} to {f}({t}, {s}).")
        elif r.form == "if_greater":
            word = "is greater than" if r.kind == "max" else "is less than"
            b.add(d, f"If {t} {word} {s}:")
            b.add(d + 1, f"Set {s} to {t}.")
        else:
            raise AssertionError(r.form)

    def _paren_sum(self, t: str, left: bool = False) -> str:
        """A term added to an accumulator: parenthesized so the fold stays s + (term)."""
        return f"({t})" if (" + " in t or " - " in t or " plus " in t or " minus " in t) \
            else t

    def output_loop(self, b: Body, d: int, outs: list, parent: str | None) -> None:
        op = self.op
        exprs = [o.expr for o in outs] + [[t[1], t[2]] for t in op.temps]
        only_x = self.reads_only_x(exprs) and not op.packed and parent is not None
        temps_before = [t for t in op.temps if t[2][0] is None and t[2][1] is None
                        and self.rng.random() < 0.2]
        for t in temps_before:
            b.add(d, f"Let mutable {t[0]} be 0.0.")
            self.style["temp_before_loop"] = True
        row_seq = None
        if parent is not None and op.layout == "nested":
            row_seq = self.rng.choice(["y_row", "zs", "vals"])
            b.add(d, f"Let mutable {row_seq} be a new Seq of {outs[0].dtype}.")
        body_d, var, c = self.col_loop(b, d, 1, self.end_text(), only_x)
        up = f"{c} + half" if op.packed else None
        if op.packed:
            self.style["packed"] = True
        leaf = self.leaf_fn(c, loop_var=var, up_col=up)
        for t in op.temps:
            name, e, (select, typ) = t
            text = self.pr.expr(e, leaf)
            if t in temps_before:
                b.add(body_d, f"Set {name} to {text}.")
            elif select is None:
                b.add(body_d, f"Let {name}: {typ} be {text}." if typ else
                      f"Let {name} be {text}.")
            else:
                cond, alt, alt2, cond2 = select
                b.add(body_d, f"Let mutable {name} be {text}.")
                b.add(body_d, f"If {self.pr.cond(cond, leaf)}:")
                b.add(body_d + 1, f"Set {name} to {self.pr.expr(alt, leaf)}.")
                if alt2 is not None:
                    if cond2 is not None:
                        b.add(body_d, f"{self.rng.choice(['Otherwise if', 'elif', 'Else if'])} "
                                      f"{self.pr.cond(cond2, leaf)}:")
                    else:
                        b.add(body_d, self.rng.choice(["Otherwise:", "Else:"]))
                    b.add(body_d + 1, f"Set {name} to {self.pr.expr(alt2, leaf)}.")
        for o in outs:
            value = self.pr.expr(o.expr, leaf)
            if parent is not None:
                target = row_seq if row_seq else parent
                b.add(body_d, f"Push {value} to {target}.")
            elif op.layout == "flat":
                b.add(body_d, f"Set {self.item(self.flat_index(c), o.name)} to {value}.")
            else:
                b.add(body_d, f"Set {self.item(c, self.index_of(o.name, self.counters))} to "
                              f"{value}.")
        self.close_loop(b, body_d)
        if row_seq:
            b.add(d, f"Push {row_seq} to {parent}.")

    def flat1d_body(self, b: Body, d: int) -> None:
        op = self.op
        n = self.cols_name
        self.counters = ["r"]
        body_d, var, c = self.col_loop(b, d, 1, n, reads_only_x=False)
        leaf = self.leaf_fn(c)
        for t in op.temps:
            name, e, (select, typ) = t
            text = self.pr.expr(e, leaf)
            if select is None:
                b.add(body_d, f"Let {name}: {typ} be {text}." if typ else f"Let {name} be {text}.")
            else:
                cond, alt, alt2, cond2 = select
                b.add(body_d, f"Let mutable {name} be {text}.")
                b.add(body_d, f"If {self.pr.cond(cond, leaf)}:")
                b.add(body_d + 1, f"Set {name} to {self.pr.expr(alt, leaf)}.")
                if alt2 is not None:
                    b.add(body_d, "Otherwise:")
                    b.add(body_d + 1, f"Set {name} to {self.pr.expr(alt2, leaf)}.")
        for o in op.outputs:
            value = self.pr.expr(o.expr, leaf)
            if op.returns:
                b.add(body_d, f"Push {value} to {self.result}.")
            else:
                b.add(body_d, f"Set {self.item(c, o.name)} to {value}.")
        self.close_loop(b, body_d)
