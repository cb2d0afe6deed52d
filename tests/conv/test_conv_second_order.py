"""Gradients of conv's gradients (``create_graph=True``): conv2d by every algorithm (depthwise
included), conv2d_input / conv2d_weight, conv1d, unfold / fold.

Two checks, as for the first derivatives: finite differences of the recorded backward
(``gradgradcheck`` in float64), and PyTorch's second derivatives on the same inputs. The
second derivative compared is the gradient of ⟨∂L/∂inputs, u⟩ w.r.t. the inputs and the
output gradient v (L = ⟨y, v⟩), for seeded u and v: every mixed term of the Hessian of a
bilinear map shows up in it.
"""

import numpy
import pytest
from _reference import reference
from conv_reference import CASE_IDS, CASES, ConvCase, output_grad

import minigrad as mg
from minigrad.autograd import gradcheck
from minigrad.ops.conv import (
    ALGORITHMS,
    algorithms,
    conv2d,
    conv2d_input,
    conv2d_weight,
    depthwise,
    fold,
    unfold,
)
from minigrad.ops.conv.conv1d import conv1d

NAMES = list(ALGORITHMS)


def _leaf(array):
    return mg.tensor(array, requires_grad=True)


def gradgradcheck(fn, inputs, grad_outputs):
    """The first derivative of ``fn`` (recorded with create_graph) checked by finite differences,
    w.r.t. ``inputs`` and the output gradient ``grad_outputs`` alike (PyTorch's gradgradcheck)."""
    count = len(inputs)

    def first_derivative(*args):
        differentiable = [a for a in args[:count] if a is not None]
        with mg.enable_grad():   # also where the finite differences evaluate it without grad
            return mg.autograd.grad(fn(*args[:count]), differentiable, args[count], create_graph=True)

    return gradcheck(first_derivative, tuple(inputs) + (grad_outputs,))


def second_derivatives(lib, fn, arrays, v, u, **kw):
    """∂/∂(inputs, v) of ⟨∂⟨fn(inputs), v⟩/∂inputs, u⟩ in ``lib`` (minigrad or torch), as arrays.

    ``fn(lib, *tensors, **kw)``; an array of ``arrays`` that is None is passed as None.
    """
    tensors = [None if a is None else lib.tensor(a, requires_grad=True) for a in arrays]
    inputs = [t for t in tensors if t is not None]
    v_tensor = lib.tensor(v, requires_grad=True)
    grads = lib.autograd.grad(fn(lib, *tensors, **kw), inputs, v_tensor, create_graph=True)
    total = sum((g * lib.tensor(w)).sum() for g, w in zip(grads, u))
    seconds = lib.autograd.grad(total, inputs + [v_tensor], allow_unused=True, materialize_grads=True)
    return [numpy.asarray(s.detach().numpy() if lib.__name__ == "torch" else s.array) for s in seconds]


def _directions(arrays, seed):
    rng = numpy.random.default_rng(seed)
    return [rng.standard_normal(a.shape) for a in arrays if a is not None]


def _close_all(ours, expected, what):
    assert len(ours) == len(expected), what
    for index, (a, b) in enumerate(zip(ours, expected)):
        assert a.shape == b.shape, f"{what}: derivative {index}"
        numpy.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10, err_msg=f"{what}: derivative {index}")


# --- conv2d ------------------------------------------------------------------------------------------

# Small enough for finite differences of the whole first derivative, for every algorithm.
SMALL = [
    ConvCase("stride2-pad1", 2, 2, (5, 5), 3, (3, 3), (2, 2), (1, 1)),
    ConvCase("dilation-pair-odd-sizes", 1, 2, (6, 5), 2, (3, 2), (1, 1), (2, 1), (2, 1)),
    ConvCase("groups2-stride-pair", 2, 4, (5, 6), 4, (2, 3), (2, 1), (0, 1), (1, 1), 2),
    ConvCase("depthwise", 1, 3, (5, 4), 3, (3, 3), (1, 1), (1, 1), (1, 1), 3),
    ConvCase("depthwise-multiplier2-dilated", 2, 2, (5, 5), 4, (2, 2), (1, 1), (1, 1), (2, 2), 2),
    ConvCase("batch1-channel1-uncovered-border", 1, 1, (6, 5), 1, (3, 3), (2, 2)),
]
# bias, or none, alternately
SMALL_WITH_BIAS = [(case, index % 2 == 0) for index, case in enumerate(SMALL)]


