"""PyTorch 2's Function API on minigrad: ``setup_context``, ``set_materialize_grads``,
``once_differentiable``, ``mark_dirty``, ``mark_non_differentiable`` and ``save_for_forward``.

Each Function is written once against a library ``lib`` (``minigrad`` or ``torch``) in the style
of PyTorch's "Extending PyTorch" note, run on both, and compared: values, gradients, node names
and errors; differentiable ones also pass gradcheck in float64.
"""

from __future__ import annotations

import numpy as np
import pytest
from _torch import require_torch

import minigrad
from minigrad.autograd import gradcheck


def _function_module(lib):
    return lib.autograd.function if lib is not minigrad else minigrad.autograd.function


def affine_function(lib):
    """y = x Wᵀ + b in the PyTorch 2 form: ``forward`` without ctx, ``setup_context`` saves."""

    class Affine(lib.autograd.Function):
        @staticmethod
        def forward(x, weight, bias=None):
            y = x.mm(weight.t())
            return y if bias is None else y + bias

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, weight, bias = inputs
            ctx.save_for_backward(x, weight)
            ctx.has_bias = bias is not None

        @staticmethod
        def backward(ctx, grad):
            x, weight = ctx.saved_tensors
            grad_x = grad.mm(weight) if ctx.needs_input_grad[0] else None
            grad_w = grad.t().mm(x) if ctx.needs_input_grad[1] else None
            grad_b = grad.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
            return grad_x, grad_w, grad_b

    return Affine


def scale_function(lib):
    """y = c · x for a Python number c (a non-tensor argument gets None as its gradient)."""

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(x, c):
            return x * c

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.c = inputs[1]

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.c, None

    return Scale


def _arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for shape in shapes]


def _leaves(lib, arrays):
    return [lib.tensor(a, requires_grad=True) for a in arrays]


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("batch", [1, 5])
def test_setup_context_function_matches_torch_and_gradcheck(with_bias, batch):
    torch = require_torch()
    arrays = _arrays((batch, 3), (4, 3), (4,))
    results = {}
    for lib in (minigrad, torch):
        x, w, b = _leaves(lib, arrays)
        y = affine_function(lib).apply(x, w, b if with_bias else None)
        assert type(y.grad_fn).__name__ == "AffineBackward"
        (y * y).sum().backward()
        results[lib.__name__] = [y.detach(), x.grad, w.grad, b.grad]
    for ours, theirs in zip(results["minigrad"], results["torch"]):
        if theirs is None:
            assert ours is None
        else:
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    x, w, b = _leaves(minigrad, arrays)
    assert gradcheck(affine_function(minigrad).apply, (x, w, b if with_bias else None))


def test_setup_context_with_a_number_argument():
    torch = require_torch()
    (a,) = _arrays((3,))
    grads = []
    for lib in (minigrad, torch):
        x = lib.tensor(a, requires_grad=True)
        y = scale_function(lib).apply(x, 2.5)
        assert len(y.grad_fn.next_functions) == 1  # the number is no input of the node
        y.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1])
    assert gradcheck(scale_function(minigrad).apply, (minigrad.tensor(a, requires_grad=True), -1.5))


def test_a_gradient_for_a_number_argument_is_refused_as_in_torch():
    torch = require_torch()
    messages = []
    for lib in (minigrad, torch):
        class Wrong(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, c):
                return x * c

            @staticmethod
            def backward(ctx, grad):
                return grad * 2, grad

        with pytest.raises(RuntimeError, match="a gradient different than None at position 2") as info:
            Wrong.apply(lib.ones(2, requires_grad=True), 2.0).sum().backward()
        messages.append(str(info.value).replace("WrongBackward", "X"))
    assert messages[0].startswith("function X returned a gradient different than None at position 2")


def test_setup_context_not_overridden_keeps_the_ctx_form():
    class Double(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark = "seen"
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            assert ctx.mark == "seen"
            return grad * 2

    x = minigrad.ones(3, requires_grad=True)
    Double.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def two_copies_function(lib, materialize):
    """(x, x) as two outputs; backward sees None for an unused output when materialize is off."""
    seen = []

    class TwoCopies(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            ctx.save_for_backward(x)
            return x.clone(), x.clone()

        @staticmethod
        def backward(ctx, grad_first, grad_second):
            seen.append((grad_first, grad_second))
            (x,) = ctx.saved_tensors
            total = lib.zeros_like(x)
            if grad_first is not None:
                total = total + grad_first
            if grad_second is not None:
                total = total + x * grad_second
            return total

    return TwoCopies, seen


@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads(materialize):
    torch = require_torch()
    received = {}
    for lib in (minigrad, torch):
        function, seen = two_copies_function(lib, materialize)
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        first, _ = function.apply(x)
        first.sum().backward()
        (grad_first, grad_second), = seen
        received[lib.__name__] = (grad_first.tolist(), None if grad_second is None else grad_second.tolist())
        np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])
    assert received["minigrad"] == received["torch"]
    assert (received["minigrad"][1] is None) == (not materialize)


