"""Memory layout (minigrad/ops/strided.py): ``stride()``, ``storage_offset()``, ``as_strided``,
``unfold`` and the in-place view ops, against PyTorch; also the conversions and method forms of
issue 29 (``short()``, ``true_divide``, ``remainder``, ``matrix_power``).

Strides are compared for the same view made in both libraries; the views share storage (writes
show through, one version counter), and their gradients — overlapping windows add up — are
checked by ``helpers.check_op`` (gradcheck, gradgradcheck, PyTorch's values and gradients).
"""

import numpy
import pytest
from _reference import reference
from _torch import raises_like_torch

import minigrad as mg

from .helpers import case, check_op, to_numpy

# --- strides and offsets of views, as PyTorch reports them -------------------------------------

VIEWS = {
    "fresh": lambda x: x,
    "transpose": lambda x: x.transpose(0, 2),
    "permute": lambda x: x.permute(2, 0, 1),
    "select": lambda x: x[1],
    "slice": lambda x: x[:, 1:],
    "step-slice": lambda x: x[..., ::2],
    "none-first": lambda x: x[None],
    "none-middle": lambda x: x[:, None],
    "unsqueeze-last": lambda x: x.unsqueeze(-1),
    "transposed-unsqueeze": lambda x: x.transpose(0, 1).unsqueeze(1),
    "expand": lambda x: x[:, :1].expand(2, 5, 4),
    "view": lambda x: x.view(6, 4),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "scalar": lambda x: x[1, 2, 3],
    "empty": lambda x: x[:, :0],
    "unfold": lambda x: x.unfold(2, 2, 1),
    "unfold-negative-dim": lambda x: x[0].unfold(-2, 2, 1),
    "as_strided": lambda x: x.as_strided((3, 2), (2, 5), 1),
    "as_strided-of-slice": lambda x: x[1:].as_strided((2, 2), (1, 4)),
    "flatten-of-transpose": lambda x: x.transpose(1, 2).flatten(),
}


@pytest.mark.parametrize("name", VIEWS)
def test_stride_and_storage_offset_match_pytorch(name):
    make = VIEWS[name]
    ours = make(mg.arange(24.0).view(2, 3, 4))
    theirs = reference(lambda torch: (lambda t: [list(t.stride()), t.storage_offset(), t.is_contiguous(),
                                                  t.tolist()])(make(torch.arange(24.0).view(2, 3, 4))))
    assert [list(ours.stride()), ours.storage_offset(), ours.is_contiguous(), ours.tolist()] == theirs


def test_stride_of_one_dim_and_its_errors():
    x = mg.zeros(2, 3, 4)
    assert [x.stride(0), x.stride(-1)] == reference(lambda torch: (lambda t: [t.stride(0), t.stride(-1)])(
        torch.zeros(2, 3, 4)))
    assert mg.tensor(1.0).stride() == ()
    raises_like_torch(lambda m: m.zeros(2, 3).stride(2), IndexError, "2")
    raises_like_torch(lambda m: m.tensor(1.0).stride(0), IndexError, "no dimensions")


# --- views share storage ---------------------------------------------------------------------

@pytest.mark.parametrize("make", [lambda t: t.unfold(0, 3, 2), lambda t: t.as_strided((4, 3), (2, 1)),
                                  lambda t: t.as_strided((2, 2), (3, 1), 2)], ids=["unfold", "as_strided",
                                                                                  "as_strided-offset"])
def test_writes_show_through_and_the_version_is_shared(make):
    base = mg.arange(10.0)
    view = make(base)
    assert view._base is base and view._version == base._version == 0
    view[1, 0] = -1.0
    theirs = reference(lambda torch: (lambda b: (make(b).__setitem__((1, 0), -1.0), b.tolist())[1])(
        torch.arange(10.0)))
    assert base.tolist() == theirs and view._version == base._version == 1


# --- gradients: overlapping windows add up ------------------------------------------------------

def _written_through(m, a):
    y = a * 1
    y.as_strided((2, 2), (1, 2), 1).mul_(3)  # an in-place change through the view reaches y
    return y


def _unfolded_then_changed(m, a):
    y = a * 2
    y.unfold(0, 2, 2)[1].add_(a[:2])
    return y


