"""The defects at the edges found by issue 26's differential audit, each against PyTorch.

Every case is a function ``case(lib)`` run on PyTorch and on minigrad with the same code; its
outcome — the tensors it returns (values and dtype) or the type of the exception it raises — must
be PyTorch's. PyTorch's side is recorded (``tests/reference/records``), so the cases also run
without PyTorch.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from _reference import reference

import minigrad as mg

from .outcome import assert_same_outcome, outcome


def check(case: Callable[[Any], Any]) -> None:
    theirs = reference(lambda torch: outcome(case, torch))
    assert_same_outcome(outcome(case, mg), theirs)


# --- silent wrong values or gradients -----------------------------------------------------------

def _sdpa_fully_masked_row(lib: Any) -> Any:
    q = lib.tensor([[[0.3, -1.0, 0.5], [1.0, 2.0, -0.5]]], dtype=lib.float64, requires_grad=True)
    k = lib.tensor([[[1.0, 0.5, -1.0], [0.2, 0.1, 0.4]]], dtype=lib.float64, requires_grad=True)
    v = lib.arange(6.0, dtype=lib.float64).reshape(1, 2, 3).requires_grad_()
    mask = lib.tensor([[[False, False], [True, False]]])
    out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    (out * lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64)).sum().backward()
    return out, q.grad, k.grad, v.grad


def _sdpa_float_mask_of_minus_inf(lib: Any) -> Any:
    q = lib.ones(2, 2, 3, dtype=lib.float64, requires_grad=True)
    v = lib.arange(12.0, dtype=lib.float64).reshape(2, 2, 3).requires_grad_()
    mask = lib.tensor([[0.0, -math.inf], [-math.inf, -math.inf]], dtype=lib.float64)
    out = lib.nn.functional.scaled_dot_product_attention(q, q, v, attn_mask=mask)
    out.sum().backward()
    return out, q.grad, v.grad


def _retain_grad_then_in_place(lib: Any) -> Any:
    a = lib.tensor([1.0, -2.0], requires_grad=True)
    b = a * 2
    b.retain_grad()
    b.mul_(3)
    (b * b).sum().backward()
    return b.grad, a.grad, b.retains_grad


def _retain_grad_then_in_place_through_a_view(lib: Any) -> Any:
    a = lib.ones(2, 2, requires_grad=True)
    b = a * 2
    b.retain_grad()
    b[0].mul_(3)
    (b * b).sum().backward()
    return b.grad, a.grad


def _retain_grad_two_in_place_changes(lib: Any) -> Any:
    a = lib.tensor([1.0, 3.0], requires_grad=True)
    b = a * 2
    b.retain_grad()
    b.add_(1)
    b.relu_()
    (b * b).sum().backward()
    return b.grad, a.grad


def _second_derivative(fn: Callable) -> Callable:
    def case(lib: Any) -> Any:
        x = lib.tensor([0.0, -1.0, 2.0, 10.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64)).sum(), x)
        return g, gg
    return case


def _max_pool_double_backward(lib: Any) -> Any:
    x = lib.tensor([[[[1.0, 5.0, 2.0], [5.0, 0.0, 3.0], [4.0, 4.0, 1.0]]]], dtype=lib.float64,
                   requires_grad=True)
    (g,) = lib.autograd.grad((lib.nn.functional.max_pool2d(x, 2, stride=1) ** 2).sum(), x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    return g, gg


def _trunc_division_at_the_minimum(lib: Any) -> Any:
    results = []
    for dtype, low in ((lib.int8, -128), (lib.int16, -32768), (lib.int32, -2**31), (lib.int64, -2**63)):
        a = lib.tensor([low, low + 1, -7, 7, 0, -1], dtype=dtype)
        results += [lib.div(a, 3, rounding_mode="trunc"), lib.div(a, -2, rounding_mode="trunc"),
                    lib.div(a, lib.tensor([3, -3, 2, -2, 5, 7], dtype=dtype), rounding_mode="trunc"),
                    lib.div(a, -3, rounding_mode="floor")]
    return results


SILENT = {
    "sdpa_fully_masked_row": _sdpa_fully_masked_row,
    "sdpa_float_mask_of_minus_inf": _sdpa_float_mask_of_minus_inf,
    "retain_grad_then_in_place": _retain_grad_then_in_place,
    "retain_grad_then_in_place_through_a_view": _retain_grad_then_in_place_through_a_view,
    "retain_grad_two_in_place_changes": _retain_grad_two_in_place_changes,
    "elu_second_derivative_at_0": _second_derivative(lambda lib, x: lib.nn.functional.elu(x, alpha=0.5)),
    "softplus_second_derivative_at_threshold": _second_derivative(
        lambda lib, x: lib.nn.functional.softplus(x, beta=2, threshold=20)),
    "relu_double_backward": _second_derivative(lambda lib, x: lib.relu(x)),
    "leaky_relu_double_backward": _second_derivative(lambda lib, x: lib.nn.functional.leaky_relu(x, 0.2)),
    "l1_loss_double_backward": _second_derivative(
        lambda lib, x: lib.nn.functional.l1_loss(x, lib.zeros_like(x), reduction="none")),
    "max_pool2d_double_backward": _max_pool_double_backward,
    "trunc_division_at_the_minimum": _trunc_division_at_the_minimum,
    "uint8_index_is_a_mask": lambda lib: lib.arange(6.0).reshape(2, 3)[lib.tensor([1, 0], dtype=lib.uint8)],
    "uint8_index_2d_mask": lambda lib: lib.arange(6.0).reshape(2, 3)[
        lib.tensor([[1, 0, 1], [0, 0, 1]], dtype=lib.uint8)],
    "uint8_setitem_mask": lambda lib: _set(lib.zeros(3), lib.tensor([1, 0, 1], dtype=lib.uint8), 2.0),
    "nested_list_key_1d": lambda lib: lib.arange(3.0)[[[1]]],
    "nested_list_key_2d": lambda lib: lib.arange(6.0).reshape(2, 3)[[[1], [0]]],
    "nested_list_key_rows": lambda lib: lib.arange(6.0).reshape(2, 3)[[[0, 1]]],
    "list_with_a_slice": lambda lib: lib.arange(6.0).reshape(2, 3)[[slice(None), 0]],
    "list_with_none": lambda lib: lib.arange(6.0).reshape(2, 3)[[None, 0]],
    "list_of_ints_stays_an_index": lambda lib: lib.arange(6.0).reshape(2, 3)[[1, 0]],
    "clamp_nan_min": lambda lib: lib.clamp(lib.tensor([1.0, -2.0]), min=math.nan),
    "clamp_nan_max": lambda lib: lib.clamp(lib.tensor([1.0, -2.0]), min=0.0, max=math.nan),
    "clamp_nan_tensor_bound": lambda lib: lib.clamp(lib.tensor([1.0, 2.0]), min=lib.tensor([math.nan, 0.0]),
                                                    max=lib.tensor([3.0, math.nan])),
    "clamp_nan_tensor_bound_gradient": lambda lib: _clamp_gradient(lib),
    "clamp_int_nan_bound": lambda lib: lib.clamp(lib.tensor([1, 2]), min=math.nan),
    "pow_negative_base_int8_exponent": lambda lib: (-7) ** lib.tensor([-1, 2, -3], dtype=lib.int8),
    "pow_int8_negative_exponents": lambda lib: lib.tensor([-7, -1, 1, 2], dtype=lib.int8)
    ** lib.tensor([-3, -3, -2, -1], dtype=lib.int8),
    "float16_zero_times_huge_int": lambda lib: lib.tensor([0.0, 1.0], dtype=lib.float16)
    * lib.tensor(2**63 - 1),
    "float16_zero_times_huge_number": lambda lib: lib.tensor([0.0, 2.0], dtype=lib.float16) * 1e6,
    "float16_divided_by_large_number": lambda lib: lib.tensor([1000.0, 3.0], dtype=lib.float16) / 1e5,
    "clamp_uint8_min_minus_1_wraps": lambda lib: lib.clamp(lib.tensor([0, 5], dtype=lib.uint8), min=-1),
    "clamp_uint8_min_minus_255": lambda lib: lib.clamp(lib.tensor([0, 5], dtype=lib.uint8), min=-255),
    "float16_var_std": lambda lib: [lib.tensor([60000.0, 60001.0, 59999.0], dtype=lib.float16).var(),
                                    lib.tensor([1000.0, 1001.0, 1002.0], dtype=lib.float16).std(),
                                    lib.tensor([[1000.0, 1001.0, 1002.0]], dtype=lib.float16).var(1),
                                    lib.tensor([-7.0, 100.0, 10000.0], dtype=lib.float16).std()],
    "float16_softmax": lambda lib: lib.softmax(lib.tensor([0.1, 0.2, 0.3] * 100, dtype=lib.float16), 0),
    "float16_log_softmax": lambda lib: lib.log_softmax(lib.tensor([0.1, 0.2, 7.3] * 10, dtype=lib.float16),
                                                       0),
    "float16_norm": lambda lib: [lib.tensor([300.0, 300.0], dtype=lib.float16).norm(),
                                 lib.tensor([[300.0, 400.0]], dtype=lib.float16).norm(dim=1)],
    "float16_cumsum": lambda lib: lib.tensor([60000.0, 60000.0, -60000.0], dtype=lib.float16).cumsum(0),
}


def _set(a: Any, key: Any, value: Any) -> Any:
    a[key] = value
    return a


def _clamp_gradient(lib: Any) -> Any:
    x = lib.tensor([1.0, 2.0, -1.0], requires_grad=True)
    low = lib.tensor([math.nan, 0.0, 0.0], requires_grad=True)
    lib.clamp(x, min=low).sum().backward()
    return x.grad, low.grad


@pytest.mark.parametrize("name", sorted(SILENT))
def test_silent_defects_match_torch(name):
    check(SILENT[name])


# --- errors: PyTorch's exceptions, never NumPy's; refused and accepted as in PyTorch -------------

def _condition(lib: Any) -> Any:
    return lib.tensor([True, False])


def _huge(lib: Any, make: str) -> Any:
    return getattr(lib, make)(2**40, 2**30)


def _in_place(lib: Any, statement: str) -> Any:
    a = lib.arange(6.0)
    exec(statement, {"a": a, "lib": lib})  # noqa: S102 (a fixed statement from the table below)
    return a


ERRORS = {
    "int_power_negative_number": lambda lib: lib.tensor([2, 3]) ** -2,
    "int_power_negative_0d_tensor": lambda lib: lib.tensor([2, 3]) ** lib.tensor(-2),
    "int8_power_out_of_range": lambda lib: lib.tensor([1, 2], dtype=lib.int8) ** 300,
    "masked_fill_uint8_minus_1": lambda lib: lib.tensor([1, 2], dtype=lib.uint8).masked_fill(
        lib.tensor([True, False]), -1),
    "masked_fill_uint8_256": lambda lib: lib.tensor([1, 2], dtype=lib.uint8).masked_fill(
        lib.tensor([True, False]), 256),
    "masked_fill_int8_300": lambda lib: lib.tensor([1, 2], dtype=lib.int8).masked_fill(
        lib.tensor([True, False]), 300),
    "fill_uint8_minus_1": lambda lib: lib.tensor([1, 2], dtype=lib.uint8).fill_(-1),
    "fill_int8_300": lambda lib: lib.tensor([1, 2], dtype=lib.int8).fill_(300),
    "fill_float16_1e6": lambda lib: lib.zeros(2, dtype=lib.float16).fill_(1e6),
    "fill_int8_nan": lambda lib: lib.zeros(2, dtype=lib.int8).fill_(math.nan),
    "full_int8_300": lambda lib: lib.full((2,), 300, dtype=lib.int8),
    "full_uint8_minus_1": lambda lib: lib.full((2,), -1, dtype=lib.uint8),
    "setitem_int8_300": lambda lib: _set(lib.tensor([1, 2], dtype=lib.int8), 0, 300),
    "setitem_uint8_minus_1": lambda lib: _set(lib.tensor([1, 2], dtype=lib.uint8), 0, -1),
    "adaptive_avg_pool2d_to_0": lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.ones(1, 1, 4, 4), 0),
    "adaptive_avg_pool2d_to_0_by_2": lambda lib: lib.nn.functional.adaptive_avg_pool2d(
        lib.ones(1, 1, 4, 4), (0, 2)),
    "adaptive_max_pool2d_to_0": lambda lib: lib.nn.functional.adaptive_max_pool2d(lib.ones(1, 1, 4, 4), 0),
    "adaptive_avg_pool2d_to_0_backward": lambda lib: lib.nn.functional.adaptive_avg_pool2d(
        lib.ones(1, 1, 4, 4, requires_grad=True), (2, 0)).sum().backward(),
    "empty_huge": lambda lib: _huge(lib, "empty"),
    "zeros_huge": lambda lib: _huge(lib, "zeros"),
    "randn_huge": lambda lib: _huge(lib, "randn"),
    "clamp_int8_max_300": lambda lib: lib.clamp(lib.tensor([1], dtype=lib.int8), max=300),
    "clamp_int8_min_minus_129": lambda lib: lib.clamp(lib.tensor([1], dtype=lib.int8), min=-129),
    "clamp_uint8_min_minus_256": lambda lib: lib.clamp(lib.tensor([1], dtype=lib.uint8), min=-256),
    "clamp_in_place_int8_max_300": lambda lib: lib.tensor([1, 2], dtype=lib.int8).clamp_(max=300),
    "where_int8_300": lambda lib: lib.where(_condition(lib), lib.tensor([1, 2], dtype=lib.int8), 300),
    "where_300_int8": lambda lib: lib.where(_condition(lib), 300, lib.tensor([1, 2], dtype=lib.int8)),
    "where_uint8_minus_1": lambda lib: lib.where(_condition(lib), lib.tensor([1, 2], dtype=lib.uint8), -1),
    "clamp_bool_min_false": lambda lib: lib.clamp(lib.tensor([True, False]), min=False),
    "clamp_bool_min_and_max": lambda lib: lib.clamp(lib.tensor([True, False]), min=True, max=True),
    "clamp_min_bool": lambda lib: lib.clamp_min(lib.tensor([True, False]), False),
    "clamp_bool_int_bound": lambda lib: lib.clamp(lib.tensor([True, False]), min=0),
    "clamp_bool_tensor_bound": lambda lib: lib.clamp(lib.tensor([True, False]), min=lib.tensor(False)),
    "layer_norm_float32_parameters_float64_input": lambda lib: lib.nn.LayerNorm(3)(
        lib.ones(2, 3, dtype=lib.float64)),
    "layer_norm_float64_weight_float32_input": lambda lib: lib.nn.functional.layer_norm(
        lib.ones(2, 3), (3,), lib.ones(3, dtype=lib.float64)),
    "layer_norm_float32_parameters_float16_input": lambda lib: lib.nn.functional.layer_norm(
        lib.tensor([[1.0, 2.0, 4.0]], dtype=lib.float16), (3,), lib.ones(3), lib.zeros(3)),
    "overlapping_iadd": lambda lib: _in_place(lib, "a[1:] += a[:-1]"),
    "overlapping_add_": lambda lib: _in_place(lib, "a[:-1].add_(a[1:])"),
    "overlapping_copy_": lambda lib: _in_place(lib, "a[1:].copy_(a[:-1])"),
    "overlapping_setitem": lambda lib: _in_place(lib, "a[2:4] = a[1:3]"),
    "disjoint_iadd": lambda lib: _in_place(lib, "a[:3] += a[3:]"),
    "same_elements_iadd": lambda lib: _in_place(lib, "a.add_(a); a[:] += a[:]"),
    "strided_halves_iadd": lambda lib: _in_place(lib, "a[::2] += a[1::2]"),
    "cloned_iadd": lambda lib: _in_place(lib, "a[1:] += a[:-1].clone()"),
    "advanced_setitem_float64_into_float32": lambda lib: _set(lib.zeros(3), lib.tensor([0, 1]),
                                                              lib.tensor([1.0, 2.0], dtype=lib.float64)),
    "advanced_setitem_list_key": lambda lib: _set(lib.zeros(3), [0, 1],
                                                  lib.tensor([1.0, 2.0], dtype=lib.float64)),
    "advanced_setitem_int64_into_float32": lambda lib: _set(lib.zeros(3), lib.tensor([0, 1]),
                                                            lib.tensor([1, 2])),
    "mask_setitem_float64_0d": lambda lib: _set(lib.zeros(3), lib.tensor([True, False, True]),
                                                lib.tensor(2.0, dtype=lib.float64)),
    "mask_setitem_float64_1d": lambda lib: _set(lib.zeros(3), lib.tensor([True, False, True]),
                                                lib.tensor([1.0, 2.0], dtype=lib.float64)),
    "basic_setitem_float64_into_float32": lambda lib: _set(lib.zeros(3), slice(0, 2),
                                                           lib.tensor([1.0, 2.0], dtype=lib.float64)),
    "0d_index_setitem_float64": lambda lib: _set(lib.zeros(3), lib.tensor(1),
                                                 lib.tensor(2.0, dtype=lib.float64)),
    "int8_index_tensor": lambda lib: lib.arange(3.0)[lib.tensor([1], dtype=lib.int8)],
    "int16_index_tensor": lambda lib: lib.arange(3.0)[lib.tensor([1], dtype=lib.int16)],
    "int32_index_tensor": lambda lib: lib.arange(3.0)[lib.tensor([1], dtype=lib.int32)],
    "int8_0d_index_tensor": lambda lib: lib.arange(3.0)[lib.tensor(1, dtype=lib.int8)],
    "uint8_0d_index_tensor": lambda lib: lib.arange(6.0).reshape(2, 3)[lib.tensor(1, dtype=lib.uint8)],
    "inf_norm_of_empty_over_nonempty_dim": lambda lib: lib.zeros(0, 2).norm(math.inf, dim=1),
    "inf_norm_of_empty_over_empty_dim": lambda lib: lib.zeros(0, 2).norm(math.inf, dim=0),
    "inf_norm_of_empty": lambda lib: lib.zeros(0, 2).norm(math.inf),
    "zero_on_an_expanded_tensor": lambda lib: _expanded_fill(lib, "zero_"),
    "fill_on_an_expanded_tensor": lambda lib: _expanded_fill(lib, "fill_"),
    "add_on_an_expanded_tensor": lambda lib: lib.ones(1, 3).expand(2, 3).add_(1),
    "lerp_0d_float64_weight": lambda lib: lib.lerp(lib.zeros(2), lib.tensor([1.0, 3.0]),
                                                   lib.tensor(0.25, dtype=lib.float64)),
    "lerp_0d_int_weight": lambda lib: lib.lerp(lib.zeros(2), lib.ones(2), lib.tensor(1)),
    "lerp_1d_float64_weight": lambda lib: lib.lerp(lib.zeros(2), lib.ones(2), lib.tensor([0.5, 0.5],
                                                                                           dtype=lib.float64)),
    "topk_of_bool": lambda lib: lib.tensor([True, False, True]).topk(2),
    "two_ellipses": lambda lib: lib.arange(24.0).reshape(2, 3, 4)[..., ...],
    "ellipsis_index_ellipsis": lambda lib: lib.arange(24.0).reshape(2, 3, 4)[..., 0, ...],
    "index_ellipsis_ellipsis": lambda lib: lib.arange(24.0).reshape(2, 3, 4)[0, ..., ...],
    "ellipsis_ellipsis_index": lambda lib: lib.arange(24.0).reshape(2, 3, 4)[..., ..., 0],
}


def _expanded_fill(lib: Any, method: str) -> Any:
    base = lib.ones(1, 3)
    expanded = base.expand(2, 3)
    expanded.zero_() if method == "zero_" else expanded.fill_(4.0)
    return expanded, base


def _lerp_weight_gradient(lib: Any) -> Any:
    start = lib.tensor([0.0, 1.0], requires_grad=True)
    weight = lib.tensor(0.3, dtype=lib.float64, requires_grad=True)
    lib.lerp(start, lib.tensor([1.0, 3.0]), weight).sum().backward()
    return start.grad, weight.grad


ERRORS["lerp_0d_float64_weight_gradient"] = _lerp_weight_gradient


def _clamp_in_place_with_a_tensor_bound(lib: Any) -> Any:
    low = lib.tensor([2.0, 2.0, 0.5], requires_grad=True)
    y = lib.tensor([1.0, 5.0, 0.5])
    y.clamp_(min=low)
    y.sum().backward()
    return y, low.grad


ERRORS["clamp_in_place_with_a_tensor_bound"] = _clamp_in_place_with_a_tensor_bound
ERRORS["clamp_in_place_overlapping_bound"] = lambda lib: _in_place(lib, "a[1:].clamp_(max=a[:-1])")
ERRORS["randint_bound_past_int64"] = lambda lib: lib.randint(0, 2**64, (2,))
ERRORS["randint_bound_below_int64"] = lambda lib: lib.randint(-2**70, 0, (2,))


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_and_acceptance_match_torch(name):
    check(ERRORS[name])


def test_numpy_exceptions_do_not_escape():
    """The NumPy exceptions the audit saw leak out are PyTorch's now (the types PyTorch raises)."""
    with pytest.raises(RuntimeError, match="without overflow"):
        mg.tensor([1, 2], dtype=mg.int8).masked_fill(mg.tensor([True, False]), 300)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        mg.empty(2**40, 2**30)
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        mg.zeros(2**30, 2**30)   # 4 EiB: more than any machine holds (NumPy's MemoryError before)
    # any operation's forward: Function.apply reports NumPy's MemoryError as PyTorch's allocator does
    huge = mg.ones(2**20).expand(2**20, 2**20)   # a view of 4 TiB, no memory yet
    for compute in (lambda: huge.clone(), lambda: huge * 2, lambda: huge.repeat(2, 1)):
        with pytest.raises(RuntimeError, match="can't allocate memory"):
            compute()
    with pytest.raises(RuntimeError, match="can't allocate memory"), mg.no_grad():
        huge.exp()   # the unrecorded path too
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        a = mg.arange(6.0)
        a[1:] += a[:-1]


