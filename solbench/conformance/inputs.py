"""Input generation by SOL-ExecBench's rules (sol-execbench.md §2), and the reference call."""

from __future__ import annotations

import inspect
import math
from pathlib import Path
from typing import Any, Callable

import torch

from .problem import Definition, TensorSpec, Workload, resolve_axes, shape_of

SEED = 200


def torch_dtype(name: str) -> torch.dtype:
    table = {
        "float64": torch.float64, "float32": torch.float32, "float16": torch.float16,
        "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32,
        "int16": torch.int16, "int8": torch.int8, "bool": torch.bool,
    }
    if name in table:
        return table[name]
    optional = {"float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
                "float4_e2m1": "float4_e2m1fn_x2", "float4_e2m1fn_x2": "float4_e2m1fn_x2"}
    attr = optional.get(name)
    if attr is not None and hasattr(torch, attr):
        return getattr(torch, attr)
    raise ValueError(f"dtype {name!r} is not supported by this torch build")


_FP8 = {getattr(torch, n) for n in ("float8_e4m3fn", "float8_e5m2") if hasattr(torch, n)}
_INT_RANGES = {torch.int8: (-128, 128), torch.int16: (-1024, 1024),
               torch.int32: (-1024, 1024), torch.int64: (-1024, 1024)}


class InputError(Exception):
    """The harness cannot generate this input (-> RUNTIME_ERROR, "gen_inputs failed")."""


