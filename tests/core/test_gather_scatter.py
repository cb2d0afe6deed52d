"""gather, scatter, scatter_add (out of place and in place) and F.one_hot, against PyTorch.

Values and gradients go through ``helpers.check_op`` (gradcheck in float64, then PyTorch in float64
and float32) over dims 0/1/-1 and 1-D/2-D/3-D inputs. gather and scatter_add are checked with
repeated indices (gradients add up); scatter only with indices that are unique along ``dim``, since
PyTorch leaves unspecified which of two values written to one place lands. Every test runs on NumPy
and on the CuPy stand-in, which wraps an out-of-range index around instead of raising: the bounds
errors below are minigrad's own checks.
"""

import numpy
import pytest
from _reference import reference
from _torch import raises_like_torch, require_torch

import minigrad as mg
from minigrad import backend

from .helpers import case, check_op, to_numpy

RNG = numpy.random.default_rng(20240613)


def repeated(input_shape: tuple, dim: int, index_shape: tuple) -> numpy.ndarray:
    """Random positions along ``dim`` (with repeats) for an index of ``index_shape``."""
    return RNG.integers(0, input_shape[dim], size=index_shape)


def unique(input_shape: tuple, dim: int, index_shape: tuple) -> numpy.ndarray:
    """Positions along ``dim`` that never repeat within one line along ``dim``."""
    shape = list(index_shape)
    shape[dim] = input_shape[dim]
    order = numpy.argsort(RNG.random(shape), axis=dim)
    return numpy.take(order, numpy.arange(index_shape[dim]), axis=dim)


def has_repeats(index: numpy.ndarray, dim: int) -> bool:
    ordered = numpy.sort(index, axis=dim)
    return bool((numpy.diff(ordered, axis=dim) == 0).any())


GATHER_INDEX = {
    "1d": ((6,), 0, repeated((6,), 0, (9,))),
    "2d_dim0": ((4, 5), 0, repeated((4, 5), 0, (6, 3))),
    "2d_dim1": ((4, 5), 1, repeated((4, 5), 1, (3, 7))),
    "2d_dim-1": ((4, 5), -1, repeated((4, 5), 1, (4, 5))),
    "3d_dim0": ((3, 4, 5), 0, repeated((3, 4, 5), 0, (5, 2, 5))),
    "3d_dim1": ((3, 4, 5), 1, repeated((3, 4, 5), 1, (2, 6, 3))),
    "3d_dim-1": ((3, 4, 5), -1, repeated((3, 4, 5), 2, (3, 4, 8))),
}

SCATTER_INDEX = {  # (input shape, dim, index of the src's shape, unique along dim)
    "1d": ((7,), 0, unique((7,), 0, (4,))),
    "2d_dim0": ((4, 5), 0, unique((4, 5), 0, (3, 5))),
    "2d_dim1": ((4, 5), 1, unique((4, 5), 1, (2, 4))),
    "2d_dim-1": ((4, 5), -1, unique((4, 5), 1, (4, 5))),
    "3d_dim0": ((3, 4, 5), 0, unique((3, 4, 5), 0, (2, 4, 3))),
    "3d_dim1": ((3, 4, 5), 1, unique((3, 4, 5), 1, (3, 2, 5))),
    "3d_dim-1": ((3, 4, 5), -1, unique((3, 4, 5), 2, (2, 3, 4))),
}


def test_the_index_tables_hold_what_their_names_say():
    assert all(has_repeats(index, dim) for _, dim, index in GATHER_INDEX.values() if index.size > 1)
    assert not any(has_repeats(index, dim) for _, dim, index in SCATTER_INDEX.values())


def gather_cases():
    for name, (shape, dim, index) in GATHER_INDEX.items():
        yield case(f"gather_{name}", lambda m, x, i, dim=dim: x.gather(dim, i), shape, index)
        yield case(f"torch.gather_{name}", lambda m, x, i, dim=dim: m.gather(x, dim, i), shape, index)


