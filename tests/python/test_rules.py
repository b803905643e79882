"""The correctness rules of sol-execbench.md §3 against hand-computed cases."""

from __future__ import annotations

import math

import pytest
import torch

from solbench.conformance.problem import Tolerance
from solbench.conformance.rules import (BORDERLINE, Status, compare_output, compare_outputs,
                                       compare_values, pass_margin)

# Powers of two keep the tolerance arithmetic exact in float32.
TOL = Tolerance(max_atol=0.25, max_rtol=0.5, required_matched_ratio=1.0)


def f32(*v: float) -> torch.Tensor:
    return torch.tensor(v, dtype=torch.float32)


def test_error_exactly_at_the_bound_passes() -> None:
    # |3.25 - 2| = 1.25 = 0.25 + 0.5 * |2|
    c = compare_values("y", f32(3.25), f32(2.0), TOL)
    assert c.status is Status.PASSED
    assert c.max_absolute_error == 1.25


def test_error_one_ulp_over_the_bound_fails() -> None:
    x = torch.nextafter(f32(3.25), f32(math.inf))
    c = compare_values("y", x, f32(2.0), TOL)
    assert c.status is Status.INCORRECT_NUMERICAL
    # negative side: |0.75 - 2| = 1.25 passes, one ulp lower fails
    assert compare_values("y", f32(0.75), f32(2.0), TOL).passed
    below = f32(0.75 - 2.0**-23)  # 2 - below = 1.25 + one ulp of 1.25, exactly
    assert not compare_values("y", below, f32(2.0), TOL).passed


def test_relative_part_scales_with_the_reference_not_the_solution() -> None:
    # y = -4: bound 0.25 + 2 = 2.25; x = -1.75 is exactly at it
    assert compare_values("y", f32(-1.75), f32(-4.0), TOL).passed
    # swapped roles: y = -1.75 gives bound 1.125 < 2.25
    assert not compare_values("y", f32(-4.0), f32(-1.75), TOL).passed


def _ratio_case(n_bad: int, ratio: float) -> Status:
    y = torch.ones(100)
    x = y.clone()
    x[:n_bad] = 10.0
    tol = Tolerance(max_atol=0.25, max_rtol=0.0, required_matched_ratio=ratio)
    return compare_values("y", x, y, tol).status


def test_matched_ratio_at_and_below_the_requirement() -> None:
    assert _ratio_case(1, 0.99) is Status.PASSED  # 99/100 matched == 0.99
    assert _ratio_case(2, 0.99) is Status.INCORRECT_NUMERICAL  # 98/100 < 0.99
    assert _ratio_case(0, 1.0) is Status.PASSED
    assert _ratio_case(1, 1.0) is Status.INCORRECT_NUMERICAL


def test_default_tolerance_values() -> None:
    d = Tolerance()
    assert (d.max_atol, d.max_rtol, d.required_matched_ratio) == (1e-2, 1e-2, 0.99)
    assert d.max_error_cap is None and d.allow_negative_inf is False
    t = Tolerance.from_json({"max_atol": 1e-5, "max_rtoll": 0.5, "unknown": 1})
    assert t.max_atol == 1e-5 and t.max_rtol == 1e-2  # the misspelt key falls back


def test_nan_in_solution_or_reference_fails() -> None:
    c = compare_values("y", f32(1.0, math.nan), f32(1.0, 1.0), TOL)
    assert c.status is Status.INCORRECT_NUMERICAL and c.has_nan and "solution" in c.message
    # has_nan is the harness's flag: NaN in either tensor (correctness.py, check_tensor_sanity)
    c = compare_values("y", f32(1.0, 1.0), f32(1.0, math.nan), TOL)
    assert c.status is Status.INCORRECT_NUMERICAL and c.has_nan and "reference" in c.message
    # NaN at the same place in both still fails
    assert not compare_values("y", f32(math.nan), f32(math.nan), TOL).passed


def test_inf_fails_even_when_both_agree() -> None:
    c = compare_values("y", f32(math.inf, 1.0), f32(math.inf, 1.0), TOL)
    assert c.status is Status.INCORRECT_NUMERICAL and c.has_inf
    assert not compare_values("y", f32(1.0), f32(math.inf), TOL).passed


def test_negative_inf_passes_only_with_allow_negative_inf() -> None:
    x, y = f32(-math.inf, 1.0), f32(-math.inf, 1.0)
    assert compare_values("y", x, y, TOL).status is Status.INCORRECT_NUMERICAL
    allow = Tolerance(max_atol=0.25, max_rtol=0.5, required_matched_ratio=1.0,
                      allow_negative_inf=True)
    c = compare_values("y", x, y, allow)
    assert c.status is Status.PASSED and c.max_absolute_error == 0.0
    # only where both are -inf
    assert not compare_values("y", f32(-math.inf, 1.0), f32(-1.0, 1.0), allow).passed
    assert not compare_values("y", f32(1.0, 1.0), f32(-math.inf, 1.0), allow).passed
    assert not compare_values("y", f32(math.inf, 1.0), f32(math.inf, 1.0), allow).passed


def test_all_zero_solution_fails_unless_the_reference_is_zero() -> None:
    loose = Tolerance(max_atol=10.0, max_rtol=0.0, required_matched_ratio=0.0)
    c = compare_values("y", torch.zeros(4), f32(0.0, 0.0, 0.0, 0.001), loose)
    assert c.status is Status.INCORRECT_NUMERICAL and "all zeros" in c.message
    assert compare_values("y", torch.zeros(4), torch.zeros(4), TOL).passed


