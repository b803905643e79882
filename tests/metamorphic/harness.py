"""The seeds, inputs and checks of the metamorphic suite, shared by its test and rates.py.

A case is one accepted op of tests/ops or tests/corpus (the seed) rewritten by one kind of
rewrite.py. `check` runs it: the interpreter must give the rewrite the seed's outputs (else the
rewrite is wrong, not solgen); then solgen must recognize the rewrite as it recognizes the seed,
and the rewrite's IR must compute the seed's numbers.
"""

from __future__ import annotations

import functools
import json
import math
import random
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from logos_ast import parse_doc
from rewrite import FLAT_COLS, FLAT_ROWS, KINDS, Kind, rng_for

REPO = Path(__file__).resolve().parents[2]
CORPORA = (REPO / "tests" / "ops", REPO / "tests" / "corpus")
REL = 1e-6  # the tolerance: a reordered float64 sum rounds differently
ROW_SIZES = ((2, 3, 2), (3, 1, 2))  # two input sets: the row axes, in loop order
COL_SIZES = (6, 3)  # and the column axis (and unpinned other axes)


@dataclass(frozen=True)
class Seed:
    stem: str
    path: Path

    @property
    def source(self) -> str:
        with self.path.open(newline="") as f:
            return f.read()


@dataclass(frozen=True)
class Case:
    seed: Seed
    kind: Kind
    text: str  # the rewritten op file

    @property
    def id(self) -> str:
        return f"{self.seed.stem}-{self.kind.name}"


@dataclass(frozen=True)
class Outcome:
    status: str  # recognized | refused | different | miscompile | invalid
    detail: str = ""


def seeds() -> list[Seed]:
    """Every accepted op of both corpora, as their manifests list them."""
    out = []
    for corpus in CORPORA:
        manifest = json.loads((corpus / "manifest.json").read_text())
        out += [Seed(Path(f).stem, corpus / f) for f in sorted(manifest["accept"])]
    return out


# Rewrites that put a stored value into arithmetic or a Real-typed helper: rewrite.py
# is untyped text, so they do not apply to an op that stores a Bool output.
NUMERIC_STORE_KINDS = frozenset(
    {"double_negation", "store_per_branch", "add_zero", "mul_one", "helper_function"})


def _stores_bool(seed: Seed) -> bool:
    manifest = json.loads((seed.path.parents[1] / "manifest.json").read_text())
    entry = manifest["accept"].get(f"{seed.path.parent.name}/{seed.path.name}", {})
    return any(dtype == "bool" for _name, _rank, dtype in entry.get("outputs", []))


def cases() -> list[Case]:
    out = []
    for seed in seeds():
        source = seed.source
        bool_out = _stores_bool(seed)
        for kind in KINDS:
            if bool_out and kind.name in NUMERIC_STORE_KINDS:
                continue
            text = kind.apply(source, rng_for(seed.stem, kind.name))
            if text is not None:
                out.append(Case(seed, kind, text))
    return out


# ---------------------------------------------------------------------------------- inputs

def _round(dtype: str, x: float) -> float:
    """x as the element type stores it, so that every reader sees the same value."""
    if dtype == "float32":
        return struct.unpack("f", struct.pack("f", x))[0]
    if dtype == "bfloat16":
        bits = struct.unpack("I", struct.pack("f", x))[0]
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return struct.unpack("f", struct.pack("I", bits))[0]
    if dtype == "float16":
        return struct.unpack("e", struct.pack("e", x))[0]
    return x


def _element(dtype: str, rng: random.Random) -> float | int | bool:
    if dtype == "bool":
        return rng.random() < 0.5
    if dtype.startswith("float8"):
        return rng.randint(-8, 8) / 4  # exact in E4M3 and E5M2
    if dtype.startswith(("int", "uint")):
        return rng.randint(-5, 5)
    return _round(dtype, rng.gauss(0.0, 1.0))


def _nested(dims: list[int], make: Any) -> Any:
    return [make() for _ in range(dims[0])] if len(dims) == 1 else [
        _nested(dims[1:], make) for _ in range(dims[0])]


def flatten(v: Any) -> list[float]:
    if isinstance(v, list):
        return [x for item in v for x in flatten(item)]
    return [v]


def _depth(v: Any) -> int:
    return 1 + _depth(v[0]) if isinstance(v, list) and v else int(isinstance(v, list))


def axis_sizes(explain: dict, which: int) -> dict[str, int]:
    rows = iter(ROW_SIZES[which])
    sizes = {}
    for a in explain["axes"]:
        if a["const"] is not None:
            sizes[a["name"]] = a["const"]
        elif a["name"] in explain["row_axes"]:
            sizes[a["name"]] = next(rows)
        else:
            sizes[a["name"]] = COL_SIZES[which]
    return sizes


def _dims(shape: list[str], sizes: dict[str, int]) -> list[int]:
    out = []
    for d in shape:
        m = re.fullmatch(r"(?:(\d+)\*)?(\w+)", d)
        assert m, f"unexpected dimension {d!r}"
        out.append(int(m.group(1) or 1) * sizes[m.group(2)])
    return out


