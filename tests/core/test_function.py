"""The Function API: a PyTorch user's Function runs unchanged, ctx, saved tensors,
non-differentiable outputs, tuple outputs, and gradcheck (passing and failing)."""

import re
from pathlib import Path

import numpy
import pytest
from _torch import require_torch

import minigrad as mg
from minigrad.autograd import Function, gradcheck

from .helpers import to_numpy

SOURCE = (Path(__file__).parent / "pytorch_linear.py").read_text()


def load_user_code(lib_name):
    """Run the user's file as written for PyTorch ('torch'), or with only its imports changed ('minigrad')."""
    source = SOURCE
    if lib_name == "minigrad":
        source = source.replace("import torch\n", "import minigrad as torch\n")
        source = source.replace("from torch.autograd import", "from minigrad.autograd import")
        assert "minigrad" in source
    else:
        require_torch()
    namespace = {"__name__": f"user_linear_{lib_name}"}
    exec(compile(source, f"pytorch_linear.py ({lib_name})", "exec"), namespace)
    return namespace


def test_pytorch_linear_function_runs_unchanged_and_matches_torch():
    torch = require_torch()
    rng = numpy.random.default_rng(0)
    hosts = [rng.standard_normal(shape) for shape in [(5, 4), (3, 4), (3,)]]
    weight_out = rng.standard_normal((5, 3))
    results = {}
    for lib, name in ((mg, "minigrad"), (torch, "torch")):
        user = load_user_code(name)
        x, w, b = (lib.tensor(h, requires_grad=True) for h in hosts)
        out = user["linear"](x, w, b)
        assert type(out.grad_fn).__name__ == "LinearFunctionBackward"
        (out * lib.tensor(weight_out)).sum().backward()
        results[name] = [out, x.grad, w.grad, b.grad]
    for ours, theirs in zip(results["minigrad"], results["torch"]):
        numpy.testing.assert_allclose(to_numpy(ours.detach()), theirs.detach().numpy(), rtol=1e-12)


def test_pytorch_linear_function_respects_needs_input_grad():
    user = load_user_code("minigrad")
    x = mg.randn(5, 4, dtype=mg.float64)  # no gradient wanted for the input
    w = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
    b = mg.randn(3, dtype=mg.float64)
    user["linear"](x, w, b).sum().backward()
    assert x.grad is None and b.grad is None
    numpy.testing.assert_allclose(to_numpy(w.grad), numpy.tile(to_numpy(x).sum(0), (3, 1)), rtol=1e-12)
    out = user["linear"](x, w)  # bias=None: forward and backward handle the missing input
    assert out.shape == (5, 3)


def test_pytorch_linear_function_passes_gradcheck_in_both_libraries():
    torch = require_torch()
    for lib, name in ((mg, "minigrad"), (torch, "torch")):
        user = load_user_code(name)
        inputs = user["make_inputs"](0)
        assert lib.autograd.gradcheck(user["LinearFunction"].apply, inputs, eps=1e-6, atol=1e-4)


# --- ctx ------------------------------------------------------------------------------------------

class ScaledExp(Function):
    """y = exp(x * scale), with ``scale`` a free attribute on ctx and the output saved."""

    @staticmethod
    def forward(ctx, x, scale):
        assert not mg.is_grad_enabled()  # forward runs with grad mode off
        ctx.scale = scale
        y = (x * scale).exp()
        ctx.save_for_backward(y, None)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, nothing = ctx.saved_tensors
        assert nothing is None
        assert ctx.needs_input_grad == (True, False)
        return grad * y * ctx.scale, None


def test_ctx_free_attributes_and_saving_none():
    x = mg.tensor([0.0, 0.5, 1.0], dtype=mg.float64, requires_grad=True)
    y = ScaledExp.apply(x, 2.0)
    assert y.requires_grad and type(y.grad_fn).__name__ == "ScaledExpBackward"
    y.sum().backward()
    host = numpy.array([0.0, 0.5, 1.0])
    numpy.testing.assert_allclose(to_numpy(x.grad), 2.0 * numpy.exp(2.0 * host), rtol=1e-12)
    assert gradcheck(lambda t: ScaledExp.apply(t, 0.7), (x,))


def test_function_joins_the_graph_of_built_in_ops():
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    hidden = x * 3  # built-in
    y = ScaledExp.apply(hidden, 0.5)
    z = (y + x).sum()  # built-in again
    assert y.grad_fn.next_functions[0][0] is hidden.grad_fn
    z.backward()
    host = numpy.array([1.0, 2.0])
    numpy.testing.assert_allclose(to_numpy(x.grad), 3 * 0.5 * numpy.exp(1.5 * host) + 1, rtol=1e-12)