def scatter_cases():
    for name, (shape, dim, index) in SCATTER_INDEX.items():
        src = tuple(index.shape)
        yield case(f"scatter_src_{name}", lambda m, x, i, s, dim=dim: x.scatter(dim, i, s), shape, index, src)
        yield case(f"scatter_value_{name}", lambda m, x, i, dim=dim: x.scatter(dim, i, 2.5), shape, index)
        yield case(f"torch.scatter_{name}", lambda m, x, i, s, dim=dim: m.scatter(x, dim, i, s),
                   shape, index, src)
        yield case(f"scatter__{name}", lambda m, x, i, s, dim=dim: (x * 2).scatter_(dim, i, s),
                   shape, index, src)
        yield case(f"scatter__value_{name}", lambda m, x, i, dim=dim: (x * 2).scatter_(dim, i, value=-1.0),
                   shape, index)


def scatter_add_cases():
    # repeated indices: several values are added to one place, and each gets the gradient of that place
    for name, (shape, dim, index) in GATHER_INDEX.items():
        src = tuple(index.shape)
        yield case(f"scatter_add_{name}", lambda m, x, i, s, dim=dim: x.scatter_add(dim, i, s),
                   shape, index, src)
        yield case(f"torch.scatter_add_{name}", lambda m, x, i, s, dim=dim: m.scatter_add(x, dim, i, s),
                   shape, index, src)
        yield case(f"scatter_add__{name}", lambda m, x, i, s, dim=dim: (x * 2).scatter_add_(dim, i, s),
                   shape, index, src)


COMBINED = [
    # a gather that reads one element many times, so its gradient adds up there
    case("gather_one_element_many_times", lambda m, x, i: x.gather(1, i), (3, 4), numpy.zeros((3, 6), int)),
    # src larger than index: only its leading block is written (src itself needs no grad: PyTorch
    # refuses that backward, see test_scatter_gradient_of_a_src_larger_than_the_index...)
    case("scatter_src_larger_than_index", lambda m, x, i: x.scatter(0, i, m.ones(3, 4, dtype=x.dtype)),
         (3, 4), numpy.array([[2, 0], [0, 1]])),
    case("scatter_then_gather", lambda m, x, i, s: x.scatter(1, i, s).gather(1, i) * x[:, :2],
         (3, 4), numpy.array([[3, 0], [1, 2], [0, 3]]), (3, 2)),
    case("gather_int32_index", lambda m, x, i: x.gather(0, i.int()), (3, 4), repeated((3, 4), 0, (2, 4))),
    case("scatter_add_onto_itself", lambda m, x: x.scatter_add(0, m.zeros(2, 3, dtype=m.int64), x[:2, :3]),
         (3, 4)),
]


@pytest.mark.parametrize("c", [*gather_cases(), *scatter_cases(), *scatter_add_cases(), *COMBINED])
def test_values_and_gradients_match_torch(c):
    check_op(c)


# --- gradients PyTorch does not compute ------------------------------------------------------------

def test_scatter_gradient_of_a_src_larger_than_the_index_is_zero_outside_the_block():
    # PyTorch's ScatterBackward0 returns an index-shaped gradient here and its engine refuses it;
    # the used block gets dout.gather(dim, index) and the unused elements of src get zero.
    x = mg.zeros(3, 4, dtype=mg.float64, requires_grad=True)
    src = mg.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    index = mg.tensor([[2, 0], [0, 1]])
    weight = mg.tensor(RNG.standard_normal((3, 4)))
    (x.scatter(0, index, src) * weight).sum().backward()
    expected = numpy.zeros((3, 4))
    expected[:2, :2] = to_numpy(weight)[to_numpy(index), [[0, 1], [0, 1]]]
    numpy.testing.assert_allclose(to_numpy(src.grad), expected)
    assert mg.autograd.gradcheck(lambda s: x.detach().scatter_add(0, index, s), (src,))