def rand_tensor(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """The plain rule: randn for floats (fp8 clamped to +-2), 0/1 for bool, ranged ints.

    float64 has no plain rule in the harness (io.py, _rand_tensor raises "Unsupported random
    dtype"): only a name rule, a scalar, safetensors or custom input can give one."""
    if dtype is torch.float64:
        raise InputError("the harness cannot generate a random float64 input (no rule in its "
                         "io._rand_tensor): give it a name rule, or make it a scalar, "
                         "safetensors or custom input")
    if dtype in (torch.float32, torch.float16, torch.bfloat16):
        return torch.randn(shape, dtype=dtype, device=device)
    if dtype in _FP8:
        return torch.randn(shape, dtype=torch.float32, device=device).clamp_(-2.0, 2.0).to(dtype)
    if dtype is torch.bool:
        return torch.randint(0, 2, shape, dtype=torch.bool, device=device)
    if dtype in _INT_RANGES:
        lo, hi = _INT_RANGES[dtype]
        return torch.randint(lo, hi, shape, dtype=dtype, device=device)
    raise InputError(f"cannot generate random inputs of dtype {dtype}")


def random_scalar(dtype: torch.dtype) -> int | float | bool:
    return rand_tensor((), dtype, torch.device("cpu")).item()


# --- name rules ---------------------------------------------------------------------------------
# The harness's own rules for a `random` input (SOL-ExecBench v1.0.2, core/bench/io.py,
# _generate_heuristic_tensor), one function per rule and tried in its order. They apply only
# to floating dtypes other than FP8/FP4; everything else is plain random (rand_tensor).

def _strip_digits(name: str) -> str:
    return name.rstrip("0123456789")


def _is_norm_param(name: str, kind: str) -> bool:
    """`norm_<kind>`, or `<...norm>_<kind>` / `<...layernorm>_<kind>`, digits before `_<kind>`
    allowed (kind: weight or bias)."""
    if name == f"norm_{kind}":
        return True
    if not name.endswith(f"_{kind}"):
        return False
    prefix = name[: -len(kind) - 1]
    return prefix.endswith(("_norm", "_layernorm", "layernorm")) or \
        _strip_digits(prefix).endswith(("norm", "layernorm"))


def _is_causal_mask(name: str, shape: tuple[int, ...], description: str | None) -> bool:
    """Square in its last two axes, and named attention_mask/causal_mask or described so."""
    if len(shape) < 2 or shape[-1] != shape[-2]:
        return False
    d = (description or "").lower()
    return name in ("attention_mask", "causal_mask") or ("attention mask" in d and "causal" in d)


_BINARY_MASKS = ("x_mask", "text_mask", "aspect_ratio_mask", "drop_mask", "attention_mask")
_BINARY_WORDS = ("binary", "{0, 1}", "0 or 1", "1.0 for valid", "0.0 for masked")


def _is_binary_mask(name: str, description: str | None) -> bool:
    if name in _BINARY_MASKS:
        return True
    d = (description or "").lower()
    return name.endswith("_mask") and any(w in d for w in _BINARY_WORDS)


_COS_NAMES = ("cos", "cos_cached", "rope_cos")
_SIN_NAMES = ("sin", "sin_cached", "rope_sin")


def _is_positive(name: str) -> bool:
    stats = ("rstd", "std", "variance", "var")
    base = _strip_digits(name)
    return name in stats or name.endswith(("_rstd", "_std", "_variance", "_var")) or \
        base in stats or base.endswith(("_rstd", "_std", "_var"))


_SSM_DECAY = ("A", "A_log", "A_cumsum", "g")
_SOFTMAX_NAMES = ("attn_weights", "attention_weights", "routing_weights")
_WEIGHT_SUFFIXES = ("_weight", "_weights", "_proj", "_projs", "_proj_weight", "_proj_weights",
                    "_weight_matrix")


def _is_softmax_output(name: str, description: str | None) -> bool:
    d = (description or "").lower()
    return name in _SOFTMAX_NAMES or ("softmax" in d and "output" in d)


def _is_weight_matrix(name: str, shape: tuple[int, ...]) -> bool:
    if len(shape) < 2:
        return False
    base = _strip_digits(name)
    return name == "weight" or name.endswith(_WEIGHT_SUFFIXES) or base == "weight" or \
        base.endswith(_WEIGHT_SUFFIXES)


def name_rule(name: str, shape: tuple[int, ...], dtype: torch.dtype = torch.float32,
              description: str | None = None) -> str | None:
    """The harness rule for a random input of this name, shape and dtype (None: plain random)."""
    if not dtype.is_floating_point or dtype in _FP8 or "float4" in str(dtype):
        return None
    if _is_norm_param(name, "weight"):
        return "ones"
    if _is_norm_param(name, "bias"):
        return "zeros"
    if _is_causal_mask(name, shape, description):
        return "causal_mask"
    if _is_binary_mask(name, description):
        return "binary_mask"
    if name in _COS_NAMES:
        return "cos"
    if name in _SIN_NAMES:
        return "sin"
    if _is_positive(name):
        return "positive"
    if name in _SSM_DECAY:
        return {"A": "ssm_a", "A_log": "ssm_a_log", "A_cumsum": "ssm_a_cumsum", "g": "ssm_g"}[name]
    if _is_softmax_output(name, description):
        return "softmax"
    if _is_weight_matrix(name, shape):
        return "fan_in"
    return None


def make_tensor(spec_name: str, shape: tuple[int, ...], dtype: torch.dtype, device: torch.device,
                description: str | None = None) -> torch.Tensor:
    """One random input as the harness makes it (its rule, else plain random)."""
    rule = name_rule(spec_name, shape, dtype, description)
    if rule is None:
        return rand_tensor(shape, dtype, device)
    if rule == "ones":
        return torch.ones(shape, dtype=dtype, device=device)
    if rule == "zeros":
        return torch.zeros(shape, dtype=dtype, device=device)
    if rule == "causal_mask":  # additive: 0 on and below the diagonal, the dtype's min above
        mask = torch.zeros(shape, dtype=dtype, device=device)
        above = torch.triu(torch.ones(shape[-1], shape[-1], device=device), diagonal=1).bool()
        mask[..., above] = torch.finfo(dtype).min
        return mask
    if rule == "binary_mask":
        return torch.randint(0, 2, shape, device=device).to(dtype)
    if rule in ("cos", "sin"):  # of an angle drawn for this tensor, randn clamped to +-pi
        angle = torch.randn(shape, dtype=torch.float32, device=device).clamp_(-math.pi, math.pi)
        return (torch.cos(angle) if rule == "cos" else torch.sin(angle)).to(dtype)
    if rule == "positive":
        return torch.randn(shape, dtype=dtype, device=device).abs() + 0.1
    if rule == "ssm_a_cumsum":
        return torch.empty(shape, dtype=dtype, device=device).uniform_(-0.1, 0.0).cumsum(dim=-1)
    if rule.startswith("ssm_"):
        lo, hi = {"ssm_a_log": (-5.0, -1.0), "ssm_a": (-1.0, -0.001), "ssm_g": (-5.0, 0.0)}[rule]
        return torch.empty(shape, dtype=dtype, device=device).uniform_(lo, hi)
    if rule == "softmax":
        return torch.softmax(torch.randn(shape, dtype=torch.float32, device=device), dim=-1).to(dtype)
    # fan_in: a weight matrix, randn / sqrt(its last axis)
    return torch.randn(shape, dtype=dtype, device=device) / math.sqrt(shape[-1])


# --- the reference ------------------------------------------------------------------------------


class ReferenceError(Exception):
    """The definition's reference cannot be loaded or run (-> INVALID_REFERENCE)."""


def load_reference(defn: Definition) -> dict[str, Any]:
    """Exec the reference source; check that run()'s parameters are the inputs, in order."""
    ns: dict[str, Any] = {"__name__": "solbench_reference"}
    try:
        code = compile(defn.reference, f"{defn.path}:reference", "exec")
        exec(code, ns)  # noqa: S102 - the reference is trusted problem code, as in the harness
    except Exception as e:
        raise ReferenceError(f"reference does not load: {type(e).__name__}: {e}") from e
    run = ns.get("run")
    if not callable(run):
        raise ReferenceError("reference defines no top-level run()")
    try:
        params = [p.name for p in inspect.signature(run).parameters.values()]
    except (TypeError, ValueError):
        params = None
    if params is not None and params != defn.input_names:
        raise ReferenceError(f"reference run{tuple(params)} parameters must equal the inputs "
                             f"{tuple(defn.input_names)}, in order")
    if defn.custom_inputs_entrypoint and not callable(ns.get(defn.custom_inputs_entrypoint)):
        raise ReferenceError(f"custom_inputs_entrypoint {defn.custom_inputs_entrypoint!r} "
                             "is not a function of the reference")
    return ns


def normalize_outputs(result: Any, outputs: list[TensorSpec], *, to_tensor: bool,
                      device: torch.device | None = None) -> list[Any]:
    """A run() result (tensor, tuple/list in outputs order, or dict) as a list in outputs order.

    With to_tensor, a value that is not a tensor becomes one of the output dtype, as the
    harness does for the reference and the solution alike (core/bench/io.py, normalize_outputs);
    without it values are passed through untouched.
    """
    names = [s.name for s in outputs]
    if isinstance(result, dict):
        missing = [n for n in names if n not in result]
        if missing:
            raise ValueError(f"returned dict lacks outputs {missing}")
        values = [result[n] for n in names]
    elif isinstance(result, (tuple, list)):
        if len(result) != len(names):
            raise ValueError(f"returned {len(result)} values but {len(names)} outputs are defined")
        values = list(result)
    else:
        if len(names) != 1:
            raise ValueError(f"returned a single value but {len(names)} outputs are defined")
        values = [result]
    if not to_tensor:
        return values
    out = []
    for spec, v in zip(outputs, values):
        if isinstance(v, torch.Tensor):
            out.append(v if device is None or v.device == device else v.to(device))
        else:  # as the harness's to_tensor: anything torch.tensor takes, in the output dtype
            try:
                out.append(torch.tensor(v, dtype=torch_dtype(spec.dtype), device=device))
            except (TypeError, ValueError, RuntimeError) as e:
                raise ValueError(f"output '{spec.name}' is a {type(v).__name__}, not a tensor: "
                                 f"{e}") from None
    return out


# --- generating one round's inputs --------------------------------------------------------------


class SafetensorsCache:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, dict[str, torch.Tensor]] = {}

    def get(self, rel_path: str, key: str) -> torch.Tensor:
        try:
            from safetensors.torch import load_file  # type: ignore[import-not-found]
        except ImportError:
            raise RuntimeError("workload uses safetensors inputs but the 'safetensors' package "
                               "is not installed (pip install safetensors)") from None
        path = Path(rel_path)
        if not path.is_absolute():
            path = self.root / path
        if str(path) not in self.files:
            self.files[str(path)] = load_file(str(path))
        tensors = self.files[str(path)]
        if key not in tensors:
            raise ValueError(f"{path}: no tensor named {key!r}")
        return tensors[key]


