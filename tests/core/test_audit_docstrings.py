"""Regression tests from an audit of the Tensors and Autograd surface against PyTorch's docstring
examples (``>>>`` in ``torch.sum.__doc__`` ...) and the edge cases those docs imply.

Pinned here: ``Tensor.view(dtype)`` (a docstring example that used to fail); ``view`` of a
non-contiguous view raises instead of silently copying, and ``contiguous()`` copies such a view;
an integer mixed with index arrays indexes as in PyTorch (``x[0, :, [1, 2]]`` is 3×2, not 2×3);
``x[[]]``; ``size=`` for the factories, ``tensor(range(n))``, ``arange`` with NumPy integers,
``end=`` or an integer dtype and float bounds; ``to(copy=True)``; ``cat`` promoting with the
empty tensors it skips; ``where`` with a uint8 condition or a 0-d one; ``no_grad`` on generator
functions; ``autograd.grad`` running a leaf's hooks; ``max(other=)`` and ``input=``;
``z = y * 2`` not saving y; and misuse that used to pass silently or raise the wrong type
(integer overflow in ``tensor``, float sizes, float ``alpha`` with integers, ``abs`` and ``@``
of bools, non-tensor arguments, ``softmax`` without a dim, ``Generator.manual_seed(2**64)``).
"""

from __future__ import annotations

import warnings

import numpy
import pytest
from _reference import reference
from _torch import raises_like_torch, require_torch

import minigrad as mg

from .helpers import dtype_name, to_numpy


def _same(ours, theirs) -> None:
    """Same shape, dtype and values (nan equal to nan; floats to 1e-6) as PyTorch's tensor."""
    assert tuple(ours.shape) == tuple(theirs.shape), f"{list(ours.shape)} != {list(theirs.shape)}"
    assert dtype_name(ours.dtype) == dtype_name(theirs.dtype), f"{ours.dtype} != {theirs.dtype}"
    expected = theirs if isinstance(theirs, numpy.ndarray) else theirs.detach().numpy()
    if expected.dtype.kind == "f":
        numpy.testing.assert_allclose(to_numpy(ours), expected, rtol=1e-6, atol=0)
    else:
        numpy.testing.assert_array_equal(to_numpy(ours), expected)


def _both(fn) -> None:
    """``fn(lib)`` gives the same tensor (or tuple of tensors) for minigrad and PyTorch."""
    ours, theirs = fn(mg), reference(fn)
    if isinstance(theirs, numpy.ndarray):
        ours, theirs = (ours,), (theirs,)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        _same(a, b)


