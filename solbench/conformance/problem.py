"""Loading and validating a problem (definition.json, workload.jsonl) and a bundle (solution.json).

Values are coerced as the harness's pydantic models coerce them (coerce.py). Every error is a BundleError whose message starts with `file[:line[:col]]:`.
"""

from __future__ import annotations

import ast
import json
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import coerce

DTYPES = (
    "float64 float32 float16 bfloat16 float8_e4m3fn float8_e5m2 float4_e2m1 float4_e2m1fn_x2 "
    "int64 int32 int16 int8 bool"
).split()

CPP_SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")
CPP_ENTRY_SUFFIXES = CPP_SOURCE_SUFFIXES + (".h", ".hpp", ".cuh")
CPP_LANGUAGES = {"cuda_cpp", "cutlass", "cudnn", "cublas"}
PY_LANGUAGES = {"pytorch", "triton", "cute_dsl", "cutile", "cudnn_frontend"}
DEFAULT_CUDA_CFLAGS = ["-O3", "--use_fast_math"]
DEFAULT_LD_FLAGS = ["-lcuda"]


class BundleError(Exception):
    """A problem or bundle file is missing or malformed; the message names the file."""


def _where(path: Path, line: int | None = None, col: int | None = None) -> str:
    out = str(path)
    if line is not None:
        out += f":{line}"
        if col is not None:
            out += f":{col}"
    return out


_MAX_MESSAGE = 4096


def _fail(path: Path, msg: str, line: int | None = None, col: int | None = None) -> BundleError:
    # Messages quote names, paths and expressions from the file, and those are not bounded
    # (a 1 MB source path made a 1 MB message): one place keeps every message readable.
    if len(msg) > _MAX_MESSAGE:
        msg = msg[:_MAX_MESSAGE] + f"... ({len(msg)} characters)"
    return BundleError(f"{_where(path, line, col)}: {msg}")


def _read_text(path: Path) -> str:
    """The file's UTF-8 text, or a ProblemError naming the file and why it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _fail(path, "file not found") from None
    except UnicodeDecodeError as e:
        raise _fail(path, f"not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise _fail(path, f"cannot read: {e.strerror}") from None


def _read_json(path: Path) -> Any:
    return _loads(path, _read_text(path))


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json keeps the last of duplicate keys silently; a metadata file with two "name"s is
    # ambiguous, so it is refused (solgen refuses such a definition.json too).
    obj: dict[str, Any] = {}
    for k, v in pairs:
        if k in obj:
            raise _DuplicateKey(k)
        obj[k] = v
    return obj


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_lone_surrogate(obj: Any) -> bool:
    """Whether a decoded JSON value holds a lone surrogate in any string or key."""
    stack = [obj]
    while stack:  # not recursive: the value may be nested as deeply as json allows
        v = stack.pop()
        if isinstance(v, str):
            if _SURROGATE.search(v):
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def _loads(path: Path, text: str, line: int | None = None) -> Any:
    try:
        obj = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as e:
        raise _fail(path, f"duplicate key {_short(e.args[0])} in an object", line) from None
    except json.JSONDecodeError as e:
        raise _fail(path, f"invalid JSON: {e.msg}", line or e.lineno, e.colno) from None
    except RecursionError:
        raise _fail(path, "JSON nested too deeply", line) from None
    except ValueError:
        # Not a JSONDecodeError: an integer of more digits than int() converts (4300 by
        # default) escaped as a traceback. The harness's reader refuses it as well.
        raise _fail(path, "invalid JSON: a number too long to read", line) from None
    # json decodes "\ud800" to a lone surrogate, which is no character: compile() (the
    # reference) then raised UnicodeEncodeError. The harness's reader (pydantic) and solgen
    # refuse such an escape, so it is refused here too.
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(obj):
        raise _fail(path, "invalid JSON: a \\u escape of a lone surrogate (D800-DFFF) is no "
                    "character", line)
    return obj


def _expect(cond: bool, path: Path, msg: str, line: int | None = None) -> None:
    if not cond:
        raise _fail(path, msg, line)


# ---------------------------------------------------------------------------------------------
# definition.json


@dataclass(frozen=True)
class Axis:
    name: str
    kind: str  # "const" | "var" | "expr"
    value: int | None = None
    expression: str | None = None


@dataclass(frozen=True)
class TensorSpec:
    name: str
    shape: tuple[str, ...] | None  # None: a Python scalar
    dtype: str
    description: str | None = None  # some input rules of the harness read it


@dataclass
class Definition:
    name: str
    axes: dict[str, Axis]
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    reference: str
    custom_inputs_entrypoint: str | None
    op_type: str | None
    path: Path
    raw: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def input_names(self) -> list[str]:
        return [s.name for s in self.inputs]

    @property
    def output_names(self) -> list[str]:
        return [s.name for s in self.outputs]


def lax_size(v: Any) -> int | None:
    """A NonNegativeInt as the harness's pydantic model reads it (4, 4.0, "4"); None if not."""
    return coerce.size(v)