@pytest.mark.parametrize(("case", "with_bias"), SMALL_WITH_BIAS, ids=[c.name for c in SMALL])
@pytest.mark.parametrize("name", NAMES)
def test_conv2d_gradgradcheck(name, case, with_bias):
    x, weight, bias = case.arrays(seed=21)
    v = _leaf(output_grad(case, seed=22))
    inputs = (_leaf(x), _leaf(weight), _leaf(bias) if with_bias else None)
    assert gradgradcheck(lambda a, w, b: conv2d(a, w, b, *case.settings, algorithm=name), inputs, v)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_conv2d_second_derivatives_match_torch_for_every_algorithm(case):
    x, weight, bias = case.arrays(seed=23)
    arrays = (x, weight, None if case.groups > 1 else bias)    # without a bias where there are groups
    v, u = output_grad(case, seed=24), _directions(arrays, seed=25)

    def conv(lib, a, w, b, **kw):
        return lib.nn.functional.conv2d(a, w, b, *case.settings, **kw)

    expected = reference(lambda torch: second_derivatives(torch, conv, arrays, v, u),
                         {"x": x, "weight": weight, "bias": arrays[2], "v": v, "u": u})
    for name in NAMES:
        _close_all(second_derivatives(mg, conv, arrays, v, u, algorithm=name), expected, name)


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")
@pytest.mark.parametrize(("kernel", "dilation"), [((3, 3), 1), ((2, 3), (1, 2)), ((4, 2), 1)])
def test_conv2d_padding_same_second_derivatives_match_torch(kernel, dilation):
    rng = numpy.random.default_rng(26)
    arrays = (rng.standard_normal((2, 2, 5, 6)), rng.standard_normal((3, 2) + kernel), rng.standard_normal(3))
    v, u = rng.standard_normal((2, 3, 5, 6)), _directions(arrays, seed=27)

    def conv(lib, a, w, b, **kw):
        return lib.nn.functional.conv2d(a, w, b, padding="same", dilation=dilation, **kw)

    expected = reference(lambda torch: second_derivatives(torch, conv, arrays, v, u),
                         {"x": arrays[0], "weight": arrays[1], "bias": arrays[2], "v": v, "u": u})
    for name in NAMES:
        _close_all(second_derivatives(mg, conv, arrays, v, u, algorithm=name), expected, name)


def test_third_derivative_by_finite_differences():
    """The derivative Functions' own backward is differentiable again (to any order)."""
    case = SMALL[2]
    x, weight, _ = (_leaf(a) for a in case.arrays(seed=28))
    v = _leaf(output_grad(case, seed=29))
    u = mg.tensor(numpy.random.default_rng(30).standard_normal(case.input_shape))

    def second(a, w, delta):
        with mg.enable_grad():
            grad_x = mg.autograd.grad(conv2d(a, w, None, *case.settings), a, delta, create_graph=True)[0]
            return mg.autograd.grad((grad_x * u).sum(), (w, delta), create_graph=True)

    assert gradcheck(second, (x, weight, v))


def test_the_derivatives_use_the_forwards_algorithm_and_their_node_names():
    x, weight = _leaf(numpy.ones((1, 2, 4, 4))), _leaf(numpy.ones((3, 2, 3, 3)))
    with mg.nn.conv_algorithm("naive"):
        out = conv2d(x, weight, padding=1)
    grad_x, grad_w = mg.autograd.grad(out, (x, weight), mg.ones_like(out), create_graph=True)
    assert grad_x.grad_fn.name() == grad_w.grad_fn.name() == "ConvolutionBackwardBackward0"
    assert grad_x.grad_fn.algorithm == grad_w.grad_fn.algorithm == "naive"
    assert out.grad_fn.algorithm == "naive"