def _quietly(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn()


# --- view(dtype) and view of non-contiguous tensors ------------------------------------------

DATA = [[1.5, -2.0, 3.25, 0.0], [4.0, 5.0, -6.0, 7.5]]


@pytest.mark.parametrize("dtype", ["int32", "float16", "float64", "uint8", "bool", "float32"])
def test_view_as_another_dtype_reads_the_same_bytes(dtype):
    _both(lambda m: m.tensor([[1.0, 0.0, 2.0, 0.0], [0.5, 0.25, 1.0, 3.0]]).view(getattr(m, dtype)))


def test_view_dtype_docstring_example_writes_through_and_is_not_differentiable():
    torch = require_torch()
    results = []
    for lib in (mg, torch):
        x = lib.tensor(DATA, requires_grad=True)
        y = x.detach().view(lib.int32)
        y[0, 0] = 1000000000
        z = x.view(dtype=lib.float16)
        results.append((x, y, z))
        assert not x.view(lib.int32).requires_grad and x.view(lib.float32).grad_fn is None
    for ours, theirs in zip(*results, strict=True):
        _same(ours, theirs)


@pytest.mark.parametrize("make", [
    lambda m: m.tensor(1.0).view(m.float16),                            # 0-d, another element size
    lambda m: m.arange(16.0).reshape(4, 4).t().view(m.float64),         # stride(-1) is not 1
    lambda m: m.arange(12.0).reshape(4, 3).view(m.float64),             # size(-1) not divisible
    lambda m: m.arange(6.0).reshape(2, 3)[:, :2].view(m.float64),       # stride(0) not divisible
])
def test_view_dtype_refuses_like_torch(make):
    raises_like_torch(make, RuntimeError, "different element sizes")


A = lambda m: m.arange(24.0).reshape(2, 3, 4)  # noqa: E731


@pytest.mark.parametrize("make", [
    lambda m: A(m).transpose(0, 1).view(-1),
    lambda m: A(m)[:, 1].view(-1),
    lambda m: m.arange(6.0).reshape(2, 3).t().view(6),
    lambda m: m.ones(3, 1).expand(3, 4).view(12),
    lambda m: A(m).permute(1, 0, 2).view(3, 8),
    lambda m: m.arange(6.0).reshape(2, 3).t().view_as(m.zeros(6)),
])
def test_view_of_a_non_contiguous_view_raises(make):
    raises_like_torch(make, RuntimeError, "view size is not compatible", "reshape")


@pytest.mark.parametrize("make", [
    lambda m: A(m).transpose(0, 1).reshape(-1),
    lambda m: A(m)[1:].view(12),
    lambda m: A(m)[:, 1:2].view(2, 4),
    lambda m: A(m).permute(0, 2, 1).view(2, 4, 3, 1),
    lambda m: A(m).permute(1, 0, 2).view(3, 2, 2, 2),
    lambda m: m.ones(3, 4)[None].expand(2, 3, 4).view(2, 12),
    lambda m: m.arange(6.0).reshape(2, 3).t().contiguous().view(6),
    lambda m: m.zeros(2, 1).t().view(2),
])
def test_views_that_need_no_copy_still_work(make):
    _both(make)


def test_contiguous_copies_a_non_contiguous_view_only():
    torch = require_torch()
    for lib in (mg, torch):
        x = lib.arange(6.0).reshape(2, 3)
        assert x.contiguous() is x and x[0].contiguous() is not None
        y = x.t().contiguous()
        y[0, 0] = 9.0
        assert float(x[0, 0]) == 0.0  # a copy, as PyTorch's


def test_a_view_after_contiguous_is_differentiable():
    _both(lambda m: _view_grad(m))


def _view_grad(m):
    x = m.arange(6.0, requires_grad=True)
    y = x.view(2, 3).t().contiguous().view(6)
    (y * m.arange(6.0)).sum().backward()
    return y, x.grad


@pytest.mark.parametrize("make", [
    lambda m: m.zeros(2, 3).view(3.0, 2),
    lambda m: m.zeros(2, 3).reshape(3, -1.0),
    lambda m: m.zeros(2, 3).expand(2.0, 3),
    lambda m: m.zeros(2, 3).permute(1.0, 0),
    lambda m: m.tensor(1.0).permute(),
])
def test_float_sizes_and_missing_dims_are_type_errors(make):
    raises_like_torch(make, TypeError)


# --- indexing ---------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [
    (0, slice(None), [1, 2]), (-1, slice(None), [3, -1]), (None, 0, slice(None), [1, 2]),
    (0, Ellipsis, [1, 2]), (slice(None), 0, [[1], [2]]), (0, [0, 1], 0), (1, slice(1, None), [0, 0, 3]),
], ids=str)
def test_integers_mixed_with_index_arrays_index_as_torch(key):
    _both(lambda m: A(m)[key])


def test_a_0d_integer_tensor_indexes_as_an_integer():
    _both(lambda m: A(m)[m.tensor(1), :, [1, 2]])


def test_mixed_index_assignment_and_gradients_match_torch():
    def run(m):
        x = m.arange(24.0, requires_grad=True)
        z = x * 1
        v = m.ones(3, 2, requires_grad=True)
        z.view(2, 3, 4)[0, :, [1, 2]] = v * m.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        y = z.view(2, 3, 4)[1, :, [0, 0, 3]]
        ((z * m.arange(24.0)).sum() + (y * m.arange(9.0).reshape(3, 3)).sum()).backward()
        return z, y, x.grad, v.grad
    _both(run)


def test_an_empty_list_index_selects_nothing():
    _both(lambda m: (m.arange(6.0).reshape(2, 3)[[]], m.arange(6.0).reshape(2, 3)[:, []]))