def test_gradcheck_on_a_0d_input_and_index():
    x = mg.tensor(1.5, dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(lambda t: t.gather(0, mg.tensor([0, 0, 0])), (x,))
    assert mg.autograd.gradcheck(lambda t: t.scatter(0, mg.tensor(0), mg.tensor(2.0, dtype=mg.float64)), (x,))
    y = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(lambda t: t.gather(0, mg.tensor(1)), (y,))


# --- values PyTorch gives without a gradient ---------------------------------------------------------

def test_the_transforms_tutorial_one_hot_line():
    torch = require_torch()
    for y in (0, 3, 9):
        ours = mg.zeros(10, dtype=mg.float).scatter_(0, mg.tensor(y), value=1)
        theirs = torch.zeros(10, dtype=torch.float).scatter_(0, torch.tensor(y), value=1)
        assert ours.dtype is mg.float32 and ours.device == backend.default_device()
        numpy.testing.assert_array_equal(to_numpy(ours), theirs.numpy())


COUNTS_INDEX = repeated((2, 3, 4), 1, (2, 5, 4))
TRANSPOSED_INDEX = repeated((3, 4, 5), 0, (5, 4, 3))  # used as its transpose, a non-contiguous index

VALUES = {
    "scatter_add_int64_exact": lambda m: m.zeros(4, dtype=m.int64).scatter_add(
        0, m.tensor([0, 0, 2, 0]), m.tensor([2 ** 60, 3, -5, 2 ** 55])),
    "scatter_add_int32_3d": lambda m: m.zeros(2, 3, 4, dtype=m.int32).scatter_add(
        1, m.tensor(COUNTS_INDEX), m.ones(2, 5, 4, dtype=m.int32)),
    "scatter_add_uint8_wraps": lambda m: m.zeros(2, dtype=m.uint8).scatter_add(
        0, m.tensor([0, 0, 1]), m.tensor([200, 100, 7], dtype=m.uint8)),
    "scatter_add_bool": lambda m: m.zeros(3, dtype=m.bool).scatter_add(
        0, m.tensor([0, 0, 1]), m.tensor([True, False, False])),
    "scatter_value_into_int64_truncates": lambda m: m.zeros(3, dtype=m.int64).scatter(0, m.tensor([1]), -2.7),
    "scatter_value_into_bool": lambda m: m.zeros(3, dtype=m.bool).scatter(0, m.tensor([2]), 0.5),
    "scatter_value_0d_tensor": lambda m: m.zeros(2, 3).scatter(1, m.tensor([[2], [0]]),
                                                                value=m.tensor(4.0, dtype=m.float64)),
    "scatter_int_value_into_float": lambda m: m.zeros(2, 3).scatter(1, m.tensor([[2], [0]]), 7),
    "gather_int64": lambda m: m.arange(12).reshape(3, 4).gather(1, m.tensor([[3, 3], [0, 1], [2, 0]])),
    "gather_bool": lambda m: (m.arange(6).reshape(2, 3) > 2).gather(0, m.tensor([[1, 0, 0]])),
    "gather_transposed_index": lambda m: m.arange(60.0).reshape(3, 4, 5).gather(
        0, m.tensor(TRANSPOSED_INDEX).permute(2, 1, 0)),
    "gather_0d_input": lambda m: m.tensor(3.0).gather(0, m.tensor([0, 0])),
    "gather_0d_index": lambda m: m.tensor([3.0, 4.0]).gather(0, m.tensor(1)),
    "scatter_0d_input": lambda m: m.tensor(3.0).scatter(0, m.tensor([0, 0]), m.ones(3)),
    "gather_empty_index": lambda m: m.zeros(3, 3).gather(1, m.zeros(5, 0, dtype=m.int64)),
    "gather_empty_float_index": lambda m: m.zeros(3, 3).gather(0, m.zeros(0, 3)),
    "scatter_empty_index": lambda m: m.ones(3, 3).scatter(0, m.zeros(0, 9, dtype=m.int64), m.zeros(3, 3)),
    "scatter_add_empty_index": lambda m: m.ones(3, 3).scatter_add(0, m.zeros(0, 2), m.zeros(3, 3)),
    "gather_keywords": lambda m: m.gather(input=m.arange(6.0).reshape(2, 3), dim=1,
                                          index=m.tensor([[2], [1]])),
    "scatter_keywords": lambda m: m.arange(6.0).reshape(2, 3).scatter(dim=1, index=m.tensor([[2], [1]]),
                                                                       src=-m.ones(2, 1)),
    "one_hot": lambda m: m.nn.functional.one_hot(m.arange(0, 5) % 3),
    "one_hot_num_classes": lambda m: m.nn.functional.one_hot(m.arange(0, 5) % 3, num_classes=5),
    "one_hot_2d": lambda m: m.nn.functional.one_hot(m.arange(0, 6).view(3, 2) % 3),
    "one_hot_0d": lambda m: m.nn.functional.one_hot(m.tensor(2), 4),
    "one_hot_empty_with_num_classes": lambda m: m.nn.functional.one_hot(m.tensor([], dtype=m.int64), 3),
    "one_hot_num_classes_0d_tensor": lambda m: m.nn.functional.one_hot(m.tensor([0, 1]), m.tensor(3)),
}


@pytest.mark.parametrize("name", VALUES)
def test_values_match_torch(name):
    ours, theirs = VALUES[name](mg), reference(VALUES[name])
    assert ours.shape == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).rsplit(".", 1)[-1]
    assert ours.device == backend.default_device()
    numpy.testing.assert_array_equal(to_numpy(ours), theirs)


