"""Gradients of gradients of pooling, normalisation and the losses, against PyTorch.

Each table row goes through the core suite's ``check_op``: gradcheck and gradgradcheck in
float64, forward and gradients against PyTorch in float64 and float32, and the second
derivatives (the gradient of a weighted first derivative, recorded with ``create_graph``)
against PyTorch's. The tests below the table check what a table cannot: batch norm's running
statistics through a double backward, PyTorch's node names of the first derivative, third
derivatives of the normalisations, and a WGAN-GP gradient penalty through a small CNN.
"""

import numpy
import pytest
from _reference import reference
from core.helpers import case, check_gradgradcheck, check_op

import minigrad as mg

F = mg.nn.functional
rng = numpy.random.default_rng(19)  # the table's constants only: each test below seeds its own
RUNNING_MEAN = numpy.array([0.2, -0.4, 1.0])
RUNNING_VAR = numpy.array([0.5, 1.5, 2.0])
PROBABILITIES = rng.uniform(0.05, 0.95, (3, 4))        # inputs and targets of binary_cross_entropy
TARGETS = rng.uniform(0.05, 0.95, (3, 4))
LOSS_WEIGHT = rng.uniform(0.5, 2.0, (3, 4))
POS_WEIGHT = rng.uniform(0.5, 2.0, (4,))


def _const(m, array, like):
    """A constant of ``like``'s dtype in library ``m`` (statistics and weights that take no gradient)."""
    return m.tensor(array, dtype=like.dtype)


def _batch_norm(training, affine):
    def fn(m, x, *weight_bias):
        running_mean, running_var = _const(m, RUNNING_MEAN, x), _const(m, RUNNING_VAR, x)
        return m.nn.functional.batch_norm(x, running_mean, running_var, *weight_bias, training=training)
    return fn


POOLING = [
    case("max-pool2d-default-stride", lambda m, x: m.nn.functional.max_pool2d(x, 2), (2, 3, 6, 6)),
    case("max-pool2d-stride-padding", lambda m, x: m.nn.functional.max_pool2d(x, 3, 2, 1), (2, 2, 7, 5)),
    case("max-pool2d-dilation-ceil", lambda m, x: m.nn.functional.max_pool2d(
        x, (2, 3), (1, 2), dilation=(2, 1), ceil_mode=True), (1, 2, 7, 6)),
    case("max-pool2d-ceil-padding-batch1", lambda m, x: m.nn.functional.max_pool2d(
        x, 3, 2, 1, ceil_mode=True), (1, 1, 5, 7)),
    case("max-pool2d-unbatched", lambda m, x: m.nn.functional.max_pool2d(x, 2, 1), (2, 5, 5)),
    case("max-pool2d-indices", lambda m, x: m.nn.functional.max_pool2d(x, 2, return_indices=True),
         (1, 2, 4, 6)),
    case("max-pool1d", lambda m, x: m.nn.functional.max_pool1d(x, 3, 2, 1, dilation=2), (2, 3, 9)),
    case("avg-pool2d-stride-padding", lambda m, x: m.nn.functional.avg_pool2d(x, 3, 2, 1), (2, 2, 7, 5)),
    case("avg-pool2d-exclude-pad-ceil", lambda m, x: m.nn.functional.avg_pool2d(
        x, 3, 2, 1, ceil_mode=True, count_include_pad=False), (1, 2, 6, 7)),
    case("avg-pool2d-divisor", lambda m, x: m.nn.functional.avg_pool2d(x, (2, 3), divisor_override=4),
         (2, 1, 5, 7)),
    case("avg-pool2d-unbatched", lambda m, x: m.nn.functional.avg_pool2d(x, 2), (3, 4, 5)),
    case("avg-pool1d", lambda m, x: m.nn.functional.avg_pool1d(x, 3, 2, 1), (2, 3, 8)),
    case("adaptive-avg-pool2d", lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (3, 4)), (2, 2, 7, 6)),
    case("adaptive-avg-pool2d-global", lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, 1), (2, 3, 4, 5)),
    case("adaptive-max-pool2d", lambda m, x: m.nn.functional.adaptive_max_pool2d(x, (3, 4)), (2, 2, 7, 6)),
    case("adaptive-max-pool2d-unbatched", lambda m, x: m.nn.functional.adaptive_max_pool2d(x, 2), (3, 5, 5)),
]