def _short(v: Any, limit: int = 80) -> str:
    """A value from the file, quoted and cut to a readable length for a message."""
    text = repr(v)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _axis_kind(spec: dict[str, Any]) -> Any:
    """The harness's axis union has no discriminator and every member a default type, so
    pydantic takes the member that validates: without 'type', an axis with a valid value is
    const, one with a non-empty expression string expr, any other var (the rest ignored)."""
    if "type" in spec:
        return spec["type"]
    if "value" in spec and lax_size(spec["value"]) is not None:
        return "const"
    expr = spec.get("expression")
    return "expr" if isinstance(expr, str) and expr != "" else "var"


def _optional_text(path: Path, raw: dict[str, Any], key: str, non_empty: bool,
                   where: str = "") -> str | None:
    """An optional string field: absent or null is None; NonEmptyString fields refuse "".

    where: the JSON pointer of the object holding it, for the message ("/axes/M/")."""
    v = raw.get(key)
    if v is None:
        return None
    _expect(isinstance(v, str), path, f"'{where}{key}' must be a string or null")
    if non_empty:
        _expect(v != "", path,
                f"'{where}{key}' must not be empty (the harness rejects \"\"; write null)")
    return v


def _load_axes(path: Path, raw: Any) -> dict[str, Axis]:
    _expect(isinstance(raw, dict), path, "'axes' must be an object")
    axes: dict[str, Axis] = {}
    for name, spec in raw.items():
        _expect(isinstance(spec, dict), path, f"axis '{name}' must be an object")
        _optional_text(path, spec, "description", False, f"/axes/{name[:80]}/")  # AxisSpec
        kind = _axis_kind(spec)
        if kind == "const":
            value = lax_size(spec.get("value"))
            _expect(value is not None, path,
                    f"const axis '{name}' needs a non-negative integer 'value'")
            axes[name] = Axis(name, "const", value=value)
        elif kind == "var":
            axes[name] = Axis(name, "var")
        elif kind == "expr":
            expr = spec.get("expression")
            _expect(isinstance(expr, str) and expr.strip() != "", path,
                    f"expr axis '{name}' needs an 'expression' string")
            try:
                _check_expression(expr, set(raw))
            except ValueError as e:
                raise _fail(path, f"axis '{name}': {e}") from None
            axes[name] = Axis(name, "expr", expression=expr)
        else:
            raise _fail(path, f"axis {_short(name)} has unknown type {_short(kind)} "
                        "(const, var or expr)")
    return axes


def _load_tensor_specs(path: Path, raw: Any, what: str, axes: dict[str, Axis]) -> list[TensorSpec]:
    _expect(isinstance(raw, dict), path, f"'{what}' must be an object")
    specs = []
    for name, spec in raw.items():
        _expect(isinstance(spec, dict), path, f"{what} '{name}' must be an object")
        description = _optional_text(path, spec, "description", False,
                                     f"/{what}/{name[:80]}/")  # TensorSpec.description
        dtype = spec.get("dtype")
        _expect(dtype in DTYPES, path, f"{what} {_short(name)} has unknown dtype {_short(dtype)}")
        _expect("shape" in spec, path, f"{what} '{name}' needs a 'shape' (null for a scalar)")
        shape = spec["shape"]
        if shape is not None:
            _expect(isinstance(shape, list) and all(isinstance(a, str) and a for a in shape),
                    path, f"{what} '{name}': 'shape' must be a list of axis names or null")
            for a in shape:  # a digit string is a literal size ("1" in [M, "1"])
                _expect(_is_literal(a) or a in axes, path,
                        f"{what} {_short(name)}: shape names undefined axis {_short(a)}")
                _expect(not _is_literal(a) or len(a) <= 18, path,  # as solgen: < 10^18
                        f"{what} {_short(name)}: literal size {_short(a)} is too large")
            shape = tuple(shape)
        specs.append(TensorSpec(name, shape, dtype, description))
    return specs