def test_a_depthwise_convolutions_derivatives_run_the_depthwise_path(monkeypatch):
    calls = []
    functions = algorithms.DEPTHWISE
    assert functions == (depthwise.forward, depthwise.prepare_grad_output, depthwise.grad_weight,
                         depthwise.grad_input)
    monkeypatch.setattr(algorithms, "DEPTHWISE", algorithms.Algorithm(
        *(lambda *a, _f=f, _n=n, **k: calls.append(_n) or _f(*a, **k)
          for f, n in zip(functions, algorithms.Algorithm._fields))))
    x, weight = _leaf(numpy.ones((1, 3, 5, 5))), _leaf(numpy.ones((6, 1, 3, 3)))
    out = conv2d(x, weight, padding=1, groups=3)
    delta = _leaf(numpy.ones(tuple(out.shape)))
    grad_x, grad_w = mg.autograd.grad(out, (x, weight), delta, create_graph=True)
    (again,) = mg.autograd.grad(grad_x.sum(), weight, create_graph=True)     # conv2d_weight(1, δ)
    calls = [name for name in calls if name != "prepare_grad_output"]
    assert calls[:3] == ["forward", "grad_weight", "grad_input"]          # the forward, then its backward
    assert sorted(calls[3:]) == ["forward", "grad_weight"]                  # d(grad_x)/dδ and d(grad_x)/dW


def test_first_order_backward_records_nothing():
    x, weight = _leaf(numpy.ones((1, 2, 4, 4))), _leaf(numpy.ones((3, 2, 3, 3)))
    out = conv2d(x, weight)
    grad_x, grad_w = mg.autograd.grad(out, (x, weight), mg.ones_like(out))
    assert grad_x.grad_fn is None and grad_w.grad_fn is None
    assert not grad_x.requires_grad and not grad_w.requires_grad


# --- conv2d_input / conv2d_weight (torch.nn.grad) --------------------------------------------------

@pytest.mark.parametrize("case", [CASES[1], CASES[6], CASES[9], CASES[13]],
                         ids=[CASE_IDS[1], CASE_IDS[6], CASE_IDS[9], CASE_IDS[13]])
def test_nn_grad_second_derivatives_match_torch(case):
    x, weight, _ = case.arrays(seed=31)
    delta = output_grad(case, seed=32)
    rng = numpy.random.default_rng(33)
    v_input, v_weight = rng.standard_normal(x.shape), rng.standard_normal(weight.shape)

    def of_input(lib, w, d, **kw):
        return lib.nn.grad.conv2d_input(x.shape, w, d, *case.settings, **kw)

    def of_weight(lib, a, d, **kw):
        return lib.nn.grad.conv2d_weight(a, weight.shape, d, *case.settings, **kw)

    arrays_input, arrays_weight = (weight, delta), (x, delta)
    u_input, u_weight = _directions(arrays_input, seed=34), _directions(arrays_weight, seed=35)
    expected_input, expected_weight = reference(
        lambda torch: (second_derivatives(torch, of_input, arrays_input, v_input, u_input),
                       second_derivatives(torch, of_weight, arrays_weight, v_weight, u_weight)),
        {"x": x, "weight": weight, "delta": delta, "v": [v_input, v_weight]})
    for name in NAMES:
        _close_all(second_derivatives(mg, of_input, arrays_input, v_input, u_input, algorithm=name),
                   expected_input, f"conv2d_input {name}")
        _close_all(second_derivatives(mg, of_weight, arrays_weight, v_weight, u_weight, algorithm=name),
                   expected_weight, f"conv2d_weight {name}")


@pytest.mark.parametrize("name", NAMES)
def test_nn_grad_gradgradcheck(name):
    case = SMALL[4]
    x, weight, _ = case.arrays(seed=36)
    delta = output_grad(case, seed=37)
    rng = numpy.random.default_rng(38)
    assert gradgradcheck(lambda w, d: conv2d_input(case.input_shape, w, d, *case.settings, algorithm=name),
                         (_leaf(weight), _leaf(delta)), _leaf(rng.standard_normal(x.shape)))
    assert gradgradcheck(lambda a, d: conv2d_weight(a, case.weight_shape, d, *case.settings, algorithm=name),
                         (_leaf(x), _leaf(delta)), _leaf(rng.standard_normal(weight.shape)))


# --- conv1d ------------------------------------------------------------------------------------------

