"""Reducing a disagreement to a small op (issue 18), and writing it down as a regression.

The reduction works on the op's tree (gen.Op), not its text, so every candidate is a valid op
by construction and is printed again: drop an output, a reduction's If, a temporary's select, a
helper; replace a subexpression by one of its operands, by the row element or by 1.0; make an
element type Float32; fold the row axes into one; make the layout nested, the columns variable,
the outputs `into`. A candidate is kept when it still fails the same way (the same oracle
disagrees, on one of the shapes the original failed on); candidates are tried in batches whose
kernels share one build. Greedy, one step at a time, until no candidate still fails.

    python3 tests/differential/reduce.py SEED [--avoid ...] [--name NAME]
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import random
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

HERE = Path(__file__).resolve().parent
for p in (str(HERE), str(HERE.parents[1])):
    if p not in sys.path:
        sys.path.insert(0, p)

import runner  # noqa: E402
from gen import Op, Output, Param, _drop_unused, generate, lit, names_used  # noqa: E402
from render import render  # noqa: E402

REGRESSIONS = HERE / "regressions"
X = ("leaf", "elem", "x")


# --- serializing an op ---------------------------------------------------------------------------

def _enc(v: Any) -> Any:
    if isinstance(v, tuple):
        return {"t": [_enc(c) for c in v]}
    if isinstance(v, list):
        return [_enc(c) for c in v]
    if isinstance(v, (frozenset, set)):
        return sorted(v)
    if isinstance(v, dict):
        return {k: _enc(c) for k, c in v.items()}
    return v


def _dec(v: Any) -> Any:
    if isinstance(v, dict) and set(v) == {"t"}:
        return tuple(_dec(c) for c in v["t"])
    if isinstance(v, list):
        return [_dec(c) for c in v]
    if isinstance(v, dict):
        return {k: _dec(c) for k, c in v.items()}
    return v


def op_to_json(op: Op) -> dict[str, Any]:
    import dataclasses

    d = {f.name: getattr(op, f.name) for f in dataclasses.fields(op)}
    d["params"] = [dataclasses.asdict(p) for p in op.params]
    d["outputs"] = [{"name": o.name, "role": o.role, "dtype": o.dtype, "expr": o.expr}
                    for o in op.outputs]
    d["reductions"] = [{f.name: getattr(r, f.name) for f in dataclasses.fields(r)}
                       for r in op.reductions]
    d["helpers"] = [{"name": h.name, "params": h.params, "result": h.result, "body": h.body}
                    for h in op.helpers]
    return _enc(d)


def op_from_json(d: dict[str, Any]) -> Op:
    from gen import Helper, Reduction

    d = _dec(d)
    d["params"] = [Param(**p) for p in d["params"]]
    d["outputs"] = [Output(**o) for o in d["outputs"]]
    d["reductions"] = [Reduction(**{**r, "iv": tuple(r["iv"])}) for r in d["reductions"]]
    d["helpers"] = [Helper(h["name"], [tuple(p) for p in h["params"]], h["result"], h["body"])
                    for h in d["helpers"]]
    d["rowvals"] = [tuple(r) for r in d["rowvals"]]
    d["temps"] = [(t[0], t[1], tuple(t[2])) for t in d["temps"]]
    d["avoid"] = frozenset(d.get("avoid", ()))
    d["axis_names"] = tuple(d.get("axis_names", ()))
    return Op(**d)


def rerender(op: Op) -> Op:
    op.style = {}
    _drop_unused(op)
    while True:  # reductions nothing reads any more
        read = names_used([o.expr for o in op.outputs] + [[t[1], t[2]] for t in op.temps] +
                          [r[1] for r in op.rowvals] +
                          [[r.term, r.cond, r.other] for r in op.reductions], "rowval")
        dead = [r for r in op.reductions if r.name not in read]
        if not dead or len(dead) == len(op.reductions):
            break
        op.reductions = [r for r in op.reductions if r not in dead]
        _drop_unused(op)
    used = names_used([o.expr for o in op.outputs] + [[t[1], t[2]] for t in op.temps] +
                      [r[1] for r in op.rowvals] +
                      [[r.term, r.cond, r.other] for r in op.reductions] +
                      [h.body for h in op.helpers])
    op.params = [p for p in op.params if p.name in used or p.name == "x"]
    op.text = render(op, random.Random(op.seed * 7919 + 1), plain=op.plain)
    return op


# --- candidates ---------------------------------------------------------------------------------

CONDITIONS = ("cmp", "between", "not", "and", "or")


def _subtrees(e: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, node) of every expression or condition node under e (paths index into tuples
    and lists)."""
    if isinstance(e, tuple) and e and isinstance(e[0], str) and e[0] not in ("leaf", "lit"):
        yield path, e
        for i, c in enumerate(e):
            if isinstance(c, (tuple, list)):
                yield from _subtrees(c, path + (i,))
    elif isinstance(e, (list, tuple)):
        for i, c in enumerate(e):
            yield from _subtrees(c, path + (i,))


