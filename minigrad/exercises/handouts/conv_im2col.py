"""Exercise 5 — Conv2d backward by im2col: the convolution as one matrix product.

``im2col`` turns every receptive field of x (N, C, H, W) into one column:
``cols`` is (C·kh·kw, L) with L = H_out·W_out·N (rows ordered (c, i, j), columns
(h, w, n)). Then, per group g of channels (``groups`` = G; C' = C/G, O' = O/G):

    forward:  Y_g = W_g · cols_g          W_g (O', C'·kh·kw),  cols_g (C'·kh·kw, L),  Y_g (O', L)

and its backward is that of a matrix product, with δ = ∂L/∂Y in the same (O', L) layout:

* ``grad_weight``: dW_g = δ_g · cols_gᵀ                       → (O', C'·kh·kw), reshaped to W's shape
* ``grad_input``:  dcols_g = W_gᵀ · δ_g, then dx = col2im(dcols) (col2im adds every column back
  onto its window: overlapping windows add up; it is im2col's adjoint)
* ``grad_bias``:   db = Σ δ over the batch and every output position → (O,)

``forward`` and the layouts are given; stride, padding and dilation live entirely inside
im2col/col2im, so your three lines do not change with them.
Hint: with arrays of shape (G, a, b), ``@`` multiplies group by group, and
``.transpose(0, 2, 1)`` transposes each group's matrix.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd import Function
from minigrad.nn.modules.utils import _pair
from minigrad.ops.conv.geometry import output_shape
from minigrad.ops.conv.im2col import col2im, im2col
from minigrad.tensor import Tensor


class Conv2dIm2col(Function):
    """y = W ⋆ x + b by im2col;   dW = δ·colsᵀ,  dx = col2im(Wᵀ·δ),  db = Σδ   (per group)."""

    @staticmethod
    def forward(ctx, x: Tensor, weight: Tensor, bias: Tensor | None, stride: Any = 1, padding: Any = 0,
                dilation: Any = 1, groups: int = 1) -> Tensor:
        stride, padding, dilation = _pair(stride), _pair(padding), _pair(dilation)
        n = x.shape[0]
        c_out, c_per_group, kh, kw = weight.shape
        h_out, w_out = output_shape(x.shape, (kh, kw), stride, padding, dilation)
        cols = im2col(x.array, (kh, kw), stride, padding, dilation)       # (C·kh·kw, L)
        cols_g = cols.reshape(groups, c_per_group * kh * kw, -1)           # (G, C'·kh·kw, L)
        weight_g = weight.array.reshape(groups, c_out // groups, -1)       # (G, O', C'·kh·kw)
        y = (weight_g @ cols_g).reshape(c_out, h_out, w_out, n)           # (O, H_out, W_out, N)
        if bias is not None:
            y = y + bias.array[:, None, None, None]
        ctx.save_for_backward(x, weight)
        ctx.cols_g, ctx.geometry, ctx.groups = cols_g, (stride, padding, dilation), groups
        return Tensor(y.transpose(3, 0, 1, 2))                            # (N, O, H_out, W_out)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, weight = ctx.saved_tensors
        stride, padding, dilation = ctx.geometry
        groups, cols_g = ctx.groups, ctx.cols_g
        c_out, c_per_group, kh, kw = weight.shape
        g = grad.array                                                    # (N, O, H_out, W_out)
        delta = g.transpose(1, 2, 3, 0).reshape(groups, c_out // groups, -1)   # (G, O', L): Y's layout
        weight_g = weight.array.reshape(groups, c_out // groups, -1)       # (G, O', C'·kh·kw)
        grad_x = grad_weight = grad_bias = None
        if ctx.needs_input_grad[1]:
            raise NotImplementedError("grad_weight: δ times colsᵀ, group by group, reshaped to the weight's shape")
        if ctx.needs_input_grad[0]:
            raise NotImplementedError('grad_x: Wᵀ·δ per group is dcols (C·kh·kw, L); col2im it')
        if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
            raise NotImplementedError('grad_bias, shape (O,): every output position of every image used b')
        return grad_x, grad_weight, grad_bias, None, None, None, None


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """``F.conv2d`` through your Function (used by the capstone)."""
    return Conv2dIm2col.apply(x, weight, bias, stride, padding, dilation, groups)