# --- creation ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_factories_take_size_as_a_keyword(name):
    ours = getattr(mg, name)(size=(2, 3), dtype=mg.float64)
    theirs = reference(lambda torch: list(getattr(torch, name)(size=(2, 3), dtype=torch.float64).shape))
    assert list(ours.shape) == theirs and dtype_name(ours.dtype) == "float64"
    raises_like_torch(lambda m: getattr(m, name)(2, size=(2,)), TypeError)


@pytest.mark.parametrize("make", [
    lambda m: m.full(2, 3.0), lambda m: m.full(size=2, fill_value=1.0), lambda m: m.randint(10, 3),
    lambda m: m.randint(10, size=3), lambda m: m.randint(2.0, (2,)), lambda m: m.randint(0, 2.0, (2,)),
    lambda m: m.zeros(size=2), lambda m: m.rand(2, generator=3),
])
def test_sizes_and_bounds_of_the_wrong_type_are_type_errors(make):
    raises_like_torch(make, TypeError)


@pytest.mark.parametrize("make", [
    lambda m: m.tensor(range(4)), lambda m: m.tensor(range(0)), lambda m: m.tensor([range(2), range(2)]),
    lambda m: m.tensor(2**63, dtype=m.float32), lambda m: m.tensor([[m.tensor(1.0), 2.0]]),
    lambda m: m.tensor(1e40),
])
def test_tensor_from_ranges_and_large_numbers(make):
    _quietly(lambda: _both(make))


@pytest.mark.parametrize("make, error", [
    (lambda m: m.tensor(2**63), ValueError), (lambda m: m.tensor([1, 2**70]), ValueError),
    (lambda m: m.tensor(-(2**63) - 1), ValueError), (lambda m: m.tensor([m.tensor([1.0, 2.0])]), ValueError),
    (lambda m: m.tensor([m.tensor([1, 2]), m.tensor([3, 4])]), TypeError),
])
def test_tensor_refuses_overflow_and_multi_element_tensors_in_lists(make, error):
    raises_like_torch(make, error)


@pytest.mark.parametrize("make", [
    lambda m: m.arange(numpy.int64(3)), lambda m: m.arange(0, 4, numpy.int64(2)), lambda m: m.arange(end=3),
    lambda m: m.arange(end=3, start=1), lambda m: m.arange(2.5, dtype=m.int64),
    lambda m: m.arange(0.5, 3, dtype=m.int64), lambda m: m.arange(0.5, 3.7, 1.5, dtype=m.int64),
    lambda m: m.arange(numpy.float32(2.0)), lambda m: m.arange(0, 5, numpy.float64(1.5)),
    lambda m: m.arange(True),
])
def test_arange_bounds_and_dtypes_match_torch(make):
    _both(make)


@pytest.mark.parametrize("make, error", [
    (lambda m: m.arange(3, dtype=m.bool), NotImplementedError),
    (lambda m: m.arange(float("inf")), RuntimeError), (lambda m: m.arange(float("nan")), RuntimeError),
    (lambda m: m.arange(-2.5, dtype=m.int64), RuntimeError),
    (lambda m: m.arange(1, 4, 0.5, dtype=m.int64), ValueError),
])
def test_arange_refuses_like_torch(make, error):
    raises_like_torch(make, error)


def test_to_with_copy_makes_a_new_tensor():
    x = mg.ones(2, requires_grad=True)
    y = x.to(mg.float32, copy=True)
    assert y is not x and y.grad_fn is not None
    assert x.to("cpu" if x.device.type == "cpu" else "cuda", copy=True) is not x
    assert x.to(mg.float32) is x


def test_casting_nan_to_an_integer_is_silent():
    _quietly(lambda: mg.tensor([float("nan"), float("inf")]).long())


# --- cat, stack, where ------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda m: m.cat((m.tensor([]), m.tensor([1, 2]))),
    lambda m: m.cat((m.tensor([]), m.tensor([[1, 2]]))),
    lambda m: m.cat((m.tensor([1, 2]), m.tensor([], dtype=m.float64))),
    lambda m: m.cat((m.tensor([True]), m.tensor([], dtype=m.int64))),
])
def test_cat_promotes_with_the_empty_tensors_it_skips(make):
    _both(make)


