"""Second derivatives of the shape, indexing, reduction and matrix-product ops where the other
``check_op`` tables do not reach: embedding, assignment through indexing, prod with zeros, empty
tensors, batch 1, odd sizes, negative dims, keepdim, broadcast batches. Each row is checked by
``check_op``: gradcheck and gradgradcheck in float64, and values, gradients and second
derivatives against PyTorch. Then a third derivative, the node names of recorded backwards, and
the one place minigrad's second derivative differs from PyTorch's on purpose."""

from __future__ import annotations

import numpy
import pytest
from _reference import reference

import minigrad as mg

from .helpers import case, check_gradgradcheck, check_op, to_numpy

A = numpy.array
INDICES = A([[1, 2], [1, 4]])             # row 1 looked up twice
WITH_ZEROS = A([[0.0, 2.0, -3.0], [0.0, 0.0, 4.0], [1.0, 0.5, -2.0]])
TIED_ROWS = A([[1.0, 3.0, 3.0], [2.0, -1.0, 2.0]])


def _assigned(m, a, key, value):
    """A copy of ``a`` with ``value`` written at ``key``: ``y[key] = value``, recorded as PyTorch does."""
    y = a * 1
    y[key] = value
    return y


CASES = [
    # embedding: a lookup whose backward (a scatter-add of rows) is differentiated again
    case("embedding", lambda m, i, w: m.nn.functional.embedding(i, w), INDICES, (5, 3)),
    # (the padding row's gradient is 0 by definition, not by finite differences: no gradcheck)
    case("embedding_padding_idx", lambda m, i, w: m.nn.functional.embedding(i, w, padding_idx=1), INDICES,
         (5, 3), gradcheck=False),
    case("embedding_1d_indices", lambda m, i, w: m.nn.functional.embedding(i, w), A([4, 0, 4]), (5, 2)),
    # assignment through indexing: da = dy with zeros at the key, dvalue = dy[key]
    case("setitem_column", lambda m, a, b: _assigned(m, a, (slice(None), 1), b), (3, 2), (3,)),
    case("setitem_int", lambda m, a, b: _assigned(m, a, 1, b), (3, 2), (2,)),
    case("setitem_broadcast_value", lambda m, a, b: _assigned(m, a, slice(0, 2), b), (3, 2), (1, 2)),
    case("setitem_index_array", lambda m, a, b: _assigned(m, a, m.tensor([2, 0]), b), (3, 2), (2, 2)),
    # prod with zeros: exclusive products without division, exact at the zeros
    case("prod_zeros_neg_dim", lambda m, a: a.prod(-1), WITH_ZEROS),
    case("prod_two_zeros_all", lambda m, a: a.prod(), WITH_ZEROS),
    case("prod_zero_keepdim", lambda m, a: a.prod(0, keepdim=True), WITH_ZEROS),
    case("prod_batch1", lambda m, a: a.prod(1), (1, 5)),
    # reductions: empty tensors, batch 1, negative dims, keepdim
    case("sum_empty", lambda m, a: a.sum(0), (0, 3)),
    case("sum_neg_dims", lambda m, a: a.sum((-1, 0)), (2, 3, 5)),
    case("mean_middle_keepdim", lambda m, a: a.mean(1, keepdim=True), (2, 3, 5)),
    case("mean_batch1", lambda m, a: a.mean(0), (1, 5)),
    case("var_neg_dim", lambda m, a: a.var(-2), (3, 5, 2)),
    case("std_keepdim", lambda m, a: a.std((0, 2), keepdim=True), (3, 2, 5)),
    case("amax_middle", lambda m, a: a.amax(1), (2, 5, 3)),
    case("max_dim_neg_keepdim", lambda m, a: a.max(-1, keepdim=True), (3, 1, 5)),
    case("max_dim_ties", lambda m, a: a.max(1), TIED_ROWS, gradcheck=False),
    case("logsumexp_neg_dim", lambda m, a: a.logsumexp(-1), (3, 5)),
    case("norm_p3_keepdim", lambda m, a: a.norm(p=3, dim=0, keepdim=True), (5, 2)),
    case("cumsum_neg_dim", lambda m, a: a.cumsum(-1), (2, 5)),
    # shapes and pieces
    case("cat_with_empty", lambda m, a, b: m.cat([a, b], 0), (0, 3), (2, 3)),
    case("cat_neg_dim_odd", lambda m, a, b, c: m.cat([a, b, c], -1), (2, 1), (2, 3), (2, 5)),
    case("stack_batch1", lambda m, a, b: m.stack([a, b], 1), (1, 3), (1, 3)),
    case("expand_new_and_size1", lambda m, a: a.expand(2, 3, 4), (3, 1)),
    case("permute_3d", lambda m, a: a.permute(2, 0, 1), (2, 3, 5)),
    case("squeeze_unsqueeze", lambda m, a: a.squeeze(1).unsqueeze(-1), (3, 1, 5)),
    case("split_uneven", lambda m, a: a.split(2, dim=-1), (3, 5)),
    case("unbind_neg", lambda m, a: a.unbind(-1), (3, 2)),
    case("pad_reflect_2d", lambda m, a: m.nn.functional.pad(a, (1, 1, 2, 0), mode="reflect"), (1, 2, 4, 3)),
    case("pad_crop_and_pad", lambda m, a: m.nn.functional.pad(a, (2, -1, -1, 1), value=0.5), (3, 4)),
    case("repeat_new_dims", lambda m, a: a.repeat(2, 1, 3), (2, 3)),
    case("flip_roll", lambda m, a: a.flip(-1).roll(2, 0), (5, 3)),
    case("diag_wide_offset", lambda m, a: m.diag(a, 2), (3, 6)),
    case("masked_fill_broadcast", lambda m, a: a.masked_fill(m.tensor([[True], [False]]), 0.0), (3,)),
    # picks and scatters
    case("gather_dim0", lambda m, a: a.gather(0, m.tensor([[2, 0, 2]])), (3, 3)),
    case("scatter_value", lambda m, a: a.scatter(1, m.tensor([[0], [2]]), 2.5), (2, 3)),
    case("scatter_add_repeats", lambda m, a, b: a.scatter_add(0, m.tensor([[1, 1], [1, 0]]), b),
         (2, 2), (2, 2)),
    case("index_add", lambda m, a, b: a.index_add(0, m.tensor([1, 1, 0]), b), (2, 3), (3, 3)),
    case("sort_descending_neg_dim", lambda m, a: a.sort(-1, descending=True), (3, 5)),
    case("topk_smallest", lambda m, a: a.topk(2, dim=0, largest=False), (5, 3)),
    # matrix products: batch 1, odd sizes, broadcast batches, vectors
    case("matmul_broadcast_batch", lambda m, a, b: a @ b, (1, 1, 5), (3, 5, 2)),
    case("matmul_vector_batch", lambda m, a, b: a @ b, (5,), (2, 5, 3)),
    case("matmul_batch_vector", lambda m, a, b: a @ b, (2, 3, 5), (5,)),
    case("matmul_matrix_batch", lambda m, a, b: a @ b, (3, 5), (2, 5, 1)),
    case("linear_batch1", lambda m, x, w, b: m.nn.functional.linear(x, w, b), (1, 5), (3, 5), (3,)),
    case("linear_3d_no_bias", lambda m, x, w: m.nn.functional.linear(x, w), (2, 1, 5), (3, 5)),
    case("addmm_scaled", lambda m, c, a, b: m.addmm(c, a, b, beta=0.5, alpha=-2.0), (1, 3), (2, 5), (5, 3)),
    case("einsum_broadcast_size1", lambda m, a, b: m.einsum("ij,j->ij", a, b), (2, 3), (1,)),
    case("einsum_summed_index", lambda m, a, b: m.einsum("ij,kj->i", a, b), (2, 3), (4, 3)),
]


