"""bench/coverage.py: the classifier on hand-written definitions, the page, --check, no dataset.

The definitions here are small and written for these tests; none comes from the dataset. The
last test compares docs/coverage.md with the dataset itself, and runs only where
$SOLBENCH_DATASET names a copy of it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Loaded by path under its own name: `coverage` is also the coverage.py package's name.
_spec = importlib.util.spec_from_file_location("solbench_bench_coverage",
                                               ROOT / "bench" / "coverage.py")
cov = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = cov
_spec.loader.exec_module(cov)

Class, Rule, Scope = cov.Class, cov.Rule, cov.Scope

ROW = {"shape": ["tokens", "hidden"], "dtype": "float32"}


def _definition(reference: str, *, name: str = "001_op", inputs: dict | None = None,
                outputs: dict | None = None, axes: dict | None = None,
                description: str = "a test op") -> dict:
    return {"name": name, "description": description,
            "axes": axes or {"tokens": {"type": "var"}, "hidden": {"type": "const", "value": 64}},
            "inputs": inputs or {"x": ROW}, "outputs": outputs or {"y": ROW},
            "reference": reference}


def _problem(reference: str, level: str = "L1", **kw) -> "cov.Problem":
    d = _definition(reference, **kw)
    return cov._problem(f"{level}__{d['name']}", level, d, reference)


def _verdict(reference: str, ops: list | None = None, **kw) -> "cov.Verdict":
    return cov.classify(_problem(reference, **kw), ops or [])


GEMM = """
import torch

@torch.no_grad()
def run(x, w):
    return torch.matmul(x, w.t())
"""

ROPE = '''
import torch

def rotate_half(x):
    """Swap the halves: x @ R for a rotation R, in a docstring only."""
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)

@torch.no_grad()
def run(x, angle):
    # q @ k^T would be a GEMM: in a comment it is not one.
    return x * angle.cos() + rotate_half(x) * angle.sin()
'''

# Statistics over several trailing axes (group norm): a §8 rule not landed yet.
GROUP_STATS = """
import torch

def run(x):
    return x - x.mean(dim=[2, 3, 4], keepdim=True)
"""

SOFTMAX = """
import torch

def unused(a, b):
    return a @ b  # a helper `run` never calls