def test_max_error_cap() -> None:
    capped = Tolerance(max_atol=1.0, max_rtol=0.0, required_matched_ratio=1.0, max_error_cap=0.5)
    assert compare_values("y", f32(1.5), f32(1.0), capped).passed  # exactly at the cap
    assert not compare_values("y", f32(1.75), f32(1.0), capped).passed


def test_max_relative_error_uses_atol_as_floor() -> None:
    c = compare_values("y", f32(0.5), f32(0.0), Tolerance(max_atol=1.0, max_rtol=0.0))
    assert c.max_relative_error == 0.5  # 0.5 / max(|0|, 1.0)


def test_empty_tensors_pass() -> None:
    assert compare_values("y", torch.zeros(0), torch.zeros(0), TOL).passed


def test_shape_dtype_and_type_checks() -> None:
    ref = torch.ones(2, 3)
    assert compare_output("y", torch.ones(3, 2), ref, TOL).status is Status.INCORRECT_SHAPE
    assert compare_output("y", torch.ones(6), ref, TOL).status is Status.INCORRECT_SHAPE
    half = torch.ones(2, 3, dtype=torch.float16)
    assert compare_output("y", half, ref, TOL).status is Status.INCORRECT_DTYPE
    # the dtype is a round-0 check; later rounds compare values only
    assert compare_output("y", half, ref, TOL, check_type=False).passed
    # not exactly a torch.Tensor: the harness's check_lazy_outputs (core/bench/reward_hack.py)
    assert compare_output("y", [[1.0] * 3] * 2, ref, TOL).status is Status.REWARD_HACK
    assert compare_output("y", 1.0, torch.tensor(1.0), TOL).status is Status.REWARD_HACK
    # an nn.Parameter is a subclass too: REWARD_HACK there (type(t) is not torch.Tensor)
    param = torch.nn.Parameter(torch.ones(2, 3), requires_grad=False)
    assert compare_output("y", param, ref, TOL).status is Status.REWARD_HACK

    class Sneaky(torch.Tensor):
        pass

    sneaky = torch.ones(2, 3).as_subclass(Sneaky)
    assert compare_output("y", sneaky, ref, TOL).status is Status.REWARD_HACK


def test_bf16_outputs_are_compared_in_float32() -> None:
    ref = torch.tensor([1.0, 2.0], dtype=torch.bfloat16)
    sol = torch.tensor([1.0078125, 2.0], dtype=torch.bfloat16)  # one bf16 ulp above 1.0
    tight = Tolerance(max_atol=0.0, max_rtol=0.0, required_matched_ratio=1.0)
    assert not compare_output("y", sol, ref, tight).passed
    c = compare_output("y", sol, ref, Tolerance(max_atol=0.0078125, max_rtol=0.0,
                                                  required_matched_ratio=1.0))
    assert c.passed and c.max_absolute_error == 0.0078125


def test_compare_outputs_reports_first_failure_with_round() -> None:
    refs = [torch.ones(2), torch.ones(2)]
    c = compare_outputs([torch.ones(2), torch.full((2,), 3.0)], refs, ["a", "b"], TOL, 0)
    assert c.status is Status.INCORRECT_NUMERICAL
    assert c.message.startswith("round 0: output 'b'")
    assert c.max_absolute_error == 2.0
    ok = compare_outputs([torch.ones(2), torch.full((2,), 1.25)], refs, ["a", "b"], TOL, 3)
    assert ok.passed and ok.max_absolute_error == 0.25


@pytest.mark.parametrize("status", list(Status))
def test_status_names_are_the_harness_names(status: Status) -> None:
    assert status.value == status.name
    assert status.name in ("PASSED INCORRECT_SHAPE INCORRECT_NUMERICAL INCORRECT_DTYPE "
                           "RUNTIME_ERROR COMPILE_ERROR TIMEOUT REWARD_HACK "
                           "INVALID_REFERENCE").split()


# --- the margin of a pass (issue 17; solbench's own figure, the harness reports none) ------------


def test_error_fraction_is_the_worst_element_against_its_own_bound() -> None:
    # bounds 0.25 + 0.5 * |y|: 1.25 for y = 2, 0.75 for y = 1; errors 0.625 and 0.5
    c = compare_values("y", f32(2.625, 1.5), f32(2.0, 1.0), TOL)
    assert c.passed and c.error_fraction == pytest.approx(0.5 / 0.75)
    assert compare_values("y", f32(2.0), f32(2.0), TOL).error_fraction == 0.0
    assert compare_values("y", f32(3.25), f32(2.0), TOL).error_fraction == 1.0  # at the bound


def test_margin_of_a_pass() -> None:
    assert pass_margin(0.0, 1.0, 0.99) == math.inf          # exact
    assert pass_margin(0.125, 1.0, 0.99) == 8.0             # the error could grow 8x
    assert pass_margin(0.75, 1.0, 0.99) < BORDERLINE        # within 2x of failing
    # 0.5% of the elements outside their bound, 1% allowed: twice as many could fail
    assert pass_margin(3.0, 0.995, 0.99) == pytest.approx(2.0)
    assert pass_margin(3.0, 0.999, 0.99) == pytest.approx(10.0)
