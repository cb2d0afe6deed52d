"""``minigrad.autograd.functional`` beyond first order — ``jvp``, ``hessian``, ``hvp``, ``vhp`` and
``create_graph=True`` — against PyTorch's answers (recorded): values, the exact return structure
(Tensor, tuple, tuple of tuples), strict mode's errors, and Hessians of a small MLP's and a small
CNN's loss."""

from __future__ import annotations

import numpy as np
import pytest
from _reference import reference

import minigrad


def _same(ours, answer, rtol=1e-9, atol=1e-12) -> None:
    """``ours`` (Tensors in tuples, or lists where PyTorch's forward-mode Jacobian has lists) has the
    structure and values of PyTorch's recorded ``answer`` (arrays in lists), and carries no graph."""
    if isinstance(answer, list):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(answer), (type(ours), len(answer))
        for a, b in zip(ours, answer):
            _same(a, b, rtol, atol)
        return
    assert isinstance(ours, minigrad.Tensor) and not ours.requires_grad
    assert tuple(ours.shape) == tuple(answer.shape), (tuple(ours.shape), answer.shape)
    np.testing.assert_allclose(ours.numpy(), answer, rtol=rtol, atol=atol)


def _arrays(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for shape in shapes]


def _tensors(lib, arrays):
    return tuple(lib.tensor(a) for a in arrays)


def _given(tensors, as_tuple):
    return tensors if as_tuple else tensors[0]


# (name, function of lib -> f, input shapes, inputs given as a tuple)
SCALAR_FUNCTIONS = [
    ("polynomial", lambda lib: lambda x: (x * x * x).sum() + (x * x).sum() * 2, [(3,)], False),
    ("exp_tanh", lambda lib: lambda x: (x.exp() * x.tanh()).sum(), [(4,)], False),
    ("sin_of_a_matrix", lambda lib: lambda x: (x @ x.t()).sin().sum(), [(2, 3)], False),
    ("two_inputs", lambda lib: lambda x, y: ((x * y).pow(2) + x.exp() * y).sum(), [(3,), (3,)], True),
    ("one_input_in_a_tuple", lambda lib: lambda x: (x.sigmoid() * x).sum(), [(2, 2)], True),
    ("rosenbrock", lambda lib: lambda a, b: ((1 - a) ** 2 + 100 * (b - a * a) ** 2).sum(), [(1,), (1,)],
     True),
    ("unused_input", lambda lib: lambda x, y: (x * x).sum() * 3, [(2,), (2,)], True),
    ("linear_in_one_input", lambda lib: lambda x, y: (x * y.exp()).sum(), [(2,), (2,)], True),
]
SCALAR_IDS = [f[0] for f in SCALAR_FUNCTIONS]


@pytest.mark.parametrize("name, make, shapes, as_tuple", SCALAR_FUNCTIONS, ids=SCALAR_IDS)
def test_hessian_matches_torch(name, make, shapes, as_tuple):
    arrays = _arrays(shapes, seed=len(name))
    expected = reference(lambda torch: torch.autograd.functional.hessian(
        make(torch), _given(_tensors(torch, arrays), as_tuple)), inputs={"x": arrays})
    ours = minigrad.autograd.functional.hessian(make(minigrad), _given(_tensors(minigrad, arrays), as_tuple))
    _same(ours, expected)


@pytest.mark.parametrize("helper", ["hvp", "vhp"])
@pytest.mark.parametrize("name, make, shapes, as_tuple", SCALAR_FUNCTIONS, ids=SCALAR_IDS)
def test_hvp_and_vhp_match_torch(helper, name, make, shapes, as_tuple):
    arrays, vectors = _arrays(shapes, seed=len(name)), _arrays(shapes, seed=99)

    def compute(lib):
        function = getattr(lib.autograd.functional, helper)
        inputs, v = _given(_tensors(lib, arrays), as_tuple), _given(_tensors(lib, vectors), as_tuple)
        return function(make(lib), inputs, v)

    expected = reference(compute, inputs={"x": arrays, "v": vectors})
    _same(compute(minigrad), expected)


