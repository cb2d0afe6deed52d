"""chunk, split, unbind, narrow, movedim, swapaxes, broadcast_to, flip, roll, repeat, repeat_interleave,
index_select, masked_fill(_), tril/triu, diag, hstack/vstack, sort/argsort/topk and the ``new_*``
creation methods, against PyTorch.

Values and gradients go through ``helpers.check_op`` (gradcheck in float64, then PyTorch in float64
and float32). Random normal inputs have distinct values, so sort and topk indices are unambiguous.
Views (narrow, pieces, movedim, swapaxes) are checked by writing through them, as in PyTorch.
"""

import numpy
import pytest
from _reference import reference
from _torch import raises_like_torch, require_torch

import minigrad as mg

from .helpers import case, check_op, to_numpy

RNG = numpy.random.default_rng(20261124)
MASK = RNG.random((3, 4)) > 0.5
ROW_MASK = RNG.random((4,)) > 0.5
INDEX = numpy.array([2, 0, 2, 1], dtype=numpy.int64)  # repeats: gradients add up


def pieces_sum(pieces):
    """One output from several pieces (each weighted differently, so a swapped piece shows)."""
    total = None
    for k, piece in enumerate(pieces):
        term = (piece * (k + 1)).sum()
        total = term if total is None else total + term
    return total


CASES = [
    case("chunk", lambda m, a: m.chunk(a, 3, 1), (2, 7)),
    case("chunk_method_dim-1", lambda m, a: a.chunk(2, -1), (3, 4)),
    case("chunk_sum", lambda m, a: pieces_sum(a.chunk(4, 0)), (6, 2)),
    case("split_int", lambda m, a: m.split(a, 2, dim=1), (3, 5)),
    case("split_list", lambda m, a: a.split([1, 3, 0, 1], -1), (2, 5)),
    case("split_sum", lambda m, a: pieces_sum(a.split([2, 1], 0)), (3, 4)),
    case("unbind", lambda m, a: m.unbind(a, 1), (2, 3, 2)),
    case("unbind_dim-1", lambda m, a: a.unbind(-1), (2, 3)),
    case("narrow", lambda m, a: a.narrow(1, 1, 2), (3, 4)),
    case("narrow_negative", lambda m, a: m.narrow(a, -1, -3, 2), (2, 4)),
    case("movedim", lambda m, a: m.movedim(a, 0, -1), (2, 3, 4)),
    case("movedim_tuple", lambda m, a: a.movedim((0, 1), (2, 0)), (2, 3, 4)),
    case("moveaxis", lambda m, a: m.moveaxis(a, -1, 0), (2, 3, 4)),
    case("swapaxes", lambda m, a: a.swapaxes(0, -1), (2, 3, 4)),
    case("swapdims", lambda m, a: m.swapdims(a, 1, 2), (2, 3, 4)),
    case("broadcast_to", lambda m, a: m.broadcast_to(a, (2, 3, 4)), (3, 1)),
    case("broadcast_to_method", lambda m, a: a.broadcast_to((5, 2)), (2,)),
    case("flip", lambda m, a: m.flip(a, [0, 2]), (2, 3, 4)),
    case("flip_method", lambda m, a: a.flip(-1), (3, 4)),
    case("flip_keyword", lambda m, a: a.flip(dims=(0,)), (3, 4)),
    case("roll", lambda m, a: m.roll(a, 1, 0), (3, 4)),
    case("roll_two", lambda m, a: a.roll((2, -1), (1, 0)), (3, 4)),
    case("roll_flat", lambda m, a: a.roll(5), (3, 4)),
    case("repeat", lambda m, a: a.repeat(2, 3), (2, 3)),
    case("repeat_new_dims", lambda m, a: a.repeat(2, 1, 3), (3,)),
    case("repeat_tuple", lambda m, a: a.repeat((1, 2, 2)), (2, 1, 3)),
    case("repeat_interleave", lambda m, a: a.repeat_interleave(3, dim=1), (2, 3)),
    case("repeat_interleave_dim-1", lambda m, a: m.repeat_interleave(a, 2, -1), (2, 3)),
    case("repeat_interleave_flat", lambda m, a: m.repeat_interleave(a, 2), (2, 3)),
    case("index_select", lambda m, a, i: m.index_select(a, 0, i), (3, 4), INDEX),
    case("index_select_dim-1", lambda m, a, i: a.index_select(-1, i), (2, 3), INDEX),
    case("masked_fill", lambda m, a, mask: a.masked_fill(mask, -2.5), (3, 4), MASK),
    case("masked_fill_broadcast", lambda m, a, mask: m.masked_fill(a, mask, 1.0), (3, 4), ROW_MASK),
    case("masked_fill_tensor_value", lambda m, a, mask, v: a.masked_fill(mask, v.sum()), (3, 4), MASK, (2,)),
    case("masked_fill_inplace", lambda m, a, mask: (a * 1).masked_fill_(mask, 3.0), (3, 4), MASK),
    case("masked_fill_inplace_value", lambda m, a, mask, v: (a * 1).masked_fill_(mask, v.sum()),
         (3, 4), MASK, (2,)),
    case("tril", lambda m, a: a.tril(), (4, 5)),
    case("tril_diagonal", lambda m, a: m.tril(a, diagonal=-1), (2, 3, 4)),
    case("triu", lambda m, a: m.triu(a), (4, 3)),
    case("triu_diagonal", lambda m, a: a.triu(2), (2, 3, 5)),
    case("tril_inplace", lambda m, a: (a * 1).tril_(1), (3, 4)),
    case("triu_inplace", lambda m, a: (a * 1).triu_(-1), (3, 4)),
    case("diag_vector", lambda m, a: m.diag(a), (4,)),
    case("diag_vector_offset", lambda m, a: a.diag(2), (3,)),
    case("diag_vector_negative", lambda m, a: a.diag(-1), (3,)),
    case("diag_matrix", lambda m, a: a.diag(), (3, 5)),
    case("diag_matrix_offset", lambda m, a: m.diag(a, 1), (4, 3)),
    case("diag_matrix_negative", lambda m, a: m.diag(a, -2), (4, 3)),
    case("hstack_1d", lambda m, a, b: m.hstack([a, b]), (3,), (2,)),
    case("hstack_2d", lambda m, a, b: m.hstack((a, b)), (2, 3), (2, 1)),
    case("hstack_0d", lambda m, a, b: m.hstack([a, b]), (), (2,)),
    case("vstack_1d", lambda m, a, b: m.vstack([a, b]), (3,), (3,)),
    case("vstack_2d", lambda m, a, b: m.vstack([a, b]), (2, 3), (1, 3)),
    case("vstack_0d", lambda m, a, b: m.vstack([a, b]), (), (1,)),
    case("sort", lambda m, a: m.sort(a), (3, 5)),
    case("sort_dim0_descending", lambda m, a: a.sort(0, descending=True), (4, 3)),
    case("sort_stable", lambda m, a: m.sort(a, dim=-2, stable=True), (2, 4, 3)),
    case("sort_values", lambda m, a: a.sort(dim=1, descending=True).values, (2, 5)),
    case("argsort", lambda m, a: m.argsort(a, dim=1), (3, 5)),
    case("argsort_descending", lambda m, a: a.argsort(0, descending=True), (4, 3)),
    case("topk", lambda m, a: m.topk(a, 2), (3, 5)),
    case("topk_smallest_dim0", lambda m, a: a.topk(3, dim=0, largest=False), (4, 3)),
    case("topk_values", lambda m, a: a.topk(k=1, dim=-1).values, (2, 3, 4)),
    case("topk_all", lambda m, a: a.topk(4, sorted=True), (2, 4)),
]