def test_uint8_index_warns_as_torch():
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        mg.arange(3.0)[mg.tensor([1, 0, 1], dtype=mg.uint8)]


# --- inference tensors: made in inference_mode, refused by autograd outside it ----------------------

def _inference_tensor(lib: Any) -> Any:
    with lib.inference_mode():
        x = lib.ones(2) * 3
        view_inside = x[0]
    return x, view_inside


def _inference_flags(lib: Any) -> Any:
    x, view_inside = _inference_tensor(lib)
    return [x.is_inference(), view_inside.is_inference(), x[1].is_inference(), x.detach().is_inference(),
            x.clone().is_inference(), lib.ones(1).is_inference()]


INFERENCE_REFUSED = {
    "saved for backward": lambda lib, x: (x * lib.ones(2, requires_grad=True)).sum().backward(),
    "changed in place": lambda lib, x: x.add_(1),
    "requires_grad_": lambda lib, x: x.requires_grad_(),
}


def test_inference_tensors_are_marked_as_pytorchs():
    assert _inference_flags(mg) == reference(_inference_flags) == [True, True, True, True, False, False]


@pytest.mark.parametrize("use", INFERENCE_REFUSED, ids=list(INFERENCE_REFUSED))
def test_an_inference_tensor_used_by_autograd_outside_inference_mode_is_refused(use):
    check(lambda lib: INFERENCE_REFUSED[use](lib, _inference_tensor(lib)[0]))


def _inference_tensor_uses_that_work(lib: Any) -> Any:
    x, _ = _inference_tensor(lib)
    w = lib.ones(2, requires_grad=True)
    (x + w).sum().backward()                          # added, not saved: allowed
    y = x.clone().requires_grad_()                    # a clone is a normal tensor
    (y * w).sum().backward()
    with lib.inference_mode():
        x.add_(1)                                     # in place inside inference mode
    return w.grad, y.grad, x


def test_inference_tensors_still_work_where_pytorch_allows():
    check(_inference_tensor_uses_that_work)
