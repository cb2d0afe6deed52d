"""``minigrad.autograd.functional``: ``vjp`` and ``jacobian`` against PyTorch's, values and the exact
return structure (Tensor, tuple, tuple of tuples) and strict mode. The higher-order helpers and
``create_graph=True`` are tested in test_higher_order_functional.py."""

from __future__ import annotations

import numpy as np
import pytest
from _torch import require_torch

import minigrad


def _same(ours, theirs) -> None:
    """Equal structure (Tensor / tuple nesting) and values."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
        return
    assert isinstance(ours, minigrad.Tensor) and not ours.requires_grad
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


def _inputs(lib, shapes, seed=0):
    rng = np.random.default_rng(seed)
    tensors = tuple(lib.tensor(rng.standard_normal(shape)) for shape in shapes)
    return tensors


# (name, function of lib, input shapes, whether the inputs are given as a tuple)
FUNCTIONS = [
    ("elementwise", lambda lib: lambda x: x.exp() * 2 - x.sin(), [(4,)], False),
    ("matrix", lambda lib: lambda x: (x @ x.t()).tanh(), [(2, 3)], False),
    ("scalar", lambda lib: lambda x: (x * x).sum(), [(3,)], False),
    ("two_inputs", lambda lib: lambda x, w: lib.nn.functional.linear(x, w).relu(), [(2, 3), (4, 3)], True),
    ("one_input_in_a_tuple", lambda lib: lambda x: x.pow(3), [(3,)], True),
    ("two_outputs", lambda lib: lambda x: (x.exp(), x.sum()), [(3,)], False),
    ("two_by_two", lambda lib: lambda x, y: (x * y, (x - y).pow(2).mean()), [(3,), (3,)], True),
    ("unused_input", lambda lib: lambda x, y: x * 3, [(2,), (5,)], True),
    ("softmax_cross_entropy", lambda lib: lambda x: lib.nn.functional.cross_entropy(
        x, lib.tensor([0, 2])), [(2, 3)], False),
]


@pytest.mark.parametrize("name, make, shapes, as_tuple", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_jacobian_matches_torch(name, make, shapes, as_tuple):
    torch = require_torch()
    results = []
    for lib in (minigrad, torch):
        inputs = _inputs(lib, shapes)
        results.append(lib.autograd.functional.jacobian(make(lib), inputs if as_tuple else inputs[0]))
    _same(*results)


@pytest.mark.parametrize("name, make, shapes, as_tuple", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_vjp_matches_torch(name, make, shapes, as_tuple):
    torch = require_torch()
    results = []
    for lib in (minigrad, torch):
        inputs = _inputs(lib, shapes)
        given = inputs if as_tuple else inputs[0]
        with lib.no_grad():
            outputs = make(lib)(*inputs)
        rng = np.random.default_rng(1)
        if isinstance(outputs, tuple):
            v = tuple(lib.tensor(rng.standard_normal(tuple(o.shape))) for o in outputs)
        else:
            v = lib.tensor(rng.standard_normal(tuple(outputs.shape)))
        results.append(lib.autograd.functional.vjp(make(lib), given, v))
    _same(*results)


def test_vjp_without_v_for_a_one_element_output_and_leaves_untouched():
    torch = require_torch()
    results = []
    for lib in (minigrad, torch):
        x = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        results.append(lib.autograd.functional.vjp(lambda t: (t * t).sum(), x))
        assert x.grad is None  # the helper works on a detached copy
    _same(*results)


def test_vjp_without_v_for_a_larger_output_is_refused_as_torch():
    torch = require_torch()
    for lib in (minigrad, torch):
        with pytest.raises(RuntimeError, match="The vector v can only be None if the user-provided function "
                                               "returns a single Tensor with a single element"):
            lib.autograd.functional.vjp(lambda t: t * 2, lib.ones(3))


def test_strict_mode_refuses_an_independent_input_as_torch():
    torch = require_torch()
    for lib in (minigrad, torch):
        x, y = lib.ones(2, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        with pytest.raises(RuntimeError, match="independent of input 1"):
            lib.autograd.functional.jacobian(lambda a, b: a * 2, (x, y), strict=True)
        with pytest.raises(RuntimeError, match="independent of input 1"):
            lib.autograd.functional.vjp(lambda a, b: (a * 2).sum(), (x, y), strict=True)


def test_a_constant_output_has_a_zero_jacobian_as_torch():
    torch = require_torch()
    results = []
    for lib in (minigrad, torch):
        constant = lib.ones(2, dtype=lib.float64)
        results.append(lib.autograd.functional.jacobian(lambda t, c=constant: c, lib.ones(3)))
    _same(*results)


def test_jacobian_of_an_mlp_against_finite_differences():
    minigrad.manual_seed(0)
    nn = minigrad.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double()
    x = minigrad.randn(3, dtype=minigrad.float64)
    jac = minigrad.autograd.functional.jacobian(model, x)
    eps = 1e-6
    columns = []
    with minigrad.no_grad():
        for i in range(3):
            step = minigrad.zeros(3, dtype=minigrad.float64)
            step[i] = eps
            columns.append(((model(x + step) - model(x - step)) / (2 * eps)).numpy())
    np.testing.assert_allclose(jac.numpy(), np.stack(columns, axis=1), rtol=1e-6, atol=1e-9)


def test_bad_arguments_raise_as_torch():
    torch = require_torch()
    for lib in (minigrad, torch):
        functional = lib.autograd.functional
        with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
            functional.jacobian(lambda t: t, 3.0)
        with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
            functional.jacobian(lambda t: 3.0, lib.ones(2))
        with pytest.raises(AssertionError, match="Expected strategy to be either"):
            functional.jacobian(lambda t: t, lib.ones(2), strategy="sideways")