CONV1D = [((2, 3, 9), (4, 3, 3), {"stride": 2, "padding": 1}),
          ((1, 4, 8), (4, 2, 2), {"dilation": 2, "groups": 2}),
          ((2, 2, 7), (4, 1, 3), {"groups": 2, "padding": "same"}),          # depthwise, symmetric 'same'
          ((1, 2, 6), (3, 2, 4), {"padding": "same"})]                       # 'same', padded unevenly


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")
@pytest.mark.parametrize(("x_shape", "w_shape", "kwargs"), CONV1D)
def test_conv1d_second_derivatives_match_torch_and_gradgradcheck(x_shape, w_shape, kwargs):
    rng = numpy.random.default_rng(39)
    arrays = (rng.standard_normal(x_shape), rng.standard_normal(w_shape), rng.standard_normal(w_shape[0]))

    def conv(lib, a, w, b, **kw):
        return lib.nn.functional.conv1d(a, w, b, **kwargs, **kw)

    v = rng.standard_normal(tuple(conv(mg, *(mg.tensor(a) for a in arrays)).shape))
    u = _directions(arrays, seed=40)
    expected = reference(lambda torch: second_derivatives(torch, conv, arrays, v, u),
                         {"x": arrays[0], "weight": arrays[1], "bias": arrays[2], "v": v, "u": u})
    for name in NAMES:
        _close_all(second_derivatives(mg, conv, arrays, v, u, algorithm=name), expected, name)
    assert gradgradcheck(lambda a, w, b: conv1d(a, w, b, **kwargs), [_leaf(a) for a in arrays], _leaf(v))


# --- unfold / fold -------------------------------------------------------------------------------

FOLDS = [((2, 2, 5, 4), (2, 3), 1, 1, (2, 1)), ((1, 3, 6, 6), 3, 2, 1, 2),
         ((2, 1, 4, 5), (1, 2), (1, 2), 0, 1)]


@pytest.mark.parametrize(("shape", "kernel", "dilation", "padding", "stride"), FOLDS)
def test_unfold_and_fold_second_derivatives_match_torch_and_gradgradcheck(shape, kernel, dilation, padding,
                                                                          stride):
    rng = numpy.random.default_rng(41)
    x = rng.standard_normal(shape)
    settings = (kernel, dilation, padding, stride)

    def unfold_of(lib, a):
        return lib.nn.functional.unfold(a, *settings)

    def fold_of(lib, b):
        return lib.nn.functional.fold(b, shape[2:], *settings)

    cols = rng.standard_normal(tuple(unfold(mg.tensor(x), *settings).shape))
    v_cols, v_image = rng.standard_normal(cols.shape), rng.standard_normal(shape)
    u_image, u_cols = [rng.standard_normal(shape)], [rng.standard_normal(cols.shape)]
    expected_unfold, expected_fold = reference(
        lambda torch: (second_derivatives(torch, unfold_of, (x,), v_cols, u_image),
                       second_derivatives(torch, fold_of, (cols,), v_image, u_cols)),
        {"x": x, "cols": cols, "v": [v_cols, v_image]})
    _close_all(second_derivatives(mg, unfold_of, (x,), v_cols, u_image), expected_unfold, "unfold")
    _close_all(second_derivatives(mg, fold_of, (cols,), v_image, u_cols), expected_fold, "fold")
    assert gradgradcheck(lambda a: unfold(a, *settings), [_leaf(x)], _leaf(v_cols))
    assert gradgradcheck(lambda b: fold(b, shape[2:], *settings), [_leaf(cols)], _leaf(v_image))
    image = mg.tensor(x, requires_grad=True)
    assert mg.autograd.grad(unfold(image, *settings), image, _leaf(v_cols),
                            create_graph=True)[0].grad_fn.name() == "Col2ImBackward0"


# --- small networks: a Hessian-vector product w.r.t. the weights, a Hessian w.r.t. the input --------

def _network_arrays(seed):
    rng = numpy.random.default_rng(seed)
    weights = (rng.standard_normal((2, 1, 3, 3)), rng.standard_normal(2), rng.standard_normal((3, 2, 3, 3)),
               rng.standard_normal((4, 12)) / 4)
    return rng.standard_normal((2, 1, 5, 5)), weights, [rng.standard_normal(w.shape) for w in weights]