NORMALIZATION = [
    case("batch-norm-train-affine", _batch_norm(True, True), (4, 3, 3, 2), (3,), (3,)),
    case("batch-norm-train", _batch_norm(True, False), (4, 3, 5)),
    case("batch-norm-train-2d", _batch_norm(True, True), (6, 3), (3,), (3,)),
    case("batch-norm-train-batch1", _batch_norm(True, True), (1, 3, 3, 4), (3,), (3,)),
    case("batch-norm-eval-affine", _batch_norm(False, True), (4, 3, 3, 2), (3,), (3,)),
    case("batch-norm-eval", _batch_norm(False, False), (2, 3, 5)),
    case("layer-norm-affine", lambda m, x, w, b: m.nn.functional.layer_norm(x, (3, 2), w, b),
         (4, 3, 2), (3, 2), (3, 2)),
    case("layer-norm", lambda m, x: m.nn.functional.layer_norm(x, (5,)), (2, 3, 5)),
    case("layer-norm-weight-only", lambda m, x, w: m.nn.functional.layer_norm(x, (4,), w), (3, 4), (4,)),
]

LOSSES = [
    case("mse-broadcast", lambda m, x, y: m.nn.functional.mse_loss(x, y.expand_as(x)), (3, 4), (4,)),
    case("mse-weighted", lambda m, x, y: m.nn.functional.mse_loss(
        x, y, weight=_const(m, LOSS_WEIGHT, x)), (3, 4), (3, 4)),
    case("bce-with-logits-pos-weight", lambda m, x, y: m.nn.functional.binary_cross_entropy_with_logits(
        x, y, pos_weight=_const(m, POS_WEIGHT, x)), (3, 4), TARGETS),
    case("bce-with-logits-weighted-none", lambda m, x, y: m.nn.functional.binary_cross_entropy_with_logits(
        x, y, weight=_const(m, LOSS_WEIGHT, x), reduction="none"), (3, 4), TARGETS),
    case("bce-weighted", lambda m, x, y: m.nn.functional.binary_cross_entropy(
        x, y, weight=_const(m, LOSS_WEIGHT, x), reduction="sum"), PROBABILITIES, TARGETS),
    case("kl-div-log-target", lambda m, x, y: m.nn.functional.kl_div(
        x, y, reduction="sum", log_target=True), (3, 4), (3, 4)),
]
for reduction in ("mean", "sum", "none"):
    LOSSES += [
        case(f"l1-{reduction}", lambda m, x, y, r=reduction: m.nn.functional.l1_loss(x, y, reduction=r),
             (3, 4), (3, 4)),
        case(f"smooth-l1-{reduction}", lambda m, x, y, r=reduction: m.nn.functional.smooth_l1_loss(
            x, y, reduction=r, beta=0.7), (3, 4), (3, 4)),
        case(f"huber-{reduction}", lambda m, x, y, r=reduction: m.nn.functional.huber_loss(
            x, y, reduction=r, delta=0.8), (3, 4), (3, 4)),
        case(f"bce-{reduction}", lambda m, x, y, r=reduction: m.nn.functional.binary_cross_entropy(
            x, y, reduction=r), PROBABILITIES, TARGETS),
        case(f"bce-with-logits-{reduction}", lambda m, x, y, r=reduction:
             m.nn.functional.binary_cross_entropy_with_logits(x, y, reduction=r), (3, 4), TARGETS),
        case(f"kl-div-{reduction}", lambda m, x, y, r=reduction: m.nn.functional.kl_div(
            x, y, reduction=r), (3, 4), TARGETS),
    ]


@pytest.mark.parametrize("c", POOLING + NORMALIZATION + LOSSES)
def test_second_derivatives_match_torch(c):
    check_op(c)


def test_batch_norm_double_backward_leaves_the_running_statistics_alone():
    local = numpy.random.default_rng(1)
    x = mg.tensor(local.standard_normal((4, 3, 2, 2)), requires_grad=True)
    weight = mg.tensor(local.standard_normal(3), requires_grad=True)
    running_mean, running_var = mg.zeros(3, dtype=mg.float64), mg.ones(3, dtype=mg.float64)
    out = F.batch_norm(x, running_mean, running_var, weight, training=True)
    after_forward = running_mean.numpy().copy(), running_var.numpy().copy()
    (grad_x,) = mg.autograd.grad((out * out.detach()).sum(), [x], create_graph=True)
    (grad_x * grad_x).sum().backward()
    assert not numpy.allclose(after_forward[0], 0)   # the forward did update them
    numpy.testing.assert_array_equal(running_mean.numpy(), after_forward[0])
    numpy.testing.assert_array_equal(running_var.numpy(), after_forward[1])
    assert x.grad is not None and weight.grad is not None