@pytest.mark.parametrize("c", CASES)
def test_second_derivatives_match_torch(c):
    check_op(c)


def test_third_derivative_of_prod_with_zeros_matches_torch():
    """d³/da³ of Σ w·prod(a, 1), contracted with v twice: the exclusive products stay exact at zeros."""
    rng = numpy.random.default_rng(3)
    x = A([[0.0, 2.0, -3.0, 0.5], [0.0, 0.0, 4.0, 1.5]])
    w, v, u = rng.standard_normal(2), rng.standard_normal(x.shape), rng.standard_normal(x.shape)

    def third(m):
        a = m.tensor(x, requires_grad=True)
        (first,) = m.autograd.grad((a.prod(1) * m.tensor(w)).sum(), a, create_graph=True)
        (second,) = m.autograd.grad((first * m.tensor(v)).sum(), a, create_graph=True)
        (result,) = m.autograd.grad((second * m.tensor(u)).sum(), a)
        return result

    expected = reference(third, inputs={"x": x, "w": w, "v": v, "u": u})
    numpy.testing.assert_allclose(to_numpy(third(mg)), expected, rtol=1e-10, atol=1e-12)
    assert numpy.any(expected != 0)  # the two zeros of row 1 make it nonzero


@pytest.mark.parametrize("name, fn, shape", [
    ("select", lambda m, a: a[1], (2, 3)),
    ("slice", lambda m, a: a[:, 1:], (2, 3)),
    ("index", lambda m, a: a[m.tensor([0, 0, 1])], (2, 3)),
    ("gather", lambda m, a: a.gather(1, m.tensor([[0, 0], [1, 2]])), (2, 3)),
    ("sort", lambda m, a: a.sort(1).values, (2, 3)),
    ("max_dim", lambda m, a: a.max(1).values, (2, 3)),
    ("index_select", lambda m, a: a.index_select(0, m.tensor([1, 1])), (2, 3)),
    ("masked_fill", lambda m, a: a.masked_fill(m.tensor([True, False, True]), 0.0), (2, 3)),
    ("flip", lambda m, a: a.flip(0), (2, 3)),
    ("roll", lambda m, a: a.roll(1, 0), (2, 3)),
    ("tril", lambda m, a: a.tril(), (3, 3)),
    ("permute", lambda m, a: a.permute(1, 0), (2, 3)),
    ("t", lambda m, a: a.t(), (2, 3)),
    ("view", lambda m, a: a.view(6), (2, 3)),
    ("pad", lambda m, a: m.nn.functional.pad(a, (1, 2)), (2, 3)),
    ("sum", lambda m, a: a.sum(), (2, 3)),
    ("sum_dim", lambda m, a: a.sum(1), (2, 3)),
])
def test_recorded_backward_has_torch_node_name(name, fn, shape):
    """The node that made a first derivative recorded with create_graph=True is named as PyTorch's."""
    x = numpy.random.default_rng(0).standard_normal(shape)

    def node_name(m):
        a = m.tensor(x, requires_grad=True)
        y = fn(m, a)
        (grad,) = m.autograd.grad(y, a, m.ones_like(y, requires_grad=True), create_graph=True)
        return grad.grad_fn.name()

    assert node_name(mg) == reference(node_name, inputs={"x": x})


