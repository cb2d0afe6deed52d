"""A custom autograd Function in PyTorch 2's form — ``forward`` without ``ctx``, then
``setup_context`` — checked with ``gradcheck`` and used in a small fit.

Needs ``Function.setup_context`` (the autograd work of issue 13).
"""

import numpy as np


def make_function(torch):
    class SoftClip(torch.autograd.Function):
        """y = c · tanh(x / c): a smooth clip to (-c, c);  dy/dx = 1 - tanh²(x / c)."""

        @staticmethod
        def forward(x, c):
            return c * torch.tanh(x / c)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, c = inputs
            ctx.c = c
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, grad_output):
            (y,) = ctx.saved_tensors
            return grad_output * (1 - (y / ctx.c) ** 2), None

    return SoftClip


def main(torch):
    soft_clip = make_function(torch)
    rng = np.random.default_rng(3)
    x64 = torch.tensor(rng.standard_normal((4, 5)) * 3, dtype=torch.float64, requires_grad=True)
    passed = torch.autograd.gradcheck(lambda t: soft_clip.apply(t, 2.0), (x64,), eps=1e-6, atol=1e-5)

    inputs = torch.tensor(rng.uniform(-4, 4, (64, 1)), dtype=torch.float32)
    targets = 1.5 * torch.tanh(inputs / 1.5)
    scale = torch.tensor([0.5], requires_grad=True)
    losses = []
    for _ in range(80):
        loss = ((soft_clip.apply(inputs * scale, 1.5) - targets) ** 2).mean()
        scale.grad = None
        loss.backward()
        with torch.no_grad():
            scale -= 0.5 * scale.grad
        losses.append(loss.item())
    y = soft_clip.apply(x64, 2.0)
    y.sum().backward()
    return {"gradcheck": passed, "losses": losses, "scale": scale.item(), "grad": x64.grad.tolist()}


def compare(ours, theirs):
    assert ours["gradcheck"] is True
    assert ours["losses"][-1] < 0.01 * ours["losses"][0] and abs(ours["scale"] - 1.0) < 0.05
    if theirs is not None:
        np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-4, atol=1e-9)
        np.testing.assert_allclose(ours["grad"], theirs["grad"], rtol=1e-12)
