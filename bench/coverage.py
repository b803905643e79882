"""Which SOL-ExecBench problems solgen can reach: docs/coverage.md from the dataset's definitions.

    python3 bench/coverage.py --dataset PATH            # print the page
    python3 bench/coverage.py --dataset PATH --write    # write docs/coverage.md
    python3 bench/coverage.py --dataset PATH --check    # exit 1 if docs/coverage.md is stale

PATH (or $SOLBENCH_DATASET) is either
- a `dataset-meta.json`: one JSON object whose "problems" maps "LEVEL__NAME" to a definition
  (name, description, axes, inputs, outputs, reference, workloads). The public repository
  williamqwu/sol-execbench-rocm tracks one as `reference/dataset-meta.json`;
- or a directory holding the released layout, `LEVEL/NAME/definition.json` (a `reference.py`
  beside it is read where the definition has no "reference"), at any depth below PATH.

Each problem gets one class:
- checked: generated and checked today: an op under tests/problems/real/ whose manifest entry
  says "pass" is bound to this definition (same name, or same description and signature), or
  SAME_AS names one with the same computation;
- family: in one of the three families of logos-ops.md §7 as they stand, no checked op yet;
- rules: in reach once the named rules of logos-ops.md §8 (r2) land;
- out: out of scope, with the reasons.
The classes come from detectors (DETECTORS, DEF_DETECTORS: typed data over the reference code
that `run` reaches, docstrings and comments dropped, and over the definition's dtypes and
shapes) and, where a detector cannot tell, from OVERRIDES (each with its reason). Output is
sorted, and its only date is the one KNOWN_COPIES records for the copy read, so --check
compares like with like. Without a dataset the script says where to get one and exits 0
(nothing to compare): CI on a fresh machine passes.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "coverage.md"
REAL = ROOT / "tests" / "problems" / "real"
ENV = "SOLBENCH_DATASET"
WHERE = ("get `reference/dataset-meta.json` from https://github.com/williamqwu/sol-execbench-rocm "
         "(or the released dataset's LEVEL/NAME/definition.json files) and pass it with "
         "--dataset PATH or $" + ENV)


class Class(Enum):
    CHECKED = "checked"
    FAMILY = "family"
    RULES = "rules"
    OUT = "out"


CLASS_TITLE = {
    Class.CHECKED: "(a) in reach today: generated and checked",
    Class.FAMILY: "(a) in reach today: in a §7 family, no checked op yet",
    Class.RULES: "(b) in reach once §8 rules land",
    Class.OUT: "(c) out of scope",
}


class Rule(Enum):
    """The rules of logos-ops.md §8 (r2), in its order."""
    SIN_COS = "sin/cos"
    COUNTER = "loop counter as value"
    COLUMN_SELECT = "column reads by a select on the column (rotate-half)"
    INT_BOOL = "Int/Bool tensors as data"
    MULTI_AXIS = "reduction over several trailing axes"
    COLUMN_REDUCTION = "column reductions"
    COLUMN_LEADING = "column reductions keeping the leading row axes"
    COLUMN_SUBSET = "column reductions keeping inner row axes"
    COLUMN_OVER_ROW = "column outputs that also sum over the row (per-channel sums over N and H x W)"
    COLUMN_ACROSS_SETS = "column reductions adding the sums of two row sets"
    ROW_SETS = "several row sets in one op"
    DIV_REM = "integer division/remainder by a constant"


# The §8 rules solgen accepts now (issue 16): a problem that needed only these is in a family.
LANDED: frozenset[Rule] = frozenset({Rule.SIN_COS, Rule.COUNTER, Rule.COLUMN_SELECT, Rule.INT_BOOL,
                                      Rule.COLUMN_REDUCTION, Rule.DIV_REM, Rule.COLUMN_LEADING,
                                      Rule.ROW_SETS, Rule.COLUMN_SUBSET, Rule.MULTI_AXIS,
                                      Rule.COLUMN_OVER_ROW})


class Scope(Enum):
    """Why a problem is out of scope, most decisive first."""
    GEMM = "GEMM / matmul"
    ATTENTION = "attention"
    CONV = "convolution"
    FFT = "FFT"
    SCAN = "scan / recurrence"
    SORT = "sort / top-k"
    GATHER = "gather or scatter by a data index"
    DATA_SHAPE = "a size or branch taken from data"
    GLOBAL = "a reduction over all elements"
    ROW_CONCAT = "a concatenation along a row axis"


Tag = Rule | Scope

# A reduction call's parenthesized arguments, one level of nested parentheses allowed.
_ARGS = r"\((?:[^()]|\([^()]*\))*"


@dataclass(frozen=True)
class Detector:
    """A tag the reference code earns when `pattern` matches it (ast.unparse spelling)."""
    tag: Tag
    pattern: re.Pattern[str]


def _d(tag: Tag, pattern: str) -> Detector:
    return Detector(tag, re.compile(pattern))


DETECTORS: tuple[Detector, ...] = (
    # torch.outer is left out: an outer product is elementwise (RoPE angle tables).
    _d(Scope.GEMM, r"\btorch\.(?:matmul|mm|bmm|addmm|baddbmm|einsum|tensordot|_scaled_mm)\b"
                   r"|\.(?:matmul|mm|bmm)\(|\blinear\(|\S @ \S"),
    _d(Scope.ATTENTION, r"\bscaled_dot_product_attention\b|\bflash_attn"),
    _d(Scope.CONV, r"\bconv(?:1d|2d|3d|_transpose[123]d)\("),
    _d(Scope.FFT, r"\btorch\.fft\."),
    _d(Scope.SCAN, r"\b(?:cumsum|cumprod|cummax|cummin|logcumsumexp)\("
                   r"|\bfor \w+ in range\((?:seq_len|seqlen|seq_length)\)"),
    _d(Scope.SORT, r"\b(?:sort|argsort|msort|topk|kthvalue)\("),
    _d(Scope.GATHER, r"\b(?:index_add_?|index_select|index_copy_?|index_put_?|scatter_?"
                     r"|scatter_add_?|scatter_reduce_?|gather|take_along_dim|embedding)\("),
    _d(Scope.DATA_SHAPE, r"\.(?:item|tolist)\(\)|\b(?:nonzero|argwhere|masked_select|unique"
                         r"|unique_consecutive|bincount)\("),
    # torch.sum(x) with one argument, x.sum(): every element at once.
    _d(Scope.GLOBAL, r"\btorch\.(?:sum|mean)\((?:[^(),]|\([^()]*\))*\)|\.(?:sum|mean)\(\)"),
    _d(Scope.ROW_CONCAT, r"\btorch\.cat" + _ARGS + r"\bdim=(?:0|1|2|3|-2|-3)\)"),
    _d(Rule.SIN_COS, r"\b(?:torch\.)?(?:sin|cos)\(|\.(?:sin|cos)\(\)"),
    _d(Rule.COUNTER, r"\btorch\.(?:arange|linspace|tril|triu)\b"),
    # rotate-half, a concatenation of column blocks, cos/sin stacked on a new last axis.
    _d(Rule.COLUMN_SELECT, r"\brotate_half\b|\btorch\.(?:cat|stack)" + _ARGS + r"\bdim=-1\)"),
    # dim=(2, 3) and the like: several axes, the first one kept (those with 0 are columns).
    _d(Rule.MULTI_AXIS, r"\b(?:sum|mean|var|std|amax|amin)" + _ARGS
                        + r"\bdim=[(\[](?!0\b)-?\d+(?:, -?\d+)+[)\]]"),
    _d(Rule.COLUMN_REDUCTION, r"\b(?:sum|mean)" + _ARGS + r"\bdim=[(\[]0\b"
                              r"|\.sum\((?:dim=)?(?:0|-2|-3)\)"),
    # repeat_interleave reads column c / k; a view that splits an axis by `//` makes groups.
    _d(Rule.DIV_REM, r"\brepeat_interleave\(|\.(?:view|reshape)" + _ARGS + r"//"),
)


@dataclass(frozen=True)
class Problem:
    key: str  # "LEVEL__NAME", as dataset-meta.json spells it
    level: str
    name: str
    description: str | None
    axes: dict
    inputs: dict
    outputs: dict
    reference: str


_INTEGER = re.compile(r"^(?:u?int\d+|bool)$")


def _int_bool_data(p: Problem) -> bool:
    """An integer or Bool tensor read as data, or a Bool output (Int8 codes are outputs today)."""
    ins = any(_INTEGER.match(t["dtype"]) and t.get("shape") is not None
              for t in p.inputs.values())
    return ins or any(t["dtype"] == "bool" for t in p.outputs.values())


def _axis(p: Problem, name: str) -> str:
    """An axis as a size where the definition fixes one, else its name."""
    a = p.axes.get(name) or {}
    return str(a["value"]) if a.get("type") == "const" else name


def _row_sets(p: Problem) -> bool:
    """Two outputs of one rank whose rows differ (query rows [B, Hq, S], key rows [B, Hk, S])."""
    rows = {(len(t["shape"]), tuple(_axis(p, a) for a in t["shape"][:-1]))
            for t in p.outputs.values() if t.get("shape")}
    return len({r for _, r in rows}) > len({n for n, _ in rows})


def _index_by_data(p: Problem, code: str) -> bool:
    """An integer input used inside a subscript: `cache[:, :, cache_position]`."""
    names = [n for n, t in p.inputs.items() if t["dtype"].startswith(("int", "uint"))]
    return any(re.search(r"\[[^\]]*\b" + re.escape(n) + r"\b[^\]]*\]", code) for n in names)


@dataclass(frozen=True)
class DefDetector:
    """A tag a problem earns from its definition (and the code, where names matter)."""
    tag: Tag
    test: Callable[[Problem, str], bool]


DEF_DETECTORS: tuple[DefDetector, ...] = (
    DefDetector(Scope.GATHER, _index_by_data),
    DefDetector(Rule.INT_BOOL, lambda p, _code: _int_bool_data(p)),
    DefDetector(Rule.ROW_SETS, lambda p, _code: _row_sets(p)),
)


@dataclass(frozen=True)
class FamilyHint:
    """Which §7 family a problem in reach belongs to: the first hint whose pattern matches."""
    family: str
    pattern: re.Pattern[str]


FAMILY_HINTS: tuple[FamilyHint, ...] = (
    FamilyHint("fused row", re.compile(r"\b(?:sum|mean|var|std|amax|amin|max|min|softmax"
                                       r"|log_softmax|norm|logsumexp)" + _ARGS
                                       + r"\b(?:dim=)?-1\b")),
    FamilyHint("gated activation", re.compile(r"\.chunk\(2, dim=-1\)|\[\.\.\., :\w+\]")),
    FamilyHint("elementwise (gated family)", re.compile(r"")),
)


@dataclass(frozen=True)
class Override:
    """A verdict a detector cannot reach, with the reason (one line)."""
    cls: Class
    tags: tuple[Tag, ...]
    why: str


R, S = Rule, Scope
OVERRIDES: dict[str, Override] = {
    "L1__011_rotary_position_embedding": Override(
        Class.OUT, (S.ROW_CONCAT,),
        "cos and sin stacked in a last axis of 2 make head_dim a row axis, and cat((freqs, freqs))"
        " concatenates along it; its @ is an outer product (K = 1) of inv_freq and int64"
        " positions"),
    "L1__014_rotary_embedding_with_attention_scaling_backward": Override(
        Class.RULES, (R.SIN_COS,),
        "its @ sums each row's gradient against inv_freq (a row reduction), not a GEMM"),
    "L1__018_fused_rope_with_qk_norm_and_kv_cache_update": Override(
        Class.OUT, (S.GATHER,),
        "writes the KV caches at cache_position (int64 data); its norm + RoPE part needs §8"
        " rules"),
    "L1__019_vision_3d_rotary_embedding_with_spatial_merge_indexing_backward": Override(
        Class.RULES, (R.COLUMN_LEADING,),
        "grad_embeddings [seq, head_dim] sums over the heads only (rows [seq, heads])"),
    "L1__023_multimodal_rope_position_computation_with_grid_based_indexing": Override(
        Class.OUT, (S.GATHER, S.DATA_SHAPE),
        "looks up embeddings at indices built from grid_thw, sized by `.item()`"),
    "L1__024_vision_rotary_position_embedding_generation_backward": Override(
        Class.OUT, (S.GATHER, S.DATA_SHAPE),
        "index_add_ at pos_ids into a table sized by pos_ids.max(); then a vector-matrix sum"),
    "L1__039_adaptive_instance_normalization_2d_backward": Override(
        Class.RULES, (R.MULTI_AXIS, R.COLUMN_OVER_ROW),
        "grad_weight and grad_bias [C] keep C and sum over N and H x W (rows [N, C], the row"
        " H x W)"),
    "L1__042_moe_expert_load_balancing_and_token_capacity_backward": Override(
        Class.RULES, (R.INT_BOOL,),
        "`.item()` reads two one-element tensors (a loss gradient, a Bool flag) as scalars"),
    "L1__062_kv_cache_update_with_rope_backward": Override(
        Class.OUT, (S.GATHER,),
        "reads the cache gradients at cache_position (int64 data); the RoPE part needs §8 rules"),
    "L1__068_fused_rope_application_backward": Override(
        Class.RULES, (R.COLUMN_SELECT, R.ROW_SETS, R.COLUMN_SUBSET, R.COLUMN_ACROSS_SETS),
        "grad_cos and grad_sin [batch, seq, d] sum over the head axis between them (rows"
        " [batch, heads, seq]; `dim=unsqueeze_dim`, 1), the queries' heads plus the keys'"),
    "L1__070_mamba2_fused_intra_chunk_diagonal_computation": Override(
        Class.OUT, (S.GEMM, S.SCAN),
        "G = (C * B).sum(-1) over all position pairs is a batched matmul; A is cumsum'd"),
    "L1__071_kv_cache_update_with_rope": Override(
        Class.OUT, (S.ROW_CONCAT,),
        "appends the rotated keys to the cache along seq; the RoPE part needs rotate-half"),
    "Quant__014_fp8_yarn_rope_embedding": Override(
        Class.RULES, (R.SIN_COS, R.COUNTER, R.COLUMN_SELECT, R.INT_BOOL),
        "the FP8 round trip of the angles is a row absmax scale (1x128 blocks of 32 + padding)"),
}


@dataclass(frozen=True)
class SameAs:
    """A problem computing what a checked op computes, up to constant sizes and epsilon."""
    real: str
    why: str


def _rmsnorm_as_h4096(h: int, eps: str) -> SameAs:
    return SameAs("nvidia_rmsnorm_h4096", f"rmsnorm_h4096 with hidden_size {h}, eps {eps}")


def _fused_add_rmsnorm_as_h4096(h: int) -> SameAs:
    return SameAs("flashinfer_fused_add_rmsnorm_h4096",
                  f"002_fused_add_rmsnorm_h4096 with hidden_size {h}")


SAME_AS: dict[str, SameAs] = {
    "FlashInfer-Bench__001_fused_add_rmsnorm_h2048": _fused_add_rmsnorm_as_h4096(2048),
    "FlashInfer-Bench__003_fused_add_rmsnorm_h7168": _fused_add_rmsnorm_as_h4096(7168),
    "FlashInfer-Bench__021_rmsnorm_h128": _rmsnorm_as_h4096(128, "1e-6"),
    "FlashInfer-Bench__022_rmsnorm_h512": _rmsnorm_as_h4096(512, "1e-6"),
    "FlashInfer-Bench__023_rmsnorm_h1536": _rmsnorm_as_h4096(1536, "1e-6"),
    "FlashInfer-Bench__024_rmsnorm_h2048": _rmsnorm_as_h4096(2048, "1e-6"),
    "FlashInfer-Bench__026_rmsnorm_h7168": _rmsnorm_as_h4096(7168, "1e-6"),
}


@dataclass(frozen=True)
class KnownCopy:
    """A public copy of the definitions this page was generated from (found by its sha256)."""
    repo: str
    path: str
    commit: str
    read_on: str


KNOWN_COPIES: dict[str, KnownCopy] = {
    "513c551b9feabfa44bdce0b6f65b3fd98f2a753482021877a1b67772142eec7c": KnownCopy(
        "williamqwu/sol-execbench-rocm", "reference/dataset-meta.json",
        "0f2d867c6ec8447cb1d2400dac5b8880089d76ab", "2026-12-01"),
}


# ---- reading the dataset ---------------------------------------------------------------------

def _problem(key: str, level: str, d: dict, reference: str) -> Problem:
    return Problem(key, level, d.get("name") or key.split("__", 1)[-1], d.get("description"),
                   d.get("axes") or {}, d.get("inputs") or {}, d.get("outputs") or {}, reference)


def load_meta(path: Path) -> list[Problem]:
    """dataset-meta.json: {"problems": {"LEVEL__NAME": definition}}."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [_problem(k, k.split("__", 1)[0], d, d.get("reference") or "")
            for k, d in sorted(data["problems"].items())]


