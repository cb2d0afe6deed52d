"""Regression tests from an audit of the reductions against PyTorch.

Pinned here: reductions over nothing (mean is nan without NumPy's RuntimeWarning, amax/amin
reduce the non-empty dims of an empty tensor and name the empty one they cannot); var and
std with no degrees of freedom (PyTorch's UserWarning, its nan/inf values and gradients,
where the backward used to raise ZeroDivisionError); std's gradient on constant data (0,
not nan); max()'s gradient at a nan; and misuse that used to give a silent result (a tuple
dim for a one-dim reduction, keepdim without dim, argmax of bool, unbiased with correction).
"""

from __future__ import annotations

import math
import warnings

import numpy
import pytest
from _reference import reference
from _torch import require_torch

import minigrad as mg

from .helpers import to_numpy

NAN = math.nan


def _quietly(fn, *args):
    """``fn(*args)``, failing on any warning; returns the result."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args)


def _grad_both(data, fn, dtype="float64"):
    """(value, grad) of ``fn`` for minigrad and PyTorch, as host arrays, warnings ignored."""
    def run(lib):
        x = lib.tensor(numpy.array(data, dtype=dtype), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = fn(x)
            y.sum().backward()
        return y.detach(), x.grad

    y, grad = run(mg)
    return (to_numpy(y), to_numpy(grad)), tuple(reference(run))


@pytest.mark.parametrize("shape, dim", [((0,), None), ((0, 3), 0), ((2, 0), 1), ((0, 3), 1),
                                        ((2, 0), (0, 1))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mean_of_nothing_is_nan_without_a_warning(shape, dim, dtype):
    ours = _quietly(lambda: mg.zeros(shape, dtype=getattr(mg, dtype)).mean(dim))
    theirs = reference(lambda torch: torch.zeros(shape, dtype=getattr(torch, dtype)).mean(dim))
    assert ours.dtype.name == dtype and tuple(ours.shape) == tuple(theirs.shape)
    numpy.testing.assert_array_equal(to_numpy(ours), theirs)  # nan == nan here


def test_mean_of_nothing_has_an_empty_gradient():
    x = mg.zeros(2, 0, requires_grad=True)
    _quietly(lambda: x.mean(1).sum().backward())
    assert x.grad.shape == (2, 0)


VAR_WITHOUT_DOF = [  # (data or shape, dim, correction): N - correction <= 0
    ((0,), None, None), ([1.0], None, None), ([[1.0], [2.0]], 1, None), ((0, 3), 0, None),
    ((2, 0), 1, None), ((2, 0), 0, None), ([1.0, 2.0], 0, 2), ([1.0, 2.0], None, 3), (5.0, None, None),
]


def _tensor(lib, spec):
    return lib.zeros(spec) if isinstance(spec, tuple) else lib.tensor(spec)


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("spec, dim, correction", VAR_WITHOUT_DOF)
def test_var_and_std_without_degrees_of_freedom_warn_as_torch(name, spec, dim, correction):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = getattr(_tensor(mg, spec), name)(dim, correction=correction)
    assert [w.category for w in caught] == [UserWarning], [str(w.message) for w in caught]
    assert f"{name}(): degrees of freedom is <= 0" in str(caught[0].message)

    def torch_answer(torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(_tensor(torch, spec), name)(dim, correction=correction)

    numpy.testing.assert_array_equal(to_numpy(ours), reference(torch_answer))


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("spec, dim, correction", [s for s in VAR_WITHOUT_DOF if not isinstance(s[0], tuple)])
def test_var_and_std_gradients_without_degrees_of_freedom_match_torch(name, spec, dim, correction):
    """They raised ZeroDivisionError; PyTorch gives nan at the mean and ±inf elsewhere."""
    (value, grad), (value_t, grad_t) = _grad_both(
        spec, lambda x: getattr(x, name)(dim, correction=correction))
    numpy.testing.assert_array_equal(value, value_t)
    numpy.testing.assert_array_equal(grad, grad_t)


def test_std_gradient_of_constant_data_is_zero_as_torch():
    """sqrt's derivative at 0 is inf, and inf · 0 gave nan; PyTorch defines it as 0."""
    data = [[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]]
    (value, grad), (value_t, grad_t) = _grad_both(data, lambda x: x.std(1))
    numpy.testing.assert_allclose(value, value_t, rtol=1e-12)
    numpy.testing.assert_allclose(grad, grad_t, rtol=1e-12)
    numpy.testing.assert_array_equal(grad[0], [0.0, 0.0, 0.0])
    assert type(mg.ones(3, requires_grad=True).std().grad_fn).__name__ == "StdBackward0"  # as PyTorch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_var_and_std_keep_their_values_and_dtype(dtype):
    torch = require_torch()
    data = numpy.random.default_rng(0).normal(size=(3, 4, 5)).astype(dtype)
    for kwargs in ({}, {"dim": 1}, {"dim": (0, -1), "keepdim": True}, {"dim": 2, "correction": 0}):
        for name in ("var", "std"):
            ours = getattr(mg.tensor(data), name)(**kwargs)
            theirs = getattr(torch.tensor(data), name)(**kwargs)
            assert ours.dtype.name == dtype
            rtol = 1e-5 if dtype == "float32" else 1e-12
            numpy.testing.assert_allclose(to_numpy(ours), theirs.numpy(), rtol=rtol)


