"""Property tests: broadcasting in every binary op and reductions over any set of axes,
on shapes drawn by hypothesis, compared with PyTorch (values and gradients)."""

import numpy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

import minigrad as mg

from .helpers import check_against_torch, make_inputs, to_numpy

# Deterministic examples (the same on every run and worker), no per-example deadline on a
# noisy machine; the device fixture is the same for every example, so sharing it is fine.
PROPERTY = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

BINARY_OPS = {
    "add": lambda m, a, b: a + b,
    "sub": lambda m, a, b: a - b,
    "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b,
    "pow": lambda m, a, b: a ** b,
    "maximum": lambda m, a, b: m.maximum(a, b),
    "minimum": lambda m, a, b: m.minimum(a, b),
    "where": lambda m, a, b: m.where(a > b, a, b * 2),
}
POSITIVE = ("div", "pow")  # b is a divisor, a a base: keep both away from 0

REDUCTIONS = {
    "sum": lambda m, a, dim, keepdim: a.sum(dim=dim, keepdim=keepdim),
    "mean": lambda m, a, dim, keepdim: a.mean(dim=dim, keepdim=keepdim),
    "var": lambda m, a, dim, keepdim: a.var(dim=dim, keepdim=keepdim),
    "std": lambda m, a, dim, keepdim: a.std(dim=dim, keepdim=keepdim),
    "amax": lambda m, a, dim, keepdim: a.amax(dim=dim, keepdim=keepdim),
    "softmax_sum": lambda m, a, dim, keepdim: a.softmax(dim=dim[0]).sum(dim=dim, keepdim=keepdim),
}


@PROPERTY
@given(op=st.sampled_from(sorted(BINARY_OPS)),
       shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=3),
       seed=st.integers(0, 2**16))
def test_binary_op_broadcasts_like_torch(op, shapes, seed):
    a_shape, b_shape = shapes.input_shapes
    domain = "positive" if op in POSITIVE else "real"
    arrays = make_inputs((a_shape, b_shape), domain, seed)
    check_against_torch(BINARY_OPS[op], arrays, "float64", seed)


@PROPERTY
@given(op=st.sampled_from(sorted(BINARY_OPS)), shape=array_shapes(min_dims=0, max_dims=3, max_side=3),
       scalar=st.sampled_from([-1.5, 0.5, 2.0, 3]), reflected=st.booleans(), seed=st.integers(0, 2**16))
def test_binary_op_with_python_scalar_like_torch(op, shape, scalar, reflected, seed):
    if op in ("maximum", "minimum", "where"):
        op = "mul"  # torch.maximum takes no Python numbers
    if op in POSITIVE:
        scalar = abs(scalar)
    (array,) = make_inputs((shape,), "positive" if op in POSITIVE else "real", seed)
    fn = BINARY_OPS[op]
    check_against_torch((lambda m, a: fn(m, scalar, a)) if reflected else (lambda m, a: fn(m, a, scalar)),
                        [array], "float64", seed)


@st.composite
def shape_and_dims(draw):
    """A shape with 1-4 dims and a non-empty subset of its dims, each maybe written negative."""
    shape = draw(array_shapes(min_dims=1, max_dims=4, min_side=2, max_side=3))
    axes = draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    dims = tuple(axis - len(shape) if draw(st.booleans()) else axis for axis in axes)
    return shape, dims


@PROPERTY
@given(op=st.sampled_from(sorted(REDUCTIONS)), shape_dims=shape_and_dims(), keepdim=st.booleans(),
       as_int=st.booleans(), seed=st.integers(0, 2**16))
def test_reduction_over_any_dims_like_torch(op, shape_dims, keepdim, as_int, seed):
    shape, dims = shape_dims
    dim = dims[0] if as_int else dims
    if op == "softmax_sum":
        dim = dims  # softmax along the first of them, then the reduction over all
    (array,) = make_inputs((shape,), "real", seed)
    check_against_torch(lambda m, a: REDUCTIONS[op](m, a, dim, keepdim), [array], "float64", seed)


@PROPERTY
@given(shape=array_shapes(min_dims=1, max_dims=4, max_side=3), keepdim=st.booleans(),
       seed=st.integers(0, 2**16))
def test_max_along_each_dim_like_torch(shape, keepdim, seed):
    (array,) = make_inputs((shape,), "real", seed)
    for dim in range(-len(shape), len(shape)):
        check_against_torch(lambda m, a, dim=dim: a.max(dim, keepdim=keepdim), [array], "float64", seed)


@PROPERTY
@given(shape=array_shapes(min_dims=0, max_dims=3, max_side=3), seed=st.integers(0, 2**16))
def test_full_reductions_return_zero_dim_like_torch(shape, seed):
    (array,) = make_inputs((shape,), "real", seed)
    check_against_torch(lambda m, a: (a.sum(), a.mean(), a.amax(), a.max(), a.argmax()), [array],
                        "float64", seed)


def test_broadcast_gradient_is_summed_back_to_each_input_shape():
    """A property-free anchor: (3, 1) + (4,) -> (3, 4); each gradient of ones sums the broadcast copies."""
    a = mg.zeros(3, 1, requires_grad=True)
    b = mg.zeros(4, requires_grad=True)
    (a + b).sum().backward()
    numpy.testing.assert_array_equal(to_numpy(a.grad), numpy.full((3, 1), 4.0, dtype=numpy.float32))
    numpy.testing.assert_array_equal(to_numpy(b.grad), numpy.full((4,), 3.0, dtype=numpy.float32))