FIRST_DERIVATIVE_NODES = {  # each on an input (2, 1, 4, 6), nll_loss's (4, 6)
    "max_pool2d": lambda m, x: m.nn.functional.max_pool2d(x, 2),
    "avg_pool2d": lambda m, x: m.nn.functional.avg_pool2d(x, 2),
    "adaptive_avg_pool2d": lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (2, 3)),
    "adaptive_max_pool2d": lambda m, x: m.nn.functional.adaptive_max_pool2d(x, (2, 3)),
    "batch_norm": lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True),
    "layer_norm": lambda m, x: m.nn.functional.layer_norm(x, (6,)),
    "nll_loss": lambda m, x: m.nn.functional.nll_loss(x, m.tensor([0, 1, 2, 5])),
    "mse_loss": lambda m, x: m.nn.functional.mse_loss(x, m.ones_like(x)),
    "smooth_l1_loss": lambda m, x: m.nn.functional.smooth_l1_loss(x, m.zeros_like(x)),
    "huber_loss": lambda m, x: m.nn.functional.huber_loss(x, m.zeros_like(x)),
}


@pytest.mark.parametrize("name", FIRST_DERIVATIVE_NODES)
def test_first_derivative_nodes_have_torchs_names(name):
    fn = FIRST_DERIVATIVE_NODES[name]
    x = numpy.random.default_rng(2).standard_normal((4, 6) if name == "nll_loss" else (2, 1, 4, 6))

    def node_of_gradient(m):
        t = m.tensor(x, requires_grad=True)
        (grad,) = m.autograd.grad(fn(m, t).sum(), [t], create_graph=True)
        return type(grad.grad_fn).__name__

    assert node_of_gradient(mg) == reference(node_of_gradient, inputs={"x": x})


THIRD_ORDER = {
    "batch_norm": lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True),
    "layer_norm": lambda m, x: m.nn.functional.layer_norm(x, (2, 2)),
}


@pytest.mark.parametrize("name", THIRD_ORDER)
def test_normalization_third_derivatives_pass_gradgradcheck(name):
    """gradgradcheck of the first derivative: minigrad's third derivatives are the true ones.

    (PyTorch 2.13's own gradgradcheck of this first derivative fails for batch_norm in training and
    layer_norm, so its third derivatives are no reference: docs/compatibility.md.)
    """
    norm = THIRD_ORDER[name]
    local = numpy.random.default_rng(3)
    v = local.standard_normal((3, 2, 2))

    def first_derivative(m, x):
        (grad,) = m.autograd.grad((norm(m, x) * m.tensor(v)).sum(), [x], create_graph=True)
        return grad

    check_gradgradcheck(first_derivative, [local.standard_normal((3, 2, 2))], seed=3)


def _gradient_penalty(m, images, parameters):
    """WGAN-GP: a critic (conv, relu, max-pool, batch norm, linear), the penalty (‖∂critic/∂x‖ − 1)²
    averaged over the batch, and its gradient w.r.t. every weight (0 for the biases of batch norm and
    the linear layer, which the critic's gradient does not see)."""
    conv_w, conv_b, bn_w, bn_b, lin_w, lin_b = (m.tensor(p, requires_grad=True) for p in parameters)
    x = m.tensor(images, requires_grad=True)
    h = m.nn.functional.conv2d(x, conv_w, conv_b, padding=1)
    h = m.nn.functional.max_pool2d(m.nn.functional.relu(h), 2)
    h = m.nn.functional.batch_norm(h, None, None, bn_w, bn_b, training=True)
    scores = m.nn.functional.linear(h.flatten(1), lin_w, lin_b)
    (grad_x,) = m.autograd.grad(scores.sum(), [x], create_graph=True)
    penalty = ((grad_x.flatten(1).norm(dim=1) - 1) ** 2).mean()
    weights = [conv_w, conv_b, bn_w, bn_b, lin_w, lin_b]
    grads = m.autograd.grad(penalty, weights, allow_unused=True)  # ∂critic/∂x does not depend on the biases
    return penalty, [m.zeros_like(w) if g is None else g for g, w in zip(grads, weights)]


def test_gradient_penalty_of_a_small_cnn_matches_torch():
    local = numpy.random.default_rng(4)
    images = local.standard_normal((3, 1, 6, 6))
    parameters = [local.standard_normal((4, 1, 3, 3)) * 0.5, local.standard_normal(4) * 0.1,
                  local.uniform(0.5, 1.5, 4), local.standard_normal(4) * 0.1,
                  local.standard_normal((1, 36)) * 0.3, local.standard_normal(1) * 0.1]
    theirs = reference(lambda torch: _gradient_penalty(torch, images, parameters),
                       inputs={"images": images, "parameters": parameters})
    penalty, grads = _gradient_penalty(mg, images, parameters)
    numpy.testing.assert_allclose(penalty.detach().numpy(), theirs[0], rtol=1e-9)
    for ours, expected in zip(grads, theirs[1]):
        numpy.testing.assert_allclose(ours.numpy(), expected, rtol=1e-8, atol=1e-12)
    assert numpy.any(grads[0].numpy()) and numpy.any(grads[2].numpy())  # conv and batch norm weights
