"""Every differentiable op of SPEC's Math list, one row each, checked by ``helpers.check_op``:
forward and gradients against PyTorch (float64 and float32), and gradcheck in float64."""

import warnings

import numpy
import pytest
from _reference import reference

import minigrad as mg

from .helpers import case, check_op, to_numpy

# Arrays with ties (equal values), where maximum/minimum and max/amax share the gradient.
TIES_A = numpy.array([[1.0, 2.0, -0.5], [0.3, 0.3, 4.0]])
TIES_B = numpy.array([[1.0, 0.5, -0.5], [0.3, 2.0, 4.0]])
TIED_MAX = numpy.array([[0.5, 2.0, 2.0], [0.7, 0.1, 0.7]])  # each row, and the whole, has a tied maximum
INDEX = numpy.array([[0, 2], [2, 2]])  # an int64 index array with repeats
MASK = numpy.array([[True, False, True, True], [False, False, True, False], [True, True, False, False]])


def residual(m, x, w):
    """The residual-block pattern: ``out += identity`` into a non-leaf, then the activation."""
    out = x @ w
    out += x
    return out.relu()


def inplace_chain(m, a, b):
    """Several in-place ops on a non-leaf; the graph must see each one."""
    y = a * 2
    y.mul_(b)
    y.sub_(a, alpha=0.5)
    y.div_(b.abs() + 1)
    y -= 1.0
    y.clamp_(min=-1.5)
    return y


def setitem_non_leaf(m, a, b):
    """``y[key] = value`` on a non-leaf: a's gradient is cut where b is written, b gets those."""
    y = a.clone()
    y[:, 1] = b
    y[0, [0, 2]] = 3.0
    return y * a


ARITHMETIC = [
    case("add", lambda m, a, b: a + b, (2, 3), (2, 3)),
    case("add_broadcast", lambda m, a, b: a + b, (2, 1, 3), (4, 1)),
    case("add_scalar", lambda m, a: a + 2.5, (2, 3)),
    case("radd_scalar", lambda m, a: 2.5 + a, (2, 3)),
    case("add_alpha", lambda m, a, b: a.add(b, alpha=2.0), (2, 3), (3,)),
    case("sub", lambda m, a, b: a - b, (3, 4), (3, 4)),
    case("sub_broadcast", lambda m, a, b: a - b, (3, 1), (1, 4)),
    case("sub_scalar", lambda m, a: a - 1.5, (3,)),
    case("rsub_scalar", lambda m, a: 1.5 - a, (3,)),
    case("mul", lambda m, a, b: a * b, (2, 3), (2, 3)),
    case("mul_broadcast", lambda m, a, b: a * b, (2, 3, 4), (3, 1)),
    case("mul_scalar", lambda m, a: a * -3.0, (2, 3)),
    case("rmul_scalar", lambda m, a: -3.0 * a, (2, 3)),
    case("mul_int_scalar", lambda m, a: a * 2, (2, 3)),
    case("mul_zero_dim", lambda m, a, b: a * b, (2, 3), ()),
    case("div", lambda m, a, b: a / b, (2, 3), (2, 3), domain=("real", "positive")),
    case("div_broadcast", lambda m, a, b: a / b, (4, 1), (3,), domain="positive"),
    case("div_scalar", lambda m, a: a / 4.0, (2, 3)),
    case("rdiv_scalar", lambda m, a: 3.0 / a, (2, 3), domain="positive"),
    case("pow_int", lambda m, a: a ** 3, (2, 3)),
    case("pow_float", lambda m, a: a ** 2.5, (2, 3), domain="positive"),
    case("pow_negative", lambda m, a: a ** -1.5, (2, 3), domain="positive"),
    case("pow_zero", lambda m, a: a ** 0, (2, 3)),
    case("pow_tensor", lambda m, a, b: a ** b, (2, 3), (2, 3), domain="positive"),
    case("pow_tensor_broadcast", lambda m, a, b: a ** b, (2, 1), (3,), domain=("positive", "real")),
    case("rpow_scalar", lambda m, a: 2.0 ** a, (2, 3)),
    case("pow_method", lambda m, a: a.pow(2), (2, 3)),
    case("neg", lambda m, a: -a, (2, 3)),
    case("neg_method", lambda m, a: a.neg(), (2, 3)),
    case("sub_method_alpha", lambda m, a, b: a.sub(b, alpha=3), (2, 3), (2, 3)),
    case("mul_div_methods", lambda m, a, b: a.mul(b).div(b + 3), (2, 3), (3,), domain="positive"),
]

