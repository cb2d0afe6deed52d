"""In-place operations on views (``y[0] += 1``, ``y.t()[0].zero_()``, ``z[0].copy_(x)`` ...).

Each case changes a view of a tensor in the graph and returns the base (and often the view);
``helpers.check_op`` compares the values and every input's gradient with PyTorch's, and runs
gradcheck in float64. The error cases raise what PyTorch raises.
"""

import numpy
import pytest
from _reference import reference
from _torch import require_torch

import minigrad as mg

from .helpers import case, check_op, to_numpy

# --- a view of a non-leaf changes in place ----------------------------------------------------


def select_iadd(m, x):
    y = x * 2
    y[0] += 1
    return y


def column_imul(m, x):
    y = x * 2
    y[:, 1] *= x[:, 2]
    return y


def select_mul_(m, x):
    y = x * 2
    y[1].mul_(3)
    return y


def transposed_row_zero_(m, x):
    y = x * 2
    y.t()[0].zero_()
    return y


def scalar_view_add_(m, x):
    y = x * 2
    y[0, 0].add_(x[1, 1])  # a 0-d view: y changes too
    return y


def flat_view_add_(m, x):
    y = x * 2
    y.view(12)[3:7].add_(x.view(12)[:4])
    return y


def transposed_clamp_(m, x):
    y = x * 2
    y.transpose(0, 1)[2].clamp_(-0.5, 0.5)
    return y


def transposed_sub_div_(m, x, w):
    y = x * 2
    row = y.transpose(0, 1)[1]
    row.sub_(w, alpha=0.5)
    row.div_(w.abs() + 1)
    return y, row


def transposed_fill_(m, x):
    y = x * 2
    y.transpose(0, 1)[3].fill_(1.5)
    return y


def transposed_copy_(m, x, w):
    y = x * 2
    y.transpose(0, 1)[0].copy_(w * w)
    return y


def view_and_base_both_used(m, x, w):
    """Gradients flow through the changed view and through the rest of the base."""
    y = x * 2
    v = y[1:]
    v += 1
    return (v * w).sum() + (y * y).sum()


def plain_base_setitem(m, x):
    z = m.zeros(3, 4, dtype=x.dtype)
    z[0] = x[0]
    return z


def plain_base_nested_setitem(m, x):
    z = m.zeros(3, 4, dtype=x.dtype)
    z[0][1:3] = x[0, :2]  # through a view of z, which does not require grad
    return z


def plain_base_view_copy_(m, x):
    z = m.zeros(3, 4, dtype=x.dtype)
    row = z[0]
    row.copy_(x[1])
    return z, row


def plain_base_two_views(m, x):
    z = m.ones(3, 4, dtype=x.dtype)
    z[1].mul_(x[0])
    z[:, 2].add_(x[:, 1])  # a second view, made after the first change
    return z


def column_major_base(m, x):
    """A base whose memory is column-major: its view chain is replayed on a row-major gradient."""
    z = m.zeros(4, 3, dtype=x.dtype).t().data  # (3, 4), not a view, strides of a transposed array
    z.copy_(x.sin())  # z joins the graph, its memory stays column-major
    z.t().reshape(12)[3:7].mul_(x[0])
    return z


def view_of_view_iadd(m, x):
    y = x * 2
    y[1:][:, ::2] += 1
    return y


def view_of_view_imul(m, x):
    y = x * 2
    v = y[1:]
    v[:, ::2] *= x[1:, 1::2]
    return y, v


def reshaped_row_mul_(m, x):
    y = x * 2
    y.view(2, 6)[1].mul_(x[0, :1])
    return y


def permuted_3d_add_(m, x):
    y = x.sin()
    y.permute(2, 0, 1)[1].add_(x[:, :, 0])
    return y


def unsqueezed_sub_(m, x):
    y = x * 2
    y.unsqueeze(0)[0, 1].sub_(x[2])
    return y


def flattened_strided_mul_(m, x):
    y = x * 2
    y.flatten()[::3].mul_(x.flatten()[1::3])
    return y


def big_t_div_(m, x):
    y = x * 2
    y.T[1:3].div_(x.T[1:3].abs() + 1)
    return y


def unary_ops_on_views(m, x):
    y = x * 1.5
    y[2].pow_(2)
    y[1].neg_()
    y[0].relu_()  # last: PyTorch's relu_ saves its output, which a later change of y would alter
    return y


def setitem_on_view_with_index_array(m, x):
    y = x * 2
    y[1][[0, 2]] = x[0, :2]
    return y