@pytest.mark.parametrize("c", CASES)
def test_against_torch(c):
    check_op(c)


# --- views: writing into one changes its base, as in PyTorch --------------------------------------

VIEWS = {
    "narrow": lambda t: t.narrow(1, 1, 2),
    "chunk": lambda t: t.chunk(2, 1)[1],
    "split": lambda t: t.split([1, 2], 0)[1],
    "unbind": lambda t: t.unbind(1)[2],
    "movedim": lambda t: t.movedim(0, 1),
    "swapaxes": lambda t: t.swapaxes(0, 1),
    "swapdims": lambda t: t.swapdims(1, 0),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_writes_through(name):
    base = numpy.arange(12.0).reshape(3, 4)

    def torch_base(torch):
        theirs = torch.tensor(base)
        VIEWS[name](theirs).mul_(-1)
        return theirs

    ours = mg.tensor(base)
    VIEWS[name](ours).mul_(-1)
    numpy.testing.assert_array_equal(to_numpy(ours), reference(torch_base))
    assert VIEWS[name](ours)._base is ours


@pytest.mark.parametrize("name", ["flip", "roll", "repeat", "repeat_interleave", "index_select",
                                  "masked_fill", "tril", "diag", "sort"])
def test_copies_do_not_write_through(name):
    t = mg.arange(12.0).reshape(3, 4)
    make = {"flip": lambda: t.flip(0), "roll": lambda: t.roll(1, 1), "repeat": lambda: t.repeat(1, 1),
            "repeat_interleave": lambda: t.repeat_interleave(1, 0),
            "index_select": lambda: t.index_select(0, mg.tensor([0, 1, 2])),
            "masked_fill": lambda: t.masked_fill(mg.zeros(3, 4, dtype=mg.bool), 0.0),
            "tril": lambda: t.tril(5), "diag": lambda: t.diag(), "sort": lambda: t.sort().values}[name]
    make().fill_(-1.0)
    numpy.testing.assert_array_equal(to_numpy(t), numpy.arange(12.0).reshape(3, 4))


def test_inplace_on_narrow_view_is_differentiated():
    torch = require_torch()
    data = RNG.standard_normal((3, 4))
    grads = []
    for lib in (mg, torch):
        leaf = lib.tensor(data, requires_grad=True)
        base = leaf * 2
        base.narrow(1, 1, 2).mul_(3)
        base.masked_fill_(lib.tensor(MASK), 0.5)
        (base * base).sum().backward()
        grads.append(leaf.grad.detach().cpu().numpy() if lib is torch else to_numpy(leaf.grad))
    numpy.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


@pytest.mark.parametrize("pieces", [lambda t: t.split(1), lambda t: t.chunk(2), lambda t: t.unbind(0)])
def test_pieces_refuse_inplace_in_graph(pieces):
    raises_like_torch(lambda lib: pieces(lib.ones(2, 3, requires_grad=True) * 1)[0].mul_(2), RuntimeError,
                      "view")


def test_pieces_change_in_place_without_grad():
    t = mg.zeros(2, 3)
    t.split(1)[1].fill_(4.0)
    numpy.testing.assert_array_equal(to_numpy(t), [[0, 0, 0], [4, 4, 4]])


def test_masked_fill_inplace_on_leaf_refuses():
    mask = numpy.ones(3, dtype=bool)
    raises_like_torch(lambda lib: lib.ones(3, requires_grad=True).masked_fill_(lib.tensor(mask), 0),
                      RuntimeError, "leaf")


# --- shapes of pieces, empty tensors, 0-d -------------------------------------------------------

@pytest.mark.parametrize("shape, call", [
    ((5,), lambda t: t.chunk(4)), ((6,), lambda t: t.chunk(4)), ((0, 2), lambda t: t.chunk(3)),
    ((0, 2), lambda t: t.split(0)), ((0, 2), lambda t: t.split(2)), ((7, 3), lambda t: t.split(3)),
    ((2, 0), lambda t: t.unbind(1)), ((3, 0), lambda t: t.unbind(0)), ((0, 3), lambda t: t.chunk(2, -1)),
])
def test_piece_shapes(shape, call):
    ours = call(mg.zeros(shape))
    assert isinstance(ours, tuple)
    theirs = reference(lambda torch: [list(p.shape) for p in call(torch.zeros(shape))])
    assert [list(p.shape) for p in ours] == theirs


@pytest.mark.parametrize("call", [
    lambda m, t: t.flip(0), lambda m, t: t.roll(2, 1), lambda m, t: t.repeat(2, 3),
    lambda m, t: t.repeat_interleave(2, 1), lambda m, t: t.index_select(1, m.tensor([0, 0])),
    lambda m, t: t.masked_fill(m.ones(3, dtype=m.bool), 1.0), lambda m, t: t.tril(),
    lambda m, t: t.sort(1).values, lambda m, t: t.sort(0).indices, lambda m, t: t.topk(0, dim=0).values,
    lambda m, t: t.narrow(0, 0, 0), lambda m, t: t.movedim(0, 1), lambda m, t: m.vstack([t, t]),
    lambda m, t: m.hstack([t, t]), lambda m, t: t.new_zeros(t.shape),
])
def test_empty_tensors(call):
    ours, theirs = call(mg, mg.zeros(0, 3)), reference(lambda torch: call(torch, torch.zeros(0, 3)))
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).rsplit(".")[-1] == str(theirs.dtype)