ELEMENTWISE = [
    case("abs", lambda m, a: a.abs(), (3, 4)),
    case("abs_builtin", lambda m, a: abs(a), (3, 4)),
    case("exp", lambda m, a: a.exp(), (3, 4)),
    case("log", lambda m, a: a.log(), (3, 4), domain="positive"),
    case("sqrt", lambda m, a: a.sqrt(), (3, 4), domain="positive"),
    case("sin", lambda m, a: a.sin(), (3, 4)),
    case("cos", lambda m, a: a.cos(), (3, 4)),
    case("tanh", lambda m, a: a.tanh(), (3, 4)),
    case("sigmoid", lambda m, a: a.sigmoid(), (3, 4)),
    case("sigmoid_large", lambda m, a: a.sigmoid(), numpy.array([-800.0, -40.0, 0.0, 40.0, 800.0])),
    case("relu", lambda m, a: a.relu(), (3, 4)),
    case("clamp_min", lambda m, a: a.clamp(min=-0.3), (3, 4)),
    case("clamp_max", lambda m, a: a.clamp(max=0.4), (3, 4)),
    case("clamp_both", lambda m, a: a.clamp(-0.5, 0.5), (3, 4)),
    case("clamp_tensor_bounds", lambda m, a, lo: a.clamp(min=lo), (3, 4), (4,)),
    case("maximum", lambda m, a, b: m.maximum(a, b), (3, 4), (3, 4)),
    case("maximum_broadcast", lambda m, a, b: m.maximum(a, b), (3, 1), (4,)),
    case("maximum_ties", lambda m, a, b: m.maximum(a, b), TIES_A, TIES_B, gradgradcheck=False),
    case("minimum", lambda m, a, b: m.minimum(a, b), (3, 4), (3, 4)),
    case("minimum_ties", lambda m, a, b: m.minimum(a, b), TIES_A, TIES_B, gradgradcheck=False),
    case("maximum_method", lambda m, a, b: a.maximum(b), (2, 3), (2, 3)),
    case("where", lambda m, a, b: m.where(a > 0, a, b), (3, 4), (3, 4)),
    case("where_broadcast", lambda m, c, a, b: m.where(c, a, b), MASK[:, :1], (1, 4), (3, 4)),
    case("where_scalar", lambda m, a: m.where(a > 0, a, 0.0), (3, 4)),
]

