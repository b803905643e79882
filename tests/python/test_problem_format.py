"""`solgen check` reads the benchmark's files as the harness's pydantic models do (SOL-ExecBench
v1.0.2, sol_execbench.core.data.definition and .workload): literal sizes and repeated names in
shapes, lax integers, null optional fields, and the reference's run() signature."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solbench.conformance.problem import (BundleError, TensorSpec, lax_size, load_definition,
                                          parse_workload_line, resolve_axes, shape_of)

HOSTILE = Path(__file__).resolve().parents[1] / "hostile" / "json"


def _definition(tmp_path: Path, **changes: object) -> Path:
    d = json.loads((HOSTILE / "valid_definition.json").read_text())
    d.update(changes)
    path = tmp_path / "definition.json"
    path.write_text(json.dumps(d))
    return path


def test_digit_entries_are_literal_sizes_and_names_repeat() -> None:
    # Definition._get_shapes: isdigit() entries are int(s); a repeated name is one size.
    axes = {"M": 5, "N": 3}
    assert shape_of(TensorSpec("scale", ("M", "1"), "float32"), axes) == (5, 1)
    assert shape_of(TensorSpec("w", ("N", "N", "128"), "float32"), axes) == (3, 3, 128)
    assert shape_of(TensorSpec("eps", None, "float32"), axes) is None
    assert shape_of(TensorSpec("t", (), "float32"), axes) == ()


@pytest.mark.parametrize("value, size", [(4, 4), (4.0, 4), ("4", 4), (0, 0)])
def test_sizes_are_read_in_pydantics_lax_mode(value: object, size: int) -> None:
    assert lax_size(value) == size


@pytest.mark.parametrize("value", [-1, 4.5, "4.5", "x", None, [4]])
def test_what_is_not_a_size(value: object) -> None:
    assert lax_size(value) is None


def test_workload_axes_are_coerced(tmp_path: Path) -> None:
    defn = load_definition(_definition(tmp_path))
    w = parse_workload_line(tmp_path / "workload.jsonl", 1, json.dumps(
        {"uuid": "u", "axes": {"batch_size": "7"},
         "inputs": {"hidden_states": {"type": "random"}, "weight": {"type": "random"}}}), defn)
    assert resolve_axes(defn, w.axes)["batch_size"] == 7


def test_empty_optional_strings_are_rejected_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match=r"'hf_id' must not be empty .*write null"):
        load_definition(_definition(tmp_path, hf_id=""))
    assert load_definition(_definition(tmp_path, hf_id=None, description="")).name


def test_the_reference_must_take_the_inputs_in_order(tmp_path: Path) -> None:
    bad = "def run(weight, hidden_states):\n    return weight\n"
    with pytest.raises(BundleError, match=r"run\(weight, hidden_states\) must take the inputs"):
        load_definition(_definition(tmp_path, reference=bad))
    with pytest.raises(BundleError, match="defines no top-level run"):
        load_definition(_definition(tmp_path, reference="async def run(hidden_states, weight):\n"
                                                        "    return 0\n"))
    ok = "def run(hidden_states, weight, *, eps=1e-5):\n    return hidden_states\n"
    assert load_definition(_definition(tmp_path, reference=ok)).name