_RANDOM = {"type": "random"}


def generate_inputs(defn: Definition, w: Workload, device: torch.device,
                    reference_ns: dict[str, Any] | None = None,
                    safetensors: SafetensorsCache | None = None) -> list[Any]:
    """One round of fresh inputs, in definition order."""
    axes = resolve_axes(defn, w.axes)
    if any(spec.get("type") == "custom" for spec in w.inputs.values()):
        return _custom_inputs(defn, w, axes, device, reference_ns)
    values: list[Any] = []
    for spec in defn.inputs:
        desc = w.inputs.get(spec.name, _RANDOM)  # undescribed: random, as in the harness
        kind = desc["type"]
        dtype = torch_dtype(spec.dtype)
        shape = shape_of(spec, axes)
        if kind == "scalar":
            values.append(desc["value"])
        elif kind == "random":
            if shape is None:
                values.append(random_scalar(dtype))
            else:
                t = make_tensor(spec.name, shape, dtype, device, spec.description)
                if defn.op_type == "sampling" and spec.name == "probs":
                    t = torch.softmax(t, dim=-1)  # the harness's one op_type rule
                values.append(t)
        elif kind == "safetensors":
            if safetensors is None:
                raise RuntimeError("safetensors inputs need a problem directory")
            t = safetensors.get(desc["path"], desc["tensor_key"])
            if shape is not None and tuple(t.shape) != shape:
                raise ValueError(f"safetensors input '{spec.name}': shape {tuple(t.shape)}, "
                                 f"expected {shape}")
            if t.dtype != dtype:
                raise ValueError(f"safetensors input '{spec.name}': dtype {t.dtype}, expected {dtype}")
            values.append(t.to(device).contiguous().clone())
        else:
            raise ValueError(f"unknown input kind {kind!r}")
    return values


