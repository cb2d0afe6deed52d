"""PyTorch's tutorial "Double Backward with Custom Functions", its Functions as written there:
``Square`` (saves an input), ``Exp`` (saves an output), ``Sinh`` (saves intermediate results by
returning them as outputs), and ``Cube`` whose backward is itself a Function (``CubeBackward``)
with its own backward — each checked with ``gradcheck`` and ``gradgradcheck``, and its second
derivative computed with ``create_graph=True``.

Needs ``create_graph=True`` (issue 19).
"""

import numpy as np


def make_functions(torch):
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            # Because we are saving one of the inputs use `save_for_backward`
            # Save non-tensors and non-inputs/non-outputs directly on ctx
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx, grad_out):
            # A function support double backward automatically if autograd
            # is able to record the computations performed in backward
            x, = ctx.saved_tensors
            return grad_out * 2 * x

    class Exp(torch.autograd.Function):
        # Simple case where everything goes well
        @staticmethod
        def forward(ctx, x):
            # This time we save the output
            result = torch.exp(x)
            # Note that we should use `save_for_backward` here when
            # the tensor saved is an ouptut (or an input).
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_out):
            result, = ctx.saved_tensors
            return result * grad_out

    class Sinh(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx = torch.exp(x)
            expnegx = torch.exp(-x)
            ctx.save_for_backward(expx, expnegx)
            # In order to be able to save the intermediate results, a trick is to
            # include them as our outputs, so that the backward graph is constructed
            return (expx - expnegx) / 2, expx, expnegx

        @staticmethod
        def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
            expx, expnegx = ctx.saved_tensors
            grad_input = grad_out * (expx + expnegx) / 2
            # We cannot skip accumulating these even though we won't use the outputs
            # directly. They will be used later in the second backward.
            grad_input += _grad_out_exp * expx
            grad_input -= _grad_out_negexp * expnegx
            return grad_input

    def sinh(x):
        # Create a wrapper that only returns the first output
        return Sinh.apply(x)[0]

    def cube_forward(x):
        return x**3

    def cube_backward(grad_out, x):
        return grad_out * 3 * x**2

    def cube_backward_backward(grad_out, sav_grad_out, x):
        return grad_out * sav_grad_out * 6 * x

    def cube_backward_backward_grad_out(grad_out, x):
        return grad_out * 3 * x**2

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return cube_forward(x)

        @staticmethod
        def backward(ctx, grad_out):
            x, = ctx.saved_tensors
            return CubeBackward.apply(grad_out, x)

    class CubeBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, grad_out, x):
            ctx.save_for_backward(x, grad_out)
            return cube_backward(grad_out, x)

        @staticmethod
        def backward(ctx, grad_out):
            x, sav_grad_out = ctx.saved_tensors
            dx = cube_backward_backward(grad_out, sav_grad_out, x)
            dgrad_out = cube_backward_backward_grad_out(grad_out, x)
            return dgrad_out, dx

    return {"square": Square.apply, "exp": Exp.apply, "sinh": sinh, "cube": Cube.apply}


def main(torch):
    functions = make_functions(torch)
    rng = np.random.default_rng(7)
    results = {}
    for name, function in functions.items():
        x = torch.tensor(rng.uniform(0, 1, (3, 3)), requires_grad=True, dtype=torch.double)
        results[f"{name}_gradcheck"] = torch.autograd.gradcheck(function, x)
        results[f"{name}_gradgradcheck"] = torch.autograd.gradgradcheck(function, x)
        (grad_x,) = torch.autograd.grad(function(x).sum(), x, create_graph=True)
        (second,) = torch.autograd.grad(grad_x.sum(), x)
        results[f"{name}_second"] = second.numpy().tolist()
        results[f"{name}_graph"] = [grad_x.requires_grad, type(grad_x.grad_fn).__name__]
    return results


def compare(ours, theirs):
    for name in ("square", "exp", "sinh", "cube"):
        assert ours[f"{name}_gradcheck"] is True and ours[f"{name}_gradgradcheck"] is True, name
        assert ours[f"{name}_graph"][0] is True, name
    np.testing.assert_allclose(ours["square_second"], np.full((3, 3), 2.0))
    if theirs is not None:
        for name in ("square", "exp", "sinh", "cube"):
            np.testing.assert_allclose(ours[f"{name}_second"], theirs[f"{name}_second"], rtol=1e-12,
                                       atol=1e-12, err_msg=name)
            assert ours[f"{name}_graph"] == theirs[f"{name}_graph"], name
