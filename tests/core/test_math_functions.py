"""Issue 29's differentiable math and selection functions against PyTorch: values, dtypes, every input's
gradient, gradcheck and gradgradcheck in float64, and second derivatives against PyTorch's (one table,
checked by ``helpers.check_op``); ties for median, mode and cummax; the PyTorch node names."""

from __future__ import annotations

import math

import numpy
import pytest
from _reference import reference

import minigrad as mg

from .helpers import case, check_op, to_numpy

A = numpy.array
TIES = A([[1.0, 2.0, 2.0, 2.0, 3.0, 1.0, 1.0, 2.0, 2.0], [3.0, 2.0, 3.0, 2.0, 2.0, 3.0, 2.0, 2.0, 2.0],
          [2.0, 3.0, 1.0, 3.0, 2.0, 0.0, 1.0, 3.0, 2.0]])
WITH_ZEROS = A([[0.5, 0.0, 2.0, -1.5, 0.7], [1.2, -0.4, 0.0, 0.0, 2.0], [0.9, 1.1, -0.8, 1.3, 0.6]])
WITH_NAN = A([[0.5, math.nan, 2.0, -1.5], [1.2, -0.4, 0.3, 2.0], [math.nan, math.nan, 0.1, 0.2]])
MASK = A([[True, False, True, True], [False, False, True, False], [True, True, False, True]])
ROW_MASK = A([True, False, True, False])
FLAT_INDEX = A([[0, -1, 5], [6, 2, 10]])
REPEATED_INDEX = A([[0, 3, 5], [5, 3, 11]])
SCATTER_INDEX = A([[0, 1, 2, 0, 1], [2, 2, 0, 0, 1], [1, 0, 0, 2, 2], [0, 0, 1, 1, 2]])
SINGULAR = A([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, -1.0]])
SPECIAL_POINTS = A([-2.7, -1.3, -0.6, 0.2, 0.9, 1.4616321449683622, 2.0, 3.5, 7.25, 12.0, 40.0])
ERFINV_POINTS = A([-0.999, -0.9, -0.5, -0.1, 0.0, 0.2, 0.45, 0.55, 0.8, 0.99, 0.9999])

SCANS = [
    case("cumprod", lambda m, a: m.cumprod(a, 1), (3, 5)),
    case("cumprod_method_negative_dim", lambda m, a: a.cumprod(-2), (3, 4, 2)),
    case("cumprod_zeros", lambda m, a: m.cumprod(a, 1), WITH_ZEROS),
    case("cumprod_zeros_dim0", lambda m, a: a.cumprod(0), WITH_ZEROS),
    case("cumprod_scalar", lambda m, a: a.sum().cumprod(0), (3,)),
    case("cummax", lambda m, a: m.cummax(a, 1), (3, 5)),
    case("cummin_method", lambda m, a: a.cummin(0), (4, 3)),
    case("cummax_ties", lambda m, a: m.cummax(a, 1), TIES, gradcheck=False),
    case("cummin_ties", lambda m, a: a.cummin(-1), TIES, gradcheck=False),
    case("logcumsumexp", lambda m, a: m.logcumsumexp(a, 1), (3, 5)),
    case("logcumsumexp_large", lambda m, a: a.logcumsumexp(0), (4, 3), domain="large"),
    case("diff", lambda m, a: m.diff(a), (3, 5)),
    case("diff_n2_dim0", lambda m, a: a.diff(2, 0), (4, 3)),
    case("diff_prepend_append", lambda m, a, b, c: m.diff(a, dim=1, prepend=b, append=c),
         (3, 4), (3, 1), (3, 2)),
]

