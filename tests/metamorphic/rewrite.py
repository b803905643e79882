"""Meaning-preserving source-to-source rewrites of LOGOS ops (issue 12, build item 4).

Each transformation kind is a function `(source, rng) -> str | None`: the rewritten op file, or
None when the kind does not apply to this op. All kinds are listed, with a one-line description,
in the one table `KINDS` at the end. A rewrite keeps the op's interface (its name, parameters and
outputs; `flat_layout` alone changes the layout of its tensors, see there) and its meaning for
every input: the only difference allowed is float64 rounding where a sum is reassociated or
visited in another order. Every form a rewrite writes is one that docs/logos-language.md
describes; whether solgen recognizes it is what the metamorphic test measures.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass, fields, replace
from typing import Callable

from logos_ast import (EXPR_FIELDS, LOOPS, Bin, Branch, Call, Cast, Cmp, Copy, Doc, Expr, Func,
                       Item, Length, Name, Neg, NewSeq, Not, Num, Param, ParseError, Slice, Stmt,
                       children, emap, exprs_of, fmap, let, names_in, parse_doc, reads,
                       render_body, set_, smap, sub_bodies, subexprs, subst, target_name, walk,
                       writes)

Rewrite = Callable[[str, random.Random], "str | None"]

INT_TYPES = {"Int", "Int64", "Int32", "Int16", "Int8", "UInt8"}
NARROW_FLOATS = {"BFloat16", "Float16", "Float32", "Float8E4M3", "Float8E5M2"}
INT_BUILTINS = {"abs", "max", "min", "floor", "ceil", "round"}  # Int of Ints (§4)
ZERO = Num("0.0")
ONE = Num("1")

# Names the flat layout adds for its two axes; the test passes them (harness.adapt_inputs).
FLAT_ROWS, FLAT_COLS = "mm_rows", "mm_cols"


# ------------------------------------------------------------------------------------ framework

class Skip(Exception):
    """The kind does not apply to this op after all."""


def on_op(fn: Callable[[Doc, Func, random.Random], bool | None]) -> Rewrite:
    """Turn `fn(doc, op, rng) -> applied?` into a `(source, rng) -> str | None` rewrite."""

    @functools.wraps(fn)
    def run(source: str, rng: random.Random) -> str | None:
        try:
            doc = parse_doc(source)
            op = doc.op
        except ParseError:
            return None
        if op.raw is not None:
            return None
        try:
            if fn(doc, op, rng) is False:
                return None
        except Skip:
            return None
        out = doc.render()
        return out if out != source else None

    return run


def used_names(doc: Doc) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", doc.render()))


def fresh(used: set[str], base: str) -> str:
    name, n = base, 1
    while name in used:
        n += 1
        name = f"{base}{n}"
    used.add(name)
    return name


def index_of(body: list[Stmt], s: Stmt) -> int:
    return next(i for i, x in enumerate(body) if x is s)


def touch(s: Stmt) -> Stmt:
    s.src = None
    for b in s.branches:
        b.src = None
    return s


def rename(body: list[Stmt], mapping: dict[str, str]) -> None:
    """Rename bound names and their uses in `body` (statements and expressions)."""
    for s, _, _ in walk(body):
        if s.name in mapping:
            s.name = mapping[s.name]
            touch(s)
    fmap(body, lambda e, _: Name(mapping[e.id]) if isinstance(e, Name) and e.id in mapping
         else None)


def substitute(body: list[Stmt], mapping: dict[str, Expr]) -> None:
    fmap(body, lambda e, _: mapping.get(e.id) if isinstance(e, Name) else None)


def bindings(op: Func) -> dict[str, int]:
    """How many times each name is bound (Let, loop variable, parameter) in the op."""
    out: dict[str, int] = {p.name: 1 for p in op.params}
    for s, _, _ in walk(op.body):
        if s.kind in ("let", "for_in", "for_range") and s.name:
            out[s.name] = out.get(s.name, 0) + 1
    return out


def statements(op: Func) -> list[tuple[Stmt, list[Stmt], tuple[Stmt, ...]]]:
    return list(walk(op.body))


# ----------------------------------------------------------------------------------------- types

@dataclass(frozen=True)
class Ty:
    rank: int
    is_int: bool


REAL, INT = Ty(0, False), Ty(0, True)


def type_of_text(text: str) -> Ty:
    return Ty(text.count("Seq of"), text.split()[-1] in INT_TYPES)


class Types:
    """Ranks and Int-ness of the op's names and expressions (enough for the rewrites' guards)."""

    def __init__(self, doc: Doc, op: Func):
        self.rets = {f.name: type_of_text(f.ret) for f in doc.funcs if f.ret}
        self.env: dict[str, Ty] = {p.name: type_of_text(p.type) for p in op.params}
        for _ in range(2):  # a mutable Int set to a Real is a Real from the start (§4)
            for s, _, _ in walk(op.body):
                if s.kind == "let" and s.name:
                    t = type_of_text(s.type) if s.type else self.of(s.value)
                    self.env.setdefault(s.name, t)  # `Set c to c + 1` reads c's own type
                    if s.mutable and any(x.kind == "set" and x.target == Name(s.name)
                                         and not self.of(x.value).is_int
                                         for x, _, _ in walk(op.body)):
                        t = Ty(t.rank, False)
                    self.env[s.name] = t
                elif s.kind == "for_in" and s.name:
                    c = self.of(s.coll)
                    self.env[s.name] = Ty(max(c.rank - 1, 0), c.is_int)
                elif s.kind == "for_range" and s.name:
                    self.env[s.name] = INT

    def of(self, e: Expr | None) -> Ty:
        if e is None:
            return REAL
        if isinstance(e, Num):
            return INT if not re.search(r"[.eE]", e.text) else REAL
        if isinstance(e, Name):
            return self.env.get(e.id, REAL)
        if isinstance(e, Bin):
            return INT if e.op != "**" and self.of(e.l).is_int and self.of(e.r).is_int else REAL
        if isinstance(e, (Neg, Copy)):
            return self.of(e.e)
        if isinstance(e, Cast):
            return INT if e.type in INT_TYPES else REAL
        if isinstance(e, Item):
            c = self.of(e.coll)
            return Ty(max(c.rank - 1, 0), c.is_int)
        if isinstance(e, Slice):
            return self.of(e.coll)
        if isinstance(e, Length):
            return INT
        if isinstance(e, Call):
            if e.name in self.rets:
                return self.rets[e.name]
            return INT if e.name in INT_BUILTINS and all(self.of(a).is_int for a in e.args) \
                else REAL
        if isinstance(e, NewSeq):
            return type_of_text(e.text)
        return REAL  # comparisons and Bools: not Ints for the guards below


# ---------------------------------------------------------------------------- reduction forms

def sum_terms(e: Expr) -> list[tuple[int, Expr]]:
    """e as a signed list of the terms of its sums and differences."""
    if isinstance(e, Bin) and e.op in ("+", "-"):
        right = sum_terms(e.r)
        if e.op == "-":
            right = [(-sg, t) for sg, t in right]
        return sum_terms(e.l) + right
    return [(1, e)]


def rebuild(terms: list[tuple[int, Expr]]) -> Expr:
    sign, first = terms[0]
    out: Expr = first if sign > 0 else Neg(first)
    for sign, t in terms[1:]:
        out = Bin("+" if sign > 0 else "-", out, t)
    return out


def sum_update(s: Stmt) -> tuple[str, list[tuple[int, Expr]]] | None:
    """`Set s to ...` where s is a term once, with coefficient 1: (s, the other terms)."""
    if s.kind != "set" or not isinstance(s.target, Name) or s.value is None:
        return None
    name = s.target.id
    terms = sum_terms(s.value)
    hits = [i for i, (_, t) in enumerate(terms) if name in names_in(t)]
    if len(terms) < 2 or len(hits) != 1 or terms[hits[0]] != (1, Name(name)):
        return None
    return name, [t for i, t in enumerate(terms) if i != hits[0]]


def spine(s: Stmt) -> tuple[str, list[tuple[str, Expr]]] | None:
    """`Set s to s + a - b ...` read as ((s + a) - b): (s, [('+', a), ('-', b)])."""
    if sum_update(s) is None or s.value is None:
        return None
    name = target_name(s.target) or ""
    out: list[tuple[str, Expr]] = []
    x = s.value
    while isinstance(x, Bin) and x.op in ("+", "-"):
        out.append((x.op, x.r))
        x = x.l
    if x != Name(name) or any(name in names_in(t) for _, t in out):
        return None
    return name, out[::-1]


def max_update(s: Stmt) -> tuple[str, str, Expr] | None:
    """`Set m to max(m, t)` (or min, either order): (kind, m, t)."""
    if s.kind != "set" or not isinstance(s.target, Name) or not isinstance(s.value, Call):
        return None
    c, m = s.value, s.target
    if c.name not in ("max", "min") or len(c.args) != 2 or m not in c.args:
        return None
    t = c.args[1] if c.args[0] == m else c.args[0]
    return (c.name, m.id, t) if m.id not in names_in(t) else None


def if_max(s: Stmt) -> tuple[str, str, Expr] | None:
    """`If t > m: Set m to t.` and its mirrored and min forms: (kind, m, t)."""
    if s.kind != "if" or len(s.branches) != 1 or len(s.branches[0].body) != 1:
        return None
    cond, st = s.branches[0].cond, s.branches[0].body[0]
    if not isinstance(cond, Cmp) or st.kind != "set" or not isinstance(st.target, Name):
        return None
    m, t = st.target, st.value
    if t is None or m.id in names_in(t):
        return None
    if (cond.l, cond.r) == (t, m):
        kind = {">": "max", ">=": "max", "<": "min", "<=": "min"}.get(cond.op)
    elif (cond.l, cond.r) == (m, t):
        kind = {"<": "max", "<=": "max", ">": "min", ">=": "min"}.get(cond.op)
    else:
        return None
    return (kind, m.id, t) if kind else None


def is_reduction_loop(s: Stmt) -> bool:
    """An innermost Repeat loop that only reduces: no store, no Push, no inner loop."""
    if s.kind not in ("for_in", "for_range"):
        return False
    return not any(x.kind in LOOPS + ("push", "opaque") or (
        x.kind == "set" and isinstance(x.target, Item)) for x, _, _ in walk(s.body))


def innermost(s: Stmt) -> bool:
    return s.kind in LOOPS and not any(x.kind in LOOPS for x, _, _ in walk(s.body))


def stores(op: Func, ty: Types) -> list[tuple[Stmt, list[Stmt], tuple[Stmt, ...]]]:
    """The statements that write a scalar to an output or a local sequence."""
    return [(s, b, l) for s, b, l in statements(op)
            if (s.kind == "push" and ty.of(s.value).rank == 0)
            or (s.kind == "set" and isinstance(s.target, Item))]


def sum_increment(s: Stmt) -> tuple[str, Expr] | None:
    """A single-term sum `s + t`, `t + s` or `s - t`: (field path, t) for rewrites of t."""
    v, name = s.value, target_name(s.target)
    if sum_update(s) is None or not isinstance(v, Bin) or name is None:
        return None
    if v.l == Name(name) and name not in names_in(v.r):
        return "r", v.r
    if v.op == "+" and v.r == Name(name) and name not in names_in(v.l):
        return "l", v.l
    return None


def with_increment(s: Stmt, f: Callable[[Expr], Expr]) -> bool:
    inc = sum_increment(s)
    if inc is None:
        m = max_update(s)
        if m is None or not isinstance(s.value, Call):
            return False
        args = tuple(f(a) if a == m[2] else a for a in s.value.args)
        s.value = replace(s.value, args=args)
        touch(s)
        return True
    assert isinstance(s.value, Bin)
    s.value = replace(s.value, **{inc[0]: f(inc[1])})
    touch(s)
    return True


def while_counters(op: Func) -> set[str]:
    """The counters of counted While loops (`Set c to c + 1.` is a step, not a sum)."""
    return {c.l.id for s, _, _ in statements(op) if s.kind == "while" and
            isinstance(c := s.cond, Cmp) and isinstance(c.l, Name)}


def in_loop_updates(op: Func) -> list[Stmt]:
    """Sum, max and min updates of accumulators inside loops."""
    counters = while_counters(op)
    return [s for s, _, loops in statements(op)
            if loops and target_name(s.target) not in counters and
            (sum_increment(s) is not None or max_update(s) is not None)]


# ------------------------------------------------------------------------- renaming, operands

@on_op
def rename_locals(doc: Doc, op: Func, rng: random.Random) -> bool:
    used = used_names(doc)
    names = list(dict.fromkeys(s.name for s, _, _ in walk(op.body)
                               if s.kind in ("let", "for_in", "for_range") and s.name))
    if not names:
        return False
    suffix = rng.choice(["_a", "_k", "_q", "_z"])
    rename(op.body, {n: fresh(used, n + suffix) for n in names})
    return True


def _commute(ops: str, want_int: bool) -> Callable[[Doc, Func, random.Random], bool]:
    def run(doc: Doc, op: Func, rng: random.Random) -> bool:
        ty = Types(doc, op)

        def f(e: Expr, _: bool) -> Expr | None:
            if isinstance(e, Bin) and e.op in ops and ty.of(e).is_int == want_int:
                return Bin(e.op, e.r, e.l, e.word)
            return None

        # a flat contract's factors give the tensor's axes in order, and a While must step
        # by exactly `Set c to c + 1.` (§3): leave both alone
        counters = while_counters(op)
        return any([smap(s, f) for s, _, _ in statements(op) if s.kind != "check" and
                    not (s.kind == "set" and target_name(s.target) in counters)])

    return run


commute_add = on_op(_commute("+", False))
commute_add.__name__ = "commute_add"
commute_mul = on_op(_commute("*", False))
commute_mul.__name__ = "commute_mul"
commute_index = on_op(_commute("+*", True))
commute_index.__name__ = "commute_index"


@on_op
def commute_max_min(doc: Doc, op: Func, rng: random.Random) -> bool:
    return fmap(op.body, lambda e, _: Call(e.name, e.args[::-1]) if isinstance(e, Call) and
                e.name in ("max", "min") and len(e.args) == 2 else None)


# ----------------------------------------------------------------------- accumulator forms

@on_op
def acc_operand_first(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`s + a - b` becomes `a - b + s`: the accumulator last."""
    done = False
    for s in in_loop_updates(op):
        sp = spine(s)
        if sp is None:
            continue
        name, terms = sp
        rest = rebuild([(1 if o == "+" else -1, t) for o, t in terms])
        s.value = Bin("+", rest, Name(name))
        touch(s)
        done = True
    return done


