"""``gradgradcheck``: PyTorch's signature and verdicts — it passes a Function whose backward is
differentiable, catches a backward whose own derivative is wrong (where ``gradcheck`` cannot),
refuses ``@once_differentiable`` as PyTorch does, and its random ``grad_outputs`` are seeded."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from _reference import reference

import minigrad
from minigrad.autograd import Function, GradcheckError, gradcheck, gradgradcheck
from minigrad.autograd.function import once_differentiable


def test_the_signature_is_pytorchs():
    expected = reference(lambda torch: [[name, repr(p.default), p.kind.name] for name, p in
                                        inspect.signature(torch.autograd.gradgradcheck).parameters.items()])
    ours = [[name, repr(p.default), p.kind.name]
            for name, p in inspect.signature(gradgradcheck).parameters.items()]
    assert ours == expected


def test_importable_where_pytorch_has_it():
    from minigrad.autograd.gradcheck import gradgradcheck as from_module

    assert from_module is minigrad.autograd.gradgradcheck is gradgradcheck


def _cube(detach_in_backward: bool):
    class Cube(Function):
        """y = x³;  dy/dx = 3x², written with tensor operations so that it is differentiable again."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            if detach_in_backward:  # the first derivative is right, but its graph is cut
                x = x.detach()
            return grad * 3 * x ** 2

    return Cube


def _input():
    return minigrad.tensor(np.random.default_rng(0).standard_normal((2, 3)), requires_grad=True)


def test_a_function_with_a_differentiable_backward_passes():
    x = _input()
    assert gradcheck(_cube(False).apply, (x,))
    assert gradgradcheck(_cube(False).apply, (x,))


def test_a_backward_cut_from_the_graph_passes_gradcheck_and_fails_gradgradcheck():
    """With ``x.detach()`` inside backward, d(3x²·g)/dx is lost: the second derivative is 0, not 6x·g."""
    x = _input()
    cube = _cube(True)
    assert gradcheck(cube.apply, (x,))
    with pytest.raises(GradcheckError, match=r"Jacobian mismatch for output 0 with respect to input 0"):
        gradgradcheck(cube.apply, (x,))
    assert gradgradcheck(cube.apply, (x,), raise_exception=False) is False


def test_given_grad_outputs_are_used_and_checked_too():
    x = _input()
    g = minigrad.tensor(np.random.default_rng(1).standard_normal((2, 3)), requires_grad=True)
    assert gradgradcheck(_cube(False).apply, (x,), (g,))
    assert gradgradcheck(lambda t: (t * t).sum(), x, minigrad.tensor(0.5, dtype=minigrad.float64))


def test_random_grad_outputs_are_seeded_and_leave_the_global_generator_alone():
    minigrad.manual_seed(3)
    before = minigrad.rand(4)
    minigrad.manual_seed(3)
    seen = []

    class Recorder(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            seen.append(grad.detach().numpy().copy())
            return grad * 2

    x = _input()
    assert gradgradcheck(lambda t: Recorder.apply(t.exp()), (x,))
    first = seen[0]
    seen.clear()
    assert gradgradcheck(lambda t: Recorder.apply(t.exp()), (x,))
    np.testing.assert_array_equal(seen[0], first)  # the same grad_outputs on every call
    assert np.all(np.abs(first) <= 1) and np.ptp(first) > 0  # uniform in [-1, 1), not a constant
    np.testing.assert_array_equal(minigrad.rand(4).numpy(), before.numpy())


def test_a_once_differentiable_backward_is_refused_as_pytorch():
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            return grad * 2

    x = _input()
    assert gradcheck(Double.apply, (x,))
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        gradgradcheck(Double.apply, (x,))


@pytest.mark.parametrize("options", [
    {"check_fwd_over_rev": False, "check_rev_over_rev": False},
    {"check_undefined_grad": True, "check_rev_over_rev": False, "check_fwd_over_rev": True},
    {"check_batched_grad": True, "check_undefined_grad": False, "check_rev_over_rev": False,
     "check_fwd_over_rev": True},
], ids=["neither", "undefined_grad", "batched_grad"])
def test_inconsistent_options_are_refused_as_pytorch(options):
    def outcome(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        try:
            lib.autograd.gradgradcheck(lambda t: t * t, (x,), **options)
        except AssertionError as error:
            return str(error)
        return "no error"

    assert outcome(minigrad) == reference(outcome)


def test_second_derivatives_of_a_composite_match_finite_differences():
    x = _input()
    w = minigrad.tensor(np.random.default_rng(2).standard_normal((4, 3)), requires_grad=True)
    assert gradgradcheck(lambda a, b: (a @ b.t()).tanh() * a.sum(), (x, w))


def test_forward_over_reverse_is_unsupported_on_purpose():
    with pytest.raises(NotImplementedError, match="docs/compatibility.md"):
        gradgradcheck(lambda t: t * t, (_input(),), check_fwd_over_rev=True)