REDUCTIONS = [
    case("sum_all", lambda m, a: a.sum(), (2, 3, 4)),
    case("sum_dim", lambda m, a: a.sum(1), (2, 3, 4)),
    case("sum_negative_dim_keepdim", lambda m, a: a.sum(dim=-1, keepdim=True), (2, 3, 4)),
    case("sum_tuple", lambda m, a: a.sum(dim=(0, 2)), (2, 3, 4)),
    case("sum_tuple_keepdim", lambda m, a: a.sum(dim=(-1, 0), keepdim=True), (2, 3, 4)),
    case("mean_all", lambda m, a: a.mean(), (2, 3, 4)),
    case("mean_dim", lambda m, a: a.mean(0), (2, 3, 4)),
    case("mean_tuple_keepdim", lambda m, a: a.mean((1, 2), keepdim=True), (2, 3, 4)),
    case("var_all", lambda m, a: a.var(), (3, 4)),
    case("var_dim", lambda m, a: a.var(1), (3, 4)),
    case("var_tuple_keepdim", lambda m, a: a.var((0, -1), keepdim=True), (2, 3, 4)),
    case("var_biased", lambda m, a: a.var(dim=0, unbiased=False), (3, 4)),
    case("var_correction", lambda m, a: a.var(dim=1, correction=0), (3, 4)),
    case("std_all", lambda m, a: a.std(), (3, 4)),
    case("std_dim_keepdim", lambda m, a: a.std(dim=-1, keepdim=True), (3, 4)),
    case("max_all", lambda m, a: a.max(), (3, 4)),
    case("max_all_ties", lambda m, a: a.max(), TIED_MAX, gradgradcheck=False),
    case("min_all", lambda m, a: a.min(), (3, 4)),
    case("max_dim", lambda m, a: a.max(dim=1), (3, 4)),
    case("max_dim_keepdim", lambda m, a: a.max(-1, keepdim=True), (2, 3, 4)),
    case("max_dim_values", lambda m, a: a.max(0).values, (3, 4)),
    case("min_dim", lambda m, a: a.min(dim=0), (3, 4)),
    case("amax_all", lambda m, a: a.amax(), (3, 4)),
    case("amax_dim", lambda m, a: a.amax(1), (3, 4)),
    case("amax_tuple_keepdim", lambda m, a: a.amax(dim=(0, 2), keepdim=True), (2, 3, 4)),
    case("amax_ties", lambda m, a: a.amax(dim=1), TIED_MAX, gradgradcheck=False),
    case("argmax_all", lambda m, a: a.argmax(), (3, 4)),
    case("argmax_dim", lambda m, a: a.argmax(dim=1), (3, 4)),
    case("argmax_keepdim", lambda m, a: a.argmax(dim=-1, keepdim=True), (2, 3, 4)),
    case("softmax", lambda m, a: a.softmax(dim=1), (3, 4)),
    case("softmax_first_dim", lambda m, a: a.softmax(0), (2, 3, 4)),
    case("softmax_large", lambda m, a: a.softmax(dim=-1), (3, 4), domain="large"),
    case("log_softmax", lambda m, a: a.log_softmax(dim=1), (3, 4)),
    case("log_softmax_large", lambda m, a: a.log_softmax(dim=-1), (2, 3, 4), domain="large"),
]

MATMUL = [
    case("matmul_1d_1d", lambda m, a, b: a @ b, (4,), (4,)),
    case("matmul_2d_1d", lambda m, a, b: a @ b, (3, 4), (4,)),
    case("matmul_1d_2d", lambda m, a, b: a @ b, (4,), (4, 2)),
    case("matmul_2d_2d", lambda m, a, b: a @ b, (3, 4), (4, 2)),
    case("matmul_batched", lambda m, a, b: a @ b, (2, 3, 4), (2, 4, 2)),
    case("matmul_batch_broadcast", lambda m, a, b: a @ b, (2, 1, 3, 4), (3, 4, 2)),
    case("matmul_2d_batched", lambda m, a, b: a.matmul(b), (3, 4), (2, 4, 2)),
    case("matmul_1d_batched", lambda m, a, b: a.matmul(b), (4,), (2, 4, 3)),
    case("matmul_batched_1d", lambda m, a, b: a.matmul(b), (2, 3, 4), (4,)),
    case("mm", lambda m, a, b: a.mm(b), (3, 4), (4, 2)),
]