@pytest.mark.parametrize("call", [
    lambda m, t: t.sort().values, lambda m, t: t.sort().indices, lambda m, t: t.topk(1).values,
    lambda m, t: t.argsort(), lambda m, t: t.flip(0), lambda m, t: t.movedim(0, 0),
    lambda m, t: t.repeat(2, 2), lambda m, t: t.index_select(0, m.tensor([0])), lambda m, t: m.hstack([t, t]),
    lambda m, t: m.vstack([t, t]),
])
def test_zero_dim(call):
    ours, theirs = call(mg, mg.tensor(2.5)), reference(lambda torch: call(torch, torch.tensor(2.5)))
    assert tuple(ours.shape) == tuple(theirs.shape)
    numpy.testing.assert_array_equal(to_numpy(ours), theirs)


def test_sort_ties_are_stable_and_nan_is_largest():
    torch = require_torch()
    data = numpy.array([[2.0, 1.0, 2.0, numpy.nan, 1.0, 0.0, 2.0]])
    for descending in (False, True):
        ours = mg.tensor(data).sort(dim=1, descending=descending, stable=True)
        theirs = torch.tensor(data).sort(dim=1, descending=descending, stable=True)
        numpy.testing.assert_array_equal(to_numpy(ours.values), theirs.values.numpy())
        numpy.testing.assert_array_equal(to_numpy(ours.indices), theirs.indices.numpy())