def test_node_names_are_pytorchs():
    torch = require_torch()
    for m in (mg, torch):
        x = m.ones(3, 4, requires_grad=True)
        src = m.ones(2, 2, requires_grad=True)
        i = m.tensor([[0, 1], [2, 0]])
        names = [x.gather(1, i).grad_fn.name(), x.scatter(0, i, src).grad_fn.name(),
                 x.scatter(0, i, 1.0).grad_fn.name(), x.scatter_add(0, i, src).grad_fn.name()]
        assert names == ["GatherBackward0", "ScatterBackward0", "ScatterBackward1", "ScatterAddBackward0"]


# --- in place --------------------------------------------------------------------------------------

IN_PLACE = {  # name: (the op's name in minigrad's message, the change)
    "scatter_": ("scatter_", lambda t, i, s: t.scatter_(0, i, s)),
    "scatter_value": ("scatter_", lambda t, i, s: t.scatter_(0, i, value=2.0)),
    "scatter_add_": ("scatter_add_", lambda t, i, s: t.scatter_add_(0, i, s)),
}


@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_on_a_leaf_that_requires_grad_raises_like_torch(name):
    op, change = IN_PLACE[name]
    raises_like_torch(lambda m: change(m.ones(3, 4, requires_grad=True), m.tensor([[0, 1]]), m.ones(1, 2)),
                      RuntimeError, "leaf Variable that requires grad", op)
    x = mg.ones(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError):
        change(x, mg.tensor([[0, 1]]), mg.ones(1, 2))
    assert x._version == 0
    numpy.testing.assert_array_equal(to_numpy(x.detach()), numpy.ones((3, 4)))  # nothing was written


@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_bumps_the_version_once_and_works_under_no_grad(name):
    torch = require_torch()
    _, change = IN_PLACE[name]
    values = []
    for m in (mg, torch):
        x = m.ones(3, 4, requires_grad=True)
        with m.no_grad():
            result = change(x, m.tensor([[0, 2]]), m.full((1, 2), 5.0))
        assert result is x and x._version == 1 and x.is_leaf and x.grad_fn is None and x.requires_grad
        values.append(x.detach())
    numpy.testing.assert_array_equal(to_numpy(values[0]), values[1].numpy())


@pytest.mark.parametrize("name", IN_PLACE)
def test_changing_a_tensor_saved_for_backward_makes_backward_raise(name):
    torch = require_torch()
    _, change = IN_PLACE[name]
    for m in (torch, mg):
        x = m.ones(3, 4, requires_grad=True)
        y = x * 2
        z = y.sin()  # saves y
        change(y, m.tensor([[0, 2]]), m.ones(1, 2))
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()