def view_changed_twice(m, x, w):
    y = x * 2
    v = y[0]
    v.add_(1)
    v.mul_(w)
    return y, v


def changed_view_used_after(m, x):
    y = x * 2
    v = y[0]
    v.mul_(2)
    return v.exp(), y.sin()


def rows_by_index(m, x):
    y = x * 2
    for i in range(len(y)):
        y[i] += x[0] * i
    return y


def sibling_view_overlapping(m, x):
    """``b`` was made before ``a`` changed; its element b[0] is y[0, 0], which did change."""
    y = x * 2
    a = y[0]
    b = y[:, 0]
    a.mul_(3)
    return b


def view_made_before_base_changed(m, x):
    y = x * 2
    v = y[0]
    y.mul_(x)
    return v


def view_made_before_base_joined_the_graph(m, x):
    z = m.zeros(3, 4, dtype=x.dtype)
    row = z[0]
    z[0] = x[0]
    return row * 1


def expanded_view_after_base_changed(m, x):
    y = x * 2
    e = y.expand(2, 3, 4)
    y.add_(x)
    return e


CASES = [
    case("select_iadd", select_iadd, (3, 4)),
    case("column_imul", column_imul, (3, 4)),
    case("select_mul_", select_mul_, (3, 4)),
    case("transposed_row_zero_", transposed_row_zero_, (3, 4)),
    case("scalar_view_add_", scalar_view_add_, (3, 4)),
    case("flat_view_add_", flat_view_add_, (3, 4)),
    case("transposed_clamp_", transposed_clamp_, (3, 4)),
    case("transposed_sub_div_", transposed_sub_div_, (3, 4), (3,)),
    case("transposed_fill_", transposed_fill_, (3, 4)),
    case("transposed_copy_", transposed_copy_, (3, 4), (3,)),
    case("view_and_base_both_used", view_and_base_both_used, (3, 4), (2, 4)),
    case("plain_base_setitem", plain_base_setitem, (3, 4)),
    case("plain_base_nested_setitem", plain_base_nested_setitem, (3, 4)),
    case("plain_base_view_copy_", plain_base_view_copy_, (3, 4)),
    case("plain_base_two_views", plain_base_two_views, (3, 4)),
    case("column_major_base", column_major_base, (3, 4)),
    case("view_of_view_iadd", view_of_view_iadd, (3, 4)),
    case("view_of_view_imul", view_of_view_imul, (3, 4)),
    case("reshaped_row_mul_", reshaped_row_mul_, (3, 4)),
    case("permuted_3d_add_", permuted_3d_add_, (2, 3, 4)),
    case("unsqueezed_sub_", unsqueezed_sub_, (3, 4)),
    case("flattened_strided_mul_", flattened_strided_mul_, (3, 4)),
    case("big_t_div_", big_t_div_, (3, 4)),
    case("unary_ops_on_views", unary_ops_on_views, (3, 4)),
    case("setitem_on_view_with_index_array", setitem_on_view_with_index_array, (3, 4)),
    case("view_changed_twice", view_changed_twice, (3, 4), (4,)),
    case("changed_view_used_after", changed_view_used_after, (3, 4)),
    case("rows_by_index", rows_by_index, (3, 4)),
    case("sibling_view_overlapping", sibling_view_overlapping, (3, 4)),
    case("view_made_before_base_changed", view_made_before_base_changed, (3, 4)),
    case("view_made_before_base_joined_the_graph", view_made_before_base_joined_the_graph, (3, 4)),
    case("expanded_view_after_base_changed", expanded_view_after_base_changed, (3, 4)),
]


@pytest.mark.parametrize("c", CASES)
def test_in_place_on_a_view_matches_torch(c):
    check_op(c)


def test_the_base_and_the_view_get_pytorchs_nodes():
    x = mg.randn(3, 4, requires_grad=True)
    y = x * 2
    v = y[1:]
    old = y.grad_fn
    v += 1
    assert y.grad_fn.name() == "CopySlicesBackward0"  # PyTorch's CopySlices
    assert [node for node, _ in y.grad_fn.next_functions[:1]] == [old]
    assert y.grad_fn.next_functions[1][0].name() == "AddBackward0"  # the op, recorded on v's old value
    assert v.grad_fn.name() == "AsStridedBackward0"  # the view re-made from the new base
    assert v.grad_fn.next_functions[0][0] is y.grad_fn