def sort_function(lib):
    """Sorted values and their indices; the indices are marked non-differentiable."""

    class SortWithIndices(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            values, indices = x.sort()
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            ctx.size = x.shape[0]
            return values, indices

        @staticmethod
        @_function_module(lib).once_differentiable
        def backward(ctx, grad_values, grad_indices):
            (indices,) = ctx.saved_tensors
            grad = lib.zeros(ctx.size, dtype=grad_values.dtype)
            grad[indices] = grad_values
            return grad

    return SortWithIndices


def test_mark_non_differentiable_and_once_differentiable_match_torch():
    torch = require_torch()
    (a,) = _arrays((5,), seed=3)
    grads = []
    for lib in (minigrad, torch):
        x = lib.tensor(a, requires_grad=True)
        values, indices = sort_function(lib).apply(x)
        assert values.requires_grad and not indices.requires_grad
        (values * lib.arange(5, dtype=values.dtype)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1])
    assert gradcheck(lambda t: sort_function(minigrad).apply(t)[0], (minigrad.tensor(a, requires_grad=True),))


def test_mark_non_differentiable_marks_only_the_tensors_given_also_for_one_output():
    """A single output stays differentiable when another tensor was marked, and not when it was."""
    torch = require_torch()

    def doubling(lib, mark_output):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_non_differentiable(y if mark_output else lib.zeros(1))
                return y

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        return Double

    for mark_output in (False, True):
        flags = [doubling(lib, mark_output).apply(lib.ones(2, requires_grad=True)).requires_grad
                 for lib in (minigrad, torch)]
        assert flags == [not mark_output] * 2, (mark_output, flags)


def test_non_differentiable_output_receives_zeros_when_materialized():
    seen = []

    class ValuesAndMask(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            mask = (x > 0).double()
            ctx.mark_non_differentiable(mask)
            return x * 3, mask

        @staticmethod
        def backward(ctx, grad_values, grad_mask):
            seen.append(grad_mask)
            return grad_values * 3

    x = minigrad.tensor([1.0, -1.0], dtype=minigrad.float64, requires_grad=True)
    values, mask = ValuesAndMask.apply(x)
    assert mask.grad_fn is None and not mask.requires_grad
    values.sum().backward()
    assert seen[0].tolist() == [0.0, 0.0] and x.grad.tolist() == [3.0, 3.0]


def test_once_differentiable_refuses_a_second_differentiation():
    """Where the backward would be recorded (grad mode on, a gradient that requires grad), its result
    raises PyTorch's error when differentiated."""
    function = sort_function(minigrad)
    x = minigrad.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, _ = function.apply(x)
    grad_values = minigrad.ones(3, requires_grad=True)
    result = values.grad_fn.apply(grad_values, None)  # the decorated backward, with grad mode on
    assert result.grad_fn.name() == "DelayedError" and result.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        result.sum().backward()
    with minigrad.no_grad():  # without a graph to record the result is plain
        assert values.grad_fn.apply(grad_values, None).grad_fn is None


def test_once_differentiable_is_importable_where_pytorch_has_it():
    from minigrad.autograd.function import once_differentiable  # noqa: PLC0415

    assert minigrad.autograd.once_differentiable is once_differentiable


def add_one_in_place(lib):
    """x += 1 inside forward, declared with mark_dirty; dy/dx = 1."""

    class AddOneInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.no_grad():
                x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    return AddOneInPlace


def test_mark_dirty_rebases_the_tensor_and_bumps_its_version_as_torch():
    torch = require_torch()
    (a,) = _arrays((3,), seed=5)
    results = []
    for lib in (minigrad, torch):
        leaf = lib.tensor(a, requires_grad=True)
        x = leaf * 2
        version = x._version
        y = add_one_in_place(lib).apply(x)
        assert y is x and x._version == version + 2  # add_ in forward, then mark_dirty: as PyTorch
        assert x.grad_fn.name() == "AddOneInPlaceBackward"
        assert x.grad_fn.next_functions[0][0].name() == "MulBackward0"
        (x * x).sum().backward()
        results.append((x.detach().numpy().copy(), leaf.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs)


def test_mark_dirty_makes_a_saved_old_value_an_error_as_torch():
    torch = require_torch()
    for lib in (minigrad, torch):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True).clone()
        square = x * x  # saves x
        add_one_in_place(lib).apply(x)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            square.sum().backward()


def test_mark_dirty_on_a_leaf_that_requires_grad_is_refused_as_torch():
    torch = require_torch()
    for lib in (minigrad, torch):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an "
                                               "in-place operation"):
            add_one_in_place(lib).apply(lib.zeros(2, requires_grad=True))


def test_mark_dirty_on_a_view_rebases_its_base_as_torch():
    torch = require_torch()
    (a,) = _arrays((2, 3), seed=7)
    grads = []
    for lib in (minigrad, torch):
        leaf = lib.tensor(a, requires_grad=True)
        base = leaf * 1
        row = base[0]
        add_one_in_place(lib).apply(row)
        assert "CopySlices" in base.grad_fn.name()
        (base * base).sum().backward()
        grads.append((base.detach().numpy().copy(), leaf.grad.numpy()))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs)


def test_mark_dirty_without_returning_the_tensor_is_refused():
    class Forgets(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            return grad

    with pytest.raises(RuntimeError, match="marked as dirty during the forward method were not returned"):
        Forgets.apply(minigrad.ones(2, requires_grad=True) * 1)


def test_save_for_forward_is_accepted_and_kept():
    class Keeps(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            ctx.kept = ctx.saved_for_forward
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = minigrad.ones(2, requires_grad=True)
    y = Keeps.apply(x)
    assert y.grad_fn.kept[0] is x
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
