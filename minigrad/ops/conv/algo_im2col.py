"""Convolution as matrix products over im2col columns: the default ``'im2col'``, what ``nn.Conv2d`` runs.

With ``cols = im2col(x)`` of shape (C_in·kh·kw, L), L = H_out·W_out·N, and the weight
seen per group g as ``W_g`` of shape (C_out/G, C_in/G·kh·kw):

    forward:      Y_g     = W_g · cols_g
    grad_weight:  dW_g    = δ_g · cols_gᵀ
    grad_input:   dcols_g = W_gᵀ · δ_g,    dx = col2im(dcols)

where δ_g is group g's output gradient as a (C_out/G, L) matrix, and db = Σ δ is the
caller's (``functional.py``). Each ``·`` is one product batched over the G groups.

Speed, without changing a formula: ``matmul`` (``performance/parallel.py``) cuts a large product
between minigrad's threads with the BLAS held to one thread (on one thread or a GPU: ``xp.matmul``),
which stays fast on a busy machine; ``im2col.py`` copies on the same threads (docs/performance.md).
Two kinds of layer go to files of their own (``algorithms.algorithm_functions``): depthwise layers to
``depthwise.py``, layers whose columns would be larger than a limit set there to
``algo_im2col_tuned.py``, which makes and multiplies them a cache-sized piece at a time. So the
columns this file makes are at most that large, and the forward keeps them for ``grad_weight``.
"""

from __future__ import annotations

from typing import Any

from minigrad.ops.conv.geometry import Pair, output_shape
from minigrad.ops.conv.im2col import batch_last, col2im, im2col
from minigrad.performance.parallel import matmul

__all__ = ["forward", "prepare_grad_output", "grad_input", "grad_weight", "per_group"]


def per_group(matrix: Any, groups: int) -> Any:
    """(G·rows, columns) -> (G, rows, columns): a group's rows are one contiguous block (a view)."""
    return matrix.reshape(groups, matrix.shape[0] // groups, matrix.shape[1])


def grouped_delta(grad_out: Any, groups: int) -> Any:
    """δ (N, C_out, H_out, W_out) -> (G, C_out/G, L), columns (h, w, n) as in ``cols``: a view of
    δ in (C, H, W, N) memory (``prepare_grad_output``'s), else a copy."""
    n, c_out, h_out, w_out = grad_out.shape
    return per_group(batch_last(grad_out).reshape(c_out, h_out * w_out * n), groups)


def forward(x: Any, weight: Any, stride: Pair, padding: Pair, dilation: Pair, groups: int) -> tuple:
    """Y_g = W_g · cols_g; returns ``(y (N, C_out, H_out, W_out), cols)``, cols for ``grad_weight``.

    y is an NCHW view of the product's (C, H, W, N) memory, not a transposed copy.
    """
    c_out, _, kh, kw = weight.shape
    h_out, w_out = output_shape(x.shape, (kh, kw), stride, padding, dilation)
    cols = im2col(x, (kh, kw), stride, padding, dilation)
    w_g = per_group(weight.reshape(c_out, -1), groups)
    y = matmul(w_g, per_group(cols, groups))                        # Y_g = W_g · cols_g
    return y.reshape(c_out, h_out, w_out, x.shape[0]).transpose(3, 0, 1, 2), cols


def prepare_grad_output(grad_out: Any, weight_shape: tuple, stride: Pair, groups: int) -> Any:
    """δ laid out (C, H, W, N) in memory as the columns are, once for both gradients (same values)."""
    return batch_last(grad_out).transpose(3, 0, 1, 2)


def grad_weight(x: Any, grad_out: Any, weight_shape: tuple, stride: Pair, padding: Pair,
                dilation: Pair, groups: int, saved: Any = None) -> Any:
    """dW_g = δ_g · cols_gᵀ, multiplied as (cols_g · δ_gᵀ)ᵀ (the same sums; OpenBLAS runs this thin
    product faster so, docs/performance.md); ``saved`` is the forward's cols (None: made again from x)."""
    cols = im2col(x, tuple(weight_shape[2:]), stride, padding, dilation) if saved is None else saved
    delta = grouped_delta(grad_out, groups)
    grad_w = matmul(per_group(cols, groups), delta.transpose(0, 2, 1))   # dW_g = δ_g · cols_gᵀ, as its ᵀ
    return grad_w.transpose(0, 2, 1).reshape(tuple(weight_shape))


def grad_input(grad_out: Any, weight: Any, input_shape: tuple, stride: Pair, padding: Pair,
               dilation: Pair, groups: int) -> Any:
    """dcols_g = W_gᵀ · δ_g, then dx = col2im(dcols): each column added back onto its window."""
    c_out, _, kh, kw = weight.shape
    w_g, delta = per_group(weight.reshape(c_out, -1), groups), grouped_delta(grad_out, groups)
    grad_cols = matmul(w_g.transpose(0, 2, 1), delta)               # dcols_g = W_gᵀ · δ_g
    grad_cols = grad_cols.reshape(input_shape[1] * kh * kw, grad_cols.shape[2])
    return col2im(grad_cols, input_shape, (kh, kw), stride, padding, dilation)   # dx = col2im(dcols)