ORDER_STATISTICS = [
    case("median_all", lambda m, a: m.median(a), (3, 5)),
    case("median_all_even", lambda m, a: a.median(), (2, 3)),
    case("median_all_ties", lambda m, a: m.median(a), TIES, gradcheck=False),
    case("median_dim", lambda m, a: m.median(a, 1), (3, 5)),
    case("median_dim_keepdim", lambda m, a: a.median(0, keepdim=True), (4, 3)),
    case("median_dim_ties", lambda m, a: m.median(a, 1), TIES, gradcheck=False),
    case("median_nan", lambda m, a: m.median(a, 1), WITH_NAN, gradcheck=False),
    case("nanmedian_all", lambda m, a: m.nanmedian(a), WITH_NAN, gradcheck=False),
    case("nanmedian_dim", lambda m, a: a.nanmedian(1), WITH_NAN, gradcheck=False),
    case("kthvalue", lambda m, a: m.kthvalue(a, 2, 1), (3, 5)),
    case("kthvalue_keepdim_dim0", lambda m, a: a.kthvalue(3, 0, True), (4, 3)),
    case("kthvalue_default_dim", lambda m, a: m.kthvalue(a, 1), (3, 4)),
    case("kthvalue_ties", lambda m, a: m.kthvalue(a, 4, 1), TIES, gradcheck=False),
    case("kthvalue_ties_dim0", lambda m, a: a.kthvalue(2, 0, keepdim=True), TIES, gradcheck=False),
    case("mode", lambda m, a: m.mode(a, 1), TIES, gradcheck=False),
    case("mode_dim0_keepdim", lambda m, a: a.mode(0, keepdim=True), TIES.T.copy(), gradcheck=False),
    case("mode_distinct", lambda m, a: m.mode(a), (3, 4)),
    case("quantile", lambda m, a: m.quantile(a, 0.3), (3, 5)),
    case("quantile_dim", lambda m, a: a.quantile(0.75, dim=1), (3, 5)),
    case("quantile_q_tensor", lambda m, a, q: m.quantile(a, q, dim=0, keepdim=True), (5, 3),
         A([0.1, 0.55, 0.9])),
    case("quantile_lower", lambda m, a: m.quantile(a, 0.4, 1, interpolation="lower"), (3, 5)),
    case("quantile_higher", lambda m, a: a.quantile(0.4, 1, interpolation="higher"), (3, 5)),
    case("quantile_midpoint", lambda m, a: m.quantile(a, 0.4, 1, interpolation="midpoint"), (3, 5)),
    case("quantile_nearest", lambda m, a: m.quantile(a, 0.375, 1, interpolation="nearest"), (3, 5)),
    case("quantile_nan", lambda m, a: m.quantile(a, 0.5, 1), WITH_NAN, gradcheck=False),
    case("quantile_all_keepdim", lambda m, a, q: a.quantile(q, keepdim=True), (3, 4), A([0.2, 0.7])),
    case("quantile_0_and_1", lambda m, a, q: m.quantile(a, q, 1), (3, 4), A([0.0, 1.0]), gradcheck=False),
    case("nanquantile_midpoint", lambda m, a: a.nanquantile(0.4, 0, True, interpolation="midpoint"), WITH_NAN,
         gradcheck=False),
    case("nanquantile", lambda m, a: m.nanquantile(a, 0.5, 1), WITH_NAN, gradcheck=False),
    case("nanmean", lambda m, a: m.nanmean(a), WITH_NAN, gradcheck=False),
    case("nanmean_dim", lambda m, a: a.nanmean(1, keepdim=True), WITH_NAN, gradcheck=False),
    case("std_mean", lambda m, a: m.std_mean(a), (3, 5)),
    case("std_mean_dim", lambda m, a: m.std_mean(a, 1, keepdim=True, correction=0), (3, 5)),
    case("var_mean", lambda m, a: m.var_mean(a, (0, 1)), (3, 5, 2)),
    case("var_mean_unbiased", lambda m, a: m.var_mean(a, 0, False), (4, 3)),
    case("aminmax", lambda m, a: m.aminmax(a), (3, 5)),
    case("aminmax_dim", lambda m, a: a.aminmax(dim=1, keepdim=True), (3, 5)),
    case("aminmax_ties", lambda m, a: m.aminmax(a, dim=0), TIES, gradcheck=False),
]