def test_a_view_of_a_plain_tensor_brings_its_base_into_the_graph():
    x = mg.randn(4, requires_grad=True)
    z = mg.zeros(3, 4)
    assert not z.requires_grad
    z[0].copy_(x)
    assert z.requires_grad and not z.is_leaf
    z.sum().backward()
    numpy.testing.assert_array_equal(to_numpy(x.grad), numpy.ones(4))


# --- errors and the version counter ------------------------------------------------------------

VIEW_OF_LEAF = {
    "add_": lambda x: x[0].add_(1),
    "add_tensor": lambda x: x[0].add_(x.detach()[1]),
    "mul_transposed": lambda x: x.t().mul_(2),
    "zero_flat": lambda x: x.view(12).zero_(),
    "fill_": lambda x: x[1].fill_(1.0),
    "setitem": lambda x: x[0].__setitem__(1, 2.0),
    "normal_": lambda x: x[2].normal_(),
}


@pytest.mark.parametrize("name", VIEW_OF_LEAF)
def test_in_place_on_a_view_of_a_leaf_raises_like_torch(name):
    change = VIEW_OF_LEAF[name]

    def torch_refuses(torch):
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            change(torch.ones(3, 4, requires_grad=True))
        return True

    assert reference(torch_refuses)
    x = mg.ones(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        change(x)
    numpy.testing.assert_array_equal(to_numpy(x.detach()), numpy.ones((3, 4)))  # nothing was written
    assert x._version == 0


def test_in_place_on_a_view_of_a_leaf_works_under_no_grad():
    w = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with mg.no_grad():
        w[0].mul_(10)
        w.t()[1].zero_()
    assert w.is_leaf and w.grad_fn is None and w.requires_grad
    numpy.testing.assert_array_equal(to_numpy(w.detach()), [[10.0, 0.0], [3.0, 0.0]])


def test_a_view_made_under_no_grad_and_changed_outside_raises_like_torch():
    torch = require_torch()
    for lib in (torch, mg):
        x = lib.ones(3, 4, requires_grad=True)
        y = x * 2
        with lib.no_grad():
            v = y[0]
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
            v.add_(1)


def test_a_row_of_an_iteration_cannot_be_changed_in_place_like_torch():
    """PyTorch iterates with unbind, whose output views refuse in-place changes in the graph."""
    torch = require_torch()
    for lib in (torch, mg):
        y = lib.ones(3, 4, requires_grad=True) * 2
        for row in y:
            with pytest.raises(RuntimeError, match="multiple views"):
                row += 1
        z = lib.zeros(2, 3)
        for row in z:
            row += 1  # nothing requires grad: just written
        numpy.testing.assert_array_equal(numpy.asarray(z.tolist()), numpy.ones((2, 3)))


def test_a_view_made_under_no_grad_of_a_plain_tensor_is_just_written():
    z = mg.zeros(3)
    with mg.no_grad():
        v = z[1:]
    v.add_(2)
    numpy.testing.assert_array_equal(to_numpy(z), [0.0, 2.0, 2.0])


def test_an_expanded_view_cannot_be_written_like_torch():
    torch = require_torch()
    for lib in (torch, mg):
        y = lib.ones(3, 1, requires_grad=True) * 2
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            y.expand(3, 4).add_(1)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            lib.zeros(3, 1).expand(3, 4).mul_(2)


def test_a_detached_view_changes_untracked_but_bumps_the_version():
    x = mg.tensor([0.5, 1.0], dtype=mg.float64, requires_grad=True)
    y = x.sin()  # Sin saves x
    x.detach()[0].zero_()
    assert x.grad_fn is None and not x.detach().requires_grad
    numpy.testing.assert_array_equal(to_numpy(x.detach()), [0.0, 1.0])
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("saver", ["input", "output"])
def test_changing_a_view_of_a_saved_tensor_makes_backward_raise(saver):
    x = mg.randn(3, 4, requires_grad=True)
    if saver == "input":
        y = x * 2
        out = y.sin()  # Sin saves its input y
    else:
        y = x.exp()  # Exp saves its output y
        out = y
    y[0] += 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as error:
        out.sum().backward()
    assert "SinBackward0" in str(error.value) or "ExpBackward0" in str(error.value)


def test_the_view_and_its_base_share_one_version_counter():
    y = mg.randn(3, 4, requires_grad=True) * 2
    v = y.t()[1]
    before = y._version
    v.mul_(2)
    y[2].add_(1)
    assert y._version == v._version == before + 2