def _is_literal(entry: str) -> bool:
    """A shape entry that is a literal size. isdecimal, not isdigit (what the harness tests):
    "²" is a digit that int() cannot read, so shape_of raised ValueError on it; solgen refuses
    it as an undefined axis."""
    return entry.isdecimal()


def _check_reference(path: Path, reference: str, inputs: list[str]) -> None:
    """As the harness's Definition validators: a top-level (non-async) `def run` whose
    positional parameters are the inputs, in order (outputs are returned, never passed)."""
    try:
        module = ast.parse(reference)
    except SyntaxError as e:
        raise _fail(path, f"'reference' is not valid Python: {e.msg} (line {e.lineno})") from None
    except (RecursionError, MemoryError, ValueError):
        # Python's parser gives up on deep nesting with RecursionError or MemoryError ("too
        # complex"); these escaped as tracebacks. ValueError: null bytes on some versions.
        raise _fail(path, "'reference' is not valid Python: too deeply nested or too complex "
                    "for Python's parser") from None
    runs = [n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "run"]
    _expect(bool(runs), path, "'reference' defines no top-level run()")
    args = runs[-1].args
    params = [a.arg for a in args.posonlyargs + args.args]
    _expect(params == inputs, path,
            f"'reference': run({', '.join(params)}) must take the inputs in order: "
            f"run({', '.join(inputs)})")


def load_definition(path: Path) -> Definition:
    path = Path(path)
    raw = _read_json(path)
    _expect(isinstance(raw, dict), path, "top level must be an object")
    name = raw.get("name")
    _expect(isinstance(name, str) and name != "", path, "'name' must be a non-empty string")
    axes = _load_axes(path, raw.get("axes", {}))
    inputs = _load_tensor_specs(path, raw.get("inputs"), "inputs", axes)
    outputs = _load_tensor_specs(path, raw.get("outputs"), "outputs", axes)
    in_names = {s.name for s in inputs}
    for s in inputs:
        _expect(s.name not in axes, path, f"input '{s.name}' has the name of an axis")
    for s in outputs:
        _expect(s.name not in in_names, path, f"output '{s.name}' has the name of an input")
    reference = raw.get("reference")
    _expect(isinstance(reference, str) and reference.strip() != "", path,
            "'reference' must be Python source defining run()")
    _check_reference(path, reference, [s.name for s in inputs])
    entry = _optional_text(path, raw, "custom_inputs_entrypoint", non_empty=True)
    op_type = _optional_text(path, raw, "op_type", non_empty=True)
    _optional_text(path, raw, "hf_id", non_empty=True)
    _optional_text(path, raw, "description", non_empty=False)
    return Definition(name, axes, inputs, outputs, reference, entry, op_type, path, raw)


# ---------------------------------------------------------------------------------------------
# Axis expressions: arithmetic over axis names only, evaluated without eval().

_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNOPS = {ast.UAdd: operator.pos, ast.USub: operator.neg}


_MAX_DEPTH = 100  # of an axis expression's tree; published ones are a few levels deep


def _parse_expression(expr: str) -> ast.expr:
    try:
        root = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"cannot parse expression {expr!r}: {e.msg}") from None
    except (RecursionError, MemoryError):  # "-" * 5000 + "M" escaped as RecursionError
        raise ValueError(f"expression {_short(expr)} is nested too deeply") from None
    # Whether Python's parser gives up depends on the recursion limit of the process, so the
    # depth is bounded here too: the verdict is the same in any process, and the evaluator's
    # recursion stays shallow.
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > _MAX_DEPTH:
            raise ValueError(f"expression {_short(expr)} is nested too deeply")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return root


# Bits of the largest intermediate value of an axis expression. Without a bound
# "(((M**64)**64)**64)**64" took 17 s (47 million bits; one level more runs out of memory)
# and "(M**64)**64 / 3" raised OverflowError; no size comes near 2^1024.
_MAX_BITS = 1024


