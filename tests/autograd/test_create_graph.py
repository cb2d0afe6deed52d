"""The engine under ``create_graph=True``: the backward pass is recorded, so gradients have a
history and can be differentiated again, to any order; without it nothing extra is recorded.

Each case runs the same code on minigrad and on PyTorch and compares values, ``requires_grad``
and node names (PyTorch's answers live, or replayed from tests/reference/records).
"""

from __future__ import annotations

import numpy as np
import pytest
from _reference import reference

import minigrad

X = np.array([0.5, -1.25, 2.0])


def _names(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def _array(t):
    return None if t is None else t.detach().cpu().numpy()


def leaf_grad_history(lib):
    """``backward(create_graph=True)`` twice: ``.grad`` is a copy with a history, then a recorded sum."""
    x = lib.tensor(X, requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    first = (_array(x.grad), _names(x.grad), x.grad.requires_grad)
    (x ** 3).sum().backward(create_graph=True)
    second = (_array(x.grad), _names(x.grad))
    (dx2,) = lib.autograd.grad(x.grad.sum(), x)  # d/dx of 2 · 3x² = 12x
    return {"first": first, "second": second, "dx2": _array(dx2)}


def third_order(lib):
    """d/dx, d²/dx², d³/dx³ of Σ x⁴ by repeated ``grad(create_graph=True)``."""
    x = lib.tensor(X, requires_grad=True)
    (d1,) = lib.autograd.grad((x ** 4).sum(), x, create_graph=True)
    (d2,) = lib.autograd.grad(d1.sum(), x, create_graph=True)
    (d3,) = lib.autograd.grad(d2.sum(), x)
    return [_array(d1), _array(d2), _array(d3), d3.requires_grad]


def saved_output(lib):
    """exp saves its output; the recorded backward ``grad · y`` must reach x through y."""
    x = lib.tensor(X, requires_grad=True)
    y = x.exp() * x.tanh()
    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = lib.autograd.grad(g.sum(), x)
    return [_array(g), _array(h)]


def used_twice(lib):
    """x reaches the output along two paths: the two recorded gradients are summed in the graph."""
    x = lib.tensor(X, requires_grad=True)
    y = (x * x.sin()).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    (h,) = lib.autograd.grad((g * g).sum(), x)
    return [_array(g), _array(h), _names(g) is not None]


def retain_graph_follows_create_graph(lib):
    """``retain_graph`` defaults to ``create_graph``: the graph may be walked again."""
    x = lib.tensor(X, requires_grad=True)
    y = (x.exp() * x).sum()
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    (again,) = lib.autograd.grad(y, x)  # no "backward through the graph a second time" error
    return [_array(g), _array(again)]


def first_order_records_nothing(lib):
    """Without ``create_graph`` the gradient has no history and does not require grad."""
    x = lib.tensor(X, requires_grad=True)
    (x.exp() * x).sum().backward()
    (g,) = lib.autograd.grad((x.tanh() * 2).sum(), x)
    return [x.grad.requires_grad, _names(x.grad), g.requires_grad, _names(g)]


def retained_and_hooked(lib):
    """A retained non-leaf's ``.grad`` and a hook's argument are recorded tensors too."""
    x = lib.tensor(X, requires_grad=True)
    h = x.sin()
    h.retain_grad()
    seen = []
    h.register_hook(lambda grad: seen.append(grad.requires_grad))
    (h * h).sum().backward(create_graph=True)
    (d,) = lib.autograd.grad(h.grad.sum(), x)  # h.grad = 2h = 2 sin x  ->  2 cos x
    return [h.grad.requires_grad, seen, _array(d)]


def gradient_penalty(lib):
    """WGAN-GP's pattern: the gradient's norm w.r.t. the input, penalised, then backward to the weights."""
    gen = np.random.default_rng(0)
    w1 = lib.tensor(gen.standard_normal((4, 3)), requires_grad=True)
    w2 = lib.tensor(gen.standard_normal((1, 4)), requires_grad=True)
    x = lib.tensor(gen.standard_normal((5, 3)), requires_grad=True)
    out = (x @ w1.t()).tanh() @ w2.t()
    (g,) = lib.autograd.grad(out.sum(), x, create_graph=True)
    penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
    penalty.backward()
    return [_array(penalty), _array(w1.grad), _array(w2.grad)]


CASES = [leaf_grad_history, third_order, saved_output, used_twice, retain_graph_follows_create_graph,
         first_order_records_nothing, retained_and_hooked, gradient_penalty]


def _same(ours, theirs, what):
    if isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs), what
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{what}[{i}]")
    elif isinstance(theirs, dict):
        assert set(ours) == set(theirs), what
        for key in theirs:
            _same(ours[key], theirs[key], f"{what}[{key}]")
    elif isinstance(theirs, np.ndarray):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12, err_msg=what)
    else:
        assert ours == theirs, f"{what}: minigrad {ours!r}, PyTorch {theirs!r}"


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_create_graph_like_torch(case):
    def compute(torch):
        torch.set_default_dtype(torch.float64)
        try:
            return case(torch)
        finally:
            torch.set_default_dtype(torch.float32)

    theirs = reference(compute)
    with _Float64():
        ours = case(minigrad)
    _same(ours, theirs, case.__name__)


