"""Rounding, logs, trigonometry, nan handling, prod/cumsum/logsumexp/norm and dot/outer/bmm/addmm/einsum/
lerp: values, every input's gradient and gradcheck against PyTorch; dtypes of integer and bool inputs;
edge values (0, ±inf, nan) without NumPy warnings."""

from __future__ import annotations

import math
import warnings

import numpy
import pytest
from _reference import reference
from _torch import exception_class, exception_name, raises_like_torch, require_torch

import minigrad as mg

from .helpers import assert_matches, case, check_op, to_numpy

A = numpy.array
SMALL = A([[0.3, -0.7, 0.1], [0.55, -0.2, 0.9]])  # inside (-1, 1): asin, acos
WITH_ZEROS = A([[0.0, 2.0, -3.0, 1.5], [0.0, 0.0, 4.0, -1.0], [1.0, 2.0, -0.5, 3.0]])

ELEMENTWISE = [
    case("sign", lambda m, a: m.sign(a), (3, 4)),
    case("round", lambda m, a: m.round(a * 3), (3, 4), gradcheck=False),
    case("round_method", lambda m, a: (a * 3).round(), (3, 4), gradcheck=False),
    case("floor", lambda m, a: m.floor(a * 3), (3, 4), gradcheck=False),
    case("ceil", lambda m, a: a.mul(3).ceil(), (3, 4), gradcheck=False),
    case("trunc", lambda m, a: m.trunc(a * 3), (3, 4), gradcheck=False),
    case("log1p", lambda m, a: m.log1p(a), (3, 4), domain="positive"),
    case("expm1", lambda m, a: a.expm1(), (3, 4)),
    case("square", lambda m, a: m.square(a), (3, 4)),
    case("rsqrt", lambda m, a: a.rsqrt(), (3, 4), domain="positive"),
    case("reciprocal", lambda m, a: m.reciprocal(a), (3, 4), domain="positive"),
    case("tan", lambda m, a: m.tan(a), (3, 4)),
    case("asin", lambda m, a: m.asin(a), SMALL),
    case("acos", lambda m, a: a.acos(), SMALL),
    case("atan", lambda m, a: m.atan(a), (3, 4)),
    case("arctan2", lambda m, a, b: m.arctan2(a, b), (3, 4), (4,)),
    case("atan2_method", lambda m, a, b: a.atan2(b), (3, 1), (1, 4)),
    case("sinh", lambda m, a: m.sinh(a), (3, 4)),
    case("cosh", lambda m, a: a.cosh(), (3, 4)),
    case("log2", lambda m, a: m.log2(a), (3, 4), domain="positive"),
    case("log10", lambda m, a: a.log10(), (3, 4), domain="positive"),
    case("erf", lambda m, a: m.erf(a * 2), (5, 6)),
    case("clamp_min", lambda m, a: m.clamp_min(a, 0.1), (3, 4)),
    case("clamp_max_method", lambda m, a: a.clamp_max(-0.1), (3, 4)),
    case("clamp_min_tensor", lambda m, a, b: m.clamp_min(a, b), (3, 4), (4,)),
    case("nan_to_num", lambda m, a: m.nan_to_num(m.log(a) * 0 + m.log(a - 0.5)), (3, 4), domain="positive",
         gradcheck=False),
    case("lerp_number", lambda m, a, b: m.lerp(a, b, 0.3), (3, 4), (4,)),
    case("lerp_tensor", lambda m, a, b, w: a.lerp(b, w), (3, 4), (3, 4), (4,)),
    case("lerp_large_weight", lambda m, a, b, w: m.lerp(a, b, w * 3), (2, 3), (2, 3), (2, 3)),
]