SHAPES = [
    case("t", lambda m, a: a.t(), (3, 4)),
    case("t_1d", lambda m, a: a.t(), (3,)),
    case("T", lambda m, a: a.T, (3, 4)),
    case("transpose", lambda m, a: a.transpose(0, 2), (2, 3, 4)),
    case("transpose_negative", lambda m, a: a.transpose(-1, -2), (2, 3, 4)),
    case("permute", lambda m, a: a.permute(2, 0, 1), (2, 3, 4)),
    case("permute_tuple", lambda m, a: a.permute((1, 0, 2)), (2, 3, 4)),
    case("reshape", lambda m, a: a.reshape(4, 6), (2, 3, 4)),
    case("reshape_infer", lambda m, a: a.reshape(3, -1), (2, 3, 4)),
    case("reshape_tuple", lambda m, a: a.reshape((6, 2, 2)), (2, 3, 4)),
    case("view", lambda m, a: a.view(-1), (2, 3, 4)),
    case("view_infer_middle", lambda m, a: a.view(2, -1, 3), (2, 3, 4)),
    case("view_as", lambda m, a, b: a.view_as(b), (2, 6), (3, 4)),
    case("reshape_as", lambda m, a, b: a.reshape_as(b), (2, 6), (4, 3)),
    case("flatten", lambda m, a: a.flatten(), (2, 3, 4)),
    case("flatten_start", lambda m, a: a.flatten(1), (2, 3, 4, 2)),
    case("flatten_start_end", lambda m, a: a.flatten(start_dim=1, end_dim=2), (2, 3, 4, 2)),
    case("flatten_negative", lambda m, a: a.flatten(0, -2), (2, 3, 4)),
    case("squeeze_all", lambda m, a: a.squeeze(), (2, 1, 3, 1)),
    case("squeeze_dim", lambda m, a: a.squeeze(1), (2, 1, 3, 1)),
    case("squeeze_negative_dim", lambda m, a: a.squeeze(-1), (2, 1, 3, 1)),
    case("squeeze_non_singleton", lambda m, a: a.squeeze(0), (2, 1, 3)),
    case("unsqueeze", lambda m, a: a.unsqueeze(0), (2, 3)),
    case("unsqueeze_negative", lambda m, a: a.unsqueeze(-1), (2, 3)),
    case("unsqueeze_middle", lambda m, a: a.unsqueeze(1), (2, 3)),
    case("expand", lambda m, a: a.expand(2, 3, 4), (3, 1)),
    case("expand_minus_one", lambda m, a: a.expand(-1, 4), (3, 1)),
    case("expand_as", lambda m, a, b: a.expand_as(b), (1, 4), (3, 4)),
    case("cat", lambda m, a, b: m.cat([a, b]), (2, 3), (4, 3)),
    case("cat_dim1", lambda m, a, b: m.cat([a, b], dim=1), (2, 3), (2, 1)),
    case("cat_negative_dim", lambda m, a, b, c: m.cat((a, b, c), dim=-1), (2, 2, 1), (2, 2, 3), (2, 2, 2)),
    case("stack", lambda m, a, b: m.stack([a, b]), (2, 3), (2, 3)),
    case("stack_dim1", lambda m, a, b, c: m.stack([a, b, c], dim=1), (2, 3), (2, 3), (2, 3)),
    case("stack_negative_dim", lambda m, a, b: m.stack((a, b), dim=-1), (2, 3), (2, 3)),
    case("clone", lambda m, a: a.clone() * 2, (2, 3)),
    case("to_float64", lambda m, a: a.to(m.float64) * 2, (2, 3)),
    # a float32 result is too coarse for finite differences: compared with PyTorch only
    case("to_dtype_keyword", lambda m, a: a.to(dtype=m.float32), (2, 3), gradcheck=False),
    case("double", lambda m, a: a.double().exp(), (2, 3)),
    case("float", lambda m, a: a.float().exp(), (2, 3), gradcheck=False),
]

INDEXING = [
    case("index_int", lambda m, a: a[1], (3, 4)),
    case("index_negative_int", lambda m, a: a[-1, 2], (3, 4)),
    case("index_slices", lambda m, a: a[:, 1:3], (3, 4)),
    case("index_step", lambda m, a: a[::2, 1::2], (3, 4)),
    case("index_ellipsis", lambda m, a: a[..., 1], (2, 3, 4)),
    case("index_none", lambda m, a: a[None, :, 0], (3, 4)),
    case("index_mixed_basic", lambda m, a: a[1:, None, ..., ::3], (3, 2, 4)),
    case("index_list_repeated", lambda m, a: a[[0, 2, 0, 0]], (3, 4)),
    case("index_two_lists", lambda m, a: a[[0, 1, 1], [2, 0, 2]], (3, 4)),
    case("index_slice_and_list", lambda m, a: a[:, [1, 1, 3]], (3, 4)),
    case("index_int_tensor", lambda m, a, i: a[i], (3, 4), INDEX),
    case("index_new_tensor", lambda m, a: a[m.tensor([2, 0, 2])] * 3, (3, 4)),
    case("index_bool_mask", lambda m, a, mask: a[mask], (3, 4), MASK),
    case("index_bool_expression", lambda m, a: a[a > 0], (3, 4)),
    case("index_bool_rows", lambda m, a: a[a.sum(1) > 0, 1:], (5, 3)),
]

