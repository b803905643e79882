"""Input generation (sol-execbench.md §2), axes, the reference call, and problem-file errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch

from solbench.conformance import inputs as gen
from solbench.conformance.problem import (BundleError, eval_expression, load_bundle,
                                          load_definition, load_solution, load_workloads,
                                          resolve_axes, workload_elements)

CPU = torch.device("cpu")


# --- plain dtype rules --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_floats_are_randn_in_the_dtype(dtype: torch.dtype) -> None:
    t = gen.rand_tensor((4096,), dtype, CPU)
    assert t.dtype == dtype
    assert abs(float(t.float().mean())) < 0.1 and 0.9 < float(t.float().std()) < 1.1


def test_random_float64_is_refused_as_the_harness_refuses_it() -> None:
    # core/bench/io.py, _rand_tensor: no float64 rule ("Unsupported random dtype"); a name rule
    # still gives one (norm_weight is ones in any floating dtype)
    with pytest.raises(gen.InputError, match="float64"):
        gen.rand_tensor((4,), torch.float64, CPU)
    with pytest.raises(gen.InputError):
        gen.random_scalar(torch.float64)
    ones = gen.make_tensor("norm_weight", (4,), torch.float64, CPU)
    assert ones.dtype == torch.float64 and bool((ones == 1).all())


def test_fp8_is_clamped_to_two() -> None:
    t = gen.rand_tensor((8192,), torch.float8_e4m3fn, CPU)
    assert t.dtype == torch.float8_e4m3fn
    v = t.float()
    assert float(v.abs().max()) == 2.0  # randn exceeds 2 often enough in 8192 draws
    assert float(v.abs().max()) <= 2.0


@pytest.mark.parametrize("dtype,lo,hi", [(torch.int8, -128, 128), (torch.int16, -1024, 1024),
                                         (torch.int32, -1024, 1024), (torch.int64, -1024, 1024)])
def test_integer_ranges(dtype: torch.dtype, lo: int, hi: int) -> None:
    t = gen.rand_tensor((20000,), dtype, CPU)
    assert t.dtype == dtype
    assert int(t.min()) >= lo and int(t.max()) < hi
    assert int(t.min()) < lo + 16 and int(t.max()) > hi - 16  # the whole range is used


def test_bool_is_random_zero_one() -> None:
    t = gen.rand_tensor((1000,), torch.bool, CPU)
    assert t.dtype == torch.bool and 300 < int(t.sum()) < 700


def test_random_scalar_is_a_python_number() -> None:
    assert type(gen.random_scalar(torch.float32)) is float
    assert type(gen.random_scalar(torch.int32)) is int
    assert type(gen.random_scalar(torch.bool)) is bool


# --- name rules: one test per rule of the harness's input generator ---------------------------
# (SOL-ExecBench v1.0.2, core/bench/io.py: its heuristics for a `random` input, tried in order,
# for floating dtypes other than FP8/FP4.)


@pytest.mark.parametrize("name,shape,rule", [
    # _is_norm_weight / _is_norm_bias: the exact names and the norm-prefixed suffixes
    ("norm_weight", (8,), "ones"), ("input_layernorm_weight", (8,), "ones"),
    ("q_norm_weight", (8,), "ones"), ("post_attention_layernorm_weight", (8,), "ones"),
    ("norm2_weight", (8,), "ones"), ("norm_bias", (8,), "zeros"), ("ln_norm_bias", (8,), "zeros"),
    # a plain `weight`, 1-D, matches none of the rules (the rmsnorm examples' weight is randn)
    ("weight", (8,), None), ("weight_q", (48, 128), None), ("bias", (8,), None),
    # _is_causal_attention_mask: attention_mask / causal_mask square in the last two axes
    ("attention_mask", (2, 4, 4), "causal_mask"), ("causal_mask", (4, 4), "causal_mask"),
    # _is_binary_mask: the listed names (attention_mask when not square)
    ("attention_mask", (2, 4, 8), "binary_mask"), ("x_mask", (4, 8), "binary_mask"),
    ("drop_mask", (8,), "binary_mask"), ("padding_mask", (4, 8), None),
    ("key_padding_mask", (4, 8), None), ("attn_mask", (4, 4), None),
    # _is_rope_cos_sin: six exact names only
    ("cos", (16, 32), "cos"), ("sin_cached", (16, 32), "sin"), ("rope_cos", (16, 32), "cos"),
    ("freqs_cos", (16, 32), None), ("cos_emb", (16, 32), None),
    # _is_positive_tensor
    ("rstd", (8,), "positive"), ("variance", (8,), "positive"), ("x_var", (8,), "positive"),
    ("std2", (8,), "positive"), ("var_eps", (8,), None),
    # _is_ssm_decay
    ("A", (8,), "ssm_a"), ("A_log", (8,), "ssm_a_log"), ("A_cumsum", (4, 8), "ssm_a_cumsum"),
    ("g", (8,), "ssm_g"),
    # _is_softmax_output
    ("attn_weights", (2, 8), "softmax"), ("attention_weights", (2, 8), "softmax"),
    ("routing_weights", (2, 8), "softmax"), ("topk_routing_weights", (2, 8), "fan_in"),
    # _is_weight_matrix: rank >= 2, `weight` or a weight suffix, digits stripped
    ("weight", (64, 32), "fan_in"), ("up_proj", (64, 32), "fan_in"),
    ("gate_weight", (64, 32), "fan_in"), ("weight2", (64, 32), "fan_in"),
    ("hidden_states", (4, 8), None), ("x", (8,), None),
])
def test_name_rule_is_the_harness_rule(name: str, shape: tuple, rule: str | None) -> None:
    assert gen.name_rule(name, shape) == rule


def test_rules_read_the_description_where_the_harness_does() -> None:
    assert gen.name_rule("m", (4, 4), description="A causal attention mask") == "causal_mask"
    assert gen.name_rule("pad_mask", (4, 8), description="1.0 for valid tokens") == "binary_mask"
    assert gen.name_rule("p", (4, 8), description="Output of a softmax") == "softmax"
    assert gen.name_rule("pad_mask", (4, 8)) is None


@pytest.mark.parametrize("dtype", [torch.int32, torch.bool, torch.float8_e4m3fn])
def test_rules_apply_to_floating_dtypes_other_than_fp8_only(dtype: torch.dtype) -> None:
    assert gen.name_rule("norm_weight", (8,), dtype) is None
    assert gen.name_rule("attention_mask", (4, 4), dtype) is None


def test_norm_weights_ones_and_norm_bias_zeros() -> None:
    assert torch.equal(gen.make_tensor("norm_weight", (8,), torch.bfloat16, CPU),
                       torch.ones(8, dtype=torch.bfloat16))
    assert torch.equal(gen.make_tensor("ln_norm_bias", (8,), torch.float32, CPU), torch.zeros(8))


def test_causal_mask_is_additive_zero_and_dtype_min() -> None:
    m = gen.make_tensor("attention_mask", (2, 4, 4), torch.float32, CPU)
    want = torch.zeros(4, 4).masked_fill(torch.ones(4, 4).triu(1).bool(),
                                         torch.finfo(torch.float32).min)
    assert torch.equal(m[1], want)


def test_binary_mask_is_zero_one_in_the_dtype() -> None:
    m = gen.make_tensor("x_mask", (64, 64), torch.bfloat16, CPU)
    assert m.dtype == torch.bfloat16 and set(m.float().unique().tolist()) == {0.0, 1.0}


def test_cos_and_sin_are_of_randn_clamped_to_pi() -> None:
    c = gen.make_tensor("cos", (4096,), torch.float32, CPU)
    s = gen.make_tensor("sin", (4096,), torch.float32, CPU)
    assert float(c.min()) >= -1.0 and float(c.max()) <= 1.0
    assert float(c.min()) >= math.cos(math.pi) - 1e-6 and float(c.mean()) > 0.3  # angles ~ N(0,1)
    assert abs(float(s.mean())) < 0.1 and float(s.abs().max()) <= 1.0


def test_statistics_are_positive() -> None:
    t = gen.make_tensor("rstd", (4096,), torch.float32, CPU)
    assert float(t.min()) >= 0.1


def test_ssm_decays_are_uniform_in_their_ranges() -> None:
    a = gen.make_tensor("A", (4096,), torch.float32, CPU)
    assert -1.0 <= float(a.min()) and float(a.max()) <= -0.001
    a_log = gen.make_tensor("A_log", (4096,), torch.float32, CPU)
    assert -5.0 <= float(a_log.min()) and float(a_log.max()) <= -1.0
    g = gen.make_tensor("g", (4096,), torch.float32, CPU)
    assert -5.0 <= float(g.min()) and float(g.max()) <= 0.0
    cs = gen.make_tensor("A_cumsum", (4, 64), torch.float32, CPU)
    assert bool((cs[:, 1:] <= cs[:, :-1]).all())  # a cumulative sum of non-positive steps


def test_weight_matrices_scaled_by_fan_in_but_plain_1d_weight_is_randn() -> None:
    m = gen.make_tensor("weight", (64, 1024), torch.float32, CPU)
    assert abs(float(m.std()) - 1 / 32) < 0.003
    v = gen.make_tensor("weight", (4096,), torch.float32, CPU)
    assert 0.9 < float(v.std()) < 1.1


def test_softmax_weights_sum_to_one() -> None:
    t = gen.make_tensor("routing_weights", (8, 16), torch.float32, CPU)
    assert float(t.min()) >= 0 and torch.allclose(t.sum(-1), torch.ones(8))


# --- axes -----------------------------------------------------------------------------------------


def _defn(tmp_path: Path, axes: dict, inputs: dict | None = None, reference: str | None = None,
          **extra: object) -> Path:
    d = {"name": "t", "axes": axes,
         "inputs": inputs or {"x": {"shape": ["n"], "dtype": "float32"}},
         "outputs": {"y": {"shape": ["n"], "dtype": "float32"}},
         "reference": reference or "def run(x):\n    return x\n", **extra}
    p = tmp_path / "definition.json"
    p.write_text(json.dumps(d))
    return p


def test_expr_axes_resolve_in_dependency_order(tmp_path: Path) -> None:
    p = _defn(tmp_path, {"n": {"type": "var"}, "h": {"type": "const", "value": 64},
                         "total": {"type": "expr", "expression": "half * 2 + n % 3"},
                         "half": {"type": "expr", "expression": "(n * h) // 2"}})
    d = load_definition(p)
    assert resolve_axes(d, {"n": 5}) == {"n": 5, "h": 64, "half": 160, "total": 322}


def test_expressions_are_arithmetic_only() -> None:
    assert eval_expression("a * b - 2 ** 3", {"a": 4, "b": 5}) == 12
    assert eval_expression("a / 2", {"a": 8}) == 4
    with pytest.raises(ValueError, match="whole number"):
        eval_expression("a / 3", {"a": 8})
    for bad in ("__import__('os').getcwd()", "a.real", "[a]", "a if a else 1", "'s'"):
        with pytest.raises(ValueError):
            eval_expression(bad, {"a": 1})


def test_expression_errors_name_the_file(tmp_path: Path) -> None:
    p = _defn(tmp_path, {"n": {"type": "var"}, "m": {"type": "expr", "expression": "n * k"}})
    with pytest.raises(BundleError, match=r"definition\.json: axis 'm'.*unknown axis 'k'"):
        load_definition(p)
    p = _defn(tmp_path, {"n": {"type": "var"}, "a": {"type": "expr", "expression": "b + 1"},
                         "b": {"type": "expr", "expression": "a + 1"}})
    d = load_definition(p)
    with pytest.raises(ValueError, match="cyclic"):
        resolve_axes(d, {"n": 1})


# --- rounds and seeding -------------------------------------------------------------------------


def test_rounds_are_fresh_and_the_seed_reproduces(scale_bundle: Path) -> None:
    b = load_bundle(scale_bundle)
    w = b.workloads[0]
    torch.manual_seed(gen.SEED)
    r0 = gen.generate_inputs(b.definition, w, CPU)
    r1 = gen.generate_inputs(b.definition, w, CPU)
    assert r0[0].shape == (3, 64) and r0[0].dtype == torch.float32
    assert isinstance(r0[1], float)  # a random scalar: one Python number
    assert not torch.equal(r0[0], r1[0])
    torch.manual_seed(gen.SEED)
    again = gen.generate_inputs(b.definition, w, CPU)
    assert torch.equal(r0[0], again[0]) and r0[1] == again[1]
    assert gen.generate_inputs(b.definition, b.workloads[1], CPU)[1] == 0.5  # scalar: as given


def test_workload_elements(scale_bundle: Path) -> None:
    b = load_bundle(scale_bundle)
    # x and y: rows*64 each, plus one scalar
    assert [workload_elements(b.definition, w) for w in b.workloads] == [385, 129, 1153]


def test_custom_inputs_entrypoint(tmp_path: Path) -> None:
    ref = ("import torch\n"
           "def make(axes, device):\n"
           "    return {'x': torch.arange(axes['n'], dtype=torch.float32, device=device)}\n"
           "def run(x):\n    return x\n")
    p = _defn(tmp_path, {"n": {"type": "var"}}, reference=ref, custom_inputs_entrypoint="make")
    d = load_definition(p)
    (tmp_path / "workload.jsonl").write_text(
        json.dumps({"uuid": "u", "axes": {"n": 4}, "inputs": {"x": {"type": "custom"}}}) + "\n")
    w = load_workloads(tmp_path / "workload.jsonl", d)[0]
    ns = gen.load_reference(d)
    (x,) = gen.generate_inputs(d, w, CPU, ns)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_safetensors_without_the_package_is_a_clear_error(tmp_path: Path) -> None:
    try:
        import safetensors  # noqa: F401
        pytest.skip("safetensors is installed here")
    except ImportError:
        pass
    cache = gen.SafetensorsCache(tmp_path)
    with pytest.raises(RuntimeError, match="safetensors"):
        cache.get("w.safetensors", "x")


# --- the reference --------------------------------------------------------------------------------


def test_reference_parameters_must_match_inputs(tmp_path: Path) -> None:
    # As the harness's Definition validators: the file itself is refused.
    from solbench.conformance.problem import BundleError

    with pytest.raises(BundleError, match=r"run\(y\) must take the inputs in order: run\(x\)"):
        load_definition(_defn(tmp_path, {"n": {"type": "var"}},
                              reference="def run(y):\n    return y\n"))
    with pytest.raises(BundleError, match="not valid Python"):
        load_definition(_defn(tmp_path, {"n": {"type": "var"}}, reference="x = (\n"))
    d = load_definition(_defn(tmp_path, {"n": {"type": "var"}}, reference="def run(x):\n  1/0\n"))
    assert callable(gen.load_reference(d)["run"])
    # Valid Python that fails when it runs is the reference loader's to report.
    d = load_definition(_defn(tmp_path, {"n": {"type": "var"}},
                              reference="import no_such_module_here\ndef run(x):\n  return x\n"))
    with pytest.raises(gen.ReferenceError, match="does not load"):
        gen.load_reference(d)


def test_normalize_outputs() -> None:
    from solbench.conformance.problem import TensorSpec

    outs = [TensorSpec("a", ("n",), "float32"), TensorSpec("b", None, "int32")]
    a = torch.ones(2)
    r = gen.normalize_outputs((a, 3), outs, to_tensor=True)
    assert r[0] is a and r[1].dtype == torch.int32 and r[1].shape == () and int(r[1]) == 3
    r = gen.normalize_outputs({"b": 3, "a": a, "extra": 1}, outs, to_tensor=True)
    assert r[0] is a and int(r[1]) == 3
    assert gen.normalize_outputs([a, 3], outs, to_tensor=False)[1] == 3
    with pytest.raises(ValueError, match="2 outputs"):
        gen.normalize_outputs(a, outs, to_tensor=True)
    with pytest.raises(ValueError, match="returned 3 values"):
        gen.normalize_outputs((a, a, a), outs, to_tensor=True)
    single = [TensorSpec("y", ("n",), "float32")]
    assert gen.normalize_outputs(a, single, to_tensor=True)[0] is a
    with pytest.raises(ValueError, match="lacks"):
        gen.normalize_outputs({"a": a}, outs, to_tensor=True)


# --- problem files: errors name the file and line -----------------------------------------------


def test_bad_json_names_file_line_and_column(tmp_path: Path) -> None:
    p = tmp_path / "definition.json"
    p.write_text('{\n  "name": "x",\n  "axes": {,}\n}\n')
    with pytest.raises(BundleError, match=r"definition\.json:3:\d+: invalid JSON"):
        load_definition(p)


def test_bad_workload_line_is_named(tmp_path: Path, scale_bundle: Path) -> None:
    d = load_definition(scale_bundle / "definition.json")
    p = tmp_path / "workload.jsonl"
    good = (scale_bundle / "workload.jsonl").read_text().splitlines()[0]
    p.write_text(good + "\n\n" + json.dumps({"uuid": "u", "axes": {}, "inputs": {}}) + "\n")
    with pytest.raises(BundleError, match=r"workload\.jsonl:3: var axis 'rows'"):
        load_workloads(p, d)
    p.write_text(good + "\n{oops\n")
    with pytest.raises(BundleError, match=r"workload\.jsonl:2:2: invalid JSON"):
        load_workloads(p, d)


def test_solution_rules(tmp_path: Path, scale_bundle: Path) -> None:
    raw = json.loads((scale_bundle / "solution.json").read_text())
    sol = load_solution(scale_bundle / "solution.json")
    assert sol.entry_file == "kernel.cu" and sol.entry_function == "run"
    assert sol.destination_passing_style and sol.cuda_cflags == ["-O3", "--use_fast_math"]

    def broken(mutate) -> str:
        r = json.loads(json.dumps(raw))
        mutate(r)
        p = tmp_path / "solution.json"
        p.write_text(json.dumps(r))
        with pytest.raises(BundleError) as e:
            load_solution(p)
        assert str(e.value).startswith(str(p))
        return str(e.value)

    assert "exactly one" in broken(lambda r: r["spec"].update(entry_point="kernel.cu:run"))
    assert "not among" in broken(lambda r: r["spec"].update(entry_point="other.cu::run"))
    assert "upper case" in broken(lambda r: r["spec"].update(target_hardware=["b200"]))
    assert ".." in broken(lambda r: r["sources"][0].update(path="../kernel.cu"))
    assert "empty content" in broken(lambda r: r["sources"][0].update(content=""))
    assert "C++ family" in broken(lambda r: r["spec"].update(languages=["triton"]))


def test_compiled_sources_are_top_level_only(tmp_path: Path, scale_bundle: Path) -> None:
    raw = json.loads((scale_bundle / "solution.json").read_text())
    raw["sources"] += [{"path": "detail/impl.cu", "content": "x"},
                       {"path": "helpers.cuh", "content": "x"},
                       {"path": "extra.cpp", "content": "x"}]
    p = tmp_path / "solution.json"
    p.write_text(json.dumps(raw))
    assert load_solution(p).compiled_sources() == ["kernel.cu", "extra.cpp"]


def test_mismatched_definition_name_is_a_bundle_error(tmp_path: Path, scale_bundle: Path) -> None:
    raw = json.loads((scale_bundle / "solution.json").read_text())
    raw["definition"] = "something_else"
    (tmp_path / "solution.json").write_text(json.dumps(raw))
    with pytest.raises(BundleError, match="something_else"):
        load_bundle(tmp_path, scale_bundle)


def test_sampling_probs_are_softmaxed_and_descriptions_reach_the_rules(tmp_path: Path) -> None:
    """The harness's one op_type rule: for op_type "sampling", a random input named `probs`
    is softmaxed over its last axis; a tensor's description feeds the mask rules."""
    inputs = {"probs": {"shape": ["n", "n"], "dtype": "float32"},
              "m": {"shape": ["n", "n"], "dtype": "float32", "description": "causal attention mask"}}
    p = _defn(tmp_path, {"n": {"type": "var"}}, inputs=inputs,
              reference="def run(probs, m):\n    return probs\n", op_type="sampling")
    d = load_definition(p)
    (tmp_path / "workload.jsonl").write_text(json.dumps(
        {"uuid": "u", "axes": {"n": 8}, "inputs": {"probs": {"type": "random"},
                                                   "m": {"type": "random"}}}) + "\n")
    w = load_workloads(tmp_path / "workload.jsonl", d)[0]
    probs, m = gen.generate_inputs(d, w, CPU)
    assert torch.allclose(probs.sum(-1), torch.ones(8)) and float(probs.min()) >= 0
    assert float(m[0, 1]) == torch.finfo(torch.float32).min and float(m[1, 0]) == 0.0