def test_function_without_grad_inputs_records_nothing():
    y = ScaledExp.apply(mg.tensor([1.0], dtype=mg.float64), 2.0)
    assert not y.requires_grad and y.grad_fn is None
    with mg.no_grad():
        z = ScaledExp.apply(mg.tensor([1.0], dtype=mg.float64, requires_grad=True), 2.0)
    assert not z.requires_grad


# --- several outputs ------------------------------------------------------------------------------

class SortValues(Function):
    """(values, indices) of a sorted 1-D tensor; indices are marked non-differentiable."""

    @staticmethod
    def forward(ctx, x):
        host = to_numpy(x)
        order = numpy.argsort(host, kind="stable")
        indices = mg.tensor(order, device=x.device)
        ctx.save_for_backward(indices)
        ctx.size = x.shape[0]
        values = x[indices]
        ctx.mark_non_differentiable(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        ctx.seen_grad_indices = grad_indices
        grad = mg.zeros(ctx.size, dtype=grad_values.dtype, device=grad_values.device)
        grad[indices] = grad_values
        return grad


def test_mark_non_differentiable():
    x = mg.tensor([3.0, 1.0, 2.0], dtype=mg.float64, requires_grad=True)
    values, indices = SortValues.apply(x)
    assert values.requires_grad and not indices.requires_grad and indices.grad_fn is None
    assert indices.tolist() == [1, 2, 0]
    (values * mg.tensor([1.0, 10.0, 100.0], dtype=mg.float64)).sum().backward()
    numpy.testing.assert_array_equal(to_numpy(x.grad), [100.0, 1.0, 10.0])
    seen = values.grad_fn.seen_grad_indices  # as PyTorch: materialised zeros for the unused output
    assert seen is None or not to_numpy(seen).any()


class SinCos(Function):
    """A tuple of two differentiable outputs: (sin x, cos x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, grad_sin, grad_cos):
        (x,) = ctx.saved_tensors
        return grad_sin * x.cos() - grad_cos * x.sin()


def test_function_returning_a_tuple():
    host = numpy.array([0.3, -1.2, 2.0])
    x = mg.tensor(host, requires_grad=True)
    s, c = SinCos.apply(x)
    assert s.grad_fn is c.grad_fn
    (2 * s + 3 * c).sum().backward()
    numpy.testing.assert_allclose(to_numpy(x.grad), 2 * numpy.cos(host) - 3 * numpy.sin(host), rtol=1e-12)
    x.grad = None
    SinCos.apply(x)[1].sum().backward()  # only one output used: the other's gradient is zeros
    numpy.testing.assert_allclose(to_numpy(x.grad), -numpy.sin(host), rtol=1e-12)
    assert gradcheck(SinCos.apply, (x,))


# --- gradcheck ------------------------------------------------------------------------------------

class WrongAtOneElement(Function):
    """z = x * y, with a backward that is wrong for y at element (1, 2) only."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        grad_y = grad * x
        grad_y[1, 2] = grad_y[1, 2] * 1.75
        return grad * y, grad_y


def test_gradcheck_names_input_element_and_both_values():
    rng = numpy.random.default_rng(1)
    host_x, host_y = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    x, y = mg.tensor(host_x, requires_grad=True), mg.tensor(host_y, requires_grad=True)
    with pytest.raises(RuntimeError) as error:
        gradcheck(WrongAtOneElement.apply, (x, y))
    message = str(error.value)
    assert "input 1" in message
    assert re.search(r"[(\[]1, 2[)\]]", message), message
    numbers = [float(n) for n in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", message)]
    correct = host_x[1, 2]  # d(x*y)/dy at the wrong element, for the output element (1, 2)
    assert any(abs(n - correct) < 1e-5 for n in numbers), message  # the numerical value
    assert any(abs(n - 1.75 * correct) < 1e-9 for n in numbers), message  # the analytic one
    assert gradcheck(WrongAtOneElement.apply, (x, y), raise_exception=False) is False


def test_gradcheck_passes_for_a_correct_function_and_checks_only_inputs_requiring_grad():
    x = mg.tensor(numpy.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
    frozen = mg.tensor(numpy.ones((2, 3)))
    assert gradcheck(lambda a, b: (a * b).tanh(), (x, frozen)) is True
    with pytest.raises(ValueError):
        gradcheck(lambda b: b * 2, (frozen,))


def test_gradcheck_perturbs_non_contiguous_and_zero_dim_inputs():
    """The finite differences must move the input itself, not a flattened copy of it."""
    host = numpy.arange(12.0).reshape(3, 4) / 10
    transposed = mg.tensor(host).t().detach().requires_grad_()  # a non-contiguous view of the data
    assert gradcheck(lambda t: (t * t).exp(), (transposed,))
    scalar = mg.tensor(0.5, dtype=mg.float64, requires_grad=True)
    assert gradcheck(lambda t: t.sin() * 3, (scalar,))