ARRANGEMENTS = [
    case("tile", lambda m, a: m.tile(a, (2, 3)), (2, 3)),
    case("tile_fewer_dims", lambda m, a: a.tile((2,)), (2, 3)),
    case("tile_more_dims", lambda m, a: a.tile(2, 1, 2), (2, 3)),
    case("rot90", lambda m, a: m.rot90(a), (3, 4)),
    case("rot90_k2", lambda m, a: a.rot90(2, (1, 2)), (2, 3, 4)),
    case("rot90_k3_negative", lambda m, a: m.rot90(a, -1, (1, 0)), (3, 4)),
    case("meshgrid_ij", lambda m, a, b: m.meshgrid(a, b, indexing="ij"), (3,), (4,)),
    case("meshgrid_xy", lambda m, a, b, c: m.meshgrid([a, b, c], indexing="xy"), (3,), (4,), (2,)),
    case("cartesian_prod", lambda m, a, b: m.cartesian_prod(a, b), (3,), (2,)),
    case("block_diag", lambda m, a, b, c: m.block_diag(a, b, c), (2, 3), (4,), (1, 2)),
    case("kron", lambda m, a, b: m.kron(a, b), (2, 3), (3, 2)),
    case("kron_ranks", lambda m, a, b: a.kron(b), (2, 2, 3), (3,)),
]

SELECTIONS = [
    case("masked_select", lambda m, a, mask: m.masked_select(a, mask), (3, 4), MASK),
    case("masked_select_broadcast", lambda m, a, mask: a.masked_select(mask), (3, 1), ROW_MASK),
    case("masked_scatter", lambda m, a, mask, s: m.masked_scatter(a, mask, s), (3, 4), MASK, (10,)),
    case("masked_scatter_broadcast", lambda m, a, mask, s: a.masked_scatter(mask, s),
         (3, 4), ROW_MASK, (3, 3)),
    case("take", lambda m, a, i: m.take(a, i), (3, 4), FLAT_INDEX),
    case("take_repeated", lambda m, a, i: a.take(i), (3, 4), REPEATED_INDEX),
    case("put", lambda m, a, i, s: a.put(i, s), (3, 4), FLAT_INDEX, (2, 3)),
    case("put_accumulate", lambda m, a, i, s: a.put(i, s, accumulate=True), (3, 4), REPEATED_INDEX, (2, 3)),
    case("index_put", lambda m, a, i, j, v: m.index_put(a, (i, j), v), (3, 4), A([0, 2]), A([1, 3]), (2,)),
    case("index_put_accumulate", lambda m, a, i, v: m.index_put(a, (i,), v, accumulate=True), (3, 4),
         A([0, 2, 0]), (3, 4)),
    case("scatter_reduce_sum", lambda m, a, i, s: a.scatter_reduce(0, i, s, "sum"),
         (3, 5), SCATTER_INDEX, (4, 5)),
    case("scatter_reduce_prod", lambda m, a, i, s: m.scatter_reduce(a, 0, i, s, "prod"),
         (3, 5), SCATTER_INDEX, (4, 5)),
    case("scatter_reduce_mean", lambda m, a, i, s: a.scatter_reduce(0, i, s, "mean", include_self=False),
         (3, 5), SCATTER_INDEX, (4, 5)),
    case("scatter_reduce_amax", lambda m, a, i, s: a.scatter_reduce(0, i, s, "amax"), (3, 5), SCATTER_INDEX,
         (4, 5)),
    case("scatter_reduce_amin_exclude",
         lambda m, a, i, s: a.scatter_reduce(0, i, s, "amin", include_self=False),
         (3, 5), SCATTER_INDEX, (4, 5)),
]