def test_var_of_inf_is_nan_without_a_warning():
    (value, grad), (value_t, grad_t) = _grad_both([math.inf, 1.0], lambda x: _quietly(x.var))
    numpy.testing.assert_array_equal(value, value_t)
    numpy.testing.assert_array_equal(grad, grad_t)


def test_var_refuses_unbiased_and_correction_together():
    with pytest.raises(TypeError, match="unbiased=True.*correction=0"):
        mg.tensor([1.0, 2.0]).var(unbiased=True, correction=0)


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("shape, dim", [((0, 3), 1), ((2, 0), 0), ((0, 3), (1,))])
def test_amax_reduces_the_non_empty_dims_of_an_empty_tensor(name, shape, dim):
    ours = getattr(mg.zeros(shape), name)(dim)
    theirs = reference(lambda torch: list(getattr(torch.zeros(shape), name)(dim).shape))
    assert list(ours.shape) == theirs


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("shape, dim, empty", [((0, 3), 0, 0), ((2, 0), 1, 1), ((2, 0), (0, 1), 1),
                                                ((0, 3), -2, -2)])
def test_amax_over_an_empty_dim_raises_index_error_naming_it(name, shape, dim, empty):
    def torch_message(torch):
        with pytest.raises(IndexError) as theirs:
            getattr(torch.zeros(shape), name)(dim)
        return str(theirs.value)

    expected = rf"{name}\(\): Expected reduction dim {empty} to have non-zero size"
    with pytest.raises(IndexError, match=expected):
        getattr(mg.zeros(shape), name)(dim)
    assert f"dim {empty} " in reference(torch_message)


@pytest.mark.parametrize("name", ["max", "min", "amax", "amin"])
def test_full_reduction_of_nothing_says_to_specify_a_dim(name):
    with pytest.raises(RuntimeError, match=r"Specify the reduction dim with the 'dim' argument"):
        getattr(mg.zeros(2, 0), name)()


@pytest.mark.parametrize("name", ["max", "min", "amax", "amin"])
@pytest.mark.parametrize("data", [[1.0, NAN, 3.0], [NAN, 2.0, NAN], [[1.0, 3.0], [3.0, NAN]]])
def test_gradient_at_a_nan_maximum_matches_torch(name, data):
    """max()/min() give the gradient to the nans (they used to give nan everywhere); amax/amin give
    nan everywhere, as PyTorch; neither warns."""
    (value, grad), (value_t, grad_t) = _grad_both(data, lambda x: _quietly(getattr(x, name)))
    numpy.testing.assert_array_equal(value, value_t)
    numpy.testing.assert_array_equal(grad, grad_t)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions_refuse_bool_as_torch(name):
    with pytest.raises(RuntimeError, match=rf"{name}\(\): does not support bool input"):
        getattr(mg.tensor([True, False]), name)()


@pytest.mark.parametrize("call", [lambda t: t.argmax((0, 1)), lambda t: t.argmin(dim=[1]),
                                  lambda t: t.max((0, 1)), lambda t: t.min(dim=(0,)),
                                  lambda t: mg.max(t, (1,))])
def test_one_dim_reductions_refuse_a_tuple_of_dims(call):
    """They used to reduce the tuple's first dim only, silently."""
    with pytest.raises(TypeError, match=r"argument 'dim' must be int, not (tuple|list)"):
        call(mg.zeros(2, 3))


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_with_keepdim_but_no_dim_raises_type_error(name):
    """It used to ignore keepdim and return a 0-d tensor; PyTorch has no such signature."""
    torch = require_torch()
    with pytest.raises(TypeError):
        getattr(torch.zeros(2, 3), name)(keepdim=True)
    with pytest.raises(TypeError, match="keepdim=True without a dim"):
        getattr(mg.zeros(2, 3), name)(keepdim=True)


def test_max_with_a_numpy_integer_dim_still_works():
    values, indices = mg.tensor([[1.0, 5.0], [7.0, 2.0]]).max(numpy.int64(1))
    numpy.testing.assert_array_equal(to_numpy(values), [5.0, 7.0])
    numpy.testing.assert_array_equal(to_numpy(indices), [1, 0])