MODULE_FUNCTIONS = [
    case("mg_add", lambda m, a, b: m.add(a, b), (2, 3), (3,)),
    case("mg_sub", lambda m, a, b: m.sub(a, b), (2, 3), (3,)),
    case("mg_mul", lambda m, a, b: m.mul(a, b), (2, 3), (3,)),
    case("mg_div", lambda m, a, b: m.div(a, b), (2, 3), (3,), domain="positive"),
    case("mg_pow", lambda m, a: m.pow(a, 3), (2, 3)),
    case("mg_pow_tensor", lambda m, a, b: m.pow(a, b), (2, 3), (2, 3), domain="positive"),
    case("mg_neg", lambda m, a: m.neg(a), (2, 3)),
    case("mg_abs", lambda m, a: m.abs(a), (2, 3)),
    case("mg_exp", lambda m, a: m.exp(a), (2, 3)),
    case("mg_log", lambda m, a: m.log(a), (2, 3), domain="positive"),
    case("mg_sqrt", lambda m, a: m.sqrt(a), (2, 3), domain="positive"),
    case("mg_sin_cos", lambda m, a: m.sin(a) * m.cos(a), (2, 3)),
    case("mg_tanh", lambda m, a: m.tanh(a), (2, 3)),
    case("mg_sigmoid", lambda m, a: m.sigmoid(a), (2, 3)),
    case("mg_relu", lambda m, a: m.relu(a), (2, 3)),
    case("mg_clamp", lambda m, a: m.clamp(a, min=-0.2, max=0.3), (2, 3)),
    case("mg_minimum", lambda m, a, b: m.minimum(a, b), (2, 3), (2, 1)),
    case("mg_sum", lambda m, a: m.sum(a), (2, 3)),
    case("mg_sum_dim", lambda m, a: m.sum(a, dim=1, keepdim=True), (2, 3)),
    case("mg_mean", lambda m, a: m.mean(a, 0), (2, 3)),
    case("mg_var_std", lambda m, a: m.var(a, 1) + m.std(a, 1), (2, 3)),
    case("mg_max", lambda m, a: m.max(a), (2, 3)),
    case("mg_max_dim", lambda m, a: m.max(a, 1), (2, 3)),
    case("mg_max_binary", lambda m, a, b: m.max(a, b), (2, 3), (2, 3)),
    case("mg_min_dim", lambda m, a: m.min(a, dim=0, keepdim=True), (2, 3)),
    case("mg_amax", lambda m, a: m.amax(a, dim=0), (2, 3)),
    case("mg_argmax", lambda m, a: m.argmax(a, dim=1), (2, 3)),
    case("mg_softmax", lambda m, a: m.softmax(a, dim=1), (2, 3)),
    case("mg_log_softmax", lambda m, a: m.log_softmax(a, 0), (2, 3)),
    case("mg_matmul", lambda m, a, b: m.matmul(a, b), (2, 3), (3,)),
    case("mg_mm", lambda m, a, b: m.mm(a, b), (2, 3), (3, 2)),
    case("mg_t", lambda m, a: m.t(a), (2, 3)),
    case("mg_transpose", lambda m, a: m.transpose(a, 0, 1), (2, 3)),
    case("mg_permute", lambda m, a: m.permute(a, (1, 0)), (2, 3)),
    case("mg_reshape", lambda m, a: m.reshape(a, (3, 2)), (2, 3)),
    case("mg_flatten", lambda m, a: m.flatten(a), (2, 3)),
    case("mg_squeeze_unsqueeze", lambda m, a: m.unsqueeze(m.squeeze(a), 0), (2, 1, 3)),
    case("mg_where", lambda m, a, b: m.where(b > a, a, b), (2, 3), (2, 3)),
    case("mg_clone", lambda m, a: m.clone(a), (2, 3)),
]

