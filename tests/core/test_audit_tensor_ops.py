"""Regression tests from an audit of tensor creation and math against PyTorch.

Pinned here: ``tensor(a_tensor)`` warns as PyTorch does; a negative slice step raises
ValueError (NumPy would reverse); ``clamp`` with tensor bounds sends the whole gradient to
the input where it equals a bound (it used to split it half and half); ``%`` is
differentiable in both operands; float ``//`` and ``%`` by zero give inf/nan without
NumPy's RuntimeWarning; ``//`` and ``%`` of bool tensors raise NotImplementedError (they
used to answer in int8, or raise "ZeroDivisionError").
"""

from __future__ import annotations

import warnings

import numpy
import pytest
from _reference import reference
from _torch import require_torch

import minigrad as mg

from .helpers import to_numpy


def _host(lib, t):
    return t.detach().numpy() if lib is not mg else to_numpy(t)


def test_tensor_from_a_tensor_warns_like_torch():
    torch = require_torch()
    for lib in (torch, mg):
        source = lib.ones(2)
        with pytest.warns(UserWarning, match="detach\\(\\).clone\\(\\)"):
            copy = lib.tensor(source)
        assert copy.dtype == source.dtype and list(copy.shape) == [2]


def test_tensor_from_data_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mg.tensor([1.0, 2.0])
        mg.tensor(numpy.ones(2))


@pytest.mark.parametrize("key", [slice(None, None, -1), slice(3, 0, -2)])
def test_negative_slice_step_raises_value_error(key):
    torch = require_torch()
    with pytest.raises(ValueError, match="step must be greater than zero"):
        torch.arange(5)[key]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        mg.arange(5)[key]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        mg.zeros(2, 5)[:, key] = 1.0


def test_positive_slice_steps_still_work():
    assert to_numpy(mg.arange(6)[1::2]).tolist() == [1, 3, 5]


def test_clamp_with_tensor_bounds_gradient_matches_torch():
    """Ties with a bound (entries 1, 2, 3) send the gradient to the input, as PyTorch does; min > max at 4."""
    torch = require_torch()
    results = []
    for lib in (mg, torch):
        a = lib.tensor([0.5, 1.0, 2.0, 3.5, -1.0], dtype=lib.float64, requires_grad=True)
        low = lib.tensor([1.0, 1.0, 1.0, 4.0, 0.0], dtype=lib.float64, requires_grad=True)
        high = lib.tensor([2.0, 2.0, 2.0, 3.5, -0.5], dtype=lib.float64, requires_grad=True)
        y = a.clamp(low, high)
        y.backward(lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=lib.float64))
        results.append([_host(lib, t) for t in (y, a.grad, low.grad, high.grad)])
    for ours, theirs in zip(*results, strict=True):
        numpy.testing.assert_array_equal(ours, theirs)
    assert results[0][1].tolist() == [0.0, 2.0, 3.0, 0.0, 0.0]  # by hand: inside or on a bound


def test_clamp_with_one_tensor_bound_at_a_tie():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    low = mg.tensor([1.0, 0.0], requires_grad=True)
    a.clamp(min=low).sum().backward()
    assert to_numpy(a.grad).tolist() == [1.0, 1.0]
    assert to_numpy(low.grad).tolist() == [0.0, 0.0]


def test_remainder_gradient_matches_torch():
    """d(a % b)/da = 1, d(a % b)/db = -floor(a / b)."""
    torch = require_torch()
    results = []
    for lib in (mg, torch):
        a = lib.tensor([[5.5, -3.0, 7.25]], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([[2.0], [-1.5]], dtype=lib.float64, requires_grad=True)
        y = a % b
        y.backward(lib.ones(2, 3, dtype=lib.float64))
        results.append([_host(lib, t) for t in (y, a.grad, b.grad)])
    for ours, theirs in zip(*results, strict=True):
        numpy.testing.assert_allclose(ours, theirs)
    assert results[0][2].ravel().tolist() == [-(2 - 2 + 3), -(-4 + 2 + -5)]  # -Σ floor(a/b), by hand


def test_remainder_by_a_number_keeps_gradient_and_integer_dtype():
    a = mg.tensor([5.0, -3.0], requires_grad=True)
    (a % 2.0).sum().backward()
    assert to_numpy(a.grad).tolist() == [1.0, 1.0]
    y = mg.tensor([5, -3, 7]) % 3
    assert y.dtype == mg.int64 and to_numpy(y).tolist() == [2, 0, 1]


@pytest.mark.parametrize("op", [lambda a, b: a // b, lambda a, b: a % b])
def test_float_division_by_zero_is_silent(op):
    torch = require_torch()
    expected = _host(torch, op(torch.tensor([1.0, -1.0, 0.0]), 0.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = to_numpy(op(mg.tensor([1.0, -1.0, 0.0]), 0.0))
    numpy.testing.assert_array_equal(ours, expected)


@pytest.mark.parametrize("call", [
    lambda lib, b: b // b,
    lambda lib, b: b // True,
    lambda lib, b: b % b,
    lambda lib, b: True % b,
    lambda lib, b: lib.div(b, b, rounding_mode="trunc"),
])
def test_bool_floor_division_and_remainder_raise_like_torch(call):
    def refuses(lib):
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            call(lib, lib.tensor([True, False]))
        return True

    assert reference(refuses) and refuses(mg)
