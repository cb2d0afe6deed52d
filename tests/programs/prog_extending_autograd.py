"""The examples of PyTorch's "Extending PyTorch" note (Extending torch.autograd), as written there:
``LinearFunction`` in both forms (``forward(ctx, ...)``, and ``forward`` + ``setup_context``) with
the note's ``gradcheck`` call, ``MulConstant``, ``MyCube`` (an intermediate returned as an
output so that it can be differentiated twice) with ``gradcheck`` and ``gradgradcheck``, the
``mark_non_differentiable`` sort under ``@once_differentiable`` (whose second differentiation is
refused), and ``set_materialize_grads``.

Needs ``create_graph=True`` (issue 19) for ``gradgradcheck`` and the second derivatives.
"""

import numpy as np


def make_functions(torch):
    # the note's ``from torch.autograd import Function`` and ``from torch.autograd.function import
    # once_differentiable``, from the module this program is handed
    Function = torch.autograd.Function  # noqa: N806
    once_differentiable = torch.autograd.function.once_differentiable

    # Inherit from Function
    class LinearFunction(Function):

        # Note that forward, setup_context, and backward are @staticmethods
        @staticmethod
        def forward(input, weight, bias):
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        # inputs is a Tuple of all of the inputs passed to forward.
        # output is the output of the forward().
        def setup_context(ctx, inputs, output):
            input, weight, bias = inputs
            ctx.save_for_backward(input, weight, bias)

        # This function has only a single output, so it gets only one gradient
        @staticmethod
        def backward(ctx, grad_output):
            # This is a pattern that is very convenient - at the top of backward
            # unpack saved_tensors and initialize all gradients w.r.t. inputs to
            # None. Thanks to the fact that additional trailing Nones are
            # ignored, the return statement is simple even when the function has
            # optional inputs.
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None

            # These needs_input_grad checks are optional and there only to
            # improve efficiency. If you want to make your code simpler, you can
            # skip them. Returning gradients for inputs that don't require it is
            # not an error.
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)

            return grad_input, grad_weight, grad_bias

    class LinearFunctionCombined(Function):
        @staticmethod
        # ctx is the first argument to forward
        def forward(ctx, input, weight, bias=None):
            # The forward pass can use ctx.
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        backward = LinearFunction.backward

    class MulConstant(Function):
        @staticmethod
        def forward(tensor, constant):
            return tensor * constant

        @staticmethod
        def setup_context(ctx, inputs, output):
            # ctx is a context object that can be used to stash information
            # for backward computation
            tensor, constant = inputs
            ctx.constant = constant

        @staticmethod
        def backward(ctx, grad_output):
            # We return as many input gradients as there were arguments.
            # Gradients of non-Tensor arguments to forward must be None.
            return grad_output * ctx.constant, None

    class MyCube(torch.autograd.Function):
        @staticmethod
        def forward(x):
            # We wish to save dx for backward. In order to do so, it must
            # be returned as an output.
            dx = 3 * x ** 2
            result = x ** 3
            return result, dx

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            result, dx = output
            ctx.save_for_backward(x, dx)

        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            # In order for the autograd.Function to work with higher-order
            # gradients, we must add the gradient contribution of `dx`,
            # which is grad_dx * 6 * x.
            result = grad_output * dx + grad_dx * 6 * x
            return result

    # Wrap MyCube in a function so that it is clearer what the output is
    def my_cube(x):
        result, dx = MyCube.apply(x)
        return result

    class Func(Function):
        @staticmethod
        def forward(ctx, x):
            sorted, idx = x.sort()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(x, idx)
            return sorted, idx

        @staticmethod
        @once_differentiable
        def backward(ctx, g1, g2):  # still need to accept g2
            x, idx = ctx.saved_tensors
            grad_input = torch.zeros_like(x)
            grad_input.index_add_(0, idx, g1)
            return grad_input

    class SimpleFunc(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x.clone(), x.clone()

        @staticmethod
        @once_differentiable
        def backward(ctx, g1, g2):
            x, = ctx.saved_tensors
            grad_input = torch.zeros_like(x)
            if g1 is not None:  # We must check for None now
                grad_input += g1
            if g2 is not None:
                grad_input += g2
            return grad_input

    return LinearFunction, LinearFunctionCombined, MulConstant, my_cube, Func, SimpleFunc


def main(torch):
    LinearFunction, LinearFunctionCombined, MulConstant, my_cube, Func, SimpleFunc = make_functions(torch)  # noqa: N806
    gradcheck, gradgradcheck = torch.autograd.gradcheck, torch.autograd.gradgradcheck

    rng = np.random.default_rng(19)
    results = {}

    # The note's gradcheck, as written there (with the combined form, whose bias defaults to None):
    # "gradcheck takes a tuple of tensors as input, check if your gradient evaluated with these
    # tensors are close enough to numerical approximations and returns True if they all verify
    # this condition."
    input = (torch.randn(20, 20, dtype=torch.double, requires_grad=True),
             torch.randn(30, 20, dtype=torch.double, requires_grad=True))
    results["note_gradcheck"] = gradcheck(LinearFunctionCombined.apply, input, eps=1e-6, atol=1e-4)

    linear = LinearFunction.apply
    input = (torch.tensor(rng.standard_normal((4, 5)), dtype=torch.double, requires_grad=True),
             torch.tensor(rng.standard_normal((3, 5)), dtype=torch.double, requires_grad=True),
             torch.tensor(rng.standard_normal(3), dtype=torch.double, requires_grad=True))
    results["linear_gradcheck"] = gradcheck(linear, input, eps=1e-6, atol=1e-4)
    results["linear_gradgradcheck"] = gradgradcheck(linear, input, eps=1e-6, atol=1e-4)
    results["combined_gradcheck"] = gradcheck(LinearFunctionCombined.apply, input, eps=1e-6, atol=1e-4)
    x, w, b = input
    out = linear(x, w, b)
    (gx, gw) = torch.autograd.grad((out ** 2).sum(), (x, w), create_graph=True)
    (ggx,) = torch.autograd.grad((gx * gw.sum(0)).sum(), (x,))  # a gradient of a gradient
    results["linear_second"] = ggx.detach().numpy().tolist()
    results["linear_names"] = [type(out.grad_fn).__name__, type(gx.grad_fn).__name__]

    a = torch.tensor(rng.standard_normal((2, 3)), dtype=torch.double, requires_grad=True)
    results["mulconstant_gradgradcheck"] = gradgradcheck(lambda t: MulConstant.apply(t, 2.5), (a,))
    (da,) = torch.autograd.grad(MulConstant.apply(a, 2.5).pow(2).sum(), a, create_graph=True)
    results["mulconstant_grad"] = da.detach().numpy().tolist()

    c = torch.tensor(rng.standard_normal(5), dtype=torch.double, requires_grad=True)
    results["cube_gradcheck"] = gradcheck(my_cube, (c,))
    results["cube_gradgradcheck"] = gradgradcheck(my_cube, (c,))
    (dc,) = torch.autograd.grad(my_cube(c).sum(), c, create_graph=True)
    (ddc,) = torch.autograd.grad(dc.sum(), c)
    results["cube_second"] = ddc.numpy().tolist()  # 6x

    s = torch.tensor(rng.standard_normal(6), dtype=torch.double, requires_grad=True)
    results["sort_gradcheck"] = gradcheck(lambda t: Func.apply(t)[0], (s,))
    (ds,) = torch.autograd.grad((Func.apply(s)[0] ** 2).sum(), s, create_graph=True)
    try:
        ds.sum().backward()
        results["sort_twice"] = "no error"
    except RuntimeError as error:
        results["sort_twice"] = str(error)

    m = torch.tensor(rng.standard_normal(3), dtype=torch.double, requires_grad=True)
    first, _ = SimpleFunc.apply(m)
    first.sum().backward()  # the second output gets no gradient: g2 is None
    results["materialize"] = m.grad.numpy().tolist()
    return results


def compare(ours, theirs):
    for key in ("note_gradcheck", "linear_gradcheck", "linear_gradgradcheck", "combined_gradcheck",
                "mulconstant_gradgradcheck", "cube_gradcheck", "cube_gradgradcheck", "sort_gradcheck"):
        assert ours[key] is True, key
    assert "differentiate twice a function that was marked with @once_differentiable" in ours["sort_twice"]
    assert ours["linear_names"] == ["LinearFunctionBackward", "MmBackward0"]
    np.testing.assert_allclose(ours["materialize"], [1.0, 1.0, 1.0])
    if theirs is not None:
        for key in ("linear_second", "mulconstant_grad", "cube_second"):
            np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-12, atol=1e-12, err_msg=key)
        assert ours["linear_names"] == theirs["linear_names"]
        assert ours["sort_twice"] == theirs["sort_twice"]
