"""A small parser and printer for the op subset of LOGOS (docs/logos-language.md), for rewrites.

It reads an op file into blocks, parses each `## To` block's body into statements and
expressions, and prints it back. A statement that no rewrite touched prints its original text,
so an untouched file prints byte for byte as it was read (CRLF included). Anything it cannot
parse makes its whole block opaque: rewrites then leave that block alone.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, fields, replace
from typing import Callable, Iterator


class ParseError(Exception):
    pass


# Inlining a long chain of temporaries (long_exp_horner.lg) nests ~100 parentheses deep, about
# 13 frames of recursive descent each.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))


# ----------------------------------------------------------------------------------- expressions

class Expr:
    """Base of the expression nodes (frozen dataclasses: structural equality, hashable)."""


@dataclass(frozen=True)
class Num(Expr):
    text: str  # as written, so `0` and `0.0` stay apart (an Int literal is a different type)


@dataclass(frozen=True)
class Name(Expr):
    id: str


@dataclass(frozen=True)
class Str(Expr):
    text: str


@dataclass(frozen=True)
class Bool(Expr):
    text: str


@dataclass(frozen=True)
class Bin(Expr):
    op: str  # + - * / % **
    l: Expr
    r: Expr
    word: str | None = field(default=None, compare=False)  # `plus`, `times`, ... when spelled


@dataclass(frozen=True)
class Cmp(Expr):
    op: str  # == != < > <= >=
    l: Expr
    r: Expr
    word: str | None = field(default=None, compare=False)  # `is greater than`, ...


@dataclass(frozen=True)
class Between(Expr):
    x: Expr
    a: Expr
    b: Expr


@dataclass(frozen=True)
class BoolOp(Expr):
    op: str  # and / or
    l: Expr
    r: Expr


@dataclass(frozen=True)
class Not(Expr):
    e: Expr


@dataclass(frozen=True)
class Neg(Expr):
    e: Expr


@dataclass(frozen=True)
class Cast(Expr):
    e: Expr
    type: str


@dataclass(frozen=True)
class Item(Expr):
    idx: Expr
    coll: Expr
    bracket: bool = field(default=False, compare=False)  # `xs[i]` rather than `item i of xs`


@dataclass(frozen=True)
class Length(Expr):
    e: Expr
    style: str = field(default="length of", compare=False)  # or `the length of`, `length()`


@dataclass(frozen=True)
class Slice(Expr):
    a: Expr
    b: Expr
    coll: Expr


@dataclass(frozen=True)
class Call(Expr):
    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class NewSeq(Expr):
    text: str  # `a new Seq of Float32` (with capacity ...), kept as written


@dataclass(frozen=True)
class Copy(Expr):
    e: Expr


def children(e: Expr) -> list[Expr]:
    out: list[Expr] = []
    for f in fields(e):
        v = getattr(e, f.name)
        if isinstance(v, Expr):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend(x for x in v if isinstance(x, Expr))
    return out


def subexprs(e: Expr) -> Iterator[Expr]:
    yield e
    for c in children(e):
        yield from subexprs(c)


def names_in(e: Expr | None) -> set[str]:
    return {x.id for x in subexprs(e) if isinstance(x, Name)} if e is not None else set()


def emap(e: Expr, f: Callable[[Expr, bool], Expr | None], in_index: bool = False) -> Expr:
    """Rebuild `e` bottom-up; f(node, in_index) returns a replacement or None (keep).

    in_index is true inside an index, a slice bound or a size context."""
    kw = {}
    for fl in fields(e):
        v = getattr(e, fl.name)
        sub_index = in_index or (isinstance(e, Item) and fl.name == "idx") or (
            isinstance(e, Slice) and fl.name in ("a", "b"))
        if isinstance(v, Expr):
            nv = emap(v, f, sub_index)
        elif isinstance(v, tuple):
            nv = tuple(emap(x, f, sub_index) if isinstance(x, Expr) else x for x in v)
        else:
            continue
        if nv is not v:  # by identity: a spelling (word, bracket) is not part of ==
            kw[fl.name] = nv
    e2 = replace(e, **kw) if kw else e
    r = f(e2, in_index)
    return e2 if r is None else r


def subst(e: Expr, mapping: dict[str, Expr]) -> Expr:
    return emap(e, lambda x, _: mapping.get(x.id) if isinstance(x, Name) else None)


# ------------------------------------------------------------------------------------- tokenizer

@dataclass(frozen=True)
class Tok:
    kind: str
    text: str
    start: int
    end: int


_TOKEN = re.compile(r"""\s*(?:
      (?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<str>"[^"]*")
    | (?P<op>\*\*|==|!=|<=|>=|[-+*/%<>()\[\],.:])
    )""", re.X)


def tokenize(text: str) -> list[Tok]:
    toks, pos = [], 0
    while text[pos:].strip():
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ParseError(f"cannot read {text[pos:]!r}")
        kind = m.lastgroup or "op"
        toks.append(Tok(kind, m.group(kind), m.start(kind), m.end()))
        pos = m.end()
    return toks


# ---------------------------------------------------------------------------------------- parser

_CMP_SYMBOLS = {"==", "!=", "<", ">", "<=", ">="}
_CMP_WORDS: list[tuple[tuple[str, ...], str]] = [  # longest first
    (("is", "less", "than", "or", "equal", "to"), "<="),
    (("is", "greater", "than", "or", "equal", "to"), ">="),
    (("is", "not", "equal", "to"), "!="),
    (("is", "equal", "to"), "=="),
    (("does", "not", "equal"), "!="),
    (("is", "less", "than"), "<"), (("is", "below"), "<"),
    (("is", "greater", "than"), ">"), (("is", "more", "than"), ">"), (("is", "above"), ">"),
    (("is", "at", "most"), "<="), (("is", "at", "least"), ">="),
    (("is", "not"), "!="),
    (("equals",), "=="),
    (("is",), "=="),
]


class _Parser:
    def __init__(self, toks: list[Tok], text: str):
        self.t, self.i, self.text = toks, 0, text

    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.t[j].text if j < len(self.t) else None

    def at(self, *words: str) -> bool:
        return all(self.peek(k) == w for k, w in enumerate(words))

    def take(self, *words: str) -> bool:
        if self.at(*words):
            self.i += len(words)
            return True
        return False

    def expect(self, *words: str) -> None:
        if not self.take(*words):
            raise ParseError(f"expected {' '.join(words)!r} at {self.peek()!r}")

    def done(self) -> bool:
        return self.i >= len(self.t)

    def name(self) -> str:
        tok = self.t[self.i] if not self.done() else None
        if tok is None or tok.kind != "name":
            raise ParseError(f"expected a name at {self.peek()!r}")
        self.i += 1
        return tok.text

    # expression levels, loosest first (docs/logos-language.md §4)
    def expr(self) -> Expr:
        e = self.and_()
        while self.take("or"):
            e = BoolOp("or", e, self.and_())
        return e

    def and_(self) -> Expr:
        e = self.not_()
        while self.take("and"):
            e = BoolOp("and", e, self.not_())
        return e

    def not_(self) -> Expr:
        if self.take("not"):
            return Not(self.not_())
        return self.cmp()

    def cmp(self) -> Expr:
        e = self.add()
        if self.take("is", "between"):
            a = self.add()
            self.expect("and")
            return Between(e, a, self.add())
        if self.peek() in _CMP_SYMBOLS:
            op = self.t[self.i].text
            self.i += 1
            return Cmp(op, e, self.add())
        for words, op in _CMP_WORDS:
            if self.take(*words):
                return Cmp(op, e, self.add(), " ".join(words))
        return e

    def add(self) -> Expr:
        e = self.mul()
        while True:
            if self.peek() in ("+", "-"):
                op = self.t[self.i].text
                self.i += 1
                e = Bin(op, e, self.mul())
            elif self.take("plus"):
                e = Bin("+", e, self.mul(), "plus")
            elif self.take("minus"):
                e = Bin("-", e, self.mul(), "minus")
            else:
                return e

    def mul(self) -> Expr:
        e = self.pow()
        while True:
            if self.peek() in ("*", "/", "%"):
                op = self.t[self.i].text
                self.i += 1
                e = Bin(op, e, self.pow())
            elif self.take("times"):
                e = Bin("*", e, self.pow(), "times")
            elif self.take("divided", "by"):
                e = Bin("/", e, self.pow(), "divided by")
            elif self.take("modulo"):
                e = Bin("%", e, self.pow(), "modulo")
            else:
                return e

    def pow(self) -> Expr:
        e = self.unary()
        if self.take("**"):
            return Bin("**", e, self.pow())
        if self.take("to", "the", "power", "of"):
            return Bin("**", e, self.pow(), "to the power of")
        return e

    def unary(self) -> Expr:
        if self.take("-"):
            return Neg(self.unary())
        return self.cast()

    def cast(self) -> Expr:
        e = self.postfix()
        while self.take("as"):
            e = Cast(e, self.name())
        return e

    def postfix(self) -> Expr:
        e = self.operand()
        while self.take("["):
            idx = self.expr()
            self.expect("]")
            e = Item(idx, e, bracket=True)
        return e

    def operand(self) -> Expr:
        if self.done():
            raise ParseError("expression expected")
        tok = self.t[self.i]
        if tok.kind == "num":
            self.i += 1
            return Num(tok.text)
        if tok.kind == "str":
            self.i += 1
            return Str(tok.text)
        if tok.text in ("true", "false", "True", "False"):
            self.i += 1
            return Bool(tok.text)
        if self.take("("):
            e = self.expr()
            self.expect(")")
            return e
        if self.take("item"):
            idx = self.postfix()
            self.expect("of")
            return Item(idx, self.postfix())
        if self.take("items"):
            a = self.add()
            self.expect("through")
            b = self.add()
            self.expect("of")
            return Slice(a, b, self.postfix())
        if self.take("the", "length", "of"):
            return Length(self.postfix(), "the length of")
        if self.take("length", "of"):
            return Length(self.postfix())
        if self.take("length", "("):
            e = self.expr()
            self.expect(")")
            return Length(e, "length()")
        if self.take("copy", "of"):
            return Copy(self.postfix())
        if self.at("a", "new"):
            start = tok.start
            while not self.done() and self.peek() != ".":
                self.i += 1
            end = self.t[self.i - 1].end
            return NewSeq(self.text[start:end])
        if tok.kind == "name":
            self.i += 1
            if self.take("("):
                args: list[Expr] = []
                if not self.take(")"):
                    args.append(self.expr())
                    while self.take(","):
                        args.append(self.expr())
                    self.expect(")")
                return Call(tok.text, tuple(args))
            return Name(tok.text)
        raise ParseError(f"unexpected {tok.text!r}")


def parse_expr(text: str) -> Expr:
    p = _Parser(tokenize(text), text)
    e = p.expr()
    if not p.done():
        raise ParseError(f"trailing {p.peek()!r}")
    return e


# --------------------------------------------------------------------------------------- printer

_PREC = {BoolOp: 1, Not: 3, Cmp: 4, Between: 4, Neg: 8, Cast: 9}
_BIN_PREC = {"+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "**": 7}
_CMP_DEFAULT_WORDS = {"<": "is less than", ">": "is greater than", "<=": "is at most",
                      ">=": "is at least", "==": "is equal to", "!=": "is not equal to"}


def prec(e: Expr) -> int:
    if isinstance(e, Bin):
        return _BIN_PREC[e.op]
    if isinstance(e, BoolOp):
        return 1 if e.op == "or" else 2
    return _PREC.get(type(e), 10)


def _wrap(e: Expr, min_prec: int) -> str:
    s = show(e)
    return f"({s})" if prec(e) < min_prec else s


def _operand(e: Expr) -> str:
    """An operand of `item ... of`, `length of`, `as`: a name, literal, call or item read."""
    return show(e) if isinstance(e, (Name, Num, Call, Item, Str, Bool)) else f"({show(e)})"


def show(e: Expr) -> str:
    if isinstance(e, (Num, Str, Bool)):
        return e.text
    if isinstance(e, Name):
        return e.id
    if isinstance(e, NewSeq):
        return e.text
    if isinstance(e, Bin):
        p = _BIN_PREC[e.op]
        op = e.word or e.op
        # a negation as a right operand is parenthesized: `s - (-t)`, not `s - -t`
        right = f"({show(e.r)})" if isinstance(e.r, Neg) else None
        if e.op == "**":
            return f"{_wrap(e.l, 8)} {op} {right or _wrap(e.r, 7)}"
        return f"{_wrap(e.l, p)} {op} {right or _wrap(e.r, p + 1)}"
    if isinstance(e, Cmp):
        return f"{_wrap(e.l, 5)} {e.word or e.op} {_wrap(e.r, 5)}"
    if isinstance(e, Between):
        return f"{_wrap(e.x, 5)} is between {_wrap(e.a, 5)} and {_wrap(e.b, 5)}"
    if isinstance(e, BoolOp):
        p = prec(e)
        return f"{_wrap(e.l, p)} {e.op} {_wrap(e.r, p + 1)}"
    if isinstance(e, Not):
        return f"not {_operand(e.e)}"
    if isinstance(e, Neg):
        return f"-{_wrap(e.e, 9)}"
    if isinstance(e, Cast):
        return f"{_operand(e.e)} as {e.type}"
    if isinstance(e, Item):
        if e.bracket:
            coll = show(e.coll) if isinstance(e.coll, (Name, Call)) or (
                isinstance(e.coll, Item) and e.coll.bracket) else f"({show(e.coll)})"
            return f"{coll}[{show(e.idx)}]"
        idx = show(e.idx) if isinstance(e.idx, (Name, Num)) else f"({show(e.idx)})"
        coll = show(e.coll) if isinstance(e.coll, (Name, Call)) or (
            isinstance(e.coll, Item) and not e.coll.bracket) else _operand(e.coll)
        return f"item {idx} of {coll}"
    if isinstance(e, Length):
        if e.style == "length()":
            return f"length({show(e.e)})"
        return f"{e.style} {_operand(e.e)}"
    if isinstance(e, Slice):
        return f"items {_wrap(e.a, 5)} through {_wrap(e.b, 5)} of {_operand(e.coll)}"
    if isinstance(e, Call):
        return f"{e.name}({', '.join(show(a) for a in e.args)})"
    if isinstance(e, Copy):
        return f"copy of {_operand(e.e)}"
    raise TypeError(e)


# ------------------------------------------------------------------------------------ statements

@dataclass
class Branch:
    cond: Expr | None  # None: the `Otherwise:` branch
    body: list["Stmt"]
    src: str | None = None  # the header line as read; None once changed


@dataclass
class Stmt:
    """One statement. `src` is its text as read; a rewrite that changes it sets src to None."""
    kind: str  # let set push return check for_in for_range while if opaque
    src: str | None = None
    name: str | None = None  # let: the name; loops: the variable
    mutable: bool = False
    type: str | None = None  # let: a declared type
    value: Expr | None = None  # let/set/push/return value, check condition
    target: Expr | None = None  # set/push target
    coll: Expr | None = None  # for_in
    start: Expr | None = None  # for_range
    end: Expr | None = None
    cond: Expr | None = None  # while
    body: list["Stmt"] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)  # if
    word: str = "Check that"  # check: `Check that` / `Assert that`


LOOPS = ("for_in", "for_range", "while")

# expression fields of each statement kind, with whether they are a size/index context
EXPR_FIELDS: dict[str, list[tuple[str, bool]]] = {
    "let": [("value", False)], "set": [("target", False), ("value", False)],
    "push": [("value", False), ("target", False)], "return": [("value", False)],
    "check": [("value", True)], "for_in": [("coll", False)],
    "for_range": [("start", True), ("end", True)], "while": [("cond", True)],
}


def let(name: str, value: Expr, mutable: bool = False) -> Stmt:
    return Stmt("let", name=name, value=value, mutable=mutable)


def set_(target: Expr, value: Expr) -> Stmt:
    return Stmt("set", target=target, value=value)


def show_stmt(s: Stmt) -> str:
    """The line of a simple statement or the header line of a block (without indentation)."""
    if s.src is not None:
        return s.src
    k = s.kind
    if k == "let":
        mut = "mutable " if s.mutable else ""
        typ = f": {s.type}" if s.type else ""
        return f"Let {mut}{s.name}{typ} be {show(s.value)}."
    if k == "set":
        return f"Set {show(s.target)} to {show(s.value)}."
    if k == "push":
        return f"Push {show(s.value)} to {show(s.target)}."
    if k == "return":
        return f"Return {show(s.value)}."
    if k == "check":
        return f"{s.word} {show(s.value)}."
    if k == "for_in":
        return f"Repeat for {s.name} in {show(s.coll)}:"
    if k == "for_range":
        return f"Repeat for {s.name} from {show(s.start)} to {show(s.end)}:"
    if k == "while":
        return f"While {show(s.cond)}:"
    raise TypeError(k)


def _branch_header(b: Branch, first: bool) -> str:
    if b.src is not None:
        return b.src
    if b.cond is None:
        return "Otherwise:"
    return f"{'If' if first else 'Otherwise if'} {show(b.cond)}:"


def render_body(body: list[Stmt], depth: int = 1) -> list[str]:
    pad = "    " * depth
    out: list[str] = []
    for s in body:
        if s.kind == "if":
            for i, b in enumerate(s.branches):
                out.append(pad + _branch_header(b, i == 0))
                out.extend(render_body(b.body, depth + 1))
        else:
            out.append(pad + show_stmt(s))
            if s.kind in LOOPS:
                out.extend(render_body(s.body, depth + 1))
    return out


def _split_statements(text: str) -> list[tuple[str, list[Tok]]]:
    """A code line's statements: (source text, tokens without the final '.')."""
    toks = tokenize(text)
    out, start, depth = [], 0, 0
    for j, t in enumerate(toks):
        if t.text in "([":
            depth += 1
        elif t.text in ")]":
            depth -= 1
        elif t.text == "." and depth == 0:
            out.append((text[toks[start].start:t.end], toks[start:j]))
            start = j + 1
    if start != len(toks):
        raise ParseError(f"statement without its final '.': {text!r}")
    return out