@pytest.mark.parametrize("make", [
    lambda m: m.cat([m.ones(1), 2.0]), lambda m: m.stack([m.ones(1), [1.0]]),
    lambda m: m.cat(m.ones(2)), lambda m: m.stack(5),
])
def test_cat_and_stack_take_only_tensors(make):
    raises_like_torch(make, TypeError)


def test_where_accepts_a_uint8_condition_with_torchs_warning():
    torch = require_torch()
    with pytest.warns(UserWarning, match="uint8 condition"):
        ours = mg.where(mg.tensor([1, 0, 2], dtype=mg.uint8), mg.ones(3), 0.0)
    with warnings.catch_warnings():  # PyTorch warns once per process
        warnings.simplefilter("ignore")
        theirs = torch.where(torch.tensor([1, 0, 2], dtype=torch.uint8), torch.ones(3), 0.0)
    _same(ours, theirs)
    raises_like_torch(lambda m: m.where(m.tensor([1, 0]), 1.0, 0.0), RuntimeError, "int64")


@pytest.mark.parametrize("make", [
    lambda m: m.where(m.tensor(5.0)), lambda m: m.where(m.tensor(0.0)), lambda m: m.where(m.tensor(True)),
    lambda m: m.nonzero(m.tensor(5.0)), lambda m: m.nonzero(m.tensor(0.0)),
    lambda m: m.nonzero(m.tensor(5.0), as_tuple=True),
])
def test_where_and_nonzero_of_a_0d_tensor(make):
    _both(make)


# --- keywords PyTorch documents ---------------------------------------------------------------

M = lambda m: m.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])  # noqa: E731


@pytest.mark.parametrize("make", [
    lambda m: m.max(M(m), other=m.full((2, 3), 3.0)), lambda m: M(m).min(other=m.full((2, 3), 3.0)),
    lambda m: m.max(input=M(m), dim=1), lambda m: m.sum(input=M(m), dim=1),
    lambda m: m.gt(input=M(m), other=2),
    lambda m: m.where(condition=M(m) > 2, input=M(m), other=0.0), lambda m: m.softmax(input=M(m), dim=0),
])
def test_documented_keywords(make):
    _both(make)


@pytest.mark.parametrize("make", [
    lambda m: m.exp(2.0), lambda m: m.sum([1, 2]), lambda m: m.relu(2.0), lambda m: m.abs(2),
    lambda m: m.max([1, 2]), lambda m: m.matmul([1.0], m.ones(1)), lambda m: m.transpose([[1.0]], 0, 1),
    lambda m: m.reshape([1.0], (1,)), lambda m: m.clamp(1.0, 0, 1), lambda m: m.softmax([1.0], 0),
    lambda m: m.eq(2, m.ones(2)), lambda m: m.maximum(m.ones(2), 2.0), lambda m: m.minimum(2.0, m.ones(2)),
    lambda m: m.ones(2).view_as([1, 2]), lambda m: m.ones(2).expand_as([1]), lambda m: m.ones(2).type_as(1.0),
    lambda m: m.ones(2).reshape_as(1.0), lambda m: m.ones(2).copy_([1.0, 2.0]),
    lambda m: m.ones(2).copy_(numpy.ones(2)), lambda m: m.max(m.ones(2), 0, other=m.zeros(2)),
    lambda m: m.softmax(m.ones(2)), lambda m: m.ones(2).softmax(), lambda m: m.ones(2).log_softmax(),
    lambda m: m.log_softmax(m.ones(2)), lambda m: m.softmax(m.ones(2), None),
    lambda m: m.ones(2, requires_grad=True).mul(2).backward([1.0, 1.0]),
])
def test_arguments_of_the_wrong_type_are_type_errors(make):
    raises_like_torch(make, TypeError)


def test_functional_softmax_keeps_its_implicit_dim():
    torch = require_torch()
    for lib in (mg, torch):
        with pytest.warns(UserWarning, match="Implicit dimension"):
            lib.nn.functional.softmax(lib.ones(2, 3))


def test_copy_from_a_number_still_fills():
    _both(lambda m: m.ones(2).copy_(3.0))