def _smaller(node: tuple, root: bool) -> list[tuple[str, Any]]:
    """What may replace a node: its operands (an expression by an expression, a condition by
    a condition), the row element, a literal."""
    k = node[0]
    if k == "cmp":
        return [("left 0", (k, node[1], node[2], lit(0.0))), ("right x", (k, node[1], X, node[3]))]
    if k == "between":
        return [("a > lo", ("cmp", ">", node[1], node[2]))]
    if k == "not":
        return [("inner", node[1])]
    if k in ("and", "or"):
        return [("left", node[1]), ("right", node[2])]
    out = [(f"operand {j}", c) for j, c in enumerate(_children(node))]
    if not root:
        out += [("x", X), ("1.0", lit(1.0))]
    return out


def _replace(e: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    i = path[0]
    items = list(e)
    items[i] = _replace(items[i], path[1:], new)
    return tuple(items) if isinstance(e, tuple) else items


def _children(node: tuple) -> list[Any]:
    return [c for c in node[1:] if isinstance(c, tuple) and c and c[0] not in CONDITIONS] + \
        [a for c in node[1:] if isinstance(c, list) for a in c]


def expression_sites(op: Op) -> list[tuple[str, Callable[[Op], Any], Callable[[Op, Any], None]]]:
    """Every place an expression lives: (label, get, set)."""
    sites: list = []
    for i in range(len(op.outputs)):
        sites.append((f"output {i}", lambda o, i=i: o.outputs[i].expr,
                      lambda o, v, i=i: setattr(o.outputs[i], "expr", v)))
    for i in range(len(op.temps)):
        sites.append((f"temp {i}", lambda o, i=i: o.temps[i][1],
                      lambda o, v, i=i: o.temps.__setitem__(i, (o.temps[i][0], v, o.temps[i][2]))))
    for i in range(len(op.rowvals)):
        sites.append((f"row value {i}", lambda o, i=i: o.rowvals[i][1],
                      lambda o, v, i=i: o.rowvals.__setitem__(i, (o.rowvals[i][0], v,
                                                                  o.rowvals[i][2]))))
    for i in range(len(op.temps)):
        if op.temps[i][2][0] is not None:
            def get_sel(o: Op, i: int = i) -> Any:
                return o.temps[i][2][0]

            def set_sel(o: Op, v: Any, i: int = i) -> None:
                o.temps[i] = (o.temps[i][0], o.temps[i][1], (tuple(v), o.temps[i][2][1]))
            sites.append((f"select {i}", get_sel, set_sel))
    for i in range(len(op.reductions)):
        for attr in ("term", "other", "cond"):
            if getattr(op.reductions[i], attr) is not None:
                sites.append((f"reduction {i} {attr}",
                              lambda o, i=i, a=attr: getattr(o.reductions[i], a),
                              lambda o, v, i=i, a=attr: setattr(o.reductions[i], a, v)))
    for i in range(len(op.helpers)):
        sites.append((f"helper {i}", lambda o, i=i: o.helpers[i].body,
                      lambda o, v, i=i: setattr(o.helpers[i], "body", v)))
    return sites


def candidates(op: Op) -> Iterator[tuple[str, Op]]:
    """Smaller ops, the biggest steps first."""
    def variant(f: Callable[[Op], None]) -> Op:
        v = copy.deepcopy(op)
        f(v)
        return v

    if len(op.outputs) > 1:
        for i in range(len(op.outputs)):
            yield f"drop output {op.outputs[i].name}", variant(lambda v, i=i: v.outputs.pop(i))
    if op.row_rank > 1:
        def one_axis(v: Op) -> None:
            v.row_rank = 1
            v.params = [p for p in v.params if p.role not in ("hweight", "chscale")]
            for o in v.outputs:
                o.expr = _strip(o.expr, {"hweight", "chscale"})
        yield "one row axis", variant(one_axis)
    if op.layout == "flat":
        yield "nested layout", variant(lambda v: setattr(v, "layout", "nested"))
    if op.const_cols:
        yield "variable columns", variant(lambda v: setattr(v, "const_cols", None))
    if op.returns:
        yield "into outputs", variant(lambda v: setattr(v, "returns", False))
    for i, t in enumerate(op.temps):
        if t[2][0] is not None:
            yield f"no select in temp {i}", variant(
                lambda v, i=i: v.temps.__setitem__(i, (v.temps[i][0], v.temps[i][1],
                                                       (None, v.temps[i][2][1]))))
        if t[2][1] is not None:
            yield f"untyped temp {i}", variant(
                lambda v, i=i: v.temps.__setitem__(i, (v.temps[i][0], v.temps[i][1],
                                                       (v.temps[i][2][0], None))))
    for i, r in enumerate(op.reductions):
        if r.form not in ("plus", "max_call"):
            def plain(v: Op, i: int = i) -> None:
                red = v.reductions[i]
                red.form, red.cond, red.other = ("plus" if red.kind == "sum" else "max_call",
                                                 None, None)
            yield f"plain fold {i}", variant(plain)
        if r.reversed:
            yield f"forward {i}", variant(lambda v, i=i: setattr(v.reductions[i], "reversed",
                                                                 False))
        if r.init != "first" and r.init[1] != 0.0:
            yield f"zero start {i}", variant(lambda v, i=i: setattr(v.reductions[i], "init",
                                                                    lit(0.0)))
    for i, rv in enumerate(op.rowvals):
        if rv[2] is not None:
            yield f"untyped row value {i}", variant(
                lambda v, i=i: v.rowvals.__setitem__(i, (v.rowvals[i][0], v.rowvals[i][1], None)))
    if not op.plain:
        yield "plain spelling", variant(lambda v: setattr(v, "plain", True))
    for label, get, put in expression_sites(op):
        root = get(op)
        for path, node in sorted(_subtrees(root), key=lambda pn: len(pn[0])):
            is_root = not path or (label.startswith("select") and len(path) == 1)
            for what, new in _smaller(node, is_root):
                yield f"{label}: {node[0]} {node[1] if isinstance(node[1], str) else ''} -> " \
                      f"{what}", variant(lambda v, p=path, n=new, put=put, get=get:
                                         put(v, _replace(get(v), p, n)))
    for p in op.params:
        if p.role != "scalar" and p.dtype != "Float32" and p.dtype not in ("Int8", "Int16"):
            yield f"{p.name} Float32", variant(
                lambda v, n=p.name: setattr(next(q for q in v.params if q.name == n), "dtype",
                                            "Float32"))
    for i, o in enumerate(op.outputs):
        if o.dtype not in ("Float32", "Int8"):
            yield f"{o.name} Float32", variant(lambda v, i=i: setattr(v.outputs[i], "dtype",
                                                                      "Float32"))


def _strip(e: Any, roles: set[str]) -> Any:
    if isinstance(e, tuple) and len(e) == 3 and e[0] == "leaf" and e[1] in roles:
        return lit(1.0)
    if isinstance(e, tuple):
        return tuple(_strip(c, roles) for c in e)
    if isinstance(e, list):
        return [_strip(c, roles) for c in e]
    return e


def size(op: Op) -> int:
    return len(op.text.splitlines()) * 1000 + len(op.text)


# --- checking candidates ------------------------------------------------------------------------

def adapt(shape: runner.Shape, op: Op) -> runner.Shape:
    """The shape for a candidate with another number of row axes."""
    if op.layout == "flat1d" or len(shape.rows) == op.row_rank:
        return shape
    n = math.prod(shape.rows) if shape.rows else 1
    return runner.Shape((n,) + (1,) * (op.row_rank - 1), shape.cols, shape.aim)


def signature(r: runner.ShapeRun) -> set[str]:
    return {m.oracle for m in r.mismatches}


def failing(op: Op, shapes: list[runner.Shape], oracle: str, work: Path,
            fns: Callable | str | None) -> bool:
    """Whether op still disagrees in `oracle` on one of the shapes."""
    case = runner.prepare(op, work)
    if case.refused:
        return False
    if oracle == "compile":
        return isinstance(fns, str)
    if isinstance(fns, str):
        return False
    oracles = ("ir", "kernel", "reference") if oracle == "kernel" else ("ir", oracle)
    try:
        ctx = runner.Context(case, oracles)
        for i, sh in enumerate(shapes):
            const = op.const_cols // 2 if op.const_cols and op.packed else op.const_cols
            sh = adapt(sh if not const else runner.Shape(sh.rows, const, sh.aim), op)
            run = runner.run_shape(ctx, fns, sh, op.seed, i)
            if run.invalid:
                return False
            if oracle in signature(run):
                return True
    except Exception:  # noqa: BLE001 - a candidate the runner cannot run is no reproduction
        return False
    return False


def reduce_op(op: Op, shapes: list[runner.Shape], oracle: str, work: Path,
              log: Callable[[str], None] = print, chunk: int = 16,
              max_rounds: int = 60) -> Op:
    """Greedy reduction of a failing op (see the module docstring)."""
    needs_kernel = oracle in ("kernel", "compile")
    best = op
    for rnd in range(max_rounds):
        cands = []
        for label, c in candidates(best):
            try:
                c = rerender(c)
            except Exception:  # noqa: BLE001 - a broken candidate
                continue
            if size(c) < size(best):
                cands.append((label, c))
        found = None
        for start in range(0, len(cands), chunk):
            group = cands[start:start + chunk]
            cases = []
            for k, (label, c) in enumerate(group):
                case = runner.prepare(c, work / f"r{rnd}_{start + k}")
                cases.append(case)
            fns: list[Any] = [None] * len(group)
            if needs_kernel:
                ok = [i for i, cs in enumerate(cases) if not cs.refused]
                if ok:
                    if oracle == "compile":
                        built = [runner.build_batch([cases[i].kernel],
                                                    cases[i].bundle / "solution.json")[0][0]
                                 for i in ok]
                    else:
                        try:
                            built = runner.build_batch([cases[i].kernel for i in ok],
                                                       cases[ok[0]].bundle / "solution.json")[0]
                        except Exception:  # noqa: BLE001
                            built = ["build failed"] * len(ok)
                    for i, f in zip(ok, built):
                        fns[i] = f
            for k, (label, c) in enumerate(group):
                if cases[k].refused:
                    continue
                if failing(c, shapes, oracle, work / f"r{rnd}_{start + k}", fns[k]):
                    found = (label, c)
                    break
            if found:
                break
        if not found:
            log(f"reduced after {rnd} steps: {len(best.text.splitlines())} lines")
            return best
        log(f"step {rnd}: {found[0]} ({len(found[1].text.splitlines())} lines)")
        best = found[1]
    return best


def failing_shapes(op: Op, work: Path, kernel: bool = True) -> tuple[str, list[runner.Shape], str]:
    """Runs the op alone: (the first oracle that disagrees, the shapes it does on, a detail).
    Without kernel, only the interpreter, the IR and reference.py (no build)."""
    case = runner.prepare(op, work / "original")
    if case.refused:
        raise ValueError(f"refused: {case.refused}")
    built = runner.build_batch([case.kernel], case.bundle / "solution.json")[0][0] if kernel \
        else None
    if isinstance(built, str):
        shapes = runner.shapes_for(op, case.kernel, random.Random(op.seed))
        return "compile", shapes[:1], built[:2000]
    shapes = runner.shapes_for(op, case.kernel, random.Random(op.seed))
    ctx = runner.Context(case, ("ir", "kernel", "reference") if kernel else ("ir", "reference"))
    bad: dict[str, list[runner.Shape]] = {}
    detail: dict[str, str] = {}
    for i, sh in enumerate(shapes):
        run = runner.run_shape(ctx, built, sh, op.seed, i)
        for m in run.mismatches:
            bad.setdefault(m.oracle, []).append(sh)
            detail.setdefault(m.oracle, f"{m.output} at {m.shape}: {m.detail}")
    for oracle in ("run", "definition", "ir", "kernel", "reference"):
        if oracle in bad:
            return oracle, bad[oracle][:3], detail[oracle]
    raise ValueError("the op does not disagree")


def disagreeing_oracles(op: Op, shapes: list[runner.Shape], work: Path,
                        kernel: bool = True) -> list[str]:
    """Every oracle that disagrees with the interpreter on these shapes."""
    case = runner.prepare(op, work / "oracles")
    built = runner.build_batch([case.kernel], case.bundle / "solution.json")[0][0] if kernel \
        else None
    if isinstance(built, str):
        return ["compile"]
    ctx = runner.Context(case, ("ir", "kernel", "reference") if kernel else ("ir", "reference"))
    found: set[str] = set()
    for i, sh in enumerate(shapes):
        found |= {m.oracle for m in runner.run_shape(ctx, built, sh, op.seed, i).mismatches}
    return sorted(found)


def write_regression(name: str, op: Op, oracle: str, shapes: list[runner.Shape], detail: str,
                     bug: str | None, oracles: list[str] | None = None) -> Path:
    """tests/differential/regressions/NAME.lg and NAME.json (the op's tree, the shapes, which
    oracles disagreed: while an open bug shows exactly so, the test skips naming it)."""
    REGRESSIONS.mkdir(exist_ok=True)
    (REGRESSIONS / f"{name}.lg").write_text(op.text)
    meta = {"op": op_to_json(op), "oracle": oracle, "oracles": oracles or [oracle],
            "detail": detail[:2000],
            "shapes": [{"rows": list(s.rows), "cols": s.cols, "aim": s.aim} for s in shapes]}
    if bug:
        meta["open_bug"] = bug
    path = REGRESSIONS / f"{name}.json"
    path.write_text(json.dumps(meta, indent=1) + "\n")
    return path


def reduce_case(seed: int, work: Path, avoid: frozenset[str] = frozenset(),
                log: Callable[[str], None] = print, name: str | None = None,
                bug: str | None = None, write: bool = True,
                kernel: bool = True) -> dict[str, Any]:
    """Reduce seed's op. kernel=False: only the interpreter, the IR and reference.py (no
    build at all), for a disagreement of the IR or of reference.py."""
    op = generate(seed, avoid)
    oracle, shapes, detail = failing_shapes(op, work, kernel)
    log(f"seed {seed}: {oracle} disagrees ({detail[:200]}); reducing")
    small = reduce_op(op, shapes, oracle, work, log)
    _, shapes2, detail2 = failing_shapes(small, work / "final", kernel)
    oracles = disagreeing_oracles(small, shapes2, work / "final", kernel)
    out = {"seed": seed, "oracle": oracle, "oracles": oracles,
           "lines": len(small.text.splitlines()), "lg": small.text, "detail": detail2}
    if write:
        out["regression"] = str(write_regression(name or f"seed{seed}_{oracle}", small, oracle,
                                                 shapes2, detail2, bug, oracles))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--avoid", default="")
    ap.add_argument("--name", default=None)
    ap.add_argument("--bug", default=None, help="the open bug it shows (the test skips while so)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/solbench-reduce"))
    ap.add_argument("--no-kernel", action="store_true",
                    help="no build: for a disagreement of the IR or of reference.py")
    args = ap.parse_args(argv)
    res = reduce_case(args.seed, args.work / str(args.seed),
                      frozenset(a for a in args.avoid.split(",") if a), name=args.name,
                      bug=args.bug, kernel=not args.no_kernel)
    print(res["lg"])
    print(json.dumps({k: v for k, v in res.items() if k != "lg"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
