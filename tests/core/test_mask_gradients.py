"""Backwards that route a gradient by a mask select it: a nan or inf arriving where the mask is 0 gives
exactly 0, as in PyTorch (SPEC, "Masks select"). Each row runs the same expression on minigrad and on
PyTorch, with nan and inf in the input and/or the upstream gradient, and compares values and
gradients position by position (see ``nonfinite.compare_with_torch``)."""

from __future__ import annotations

import numpy
import pytest
from _reference import reference

import minigrad as mg
import minigrad.nn as nn

from .helpers import to_numpy
from .nonfinite import compare_with_torch

nan, inf = float("nan"), float("inf")

# An input with every kind of value a mask decides on: negative, signed zeros, positive, nan, ±inf.
X = numpy.array([-2.0, -0.0, 0.0, 1.0, 3.0, nan, inf, -inf])
# Upstream gradients: a mix of finite, nan and inf, and all nan.
MIXED = numpy.array([1.0, nan, inf, -inf, nan, 1.0, 2.0, nan])
ALL_NAN = numpy.full(8, nan)
ALL_INF = numpy.full(8, inf)
UPSTREAMS = {"mixed": MIXED, "all-nan": ALL_NAN, "all-inf": ALL_INF}

A = numpy.array([-2.0, 1.0, 1.0, nan, 3.0, inf, nan, -inf])
B = numpy.array([1.0, 1.0, 2.0, 1.0, nan, inf, nan, 0.0])

ROWS = numpy.array([[1.0, 3.0, 3.0, nan], [2.0, 2.0, 2.0, 1.0], [-inf, -inf, 0.0, 1.0], [inf, 1.0, inf, nan]])
ROW_UPSTREAM = numpy.array([nan, 1.0, inf, 2.0])