# --- dtype rules --------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda m: m.tensor([1, 2]).add(1, alpha=2.5), lambda m: m.tensor([1, 2]).sub(m.tensor([1, 2]), alpha=2.0),
    lambda m: m.add(2, m.tensor([1, 2]), alpha=2.5), lambda m: m.tensor([1, 2]).add(1, alpha=True),
    lambda m: m.ones(2, dtype=m.int64).add_(1, alpha=0.5),
])
def test_float_or_bool_alpha_with_integers_raises(make):
    raises_like_torch(make, RuntimeError, "alpha")


@pytest.mark.parametrize("make", [
    lambda m: m.tensor([1.0, 2.0]).add(1, alpha=2.5), lambda m: m.add(m.tensor([1, 2]), 1.5, alpha=2),
    lambda m: m.tensor([True]).add(m.tensor([True]), alpha=True),
    lambda m: m.sub(m.tensor([1, 2]), m.tensor([1.0, 2.0]), alpha=0.5),
])
def test_alpha_that_fits_the_result(make):
    _both(make)


@pytest.mark.parametrize("make", [
    lambda m: m.abs(m.tensor([True, False])), lambda m: m.tensor([True]).abs(),
    lambda m: m.ones(2, 3, dtype=m.bool) @ m.ones(3, 2, dtype=m.bool),
    lambda m: m.ones(3, dtype=m.bool) @ m.ones(3, dtype=m.bool),
])
def test_bool_abs_and_matmul_are_not_implemented(make):
    raises_like_torch(make, NotImplementedError, "Bool")


# --- grad mode, autograd, generators ----------------------------------------------------------

@pytest.mark.parametrize("mode", ["no_grad", "enable_grad"])
def test_grad_mode_decorates_generator_functions(mode):
    torch = require_torch()
    results = []
    for lib in (mg, torch):
        @getattr(lib, mode)()
        def generate(lib=lib):
            yield lib.is_grad_enabled()
            yield lib.is_grad_enabled()
            return "done"

        outer = lib.set_grad_enabled(mode == "no_grad")
        with outer:
            states = list(generate())
            states.append(lib.is_grad_enabled())
        results.append(states)
    assert results[0] == results[1] == [mode == "enable_grad"] * 2 + [mode == "no_grad"]


def test_grad_runs_the_hooks_of_a_leaf_input():
    torch = require_torch()
    results = []
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g * 10)
        (grad,) = lib.autograd.grad((x * x).sum(), x)
        (x * x).sum().backward(inputs=[x])
        results.append((grad, x.grad))
    for ours, theirs in zip(*results, strict=True):
        _same(ours, theirs)


def test_mul_does_not_save_an_operand_its_backward_does_not_need():
    def run(m):
        x = m.ones(2, requires_grad=True)
        y = x * 1
        z = y * 2
        w = y / m.tensor([2.0, 4.0])
        y.add_(1)  # z's and w's backward need only the constants
        (z + w).sum().backward()
        return x.grad
    _both(run)


def test_backward_through_inf_and_nan_is_silent():
    def run(m):
        x = m.tensor([0.0, 1.0, -1.0], dtype=m.float64, requires_grad=True)
        (x.abs() ** 0.5 + x ** x.abs()).sum().backward()
        return x.grad
    _quietly(lambda: _both(run))


def test_transposing_a_tensor_that_is_not_2d_warns_as_torch():
    """PyTorch warns once per process, so only minigrad's warning is checked here."""
    with pytest.warns(UserWarning, match="x.T"):
        mg.zeros(2, 3, 4).T  # noqa: B018
    _quietly(lambda: mg.zeros(2, 3).T)


def test_generator_has_a_device_and_refuses_seeds_out_of_range():
    torch = require_torch()
    assert str(mg.Generator().device) == str(torch.Generator().device) == "cpu"
    for seed in (2**64, -(2**63) - 1):
        raises_like_torch(lambda m, seed=seed: m.Generator().manual_seed(seed), ValueError)
    raises_like_torch(lambda m: m.manual_seed(2**64), ValueError)
    seeds = [lib.Generator().manual_seed(-(2**63)).initial_seed() for lib in (mg, torch)]
    assert seeds[0] == seeds[1] == 2**63  # wrapped around, as a uint64