@pytest.mark.parametrize("name, fn", [
    ("mm", lambda m, x, w: x @ w),
    ("embedding", lambda m, x, w: m.nn.functional.embedding(m.tensor([[1, 2], [1, 0]]), w)),
])
def test_recorded_weight_gradient_has_torch_node_name(name, fn):
    x = numpy.random.default_rng(1).standard_normal((2, 3))
    w = numpy.random.default_rng(2).standard_normal((3, 3))

    def node_name(m):
        a, b = m.tensor(x, requires_grad=True), m.tensor(w, requires_grad=True)
        y = fn(m, a, b)
        (grad,) = m.autograd.grad(y, b, m.ones_like(y, requires_grad=True), create_graph=True)
        return grad.grad_fn.name()

    assert node_name(mg) == reference(node_name, inputs={"x": x, "w": w})


def test_embedding_scale_grad_by_freq_is_differentiated_as_computed():
    """With ``scale_grad_by_freq`` the backward divides each row's gradient by its count; its own
    backward here is that same linear map's adjoint (gradgradcheck passes), and so divides too.
    PyTorch's double backward leaves the division out (a documented difference)."""
    weight = mg.tensor(numpy.random.default_rng(4).standard_normal((5, 3)), requires_grad=True)
    indices = mg.tensor(INDICES)
    v = mg.tensor(numpy.random.default_rng(5).standard_normal((2, 2, 3)), requires_grad=True)

    def first_derivative(w, grad_output):
        out = mg.nn.functional.embedding(indices, w, scale_grad_by_freq=True)
        return mg.autograd.grad(out, w, grad_output, create_graph=True)

    check_gradgradcheck(lambda m, w: m.nn.functional.embedding(indices, w, scale_grad_by_freq=True),
                        [to_numpy(weight)], seed=7)
    (dw,) = first_derivative(weight, v)
    u = numpy.random.default_rng(6).standard_normal((5, 3))
    (dv,) = mg.autograd.grad((dw * mg.tensor(u)).sum(), v)
    # d⟨dW, u⟩/dv[p] = u[index[p]] / count(index[p]): row 1 is looked up twice
    counts = numpy.bincount(INDICES.reshape(-1), minlength=5)[INDICES][..., None]
    numpy.testing.assert_allclose(to_numpy(dv), u[INDICES] / counts, rtol=1e-12)
