"""First and second derivatives of every piecewise op exactly at its kinks, against PyTorch's.

At a kink the derivative is a choice (the left branch, the right one, or a half of each on a
tie); PyTorch's kernels make one, and a second derivative must make the one its first
derivative made. Each row puts inputs exactly on the kink (plus points on either side), takes

    g  = ∂/∂x ⟨f(x), w⟩             (create_graph=True)
    g2 = ∂/∂x ⟨g, v⟩                (without allow_unused: "not used in the graph" must not happen
                                     where PyTorch returns zeros)

for seeded w and v, and compares values, g and g2 (or the exception raised) with PyTorch's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy
import pytest
from _reference import reference

import minigrad as mg

from .helpers import to_numpy


def _derivatives(lib: Any, fn: Callable, arrays: list, seed: int) -> dict:
    """f's outputs, first and second derivatives at ``arrays`` (float64) in ``lib``."""
    xs = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
    out = fn(lib, *xs)
    rng = numpy.random.default_rng(seed)
    w = lib.tensor(rng.standard_normal(tuple(out.shape)), dtype=lib.float64)
    firsts = lib.autograd.grad((out * w).sum(), xs, create_graph=True)
    answer: dict[str, Any] = {"out": out.detach(), "first": [g.detach() for g in firsts]}
    terms = [(g * lib.tensor(rng.standard_normal(tuple(g.shape)), dtype=lib.float64)).sum()
             for g in firsts]
    total = sum(terms[1:], terms[0])
    if not total.requires_grad:  # a constant first derivative (PyTorch's sign backward of abs at 0)
        answer["second"] = "constant"
        return answer
    try:
        seconds = lib.autograd.grad(total, xs)
    except RuntimeError as error:
        answer["second"] = f"RuntimeError: {'not used in the graph' in str(error)}"
        return answer
    answer["second"] = [g.detach() for g in seconds]
    return answer


def _host(value: Any) -> Any:
    if isinstance(value, mg.Tensor):
        return to_numpy(value)
    if isinstance(value, list):
        return [_host(v) for v in value]
    if isinstance(value, dict):
        return {k: _host(v) for k, v in value.items()}
    return value


def _assert_same(ours: Any, theirs: Any, where: str) -> None:
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs), where
        for k in theirs:
            _assert_same(ours[k], theirs[k], f"{where}[{k}]")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), f"{where}: {ours!r} vs {theirs!r}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            _assert_same(o, t, f"{where}[{i}]")
    elif isinstance(theirs, numpy.ndarray):
        numpy.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=where)
    else:
        assert ours == theirs, f"{where}: minigrad {ours!r}, PyTorch {theirs!r}"


def _at(*values: float) -> numpy.ndarray:
    return numpy.array(values, dtype=numpy.float64)


def _f(lib: Any) -> Any:
    return lib.nn.functional