@on_op
def acc_subtract_negation(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`s + t` becomes `s - (-t)` and `s - t` becomes `s + (-t)`: the same IEEE result."""
    done = False
    for s in in_loop_updates(op):
        v, name = s.value, target_name(s.target)
        if sum_update(s) is None or not isinstance(v, Bin) or v.op not in "+-":
            continue
        if name in names_in(v.l) and name not in names_in(v.r):
            s.value = Bin("-" if v.op == "+" else "+", v.l, Neg(v.r))
        elif v.op == "+" and v.r == Name(name or ""):
            s.value = Bin("-", v.r, Neg(v.l))
        else:
            continue
        touch(s)
        done = True
    return done


@on_op
def acc_split(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`Set s to s + a + b.` becomes `Set s to s + a.` then `Set s to s + b.`."""
    done, counters = False, while_counters(op)
    for s, body, loops in statements(op):
        sp = spine(s) if loops and target_name(s.target) not in counters else None
        if sp is None or len(sp[1]) < 2:
            continue
        name, terms = sp
        i = index_of(body, s)
        body[i:i + 1] = [set_(Name(name), Bin(o, Name(name), t)) for o, t in terms]
        done = True
    return done


def sum_accumulators(op: Func) -> set[str]:
    return {target_name(s.target) or "" for s, _, loops in statements(op)
            if loops and sum_update(s) is not None} - while_counters(op)


@on_op
def acc_int_seed(doc: Doc, op: Func, rng: random.Random) -> bool:
    """A sum seeded with the Int literal `0` instead of `0.0` (spec r2: it becomes a Real)."""
    sums, done = sum_accumulators(op), False
    # a variable first Set to an Int stays an Int (§4): where a row resets the sum, the reset
    # is its seed and the declaration keeps `0.0`
    reset = {target_name(s.target) for s, _, _ in statements(op) if s.kind == "set" and
             isinstance(s.target, Name) and isinstance(s.value, Num)}
    for s, _, _ in statements(op):
        name = s.name if s.kind == "let" else target_name(s.target) if s.kind == "set" else None
        if name not in sums or not isinstance(s.value, Num) or float(s.value.text) != 0.0 or (
                s.value.text == "0") or (s.kind == "let" and name in reset) or (
                s.kind == "set" and not isinstance(s.target, Name)):
            continue
        s.value = Num("0")
        touch(s)
        done = True
    return done


@on_op
def acc_reset_per_row(doc: Doc, op: Func, rng: random.Random) -> bool:
    """A row's accumulator declared before the row loops and reset at the top of each row."""
    ty, counts, done = Types(doc, op), bindings(op), False
    counters = {n for s, _, _ in statements(op) if s.kind == "while" for n in names_in(s.cond)}
    for s, body, loops in statements(op):
        if s.kind != "let" or not s.mutable or not loops or s.name in counters or (
                counts.get(s.name or "", 0) != 1) or ty.of(s.value).rank != 0:
            continue
        name = s.name or ""
        later = body[index_of(body, s) + 1:]
        if not any(x.kind in LOOPS and any(y.kind == "set" and y.target == Name(name)
                                           for y, _, _ in walk(x.body)) for x in later):
            continue  # not an accumulator of a loop over the row
        value = s.value or ZERO
        if not isinstance(value, Num) and ty.of(value).is_int:
            continue
        outer = loops[0]
        top = index_of(op.body, outer)
        # declared Real: a sum seeded by an Int `0` must not be first Set to an Int (§4)
        op.body.insert(top, let(name, ZERO, mutable=True))
        body[index_of(body, s)] = set_(Name(name), value)
        done = True
    return done


# -------------------------------------------------------------------------- visiting orders

@on_op
def reverse_reduction(doc: Doc, op: Func, rng: random.Random) -> bool:
    """A reduction loop that visits the row from its last column to its first."""
    done = False
    for s, body, _ in statements(op):
        if not is_reduction_loop(s):
            continue
        if s.kind == "for_in":
            used = used_names(doc)
            j = fresh(used, "mm_j")
            coll = s.coll or Name("?")
            back = Bin("-", Bin("+", Length(coll), ONE), Name(j))
            new = Stmt("for_range", name=j, start=ONE, end=Length(coll),
                       body=[let(s.name or "", Item(back, coll)), *s.body])
            body[index_of(body, s)] = new
        else:
            back = Bin("-", Bin("+", s.end or ONE, s.start or ONE), Name(s.name or ""))
            substitute(s.body, {s.name or "": back})
        done = True
    return done


@on_op
def seed_first_element(doc: Doc, op: Func, rng: random.Random) -> bool:
    """A reduction seeded with its first element's term, its loop from the second column."""
    done = False
    for loop, body, _ in statements(op):
        if not is_reduction_loop(loop) or (loop.kind == "for_range" and loop.start != ONE):
            continue
        first: dict[str, Expr] = {loop.name or "": Item(ONE, loop.coll) if loop.kind == "for_in"
                                  else ONE}
        seeds: list[tuple[str, Expr, bool]] = []  # (accumulator, seed, replaces the init)
        ok = True
        for st in loop.body:
            if st.kind == "let" and not st.mutable and st.value is not None:
                first[st.name or ""] = subst(st.value, first)
            elif (su := sum_update(st)) is not None:
                seeds.append((su[0], subst(rebuild(su[1]), first), True))
            elif (mx := max_update(st) or if_max(st)) is not None:
                seeds.append((mx[1], subst(mx[2], first), False))
            else:
                ok = False
        if not ok or not seeds:
            continue
        at = index_of(body, loop)
        inits = []
        for name, seed, is_sum in seeds:
            init = next((x for x in reversed(body[:at]) if (x.kind == "let" and x.name == name)
                         or (x.kind == "set" and x.target == Name(name))), None)
            if init is None or (is_sum and not (isinstance(init.value, Num) and
                                                float(init.value.text) == 0.0)) or (
                    not is_sum and init.value != seed):
                ok = False
                break
            between = body[index_of(body, init) + 1:at]
            if names_in(seed) & {x.name for x in between if x.kind == "let"}:
                ok = False  # the seed reads a name bound after the init (a reset before `row`)
                break
            inits.append((init, seed, is_sum))
        if not ok:
            continue
        for init, seed, is_sum in inits:
            if is_sum:
                init.value = seed
                touch(init)
        if loop.kind == "for_in":
            i = fresh(used_names(doc), "mm_i")
            coll = loop.coll or Name("?")
            body[at] = Stmt("for_range", name=i, start=Num("2"), end=Length(coll),
                            body=[let(loop.name or "", Item(Name(i), coll)), *loop.body])
        else:
            loop.start = Num("2")
            touch(loop)
        done = True
    return done


# ------------------------------------------------------------------------------ If forms

def _cmp(op: str, l: Expr, r: Expr) -> Cmp:
    words = {"<": "is less than", ">": "is greater than", "<=": "is at most", ">=": "is at least",
             "==": "is equal to", "!=": "is not equal to"}
    return Cmp(op, l, r, words[op])


@on_op
def max_as_if(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`Set m to max(m, t).` becomes `If t is greater than m: Set m to t.` (min: less than)."""
    done = False
    for s, body, loops in statements(op):
        mx = max_update(s) if loops else None
        if mx is None:
            continue
        kind, m, t = mx
        cond = _cmp(">" if kind == "max" else "<", t, Name(m))
        body[index_of(body, s)] = Stmt("if", branches=[Branch(cond, [set_(Name(m), t)])])
        done = True
    return done


@on_op
def if_as_max(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`If t is greater than m: Set m to t.` becomes `Set m to max(m, t).` (and min)."""
    done = False
    for s, body, loops in statements(op):
        mx = if_max(s) if loops else None
        if mx is None:
            continue
        kind, m, t = mx
        body[index_of(body, s)] = set_(Name(m), Call(kind, (Name(m), t)))
        done = True
    return done


@on_op
def guard_sum_if(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`Set s to s + t.` becomes `If t is not equal to 0.0: Set s to s + t.`."""
    done, counters = False, while_counters(op)
    for s, body, loops in statements(op):
        inc = sum_increment(s) if loops and any(x is s for x in loops[-1].body) and (
            target_name(s.target) not in counters) else None
        if inc is None or not (isinstance(s.value, Bin) and s.value.op == "+"):
            continue
        cond = _cmp("!=", inc[1], ZERO)
        body[index_of(body, s)] = Stmt("if", branches=[Branch(cond, [s])])
        done = True
    return done


@on_op
def guarded_sum_as_select(doc: Doc, op: Func, rng: random.Random) -> bool:
    """An If-guarded sum becomes a select of its increment, then one unguarded update."""
    done, used = False, used_names(doc)
    for s, body, loops in statements(op):
        if s.kind != "if" or not loops:
            continue
        ups = [sum_update(b.body[0]) if len(b.body) == 1 else None for b in s.branches]
        if any(u is None for u in ups) or len({u[0] for u in ups if u}) != 1:
            continue
        acc = ups[0][0] if ups[0] else ""
        if any(acc in names_in(b.cond) for b in s.branches if b.cond is not None):
            continue
        inc = fresh(used, "mm_inc")
        branches = [Branch(b.cond, [set_(Name(inc), rebuild(u[1]))])
                    for b, u in zip(s.branches, ups) if u]
        i = index_of(body, s)
        body[i:i + 1] = [let(inc, ZERO, mutable=True), Stmt("if", branches=branches),
                         set_(Name(acc), Bin("+", Name(acc), Name(inc)))]
        done = True
    return done


def _per_branch(kind: str) -> Callable[[Doc, Func, random.Random], bool]:
    def run(doc: Doc, op: Func, rng: random.Random) -> bool:
        ty, done = Types(doc, op), False
        branched = {id(x) for s, _, _ in statements(op) for b in s.branches for x in b.body}
        for s, body, _ in stores(op, ty):
            if s.kind != kind or id(s) in branched:
                continue
            cond = _cmp(">=", s.value or ZERO, ZERO)
            twin = Stmt(s.kind, value=s.value, target=s.target)
            body[index_of(body, s)] = Stmt("if", branches=[Branch(cond, [s]),
                                                           Branch(None, [twin])])
            done = True
        return done

    return run


push_per_branch = on_op(_per_branch("push"))
push_per_branch.__name__ = "push_per_branch"
store_per_branch = on_op(_per_branch("set"))
store_per_branch.__name__ = "store_per_branch"


@on_op
def branches_to_select(doc: Doc, op: Func, rng: random.Random) -> bool:
    """One store per If branch becomes a select variable stored once after the If."""
    done, used = False, used_names(doc)
    for s, body, _ in statements(op):
        if s.kind != "if" or s.branches[-1].cond is not None:
            continue
        sts = [b.body[0] if len(b.body) == 1 else None for b in s.branches]
        if any(x is None or x.kind not in ("push", "set") for x in sts):
            continue
        first = sts[0]
        assert first is not None
        if first.kind == "set" and not isinstance(first.target, Item):
            continue
        if any(x is not None and (x.kind, x.target) != (first.kind, first.target) for x in sts):
            continue
        sel = fresh(used, "mm_sel")
        branches = [Branch(b.cond, [set_(Name(sel), x.value or ZERO)])
                    for b, x in zip(s.branches, sts) if x]
        i = index_of(body, s)
        body[i:i + 1] = [let(sel, ZERO, mutable=True), Stmt("if", branches=branches),
                         Stmt(first.kind, value=Name(sel), target=first.target)]
        done = True
    return done


@on_op
def mirror_comparison(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`a is greater than b` becomes `b is less than a` in the If conditions."""
    mirror = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
    done = False
    for s, _, _ in statements(op):
        for b in s.branches:
            if b.cond is None:
                continue
            c = emap(b.cond, lambda e, _: (_cmp(mirror[e.op], e.r, e.l) if e.word else
                                           Cmp(mirror[e.op], e.r, e.l))
                     if isinstance(e, Cmp) else None)
            if c != b.cond:
                b.cond, b.src, done = c, None, True
    return done


@on_op
def negate_condition(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`If c: A Otherwise: B` becomes `If not c: B Otherwise: A`."""
    done = False
    for s, _, _ in statements(op):
        if s.kind == "if" and len(s.branches) == 2 and s.branches[1].cond is None:
            a, b = s.branches
            s.branches = [Branch(Not(a.cond or ZERO), b.body), Branch(None, a.body)]
            done = True
    return done


# ----------------------------------------------------------------------------- temporaries

@on_op
def introduce_temporary(doc: Doc, op: Func, rng: random.Random) -> bool:
    """A stored value computed into a `Let` temporary first."""
    ty, used, done = Types(doc, op), used_names(doc), False
    for s, body, _ in stores(op, ty):
        if isinstance(s.value, (Name, Num)) or s.value is None:
            continue
        t = fresh(used, "mm_t")
        body.insert(index_of(body, s), let(t, s.value))
        s.value = Name(t)
        touch(s)
        done = True
    return done


@on_op
def temp_increment(doc: Doc, op: Func, rng: random.Random) -> bool:
    """A reduction's increment (the last term of a sum, the t of max(m, t)) as a temporary."""
    used, done, counters = used_names(doc), False, while_counters(op)
    for s, body, loops in statements(op):
        if not loops or target_name(s.target) in counters:
            continue
        sp, mx = spine(s), max_update(s)
        if sp is not None:
            t = sp[1][-1][1]
        elif mx is not None:
            t = mx[2]
        else:
            continue
        if isinstance(t, (Name, Num)):
            continue
        d = fresh(used, "mm_d")
        body.insert(index_of(body, s), let(d, t))
        if sp is not None:
            assert isinstance(s.value, Bin)
            s.value = replace(s.value, r=Name(d))
        else:
            assert isinstance(s.value, Call)
            s.value = replace(s.value, args=tuple(Name(d) if a == t else a for a in s.value.args))
        touch(s)
        done = True
    return done


def _inlinable(s: Stmt, op: Func, order: list[Stmt], rank: Callable[[int], bool],
               ty: Types) -> bool:
    if s.kind != "let" or s.mutable or s.type or s.value is None or not rank(
            ty.of(s.value).rank) or any(isinstance(x, (NewSeq, Slice, Copy))
                                        for x in subexprs(s.value)):
        return False
    free = names_in(s.value)
    pos = next(i for i, x in enumerate(order) if x is s)
    # a name the value reads must not change after the Let (its uses would see the new value)
    return not any(x.kind in ("set", "push") and target_name(x.target) in free
                   for x in order[pos + 1:])


def _inline_lets(doc: Doc, op: Func, rank: Callable[[int], bool]) -> bool:
    ty, done = Types(doc, op), False
    for _ in range(1000):
        order = [s for s, _, _ in walk(op.body)]
        for s, body, _ in walk(op.body):
            if not _inlinable(s, op, order, rank, ty):
                continue
            i = index_of(body, s)
            scope = body[i + 1:]
            if any(x.name == s.name and x.kind in ("let", "for_in", "for_range")
                   for y in scope for x, _, _ in walk([y])):
                continue  # shadowed later in its block
            substitute(scope, {s.name or "": s.value or ZERO})
            del body[i]
            done = True
            break
        else:
            return done
    return done


@on_op
def inline_temporary(doc: Doc, op: Func, rng: random.Random) -> bool:
    """Every scalar `Let` temporary replaced by its value where it is used."""
    return _inline_lets(doc, op, lambda r: r == 0)


@on_op
def inline_row_alias(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`Let row be item r of x.` removed: its uses read `item r of x` directly."""
    return _inline_lets(doc, op, lambda r: r >= 1)


@on_op
def introduce_row_alias(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`item c of item r of x` read through `Let x_row be item r of x.` at the row's top."""
    used, done = used_names(doc), False
    inputs = {p.name for p in op.params if not p.output and p.rank >= 2}
    for s, _, _ in statements(op):
        if s.kind not in ("for_range", "while"):
            continue
        cond_l = s.cond.l if isinstance(s.cond, Cmp) else None
        counter = s.name if s.kind == "for_range" else cond_l.id if isinstance(
            cond_l, Name) else None

        def is_row(x: Expr | None) -> bool:
            return isinstance(x, Item) and x.idx == Name(counter or "") and isinstance(
                x.coll, Name) and x.coll.id in inputs

        # rows read element-wise or measured (not a row already bound whole by a Let)
        rows = [x.coll if isinstance(x, Item) else x.e for st, _, _ in walk(s.body)
                for e in exprs_of(st) for x in subexprs(e)
                if (isinstance(x, Item) and is_row(x.coll)) or (isinstance(x, Length) and
                                                                 is_row(x.e))]
        rows += [st.coll for st, _, _ in walk(s.body) if st.kind == "for_in" and is_row(st.coll)]
        aliases: dict[Expr, str] = {}
        for r in dict.fromkeys(rows):
            assert isinstance(r, Item) and isinstance(r.coll, Name)
            aliases[r] = fresh(used, f"{r.coll.id}_row")
        if not aliases:
            continue
        fmap(s.body, lambda e, _: Name(aliases[e]) if e in aliases else None)
        s.body[0:0] = [let(n, r) for r, n in aliases.items()]
        done = True
    return done


@on_op
def element_temps_hoisted(doc: Doc, op: Func, rng: random.Random) -> bool:
    """A column loop's `Let` temporaries declared before the loop and Set at every column."""
    ty, counts, done = Types(doc, op), bindings(op), False
    for loop, body, _ in statements(op):
        if not innermost(loop):
            continue
        lets = [s for s in loop.body if s.kind == "let" and not s.mutable and not s.type and
                ty.of(s.value) == REAL and counts.get(s.name or "") == 1]
        for s in lets:
            loop.body[index_of(loop.body, s)] = set_(Name(s.name or ""), s.value or ZERO)
        at = index_of(body, loop)
        body[at:at] = [let(s.name or "", ZERO, mutable=True) for s in lets]
        done |= bool(lets)
    return done


# -------------------------------------------------------------------------------- helpers

def _leaves(e: Expr) -> list[Expr]:
    """The reads a helper takes as parameters: names, element reads and lengths."""
    if isinstance(e, (Name, Item, Length)):
        return [e]
    out: list[Expr] = []
    for c in (e.args if isinstance(e, Call) else
              [getattr(e, f) for f in ("l", "r", "e", "x", "a", "b") if hasattr(e, f)]):
        out.extend(_leaves(c))
    return list(dict.fromkeys(out))


@on_op
def helper_function(doc: Doc, op: Func, rng: random.Random) -> bool:
    """A stored value or a reduction's increment computed by a new `## To` helper."""
    ty, used = Types(doc, op), used_names(doc)
    targets: list[tuple[Stmt, Expr]] = [(s, s.value) for s, _, _ in stores(op, ty)
                                        if s.value is not None]
    targets += [(s, inc[1]) for s in in_loop_updates(op) if (inc := sum_increment(s))]
    helpers: list[Func] = []
    for s, e in targets:
        leaves = _leaves(e)
        if not leaves or e in leaves:
            continue
        name = fresh(used, "mm_helper")
        args = {leaf: fresh(used, "mm_a") for leaf in leaves}
        params = [Param(a, "Int" if ty.of(leaf).is_int else "Real", False, False)
                  for leaf, a in args.items()]
        # Not inside an index: `item c of row` is a parameter whole, even where c is one too.
        body = emap(e, lambda x, in_index: Name(args[x]) if x in args and not in_index else None)
        ret = "Int" if ty.of(e).is_int else "Real"
        helpers.append(Func(name, None, params, ret, [Stmt("return", value=body)], [""]))
        call = Call(name, tuple(leaves))
        if s.value == e:
            s.value = call
            touch(s)
        else:
            with_increment(s, lambda _: call)
    if not helpers:
        return False
    at = doc.parts.index(op)
    doc.parts[at:at] = helpers
    return True


def _expand(f: Func, args: tuple[Expr, ...]) -> Expr | None:
    """The value of a call of a helper made of Lets and one Return, or None."""
    if len(args) != len(f.params) or not f.body or f.body[-1].kind != "return":
        return None
    env: dict[str, Expr] = {}
    for p, a in zip(f.params, args):
        if p.rank or p.type in INT_TYPES:
            return None
        env[p.name] = Cast(a, p.type) if p.type in NARROW_FLOATS else a
    for s in f.body[:-1]:
        if s.kind != "let" or s.mutable or s.type or s.value is None:
            return None
        env[s.name or ""] = subst(s.value, env)
    out = subst(f.body[-1].value or ZERO, env)
    return Cast(out, f.ret) if f.ret in NARROW_FLOATS else out


@on_op
def inline_helpers(doc: Doc, op: Func, rng: random.Random) -> bool:
    """Every call of a helper replaced by the helper's body; helpers no longer called go."""
    helpers = {f.name: f for f in doc.funcs if f is not op and f.raw is None}

    def f(e: Expr, _: bool) -> Expr | None:
        return _expand(helpers[e.name], e.args) if isinstance(e, Call) and (
            e.name in helpers) else None

    done = False
    for _ in range(50):
        if not fmap(op.body, f):
            break
        done = True
    if not done:
        return False
    live, todo = {op.name}, [op]
    while todo:
        text = "\n".join(todo.pop().render()[1:])
        for name, g in helpers.items():
            if name not in live and re.search(rf"\b{name}\(", text):
                live.add(name)
                todo.append(g)
    doc.parts = [p for p in doc.parts if not (isinstance(p, Func) and p.name in helpers and
                                              p.name not in live)]
    return True


# ------------------------------------------------------------------------------ loop forms

def _loops_to(kind: str, conv: Callable[[Stmt, set[str]], list[Stmt]]
              ) -> Callable[[Doc, Func, random.Random], bool]:
    def run(doc: Doc, op: Func, rng: random.Random) -> bool:
        used, hits = used_names(doc), [0]

        def body_of(body: list[Stmt]) -> list[Stmt]:
            out: list[Stmt] = []
            for s in body:
                for b in sub_bodies(s):
                    b[:] = body_of(b)
                if s.kind == kind:
                    hits[0] += 1
                    out.extend(conv(s, used))
                else:
                    out.append(s)
            return out

        op.body[:] = body_of(op.body)
        return hits[0] > 0

    return run


def _counted_as_while(s: Stmt, used: set[str]) -> list[Stmt]:
    w = fresh(used, f"{s.name}_w")
    rename(s.body, {s.name or "": w})
    step = set_(Name(w), Bin("+", Name(w), ONE))
    cond = _cmp("<=", Name(w), s.end or ONE)
    return [let(w, s.start or ONE, mutable=True), Stmt("while", cond=cond, body=[*s.body, step])]


def _foreach_as_counted(s: Stmt, used: set[str]) -> list[Stmt]:
    i = fresh(used, f"{s.name}_i")
    coll = s.coll or Name("?")
    return [Stmt("for_range", name=i, start=ONE, end=Length(coll),
                 body=[let(s.name or "", Item(Name(i), coll)), *s.body])]


counted_as_while = on_op(_loops_to("for_range", _counted_as_while))
counted_as_while.__name__ = "counted_as_while"
foreach_as_counted = on_op(_loops_to("for_in", _foreach_as_counted))
foreach_as_counted.__name__ = "foreach_as_counted"


def _counted_while(s: Stmt) -> tuple[str, Expr] | None:
    """A counted While `c < n` / `c <= n` stepped by `Set c to c + 1.` last: (c, last value)."""
    c = s.cond
    if s.kind != "while" or not isinstance(c, Cmp) or c.op not in ("<", "<=") or not (
            isinstance(c.l, Name)) or not s.body:
        return None
    n = c.l.id
    if s.body[-1].kind != "set" or s.body[-1].target != Name(n) or (
            s.body[-1].value != Bin("+", Name(n), ONE)) or n in names_in(c.r):
        return None
    if any(n in writes(x) for x in s.body[:-1]):
        return None
    return n, (c.r if c.op == "<=" else Bin("-", c.r, ONE))


def _names_own(s: Stmt, name: str) -> bool:
    """Whether s itself (not its body) binds, writes or reads `name`."""
    return s.name == name or target_name(s.target) == name or any(
        name in names_in(e) for e in exprs_of(s))


@on_op
def while_as_counted(doc: Doc, op: Func, rng: random.Random) -> bool:
    """A counted While and its counter's initialization become `Repeat for c from a to b:`."""
    done = False
    for counter in sorted({cw[0] for s, _, _ in statements(op) if (cw := _counted_while(s))}):
        sites = []  # (body, init, while)
        for s, body, _ in statements(op):
            cw = _counted_while(s)
            if cw is None or cw[0] != counter:
                continue
            i = index_of(body, s)
            init = body[i - 1] if i else None
            if init is None or not ((init.kind == "let" and init.name == counter) or (
                    init.kind == "set" and init.target == Name(counter))) or (
                    counter in names_in(init.value)):
                sites = []
                break
            sites.append((body, init, s))
        if not sites:
            continue
        owned = {id(x) for _, init, w in sites for x in (init, w)}
        if any(_names_own(s, counter) for s, _, loops in statements(op)
               if id(s) not in owned and not any(id(lp) in owned for lp in loops)):
            continue  # the counter is read elsewhere: it must stay a variable
        for body, init, w in sites:
            cw = _counted_while(w)
            assert cw is not None
            i = index_of(body, w)
            new = Stmt("for_range", name=counter, start=init.value, end=cw[1], body=w.body[:-1])
            body[i - 1:i + 1] = [new]
        done = True
    return done


# ---------------------------------------------------------------------- spellings, indexing

_WORDS = {"+": "plus", "-": "minus", "*": "times", "/": "divided by", "%": "modulo",
          "**": "to the power of"}


@on_op
def spell_operators(doc: Doc, op: Func, rng: random.Random) -> bool:
    """Operators and comparisons written in words: `plus`, `times`, `is at most`, ..."""
    def f(e: Expr, _: bool) -> Expr | None:
        if isinstance(e, Bin) and not e.word:
            return replace(e, word=_WORDS[e.op])
        if isinstance(e, Cmp) and not e.word:
            return _cmp(e.op, e.l, e.r)
        return None

    return fmap(op.body, f)


@on_op
def symbol_operators(doc: Doc, op: Func, rng: random.Random) -> bool:
    """Operators and comparisons written as symbols: `+`, `*`, `<=`, ..."""
    def f(e: Expr, _: bool) -> Expr | None:
        if isinstance(e, (Bin, Cmp)) and e.word:
            return replace(e, word=None)
        if isinstance(e, Length) and e.style != "length of":
            return Length(e.e)
        return None

    return fmap(op.body, f)


@on_op
def bracket_index(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`item c of item r of x` written `x[r][c]`."""
    return fmap(op.body, lambda e, _: replace(e, bracket=True) if isinstance(e, Item) and
                not e.bracket and isinstance(e.coll, (Name, Call, Item)) else None)


@on_op
def item_of_index(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`x[i]` written `item i of x`."""
    return fmap(op.body, lambda e, _: replace(e, bracket=False) if isinstance(e, Item) and
                e.bracket else None)


# --------------------------------------------------------------------- arithmetic identities

def _on_values(wrap: Callable[[Expr, bool], Expr]
               ) -> Callable[[Doc, Func, random.Random], bool]:
    """Apply `wrap(e, is_int)` to every stored value and every reduction increment."""
    def run(doc: Doc, op: Func, rng: random.Random) -> bool:
        ty, done = Types(doc, op), False
        for s, _, _ in stores(op, ty):
            s.value = wrap(s.value or ZERO, ty.of(s.value).is_int)
            touch(s)
            done = True
        for s in in_loop_updates(op):
            done |= with_increment(s, lambda e: wrap(e, ty.of(e).is_int))
        return done

    return run


# an Int value (an Int8 output's) gets an Int literal: a Real cannot be stored into an Int
double_negation = on_op(_on_values(lambda e, _: Neg(Neg(e))))
double_negation.__name__ = "double_negation"
add_zero = on_op(_on_values(lambda e, i: Bin("+", e, Num("0") if i else ZERO)))
add_zero.__name__ = "add_zero"
mul_one = on_op(_on_values(lambda e, i: Bin("*", e, Num("1") if i else Num("1.0"))))
mul_one.__name__ = "mul_one"


@on_op
def sub_as_add_neg(doc: Doc, op: Func, rng: random.Random) -> bool:
    """`a - b` written `a + (-b)` (the same IEEE result) outside index arithmetic."""
    ty = Types(doc, op)
    return fmap(op.body, lambda e, _: Bin("+", e.l, Neg(e.r)) if isinstance(e, Bin) and
                e.op == "-" and not ty.of(e).is_int else None)


# ----------------------------------------------------------------------- statement order

@on_op
def swap_independent(doc: Doc, op: Func, rng: random.Random) -> bool:
    """Two adjacent statements that do not depend on each other swapped."""
    pairs = []
    for s, body, _ in statements(op):
        i = index_of(body, s)
        if i + 1 >= len(body):
            continue
        a, b = s, body[i + 1]
        if a.kind not in ("let", "set", "push") or b.kind not in ("let", "set", "push"):
            continue
        if writes(a) & (reads(b) | writes(b)) or writes(b) & reads(a):
            continue
        pairs.append((body, i))
    if not pairs:
        return False
    body, i = rng.choice(pairs)
    body[i], body[i + 1] = body[i + 1], body[i]
    return True


# --------------------------------------------------------------------------- row buffers

@on_op
def row_buffer(doc: Doc, op: Func, rng: random.Random) -> bool:
    """A row copied into a local row buffer first; later loops of the row read it back."""
    ty, used = Types(doc, op), used_names(doc)
    counters = {s.name for s, _, _ in statements(op) if s.kind == "for_range"}
    counters |= {n for s, _, _ in statements(op) if s.kind == "while" for n in names_in(s.cond)}
    candidates = []
    for s, body, _ in statements(op):
        if s.kind == "for_in" and ty.of(s.coll).rank == 2:
            row, scope, at, src = s.name or "", s.body, 0, s.coll
        elif s.kind == "let" and not s.mutable and isinstance(s.value, Item) and (
                ty.of(s.value).rank == 1):
            row, scope, at, src = s.name or "", body, index_of(body, s) + 1, s.value
        else:
            continue
        param = op.param(target_name(src) or "")
        if param is None or param.output or not _own_column_uses(scope[at:], row, counters):
            continue
        candidates.append((row, scope, at, param.elem))
    if not candidates:
        return False
    row, scope, at, elem = rng.choice(candidates)
    buf, v = fresh(used, "mm_buf"), fresh(used, "mm_bv")
    rest = scope[at:]
    substitute(rest, {row: Name(buf)})
    fill = Stmt("for_in", name=v, coll=Name(row), body=[Stmt("push", value=Name(v),
                                                              target=Name(buf))])
    scope[at:] = [let(buf, NewSeq(f"a new Seq of {elem}"), mutable=True), fill, *rest]
    return True


def _own_column_uses(body: list[Stmt], row: str, counters: set[str | None]) -> bool:
    """Every use of `row` reads it whole in a loop, at a counter, or measures it."""
    def ok(e: Expr) -> bool:
        if isinstance(e, Item) and e.coll == Name(row):
            return isinstance(e.idx, Name) and e.idx.id in counters
        if isinstance(e, Length) and e.e == Name(row):
            return True
        if e == Name(row):
            return False
        return all(ok(c) for c in children(e))

    uses = 0
    for s, _, _ in walk(body):
        for e in exprs_of(s):
            if s.kind == "for_in" and e is s.coll and e == Name(row):
                uses += 1
                continue
            if not ok(e):
                return False
            uses += row in names_in(e)
    return uses > 0


# ---------------------------------------------------------------------------- flat layout

@on_op
def flat_layout(doc: Doc, op: Func, rng: random.Random) -> bool:
    """A 2-d op rewritten on flat row-major tensors with Int axes mm_rows and mm_cols.

    The rows become `item ((r - 1) * mm_cols + c) of x`, each nested parameter a flat
    `Seq of T` with `Check that length of x equals mm_rows * mm_cols.`, and a returned
    `Seq of Seq` a flat `Seq` filled by one Push per element (docs/logos-language.md §2).
    The test passes the same numbers flattened and compares the outputs flattened."""
    nested = {p.name for p in op.params if p.rank == 2}
    body_text = "\n".join(render_body(op.body))
    if not nested or any(p.rank > 2 or p.type in INT_TYPES for p in op.params) or re.search(
            r"/ 2|divided by 2|\bitems\b|\bCheck\b", body_text):
        return False  # packed halves, slices and keepdim checks have layouts of their own
    if any(not re.search(rf"\b{n}\b", body_text) for n in nested) or (
            op.ret is not None and op.ret.count("Seq of") > 2):
        return False
    loops = [s for s in op.body if s.kind in LOOPS]
    if len(loops) != 1:
        return False
    used = used_names(doc)
    if FLAT_ROWS in used or FLAT_COLS in used:
        return False
    rows_n, cols_n = Name(FLAT_ROWS), Name(FLAT_COLS)
    loop = loops[0]
    rows: dict[str, str] = {}  # row variable -> its tensor
    if loop.kind == "for_in" and isinstance(loop.coll, Name) and loop.coll.id in nested:
        counter = fresh(used, "mm_r")
        rows[loop.name or ""] = loop.coll.id
    elif loop.kind == "for_range" and loop.start == ONE and isinstance(loop.end, Length) and (
            isinstance(loop.end.e, Name) and loop.end.e.id in nested):
        counter = loop.name or ""
    else:
        return False
    r = Name(counter)

    def row_of(e: Expr) -> str | None:
        if isinstance(e, Name) and e.id in rows:
            return rows[e.id]
        if isinstance(e, Item) and e.idx == r and isinstance(e.coll, Name) and (
                e.coll.id in nested):
            return e.coll.id
        return None

    def flat(idx: Expr, x: str) -> Expr:
        return Item(Bin("+", Bin("*", Bin("-", r, ONE), cols_n), idx), Name(x))

    def conv(e: Expr) -> Expr:
        if isinstance(e, Item) and (x := row_of(e.coll)):
            return flat(conv(e.idx), x)
        if isinstance(e, Length) and row_of(e.e):
            return cols_n
        if isinstance(e, Length) and isinstance(e.e, Name) and e.e.id in nested:
            return rows_n
        if row_of(e) or (isinstance(e, Name) and e.id in nested):
            raise Skip  # a row or a tensor used whole
        kids = children(e)
        if not kids:
            return e
        new = {c: conv(c) for c in kids}
        return emap_shallow(e, new)

    out_seq = op.body[-1].value if op.ret and op.body and op.body[-1].kind == "return" else None
    row_seqs = {s.value.id for s in loop.body if s.kind == "push" and s.target == out_seq and
                isinstance(s.value, Name)}

    def conv_body(body: list[Stmt], depth: int) -> list[Stmt]:
        out: list[Stmt] = []
        for s in body:
            if s.kind == "let" and not s.mutable and s.value is not None and row_of(s.value):
                rows[s.name or ""] = row_of(s.value) or ""
                continue
            if out_seq is not None and op.ret and op.ret.count("Seq of") == 2 and depth == 1:
                if s.kind == "let" and s.name in row_seqs:
                    continue
                if s.kind == "push" and s.target == out_seq and isinstance(s.value, Name) and (
                        s.value.id in row_seqs):
                    continue
            if s.kind == "push" and isinstance(s.target, Name) and s.target.id in row_seqs:
                if depth < 2:
                    raise Skip  # a keepdim row of one pushed value
                s.target = out_seq
                touch(s)
            convert(s)
            if s.kind == "for_in" and s.coll is not None and (x := row_of(s.coll)):
                c = fresh(used, "mm_c")
                inner = conv_body(s.body, depth + 1)
                out.append(Stmt("for_range", name=c, start=ONE, end=cols_n,
                                body=[let(s.name or "", flat(Name(c), x)), *inner]))
                continue
            for b in sub_bodies(s):
                b[:] = conv_body(b, depth + (s.kind in LOOPS))
            out.append(s)
        return out

    def convert(s: Stmt) -> None:
        """Convert s's own expressions (a loop over a row is rebuilt by conv_body)."""
        for name, _ in EXPR_FIELDS.get(s.kind, []):
            e = getattr(s, name)
            if e is not None and not (s.kind == "for_in" and name == "coll" and row_of(e)):
                ne = conv(e)
                if ne != e:
                    setattr(s, name, ne)
                    touch(s)
        for b in s.branches:
            if b.cond is not None and (nc := conv(b.cond)) != b.cond:
                b.cond, b.src = nc, None

    for s in op.body:
        if s is not loop:
            convert(s)
    loop.body[:] = conv_body(loop.body, 1)
    if loop.kind == "for_in":
        op.body[index_of(op.body, loop)] = Stmt("for_range", name=counter, start=ONE,
                                                end=rows_n, body=loop.body)
    else:
        loop.end = rows_n
        touch(loop)
    if out_seq is not None and op.ret and op.ret.count("Seq of") == 2:
        if not row_seqs:
            return False
        op.ret = op.ret.replace("Seq of Seq of", "Seq of")
        for s in op.body:
            if s.kind == "let" and Name(s.name or "") == out_seq and isinstance(s.value, NewSeq):
                s.value = NewSeq(s.value.text.replace("Seq of Seq of", "Seq of"))
                touch(s)
    for p in op.params:
        if p.name in nested:
            p.type = p.type.replace("Seq of Seq of", "Seq of")
    last_in = max(i for i, p in enumerate(op.params) if not p.into) if any(
        not p.into for p in op.params) else -1
    op.params[last_in + 1:last_in + 1] = [Param(FLAT_ROWS, "Int", False, False),
                                          Param(FLAT_COLS, "Int", False, False)]
    op.header = None
    size = Bin("*", rows_n, cols_n)
    op.body[0:0] = [Stmt("check", value=Cmp("==", Length(Name(n)), size, "equals"))
                    for n in sorted(nested, key=[p.name for p in op.params].index)]
    return True


def emap_shallow(e: Expr, new: dict[Expr, Expr]) -> Expr:
    """e with its direct children replaced by new[child]."""
    kw = {}
    for fl in fields(e):
        v = getattr(e, fl.name)
        if isinstance(v, Expr):
            kw[fl.name] = new.get(v, v)
        elif isinstance(v, tuple):
            kw[fl.name] = tuple(new.get(x, x) if isinstance(x, Expr) else x for x in v)
    return replace(e, **kw)


# ------------------------------------------------------------------------------- the table

@dataclass(frozen=True)
class Kind:
    name: str
    apply: Rewrite
    description: str


KINDS: list[Kind] = [
    Kind("rename_locals", rename_locals, "every local name and loop variable renamed"),
    Kind("commute_add", commute_add, "operands of every Real `+` swapped"),
    Kind("commute_mul", commute_mul, "operands of every Real `*` swapped"),
    Kind("commute_index", commute_index, "operands of `+` and `*` swapped in Int index arithmetic"),
    Kind("commute_max_min", commute_max_min, "arguments of every `max` and `min` swapped"),
    Kind("acc_operand_first", acc_operand_first, "accumulator last: `s + t` becomes `t + s`"),
    Kind("acc_subtract_negation", acc_subtract_negation,
         "`s + t` becomes `s - (-t)`, `s - t` becomes `s + (-t)`"),
    Kind("acc_split", acc_split, "`s + a + b` split into two updates `s + a` and `s + b`"),
    Kind("acc_int_seed", acc_int_seed, "a sum seeded with the Int literal `0` for `0.0`"),
    Kind("acc_reset_per_row", acc_reset_per_row,
         "accumulator declared before the row loops, reset at the top of each row"),
    Kind("reverse_reduction", reverse_reduction,
         "reduction loops visit the row from the last column (`item (n + 1 - j) of row`)"),
    Kind("seed_first_element", seed_first_element,
         "a sum, max or min seeded with the first element, its loop from the second"),
    Kind("max_as_if", max_as_if, "`max(m, t)` updates as `If t is greater than m: Set m to t.`"),
    Kind("if_as_max", if_as_max, "`If t is greater than m: Set m to t.` as `max(m, t)`"),
    Kind("guard_sum_if", guard_sum_if, "a sum update guarded by `If t is not equal to 0.0:`"),
    Kind("guarded_sum_as_select", guarded_sum_as_select,
         "an If-guarded sum as a select of its increment and one update"),
    Kind("push_per_branch", push_per_branch, "each Push of a value as one Push per If branch"),
    Kind("store_per_branch", store_per_branch,
         "each `Set item` of an output as one `Set item` per If branch"),
    Kind("branches_to_select", branches_to_select,
         "one store per If branch as a select variable stored once"),
    Kind("mirror_comparison", mirror_comparison, "`a > b` as `b < a` in If conditions"),
    Kind("negate_condition", negate_condition, "`If c: A Otherwise: B` as `If not c: B ...: A`"),
    Kind("introduce_temporary", introduce_temporary, "stored values computed into a `Let` first"),
    Kind("temp_increment", temp_increment, "a reduction's increment computed into a `Let` first"),
    Kind("inline_temporary", inline_temporary, "every scalar `Let` inlined where it is used"),
    Kind("inline_row_alias", inline_row_alias, "`Let row be item r of x` inlined"),
    Kind("introduce_row_alias", introduce_row_alias,
         "`item c of item r of x` read through a `Let x_row be item r of x`"),
    Kind("element_temps_hoisted", element_temps_hoisted,
         "a column loop's temporaries declared before it and Set at every column"),
    Kind("row_buffer", row_buffer,
         "a row copied into a local row buffer that the row's later loops read back"),
    Kind("helper_function", helper_function, "stored values and increments computed by helpers"),
    Kind("inline_helpers", inline_helpers, "every helper call replaced by the helper's body"),
    Kind("counted_as_while", counted_as_while, "`Repeat for i from a to b` as a counted While"),
    Kind("foreach_as_counted", foreach_as_counted,
         "`Repeat for v in xs` as `Repeat for i from 1 to length of xs`"),
    Kind("while_as_counted", while_as_counted, "a counted While as `Repeat for i from a to b`"),
    Kind("spell_operators", spell_operators, "operators in words: `plus`, `times`, `is at most`"),
    Kind("symbol_operators", symbol_operators, "operators as symbols: `+`, `*`, `<=`"),
    Kind("bracket_index", bracket_index, "`item c of item r of x` as `x[r][c]`"),
    Kind("item_of_index", item_of_index, "`x[i]` as `item i of x`"),
    Kind("double_negation", double_negation, "stored values and increments as `-(-(e))`"),
    Kind("add_zero", add_zero, "stored values and increments plus `0.0`"),
    Kind("mul_one", mul_one, "stored values and increments times `1.0`"),
    Kind("sub_as_add_neg", sub_as_add_neg, "Real `a - b` as `a + (-b)`"),
    Kind("swap_independent", swap_independent, "two adjacent independent statements swapped"),
    Kind("flat_layout", flat_layout,
         "a nested 2-d op on flat row-major tensors with Int axes and length contracts"),
]
KIND_BY_NAME = {k.name: k for k in KINDS}


def rng_for(stem: str, kind: str) -> random.Random:
    """The fixed random choices of one (op, kind) rewrite."""
    return random.Random(f"{stem}/{kind}")