def test_sort_integers_and_named_tuples():
    torch = require_torch()
    data = RNG.permutation(20).reshape(4, 5)
    ours, theirs = mg.tensor(data).sort(0, descending=True), torch.tensor(data).sort(0, descending=True)
    numpy.testing.assert_array_equal(to_numpy(ours.values), theirs.values.numpy())
    numpy.testing.assert_array_equal(to_numpy(ours[1]), theirs[1].numpy())
    assert type(ours).__name__ == "sort" and type(mg.topk(mg.tensor(data), 2)).__name__ == "topk"
    assert ours.indices.dtype is mg.int64 and not ours.indices.requires_grad
    values, indices = mg.tensor(data).topk(2, dim=1, largest=False)
    expected = torch.tensor(data).topk(2, dim=1, largest=False)
    numpy.testing.assert_array_equal(to_numpy(values), expected.values.numpy())
    numpy.testing.assert_array_equal(to_numpy(indices), expected.indices.numpy())


def test_grad_fn_names():
    a = mg.randn(3, 4, requires_grad=True)
    assert a.sort().values.grad_fn.name() == "SortBackward0"
    assert a.topk(2).values.grad_fn.name() == "TopkBackward0"


# --- new_* -------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda t, m: t.new_zeros(2, 3), lambda t, m: t.new_zeros((2, 3)), lambda t, m: t.new_ones([4]),
    lambda t, m: t.new_ones(2, dtype=m.float64), lambda t, m: t.new_full((2, 2), 1.7),
    lambda t, m: t.new_full((3,), 2, dtype=m.float32), lambda t, m: t.new_tensor([1.5, 2.5]),
    lambda t, m: t.new_tensor([[1, 2]], dtype=m.float64), lambda t, m: t.new_empty(0, 2),
    lambda t, m: t.new_zeros(()),
])
@pytest.mark.parametrize("dtype", ["int64", "float64", "bool"])
def test_new_tensors(call, dtype):
    empty = "empty" in repr(call.__code__.co_names)   # its values are whatever memory held

    def torch_new(torch):
        theirs = call(torch.zeros(3, dtype=getattr(torch, dtype)), torch)
        return list(theirs.shape), theirs.dtype, None if empty else theirs

    shape, dtype_name, values = reference(torch_new)
    ours = call(mg.zeros(3, dtype=getattr(mg, dtype)), mg)
    assert list(ours.shape) == shape
    assert str(ours.dtype).rsplit(".")[-1] == dtype_name
    assert ours.device == mg.zeros(1).device
    if not empty:
        numpy.testing.assert_array_equal(to_numpy(ours), values)


def test_new_tensor_options():
    t = mg.zeros(2, dtype=mg.float64)
    out = t.new_ones(2, requires_grad=True)
    assert out.requires_grad and out.is_leaf and out.dtype is mg.float64
    source = mg.ones(2, requires_grad=True)
    with pytest.warns(UserWarning):
        copy = t.new_tensor(source)
    assert copy.is_leaf and not copy.requires_grad and copy.dtype is mg.float64
    assert t.new_zeros(2, device="cpu").device == mg.device("cpu")


# --- errors: PyTorch's exception types -----------------------------------------------------------