# (name, function of lib -> f, input shapes, inputs given as a tuple): any outputs
FUNCTIONS = [
    ("elementwise", lambda lib: lambda x: x.exp() * 2 - x.sin(), [(4,)], False),
    ("matrix", lambda lib: lambda x: (x @ x.t()).tanh(), [(2, 3)], False),
    ("two_inputs", lambda lib: lambda x, w: (x @ w.t()).sigmoid(), [(2, 3), (4, 3)], True),
    ("two_outputs", lambda lib: lambda x: (x.exp(), (x * x).sum()), [(3,)], False),
    ("two_by_two", lambda lib: lambda x, y: (x * y, (x - y).pow(2).mean()), [(3,), (3,)], True),
    ("unused_input", lambda lib: lambda x, y: x * 3, [(2,), (5,)], True),
]
IDS = [f[0] for f in FUNCTIONS]


@pytest.mark.parametrize("name, make, shapes, as_tuple", FUNCTIONS, ids=IDS)
def test_jvp_matches_torch(name, make, shapes, as_tuple):
    arrays, vectors = _arrays(shapes, seed=1), _arrays(shapes, seed=2)

    def compute(lib):
        inputs = _tensors(lib, arrays)
        return lib.autograd.functional.jvp(make(lib), _given(inputs, as_tuple),
                                           _given(_tensors(lib, vectors), as_tuple))

    expected = reference(compute, inputs={"x": arrays, "v": vectors})
    _same(compute(minigrad), expected)


@pytest.mark.parametrize("name, make, shapes, as_tuple", FUNCTIONS, ids=IDS)
def test_forward_mode_jacobian_equals_reverse_mode(name, make, shapes, as_tuple):
    """jacobian(strategy="forward-mode") is built column by column from jvps (the double-backward
    trick); it must equal the reverse-mode Jacobian, and PyTorch's."""
    arrays = _arrays(shapes, seed=3)
    expected = reference(lambda torch: torch.autograd.functional.jacobian(
        make(torch), _given(_tensors(torch, arrays), as_tuple), vectorize=True, strategy="forward-mode"),
        inputs={"x": arrays})
    functional = minigrad.autograd.functional
    inputs = _given(_tensors(minigrad, arrays), as_tuple)
    forward = functional.jacobian(make(minigrad), inputs, vectorize=True, strategy="forward-mode")
    _same(forward, expected)
    _same(functional.jacobian(make(minigrad), _given(_tensors(minigrad, arrays), as_tuple)), expected)


def test_jvp_and_hvp_without_v_for_a_one_element_input():
    x = np.array([0.7])

    def compute(lib):
        functional = lib.autograd.functional
        return (functional.jvp(lambda t: t.exp() * 3, lib.tensor(x)),
                functional.hvp(lambda t: t.pow(4).sum(), lib.tensor(x)))

    _same(compute(minigrad), reference(compute, inputs={"x": x}))


@pytest.mark.parametrize("as_tuple", [False, True], ids=["tensor", "tuple"])
def test_hessian_shapes_as_torch(as_tuple):
    """One input of shape S: a Tensor of shape S + S; a tuple of inputs: a tuple (per input) of tuples."""
    arrays = _arrays([(2, 3), (4,)] if as_tuple else [(2, 3)], seed=5)

    def f(*xs):
        return sum(((x * x).sum() * x.sum()) for x in xs)

    def compute(lib):
        inputs = _tensors(lib, arrays)
        return lib.autograd.functional.hessian(f, _given(inputs, as_tuple))

    expected = reference(compute, inputs={"x": arrays})
    ours = compute(minigrad)
    _same(ours, expected)
    if as_tuple:
        assert [[tuple(block.shape) for block in row] for row in ours] == [[(2, 3, 2, 3), (2, 3, 4)],
                                                                          [(4, 2, 3), (4, 4)]]
    else:
        assert tuple(ours.shape) == (2, 3, 2, 3)


def _mlp_loss(lib, x, y, w2):
    F = lib.nn.functional  # noqa: N806
    return lambda w1, b1: F.cross_entropy(F.linear(F.linear(x, w1, b1).tanh(), w2), y)