def _names_in(node: ast.expr) -> set[str]:
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            names.add(sub.id)
        elif not isinstance(sub, (ast.BinOp, ast.UnaryOp, ast.Constant, ast.Load, ast.operator,
                                  ast.unaryop)):
            raise ValueError(f"only arithmetic over axis names is allowed, found {type(sub).__name__}")
        elif isinstance(sub, ast.BinOp) and type(sub.op) not in _BINOPS:
            raise ValueError(f"operator {type(sub.op).__name__} is not allowed")
        elif isinstance(sub, ast.Constant) and (
            isinstance(sub.value, bool) or not isinstance(sub.value, (int, float))
        ):
            raise ValueError(f"constant {sub.value!r} is not a number")
    return names


def _check_expression(expr: str, axis_names: set[str]) -> None:
    for n in _names_in(_parse_expression(expr)):
        if n not in axis_names:
            raise ValueError(f"expression {expr!r} names unknown axis '{n}'")


def eval_expression(expr: str, values: dict[str, int]) -> int:
    """Evaluate an axis expression over known axis values; the result must be a whole number."""

    def ev(node: ast.expr) -> int | float:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in values:
                raise ValueError(f"axis '{node.id}' has no value")
            return values[node.id]
        if isinstance(node, ast.UnaryOp):
            return _UNOPS[type(node.op)](ev(node.operand))
        if isinstance(node, ast.BinOp):
            lhs, rhs = ev(node.left), ev(node.right)
            if isinstance(node.op, (ast.Pow,)) and abs(rhs) > 64:
                raise ValueError("exponent too large")
            if (isinstance(node.op, ast.Pow) and isinstance(lhs, int)
                    and lhs.bit_length() * abs(rhs) > _MAX_BITS):
                raise ValueError(f"expression {_short(expr)}: a power over 2^{_MAX_BITS}")
            try:
                out = _BINOPS[type(node.op)](lhs, rhs)
            except ZeroDivisionError:
                raise ValueError(f"division by zero in {expr!r}") from None
            except OverflowError:  # a float out of range, or a huge int divided with /
                raise ValueError(f"expression {_short(expr)} overflows a float") from None
            if isinstance(out, complex):  # (-8) ** 0.5
                raise ValueError(f"expression {_short(expr)} is not a real number")
            if isinstance(out, int) and out.bit_length() > _MAX_BITS:
                raise ValueError(f"expression {_short(expr)}: a value over 2^{_MAX_BITS}")
            return out
        raise ValueError(f"unsupported syntax in {expr!r}")

    root = _parse_expression(expr)
    _names_in(root)  # reject anything but arithmetic before evaluating
    try:
        result = ev(root)
    except RecursionError:  # a tree ast.parse built may still be too deep to walk here
        raise ValueError(f"expression {_short(expr)} is nested too deeply") from None
    if isinstance(result, float):
        if not result.is_integer():
            raise ValueError(f"expression {expr!r} is not a whole number ({result})")
        result = int(result)
    return result


def resolve_axes(defn: Definition, var_values: dict[str, Any]) -> dict[str, int]:
    """All axis values: const from the definition, var from the workload, expr evaluated."""
    values: dict[str, int] = {}
    for axis in defn.axes.values():
        if axis.kind == "const":
            values[axis.name] = int(axis.value or 0)
        elif axis.kind == "var":
            v = lax_size(var_values.get(axis.name))  # pydantic coerces "3" and 3.0 to 3
            if v is None:
                raise ValueError(f"var axis '{axis.name}' needs a non-negative integer value")
            values[axis.name] = v
    pending = [a for a in defn.axes.values() if a.kind == "expr"]
    # Each expression is parsed once: parsing it on every pass was quadratic in the number
    # of chained expr axes (and it runs for every workload line).
    needed = {a.name: _names_in(_parse_expression(a.expression or "")) for a in pending}
    while pending:  # exprs may use other exprs; resolve until no progress
        progressed = False
        for axis in list(pending):
            if needed[axis.name] <= values.keys():
                v = eval_expression(axis.expression or "", values)
                # A negative size went on to shape_of and torch.empty; the harness has no
                # rule for it either, and no tensor has such a dimension.
                if v < 0:
                    raise ValueError(f"expr axis {_short(axis.name)} is {v}: not a size")
                values[axis.name] = v
                pending.remove(axis)
                progressed = True
        if not progressed:
            raise ValueError("cyclic axis expressions: " + ", ".join(a.name for a in pending))
    return values