REDUCTIONS = [
    case("prod_all", lambda m, a: m.prod(a), (3, 4)),
    case("prod_dim", lambda m, a: a.prod(1), (3, 4)),
    case("prod_keepdim", lambda m, a: m.prod(a, dim=-2, keepdim=True), (3, 4, 2)),
    case("prod_zeros_all", lambda m, a: m.prod(a[0]), WITH_ZEROS),
    case("prod_zeros_dim", lambda m, a: a.prod(1), WITH_ZEROS),
    case("prod_zeros_dim0", lambda m, a: a.prod(0, keepdim=True), WITH_ZEROS),
    case("cumsum", lambda m, a: m.cumsum(a, 1), (3, 4)),
    case("cumsum_negative_dim", lambda m, a: a.cumsum(dim=-3), (2, 3, 4)),
    case("cumsum_scalar", lambda m, a: a.sum().cumsum(0), (3,)),
    case("logsumexp", lambda m, a: m.logsumexp(a, 1), (3, 4)),
    case("logsumexp_dims_keepdim", lambda m, a: a.logsumexp((0, 2), keepdim=True), (2, 3, 4)),
    case("logsumexp_large", lambda m, a: m.logsumexp(a, 0), (5, 2), domain="large"),
    case("norm", lambda m, a: m.norm(a), (3, 4)),
    case("norm_fro_dims", lambda m, a: a.norm("fro", dim=(0, 2)), (2, 3, 4)),
    case("norm_p1_dim", lambda m, a: m.norm(a, p=1, dim=1, keepdim=True), (3, 4)),
    case("norm_inf", lambda m, a: a.norm(p=math.inf, dim=0), (3, 4)),
    case("norm_minus_inf", lambda m, a: a.norm(p=-math.inf), (3, 4)),
    case("norm_p3", lambda m, a: m.norm(a, p=3, dim=-1), (3, 4)),
    case("norm_p2_dim", lambda m, a: a.norm(2, 1), (3, 4)),
]

PRODUCTS = [
    case("dot", lambda m, a, b: m.dot(a, b), (5,), (5,)),
    case("dot_method", lambda m, a, b: a.dot(b), (5,), (5,)),
    case("outer", lambda m, a, b: m.outer(a, b), (3,), (4,)),
    case("bmm", lambda m, a, b: m.bmm(a, b), (2, 3, 4), (2, 4, 5)),
    case("addmm", lambda m, c, a, b: m.addmm(c, a, b), (3, 5), (3, 4), (4, 5)),
    case("addmm_broadcast_scaled", lambda m, c, a, b: c.addmm(a, b, beta=0.5, alpha=-2.0),
         (5,), (3, 4), (4, 5)),
    case("addmm_beta_zero", lambda m, c, a, b: m.addmm(c, a, b, beta=0), (3, 1), (3, 4), (4, 5)),
    case("einsum_matmul", lambda m, a, b: m.einsum("ij,jk->ik", a, b), (3, 4), (4, 5)),
    case("einsum_implicit", lambda m, a, b: m.einsum("ij,kj", a, b), (3, 4), (5, 4)),
    case("einsum_list", lambda m, a, b: m.einsum("bij,bjk->bik", [a, b]), (2, 3, 4), (2, 4, 5)),
    case("einsum_three", lambda m, a, b, c: m.einsum("ij,jk,kl->il", a, b, c), (2, 3), (3, 4), (4, 2)),
    case("einsum_sum_own_index", lambda m, a, b: m.einsum("ij,k->ik", a, b), (3, 4), (5,)),
    case("einsum_ellipsis", lambda m, a, b: m.einsum("...ij,jk->...ik", a, b), (2, 3, 4), (4, 5)),
    case("einsum_ellipsis_broadcast", lambda m, a, b: m.einsum("...i,...i->...", a, b), (2, 3, 4), (3, 4)),
    case("einsum_size_one", lambda m, a, b: m.einsum("ij,ij->i", a, b), (3, 4), (1, 4)),
    case("einsum_full_sum", lambda m, a: m.einsum("ijk->", a), (2, 3, 4)),
    case("einsum_permute", lambda m, a: m.einsum("i j k -> k i j", a), (2, 3, 4)),
    case("einsum_outer_upper", lambda m, a, b: m.einsum("A,b->bA", a, b), (3,), (2,)),
]


@pytest.mark.parametrize("c", ELEMENTWISE + REDUCTIONS + PRODUCTS)
def test_against_pytorch(c):
    check_op(c)


def _both(fn, *arrays):
    """fn on minigrad and on PyTorch tensors made from the same host arrays (no grad)."""
    torch = require_torch()
    return fn(mg, *(mg.tensor(a) for a in arrays)), fn(torch, *(torch.tensor(a) for a in arrays))