def test_hessian_of_a_small_mlp_loss_with_respect_to_its_first_layer():
    rng = np.random.default_rng(11)
    x, w1, b1, w2 = (rng.standard_normal(s) for s in [(5, 3), (4, 3), (4,), (3, 4)])
    y = np.array([0, 2, 1, 1, 0])

    def compute(lib):
        loss = _mlp_loss(lib, lib.tensor(x), lib.tensor(y), lib.tensor(w2))
        return lib.autograd.functional.hessian(loss, (lib.tensor(w1), lib.tensor(b1)))

    expected = reference(compute, inputs={"x": x, "w1": w1, "b1": b1, "w2": w2, "y": y})
    ours = compute(minigrad)
    _same(ours, expected, rtol=1e-8, atol=1e-12)
    hessian = np.block([[ours[0][0].numpy().reshape(12, 12), ours[0][1].numpy().reshape(12, 4)],
                        [ours[1][0].numpy().reshape(4, 12), ours[1][1].numpy()]])
    np.testing.assert_allclose(hessian, hessian.T, atol=1e-12)  # symmetric, as a Hessian must be


def test_hvp_of_a_small_conv_net():
    """H v of a CNN's loss with respect to its convolution's weight: stride, padding, groups, tanh, a
    linear head and cross-entropy."""
    rng = np.random.default_rng(12)
    x, w = rng.standard_normal((2, 2, 5, 5)), rng.standard_normal((4, 1, 3, 3))
    head = rng.standard_normal((3, 36))
    v = rng.standard_normal(w.shape)
    y = np.array([2, 0])

    def compute(lib):
        F = lib.nn.functional  # noqa: N806

        def loss(weight):
            features = F.conv2d(lib.tensor(x), weight, stride=2, padding=1, groups=2).tanh()
            return F.cross_entropy(F.linear(features.flatten(1), lib.tensor(head)), lib.tensor(y))

        return lib.autograd.functional.hvp(loss, lib.tensor(w), lib.tensor(v))

    expected = reference(compute, inputs={"x": x, "w": w, "head": head, "v": v, "y": y})
    _same(compute(minigrad), expected, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("helper", ["vjp", "jacobian", "jvp", "hessian", "hvp", "vhp"])
def test_create_graph_returns_results_that_differentiate_again(helper):
    """With create_graph=True the result stays linked to the inputs: differentiating its sum gives
    one order more, as PyTorch's."""
    a = np.array([0.3, -1.2, 0.8])

    def compute(lib):
        x = lib.tensor(a, requires_grad=True)
        functional = lib.autograd.functional
        scalar = helper in ("hessian", "hvp", "vhp")
        f = (lambda t: (t.exp() * t * t).sum()) if scalar else (lambda t: t.sin() * t)
        v = lib.ones(3, dtype=lib.float64)
        result = {"vjp": lambda: functional.vjp(f, x, v, create_graph=True)[1],
                  "jacobian": lambda: functional.jacobian(f, x, create_graph=True),
                  "jvp": lambda: functional.jvp(f, x, v, create_graph=True)[1],
                  "hessian": lambda: functional.hessian(f, x, create_graph=True),
                  "hvp": lambda: functional.hvp(f, x, v, create_graph=True)[1],
                  "vhp": lambda: functional.vhp(f, x, v, create_graph=True)[1]}[helper]()
        assert result.requires_grad
        (higher,) = lib.autograd.grad(result.pow(2).sum(), x)
        return [result.detach(), higher]

    expected = reference(compute, inputs={"x": a})
    ours = compute(minigrad)
    _same(tuple(ours), expected)


def test_without_create_graph_the_inputs_are_left_alone():
    x = minigrad.tensor([0.5, 2.0], dtype=minigrad.float64, requires_grad=True)
    functional = minigrad.autograd.functional
    h = functional.hessian(lambda t: (t ** 3).sum(), x)
    _, hv = functional.hvp(lambda t: (t ** 3).sum(), x, minigrad.ones(2, dtype=minigrad.float64))
    assert not h.requires_grad and not hv.requires_grad and x.grad is None
    np.testing.assert_allclose(h.numpy(), np.diag([3.0, 12.0]))
    np.testing.assert_allclose(hv.numpy(), [3.0, 12.0])


# --- strict mode and bad arguments: PyTorch's exception and message --------------------------------

def _raises_as_torch(call) -> None:
    """``call(lib)`` raises the same exception type with the same message in both libraries (shapes
    print as ``minigrad.Size`` where PyTorch's say ``torch.Size``)."""
    def outcome(lib):
        try:
            call(lib)
        except Exception as error:  # noqa: BLE001 (the exception is the answer)
            return [type(error).__name__, str(error)]
        return ["no error", ""]

    expected = reference(outcome)
    assert expected[0] != "no error"
    assert outcome(minigrad) == [expected[0], expected[1].replace("torch.Size", "minigrad.Size")]


def _two(lib):
    return lib.tensor([1.0, 2.0], dtype=lib.float64), lib.tensor([3.0, 4.0], dtype=lib.float64)


STRICT = [
    ("vjp_independent_input", lambda f, x, y: f.vjp(lambda a, b: (a * 2).sum(), (x, y), strict=True)),
    ("jvp_independent_input", lambda f, x, y: f.jvp(lambda a, b: a * 2, (x, y), (x, y), strict=True)),
    ("jacobian_independent_input", lambda f, x, y: f.jacobian(lambda a, b: a * 2, (x, y), strict=True)),
    ("jacobian_constant_output", lambda f, x, y: f.jacobian(lambda a: y * 2, x, strict=True)),
    ("jacobian_strict_create_graph", lambda f, x, y: f.jacobian(lambda a: a * 2, x, strict=True,
                                                                  create_graph=True)),
    ("hessian_linear", lambda f, x, y: f.hessian(lambda a: (a * 3).sum(), x, strict=True)),
    ("hessian_independent_input", lambda f, x, y: f.hessian(lambda a, b: (a * a).sum(), (x, y), strict=True)),
    ("vhp_linear", lambda f, x, y: f.vhp(lambda a: (a * 3).sum(), x, y, strict=True)),
    ("hvp_linear", lambda f, x, y: f.hvp(lambda a: (a * 3).sum(), x, y, strict=True)),
    ("hvp_independent_input", lambda f, x, y: f.hvp(lambda a, b: (a * a).sum(), (x, y), (x, y), strict=True)),
    ("vhp_quadratic_create_graph", lambda f, x, y: f.vhp(lambda a: (a * a).sum(), x, y, strict=True,
                                                          create_graph=True)),
]


@pytest.mark.parametrize("name, call", STRICT, ids=[s[0] for s in STRICT])
def test_strict_mode_errors_as_torch(name, call):
    _raises_as_torch(lambda lib: call(lib.autograd.functional, *_two(lib)))


BAD = [
    ("hessian_of_a_vector", lambda f, x, y: f.hessian(lambda a: a * a, x)),
    ("hessian_of_a_tuple", lambda f, x, y: f.hessian(lambda a: ((a * a).sum(),), x)),
    ("hvp_of_a_vector", lambda f, x, y: f.hvp(lambda a: a * a, x, y)),
    ("vhp_of_a_tuple", lambda f, x, y: f.vhp(lambda a: ((a * a).sum(), a.sum()), x, y)),
    ("hvp_without_v", lambda f, x, y: f.hvp(lambda a: (a * a).sum(), x)),
    ("jvp_without_v", lambda f, x, y: f.jvp(lambda a: a * a, x)),
    ("jvp_v_wrong_shape", lambda f, x, y: f.jvp(lambda a: a * a, x, y[:1])),
    ("vhp_v_wrong_length", lambda f, x, y: f.vhp(lambda a, b: (a * b).sum(), (x, y), (x,))),
    ("hvp_v_for_one_input", lambda f, x, y: f.hvp(lambda a: (a * a).sum(), x, (x, y))),
    ("hessian_input_not_a_tensor", lambda f, x, y: f.hessian(lambda a: (a * a).sum(), 3.0)),
    ("hessian_strategy", lambda f, x, y: f.hessian(lambda a: (a * a).sum(), x, outer_jacobian_strategy="up")),
    ("forward_mode_not_vectorized", lambda f, x, y: f.jacobian(lambda a: a * a, x, strategy="forward-mode")),
    ("forward_mode_strict", lambda f, x, y: f.jacobian(lambda a: a * a, x, strategy="forward-mode",
                                                       vectorize=True, strict=True)),
    ("forward_mode_create_graph", lambda f, x, y: f.jacobian(lambda a: a * a, x, strategy="forward-mode",
                                                             vectorize=True, create_graph=True)),
]


@pytest.mark.parametrize("name, call", BAD, ids=[b[0] for b in BAD])
def test_bad_arguments_raise_as_torch(name, call):
    _raises_as_torch(lambda lib: call(lib.autograd.functional, *_two(lib)))


def test_hessian_with_a_forward_mode_outer_jacobian():
    a = np.array([0.4, -0.9, 1.3])
    f = lambda t: (t.exp() * t.sin()).sum()  # noqa: E731
    expected = reference(lambda torch: torch.autograd.functional.hessian(
        f, torch.tensor(a), vectorize=True, outer_jacobian_strategy="forward-mode"), inputs={"x": a})
    ours = minigrad.autograd.functional.hessian(f, minigrad.tensor(a), vectorize=True,
                                                outer_jacobian_strategy="forward-mode")
    _same(ours, expected)


def test_grad_of_outputs_of_which_one_is_computed_from_another():
    """vhp differentiates all the gradients at once, and one may be computed from another (after
    ``b - a``, ∂f/∂a = -∂f/∂b): a root of the backward pass that also lies below another root."""
    a = np.array([0.3, -0.4])

    def compute(lib):
        x = lib.tensor(a, requires_grad=True)
        z = x * 2
        w = -z
        ones = lib.ones(2, dtype=lib.float64)
        first = lib.autograd.grad((z, w), x, (ones, 3 * ones))
        z = x.exp()
        w = z.sin()
        lib.autograd.backward((w, z), (ones, 2 * ones))
        return [first[0], x.grad]

    _same(tuple(compute(minigrad)), reference(compute, inputs={"x": a}))


def test_a_jacobian_penalty_on_an_mlp_is_differentiated_with_respect_to_its_weights():
    """The contractive penalty ‖∂h/∂x‖², computed with jacobian(create_graph=True), then its gradient
    with respect to the first layer's weight and bias: a third derivative of the layer."""
    rng = np.random.default_rng(21)
    x, w1, b1, w2 = (rng.standard_normal(s) for s in [(3,), (5, 3), (5,), (2, 5)])

    def compute(lib):
        F = lib.nn.functional  # noqa: N806
        weight, bias = lib.tensor(w1, requires_grad=True), lib.tensor(b1, requires_grad=True)

        def network(inputs):
            return F.linear(F.linear(inputs, weight, bias).sigmoid(), lib.tensor(w2))

        jac = lib.autograd.functional.jacobian(network, lib.tensor(x), create_graph=True)
        penalty = (jac ** 2).sum()
        return [jac.detach(), *lib.autograd.grad(penalty, (weight, bias))]

    expected = reference(compute, inputs={"x": x, "w1": w1, "b1": b1, "w2": w2})
    _same(tuple(compute(minigrad)), expected, rtol=1e-8, atol=1e-12)


def test_jvp_of_a_small_conv_net_with_respect_to_its_input():
    """J v of a CNN's logits with respect to the image (batch 1, odd sizes, stride 2, dilation 2, max
    pooling), by the double-backward trick: the backward pass differentiated once more."""
    rng = np.random.default_rng(22)
    x, w = rng.standard_normal((1, 2, 9, 7)), rng.standard_normal((3, 2, 3, 3))
    head, v = rng.standard_normal((4, 3)), rng.standard_normal((1, 2, 9, 7))

    def compute(lib):
        F = lib.nn.functional  # noqa: N806

        def logits(image):
            features = F.max_pool2d(F.conv2d(image, lib.tensor(w), stride=2, dilation=2).relu(), 2)
            return F.linear(features.flatten(1), lib.tensor(head))

        return lib.autograd.functional.jvp(logits, lib.tensor(x), lib.tensor(v))

    expected = reference(compute, inputs={"x": x, "w": w, "head": head, "v": v})
    _same(compute(minigrad), expected, rtol=1e-8, atol=1e-12)


def test_vectorize_is_accepted_and_gives_pytorchs_answer():
    """``vectorize=True`` (vmap in PyTorch) loops here: the same Jacobian and Hessian."""
    arrays = _arrays([(3,), (2,)], seed=31)

    def compute(lib):
        inputs = _tensors(lib, arrays)
        functional = lib.autograd.functional
        return (functional.jacobian(lambda a, b: (a.exp() * b.sum(), a * a), inputs, vectorize=True),
                functional.hessian(lambda a, b: (a.sin() * b.sum() ** 2).sum(), inputs, vectorize=True))

    _same(compute(minigrad), reference(compute, inputs={"x": arrays}))