POINTWISE = [
    case("fmod", lambda m, a, b: m.fmod(a * 3, b), (3, 4), (4,), domain=("real", "positive")),
    case("fmod_number", lambda m, a: a.fmod(-0.7), (3, 4)),
    case("frac", lambda m, a: m.frac(a * 3), (3, 4)),
    case("sgn", lambda m, a: m.sgn(a), (3, 4)),
    case("addcmul", lambda m, a, b, c: m.addcmul(a, b, c, value=0.5), (3, 4), (4,), (3, 1)),
    case("addcmul_method", lambda m, a, b, c: a.addcmul(b, c), (3, 4), (3, 4), (3, 4)),
    case("addcdiv", lambda m, a, b, c: m.addcdiv(a, b, c, value=-2), (3, 4), (3, 4), (4,),
         domain=("real", "real", "positive")),
    case("lgamma", lambda m, a: m.lgamma(a), SPECIAL_POINTS),
    case("digamma", lambda m, a: a.digamma(), SPECIAL_POINTS, torch_second_order=False),
    case("polygamma_2", lambda m, a: m.polygamma(2, a), SPECIAL_POINTS[3:], torch_second_order=False),
    case("erfinv", lambda m, a: m.erfinv(a), ERFINV_POINTS),
]

MATRICES = [
    case("trace", lambda m, a: m.trace(a), (3, 4)),
    case("det", lambda m, a: m.det(a), (3, 3)),
    case("det_batch", lambda m, a: a.det(), (2, 3, 3)),
    case("det_1x1", lambda m, a: m.det(a), (2, 1, 1)),
    case("inverse", lambda m, a: m.inverse(a), (3, 3)),
    case("inverse_batch", lambda m, a: a.inverse(), (2, 3, 3)),
    case("cross", lambda m, a, b: m.cross(a, b, dim=1), (4, 3), (4, 3)),
    case("linalg_cross", lambda m, a, b: m.linalg.cross(a, b), (2, 4, 3), (1, 1, 3)),
    case("linalg_det", lambda m, a: m.linalg.det(a), (2, 4, 4)),
    case("linalg_inv", lambda m, a: m.linalg.inv(a), (3, 3)),
    case("cross_broadcast_method", lambda m, a, b: a.cross(b, dim=-1), (2, 4, 3), (1, 4, 3)),
    case("addmv", lambda m, c, a, b: m.addmv(c, a, b), (4,), (4, 3), (3,)),
    case("addmv_scaled", lambda m, c, a, b: c.addmv(a, b, beta=0.5, alpha=-2), (1,), (4, 3), (3,)),
    case("baddbmm", lambda m, c, a, b: m.baddbmm(c, a, b, beta=0.5, alpha=2), (4, 5), (2, 4, 3), (2, 3, 5)),
    case("baddbmm_method", lambda m, c, a, b: c.baddbmm(a, b), (2, 4, 5), (2, 4, 3), (2, 3, 5)),
    case("vdot", lambda m, a, b: m.vdot(a, b), (5,), (5,)),
    case("inner", lambda m, a, b: m.inner(a, b), (2, 4), (3, 4)),
    case("inner_scalar", lambda m, a, b: a.inner(b.sum()), (2, 4), (3,)),
    case("tensordot", lambda m, a, b: m.tensordot(a, b), (2, 3, 4), (3, 4, 2)),
    case("tensordot_lists", lambda m, a, b: m.tensordot(a, b, dims=([1, 0], [0, 2])), (2, 3, 4), (3, 5, 2)),
    case("tensordot_zero", lambda m, a, b: m.tensordot(a, b, 0), (2, 3), (2,)),
    case("cdist", lambda m, a, b: m.cdist(a, b), (4, 3), (5, 3), torch_second_order=False),
    case("cdist_p1_batch", lambda m, a, b: m.cdist(a, b, p=1.0), (2, 4, 3), (5, 3), torch_second_order=False),
    case("cdist_inf", lambda m, a, b: m.cdist(a, b, p=math.inf), (4, 3), (2, 3), torch_second_order=False),
]


@pytest.mark.parametrize("c", SCANS + ORDER_STATISTICS + ARRANGEMENTS + SELECTIONS + POINTWISE + MATRICES)
def test_against_pytorch(c):
    check_op(c)