def _parse_simple(src: str, toks: list[Tok], text: str) -> Stmt:
    p = _Parser(toks, text)
    kw = (p.peek() or "").lower()
    p.i += 1
    if kw == "let":
        mutable = p.take("mutable") or p.take("mut")
        name = p.name()
        typ = None
        if p.take(":"):
            words = []
            while not p.done() and p.peek() != "be":
                words.append(p.peek())
                p.i += 1
            typ = " ".join(words)
        p.expect("be")
        s = Stmt("let", src, name=name, mutable=mutable, type=typ, value=p.expr())
    elif kw == "set":
        target = p.postfix()
        p.expect("to")
        s = Stmt("set", src, target=target, value=p.expr())
    elif kw == "push":
        value = p.expr()
        p.expect("to")
        s = Stmt("push", src, value=value, target=p.postfix())
    elif kw == "return":
        s = Stmt("return", src, value=p.expr())
    elif kw in ("check", "assert"):
        p.expect("that")
        s = Stmt("check", src, value=p.expr(), word=f"{toks[0].text} that")
    else:
        raise ParseError(f"not an op statement: {src!r}")
    if not p.done():
        raise ParseError(f"trailing {p.peek()!r} in {src!r}")
    return s


def _parse_header(text: str) -> tuple[str, Stmt | Branch] | None:
    """A block header line: ('loop', Stmt) / ('if' | 'elif' | 'else', Branch); None otherwise."""
    toks = tokenize(text)
    if not toks or toks[-1].text != ":":
        return None
    p = _Parser(toks[:-1], text)
    kw = (p.peek() or "").lower()
    if kw in ("repeat", "for"):
        p.take(p.peek() or "")
        if kw == "repeat":
            p.expect("for")
        var = p.name()
        if p.take("in"):
            s = Stmt("for_in", text, name=var, coll=p.expr())
        else:
            p.expect("from")
            start = p.expr()
            p.expect("to")
            s = Stmt("for_range", text, name=var, start=start, end=p.expr())
        res: tuple[str, Stmt | Branch] = ("loop", s)
    elif kw == "while":
        p.i += 1
        res = ("loop", Stmt("while", text, cond=p.expr()))
    elif kw == "if":
        p.i += 1
        res = ("if", Branch(p.expr(), [], text))
    elif kw == "elif" or (kw in ("otherwise", "else") and p.peek(1) == "if"):
        p.i += 1 if kw == "elif" else 2
        res = ("elif", Branch(p.expr(), [], text))
    elif kw in ("otherwise", "else"):
        p.i += 1
        res = ("else", Branch(None, [], text))
    else:
        raise ParseError(f"unknown block header {text!r}")
    if not p.done():
        raise ParseError(f"trailing {p.peek()!r} in {text!r}")
    return res