def load_dir(path: Path) -> list[Problem]:
    """LEVEL/NAME/definition.json below path; the level is the folder above the problem's."""
    out = []
    for f in sorted(path.rglob("definition.json")):
        d = json.loads(f.read_text(encoding="utf-8"))
        ref = d.get("reference") or ""
        if not ref and (f.parent / "reference.py").exists():
            ref = (f.parent / "reference.py").read_text(encoding="utf-8")
        level = f.parent.parent.name
        out.append(_problem(f"{level}__{d.get('name') or f.parent.name}", level, d, ref))
    return sorted(out, key=lambda p: p.key)


def digest(path: Path) -> str:
    """sha256 of the file, or of a directory's definition.json files (paths and bytes)."""
    h = hashlib.sha256()
    if path.is_file():
        h.update(path.read_bytes())
        return h.hexdigest()
    for f in sorted(path.rglob("definition.json")):
        h.update(str(f.relative_to(path)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def find_dataset(arg: str | None) -> tuple[Path | None, str]:
    """The dataset's path if it exists, and what was looked at (for the message)."""
    raw = arg or os.environ.get(ENV)
    if not raw:
        return None, f"no --dataset and no ${ENV}"
    return (Path(raw), raw) if Path(raw).exists() else (None, f"nothing at {raw}")


def load(path: Path) -> list[Problem]:
    return load_dir(path) if path.is_dir() else load_meta(path)


# ---- the reference code ----------------------------------------------------------------------

def _drop_docstrings(tree: ast.AST) -> None:
    for n in ast.walk(tree):
        body = getattr(n, "body", None)
        if (isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            n.body = body[1:] or [ast.Pass()]


@lru_cache(maxsize=None)  # detect() and family() both read it
def reachable_code(reference: str, entry: str = "run") -> str:
    """The top-level functions and classes `entry` reaches, without docstrings or comments.

    A helper defined but never called (a GEMM helper beside a RoPE table, get_inputs) says
    nothing about what the problem computes. Unparsable text is returned as it is."""
    try:
        tree = ast.parse(reference)
    except SyntaxError:
        return reference
    _drop_docstrings(tree)
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    seen: set[str] = set()
    todo = [entry] if entry in defs else list(defs)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += [n.id for n in ast.walk(defs[name]) if isinstance(n, ast.Name) and n.id in defs]
    return "\n".join(ast.unparse(defs[n]) for n in sorted(seen))


# ---- checked ops -----------------------------------------------------------------------------

@dataclass(frozen=True)
class RealOp:
    dir: str
    expect: str
    rule: str | None
    name: str
    description: str | None
    signature: str


def _signature(d: dict) -> str:
    pick = lambda ts: {n: (t.get("shape"), t["dtype"]) for n, t in ts.items()}  # noqa: E731
    return json.dumps([pick(d.get("inputs") or {}), pick(d.get("outputs") or {})], sort_keys=True)


def load_real(real: Path = REAL) -> list[RealOp]:
    """tests/problems/real: the manifest's verdicts and the definitions they are bound to."""
    manifest = real / "manifest.json"
    if not manifest.exists():
        return []
    ops = []
    for name, entry in sorted(json.loads(manifest.read_text())["problems"].items()):
        d = json.loads((real / name / "definition.json").read_text())
        ops.append(RealOp(name, entry["expect"], entry.get("rule"), d["name"],
                          d.get("description"), _signature(d)))
    return ops


def match_real(p: Problem, ops: list[RealOp]) -> RealOp | None:
    """The op bound to this very definition: same name, or same description and signature."""
    sig = _signature({"inputs": p.inputs, "outputs": p.outputs})
    for op in ops:
        if op.name == p.name or (op.description and op.description == p.description
                                 and op.signature == sig):
            return op
    return None


# ---- classifying -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    cls: Class
    tags: tuple[Tag, ...]
    note: str


_ORDER = {t: i for i, t in enumerate([*Scope, *Rule])}


def detect(p: Problem) -> tuple[Tag, ...]:
    code = reachable_code(p.reference)
    tags = {d.tag for d in DETECTORS if d.pattern.search(code)}
    tags |= {d.tag for d in DEF_DETECTORS if d.test(p, code)}
    return tuple(sorted(tags, key=_ORDER.__getitem__))


def family(p: Problem) -> str:
    code = reachable_code(p.reference)
    return next(h.family for h in FAMILY_HINTS if h.pattern.search(code))


def _from_tags(p: Problem, tags: tuple[Tag, ...]) -> Verdict:
    scope = tuple(t for t in tags if isinstance(t, Scope))
    if scope:
        return Verdict(Class.OUT, scope, "")
    rules = tuple(t for t in tags if isinstance(t, Rule))
    return Verdict(Class.RULES, rules, "") if rules else Verdict(Class.FAMILY, (), family(p))


def _without_landed(v: Verdict, p: Problem) -> Verdict:
    if v.cls is not Class.RULES:
        return v
    left = tuple(t for t in v.tags if t not in LANDED)
    if left:
        return Verdict(Class.RULES, left, v.note)
    landed = ", ".join(t.value for t in v.tags)
    return Verdict(Class.FAMILY, (), "; ".join(x for x in (v.note, f"its §8 rules have landed ({landed})") if x))


def classify(p: Problem, ops: list[RealOp]) -> Verdict:
    o = OVERRIDES.get(p.key)
    v = _without_landed(Verdict(o.cls, o.tags, o.why) if o else _from_tags(p, detect(p)), p)
    real = match_real(p, ops)
    if real and real.expect == "pass":
        return Verdict(Class.CHECKED, (), f"`tests/problems/real/{real.dir}`")
    same = SAME_AS.get(p.key)
    passing = {op.dir for op in ops if op.expect == "pass"}
    if same and same.real in passing:
        return Verdict(Class.CHECKED, (), f"`tests/problems/real/{same.real}`: {same.why}")
    if real:  # refused today, as the manifest says: the verdict stands, with the evidence
        why = f"refused today (`tests/problems/real/{real.dir}`, rule {real.rule})"
        return Verdict(v.cls, v.tags, "; ".join(x for x in (v.note, why) if x))
    return v


# ---- the page --------------------------------------------------------------------------------

def _code(p: Problem) -> str:
    return f"{p.level}/{p.name}"


def _detail(v: Verdict) -> str:
    tags = "; ".join(t.value for t in v.tags)
    tail = "; no checked op yet" if v.cls is Class.FAMILY else ""
    lead = "checked: " if v.cls is Class.CHECKED else ""
    return (lead + "; ".join(x for x in (tags, v.note) if x) + tail).replace("|", "\\|")


def _source(path: Path, n: int) -> str:
    known = KNOWN_COPIES.get(digest(path))
    if known:
        return (f"Source: `{known.path}` of the public GitHub repository {known.repo}, commit "
                f"`{known.commit}`, read on {known.read_on}: {n} problems.")
    kind = "directory of definition.json files" if path.is_dir() else f"file `{path.name}`"
    return f"Source: a {kind} not among the known copies (sha256 `{digest(path)}`): {n} problems."


def render(problems: list[Problem], ops: list[RealOp], source: str) -> str:
    problems = sorted(problems, key=lambda p: p.key)  # the page never depends on input order
    verdicts = {p.key: classify(p, ops) for p in problems}
    levels: dict[str, int] = {}
    for p in problems:
        levels[p.level] = levels.get(p.level, 0) + 1
    out = [
        "# SOL-ExecBench coverage",
        "",
        "Generated by `python3 bench/coverage.py --dataset PATH --write`, where PATH is the",
        "dataset's `dataset-meta.json` (the public copy: `reference/dataset-meta.json` of",
        "https://github.com/williamqwu/sol-execbench-rocm) or a directory of its",
        "`LEVEL/NAME/definition.json` files; `--check` fails when this page is stale. Do not edit",
        "by hand: the detectors and the per-problem overrides are typed data in the script.",
        "",
        source + " By level: " + ", ".join(f"{k} {v}" for k, v in sorted(levels.items())) + ".",
        "",
        "A problem is *checked* when an op under `tests/problems/real/` whose manifest entry says",
        "`pass` is bound to its definition (or computes the same up to constant sizes and",
        "epsilon); *in a §7 family* when its reference is a fused-row, gated or reduction op of",
        "`logos-ops.md` (r2) as it stands; *in reach once §8 rules land* when only the named",
        "rules of §8 are missing; *out of scope* otherwise, the reasons listed (the first",
        "decides).",
        "",
        "## Summary",
        "",
        "| class | problems |",
        "|---|---|",
    ]
    for c in Class:
        out.append(f"| {CLASS_TITLE[c]} | {sum(v.cls is c for v in verdicts.values())} |")
    out.append(f"| all | {len(problems)} |")
    out += ["", "## Rules of §8 that problems wait for", "",
            "A problem waiting for several rules is counted under each. Landed: "
            + (", ".join(r.value for r in Rule if r in LANDED) or "none")
            + " (a problem that needed only those counts as in a family).", "",
            "| rule | count | problems |", "|---|---|---|"]
    for r in (r for r in Rule if r not in LANDED):
        names = [_code(p) for p in problems
                 if verdicts[p.key].cls is Class.RULES and r in verdicts[p.key].tags]
        out.append(f"| {r.value} | {len(names)} | {', '.join(names) or '-'} |")
    out += ["", "## Why the others are out of scope", "",
            "Counted by the first (deciding) reason; the full list names every reason seen.", "",
            "| reason | count |", "|---|---|"]
    for s in Scope:
        n = sum(v.cls is Class.OUT and v.tags[:1] == (s,) for v in verdicts.values())
        if n:
            out.append(f"| {s.value} | {n} |")
    out += ["", "## All problems", "", "| problem | level | class | rules / reasons |",
            "|---|---|---|---|"]
    for p in problems:
        v = verdicts[p.key]
        out.append(f"| {p.name} | {p.level} | {v.cls.value} | {_detail(v)} |")
    return "\n".join(out) + "\n"


# ---- the command -----------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", help=f"dataset-meta.json or a directory (default: ${ENV})")
    ap.add_argument("--doc", type=Path, default=DOC, help="the page (default: docs/coverage.md)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write the page")
    mode.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = ap.parse_args(argv)
    path, looked = find_dataset(args.dataset)
    if path is None:
        print(f"coverage: the SOL-ExecBench dataset was not found ({looked}); {WHERE}.",
              file=sys.stderr)
        if args.check:
            print("coverage: nothing to compare; --check passes.", file=sys.stderr)
            return 0
        return 2
    problems = load(path)
    page = render(problems, load_real(), _source(path, len(problems)))
    if args.check:
        current = args.doc.read_text(encoding="utf-8") if args.doc.exists() else ""
        if current != page:
            print(f"coverage: {args.doc} is stale; run bench/coverage.py --write", file=sys.stderr)
            return 1
        return 0
    if args.write:
        args.doc.write_text(page, encoding="utf-8")
        return 0
    sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