GRAPHS = [
    case("residual_inplace_add", residual, (2, 3), (3, 3)),
    case("inplace_chain", inplace_chain, (2, 3), (2, 3)),
    case("setitem_non_leaf", setitem_non_leaf, (2, 3), (2,)),
    case("reused_input", lambda m, a: a * a + a.exp() * a, (2, 3)),
    case("mlp", lambda m, x, w, b: (x @ w + b).relu().sum(1).softmax(0), (4, 3), (3, 2), (2,)),
]


@pytest.mark.parametrize("c", ARITHMETIC + ELEMENTWISE)
def test_elementwise_op(c):
    check_op(c)


@pytest.mark.parametrize("c", REDUCTIONS + MATMUL)
def test_reduction_and_matmul_op(c):
    check_op(c)


@pytest.mark.parametrize("c", SHAPES + INDEXING)
def test_shape_and_indexing_op(c):
    check_op(c)


@pytest.mark.parametrize("c", MODULE_FUNCTIONS + GRAPHS)
def test_module_function_and_graph(c):
    check_op(c)


QUOTIENTS = {
    "true_division_of_ints": lambda m, a, b: a / b,
    "floor_division": lambda m, a, b: a // b,
    "remainder": lambda m, a, b: a % b,
    "reflected_remainder": lambda m, a, b: 7 % b,
    "reflected_floor_division": lambda m, a, b: -7 // b,
    "div_floor": lambda m, a, b: m.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda m, a, b: m.div(a, b, rounding_mode="trunc"),
    "method_div_floor": lambda m, a, b: a.div(b, rounding_mode="floor"),
    "method_div_trunc_by_a_float": lambda m, a, b: a.div(2.5, rounding_mode="trunc"),
    "method_div_trunc_of_floats": lambda m, a, b: a.double().div(b, rounding_mode="trunc"),
}


@pytest.mark.parametrize("name", QUOTIENTS)
def test_division_rounding_modes_and_remainder_match_torch(name):
    """Integer and float quotients of mixed signs: values and dtypes as PyTorch's."""
    quotient = QUOTIENTS[name]
    a, b = [7, -7, 5, -5, 0, 9], [2, 2, -3, -3, 4, -4]
    ours = quotient(mg, mg.tensor(a), mg.tensor(b))
    theirs = reference(lambda torch: quotient(torch, torch.tensor(a), torch.tensor(b)))
    assert ours.dtype.name == theirs.dtype.name
    numpy.testing.assert_array_equal(to_numpy(ours), theirs)


def test_in_place_division_takes_a_rounding_mode():
    t = mg.tensor([7, -7])
    assert t.div_(2, rounding_mode="floor") is t
    assert t.tolist() == [3, -4]


IEEE_EDGES = {
    "log": lambda x: x.log(),
    "sqrt": lambda x: x.sqrt(),
    "reciprocal": lambda x: 1 / x,
    "divide_by_zero": lambda x: x / 0,
    "negative_power": lambda x: x ** -1,
    "exp_overflow": lambda x: (x * 1000).exp(),
}


@pytest.mark.parametrize("name", IEEE_EDGES)
def test_inf_and_nan_results_match_torch_without_warnings(name):
    """log(0), 1/0, sqrt(-1), exp(1000): PyTorch's inf/nan values and gradients, and no NumPy warning."""
    op = IEEE_EDGES[name]

    def run(lib):
        x = lib.tensor([0.0, 1.0, -1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = op(x)
            y.sum().backward()
        return y.detach(), x.grad

    y, grad = run(mg)
    for ours, theirs in zip([to_numpy(y), to_numpy(grad)], reference(run), strict=True):
        numpy.testing.assert_array_equal(ours, theirs)