INTEGER_AND_BOOL = [A([-2, 0, 3, 7]), A([True, False, True, True])]
DTYPE_OPS = {
    "sign": lambda m, a: m.sign(a), "round": lambda m, a: m.round(a), "floor": lambda m, a: a.floor(),
    "ceil": lambda m, a: m.ceil(a), "trunc": lambda m, a: a.trunc(), "log1p": lambda m, a: m.log1p(a),
    "expm1": lambda m, a: m.expm1(a), "square": lambda m, a: m.square(a), "rsqrt": lambda m, a: a.rsqrt(),
    "reciprocal": lambda m, a: m.reciprocal(a), "tan": lambda m, a: m.tan(a), "asin": lambda m, a: m.asin(a),
    "acos": lambda m, a: m.acos(a), "atan": lambda m, a: m.atan(a), "atan2": lambda m, a: m.atan2(a, a),
    "sinh": lambda m, a: m.sinh(a), "cosh": lambda m, a: m.cosh(a), "log2": lambda m, a: m.log2(a),
    "log10": lambda m, a: a.log10(), "erf": lambda m, a: m.erf(a), "isinf": lambda m, a: m.isinf(a),
    "isfinite": lambda m, a: a.isfinite(), "isnan": lambda m, a: a.isnan(),
    "isinf_method": lambda m, a: a.isinf(), "nan_to_num": lambda m, a: m.nan_to_num(a),
    "clamp_min": lambda m, a: m.clamp_min(a, 1), "clamp_min_float": lambda m, a: a.clamp_min(1.5),
    "clamp_max": lambda m, a: m.clamp_max(a, 1), "prod": lambda m, a: m.prod(a),
    "prod_dim": lambda m, a: a.prod(0), "cumsum": lambda m, a: m.cumsum(a, 0),
    "logsumexp": lambda m, a: m.logsumexp(a, 0), "all": lambda m, a: m.all(a), "any": lambda m, a: m.any(a),
    "any_dim": lambda m, a: m.any(a, 0, keepdim=True), "outer": lambda m, a: m.outer(a, a),
    "dot": lambda m, a: m.dot(a, a), "einsum": lambda m, a: m.einsum("i,j->ij", a, a),
}


@pytest.mark.parametrize("name", sorted(DTYPE_OPS))
@pytest.mark.parametrize("array", INTEGER_AND_BOOL, ids=["int64", "bool"])
def test_integer_and_bool_inputs_as_pytorch(name, array):
    fn = DTYPE_OPS[name]

    def torch_result(torch):
        try:
            return {"out": fn(torch, torch.tensor(array))}
        except (RuntimeError, TypeError) as error:
            return {"error": exception_name(error)}

    theirs = reference(torch_result)
    if "error" in theirs:
        with pytest.raises(exception_class(theirs["error"])):
            fn(mg, mg.tensor(array))
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = fn(mg, mg.tensor(array))
    assert_matches(ours, theirs["out"], "float32", f"{name} of {array.dtype}")


def test_int32_sums_and_products_are_int64():
    a = mg.tensor(A([1, 2, 3], dtype=numpy.int32))
    assert mg.prod(a).dtype is mg.int64 and a.cumsum(0).dtype is mg.int64
    assert mg.cumsum(a, 0, dtype=mg.float64).dtype is mg.float64


EDGES = A([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, math.inf, -math.inf, math.nan])
EDGE_OPS = ["sign", "round", "floor", "ceil", "trunc", "log1p", "expm1", "square", "rsqrt", "reciprocal",
            "tan", "asin", "acos", "atan", "sinh", "cosh", "log2", "log10", "erf", "isinf", "isfinite",
            "nan_to_num"]


