"""The correctness comparison of sol-execbench.md §3, one output of one round at a time."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

import torch

from .problem import Tolerance


class Status(str, enum.Enum):
    PASSED = "PASSED"
    INCORRECT_SHAPE = "INCORRECT_SHAPE"
    INCORRECT_NUMERICAL = "INCORRECT_NUMERICAL"
    INCORRECT_DTYPE = "INCORRECT_DTYPE"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    COMPILE_ERROR = "COMPILE_ERROR"
    TIMEOUT = "TIMEOUT"
    REWARD_HACK = "REWARD_HACK"
    INVALID_REFERENCE = "INVALID_REFERENCE"


class Agreement(str, enum.Enum):
    """How a workload's verdict here relates to the harness's."""

    SAME = "same"  # the harness gives this status by the same rule
    STRICTER = "stricter"  # solbench's own check (guard pages, a time limit per workload)
    NO_TRACE = "no-trace"  # the harness's driver fails before it writes this workload's trace


@dataclass
class Comparison:
    status: Status
    message: str = ""
    max_absolute_error: float = 0.0
    max_relative_error: float = 0.0
    matched_ratio: float = 1.0
    has_nan: bool = False
    has_inf: bool = False
    # The worst element's error as a fraction of its bound (atol + rtol * |ref|).
    error_fraction: float = 0.0
    rule: str = "correctness"  # the rule that decided (for a failure) or "correctness"
    # The figures the harness computes for its trace (core/bench/correctness.py,
    # compute_error_stats): its relative error divides by max(|ref|, max_atol), so with
    # max_atol 0 an exact zero in the reference makes it NaN or Inf.
    harness_abs: float = 0.0
    harness_rel: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED


def pass_margin(error_fraction: float, matched_ratio: float, required_ratio: float) -> float:
    """How far a pass is from failing, as a factor (solbench's own figure; the harness has none).

    With every element inside its bound: 1 / the worst element's fraction of its bound (the
    error could grow that many times and still pass). With some elements outside (the matched
    ratio allows them): how many times more elements could fail before the ratio does.
    """
    if matched_ratio >= 1.0:
        return math.inf if error_fraction <= 0 else 1.0 / error_fraction
    return (1.0 - required_ratio) / (1.0 - matched_ratio)


BORDERLINE = 2.0  # a pass with a margin under this is reported as borderline
# A pass with a margin under this is re-run from further seeds: one stream's margin predicts
# another's poorly (fp32 row sums at 16 x 7168 pass with 2.5x on the harness's stream and fail
# on a third of other seeds), so the re-runs decide.
RERUN_BELOW = 10.0


def is_borderline(margin: float | None, seeds_failed: int) -> bool:
    """Within 2x of failing, or failing on some further seed."""
    return margin is not None and (margin < BORDERLINE or seeds_failed > 0)


@dataclass
class HarnessRecord:
    """The Correctness the harness's driver keeps for a workload's trace (eval_driver.py, the
    numerical loop: the output with the largest max abs error so far, or the latest one with
    NaN, or with Inf and no NaN). The trace is written with json.dumps(allow_nan=False), so a
    non-finite figure here means the driver fails and writes no trace (for this workload or
    any after it)."""

    max_abs: float = 0.0
    max_rel: float = 0.0
    has_nan: bool = False
    has_inf: bool = False

    def update(self, c: Comparison) -> None:
        if c.harness_abs > self.max_abs:
            self.max_abs, self.max_rel = c.harness_abs, c.harness_rel
            self.has_nan, self.has_inf = False, False
        if c.has_nan:  # its figures are zeros then, the flags say what was found
            self.max_abs, self.max_rel, self.has_nan, self.has_inf = 0.0, 0.0, True, False
        elif c.has_inf and not self.has_nan:
            self.max_abs, self.max_rel, self.has_nan, self.has_inf = 0.0, 0.0, False, True

    @property
    def writable(self) -> bool:
        return math.isfinite(self.max_abs) and math.isfinite(self.max_rel)

    def why_not(self) -> str:
        return (f"the harness's max_relative_error is {self.max_rel} (max_atol is 0 and the "
                "reference has exact zeros), and its driver fails writing the trace "
                "(json.dumps with allow_nan=False): no trace for this workload or any after it")


def compare_output(name: str, sol: Any, ref: torch.Tensor, tol: Tolerance,
                   *, check_type: bool = True) -> Comparison:
    """Compare one solution output with the reference's.

    check_type applies the round-0 checks (a real torch.Tensor, exact dtype); shape is checked
    in every round since tensors of different shapes cannot be compared elementwise.
    """
    if check_type or not isinstance(sol, torch.Tensor):
        if type(sol) is not torch.Tensor:  # integrity.check_plain_tensors' rule
            return Comparison(Status.REWARD_HACK, f"output '{name}' is a {type(sol).__name__}, "
                              "not exactly a torch.Tensor", rule="reward-hack.lazy-outputs")
    structure = compare_structure(name, sol, ref, check_dtype=check_type)
    if structure is not None:
        return structure
    x = sol.detach().to(device="cpu", dtype=torch.float32)
    y = ref.detach().to(device="cpu", dtype=torch.float32)
    return compare_values(name, x, y, tol)


def compare_structure(name: str, sol: torch.Tensor, ref: torch.Tensor, *,
                      check_dtype: bool) -> Comparison | None:
    """Shape, then dtype (round 0): a failure, or None."""
    if tuple(sol.shape) != tuple(ref.shape):
        return Comparison(Status.INCORRECT_SHAPE, f"output '{name}' has shape "
                          f"{tuple(sol.shape)}, expected {tuple(ref.shape)}", rule="structure.shape")
    if check_dtype and sol.dtype != ref.dtype:
        return Comparison(Status.INCORRECT_DTYPE, f"output '{name}' has dtype {sol.dtype}, "
                          f"expected {ref.dtype}", rule="structure.dtype")
    return None


def compare_values(name: str, x: torch.Tensor, y: torch.Tensor, tol: Tolerance) -> Comparison:
    """The numeric rules on float32 tensors of equal shape: x the solution, y the reference."""
    n = x.numel()
    if n == 0:
        return Comparison(Status.PASSED)
    both_neg_inf = (x == float("-inf")) & (y == float("-inf"))
    excused = both_neg_inf if tol.allow_negative_inf else torch.zeros_like(both_neg_inf)
    x_nan, y_nan = bool(torch.isnan(x).any()), bool(torch.isnan(y).any())
    x_inf = bool((torch.isinf(x) & ~excused).any())
    y_inf = bool((torch.isinf(y) & ~excused).any())
    if x_nan or y_nan or x_inf or y_inf:
        who = "solution" if (x_nan or x_inf) else "reference"
        what = "NaN" if (x_nan or y_nan) else "Inf"
        return Comparison(Status.INCORRECT_NUMERICAL, f"output '{name}': {what} in the {who}",
                          float("nan") if (x_nan or y_nan) else float("inf"),
                          float("nan") if (x_nan or y_nan) else float("inf"),
                          0.0, x_nan or y_nan, not (x_nan or y_nan), rule="correctness.nan-inf")
    abs_err = torch.where(excused, torch.zeros_like(x), (x - y).abs())
    y_abs = torch.where(excused, torch.zeros_like(y), y.abs())
    max_abs = float(abs_err.max())
    max_rel = float((abs_err / y_abs.clamp(min=tol.max_atol)).max()) if tol.max_atol > 0 else float(
        (abs_err / y_abs).nan_to_num(nan=0.0).max())
    if bool((x == 0).all()) and not bool((y == 0).all()):
        norm = float(torch.linalg.vector_norm(y))  # the harness's figure for this failure
        return Comparison(Status.INCORRECT_NUMERICAL,
                          f"output '{name}' is all zeros but the reference is not",
                          max_abs, max_rel, 0.0, rule="correctness.all-zeros",
                          harness_abs=norm, harness_rel=norm)
    kept = ~excused  # the harness drops the excused -inf pairs before its figures
    harness_rel = float((abs_err[kept] / y_abs[kept].clamp(min=tol.max_atol)).max()) \
        if bool(kept.any()) else 0.0
    bound = tol.max_atol + tol.max_rtol * y_abs
    fraction = torch.where(excused | (abs_err == 0), torch.zeros_like(abs_err),
                           abs_err / bound.clamp(min=torch.finfo(torch.float32).tiny))
    error_fraction = float(fraction.max())
    matched = int(((abs_err <= bound) | excused).sum())
    ratio = matched / n
    if ratio < tol.required_matched_ratio:
        return Comparison(
            Status.INCORRECT_NUMERICAL,
            f"output '{name}': {n - matched} of {n} elements exceed atol {tol.max_atol} + rtol "
            f"{tol.max_rtol}*|ref| (matched {ratio:.6f} < {tol.required_matched_ratio})",
            max_abs, max_rel, ratio, rule="correctness.tolerance", harness_abs=max_abs,
            harness_rel=harness_rel)
    if tol.max_error_cap is not None and max_abs > tol.max_error_cap:
        return Comparison(Status.INCORRECT_NUMERICAL,
                          f"output '{name}': max abs error {max_abs:.6g} exceeds the cap "
                          f"{tol.max_error_cap}", max_abs, max_rel, ratio,
                          rule="correctness.error-cap", harness_abs=max_abs,
                          harness_rel=harness_rel)
    return Comparison(Status.PASSED, "", max_abs, max_rel, ratio, error_fraction=error_fraction,
                      harness_abs=max_abs, harness_rel=harness_rel)


def compare_outputs(sol_outputs: list[Any], ref_outputs: list[torch.Tensor], names: list[str],
                    tol: Tolerance, round_index: int,
                    record: HarnessRecord | None = None) -> Comparison:
    """All outputs of one round, in the harness's order: in round 0 every output's type, then
    each one's shape and dtype; then each one's numbers, the first failure deciding. Errors are
    maxed over outputs; record, if given, follows the harness's own figures."""
    def failed(c: Comparison) -> Comparison:
        if c.message:
            c.message = f"round {round_index}: {c.message}"
        return c

    if round_index == 0:
        for name, sol, ref in zip(names, sol_outputs, ref_outputs):
            if type(sol) is not torch.Tensor:
                return failed(compare_output(name, sol, ref, tol, check_type=True))
        for name, sol, ref in zip(names, sol_outputs, ref_outputs):
            structure = compare_structure(name, sol, ref, check_dtype=True)
            if structure is not None:
                return failed(structure)
    total = Comparison(Status.PASSED)
    for name, sol, ref in zip(names, sol_outputs, ref_outputs):
        c = compare_output(name, sol, ref, tol, check_type=False)
        if record is not None:
            record.update(c)
        total.max_absolute_error = max(total.max_absolute_error, c.max_absolute_error)
        total.max_relative_error = max(total.max_relative_error, c.max_relative_error)
        total.has_nan |= c.has_nan
        total.has_inf |= c.has_inf
        total.matched_ratio = min(total.matched_ratio, c.matched_ratio)
        total.error_fraction = max(total.error_fraction, c.error_fraction)
        if not c.passed:
            if math.isfinite(c.max_absolute_error):  # keep NaN/Inf markers as they are
                c.max_absolute_error = total.max_absolute_error
                c.max_relative_error = total.max_relative_error
            return failed(c)
    return total