def _custom_inputs(defn: Definition, w: Workload, axes: dict[str, int], device: torch.device,
                   ns: dict[str, Any] | None) -> list[Any]:
    entry = defn.custom_inputs_entrypoint
    fn: Callable[..., Any] | None = ns.get(entry) if (ns is not None and entry) else None
    if fn is None:
        raise ValueError("custom inputs need the definition's custom_inputs_entrypoint")
    scalars = {k: v["value"] for k, v in w.inputs.items() if v.get("type") == "scalar"}
    made = fn({**axes, **scalars}, device)
    if not isinstance(made, dict):
        raise ValueError(f"custom inputs must be a dict, got {type(made).__name__}")
    values = []
    for spec in defn.inputs:
        if spec.name not in w.inputs:  # undescribed: random, even beside custom ones
            shape = shape_of(spec, axes)
            dtype = torch_dtype(spec.dtype)
            values.append(random_scalar(dtype) if shape is None else
                          make_tensor(spec.name, shape, dtype, device, spec.description))
            continue
        if spec.name not in made:
            raise ValueError(f"custom inputs lack '{spec.name}'")
        v = made[spec.name]
        shape = shape_of(spec, axes)
        if shape is None and not isinstance(v, (bool, int, float)):
            raise ValueError(f"custom input '{spec.name}' must be a Python scalar")
        if shape is not None and (not isinstance(v, torch.Tensor) or tuple(v.shape) != shape):
            raise ValueError(f"custom input '{spec.name}' must be a tensor of shape {shape}")
        values.append(v)
    return values