@pytest.mark.parametrize("name", EDGE_OPS)
def test_edge_values_and_their_gradients_without_warnings(name):
    """0, ±1, ±inf and nan: PyTorch's values and gradients, and NumPy stays silent as PyTorch does."""
    def torch_answer(torch):
        theirs_in = torch.tensor(EDGES, requires_grad=True)
        theirs = getattr(torch, name)(theirs_in)
        if theirs.requires_grad:
            theirs.backward(torch.ones_like(theirs))
        return theirs, theirs.requires_grad, theirs_in.grad

    theirs, differentiable, theirs_grad = reference(torch_answer)
    ours_in = mg.tensor(EDGES, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = getattr(mg, name)(ours_in)
        if differentiable:
            ours.backward(mg.ones_like(ours))
    numpy.testing.assert_allclose(to_numpy(ours), theirs, rtol=1e-15, atol=0)
    if differentiable:
        numpy.testing.assert_allclose(to_numpy(ours_in.grad), theirs_grad, rtol=1e-12)


EDGE_FUNCTIONS = {
    "atan2_origin": (lambda m, a, b: m.atan2(a, b), [A([0.0, 0.0, 1.0, -1.0]), A([0.0, -0.0, 0.0, 0.0])]),
    "logsumexp_all_minus_inf": (lambda m, a: m.logsumexp(a, 0), [A([-math.inf, -math.inf])]),
    "logsumexp_inf": (lambda m, a: m.logsumexp(a, 0), [A([math.inf, 1.0])]),
    "logsumexp_empty": (lambda m, a: m.logsumexp(a[:0], 0), [A([1.0, 2.0])]),
    "prod_two_zeros": (lambda m, a: m.prod(a), [A([0.0, 0.0, 3.0])]),
    "norm_zero": (lambda m, a: m.norm(a), [A([0.0, 0.0])]),
    "norm_p1_zero": (lambda m, a: m.norm(a, p=1), [A([0.0, -1.0])]),
    "norm_inf_ties": (lambda m, a: m.norm(a, p=math.inf), [A([1.0, -2.0, 2.0])]),
    "norm_inf_zero": (lambda m, a: m.norm(a, p=math.inf), [A([0.0, 0.0])]),
    "norm_p0": (lambda m, a: m.norm(a, p=0), [A([0.0, 1.5, -2.0])]),
    "norm_p3_zero": (lambda m, a: m.norm(a, p=3), [A([0.0, 0.0])]),
    "nan_to_num_given": (lambda m, a: m.nan_to_num(a, nan=1.0, posinf=2.0, neginf=-3.0),
                         [A([math.nan, math.inf, -math.inf, 4.0])]),
    "clamp_min_tie": (lambda m, a: m.clamp_min(a, 1.0), [A([1.0, 0.0, 2.0])]),
    "clamp_max_tie": (lambda m, a: m.clamp_max(a, 1.0), [A([1.0, 0.0, 2.0])]),
    "reciprocal_zero": (lambda m, a: m.reciprocal(a), [A([0.0, -0.0])]),
    "addmm_beta_zero_ignores_nan": (lambda m, c, a, b: m.addmm(c, a, b, beta=0),
                                    [A([[math.nan]]), A([[1.0, 2.0]]), A([[3.0, 4.0]]).T]),
    "lerp_ends": (lambda m, a, b, w: m.lerp(a, b, w), [A([1e8, 1.0]), A([3.0, 1e-8]), A([1.0, 0.0])]),
}


@pytest.mark.parametrize("name", sorted(EDGE_FUNCTIONS))
def test_edge_cases_as_pytorch(name):
    fn, arrays = EDGE_FUNCTIONS[name]

    def torch_answer(torch):
        theirs_in = [torch.tensor(a, requires_grad=True) for a in arrays]
        theirs = fn(torch, *theirs_in)
        if theirs.requires_grad:
            theirs.backward(torch.ones_like(theirs))
        return theirs, theirs.requires_grad, [t.grad for t in theirs_in]

    theirs, differentiable, theirs_grads = reference(torch_answer, {"arrays": arrays})
    ours_in = [mg.tensor(a, requires_grad=True) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = fn(mg, *ours_in)
        if differentiable:
            ours.backward(mg.ones_like(ours))
    numpy.testing.assert_array_equal(to_numpy(ours), theirs)
    assert ours.requires_grad == differentiable
    if differentiable:
        for o, a, grad in zip(ours_in, arrays, theirs_grads):  # PyTorch leaves norm(p=0)'s gradient undefined
            expected = numpy.zeros(a.shape) if grad is None else grad       # ours is 0
            numpy.testing.assert_allclose(to_numpy(o.grad), expected, rtol=1e-12)


def test_node_names_follow_pytorch():
    torch = require_torch()
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((3, 3))
    for fn in (lambda m, a: m.sign(a), lambda m, a: m.square(a), lambda m, a: m.log1p(a.abs()),
               lambda m, a: m.clamp_min(a, 0.0), lambda m, a: m.nan_to_num(a), lambda m, a: a.prod(),
               lambda m, a: a.cumsum(0), lambda m, a: a.logsumexp(0), lambda m, a: a.norm(),
               lambda m, a: m.dot(a[0], a[1]), lambda m, a: m.lerp(a, a, 0.5), lambda m, a: m.lerp(a, a, a),
               lambda m, a: m.bmm(a[None], a[None]), lambda m, a: m.outer(a[0], a[1]),
               lambda m, a: m.atan2(a, a), lambda m, a: m.erf(a)):
        ours = fn(mg, mg.tensor(x, requires_grad=True))
        theirs = fn(torch, torch.tensor(x, requires_grad=True))
        assert ours.grad_fn.name() == theirs.grad_fn.name()


@pytest.mark.parametrize("call, error, fragment", [
    (lambda m: m.prod(m.ones(2, 3), (0, 1)), TypeError, "dim"),
    (lambda m: m.ones(2, 3).prod(keepdim=True), TypeError, "keepdim"),
    (lambda m: m.cumsum(m.ones(2, 3)), TypeError, "dim"),
    (lambda m: m.logsumexp(m.ones(2, 3)), TypeError, "dim"),
    (lambda m: m.norm(m.ones(3, dtype=m.int64)), RuntimeError, "Long"),
    (lambda m: m.norm(m.ones(2, 3, 4), "fro", dim=(0, 1, 2)), RuntimeError, "2-tuple"),
    (lambda m: m.atan2(m.ones(2), 2.0), TypeError, "other"),
    (lambda m: m.clamp_min(m.ones(2), None), TypeError, "min"),
    (lambda m: m.lerp(m.ones(2), m.ones(2, dtype=m.float64), 0.5), RuntimeError, "double"),
    (lambda m: m.lerp(m.ones(2), m.ones(2), m.ones(2, dtype=m.float64)), RuntimeError, "weight"),
    (lambda m: m.lerp(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64), 0.5), RuntimeError, "Long"),
    (lambda m: m.dot(m.ones(2, 2), m.ones(2, 2)), RuntimeError, "2D and 2D"),
    (lambda m: m.dot(m.ones(3), m.ones(2)), RuntimeError, "[3] and src [2]"),
    (lambda m: m.dot(m.ones(3), m.ones(3, dtype=m.float64)), RuntimeError, "Float and Double"),
    (lambda m: m.dot(m.ones(3, dtype=m.bool), m.ones(3, dtype=m.bool)), RuntimeError, "Bool"),
    (lambda m: m.outer(m.ones(2, 2), m.ones(2)), RuntimeError, "2-D"),
    (lambda m: m.bmm(m.ones(2, 3), m.ones(2, 3)), RuntimeError, "batch1 must be a 3D tensor"),
    (lambda m: m.bmm(m.ones(1, 2, 3), m.ones(1, 2, 3)), RuntimeError, "[1, 3] but got: [1, 2]"),
    (lambda m: m.addmm(m.ones(2, 3), m.ones(2, 3), m.ones(2, 3)), RuntimeError, "2x3 and 2x3"),
    (lambda m: m.addmm(m.ones(3), m.ones(2, 3), m.ones(3, 2)), RuntimeError, "[3]"),
    (lambda m: m.einsum("ij,jk", m.ones(2, 3)), RuntimeError, "fewer operands"),
    (lambda m: m.einsum("ij", m.ones(2, 3), m.ones(2)), RuntimeError, "more operands"),
    (lambda m: m.einsum("ijk", m.ones(2, 3)), RuntimeError, "(3) does not match the number of dimensions"),
    (lambda m: m.einsum("ij->ii", m.ones(2, 3)), RuntimeError, "more than once"),
    (lambda m: m.einsum("ij->k", m.ones(2, 3)), RuntimeError, "does not appear"),
    (lambda m: m.einsum("ij,jk", m.ones(2, 3), m.ones(4, 2)), RuntimeError, "[2, 3] [4, 2]"),
    (lambda m: m.round(m.ones(2, dtype=m.bool)), RuntimeError, "Bool"),
    (lambda m: m.round(m.ones(2, dtype=m.int64), decimals=1), RuntimeError, "Long"),
])
def test_errors_as_pytorch(call, error, fragment):
    raises_like_torch(call, error, fragment)


def test_einsum_refuses_a_repeated_index_within_one_operand():
    with pytest.raises(RuntimeError, match="repeated within operand 0"):
        mg.einsum("ii->i", mg.ones(3, 3))


def test_round_decimals_and_halves_to_even():
    torch = require_torch()
    x = A([0.5, 1.5, 2.5, -0.5, 1.2345, -7.891])
    numpy.testing.assert_array_equal(to_numpy(mg.round(mg.tensor(x))), torch.round(torch.tensor(x)).numpy())
    numpy.testing.assert_allclose(to_numpy(mg.tensor(x).round(decimals=2)),
                                  torch.tensor(x).round(decimals=2).numpy())


def test_out_and_module_level_all_any():
    x = A([[1.0, 0.0], [2.0, 3.0]])
    out = mg.empty(2)
    assert mg.floor(mg.tensor([1.5, -1.5]), out=out) is out
    assert to_numpy(out).tolist() == [1.0, -2.0]
    for fn in (lambda m, a: m.all(a), lambda m, a: m.any(a, dim=1),
               lambda m, a: m.all(a, axis=0, keepdims=True)):
        ours, theirs = _both(fn, x)
        assert_matches(ours, theirs, "float64", "all/any")
    with pytest.raises(RuntimeError, match="requires grad"):  # out= still checks every argument
        mg.floor(mg.tensor([1.5], requires_grad=True), out=mg.empty(1))