def test_trace_sends_an_infinite_gradient_only_to_the_diagonal():
    """Masks select (SPEC): off the diagonal the gradient is exactly 0, even for an inf upstream."""
    matrix = A([[1.0, 2.0], [3.0, 4.0]])

    def gradient(lib):
        a = lib.tensor(matrix, requires_grad=True)
        (lib.trace(a) * math.inf).backward()
        return a.grad

    expected = reference(gradient)
    numpy.testing.assert_array_equal(expected, A([[math.inf, 0.0], [0.0, math.inf]]))
    numpy.testing.assert_array_equal(to_numpy(gradient(mg)), expected)


def test_det_of_a_singular_matrix_has_the_adjugate_as_gradient():
    """d det / dA = adj(A)ᵀ, the cofactors, also where A is singular (PyTorch gives zeros for this one;
    the cofactors are the true derivative: det is a polynomial)."""
    a = mg.tensor(SINGULAR, requires_grad=True)
    mg.det(a).backward()
    cofactors = A([[-10.0, 5.0, 0.0], [5.0, -2.5, 0.0], [0.0, 0.0, 0.0]])
    numpy.testing.assert_allclose(to_numpy(a.grad), cofactors, atol=1e-12)
    assert mg.autograd.gradcheck(mg.det, (mg.tensor(SINGULAR, requires_grad=True),))
    assert mg.autograd.gradgradcheck(mg.det, (mg.tensor(SINGULAR, requires_grad=True),))


NODE_NAMES = {
    "cumprod": lambda m, a: m.cumprod(a, 1), "cummax": lambda m, a: m.cummax(a, 1).values,
    "cummin": lambda m, a: m.cummin(a, 1).values, "logcumsumexp": lambda m, a: m.logcumsumexp(a, 1),
    "median": lambda m, a: m.median(a), "median_dim": lambda m, a: m.median(a, 1).values,
    "nanmedian_dim": lambda m, a: m.nanmedian(a, 1).values, "kthvalue": lambda m, a: m.kthvalue(a, 2).values,
    "mode": lambda m, a: m.mode(a).values, "masked_select": lambda m, a: m.masked_select(a, a > 0),
    "masked_scatter": lambda m, a: m.masked_scatter(a, a > 0, a),
    "take": lambda m, a: m.take(a, m.tensor([0])),
    "put": lambda m, a: a.put(m.tensor([0]), a[0, :1]),
    "scatter_reduce": lambda m, a: a.scatter_reduce(0, m.tensor([[0, 1, 0]]), a, "amax"),
    "fmod": lambda m, a: m.fmod(a, 2.0), "fmod_tensor": lambda m, a: m.fmod(a, a),
    "frac": lambda m, a: a.frac(), "sgn": lambda m, a: a.sgn(), "addcmul": lambda m, a: m.addcmul(a, a, a),
    "addcdiv": lambda m, a: a.addcdiv(a, a), "lgamma": lambda m, a: a.lgamma(),
    "digamma": lambda m, a: a.digamma(), "polygamma": lambda m, a: a.polygamma(1),
    "erfinv": lambda m, a: (a / 10).erfinv(), "trace": lambda m, a: m.trace(a),
    "det": lambda m, a: m.det(a[:, :2]), "inverse": lambda m, a: m.inverse(a[:, :2] + 3),
    "cross": lambda m, a: m.cross(a, a.flip(0), dim=1), "addmv": lambda m, a: m.addmv(a[0, :2], a[:2], a[0]),
    "baddbmm": lambda m, a: m.baddbmm(a[:1, :2], a.unsqueeze(0), a.t().unsqueeze(0)[:, :, :2]),
    "vdot": lambda m, a: m.vdot(a[0], a[1]), "block_diag": lambda m, a: m.block_diag(a, a[0]),
    "tile": lambda m, a: m.tile(a, (2,)), "rot90": lambda m, a: m.rot90(a),
    "std_mean": lambda m, a: m.std_mean(a, 1)[0], "var_mean": lambda m, a: m.var_mean(a)[1],
    "aminmax": lambda m, a: m.aminmax(a, dim=0).max,
}