def shape_of(spec: TensorSpec, axes: dict[str, int]) -> tuple[int, ...] | None:
    """Sizes of a shape; a digit entry is a literal size, a repeated name the same size twice."""
    if spec.shape is None:
        return None
    return tuple(int(a) if _is_literal(a) else axes[a] for a in spec.shape)


# ---------------------------------------------------------------------------------------------
# workload.jsonl


@dataclass(frozen=True)
class Tolerance:
    max_atol: float = 1e-2
    max_rtol: float = 1e-2
    required_matched_ratio: float = 0.99
    max_error_cap: float | None = None
    allow_negative_inf: bool = False

    @staticmethod
    def from_json(raw: Any) -> "Tolerance":
        """Each field coerced as pydantic does ("1e-5" is a number); unknown keys are ignored, as
        the harness does. CoercionError names a field the harness would reject."""
        if not isinstance(raw, dict):
            return Tolerance()
        d = Tolerance()

        def field_(key: str, read: Any, default: Any) -> Any:
            if key not in raw:
                return default
            try:
                return read(raw[key])
            except coerce.CoercionError:
                raise coerce.CoercionError(key) from None

        return Tolerance(
            max_atol=field_("max_atol", coerce.number, d.max_atol),
            max_rtol=field_("max_rtol", coerce.number, d.max_rtol),
            required_matched_ratio=field_("required_matched_ratio", coerce.number,
                                          d.required_matched_ratio),
            max_error_cap=field_("max_error_cap", coerce.optional_number, d.max_error_cap),
            allow_negative_inf=field_("allow_negative_inf", coerce.flag, d.allow_negative_inf),
        )


@dataclass
class Workload:
    uuid: str
    axes: dict[str, int]  # the var axes, as written
    inputs: dict[str, dict[str, Any]]
    tolerance: Tolerance
    line: int
    raw: dict[str, Any] = field(repr=False, default_factory=dict)
    # What the harness accepts silently but an author likely did not mean (an input the
    # workload does not describe is generated as random; one the definition lacks is ignored).
    notes: list[str] = field(default_factory=list)


_INPUT_KINDS = ("random", "scalar", "safetensors", "custom")


def _check_workload(path: Path, line: int, raw: Any, defn: Definition | None) -> Workload:
    _expect(isinstance(raw, dict), path, "a workload must be a JSON object", line)
    uid = raw.get("uuid")
    _expect(isinstance(uid, str) and uid != "", path, "'uuid' must be a non-empty string", line)
    axes = raw.get("axes", {})
    _expect(isinstance(axes, dict), path, "'axes' must be an object", line)
    inputs = raw.get("inputs", {})
    _expect(isinstance(inputs, dict), path, "'inputs' must be an object", line)
    kinds = set()
    coerced: dict[str, dict[str, Any]] = {}
    for name, spec in inputs.items():
        _expect(isinstance(spec, dict) and spec.get("type") in _INPUT_KINDS, path,
                f"input '{name}' needs type random|scalar|safetensors|custom", line)
        kinds.add(spec["type"])
        coerced[name] = dict(spec)
        if spec["type"] == "scalar":
            _expect("value" in spec, path, f"scalar input '{name}' needs a 'value'", line)
            try:  # ScalarInput.value: "1e-05" is 1e-05 to the harness
                coerced[name]["value"] = coerce.scalar(spec["value"])
            except coerce.CoercionError:
                raise _fail(path, f"scalar input '{name}': value {_short(spec['value'])} is not "
                            "an int, float or bool (as the harness reads it)", line) from None
        if spec["type"] == "safetensors":
            _expect(isinstance(spec.get("path"), str) and spec["path"] != "" and
                    isinstance(spec.get("tensor_key"), str) and spec["tensor_key"] != "",
                    path, f"safetensors input '{name}' needs non-empty 'path' and 'tensor_key'",
                    line)
    _expect(not ("custom" in kinds and len(kinds) > 1), path,
            "custom inputs may not be mixed with other kinds", line)
    notes: list[str] = []
    if defn is not None:
        for axis in defn.axes.values():
            if axis.kind == "var":
                v = axes.get(axis.name)
                _expect(lax_size(v) is not None, path,  # pydantic coerces "7" and 7.0 to 7
                        f"var axis '{axis.name}' needs a non-negative integer", line)
        known = {spec.name for spec in defn.inputs}
        for name in inputs:
            if name not in known:
                _expect(inputs[name]["type"] != "safetensors", path,
                        f"safetensors input '{name}' is not an input of the definition", line)
                notes.append(f"input '{name}' is not an input of the definition: the harness "
                             "ignores it")
        for spec in defn.inputs:
            if spec.name not in inputs:
                notes.append(f"input '{spec.name}' is not described: the harness generates it "
                             "as random")
        if "custom" in kinds:
            _expect(defn.custom_inputs_entrypoint is not None, path,
                    "custom inputs need the definition's custom_inputs_entrypoint", line)
        try:
            resolve_axes(defn, axes)
        except ValueError as e:
            raise _fail(path, str(e), line) from None
    tol = raw.get("tolerance")
    _expect("tolerance" not in raw or isinstance(tol, dict), path,  # null is no ToleranceSpec
            "'tolerance' must be an object (leave it out for the defaults)", line)
    try:
        tolerance = Tolerance.from_json(tol)
    except coerce.CoercionError as e:
        raise _fail(path, f"tolerance '{e}' must be a number (or, for allow_negative_inf, a "
                    "boolean) as the harness reads it", line) from None
    return Workload(uid, dict(axes), coerced, tolerance, line, raw, notes)