def test_changing_the_index_after_gather_makes_backward_raise_like_torch():
    torch = require_torch()
    for m in (torch, mg):
        x = m.ones(3, 4, requires_grad=True)
        i = m.tensor([[0, 1], [2, 0]])
        y = x.gather(0, i)
        i.add_(0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_scatter_into_a_plain_tensor_from_a_src_that_requires_grad_joins_the_graph():
    torch = require_torch()
    grads = []
    for m in (mg, torch):
        src = m.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        out = m.zeros(2, 3)
        out.scatter_(0, m.tensor([[1, 0, 1]]), src)
        assert out.requires_grad and out.grad_fn.name() == "ScatterBackward0"
        (out * m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
        grads.append(src.grad)
    numpy.testing.assert_array_equal(to_numpy(grads[0]), grads[1].numpy())


def test_scatter_into_a_view_changes_the_base_and_its_gradient():
    torch = require_torch()
    results = []
    for m in (mg, torch):
        x = m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        src = m.tensor([10.0, 20.0], requires_grad=True)
        y = x * 1
        y[1].scatter_(0, m.tensor([2, 0]), src)
        (y * y).sum().backward()
        results.append([y.detach(), x.grad, src.grad])
    for ours, theirs in zip(*results):
        numpy.testing.assert_array_equal(to_numpy(ours), theirs.numpy())


def test_scatter_into_an_expanded_tensor_raises_like_torch():
    raises_like_torch(lambda m: m.zeros(4).expand(3, 4).scatter_(0, m.tensor([[0, 1]]), 1.0),
                      RuntimeError, "single memory location")


# --- module-level functions ------------------------------------------------------------------------

def write_out(m):
    """The three module functions with out=: each returns its out, which holds the result."""
    x, i = m.arange(12.0).reshape(3, 4), m.tensor([[0, 1], [2, 0]])
    outs = m.empty(2, 2), m.empty(3, 4), m.empty(3, 4)
    returned = (m.gather(x, 1, i, out=outs[0]), m.scatter(x, 0, i, value=-1.0, out=outs[1]),
                m.scatter_add(x, 1, i, m.ones(2, 2), out=outs[2]))
    assert all(r is o for r, o in zip(returned, outs))
    return outs


def test_module_functions_write_out_like_torch():
    torch = require_torch()
    for ours, theirs in zip(write_out(mg), write_out(torch)):
        numpy.testing.assert_array_equal(to_numpy(ours), theirs.numpy())


OUT_NEEDS_NO_GRAD = {
    "gather": lambda m, x, i: m.gather(x, 0, i, out=m.empty(1, 2)),
    "scatter": lambda m, x, i: m.scatter(x, 0, i, 1.0, out=m.empty(3, 4)),
    "scatter_add": lambda m, x, i: m.scatter_add(x, 0, i, m.ones(1, 2), out=m.empty(3, 4)),
}


@pytest.mark.parametrize("name", OUT_NEEDS_NO_GRAD)
def test_out_with_an_input_that_requires_grad_raises_like_torch(name):
    call = OUT_NEEDS_NO_GRAD[name]
    raises_like_torch(lambda m: call(m, m.ones(3, 4, requires_grad=True), m.tensor([[0, 1]])),
                      RuntimeError, "out=", "requires grad")


# --- errors ----------------------------------------------------------------------------------------

def f(m):
    return m.nn.functional


ERRORS = {
    # gather
    "gather_float_index": (lambda m: m.ones(3, 4).gather(0, m.tensor([[0.0, 1.0]])), RuntimeError,
                           ["int32/int64", "float32"]),
    "gather_int16_index": (lambda m: m.ones(3, 4).gather(0, m.zeros(1, 2, dtype=m.int16)), RuntimeError,
                           ["int32/int64"]),
    "gather_index_ndim": (lambda m: m.ones(3, 4).gather(0, m.tensor([0, 1])), RuntimeError,
                          ["same number of dimensions as input", "[2]", "[3, 4]"]),
    "gather_index_too_large": (lambda m: m.ones(3, 4).gather(0, m.zeros(4, 5, dtype=m.int64)), RuntimeError,
                               ["dimension 1", "[4, 5]", "[3, 4]"]),
    "gather_out_of_range": (lambda m: m.ones(3, 4).gather(0, m.tensor([[1, 3]])), RuntimeError,
                            ["index 3", "dimension 0", "size 3"]),
    "gather_out_of_range_dim1": (lambda m: m.ones(3, 4).gather(1, m.tensor([[1], [4], [0]])), RuntimeError,
                                 ["index 4", "dimension 1", "size 4"]),
    "gather_negative_index": (lambda m: m.ones(3, 4).gather(-1, m.tensor([[-1]])), RuntimeError,
                              ["index -1", "dimension 1", "size 4"]),
    "gather_dim": (lambda m: m.ones(3, 4).gather(2, m.tensor([[0]])), IndexError, ["[-2, 1]", "2"]),
    "gather_input_not_tensor": (lambda m: m.gather([1.0, 2.0], 0, m.tensor([0])), TypeError,
                                ["gather()", "input", "list"]),
    "gather_index_not_tensor": (lambda m: m.gather(m.ones(2), 0, [0]), TypeError, ["index", "list"]),
    # scatter
    "scatter_float_index": (lambda m: m.ones(3, 4).scatter(0, m.tensor([[0.0]]), 1.0), RuntimeError,
                            ["scatter()", "int32/int64"]),
    "scatter_src_dtype": (lambda m: m.ones(3, 4).scatter(0, m.tensor([[0]]), m.ones(1, 1, dtype=m.float64)),
                          RuntimeError, ["self.dtype to be equal to src.dtype", "float32", "float64"]),
    "scatter_int_src_into_float": (lambda m: m.ones(3).scatter(0, m.tensor([0]), m.tensor([2])), RuntimeError,
                                   ["src.dtype", "int64"]),
    "scatter_index_ndim": (lambda m: m.ones(3, 4).scatter(0, m.tensor([0]), 1.0), RuntimeError,
                           ["same number of dimensions as self", "[1]", "[3, 4]"]),
    "scatter_src_ndim": (lambda m: m.ones(3, 4).scatter(0, m.tensor([[0]]), m.tensor(1.0)), RuntimeError,
                         ["same number of dimensions as src", "[1, 1]"]),
    "scatter_src_ndim_larger": (lambda m: m.ones(3, 4).scatter(0, m.tensor([[0]]), m.ones(1, 1, 1)),
                                RuntimeError, ["same number of dimensions as src", "[1, 1, 1]"]),
    "scatter_src_fewer_dims": (lambda m: m.ones(3, 3).scatter(0, m.zeros(2, 2, dtype=m.int64), m.ones(3)),
                               IndexError, ["[-1, 0]", "1"]),
    "scatter_index_larger_than_self": (lambda m: m.ones(3, 3).scatter(0, m.zeros(2, 5, dtype=m.int64), 1.0),
                                       RuntimeError, ["[2, 5]", "[3, 3]", "dimension 0"]),
    "scatter_index_larger_than_src": (lambda m: m.ones(3, 3).scatter(0, m.zeros(2, 2, dtype=m.int64),
                                                                     m.ones(1, 3)),
                                      RuntimeError, ["[2, 2]", "[3, 3]", "src [1, 3]"]),
    "scatter_out_of_range": (lambda m: m.ones(3, 4).scatter(1, m.tensor([[0, 4]]), m.ones(1, 2)),
                             RuntimeError, ["index 4", "dimension 1", "size 4"]),
    "scatter_value_out_of_range": (lambda m: m.ones(3, 4).scatter(0, m.tensor([[3]]), 1.0), RuntimeError,
                                   ["index 3", "size 3"]),
    "scatter_negative_index": (lambda m: m.ones(3).scatter_(0, m.tensor([-1]), 1.0), RuntimeError,
                               ["index -1", "size 3"]),
    "scatter_dim": (lambda m: m.ones(3, 4).scatter(-3, m.tensor([[0]]), 1.0), IndexError, ["[-2, 1]", "-3"]),
    "scatter_no_src": (lambda m: m.ones(3, 4).scatter(0, m.tensor([[0]])), TypeError, ["scatter()"]),
    "scatter_src_and_value": (lambda m: m.ones(3, 4).scatter(0, m.tensor([[0]]), m.ones(1, 1), value=1.0),
                              TypeError, ["scatter()"]),
    "scatter_list_src": (lambda m: m.ones(3, 4).scatter(0, m.tensor([[0]]), [1.0]), TypeError, ["list"]),
    "scatter_value_overflows_int64": (lambda m: m.zeros(3, dtype=m.int64).scatter(0, m.tensor([0]), 1e30),
                                      RuntimeError, ["without overflow", "int64"]),
    "scatter_value_overflows_float32": (lambda m: m.zeros(3).scatter(0, m.tensor([0]), 1e300),
                                        RuntimeError, ["without overflow"]),
    # scatter_add
    "scatter_add_number": (lambda m: m.ones(3, 4).scatter_add(0, m.tensor([[0]]), 2.0), TypeError,
                           ["scatter_add()", "src", "float"]),
    "scatter_add_src_dtype": (lambda m: m.ones(3, 4).scatter_add(0, m.tensor([[0]]),
                                                                  m.ones(1, 1, dtype=m.int64)),
                              RuntimeError, ["src.dtype"]),
    "scatter_add_float_index": (lambda m: m.ones(3, 4).scatter_add_(0, m.tensor([[0.0]]), m.ones(1, 1)),
                                RuntimeError, ["int32/int64"]),
    "scatter_add_out_of_range": (lambda m: m.ones(3, 4).scatter_add(0, m.tensor([[0, 5]]), m.ones(1, 2)),
                                 RuntimeError, ["index 5", "size 3"]),
    "scatter_add_index_too_large": (lambda m: m.ones(3, 4).scatter_add(0, m.zeros(2, 5, dtype=m.int64),
                                                                        m.ones(3, 5)),
                                    RuntimeError, ["[2, 5]", "[3, 4]", "[3, 5]"]),
    # one_hot
    "one_hot_too_few_classes": (lambda m: f(m).one_hot(m.tensor([0, 2, 1]), 2), RuntimeError,
                                ["smaller than num_classes", "2"]),
    "one_hot_negative": (lambda m: f(m).one_hot(m.tensor([0, -2, 1]), 4), RuntimeError,
                         ["non-negative", "-2"]),
    "one_hot_negative_num_classes": (lambda m: f(m).one_hot(m.tensor([0, 1]), -5), RuntimeError,
                                     ["smaller than num_classes", "-5"]),
    "one_hot_int32": (lambda m: f(m).one_hot(m.tensor([0, 1], dtype=m.int32)), RuntimeError,
                      ["LongTensor", "int32"]),
    "one_hot_float": (lambda m: f(m).one_hot(m.tensor([0.0, 1.0])), RuntimeError, ["LongTensor"]),
    "one_hot_empty": (lambda m: f(m).one_hot(m.tensor([], dtype=m.int64)), RuntimeError, ["empty tensor"]),
    "one_hot_float_num_classes": (lambda m: f(m).one_hot(m.tensor([0, 1]), 2.0), TypeError,
                                  ["num_classes", "float"]),
    "one_hot_bool_num_classes": (lambda m: f(m).one_hot(m.tensor([0, 1]), True), TypeError, ["num_classes"]),
    "one_hot_list": (lambda m: f(m).one_hot([0, 1]), TypeError, ["Tensor", "list"]),
}


@pytest.mark.parametrize("name", ERRORS)
def test_misuse_raises_like_torch(name):
    call, error, fragments = ERRORS[name]
    raises_like_torch(call, error, *fragments)


def test_out_of_range_indices_write_nothing():
    # the bounds are checked before anything is written (CuPy would wrap the index around)
    x = mg.zeros(3, 4)
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.scatter_(0, mg.tensor([[1, 3]]), 1.0)
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.scatter_add_(1, mg.tensor([[0], [9], [1]]), mg.ones(3, 1))
    assert x._version == 0
    numpy.testing.assert_array_equal(to_numpy(x), numpy.zeros((3, 4)))


def test_reduce_is_not_implemented():
    with pytest.raises(NotImplementedError, match="reduce"):
        mg.zeros(3).scatter(0, mg.tensor([0]), mg.ones(1), reduce="add")
    with pytest.raises(NotImplementedError, match="reduce"):
        mg.zeros(3).scatter_(0, mg.tensor([0]), 2.0, reduce="multiply")


def test_an_index_on_another_device_raises(cuda_standin):
    other = "cpu" if backend.default_device().type == "cuda" else "cuda"
    x = mg.ones(3, 4)
    with pytest.raises(RuntimeError, match="same device"):
        x.gather(0, mg.tensor([[0, 1]], device=other))
    with pytest.raises(RuntimeError, match="same device"):
        x.scatter_add(0, mg.tensor([[0, 1]]), mg.ones(1, 2, device=other))