@pytest.mark.parametrize("name", sorted(NODE_NAMES))
def test_node_names_are_pytorchs(name):
    fn = NODE_NAMES[name]
    array = A([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    theirs = reference(lambda torch: fn(torch, torch.tensor(array, requires_grad=True)).grad_fn.name())
    assert fn(mg, mg.tensor(array, requires_grad=True)).grad_fn.name() == theirs


def test_in_place_addcmul_and_addcdiv_as_optimisers_use_them():
    """Adam's update: exp_avg_sq.mul_(β₂).addcmul_(g, g, value=1 − β₂); p.addcdiv_(m, denom, value=−lr)."""
    rng = numpy.random.default_rng(0)
    g, p0, v0 = (rng.standard_normal(5) for _ in range(3))

    def update(lib):
        v, p, grad = lib.tensor(v0 ** 2), lib.tensor(p0), lib.tensor(g)
        v.mul_(0.999).addcmul_(grad, grad, value=0.001)
        p.addcdiv_(grad, v.sqrt().add_(1e-8), value=-0.01)
        return p, v

    theirs = reference(update)
    ours = update(mg)
    for mine, expected in zip(ours, theirs):
        numpy.testing.assert_allclose(to_numpy(mine), expected, rtol=1e-12)


IN_PLACE = {
    "cumprod_": lambda t: t.cumprod_(1), "fmod_": lambda t: t.fmod_(0.4), "frac_": lambda t: t.frac_(),
    "sgn_": lambda t: t.sgn_(), "lgamma_": lambda t: t.lgamma_(), "digamma_": lambda t: t.digamma_(),
    "polygamma_": lambda t: t.polygamma_(1), "erfinv_": lambda t: (t / 4).erfinv_(),
    "addmv_": lambda t: t[:, 0].clone().addmv_(t, t[0], beta=0.5),
    "baddbmm_": lambda t: t.unsqueeze(0).clone().baddbmm_(t.unsqueeze(0), t.t().unsqueeze(0), alpha=2),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_more_in_place_forms_as_pytorch(name):
    """The value, and the gradient through the in-place op (applied to a non-leaf), are PyTorch's."""
    change = IN_PLACE[name]
    array = A([[0.5, 1.5], [2.5, 0.75]])

    def run(lib):
        leaf = lib.tensor(array, requires_grad=True)
        out = change(leaf * 1)
        out.sum().backward()
        return out.detach(), leaf.grad

    ours, theirs = run(mg), reference(run)
    numpy.testing.assert_allclose(to_numpy(ours[0]), theirs[0], rtol=1e-9)  # PyTorch's trigamma: 1e-10
    numpy.testing.assert_allclose(to_numpy(ours[1]), theirs[1], rtol=1e-9, atol=1e-12)


def test_in_place_forms_are_recorded():
    base = mg.tensor(A([[1.0, 2.0], [3.0, 4.0]]), requires_grad=True)
    x = base * 1
    x.masked_scatter_(mg.tensor(A([[True, False], [False, True]])), mg.tensor(A([10.0, 20.0])))
    x.put_(mg.tensor(A([1])), mg.tensor(A([5.0])))
    x.addcmul_(base, base).addcdiv_(base, base + 10).sum().backward()

    def reference_grad(torch):
        t = torch.tensor(A([[1.0, 2.0], [3.0, 4.0]]), requires_grad=True)
        y = t * 1
        y.masked_scatter_(torch.tensor(A([[True, False], [False, True]])), torch.tensor(A([10.0, 20.0])))
        y.put_(torch.tensor(A([1])), torch.tensor(A([5.0])))
        y.addcmul_(t, t).addcdiv_(t, t + 10).sum().backward()
        return t.grad

    numpy.testing.assert_allclose(to_numpy(base.grad), reference(reference_grad), rtol=1e-12)