def _block(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[list[Stmt], int]:
    out: list[Stmt] = []
    while i < len(lines) and lines[i][0] == indent:
        text = lines[i][1]
        header = _parse_header(text)
        if header is None:
            out.extend(_parse_simple(src, toks, text) for src, toks in _split_statements(text))
            i += 1
            continue
        kind, node = header
        i += 1
        body: list[Stmt] = []
        if i < len(lines) and lines[i][0] > indent:
            body, i = _block(lines, i, lines[i][0])
        if kind == "loop":
            assert isinstance(node, Stmt)
            node.body = body
            out.append(node)
            continue
        if kind != "if":
            raise ParseError(f"{text!r} without its If")
        assert isinstance(node, Branch)
        node.body = body
        s = Stmt("if", branches=[node])
        while i < len(lines) and lines[i][0] == indent:
            nxt = _parse_header(lines[i][1])
            if nxt is None or nxt[0] not in ("elif", "else") or s.branches[-1].cond is None:
                break
            b = nxt[1]
            assert isinstance(b, Branch)
            i += 1
            if i < len(lines) and lines[i][0] > indent:
                b.body, i = _block(lines, i, lines[i][0])
            s.branches.append(b)
        out.append(s)
    if i < len(lines) and lines[i][0] > indent:
        raise ParseError(f"unexpected indentation at {lines[i][1]!r}")
    return out, i


def parse_body(code_lines: list[str]) -> list[Stmt]:
    lines = []
    for raw in code_lines:
        text = raw.lstrip(" ")
        if "\t" in raw[: len(raw) - len(text)] or "#" in text:
            raise ParseError("tabs or comments in the body")  # keep such a block as written
        lines.append((len(raw) - len(text), text.rstrip()))
    if not lines:
        return []
    body, i = _block(lines, 0, lines[0][0])
    if i != len(lines) or lines[0][0] != 4:
        raise ParseError("the body is not one block indented 4 spaces")
    return body


# ----------------------------------------------------------------------------------------- files

@dataclass
class Param:
    name: str
    type: str  # without `mutable`
    output: bool
    into: bool  # declared after `into` (else: an input, or a `mutable` output in place)
    mutable_kw: str = ""  # `mutable ` / `mut ` as written

    @property
    def rank(self) -> int:
        return self.type.count("Seq of")

    @property
    def elem(self) -> str:
        return self.type.split()[-1]

    def show(self) -> str:
        return f"({self.name}: {self.mutable_kw}{self.type})"


@dataclass
class Func:
    name: str
    header: str | None  # the header line as read; None once the params or result changed
    params: list[Param]
    ret: str | None
    body: list[Stmt]
    tail: list[str]  # the blank lines after the body
    raw: list[str] | None = None  # an opaque block: its lines as read

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def show_header(self) -> str:
        if self.header is not None:
            return self.header
        ins = " and ".join(p.show() for p in self.params if not p.into)
        outs = " and ".join(p.show() for p in self.params if p.into)
        text = f"## To {self.name}" + (f" {ins}" if ins else "")
        text += f" into {outs}" if outs else ""
        text += f" -> {self.ret}" if self.ret else ""
        return text + ":"

    def render(self) -> list[str]:
        if self.raw is not None:
            return self.raw
        return [self.show_header(), *render_body(self.body), *self.tail]


_HEADER = re.compile(r"^## To\s+(\w+)\b(.*?):\s*$")


def parse_header(line: str) -> tuple[str, list[Param], str | None]:
    m = _HEADER.match(line)
    if not m:
        raise ParseError(f"not a function header: {line!r}")
    name, rest = m.group(1), m.group(2)
    ret = None
    if "->" in rest:
        rest, ret = rest.split("->", 1)
        ret = ret.strip()
    into = re.search(r"\binto\b", rest)
    params = []
    for g in re.finditer(r"\(([^()]*)\)", rest):
        after_into = bool(into and g.start() > into.start())
        for pair in g.group(1).split(","):
            pname, ptype = (x.strip() for x in pair.split(":", 1))
            kw = next((k for k in ("mutable ", "mut ") if ptype.startswith(k)), "")
            params.append(Param(pname, ptype[len(kw):].strip(), after_into or bool(kw),
                                after_into, kw))
    return name, params, ret


@dataclass
class Doc:
    parts: list[str | Func]
    crlf: bool

    @property
    def funcs(self) -> list[Func]:
        return [p for p in self.parts if isinstance(p, Func)]

    def func(self, name: str) -> Func | None:
        return next((f for f in self.funcs if f.name == name), None)

    @property
    def op(self) -> Func:
        """The op: the last `## To` block that no other block calls (docs/logos-language.md §1)."""
        fs = self.funcs
        texts = {id(f): "\n".join(f.render()[1:]) for f in fs}
        uncalled = [f for f in fs if not any(
            g is not f and (re.search(rf"\b{f.name}\(", texts[id(g)])
                            or re.search(rf"\bCall {f.name}\b", texts[id(g)])) for g in fs)]
        if not uncalled:
            raise ParseError("no op block")
        return uncalled[-1]

    def render(self) -> str:
        lines: list[str] = []
        for p in self.parts:
            lines.extend(p.render() if isinstance(p, Func) else [p])
        text = "\n".join(lines)
        return text.replace("\n", "\r\n") if self.crlf else text


def parse_doc(source: str) -> Doc:
    crlf = "\r\n" in source
    lines = source.replace("\r\n", "\n").split("\n")
    parts: list[str | Func] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("## To ") or re.match(r"## To\s+native\b", line) or (
                "is native" in line):
            parts.append(line)
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("##"):
            j += 1
        block = lines[i + 1:j]
        k = len(block)
        while k > 0 and not block[k - 1].strip():
            k -= 1
        code, tail = block[:k], block[k:]
        try:
            if any(not c.strip() or c.lstrip().startswith(("```", "~~~")) for c in code):
                raise ParseError("blank or fence lines inside the body")
            name, params, ret = parse_header(line)
            parts.append(Func(name, line, params, ret, parse_body(code), tail))
        except ParseError:
            m = _HEADER.match(line)
            parts.append(Func(m.group(1) if m else "?", line, [], None, [], [],
                              raw=lines[i:j]))
        i = j
    return Doc(parts, crlf)


# ------------------------------------------------------------------------------------ traversals

def sub_bodies(s: Stmt) -> list[list[Stmt]]:
    if s.kind in LOOPS:
        return [s.body]
    if s.kind == "if":
        return [b.body for b in s.branches]
    return []


def walk(body: list[Stmt], loops: tuple[Stmt, ...] = ()
         ) -> Iterator[tuple[Stmt, list[Stmt], tuple[Stmt, ...]]]:
    """Every statement, pre-order, with the list that holds it and its enclosing loops."""
    for s in list(body):
        yield s, body, loops
        inner = loops + (s,) if s.kind in LOOPS else loops
        for b in sub_bodies(s):
            yield from walk(b, inner)


def exprs_of(s: Stmt) -> list[Expr]:
    out = [getattr(s, f) for f, _ in EXPR_FIELDS.get(s.kind, [])]
    out += [b.cond for b in s.branches if b.cond is not None]
    return [e for e in out if e is not None]


def smap(s: Stmt, f: Callable[[Expr, bool], Expr | None]) -> bool:
    """Apply f to every expression of s (not of its body); True if anything changed."""
    changed = False
    for name, in_index in EXPR_FIELDS.get(s.kind, []):
        e = getattr(s, name)
        if e is None:
            continue
        ne = emap(e, f, in_index)
        if ne != e or show(ne) != show(e):
            setattr(s, name, ne)
            s.src = None
            changed = True
    for b in s.branches:
        if b.cond is not None:
            nc = emap(b.cond, f)
            if nc != b.cond or show(nc) != show(b.cond):
                b.cond, b.src = nc, None
                changed = True
    return changed


def fmap(body: list[Stmt], f: Callable[[Expr, bool], Expr | None]) -> bool:
    changed = False
    for s, _, _ in walk(body):
        changed |= smap(s, f)
    return changed


def contains(s: Stmt, pred: Callable[[Stmt], bool]) -> bool:
    return any(pred(x) for x, _, _ in walk([s]))


def reads(s: Stmt) -> set[str]:
    out: set[str] = set()
    for x, _, _ in walk([s]):
        for e in exprs_of(x):
            out |= names_in(e)
    return out


def target_name(e: Expr | None) -> str | None:
    while isinstance(e, Item):
        e = e.coll
    return e.id if isinstance(e, Name) else None


def writes(s: Stmt) -> set[str]:
    out: set[str] = set()
    for x, _, _ in walk([s]):
        if x.kind == "let" or x.kind in ("for_in", "for_range"):
            out.add(x.name or "")
        elif x.kind in ("set", "push"):
            out.add(target_name(x.target) or "")
    return out