def load_workloads(path: Path, defn: Definition | None = None) -> list[Workload]:
    path = Path(path)
    # Lines as the harness's load_jsonl_file reads them (`for line in f`, then strip()):
    # split at "\n" only (read_text has made "\r\n" and "\r" one). splitlines() also split
    # at U+2028, U+0085 and \x0c..., which JSON allows raw inside a string.
    lines = _read_text(path).split("\n")
    out = []
    for i, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        out.append(parse_workload_line(path, i, text.strip(), defn))
    _expect(len(out) > 0, path, "no workloads")
    return out


def parse_workload_line(path: Path, line: int, text: str, defn: Definition | None) -> Workload:
    return _check_workload(path, line, _loads(path, text, line), defn)


# ---------------------------------------------------------------------------------------------
# solution.json


@dataclass(frozen=True)
class Source:
    path: str
    content: str


@dataclass
class Solution:
    name: str
    definition: str
    author: str
    languages: list[str]
    target_hardware: list[str]
    entry_file: str
    entry_function: str
    destination_passing_style: bool
    cflags: list[str]
    cuda_cflags: list[str]
    ld_flags: list[str]
    sources: list[Source]
    path: Path

    def compiled_sources(self) -> list[str]:
        """Only top-level C/C++/CUDA files are compiled, as in the harness."""
        return [s.path for s in self.sources
                if "/" not in s.path and s.path.endswith(CPP_SOURCE_SUFFIXES)]


def _str_list(path: Path, v: Any, what: str, default: list[str]) -> list[str]:
    if v is None:
        return list(default)
    _expect(isinstance(v, list) and all(isinstance(x, str) for x in v), path,
            f"'{what}' must be a list of strings")
    return list(v)