ERRORS = [
    (lambda m: m.zeros(3).index_select(0, m.tensor([0.0])), RuntimeError, "int"),
    (lambda m: m.zeros(3).index_select(0, m.tensor([[0]])), IndexError, "vector"),
    (lambda m: m.zeros(3).index_select(0, m.tensor([3])), IndexError, "out of range"),
    (lambda m: m.zeros(3).index_select(0, m.tensor([-1])), IndexError, "out of range"),
    (lambda m: m.zeros(3).index_select(1, m.tensor([0])), IndexError, "Dimension out of range"),
    (lambda m: m.zeros(()).index_select(0, m.tensor([0, 0])), RuntimeError, "scalar"),
    (lambda m: m.zeros(3).masked_fill(m.ones(3), 1), RuntimeError, "boolean"),
    (lambda m: m.zeros(3).masked_fill(m.ones(3, dtype=m.bool), m.ones(2)), RuntimeError, "0-dimensional"),
    (lambda m: m.zeros(3).masked_fill(m.ones(2, dtype=m.bool), 1), RuntimeError, "size"),
    (lambda m: m.zeros(3).masked_fill_(m.ones(2, 3, dtype=m.bool), 1), RuntimeError, "shape"),
    (lambda m: m.zeros(3).tril(), RuntimeError, "2 dimensions"),
    (lambda m: m.zeros(3).triu(), RuntimeError, "2 dimensions"),
    (lambda m: m.zeros(2, 2, 2).diag(), RuntimeError, "3D"),
    (lambda m: m.zeros(()).diag(), RuntimeError, "0D"),
    (lambda m: m.zeros(3).topk(4), RuntimeError, "k out of range"),
    (lambda m: m.zeros(3).topk(-1), RuntimeError, "k out of range"),
    (lambda m: m.zeros(3).sort(1), IndexError, "Dimension out of range"),
    (lambda m: m.zeros(3).argsort(dim=-2), IndexError, "Dimension out of range"),
    (lambda m: m.zeros(3).narrow(0, 2, 2), RuntimeError, "exceeds dimension size"),
    (lambda m: m.zeros(3).narrow(0, -4, 1), IndexError, "start out of range"),
    (lambda m: m.zeros(3).narrow(0, 0, -1), RuntimeError, "non-negative"),
    (lambda m: m.zeros(()).narrow(0, 0, 1), RuntimeError, "0-dim"),
    (lambda m: m.zeros(2, 3).repeat(2), RuntimeError, "can not be smaller"),
    (lambda m: m.zeros(3).repeat(-1), RuntimeError, "negative"),
    (lambda m: m.zeros(3).repeat_interleave(-1), RuntimeError, "non-negative"),
    (lambda m: m.zeros(3).repeat_interleave(2, 1), IndexError, "Dimension out of range"),
    (lambda m: m.zeros(3).split(0), RuntimeError, "split_size can only be 0"),
    (lambda m: m.zeros(3).split([1, 1]), RuntimeError, "sum exactly to 3"),
    (lambda m: m.zeros(3).split(1, 1), IndexError, "Dimension out of range"),
    (lambda m: m.zeros(()).split(1), RuntimeError, "1-dimensional"),
    (lambda m: m.zeros(3).chunk(0), RuntimeError, "greater than 0"),
    (lambda m: m.zeros(()).chunk(1), RuntimeError, "1-dimensional"),
    (lambda m: m.zeros(3).unbind(1), IndexError, "Dimension out of range"),
    (lambda m: m.zeros(()).unbind(0), IndexError, "no dimensions"),
    (lambda m: m.zeros(3).roll(1, (0, 0)), RuntimeError, "must align"),
    (lambda m: m.zeros(3).roll((1, 2)), RuntimeError, "must align"),
    (lambda m: m.zeros(3).roll(1, 1), IndexError, "Dimension out of range"),
    (lambda m: m.zeros(()).roll(1, 0), IndexError, "no dimensions"),
    (lambda m: m.zeros(3).flip(0, 0), RuntimeError, "multiple times"),
    (lambda m: m.zeros(3).flip(1), IndexError, "Dimension out of range"),
    (lambda m: m.zeros(3).movedim(0, 1), IndexError, "Dimension out of range"),
    (lambda m: m.zeros(3, 3).movedim((0, 1), (1,)), RuntimeError, "same number of dims"),
    (lambda m: m.zeros(3, 3).movedim((0, 0), (1, 0)), RuntimeError, "repeated dim"),
    (lambda m: m.zeros(3).swapaxes(0, 1), IndexError, "Dimension out of range"),
    (lambda m: m.zeros(2, 3).broadcast_to((3, 3)), RuntimeError, "must match"),
    (lambda m: m.hstack([]), RuntimeError, "non-empty"),
    (lambda m: m.vstack([]), RuntimeError, "non-empty"),
    (lambda m: m.vstack([m.zeros(2), m.zeros(3)]), RuntimeError, "Sizes of tensors must match"),
    (lambda m: m.zeros(2).new_full(2, 1.0), TypeError, "tuple of ints"),
    (lambda m: m.sort([1, 2]), TypeError, "Tensor"),
    (lambda m: m.flip(m.zeros(2)), TypeError, "dims"),
]


@pytest.mark.parametrize("call, error, fragment", ERRORS)
def test_errors_like_torch(call, error, fragment):
    raises_like_torch(call, error, fragment)