class _Float64:
    def __enter__(self):
        self.previous = minigrad.get_default_dtype()
        minigrad.set_default_dtype(minigrad.float64)

    def __exit__(self, *exc):
        minigrad.set_default_dtype(self.previous)


def _user_functions(lib, refuse: str):
    """y = x² as a user's Function, whose backward is ``grad · 2x`` in tensor ops (differentiable),
    or marked ``@once_differentiable`` / ``differentiable_backward = False`` (refused twice)."""

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x

    if refuse == "decorator":
        backward = lib.autograd.function.once_differentiable(backward)

    class Square(lib.autograd.Function):
        differentiable_backward = refuse != "attribute"

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

    Square.backward = staticmethod(backward)
    return Square


def test_user_function_is_differentiated_twice():
    x = minigrad.tensor(X, requires_grad=True)
    (g,) = minigrad.autograd.grad(_user_functions(minigrad, "").apply(x).sum(), x, create_graph=True)
    (h,) = minigrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.numpy(force=True), 2 * X)
    np.testing.assert_allclose(h.numpy(), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("refuse", ["decorator", "attribute"])
def test_backward_that_is_not_differentiable_refuses(refuse):
    """Differentiating a once-differentiable backward raises PyTorch's error, never a silent zero."""
    x = minigrad.tensor(X, requires_grad=True)
    y = _user_functions(minigrad, refuse).apply(x)
    # PyTorch's decorator refuses only where a gradient flowing in requires grad; a built-in op's
    # refusal (the attribute) also covers what it saved
    v = minigrad.ones(3, dtype=minigrad.float64, requires_grad=refuse == "decorator")
    (g,) = minigrad.autograd.grad(y, x, v, create_graph=True)
    np.testing.assert_allclose(g.numpy(force=True), 2 * X)
    with pytest.raises(RuntimeError, match="differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        minigrad.autograd.grad(g.sum(), x)


def test_builtin_ops_declare_a_differentiable_backward():
    """Every built-in op's backward is written in tensor operations (so it can be recorded)."""
    from minigrad.autograd.function import BUILTIN_PACKAGES, Function

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    builtin = {cls for cls in subclasses(Function) if cls.__module__.startswith(BUILTIN_PACKAGES)}
    refused = sorted(cls.__qualname__ for cls in builtin if not cls._backward_is_differentiable)
    assert refused == sorted(ONCE_DIFFERENTIABLE), refused


# Built-in Functions whose backward is not twice differentiable, as in PyTorch (each refuses).
ONCE_DIFFERENTIABLE = ["_DelayedError"]


def test_hooks_see_the_users_numpy_settings():
    """The pass silences inf/nan for minigrad's own arithmetic; a hook runs under the user's settings."""
    x = minigrad.tensor([0.0, 1.0], requires_grad=True)
    y = x.log()  # d/dx log x at 0 is inf: silent, as in PyTorch
    raised = []

    def hook(grad):
        try:
            np.float64(1.0) / np.zeros(1)
        except FloatingPointError:
            raised.append(True)

    y.register_hook(hook)
    with np.errstate(divide="raise"):
        y.sum().backward()
    assert raised == [True]
    assert np.isinf(x.grad.numpy()[0])