def load_solution(path: Path) -> Solution:
    path = Path(path)
    raw = _read_json(path)
    _expect(isinstance(raw, dict), path, "top level must be an object")
    name = raw.get("name")
    _expect(isinstance(name, str) and name != "", path, "'name' must be a non-empty string")
    defname = raw.get("definition")
    _expect(isinstance(defname, str) and defname != "", path, "'definition' must be a string")
    author = raw.get("author")
    _expect(isinstance(author, str) and author != "", path,  # Solution.author: NonEmptyString
            "'author' must be a non-empty string (the harness requires one)")
    spec = raw.get("spec")
    _expect(isinstance(spec, dict), path, "'spec' must be an object")
    langs = _str_list(path, spec.get("languages"), "spec.languages", [])
    _expect(len(langs) > 0, path, "'spec.languages' must not be empty")
    _expect(set(langs) <= CPP_LANGUAGES, path,
            f"only the C++ family {sorted(CPP_LANGUAGES)} can be checked, got {langs}")
    hw = _str_list(path, spec.get("target_hardware"), "spec.target_hardware", [])
    _expect(len(hw) > 0 and all(h in ("B200", "LOCAL") for h in hw), path,
            "'spec.target_hardware' must list B200 and/or LOCAL (upper case)")
    entry = spec.get("entry_point")
    _expect(isinstance(entry, str) and entry.count("::") == 1, path,
            "'spec.entry_point' must be 'file::function' with exactly one '::'")
    entry_file, entry_fn = entry.split("::")
    _expect(entry_file.endswith(CPP_ENTRY_SUFFIXES), path,
            f"entry point file {entry_file!r} must be a C++/CUDA file")
    _expect(entry_fn.isidentifier() and entry_fn.isascii(), path,
            f"'spec.entry_point' must name a function after '::', got {entry_fn!r}")
    binding = spec.get("binding", "torch")
    _expect(binding == "torch", path, "'spec.binding' must be \"torch\"")
    dps = spec.get("destination_passing_style", True)
    _expect(isinstance(dps, bool), path, "'spec.destination_passing_style' must be a boolean")
    opts = spec.get("compile_options") or {}
    _expect(isinstance(opts, dict), path, "'spec.compile_options' must be an object")
    cflags = _str_list(path, opts.get("cflags"), "cflags", [])
    cuda_cflags = _str_list(path, opts.get("cuda_cflags"), "cuda_cflags", DEFAULT_CUDA_CFLAGS)
    ld_flags = _str_list(path, opts.get("ld_flags"), "ld_flags", DEFAULT_LD_FLAGS)
    srcs = raw.get("sources")
    _expect(isinstance(srcs, list) and len(srcs) > 0, path, "'sources' must be a non-empty list")
    sources: list[Source] = []
    seen: set[str] = set()
    for i, s in enumerate(srcs):
        _expect(isinstance(s, dict) and isinstance(s.get("path"), str)
                and isinstance(s.get("content"), str), path,
                f"sources[{i}] needs string 'path' and 'content'")
        p = s["path"]
        parts = p.split("/")
        _expect(p != "" and not p.startswith("/") and ".." not in parts and "\\" not in p, path,
                f"sources[{i}]: path {p!r} must be relative without '..'")
        _expect(p not in seen, path, f"sources[{i}]: duplicate path {p!r}")
        _expect(s["content"] != "", path, f"sources[{i}]: {p!r} has empty content")
        seen.add(p)
        sources.append(Source(p, s["content"]))
    _expect(entry_file in seen, path, f"entry point file {entry_file!r} is not among the sources")
    sol = Solution(name, defname, author, langs, hw, entry_file, entry_fn, dps, cflags,
                   cuda_cflags, ld_flags, sources, path)
    _expect(len(sol.compiled_sources()) > 0, path, "no top-level .cu/.cpp/.cc/.cxx/.c source")
    return sol


# ---------------------------------------------------------------------------------------------
# A bundle: solution.json + sources, and a problem dir (the bundle itself by default).


@dataclass
class Bundle:
    solution: Solution
    definition: Definition
    workloads: list[Workload]
    bundle_dir: Path
    problem_dir: Path


def load_bundle(bundle_dir: Path, problem_dir: Path | None = None) -> Bundle:
    bundle_dir = Path(bundle_dir)
    if not bundle_dir.is_dir():
        raise BundleError(f"{bundle_dir}: not a directory")
    problem = Path(problem_dir) if problem_dir is not None else bundle_dir
    if not problem.is_dir():
        raise BundleError(f"{problem}: not a directory")
    sol = load_solution(bundle_dir / "solution.json")
    defn = load_definition(problem / "definition.json")
    if sol.definition != defn.name:
        raise BundleError(f"{sol.path}: 'definition' is {sol.definition!r} but "
                          f"{defn.path} names {defn.name!r}")
    workloads = load_workloads(problem / "workload.jsonl", defn)
    return Bundle(sol, defn, workloads, bundle_dir, problem)


def workload_elements(defn: Definition, w: Workload) -> int:
    """Total elements of all inputs and outputs: the cost estimate used to order and budget."""
    axes = resolve_axes(defn, w.axes)
    total = 0
    for spec in defn.inputs + defn.outputs:
        shape = shape_of(spec, axes)
        n = 1
        for d in shape or ():
            n *= d
        total += n
    return total