UNARY = {
    "relu": lambda m, f, x: m.relu(x),
    "f.relu": lambda m, f, x: f.relu(x),
    "nn.ReLU": lambda m, f, x: m.nn.ReLU()(x),
    "Tensor.relu": lambda m, f, x: x.relu(),
    "leaky_relu": lambda m, f, x: f.leaky_relu(x, 0.1),
    "clamp": lambda m, f, x: x.clamp(min=0, max=2),
    "clamp(min)": lambda m, f, x: x.clamp(min=0),
    "clamp(max)": lambda m, f, x: x.clamp(max=0),
    "clamp_min": lambda m, f, x: m.clamp_min(x, 0),
    "clamp_max": lambda m, f, x: m.clamp_max(x, 0),
    "clip": lambda m, f, x: m.clip(x, -1, 1),
    "abs": lambda m, f, x: x.abs(),
    "where": lambda m, f, x: m.where(x > 0.5, x, x * 2),
    "masked_fill": lambda m, f, x: x.masked_fill(x > 0.5, 0.0),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("upstream", UPSTREAMS.values(), ids=UPSTREAMS.keys())
@pytest.mark.parametrize("fn", UNARY.values(), ids=UNARY.keys())
def test_unary_masks_select(fn, upstream, dtype):
    compare_with_torch(fn, [X], upstream, dtype)


def test_elu_at_nan_follows_torchs_vectorised_kernel():
    """PyTorch's elu backward gives nan at a nan input in its vectorised loop (64 elements here) but
    1 in its scalar loop (short tensors); minigrad gives nan at any size."""
    x = numpy.tile(X, 8)
    compare_with_torch(lambda m, f, x: f.elu(x, alpha=0.5), [x], numpy.tile(MIXED, 8))
    compare_with_torch(lambda m, f, x: f.elu(x, alpha=0.5), [x], numpy.ones(64))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_issue_examples(dtype):
    """The two examples of issue 12: a clamp before sqrt, and relu with a nan upstream gradient."""
    compare_with_torch(lambda m, f, x: x.clamp(min=0).sqrt().sum(), [numpy.array([-1.0, 4.0])], dtype=dtype)
    compare_with_torch(lambda m, f, y: m.relu(y), [numpy.array([-2.0, 3.0])], numpy.array([nan, 1.0]),
                       dtype=dtype)
    x = mg.tensor([-1.0, 4.0], requires_grad=True)
    x.clamp(min=0).sqrt().sum().backward()
    assert to_numpy(x.grad).tolist() == [0.0, 0.25]


def test_relu_then_log_keeps_weights_finite():
    """relu(x).log(): the -inf of log(0) meets relu's zero slope; the dead unit's gradient is 0, not nan."""
    compare_with_torch(lambda m, f, x, w: (f.relu(x @ w) + 0).log().sum(),
                       [numpy.array([[1.0, -1.0]]), numpy.array([[1.0, -2.0], [0.5, 3.0]])])


BINARY = {
    "maximum": lambda m, f, a, b: m.maximum(a, b),
    "minimum": lambda m, f, a, b: m.minimum(a, b),
    "max(a, b)": lambda m, f, a, b: m.max(a, b),
    "l1_loss": lambda m, f, a, b: f.l1_loss(a, b, reduction="none"),
    "smooth_l1_loss": lambda m, f, a, b: f.smooth_l1_loss(a, b, reduction="none", beta=1.5),
    "huber_loss": lambda m, f, a, b: f.huber_loss(a, b, reduction="none", delta=1.5),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("upstream", [numpy.ones(8), *UPSTREAMS.values()], ids=["ones", *UPSTREAMS])
@pytest.mark.parametrize("fn", BINARY.values(), ids=BINARY.keys())
def test_binary_masks_select(fn, upstream, dtype):
    """maximum/minimum: all of δ to the winner, half each on a tie, all of it to both where a nan is."""
    compare_with_torch(fn, [A, B], upstream, dtype)


REDUCTIONS = {
    "max()": lambda m, f, x: x.max().reshape(1).expand(4),
    "min()": lambda m, f, x: x.min().reshape(1).expand(4),
    "max(dim)": lambda m, f, x: x.max(dim=1)[0],
    "amax(dim)": lambda m, f, x: x.amax(dim=1),
    "amin(dim)": lambda m, f, x: x.amin(dim=0),
    "prod(dim)": lambda m, f, x: x.prod(dim=1),
    "prod(dim), no zero": lambda m, f, x: x[[0, 1, 3, 1]].prod(dim=1),
    "prod()": lambda m, f, x: x[1:3].prod().reshape(1).expand(4),
    "nll_loss(ignore_index)": lambda m, f, x: f.nll_loss(x, m.tensor([0, 1, 2, 3]), ignore_index=1,
                                                          reduction="none"),
    "cross_entropy(ignore_index)": lambda m, f, x: f.cross_entropy(x, m.tensor([0, -100, 2, -100]),
                                                                   reduction="none"),
    "cross_entropy(mean, ignored)": lambda m, f, x: f.cross_entropy(
        x, m.tensor([0, 1, 1, 3]), ignore_index=1).reshape(1).expand(4),
    "cross_entropy(smoothing)": lambda m, f, x: f.cross_entropy(
        x, m.tensor([0, 1, 1, 3]), ignore_index=1, label_smoothing=0.2, reduction="none"),
    "cross_entropy(weight)": lambda m, f, x: f.cross_entropy(
        x, m.tensor([1, 1, 3, 0]), weight=m.tensor([1.0, 0.5, 2.0, 0.0], dtype=x.dtype), ignore_index=3,
        reduction="none"),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("upstream", [numpy.ones(4), ROW_UPSTREAM, numpy.full(4, nan)],
                         ids=["ones", "mixed", "all-nan"])
@pytest.mark.parametrize("fn", REDUCTIONS.values(), ids=REDUCTIONS.keys())
def test_reductions_and_losses_select(fn, upstream, dtype):
    """max()/min() route δ to the maxima only; ignored targets get exactly 0 (and add 0 to the loss);
    prod's gradient takes PyTorch's route (y / aᵢ without zeros, exclusive products with them)."""
    compare_with_torch(fn, [ROWS], upstream, dtype)


def _image() -> numpy.ndarray:
    x = numpy.random.default_rng(12).standard_normal((2, 2, 5, 5))
    x[0, 0, 1, 1], x[0, 1, 0, 0], x[1, 0, 2, 2] = nan, inf, -inf
    x[1, 1] = 1.0  # ties everywhere
    return x


POOLS = {
    "adaptive_avg_pool2d": (lambda m, f, x: f.adaptive_avg_pool2d(x, 3), (2, 2, 3, 3)),
    "adaptive_avg_pool2d(2, 4)": (lambda m, f, x: f.adaptive_avg_pool2d(x, (2, 4)), (2, 2, 2, 4)),
    "adaptive_max_pool2d": (lambda m, f, x: f.adaptive_max_pool2d(x, 3), (2, 2, 3, 3)),
    "max_pool2d": (lambda m, f, x: f.max_pool2d(x, 3, 1, 1), (2, 2, 5, 5)),
    "relu, max_pool2d": (lambda m, f, x: f.max_pool2d(f.relu(x), 2), (2, 2, 2, 2)),
}


@pytest.mark.parametrize("name", POOLS)
def test_pooling_keeps_nan_in_its_windows(name):
    fn, shape = POOLS[name]
    upstream = numpy.random.default_rng(3).standard_normal(shape)
    upstream.flat[::4] = nan
    for gradient in (numpy.ones(shape), upstream):
        compare_with_torch(fn, [_image()], gradient)


def test_dropout_gives_dropped_elements_exactly_zero():
    """A dropped element has no gradient, whatever arrives (PyTorch multiplies: nan·0 = nan there)."""
    mg.manual_seed(0)
    x = mg.ones(1000, requires_grad=True)
    y = nn.functional.dropout(x, 0.5)
    y.backward(mg.full((1000,), nan))
    dropped = to_numpy(y.detach()) == 0
    assert 300 < dropped.sum() < 700
    grad = to_numpy(x.grad)
    assert (grad[dropped] == 0).all()
    assert numpy.isnan(grad[~dropped]).all()


def test_dropout2d_gives_dropped_channels_exactly_zero():
    mg.manual_seed(1)
    x = mg.ones(4, 8, 3, 3, requires_grad=True)
    y = nn.functional.dropout2d(x, 0.5)
    y.backward(mg.full((4, 8, 3, 3), inf))
    dropped = to_numpy(y.detach()) == 0
    assert dropped.any() and not dropped.all()
    grad = to_numpy(x.grad)
    assert (grad[dropped] == 0).all() and numpy.isposinf(grad[~dropped]).all()


SIGNED_ZERO = {
    "1 / relu": lambda m, f, x: 1 / f.relu(x),
    "1 / clamp(min=0)": lambda m, f, x: 1 / x.clamp(min=0),
    "1 / clamp(max=0)": lambda m, f, x: 1 / x.clamp(max=0),
    "log(clamp(min=0))": lambda m, f, x: x.clamp(min=0).log(),
    "1 / maximum(x, 0)": lambda m, f, x: 1 / m.maximum(x, m.zeros_like(x)),
    "1 / minimum(x, 0)": lambda m, f, x: 1 / m.minimum(x, m.zeros_like(x)),
}


@pytest.mark.parametrize("fn", SIGNED_ZERO.values(), ids=SIGNED_ZERO.keys())
def test_signed_zeros_kept_as_torch(fn):
    """relu, clamp and maximum/minimum keep a -0.0 input (a tie gives the first operand), so 1/y and its
    gradient have PyTorch's signs."""
    compare_with_torch(fn, [numpy.array([-0.0, 0.0, -1.0, 2.0])], numpy.ones(4))


def test_division_by_a_tiny_number():
    """dz/db = -(a / b) / b, as PyTorch: with a = 0 and b² underflowing to 0 it is -0, not nan."""
    compare_with_torch(lambda m, f, a, b: a / b, [numpy.array([0.0, 1.0]), numpy.array([3e-197, 3e-160])],
                       numpy.ones(2))


def test_prod_with_two_zeros_has_zero_gradient_whatever_arrives():
    """prod() of all elements with two zeros: every gradient is 0 in PyTorch, even for a nan δ."""
    compare_with_torch(lambda m, f, x: x.prod().exp(), [numpy.array([nan, 0.0, 0.0])])
    compare_with_torch(lambda m, f, x: x.prod(), [numpy.array([1.0, 0.0, 0.0])], numpy.array(nan))


# A recorded backward (create_graph=True) selects too: the derivative of the first gradient with
# respect to the upstream gradient is the mask again, and a nan or inf arriving there where the mask
# is 0 gives exactly 0.
FINITE_X = numpy.array([-2.0, -0.0, 0.0, 0.25, 1.0, 3.0])
SECOND_UPSTREAM = numpy.array([nan, inf, -inf, 1.0, nan, 2.0])
RECORDED = {name: UNARY[name] for name in ("relu", "leaky_relu", "clamp", "abs", "where", "masked_fill")}


def _recorded_backward_of_mask(lib, fn):
    x = lib.tensor(FINITE_X, requires_grad=True)
    v = lib.ones(len(FINITE_X), dtype=x.dtype, requires_grad=True)
    (g,) = lib.autograd.grad(fn(lib, lib.nn.functional, x), x, v, create_graph=True)
    (dv,) = lib.autograd.grad(g, v, lib.tensor(SECOND_UPSTREAM))
    return dv


@pytest.mark.parametrize("fn", RECORDED.values(), ids=RECORDED.keys())
def test_recorded_backward_masks_select(fn):
    theirs = reference(lambda torch: _recorded_backward_of_mask(torch, fn),
                       {"x": FINITE_X, "upstream": SECOND_UPSTREAM})
    ours = to_numpy(_recorded_backward_of_mask(mg, fn))
    numpy.testing.assert_array_equal(ours, theirs)   # nan where PyTorch has nan, 0 where it selects
