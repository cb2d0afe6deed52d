"""Property tests: random expressions with nan and inf in the inputs and in the upstream gradient,
compared with PyTorch position by position (nan where PyTorch has nan, the same infinities, 0 where
it has 0, close elsewhere; see ``nonfinite.compare_with_torch``).

Expressions are built from broadcasting binary ops, activations, clamps, reductions over random
dims and 2-D pooling with random kernel, stride, padding and dilation. Values are drawn from a small
pool (so ties are common) mixed with nan, ±inf and ±0. The examples are derandomized (the same on
every run); ``MINIGRAD_HYPOTHESIS_EXAMPLES=N`` runs N examples per test instead of the default.
"""

from __future__ import annotations

import os

import numpy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays, mutually_broadcastable_shapes

from .nonfinite import compare_with_torch

EXAMPLES = int(os.environ.get("MINIGRAD_HYPOTHESIS_EXAMPLES") or 40)
# The device fixture is the same for every example, so sharing it is fine.
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

nan, inf = float("nan"), float("inf")
SPECIAL = (nan, inf, -inf, 0.0, -0.0)
POOL = (-2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0)  # few distinct values: ties in max, clamp and where

values = st.one_of(st.sampled_from(SPECIAL), st.sampled_from(POOL),
                   st.floats(-4, 4, allow_nan=False, allow_infinity=False))
finite_values = st.one_of(st.sampled_from(POOL), st.floats(-4, 4, allow_nan=False, allow_infinity=False))


def filled(shape: tuple, with_non_finite: bool = True) -> st.SearchStrategy:
    return arrays(numpy.float64, shape, elements=values if with_non_finite else finite_values)


@st.composite
def inputs(draw, shape: tuple) -> numpy.ndarray:
    """An input of ``shape``: mostly with nan, ±inf and ±0 among its values, sometimes all finite (so
    that only the upstream gradient brings them)."""
    return draw(filled(shape, with_non_finite=draw(st.integers(0, 3)) > 0))


# Ops whose values are exact in IEEE arithmetic, so both libraries agree to the bit (ties stay ties).
EXACT = {
    "relu": lambda m, f, x: f.relu(x),
    "leaky_relu": lambda m, f, x: f.leaky_relu(x, 0.25),
    "abs": lambda m, f, x: x.abs(),
    "square": lambda m, f, x: x * x,
    "neg": lambda m, f, x: -x,
    "clamp(-1, 2)": lambda m, f, x: x.clamp(-1.0, 2.0),
    "clamp(min=0)": lambda m, f, x: x.clamp(min=0.0),
    "clamp(max=0.5)": lambda m, f, x: x.clamp(max=0.5),
    "clamp_min(1)": lambda m, f, x: m.clamp_min(x, 1.0),
    "masked_fill": lambda m, f, x: x.masked_fill(x < 0, 0.0),
}
# Ops whose last bit may differ between the libraries: only last in a chain, so that a one-ulp
# difference cannot turn a tie into a win before a mask decides on it (√0.5² is 0.5 in one, not the other).
# (elu is left out: PyTorch's own gradient at a nan input depends on the tensor's length; see
# test_mask_gradients.test_elu_at_nan_follows_torchs_vectorised_kernel.)
ROUNDED = {
    "gelu": lambda m, f, x: f.gelu(x),
    "silu": lambda m, f, x: f.silu(x),
    "softplus": lambda m, f, x: f.softplus(x, beta=2.0, threshold=1.5),
    "sigmoid": lambda m, f, x: x.sigmoid(),
    "tanh": lambda m, f, x: x.tanh(),
    "sqrt": lambda m, f, x: x.sqrt(),
    "exp": lambda m, f, x: x.exp(),
    "log": lambda m, f, x: x.log(),
}
UNARY = {**EXACT, **ROUNDED}

BINARY = {
    "add": lambda m, a, b: a + b,
    "sub": lambda m, a, b: a - b,
    "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b,
    "maximum": lambda m, a, b: m.maximum(a, b),
    "minimum": lambda m, a, b: m.minimum(a, b),
    "where(a > b)": lambda m, a, b: m.where(a > b, a, b),
    "where(a == b)": lambda m, a, b: m.where(a == b, a * 2, b),
}

REDUCTIONS = {
    "sum": lambda m, x, dim, keepdim: x.sum(dim=dim, keepdim=keepdim),
    "mean": lambda m, x, dim, keepdim: x.mean(dim=dim, keepdim=keepdim),
    "amax": lambda m, x, dim, keepdim: x.amax(dim=dim, keepdim=keepdim),
    "amin": lambda m, x, dim, keepdim: x.amin(dim=dim, keepdim=keepdim),
    "max(dim)": lambda m, x, dim, keepdim: x.max(dim=dim[0], keepdim=keepdim)[0],
    "min(dim)": lambda m, x, dim, keepdim: x.min(dim=dim[0], keepdim=keepdim)[0],
    "max()": lambda m, x, dim, keepdim: x.max(),
    "min()": lambda m, x, dim, keepdim: x.min(),
    "logsumexp": lambda m, x, dim, keepdim: x.logsumexp(dim=dim, keepdim=keepdim),
    "prod(dim)": lambda m, x, dim, keepdim: x.prod(dim=dim[0], keepdim=keepdim),
    "prod()": lambda m, x, dim, keepdim: x.prod(),
    "topk": lambda m, x, dim, keepdim: x.topk(min(2, x.shape[dim[0]]), dim=dim[0], largest=keepdim)[0],
    "sort": lambda m, x, dim, keepdim: x.sort(dim=dim[0], descending=keepdim)[0],
    "softmax": lambda m, x, dim, keepdim: x.softmax(dim=dim[0]),
    "log_softmax": lambda m, x, dim, keepdim: x.log_softmax(dim=dim[0]),
}


