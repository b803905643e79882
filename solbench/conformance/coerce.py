"""Values read as the harness reads them: its models are pydantic models in lax mode, so "4096"
is a size and "1e-05" a float there. The same library coerces here (not a re-creation of its
rules), so a value means to `solgen check` what it means to the harness."""

from __future__ import annotations

from typing import Annotated, Any, Optional, Union

from pydantic import Field, TypeAdapter, ValidationError

# The field types of the harness's models (core/data/workload.py, base_model.py).
_SIZE = TypeAdapter(Annotated[int, Field(ge=0)])  # NonNegativeInt: axes, const values
_SCALAR = TypeAdapter(Union[int, float, bool])  # ScalarInput.value (smart-mode union)
_FLOAT = TypeAdapter(float)  # ToleranceSpec.max_atol, max_rtol, required_matched_ratio
_OPTIONAL_FLOAT = TypeAdapter(Optional[float])  # ToleranceSpec.max_error_cap
_BOOL = TypeAdapter(bool)  # ToleranceSpec.allow_negative_inf


class CoercionError(ValueError):
    """The harness's model would reject this value."""


def _validate(adapter: TypeAdapter[Any], v: Any) -> Any:
    try:
        return adapter.validate_python(v)
    except ValidationError:
        raise CoercionError(repr(v)) from None


def size(v: Any) -> int | None:
    """A NonNegativeInt (4, 4.0, "4", " 4 "); None where the harness rejects it."""
    try:
        return int(_validate(_SIZE, v))
    except CoercionError:
        return None


def scalar(v: Any) -> int | float | bool:
    """A scalar input's value: "1e-05" is 1e-05, "4096" is 4096, "true" is True."""
    return _validate(_SCALAR, v)


def number(v: Any) -> float:
    return float(_validate(_FLOAT, v))


def optional_number(v: Any) -> float | None:
    out = _validate(_OPTIONAL_FLOAT, v)
    return None if out is None else float(out)


def flag(v: Any) -> bool:
    return bool(_validate(_BOOL, v))
