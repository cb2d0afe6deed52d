"""Convolution as matrix products over im2col columns — the GEMM route production libraries take.

With ``cols = im2col(x)`` of shape (C_in·kh·kw, L·N), L = H_out·W_out, and the weight
viewed per group as ``W_g`` of shape (C_out/G, C_in/G·kh·kw):

    forward:      Y_g   = W_g · cols_g             one batched product over all G groups
    grad_weight:  dW_g  = δ_g · cols_gᵀ            (reuses the forward's columns)
    grad_input:   dcols = W_gᵀ · δ_g,  dx = col2im(dcols)

where ``δ_g`` is the output gradient of group g as a (C_out/G, L·N) matrix. The bias
is the caller's business (db = Σ δ over n, h, w).

Depthwise convolutions (one input channel per group) with stride 1 are the exception:
their per-group products are too thin for a GEMM to pay off, so they go to
``depthwise.py``, which sums the kh·kw shifted images directly.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.ops.conv import buffers, depthwise
from minigrad.ops.conv.geometry import Pair, output_shape
from minigrad.ops.conv.im2col import batch_last, col2im, im2col

__all__ = ["forward", "grad_input", "grad_weight", "prepare_grad_output"]


def _grouped_weight(weight: Any, groups: int) -> Any:
    """(C_out, C_in/G, kh, kw) -> (G, C_out/G, C_in/G·kh·kw)."""
    c_out = weight.shape[0]
    return weight.reshape(groups, c_out // groups, -1)


def _grouped_grad(grad_out: Any, groups: int) -> Any:
    """δ (N, C_out, H_out, W_out) -> (G, C_out/G, L·N), the layout of the forward's product."""
    c_out = grad_out.shape[1]
    # No copy when δ is already in (C, H, W, N) memory order (see prepare_grad_output).
    return batch_last(grad_out).reshape(groups, c_out // groups, -1)


def prepare_grad_output(grad_out: Any, weight_shape: tuple, stride: Pair, groups: int) -> Any:
    """δ laid out (C, H, W, N) in memory, once, for grad_input and grad_weight to share (same values)."""
    if depthwise.is_depthwise(weight_shape, groups, stride):
        return grad_out
    return batch_last(grad_out).transpose(3, 0, 1, 2)


def forward(x: Any, weight: Any, stride: Pair, padding: Pair, dilation: Pair, groups: int) -> tuple:
    """Y_g = W_g · cols_g for all groups at once; returns ``(out (N, C_out, H_out, W_out), cols)``."""
    if depthwise.is_depthwise(weight.shape, groups, stride):
        return depthwise.forward(x, weight, stride, padding, dilation, groups)
    xp = get_array_module(x)
    n = x.shape[0]
    c_out, _, kh, kw = weight.shape
    h_out, w_out = output_shape(x.shape, (kh, kw), stride, padding, dilation)
    cols = im2col(x, (kh, kw), stride, padding, dilation)
    cols_g = cols.reshape(groups, -1, cols.shape[1])
    out = xp.matmul(_grouped_weight(weight, groups), cols_g)          # (G, C_out/G, L·N)
    # The product is (C, H, W, N); hand out the NCHW view of it instead of a transposed copy.
    return out.reshape(c_out, h_out, w_out, n).transpose(3, 0, 1, 2), cols


def grad_input(grad_out: Any, weight: Any, input_shape: tuple, stride: Pair, padding: Pair,
               dilation: Pair, groups: int, cache: Any = None) -> Any:
    """dx = col2im(W_gᵀ · δ_g): every column's gradient added back onto its window."""
    if depthwise.is_depthwise(weight.shape, groups, stride):
        return depthwise.grad_input(grad_out, weight, input_shape, stride, padding, dilation, groups)
    xp = get_array_module(grad_out)
    w_g, delta_g = _grouped_weight(weight, groups), _grouped_grad(grad_out, groups)
    grad_cols = buffers.take(xp, (groups, w_g.shape[2], delta_g.shape[2]), grad_out.dtype)
    xp.matmul(w_g.transpose(0, 2, 1), delta_g, out=grad_cols)                      # (G, K, L·N)
    grad_x = col2im(grad_cols.reshape(-1, grad_cols.shape[2]), tuple(input_shape), weight.shape[2:], stride,
                    padding, dilation)
    buffers.give_back(grad_cols)      # col2im wrote a new image: the columns are done with
    return grad_x


def grad_weight(x: Any, grad_out: Any, weight_shape: tuple, stride: Pair, padding: Pair,
                dilation: Pair, groups: int, cache: Any = None) -> Any:
    """dW_g = δ_g · cols_gᵀ; ``cache`` is the forward's columns (recomputed when None)."""
    if depthwise.is_depthwise(weight_shape, groups, stride):
        return depthwise.grad_weight(x, grad_out, weight_shape, stride, padding, dilation, groups, cache)
    xp = get_array_module(grad_out)
    cols = im2col(x, tuple(weight_shape[2:]), stride, padding, dilation) if cache is None else cache
    cols_g = cols.reshape(groups, -1, cols.shape[1])
    # Computed as (cols_g · δ_gᵀ)ᵀ, the same numbers: with the long L·N axis summed over, OpenBLAS
    # runs this orientation up to 2x faster (measured in benchmarks/conv.py); the transpose is tiny.
    grad_w_t = xp.matmul(cols_g, _grouped_grad(grad_out, groups).transpose(0, 2, 1))  # (G, K, C_out/G)
    return xp.ascontiguousarray(grad_w_t.transpose(0, 2, 1)).reshape(tuple(weight_shape))
