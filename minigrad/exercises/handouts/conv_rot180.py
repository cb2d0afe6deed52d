"""Exercise 6 — Conv2d's gradients as two more correlations: δˡ = δˡ⁺¹ ∗ rot180(W), dW = x ⋆ δ.

``correlate(x, k, stride, dilation)`` (given) is the valid cross-correlation the forward
uses: y[n, o, h, w] = Σ_{c,i,j} k[o, c, i, j] · x[n, c, h·s + i·d, w·s + j·d]. The forward
is ``y = correlate(pad(x), W, s, d)``. (groups = 1 in this exercise.)

**Input gradient.** The forward sends x_pad[u] to y[h] whenever u = h·s + i·d, so
dx_pad[u] = Σ_i W[i] · δ_s[u − i·d], where δ_s holds δ[h] at position h·s and zeros
between (the *stride-dilated* δ). A sum over u − i·d is a convolution: as a correlation,
it takes the kernel rotated by 180° and, since it maps output channels back to input
channels, with in/out channels swapped. Write

* ``rot180(W)``: (O, C, kh, kw) → (C, O, kh, kw), flipped in both spatial axes;
* ``dilate_and_pad(δ, stride, kernel_size, dilation, padded_size)``: zeros of shape
  (N, O, H_pad + d·(kh − 1), W_pad + d·(kw − 1)) with δ[h, w] placed at
  (d·(kh − 1) + h·s, d·(kw − 1) + w·s); (H_pad, W_pad) is the padded input's size;
* ``conv2d_grad_input``: correlate the dilated, padded δ with rot180(W) (stride 1,
  dilation d), then crop the padding off: that is dx.

**Weight gradient.** dW[o, c, i, j] = Σ_{n,h,w} δ[n, o, h, w] · x_pad[n, c, h·s + i·d, w·s + j·d]:
a correlation of x with δ in which the batch plays the channels' part and **stride and
dilation swap places**. Write ``conv2d_grad_weight``: correlate pad(x) seen as
(C, N, H, W) with δ seen as (O, N, H_out, W_out), stride d and dilation s; keep the first
kh × kw positions, and transpose the result (C, O, kh, kw) to (O, C, kh, kw).
Hint: ``.transpose(1, 0, 2, 3)`` swaps the first two axes; ``a[..., ::-1, ::-1]`` flips.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd import Function
from minigrad.backend import get_array_module
from minigrad.ops.conv.algo_rot180 import correlate as _grouped_correlate
from minigrad.ops.conv.geometry import crop2d, pad2d
from minigrad.tensor import Tensor


def correlate(x: Any, kernel: Any, stride: tuple, dilation: tuple) -> Any:
    """Valid cross-correlation: x (N, C, H, W) with kernel (O, C, kh, kw) → (N, O, H_out, W_out)."""
    return _grouped_correlate(x, kernel, stride, dilation, 1)


def rot180(weight: Any) -> Any:
    """(O, C, kh, kw) → (C, O, kh, kw): in/out channels swapped, each kernel rotated by 180°."""
    raise NotImplementedError('rot180: swap the first two axes, then reverse the last two')


def dilate_and_pad(delta: Any, stride: tuple, kernel_size: tuple, dilation: tuple, padded_size: tuple) -> Any:
    """δ (N, O, H_out, W_out) spread ``stride`` apart inside a frame of d·(k − 1) zeros."""
    xp = get_array_module(delta)
    n, c_out, h_out, w_out = delta.shape
    raise NotImplementedError("dilate_and_pad: zeros of the frame's size; δ every s pixels from (d·(kh−1), d·(kw−1))")


def conv2d_grad_input(delta: Any, weight: Any, input_shape: tuple, stride: tuple, padding: tuple,
                      dilation: tuple) -> Any:
    """dx = crop(correlate(dilate_and_pad(δ), rot180(W), stride 1, dilation d))."""
    padded_size = (input_shape[2] + 2 * padding[0], input_shape[3] + 2 * padding[1])
    raise NotImplementedError('grad_input: correlate the padded δ with rot180(W), stride 1; crop the padding')


def conv2d_grad_weight(x: Any, delta: Any, weight_shape: tuple, stride: tuple, padding: tuple,
                       dilation: tuple) -> Any:
    """dW = correlate(pad(x) as (C, N, H, W), δ as (O, N, H_out, W_out), stride d, dilation s)."""
    kh, kw = weight_shape[2:]
    raise NotImplementedError('grad_weight: correlate pad(x) with δ (N, C swapped), stride d, dilation s; crop; swap')


class Conv2dRot180(Function):
    """y = correlate(pad(x), W, s, d);   dx by rot180, dW by correlating x with δ (groups = 1, no bias)."""

    @staticmethod
    def forward(ctx, x: Tensor, weight: Tensor, stride: tuple = (1, 1), padding: tuple = (0, 0),
                dilation: tuple = (1, 1)) -> Tensor:
        ctx.save_for_backward(x, weight)
        ctx.geometry = (stride, padding, dilation)
        return Tensor(correlate(pad2d(x.array, padding), weight.array, stride, dilation))

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, weight = ctx.saved_tensors
        stride, padding, dilation = ctx.geometry
        grad_x = conv2d_grad_input(grad.array, weight.array, x.shape, stride, padding, dilation)
        grad_w = conv2d_grad_weight(x.array, grad.array, weight.shape, stride, padding, dilation)
        return Tensor(grad_x), Tensor(grad_w), None, None, None