def chain(names: list[str]):
    """The unary ops ``names`` applied in order."""
    def apply(m, f, x):
        for name in names:
            x = UNARY[name](m, f, x)
        return x
    return apply


unary_chains = st.tuples(st.lists(st.sampled_from(sorted(EXACT)), max_size=2),
                         st.lists(st.sampled_from(sorted(ROUNDED)), max_size=1)).map(lambda t: t[0] + t[1])


@st.composite
def upstream_for(draw, shape: tuple) -> numpy.ndarray:
    """An upstream gradient of ``shape``: ones, finite values, or values with nan and inf."""
    kind = draw(st.sampled_from(["ones", "finite", "non-finite"]))
    if kind == "ones":
        return numpy.ones(shape)
    return draw(filled(shape, with_non_finite=kind == "non-finite"))


def _output_shape(fn, arrays_: list) -> tuple:
    from _torch import require_torch  # noqa: PLC0415

    torch = require_torch()
    with torch.no_grad():
        return tuple(fn(torch, torch.nn.functional, *(torch.tensor(a) for a in arrays_)).shape)


@PROPERTY
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4),
       before_a=unary_chains, before_b=unary_chains, op=st.sampled_from(sorted(BINARY)),
       after=unary_chains, data=st.data())
def test_broadcasting_expressions_match_torch(shapes, before_a, before_b, op, after, data):
    """after(op(before_a(a), before_b(b))) with a and b of broadcastable shapes."""
    a = data.draw(inputs(shapes.input_shapes[0]), "a")
    b = data.draw(inputs(shapes.input_shapes[1]), "b")

    def fn(m, f, a, b):
        return chain(after)(m, f, BINARY[op](m, chain(before_a)(m, f, a), chain(before_b)(m, f, b)))

    upstream = data.draw(upstream_for(_output_shape(fn, [a, b])), "upstream")
    compare_with_torch(fn, [a, b], upstream)


@st.composite
def reduced_dims(draw, ndim: int) -> tuple:
    dims = draw(st.lists(st.integers(-ndim, ndim - 1), min_size=1, max_size=ndim,
                         unique_by=lambda d: d % ndim))
    return tuple(dims)


@PROPERTY
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), before=unary_chains,
       reduction=st.sampled_from(sorted(REDUCTIONS)), keepdim=st.booleans(), after=unary_chains,
       data=st.data())
def test_reductions_match_torch(shape, before, reduction, keepdim, after, data):
    """after(reduction(before(x), dims)) over one or several dims (max(dim) and softmax: the first)."""
    x = data.draw(inputs(shape), "x")
    dims = data.draw(reduced_dims(len(shape)), "dims")

    def fn(m, f, x):
        return chain(after)(m, f, REDUCTIONS[reduction](m, chain(before)(m, f, x), dims, keepdim))

    upstream = data.draw(upstream_for(_output_shape(fn, [x])), "upstream")
    compare_with_torch(fn, [x], upstream)


def _windows_touch_input(size: int, kernel: int, stride: int, padding: int, dilation: int,
                         ceil_mode: bool) -> bool:
    """Every max-pooling window along one axis has a tap inside the input. (PyTorch 2.13 returns an
    out-of-range index for a window wholly in the padding, and its backward then corrupts memory.)"""
    span = (size + 2 * padding - dilation * (kernel - 1) - 1)
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    starts = [o * stride - padding for o in range(out)]
    return all(any(0 <= start + j * dilation < size for j in range(kernel)) for start in starts)


@st.composite
def pooling(draw) -> tuple:
    """(kind, kernel, stride, padding, dilation, ceil_mode) and an input shape that fits them."""
    kind = draw(st.sampled_from(["max", "avg", "adaptive_max", "adaptive_avg"]))
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2))) if kind == "max" else (1, 1)
    ceil_mode = draw(st.booleans()) if kind in ("max", "avg") else False
    span = [d * (k - 1) + 1 for d, k in zip(dilation, kernel)]
    sizes = [draw(st.integers(max(s - 2 * p, 1), max(s - 2 * p, 1) + 4)) for s, p in zip(span, padding)]
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 2)), *sizes)
    assume(kind != "max" or all(_windows_touch_input(*axis, ceil_mode) for axis in
                                zip(sizes, kernel, stride, padding, dilation)))
    return kind, kernel, stride, padding, dilation, ceil_mode, shape


@PROPERTY
@given(settings_=pooling(), before=unary_chains, after=unary_chains, data=st.data())
def test_pooling_matches_torch(settings_, before, after, data):
    """after(pool(before(x))) for 2-D max/avg pooling and their adaptive forms."""
    kind, kernel, stride, padding, dilation, ceil_mode, shape = settings_
    x = data.draw(inputs(shape), "x")

    def pool(m, f, x):
        if kind == "max":
            return f.max_pool2d(x, kernel, stride, padding, dilation=dilation, ceil_mode=ceil_mode)
        if kind == "avg":
            return f.avg_pool2d(x, kernel, stride, padding, ceil_mode=ceil_mode)
        size = (max(shape[2] // stride[0], 1), max(shape[3] // stride[1], 1))
        return getattr(f, f"{kind}_pool2d")(x, size)

    def fn(m, f, x):
        return chain(after)(m, f, pool(m, f, chain(before)(m, f, x)))

    upstream = data.draw(upstream_for(_output_shape(fn, [x])), "upstream")
    compare_with_torch(fn, [x], upstream)
