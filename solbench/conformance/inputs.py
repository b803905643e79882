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


def rand_tensor(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """The plain rule: randn for floats (fp8 clamped to +-2), 0/1 for bool, ranged ints."""
    if dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
        return torch.randn(shape, dtype=dtype, device=device)
    if dtype in _FP8:
        return torch.randn(shape, dtype=torch.float32, device=device).clamp_(-2.0, 2.0).to(dtype)
    if dtype is torch.bool:
        return torch.randint(0, 2, shape, dtype=torch.bool, device=device)
    if dtype in _INT_RANGES:
        lo, hi = _INT_RANGES[dtype]
        return torch.randint(lo, hi, shape, dtype=dtype, device=device)
    raise ValueError(f"cannot generate random inputs of dtype {dtype}")


def random_scalar(dtype: torch.dtype) -> int | float | bool:
    return rand_tensor((), dtype, torch.device("cpu")).item()


# --- name rules ---------------------------------------------------------------------------------

_STAT_NAMES = ("rstd", "std", "var", "variance")
_SOFTMAX_NAMES = ("attn_weights", "routing_weights")


def _tokens(name: str) -> list[str]:
    return name.lower().split("_")


def name_rule(name: str, rank: int) -> str | None:
    """Which special rule applies to a floating input of this name and rank (None: plain randn)."""
    n = name.lower()
    toks = _tokens(n)
    if "mask" in n:
        return "causal_mask" if "causal" in n and rank >= 2 else "mask"
    if n in _SOFTMAX_NAMES or any(n.endswith("_" + s) for s in _SOFTMAX_NAMES):
        return "softmax"
    if n == "norm_weight" or (n.endswith("_weight") and n[: -len("_weight")].endswith("norm")):
        return "ones"
    if n == "norm_bias" or (n.endswith("_bias") and n[: -len("_bias")].endswith("norm")):
        return "zeros"
    if "cos" in toks or "sin" in toks:  # cos, sin, cos_cached, rope_sin, ...
        return "cos" if "cos" in toks else "sin"
    if n in _STAT_NAMES or any(n.startswith(s + "_") or n.endswith("_" + s) for s in _STAT_NAMES):
        return "positive"
    if rank >= 2 and (n == "weight" or n.endswith(("_weight", "_weights", "_proj", "_w"))
                      or n.startswith(("w_", "weight_"))):
        return "fan_in"
    return None


class _RoundState:
    """Per-round shared randomness: cos and sin inputs of one shape come from the same angles."""

    def __init__(self) -> None:
        self.angles: dict[tuple[int, ...], torch.Tensor] = {}

    def angle(self, shape: tuple[int, ...], device: torch.device) -> torch.Tensor:
        if shape not in self.angles:
            self.angles[shape] = torch.rand(shape, dtype=torch.float32, device=device) * (2 * math.pi)
        return self.angles[shape]


def make_tensor(spec_name: str, shape: tuple[int, ...], dtype: torch.dtype, device: torch.device,
                state: _RoundState | None = None) -> torch.Tensor:
    state = state or _RoundState()
    rule = name_rule(spec_name, len(shape))
    if rule in ("mask", "causal_mask"):
        if rule == "causal_mask":
            m = torch.ones(shape[-2:], dtype=torch.bool, device=device).tril()
            m = m.expand(shape).contiguous()
        else:
            m = torch.randint(0, 2, shape, dtype=torch.bool, device=device)
        return m.to(dtype)
    if not dtype.is_floating_point:
        return rand_tensor(shape, dtype, device)
    if rule is None:
        return rand_tensor(shape, dtype, device)
    if rule == "ones":
        return torch.ones(shape, dtype=dtype, device=device)
    if rule == "zeros":
        return torch.zeros(shape, dtype=dtype, device=device)
    if rule in ("cos", "sin"):
        a = state.angle(shape, device)
        return (torch.cos(a) if rule == "cos" else torch.sin(a)).to(dtype)
    base = torch.randn(shape, dtype=torch.float32, device=device)
    if rule == "positive":
        t = base.abs() + 0.1
    elif rule == "softmax":
        t = torch.softmax(base, dim=-1)
    else:  # fan_in
        t = base / math.sqrt(max(shape[-1], 1))
    if dtype in _FP8:
        t = t.clamp(-2.0, 2.0)
    return t.to(dtype)


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

    With to_tensor, Python scalars become 0-d tensors of the output dtype (for the reference);
    without it values are passed through untouched (the solution must return real tensors).
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
            out.append(v if device is None else v.to(device))
        elif isinstance(v, (bool, int, float)):
            out.append(torch.tensor(v, dtype=torch_dtype(spec.dtype), device=device))
        else:
            raise ValueError(f"output '{spec.name}' is a {type(v).__name__}, not a tensor")
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


def generate_inputs(defn: Definition, w: Workload, device: torch.device,
                    reference_ns: dict[str, Any] | None = None,
                    safetensors: SafetensorsCache | None = None) -> list[Any]:
    """One round of fresh inputs, in definition order."""
    axes = resolve_axes(defn, w.axes)
    if any(spec.get("type") == "custom" for spec in w.inputs.values()):
        return _custom_inputs(defn, w, axes, device, reference_ns)
    state = _RoundState()
    values: list[Any] = []
    for spec in defn.inputs:
        desc = w.inputs[spec.name]
        kind = desc["type"]
        dtype = torch_dtype(spec.dtype)
        shape = shape_of(spec, axes)
        if kind == "scalar":
            values.append(desc["value"])
        elif kind == "random":
            if shape is None:
                values.append(random_scalar(dtype))
            else:
                values.append(make_tensor(spec.name, shape, dtype, device, state))
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