# (name, fn(lib, *xs), inputs): each input holds the kink itself, also more than once
KINKS = [
    ("relu", lambda m, x: m.relu(x), [_at(0.0, -0.0, -1.0, 1.0)]),
    ("relu_times_x", lambda m, x: m.relu(x) * x, [_at(0.0, -0.0, -1.0, 1.0)]),
    ("F.relu", lambda m, x: _f(m).relu(x), [_at(0.0, -1.0, 2.0)]),
    ("leaky_relu", lambda m, x: _f(m).leaky_relu(x, 0.1), [_at(0.0, -0.0, -1.0, 1.0)]),
    ("leaky_relu_negative_slope", lambda m, x: _f(m).leaky_relu(x, -0.3) * x, [_at(0.0, -1.0, 1.0)]),
    ("elu", lambda m, x: _f(m).elu(x), [_at(0.0, -0.0, -1e-300, 1e-300, -1.0, 1.0)]),
    ("elu_alpha", lambda m, x: _f(m).elu(x, alpha=0.5), [_at(0.0, -1.0, 1.0)]),
    ("elu_alpha_2_squared", lambda m, x: _f(m).elu(x, alpha=2.0) * x, [_at(0.0, -1.0, 1.0)]),
    ("softplus", lambda m, x: _f(m).softplus(x), [_at(20.0, 19.5, 20.5, 0.0)]),
    ("softplus_beta", lambda m, x: _f(m).softplus(x, beta=2, threshold=2), [_at(1.0, 0.5, 1.5, -1.0)]),
    ("softplus_half_beta", lambda m, x: _f(m).softplus(x, beta=0.5, threshold=1) * x, [_at(2.0, 1.0, 3.0)]),
    ("softplus_negative_beta", lambda m, x: _f(m).softplus(x, beta=-1, threshold=2), [_at(-2.0, -1.0, 3.0)]),
    ("gelu_tanh", lambda m, x: _f(m).gelu(x, approximate="tanh") * x, [_at(0.0, -3.0, 3.0)]),
    ("abs", lambda m, x: m.abs(x), [_at(0.0, -0.0, -1.0, 1.0)]),
    ("abs_times_x", lambda m, x: m.abs(x) * x, [_at(0.0, -1.0, 1.0)]),
    ("clamp", lambda m, x: m.clamp(x, -1.0, 1.0) * x, [_at(-1.0, 1.0, 0.0, -2.0, 2.0)]),
    ("clamp_min", lambda m, x: m.clamp(x, min=0.5) * x, [_at(0.5, 0.0, 1.0)]),
    ("clamp_max", lambda m, x: m.clamp(x, max=0.5) * x, [_at(0.5, 0.0, 1.0)]),
    ("clamp_tensor_bounds", lambda m, x, lo: m.clamp(x, min=lo) * x,
     [_at(0.5, 0.0, 1.0), _at(0.5, 0.5, 0.5)]),
    ("maximum_tie", lambda m, a, b: m.maximum(a, b) * a, [_at(1.0, 2.0, -1.0), _at(1.0, 0.0, -1.0)]),
    ("minimum_tie", lambda m, a, b: m.minimum(a, b) * b, [_at(1.0, 2.0, -1.0), _at(1.0, 0.0, -1.0)]),
    ("max_tie", lambda m, x: x.max() * x, [_at(2.0, 2.0, 1.0)]),
    ("min_tie", lambda m, x: x.min() * x, [_at(-2.0, 1.0, -2.0)]),
    ("max_dim_tie", lambda m, x: x.max(dim=1).values.unsqueeze(1) * x,
     [_at(1.0, 1.0, 0.0, 2.0).reshape(2, 2)]),
    ("amax_tie", lambda m, x: x.amax(dim=1, keepdim=True) * x, [_at(1.0, 1.0, 0.0, 2.0).reshape(2, 2)]),
    ("norm_at_zero", lambda m, x: x.norm() * x, [_at(0.0, 0.0, 0.0)]),
    ("norm_1_at_zero", lambda m, x: x.norm(p=1) * x, [_at(0.0, 1.0, -2.0)]),
    ("smooth_l1_at_beta", lambda m, a, b: _f(m).smooth_l1_loss(a, b, beta=0.5, reduction="none") * a,
     [_at(0.5, -0.5, 0.0, 1.0), _at(0.0, 0.0, 0.0, 0.0)]),
    ("smooth_l1_beta_0", lambda m, a, b: _f(m).smooth_l1_loss(a, b, beta=0.0, reduction="none"),
     [_at(0.0, 1.0, -1.0), _at(0.0, 0.0, 0.0)]),
    ("huber_at_delta", lambda m, a, b: _f(m).huber_loss(a, b, delta=2.0, reduction="none") * a,
     [_at(2.0, -2.0, 0.0, 3.0), _at(0.0, 0.0, 0.0, 0.0)]),
    ("l1_at_zero", lambda m, a, b: _f(m).l1_loss(a, b, reduction="none") * a,
     [_at(1.0, 0.0, 2.0), _at(1.0, 0.0, 0.0)]),
    ("max_pool2d_ties", lambda m, x: _f(m).max_pool2d(x, 2, stride=1) ** 2,
     [_at(1, 1, 0, 1, 1, 0, 2, 2, 2).reshape(1, 1, 3, 3)]),
    ("max_pool1d_ties", lambda m, x: _f(m).max_pool1d(x, 2) * 3, [_at(1, 1, 0, 0).reshape(1, 1, 4)]),
    ("adaptive_max_pool2d_ties", lambda m, x: _f(m).adaptive_max_pool2d(x, 1) * 2,
     [_at(1, 1, 1, 1).reshape(1, 1, 2, 2)]),
    ("sort_ties", lambda m, x: x.sort().values * x, [_at(1.0, 1.0, 0.0)]),
]


@pytest.mark.parametrize("name,fn,arrays", KINKS, ids=[k[0] for k in KINKS])
def test_derivatives_at_kinks_match_torch(name, fn, arrays):
    theirs = reference(lambda torch: _derivatives(torch, fn, arrays, seed=7), inputs={"arrays": arrays})
    ours = _host(_derivatives(mg, fn, arrays, seed=7))
    _assert_same(ours, theirs, name)