def run(x):
    e = (x - x.amax(dim=-1, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)
"""


def test_a_matmul_is_out_of_scope():
    v = _verdict(GEMM, inputs={"x": ROW, "w": {"shape": ["hidden", "hidden"], "dtype": "float32"}})
    assert v.cls is Class.OUT and v.tags[0] is Scope.GEMM


@pytest.mark.parametrize("line", ["y = x @ w", "y = torch.nn.functional.linear(x, w)",
                                  "y = torch.einsum('th,oh->to', x, w)", "y = x.mm(w)"])
def test_every_spelling_of_a_gemm(line):
    v = _verdict(f"import torch\ndef run(x, w):\n    {line}\n    return y\n")
    assert v.tags[:1] == (Scope.GEMM,)


def test_rope_needs_sin_cos_and_rotate_half_not_a_gemm():
    # The `@` in the docstring and the comment are not code.
    assert {Rule.SIN_COS, Rule.COLUMN_SELECT} <= set(cov.detect(_problem(ROPE)))
    v = _verdict(ROPE, inputs={"x": ROW, "angle": ROW})
    # Both rules have landed (cov.LANDED): a family, the rules named in the note.
    assert {Rule.SIN_COS, Rule.COUNTER, Rule.COLUMN_SELECT} <= cov.LANDED
    assert v.cls is Class.FAMILY and "rotate-half" in v.note and "sin/cos" in v.note, v


def test_a_problem_that_needed_only_landed_rules_is_in_a_family():
    assert Rule.SIN_COS in cov.LANDED
    code = "import torch\ndef run(x):\n    return x + torch.sin(x) ** 2\n"
    v = _verdict(code)
    assert v.cls is Class.FAMILY and "sin/cos" in v.note, v


def test_a_helper_run_does_not_call_is_ignored():
    v = _verdict(SOFTMAX)
    assert v.cls is Class.FAMILY and v.note == "fused row"


@pytest.mark.parametrize("body, tag", [
    ("return x.sum(dim=(0, 1))", Rule.COLUMN_REDUCTION),
    ("return x.mean(dim=[2, 3, 4], keepdim=True)", Rule.MULTI_AXIS),
    ("return x.repeat_interleave(2, dim=-1)", Rule.DIV_REM),
    ("return x + torch.arange(x.shape[-1])", Rule.COUNTER),
    ("return torch.cumsum(x, dim=-1)", Scope.SCAN),
    ("return torch.topk(x, 2, dim=-1)[0]", Scope.SORT),
    ("return torch.sum(x * 2.0)", Scope.GLOBAL),
    ("return x[: int(x.max().item())]", Scope.DATA_SHAPE),
    ("return torch.fft.rfft(x)", Scope.FFT),
    ("return torch.nn.functional.conv1d(x, x)", Scope.CONV),
])
def test_detectors(body, tag):
    assert tag in cov.detect(_problem(f"import torch\ndef run(x):\n    {body}\n"))


def test_an_index_read_from_data_is_a_gather():
    v = _verdict("def run(cache, pos):\n    return cache[:, pos]\n",
                 inputs={"cache": ROW, "pos": {"shape": ["tokens"], "dtype": "int64"}})
    assert v.cls is Class.OUT and v.tags == (Scope.GATHER,)


def test_int_and_bool_tensors_as_data():
    mask = {"shape": ["tokens", "hidden"], "dtype": "bool"}
    v = _verdict("def run(x, mask):\n    return x.masked_fill(~mask, 0.0)\n",
                 inputs={"x": ROW, "mask": mask})
    assert Rule.INT_BOOL in cov.detect(_problem("def run(x, mask):\n    return x\n",
                                                inputs={"x": ROW, "mask": mask}))
    assert v.cls is Class.FAMILY and "Int/Bool tensors as data" in v.note, v  # landed
    # Int8 codes as an output are a conversion, in reach today (per-token quantization).
    codes = {"shape": ["tokens", "hidden"], "dtype": "int8"}
    assert Rule.INT_BOOL not in cov.detect(_problem("def run(x):\n    return x\n",
                                                    outputs={"q": codes}))


def test_several_row_sets_compare_sizes_not_names():
    axes = {"b": {"type": "var"}, "hq": {"type": "var"}, "hk": {"type": "var"},
            "h1": {"type": "const", "value": 8}, "h2": {"type": "const", "value": 8},
            "d": {"type": "const", "value": 64}}
    four = lambda h: {"shape": ["b", h, "d"], "dtype": "float32"}  # noqa: E731
    src = "def run(q, k):\n    return (q, k)\n"
    differ = _problem(src, axes=axes, inputs={"q": four("hq"), "k": four("hk")},
                      outputs={"qo": four("hq"), "ko": four("hk")})
    same = _problem(src, axes=axes, inputs={"q": four("h1"), "k": four("h2")},
                    outputs={"qo": four("h1"), "ko": four("h2")})
    assert Rule.ROW_SETS in cov.detect(differ)
    assert Rule.ROW_SETS not in cov.detect(same)


def _real(expect: str, **kw) -> "cov.RealOp":
    d = _definition(SOFTMAX, **kw)
    return cov.RealOp("real_op", expect, None if expect == "pass" else "cross-row", d["name"],
                      d["description"], cov._signature(d))


def test_an_op_checked_under_tests_problems_real_is_in_reach():
    v = _verdict(SOFTMAX, ops=[_real("pass")])
    assert v.cls is Class.CHECKED and "tests/problems/real/real_op" in v.note
    # Bound by description and signature when the names differ.
    v = _verdict(SOFTMAX, ops=[_real("pass", name="softmax_h64")])
    assert v.cls is Class.CHECKED
    # Another signature is another problem.
    other = _real("pass", name="softmax_h64", inputs={"x": {**ROW, "dtype": "bfloat16"}})
    assert _verdict(SOFTMAX, ops=[other]).cls is Class.FAMILY


def test_a_refused_op_keeps_its_class_and_says_so():
    v = _verdict(GEMM, ops=[_real("refused")])
    assert v.cls is Class.OUT and "refused today" in v.note


def test_the_repos_real_problems_are_recognized():
    """A definition of tests/problems/real, read as a dataset entry, is checked."""
    d = json.loads((ROOT / "tests/problems/real/nvidia_softmax_h4096/definition.json").read_text())
    p = cov._problem(f"L1__{d['name']}", "L1", d, d["reference"])
    v = cov.classify(p, cov.load_real())
    assert v.cls is Class.CHECKED and "nvidia_softmax_h4096" in v.note


def test_policy_tables_are_consistent():
    passing = {op.dir for op in cov.load_real() if op.expect == "pass"}
    assert all(s.real in passing for s in cov.SAME_AS.values())
    for key, o in cov.OVERRIDES.items():
        assert "__" in key and o.why and "\n" not in o.why
        assert all(isinstance(t, Scope if o.cls is Class.OUT else Rule) for t in o.tags)


def _meta(tmp_path: Path, *references: str) -> Path:
    problems = {f"L1__{i:03d}_op": _definition(r, name=f"{i:03d}_op")
                for i, r in enumerate(references, 1)}
    path = tmp_path / "dataset-meta.json"
    path.write_text(json.dumps({"problems": problems}))
    return path


def test_check_detects_a_stale_page(tmp_path, monkeypatch):
    monkeypatch.delenv(cov.ENV, raising=False)
    data, doc = _meta(tmp_path, GEMM, SOFTMAX, GROUP_STATS), tmp_path / "coverage.md"
    args = ["--dataset", str(data), "--doc", str(doc)]
    assert cov.main([*args, "--check"]) == 1  # no page yet
    assert cov.main([*args, "--write"]) == 0
    assert cov.main([*args, "--check"]) == 0
    page = doc.read_text()
    # A mean over several trailing axes: in a family since that §8 rule landed (issue 16).
    assert "| (c) out of scope | 1 |" in page and "| (b) in reach once §8 rules land | 0 |" in page
    assert "| (a) in reach today: in a §7 family, no checked op yet | 2 |" in page  # and softmax
    assert "not among the known copies" in page  # a copy with another sha256
    doc.write_text(page.replace("| 1 |", "| 2 |", 1))
    assert cov.main([*args, "--check"]) == 1


def test_the_page_is_deterministic_and_sorted(tmp_path):
    a = cov.load(_meta(tmp_path, SOFTMAX, GEMM, ROPE))
    page = cov.render(list(reversed(a)), [], "Source: x.")
    assert page == cov.render(cov.load(_meta(tmp_path, SOFTMAX, GEMM, ROPE)), [], "Source: x.")
    rows = [line.split(" | ")[0] for line in page.splitlines() if line.startswith("| 00")]
    assert rows == sorted(rows)


def test_a_known_copy_is_named_with_its_commit(tmp_path, monkeypatch):
    data = _meta(tmp_path, SOFTMAX)
    copy = cov.KnownCopy("someone/some-repo", "reference/dataset-meta.json", "c0ffee", "2026-12-01")
    monkeypatch.setitem(cov.KNOWN_COPIES, cov.digest(data), copy)
    line = cov._source(data, 1)
    assert "someone/some-repo" in line and "`c0ffee`" in line and "2026-12-01" in line


def test_a_directory_of_definitions(tmp_path, monkeypatch):
    """The released layout: LEVEL/NAME/definition.json, reference.py where the field is empty."""
    monkeypatch.delenv(cov.ENV, raising=False)
    prob = tmp_path / "benchmark" / "L2" / "007_op"
    prob.mkdir(parents=True)
    (prob / "definition.json").write_text(json.dumps(_definition("", name="007_op")))
    (prob / "reference.py").write_text(GEMM)
    [p] = cov.load(tmp_path / "benchmark")
    assert (p.key, p.level) == ("L2__007_op", "L2")
    assert cov.classify(p, []).tags[:1] == (Scope.GEMM,)
    monkeypatch.setenv(cov.ENV, str(tmp_path / "benchmark"))  # the variable stands for --dataset
    assert cov.main(["--doc", str(tmp_path / "c.md"), "--write"]) == 0


def test_without_the_dataset(monkeypatch, capsys, tmp_path):
    monkeypatch.delenv(cov.ENV, raising=False)
    doc = tmp_path / "coverage.md"
    assert cov.main(["--check", "--doc", str(doc)]) == 0  # nothing to compare: CI passes
    err = capsys.readouterr().err
    assert "not found" in err and "williamqwu/sol-execbench-rocm" in err and cov.ENV in err
    assert cov.main(["--dataset", str(tmp_path / "missing"), "--check"]) == 0
    assert cov.main(["--write", "--doc", str(doc)]) == 2 and not doc.exists()


@pytest.mark.skipif(not os.environ.get(cov.ENV), reason=f"${cov.ENV} names no dataset copy")
def test_docs_coverage_is_current():
    assert cov.main(["--check"]) == 0, "run: python3 bench/coverage.py --write"
