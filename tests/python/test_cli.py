"""solgen's command line as a user meets it: explain (text and JSON), run,
exit codes, and the Python binding giving the same answers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from solbench.exit_codes import Exit

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "tests" / "corpus"  # the project's copy of the base corpus


def solgen(*args: str, **kw) -> subprocess.CompletedProcess:
    exe = os.environ.get("SOLGEN") or shutil.which("solgen") or str(ROOT / "build" / "solgen")
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=30, **kw)


def test_explain_json_recognized() -> None:
    p = solgen("explain", "--json", str(SHARED / "accept" / "rmsnorm.lg"))
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert j["op"] == "rmsnorm" and j["family"] == "fused_row"
    assert [i["name"] for i in j["inputs"]] == ["hidden_states", "weight"]
    assert j["outputs"] == [{"name": "output", "rank": 2, "dtype": "bfloat16",
                             "shape": ["batch_size", "hidden_size"], "role": "rows",
                             "follows": ["batch_size"]}]
    assert j["inputs"][1]["role"] == "column" and j["inputs"][1]["follows"] == []
    assert {"name": "hidden_size", "const": None} in j["axes"]
    assert p.stdout.count("\n") == 1  # exactly one JSON object


def test_explain_json_refused_names_line_and_rule() -> None:
    p = solgen("explain", "--json", str(SHARED / "refuse" / "gather.lg"))
    assert p.returncode == Exit.REJECTED
    r = json.loads(p.stdout)["refused"]
    assert r["rule"] == "data-dependent-index" and r["line"] == 6 and r["col"] > 0


def test_explain_json_syntax_errors() -> None:
    p = solgen("explain", "--json", str(SHARED / "refuse" / "bad_syntax.lg"))
    assert p.returncode == Exit.REJECTED
    errors = json.loads(p.stdout)["errors"]
    assert [e["line"] for e in errors] == [3, 4]
    assert "Flaot32" in errors[0]["message"]


def test_explain_text_refusal_is_a_compiler_style_diagnostic() -> None:
    path = SHARED / "refuse" / "cumsum.lg"
    p = solgen("explain", str(path))
    assert p.returncode == Exit.REJECTED
    first = p.stderr.splitlines()[0]
    assert first.startswith(f"{path}:") and ": error: refused (scan)" in first
    assert "^" in p.stderr  # the caret under the column


def test_missing_file_is_rejected() -> None:
    p = solgen("explain", "/nonexistent/op.lg")
    assert p.returncode == Exit.REJECTED
    assert "/nonexistent/op.lg" in p.stderr


def test_unknown_option_is_a_usage_error(tmp_path: Path) -> None:
    p = solgen(str(SHARED / "accept" / "rmsnorm.lg"), "--out", str(tmp_path / "b"), "--bogus")
    assert p.returncode == Exit.USAGE
    assert not (tmp_path / "b").exists()


def test_an_empty_author_is_a_usage_error(tmp_path: Path) -> None:
    # the harness's Solution.author is a NonEmptyString: a bundle without one cannot be scored
    p = solgen(str(SHARED / "accept" / "rmsnorm.lg"), "--out", str(tmp_path / "b"), "--author", "")
    assert p.returncode == Exit.USAGE and "author" in p.stderr
    assert not (tmp_path / "b").exists()


def test_run_prints_outputs_as_json(tmp_path: Path) -> None:
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"x": [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]]}))
    p = solgen("run", str(SHARED / "accept" / "row_sum.lg"), "--inputs", str(inputs))
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == {"output": [6.0, -0.25]}


def test_run_reports_a_fault_in_the_op(tmp_path: Path) -> None:
    op = tmp_path / "bad.lg"
    op.write_text("## To first (x: Seq of Float32) -> Float32:\n    Return item 0 of x.\n")
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"x": [1.0]}))
    p = solgen("run", str(op), "--inputs", str(inputs))
    assert p.returncode == Exit.REJECTED
    assert p.stderr.startswith(f"{op}:2:")


def test_binding_explain_matches_the_cli() -> None:
    core = pytest.importorskip("solbench._core", reason="the extension is built by scripts/build")
    path = str(SHARED / "accept" / "softmax.lg")
    assert core.explain(path) == json.loads(solgen("explain", "--json", path).stdout)


def test_binding_run_and_ir_agree() -> None:
    core = pytest.importorskip("solbench._core", reason="the extension is built by scripts/build")
    path = str(SHARED / "accept" / "softmax.lg")
    inputs = {"input": [[0.5, -1.0, 2.0, 0.0]]}
    a = core.run(path, inputs)["output"][0]
    b = core.evaluate_ir(path, inputs)["output"][0]
    assert all(abs(x - y) <= 1e-6 * abs(x) for x, y in zip(a, b))
    assert abs(sum(a) - 1.0) < 1e-6


def test_binding_refusal_raises_with_position() -> None:
    core = pytest.importorskip("solbench._core", reason="the extension is built by scripts/build")
    with pytest.raises(ValueError, match=r"cumsum\.lg:\d+:\d+: error: refused \(scan\)"):
        core.evaluate_ir(str(SHARED / "refuse" / "cumsum.lg"), {})


def test_binding_generate_takes_typed_options(tmp_path: Path) -> None:
    core = pytest.importorskip("solbench._core", reason="the extension is built by scripts/build")
    op = str(ROOT / "examples" / "rmsnorm.lg")
    defaults = core.GenerateOptions()
    assert (defaults.targets, defaults.author, defaults.force) == (["B200"], "solgen", False)
    assert defaults.destination_passing and not defaults.return_style
    core.generate(op, str(tmp_path / "plain"))  # the README's call: the defaults
    opts = core.GenerateOptions(author="x", name="typed", return_style=True, force=True)
    assert not opts.destination_passing
    core.generate(op, str(tmp_path / "typed"), opts)
    sol = json.loads((tmp_path / "typed" / "solution.json").read_text())
    assert (sol["author"], sol["name"]) == ("x", "typed")
    assert sol["spec"]["destination_passing_style"] is False
    with pytest.raises(TypeError):
        core.GenerateOptions("x")  # keywords only: no silent reordering
    with pytest.raises(ValueError, match="nope"):
        core.generate(op, str(tmp_path / "none"), core.GenerateOptions(op="nope"))


def test_an_input_read_only_in_the_first_branch_of_an_if_is_an_input(tmp_path: Path) -> None:
    # found by the differential runner (issue 18): the state restored for the other branches
    # forgot the first branch's reads, so `x` was classified unread and the kernel did not
    # compile (w's read in a sum was taken for a row-shaped one)
    from solbench import _core as core

    op = tmp_path / "then_read.lg"
    op.write_text(
        "## To then_read (x: Seq of Seq of Float32), (w: Seq of Float32) into "
        "(y: Seq of Seq of Float32):\n"
        "    Repeat for r from 1 to length of x:\n"
        "        Let row be item r of x.\n"
        "        Repeat for i from 1 to length of row:\n"
        "            Let mutable t be 0.5.\n"
        "            If item i of w is more than 0.0:\n"
        "                Set t to item i of row.\n"
        "            Set item i of item r of y to t.\n")
    roles = {t["name"]: t["role"] for t in core.explain(str(op))["inputs"]}
    assert roles == {"x": "rows", "w": "column"}
    inputs = {"x": [[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], "w": [1.0, -1.0, 2.0],
              "y": [[0.0] * 3, [0.0] * 3]}  # an `into` output comes with its size
    want = core.run(str(op), inputs)
    assert core.evaluate_ir(str(op), inputs) == want == {"y": [[1.0, 0.5, 3.0], [4.0, 0.5, -6.0]]}
