"""Exercise 4 — ReLU and max-pooling backward: gradients that are routed, not computed.

* ``ReLU``: y = max(x, 0), so ∂L/∂x = grad where x > 0 and 0 elsewhere — **also at
  x = 0**, as PyTorch does (the derivative there is undefined; PyTorch picks 0).
* ``MaxPool2d`` over k×k windows every ``stride`` pixels, x (N, C, H, W) → y (N, C, H_out,
  W_out). Each output took the value of one input pixel, the window's maximum, so its
  gradient goes to that pixel only. On a **tie** PyTorch routes it to the *first*
  maximum of the window (in row-major order within the window): ``forward`` saves
  ``argmax``, the flat position 0..k²−1 of that pixel inside each window (NumPy's
  argmax also returns the first maximum). When windows overlap (stride < k), a pixel can
  be the maximum of several windows: its gradients add up.

What to write: both backwards. Loop over the k×k positions (i, j) in a window, never
over pixels: for one (i, j), the pixels at that position of every window are the strided
slice ``x[:, :, i : i + stride·(H_out − 1) + 1 : stride, j : ...]``, and the mask
``argmax == i·k + j`` says which of them were the maximum.
"""

from __future__ import annotations

from minigrad.autograd import Function
from minigrad.backend import get_array_module
from minigrad.tensor import Tensor


class ReLU(Function):
    """y = max(x, 0);   ∂L/∂x = grad · [x > 0]   (0 at x = 0, as PyTorch)."""

    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return Tensor(x.array * (x.array > 0))

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        raise NotImplementedError('grad_x: the gradient passes where x > 0 (strictly) and is 0 elsewhere')
        return Tensor(grad_x)


class MaxPool2d(Function):
    """y[n, c, h, w] = max of the k×k window at (h·s, w·s);  its gradient goes to the first maximum."""

    @staticmethod
    def forward(ctx, x: Tensor, kernel_size: int, stride: int) -> Tensor:
        xp = get_array_module(x.array)
        n, c = x.shape[:2]
        k, s = kernel_size, stride
        windows = xp.lib.stride_tricks.sliding_window_view(x.array, (k, k), axis=(2, 3))[:, :, ::s, ::s]
        h_out, w_out = windows.shape[2:4]
        flat = windows.reshape(n, c, h_out, w_out, k * k)
        argmax = flat.argmax(axis=-1)                      # the first maximum of each window
        ctx.argmax, ctx.input_shape, ctx.kernel_size, ctx.stride = argmax, x.shape, k, s
        return Tensor(xp.take_along_axis(flat, argmax[..., None], axis=-1)[..., 0])

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        xp = get_array_module(grad.array)
        g, argmax, k, s = grad.array, ctx.argmax, ctx.kernel_size, ctx.stride
        h_out, w_out = g.shape[2:]
        raise NotImplementedError('grad_x: for each (i, j) of a window, add g where argmax == i·k + j, strided')
        return Tensor(grad_x), None, None


def relu(x: Tensor) -> Tensor:
    """``F.relu`` through your Function (used by the capstone)."""
    return ReLU.apply(x)


def max_pool2d(x: Tensor, kernel_size: int, stride: int | None = None) -> Tensor:
    """``F.max_pool2d`` (no padding) through your Function (used by the capstone)."""
    return MaxPool2d.apply(x, kernel_size, kernel_size if stride is None else stride)