def make_inputs(source: str, explain: dict, which: int, rng: random.Random) -> dict:
    """Random inputs (and zeroed `into` outputs) for the seed, sized from its explain."""
    sizes = axis_sizes(explain, which)
    tensors = {t["name"]: t for t in explain["inputs"] + explain["outputs"]}
    out: dict[str, Any] = {}
    for p in parse_doc(source).op.params:
        if p.rank == 0 and p.type in ("Int", "Int64", "Int32"):
            if p.name in sizes:
                out[p.name] = sizes[p.name]
            elif p.name + "_half" in sizes:  # `cols / 2` made cols two halves
                out[p.name] = 2 * sizes[p.name + "_half"]
            else:
                raise AssertionError(f"no size for the Int parameter {p.name}")
            continue
        t = tensors.get(p.name)
        if t is None:
            continue
        if t["rank"] is None:
            out[p.name] = 1e-5 if "eps" in p.name else 0.5 + abs(rng.gauss(0.0, 1.0))
            continue
        dims = _dims(t["shape"], sizes)
        if p.output:
            value = _nested(dims, lambda t=t: False if t["dtype"] == "bool" else 0.0)
        else:
            value = _nested(dims, lambda t=t: _element(t["dtype"], rng))
        out[p.name] = flatten(value) if p.rank < len(dims) else value
    return out


def adapt_inputs(inputs: dict, source: str) -> dict:
    """The seed's inputs as the rewrite declares them: flattened where it is flat."""
    out: dict[str, Any] = {}
    grid = None
    for p in parse_doc(source).op.params:
        if p.name in inputs:
            v = inputs[p.name]
            if isinstance(v, list) and p.rank < _depth(v):
                grid = grid or (len(v), len(v[0]))
                v = flatten(v)
            out[p.name] = v
    for p in parse_doc(source).op.params:
        if p.name in (FLAT_ROWS, FLAT_COLS) and p.name not in inputs:
            assert grid, "a flat layout without a nested tensor"
            out[p.name] = grid[0] if p.name == FLAT_ROWS else grid[1]
    return out


def mismatch(want: dict, got: dict) -> str | None:
    """Where two runs' outputs differ beyond REL (compared flattened), or None."""
    if set(want) != set(got):
        return f"outputs {sorted(got)} instead of {sorted(want)}"
    for name in sorted(want):
        a, b = flatten(want[name]), flatten(got[name])
        if len(a) != len(b):
            return f"{name}: {len(b)} values instead of {len(a)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if math.isnan(x) and math.isnan(y):
                continue
            if not abs(x - y) <= REL * max(abs(x), abs(y)) + 1e-12:
                return f"{name}[{i}] (flat): {y!r} instead of {x!r}"
    return None


# ---------------------------------------------------------------------------- recognition

def recognition(d: dict) -> dict:
    """What must stay the same: the explain structure, axes named by their position."""
    axes = [a["name"] for a in d["axes"]]

    def canon(s: str) -> str:
        return re.sub(r"[A-Za-z_]\w*", lambda m: f"axis{axes.index(m.group())}"
                      if m.group() in axes else m.group(), s)

    def tensor(t: dict) -> tuple:
        return (t["name"], t["rank"], t["dtype"], t.get("role"),
                [canon(x) for x in t.get("shape") or []], [canon(x) for x in t.get("follows", [])])

    return {
        "op": d["op"], "family": d["family"], "packed_halves": d["packed_halves"],
        "inputs": [tensor(t) for t in d["inputs"]], "outputs": [tensor(t) for t in d["outputs"]],
        "const_axes": [(canon(a["name"]), a["const"]) for a in d["axes"] if a["const"] is not None],
        "row_axes": [canon(a) for a in d["row_axes"]], "column_axis": canon(d["column_axis"]),
        "reductions": sorted(r["kind"] for r in d["reductions"]),
    }


def refusal(d: dict) -> str:
    # the message alone: rule ids are being split up (issue 12) while the messages stay
    return d["refused"]["message"]


def _differences(a: dict, b: dict) -> str:
    return "; ".join(f"{k}: {b[k]} instead of {a[k]}" for k in a if a[k] != b[k])


# ---------------------------------------------------------------------------------- checks

@functools.lru_cache(maxsize=None)
def reference(seed: Seed) -> tuple[dict, list[tuple[dict, dict]]]:
    """The seed's explain and (inputs, interpreter outputs) for each input set."""
    import solbench._core as core
    explain = core.explain(str(seed.path))
    assert "family" in explain, f"the seed {seed.stem} is not recognized: {explain}"
    rng = random.Random(seed.stem)
    runs = []
    for which in range(len(ROW_SIZES)):
        inputs = make_inputs(seed.source, explain, which, rng)
        runs.append((inputs, core.run(str(seed.path), inputs)))
    return explain, runs


def check(case: Case, tmp: Path) -> Outcome:
    import solbench._core as core
    explain, runs = reference(case.seed)
    path = tmp / f"{case.seed.stem}.lg"
    path.write_text(case.text, newline="")
    adapted = [adapt_inputs(inputs, case.text) for inputs, _ in runs]
    for inputs, (_, want) in zip(adapted, runs):
        try:
            got = core.run(str(path), inputs)
        except ValueError as e:
            return Outcome("invalid", f"the interpreter fails on the rewrite: {e}")
        if (bad := mismatch(want, got)) is not None:
            return Outcome("invalid", f"the interpreter gives other numbers: {bad}")
    d = core.explain(str(path))
    if "errors" in d:
        return Outcome("invalid", f"not valid LOGOS: {d['errors']}")
    if "refused" in d:
        return Outcome("refused", refusal(d))
    if recognition(d) != recognition(explain):
        return Outcome("different", _differences(recognition(explain), recognition(d)))
    for inputs, (_, want) in zip(adapted, runs):
        got = core.evaluate_ir(str(path), inputs)
        if (bad := mismatch(want, got)) is not None:
            return Outcome("miscompile", f"the IR computes other numbers: {bad}")
    return Outcome("recognized")