def _network_loss(lib, x, labels, w1, b1, w2, w3, **kw):
    """conv (padding 1) → tanh → conv (stride 2, no bias) → tanh → linear → cross-entropy."""
    F = lib.nn.functional
    hidden = lib.tanh(F.conv2d(x, w1, b1, padding=1, **kw))
    features = lib.tanh(F.conv2d(hidden, w2, stride=2, **kw)).reshape(x.shape[0], -1)
    return F.cross_entropy(F.linear(features, w3), labels)


def _hvp(lib, x, labels, weights, v, **kw):
    """(loss, H·v) for the network's loss as a function of its weights."""
    x, labels = lib.tensor(x), lib.tensor(labels)
    weights, v = tuple(lib.tensor(w) for w in weights), tuple(lib.tensor(d) for d in v)
    loss, product = lib.autograd.functional.hvp(lambda *w: _network_loss(lib, x, labels, *w, **kw),
                                                weights, v)
    return [loss] + list(product)


def test_hvp_of_a_small_conv_net_loss_matches_torch():
    x, weights, v = _network_arrays(seed=42)
    labels = numpy.array([0, 3])
    expected = reference(lambda torch: _hvp(torch, x, labels, weights, v),
                         {"x": x, "labels": labels, "weights": list(weights), "v": v})
    for name in NAMES:
        ours = [numpy.asarray(t.array) for t in _hvp(mg, x, labels, weights, v, algorithm=name)]
        _close_all(ours, expected, name)


def _input_hessian(lib, x, weights, **kw):
    """The Hessian of a tiny CNN's scalar output w.r.t. its (1, 1, 4, 4) input: (1, 1, 4, 4, 1, 1, 4, 4)."""
    w1, b1, w2 = (lib.tensor(w) for w in weights)
    F = lib.nn.functional

    def net(image):
        hidden = lib.tanh(F.conv2d(image, w1, b1, padding=1, **kw))
        return lib.sigmoid(F.conv2d(hidden, w2, stride=2, dilation=1, **kw)).sum()

    return lib.autograd.functional.hessian(net, lib.tensor(x))


def test_hessian_of_a_tiny_cnn_wrt_its_input_matches_torch():
    rng = numpy.random.default_rng(43)
    x = rng.standard_normal((1, 1, 4, 4))
    weights = (rng.standard_normal((2, 1, 3, 3)), rng.standard_normal(2), rng.standard_normal((1, 2, 2, 2)))
    expected = reference(lambda torch: _input_hessian(torch, x, weights), {"x": x, "weights": list(weights)})
    assert expected.shape == (1, 1, 4, 4, 1, 1, 4, 4)
    numpy.testing.assert_allclose(expected, expected.transpose(4, 5, 6, 7, 0, 1, 2, 3), atol=1e-12)
    for name in NAMES:
        _close_all([numpy.asarray(_input_hessian(mg, x, weights, algorithm=name).array)], [expected], name)


class UserConv2d(mg.autograd.Function):
    """A user's conv2d, its backward written with ``nn.grad`` as in PyTorch's tutorials."""

    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return conv2d(x, weight, stride=2, padding=1)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return (mg.nn.grad.conv2d_input(x.shape, weight, grad_output, stride=2, padding=1),
                mg.nn.grad.conv2d_weight(x, weight.shape, grad_output, stride=2, padding=1))


def test_a_users_function_with_nn_grad_in_its_backward_is_twice_differentiable():
    rng = numpy.random.default_rng(44)
    arrays = (rng.standard_normal((2, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3)))
    v, u = rng.standard_normal((2, 3, 3, 3)), _directions(arrays, seed=45)
    assert gradgradcheck(UserConv2d.apply, [_leaf(a) for a in arrays], _leaf(v))

    def conv(lib, x, weight):
        if lib is mg:
            return UserConv2d.apply(x, weight)
        return lib.nn.functional.conv2d(x, weight, stride=2, padding=1)

    expected = reference(lambda torch: second_derivatives(torch, conv, arrays, v, u),
                         {"x": arrays[0], "weight": arrays[1], "v": v, "u": u})
    _close_all(second_derivatives(mg, conv, arrays, v, u), expected, "user's Function")