CASES = [
    case("unfold-overlapping", lambda m, a: a.unfold(0, 3, 1), (6,)),
    case("unfold-step", lambda m, a: a.unfold(1, 3, 2), (3, 8)),
    case("unfold-negative-dim", lambda m, a: a.unfold(-2, 2, 1), (4, 3)),
    case("unfold-empty-window", lambda m, a: a.unfold(1, 0, 1), (2, 3)),
    case("unfold-0d", lambda m, a: a.unfold(0, 1, 1), ()),
    case("unfold-of-transpose", lambda m, a: a.t().unfold(0, 2, 1), (3, 4)),
    case("as_strided-overlapping", lambda m, a: a.as_strided((3, 3), (1, 1)), (5,)),
    case("as_strided-offset", lambda m, a: a.as_strided((2, 2), (1, 2), 1), (3, 4)),
    case("as_strided-of-view", lambda m, a: a[1:].t().as_strided((2, 3), (4, 1)), (3, 4)),
    case("as_strided-expanded-input", lambda m, a: a.expand(3, 4).as_strided((2, 2), (0, 1)), (4,)),
    case("as_strided-function", lambda m, a: m.as_strided(a, (2,), (3,)), (2, 3)),
    case("as_strided-written-through", _written_through, (3, 4)),
    case("unfold-written-through", _unfolded_then_changed, (6,)),
    case("t_", lambda m, a: (a * 1).t_(), (2, 3)),
    case("transpose_", lambda m, a: (a * 1).transpose_(0, -1), (2, 3, 4)),
    case("squeeze_-unsqueeze_", lambda m, a: (a * 1).squeeze_(1).unsqueeze_(0), (2, 1, 3)),
]


@pytest.mark.parametrize("c", CASES)
def test_views_against_pytorch(c):
    check_op(c)


def test_node_names_are_pytorchs():
    def run(lib):
        x = lib.ones(3, 4, requires_grad=True)
        names = []
        for view in (x.unfold(1, 2, 1), x.as_strided((2, 2), (1, 1))):
            weights = lib.ones(view.shape, requires_grad=True)
            grad = lib.autograd.grad(view, x, weights, create_graph=True)[0]
            names += [view.grad_fn.name(), grad.grad_fn.name()]
        return names

    assert run(mg) == reference(run)


@pytest.mark.parametrize("call, error, fragments", [
    (lambda m: m.zeros(3, 4).unfold(1, 5, 1), RuntimeError, ["dimension 1 is 4", "size is 5"]),
    (lambda m: m.zeros(3, 4).unfold(1, 2, 0), RuntimeError, ["step is 0"]),
    (lambda m: m.zeros(3, 4).unfold(1, -1, 1), RuntimeError, ["size is -1"]),
    (lambda m: m.zeros(3, 4).unfold(2, 1, 1), IndexError, ["got 2"]),
    (lambda m: m.tensor(5.0).unfold(0, 2, 1), RuntimeError, ["size is 2"]),
    (lambda m: m.zeros(3, 4).as_strided((3,), (-1,)), RuntimeError, ["Negative strides", "[-1]"]),
    (lambda m: m.zeros(3, 4).as_strided((3,), (1, 2)), RuntimeError, ["mismatch in length"]),
    (lambda m: m.zeros(3, 4).as_strided((7,), (2,)), RuntimeError, ["sizes [7]", "storage size of 52",
                                                                     "size 48"]),
    (lambda m: m.zeros(3, 4).as_strided((2,), (1,), -1), RuntimeError, ["storage offset -1"]),
], ids=["unfold-too-big", "unfold-step-0", "unfold-negative-size", "unfold-dim", "unfold-0d-too-big",
        "as_strided-negative-stride", "as_strided-lengths", "as_strided-out-of-bounds",
        "as_strided-negative-offset"])
def test_misuse_raises_like_pytorch(call, error, fragments):
    raises_like_torch(call, error, *fragments)


@pytest.mark.parametrize("convert", [lambda m, a: m.from_numpy(a), lambda m, a: m.as_tensor(a, device="cpu")],
                         ids=["from_numpy", "as_tensor"])
def test_a_flipped_numpy_array_is_refused_as_in_pytorch(convert):
    flipped = numpy.arange(5.0)[::-1]
    raises_like_torch(lambda m: convert(m, flipped), ValueError, "negative", "array.copy()")
    assert mg.from_numpy(flipped.copy()).stride() == (1,) and mg.tensor(flipped).stride() == (1,)


def test_empty_as_strided_is_allowed_anywhere_as_in_pytorch():
    assert mg.zeros(3, 4).as_strided((0, 3), (1, 1), 100).shape == (0, 3)


# --- in-place view ops: the tensor's own layout --------------------------------------------------

INPLACE = {
    "squeeze_": lambda y: y.squeeze_(),
    "squeeze_-dim": lambda y: y.squeeze_(1),
    "squeeze_-dims": lambda y: y.squeeze_((1, 3)),
    "unsqueeze_": lambda y: y.unsqueeze_(-1),
    "transpose_": lambda y: y.transpose_(0, 2),
}


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_view_ops_change_the_layout_and_are_recorded_as_pytorch(name):
    change = INPLACE[name]

    def run(lib):
        x = lib.arange(6.0).view(2, 1, 3, 1).requires_grad_()
        y = x * 1
        out = change(y)
        (y * lib.arange(6.0).view(y.shape)).sum().backward()
        return [out is y, list(y.shape), list(y.stride()), y._version, y.grad_fn.name(), x.grad.tolist()]

    assert run(mg) == reference(run)


def test_t_and_transpose_of_a_view_and_under_no_grad():
    def run(lib):
        base = lib.arange(12.0).view(3, 4)
        row_block = base[1:]
        row_block.t_()
        leaf = lib.ones(2, 3, requires_grad=True)
        with lib.no_grad():
            leaf.t_()
        return [list(row_block.shape), list(row_block.stride()), row_block.storage_offset(), base._version,
                row_block.tolist(), list(leaf.shape), leaf.grad_fn is None]

    assert run(mg) == reference(run)
    raises_like_torch(lambda m: m.ones(2, 3, requires_grad=True).t_(), RuntimeError, "leaf Variable")


def test_a_recorded_view_changed_in_place_then_written_through_gives_pytorchs_gradient():
    def run(lib):
        x = lib.arange(12.0).view(3, 4).requires_grad_()
        y = x * 1
        v = y[1:]
        v.t_()
        v[0] *= 2  # the first column of y's last two rows
        (y * y).sum().backward()
        return x.grad.tolist()

    assert run(mg) == reference(run)


# --- conversions and method forms ------------------------------------------------------------------

def test_conversions_and_ndimension():
    values = numpy.array([[-1.5, 2.7, 300.0]])

    def run(lib):
        t = lib.tensor(values)
        return [str(t.short().dtype), str(t.char().dtype), str(t.byte().dtype), str(t.half().dtype),
                str(t.int().dtype), str(t.bool().dtype), t.ndimension(), t.short().tolist(),
                lib.tensor(2.0).ndimension()]

    ours = run(mg)
    assert [s.replace("minigrad", "torch") if isinstance(s, str) else s for s in ours] == reference(run)


METHOD_CASES = [
    case("remainder-method", lambda m, a, b: a.remainder(b), (3, 4), (4,), domain="positive"),
    case("true_divide-method", lambda m, a, b: a.true_divide(b), (3, 4), (4,), domain="positive"),
    case("true_divide-function", lambda m, a, b: m.true_divide(a, b), (3,), (3,), domain="positive"),
    case("true_divide_", lambda m, a, b: (a * 1).true_divide_(b), (2, 3), (3,), domain="positive"),
    case("remainder_", lambda m, a: (a * 3).remainder_(1.5), (2, 3), domain="positive"),
    case("matrix_power-2", lambda m, a: a.matrix_power(2), (3, 3)),
    case("matrix_power-5", lambda m, a: a.matrix_power(5), (3, 3)),
    case("matrix_power-batched", lambda m, a: m.matrix_power(a, 3), (2, 3, 3)),
    case("matrix_power-1", lambda m, a: a.matrix_power(1), (2, 2)),
    case("matrix_power-empty", lambda m, a: a.matrix_power(3), (0, 2, 2)),
    # negative powers go through the inverse: a well-conditioned A = a + 3I
    case("matrix_power-neg1", lambda m, a: (a + 3 * m.eye(3, dtype=a.dtype)).matrix_power(-1), (3, 3)),
    case("matrix_power-neg3", lambda m, a: (a + 3 * m.eye(3, dtype=a.dtype)).matrix_power(-3), (2, 3, 3)),
]


@pytest.mark.parametrize("c", METHOD_CASES)
def test_method_forms_against_pytorch(c):
    check_op(c)


def test_matrix_power_of_integers_and_zero_and_its_errors():
    values = numpy.array([[1, 2], [3, 4]])

    def run(lib):
        a = lib.tensor(values)
        f = lib.tensor(values.astype(numpy.float64), requires_grad=True)
        zero = f.matrix_power(0)
        zero_name = zero.grad_fn.name().removeprefix("torch::autograd::")
        return [a.matrix_power(3).tolist(), zero.tolist(), zero_name, f.matrix_power(3).grad_fn.name()]

    assert run(mg) == reference(run)
    raises_like_torch(lambda m: m.zeros(3, 4).matrix_power(2), RuntimeError, "3 by 4")
    raises_like_torch(lambda m: m.zeros(3).matrix_power(2), RuntimeError, "at least 2 dimensions")
    raises_like_torch(lambda m: m.zeros(2, 2).matrix_power(2.0), TypeError, "must be int")


def test_remainder_and_true_divide_of_integers():
    def run(lib):
        a = lib.tensor([-7, 5, 9])
        return [a.remainder(3).tolist(), str(a.true_divide(2).dtype), a.true_divide(2).tolist()]

    ours = run(mg)
    ours[1] = ours[1].replace("minigrad", "torch")
    assert ours == reference(run)


def test_storage_offset_on_the_device(device):
    x = mg.arange(12.0).view(3, 4)
    assert x[1:, 2:].storage_offset() == 6 and to_numpy(x.unfold(1, 2, 2)[2, 1]).tolist() == [10.0, 11.0]


def test_a_view_made_before_its_base_changed_layout_is_refused_in_the_graph():
    x = mg.arange(6.0).view(2, 3).requires_grad_()
    y = x * 1
    row = y[0]
    y.t_()
    with pytest.raises(RuntimeError, match=r"made before its base \(now of shape \[3, 2\]\) changed"):
        (row * 2).sum()
    y = x * 1
    y.t_()
    row = y[0]  # made after the change: a column of x
    (row * mg.tensor([1.0, 2.0])).sum().backward()
    assert to_numpy(x.grad).tolist() == [[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]
