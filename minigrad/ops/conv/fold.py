"""``unfold`` (im2col) and ``fold`` (col2im) as differentiable functions, as ``F.unfold`` / ``F.fold``.

    unfold: (N, C, H, W) -> (N, C·kh·kw, L)      one column per sliding block, L blocks
    fold:   (N, C·kh·kw, L) -> (N, C, H, W)      columns summed back onto their blocks

Each is the other's adjoint, so each one's backward is the other one, and gradients of
any order are folds and unfolds again.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops.conv._checks import (
    check_fold_blocks,
    check_fold_input,
    check_unfold_input,
    fold_pair,
    fold_settings,
    sliding_blocks,
)
from minigrad.ops.conv.im2col import col2im, im2col
from minigrad.tensor import Tensor

__all__ = ["unfold", "fold", "UnfoldFunction", "FoldFunction"]


def _batched_columns(cols: Any, n: int) -> Any:
    """im2col's (C·kh·kw, L·N) -> PyTorch's (N, C·kh·kw, L) (a view)."""
    return cols.reshape(cols.shape[0], -1, n).transpose(2, 0, 1)


def _column_matrix(blocks: Any) -> Any:
    """PyTorch's (N, C·kh·kw, L) -> im2col's (C·kh·kw, L·N)."""
    xp = get_array_module(blocks)
    return xp.ascontiguousarray(blocks.transpose(1, 2, 0)).reshape(blocks.shape[1], -1)


class UnfoldFunction(Function):
    """cols = im2col(x);   dx = col2im(d cols) = fold(d cols), the adjoint (and fold's backward is unfold)."""

    node_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, input, kernel_size, dilation, padding, stride):  # noqa: A002 (PyTorch's name)
        x = input.array
        ctx.settings = (kernel_size, dilation, padding, stride)
        ctx.input_size = tuple(x.shape[2:])
        return Tensor(_batched_columns(im2col(x, kernel_size, stride, padding, dilation), x.shape[0]))

    @staticmethod
    def backward(ctx, grad_output):
        return FoldFunction.apply(grad_output, ctx.input_size, *ctx.settings), None, None, None, None


class FoldFunction(Function):
    """x = col2im(cols);   d cols = im2col(dx) = unfold(dx), the adjoint (and unfold's backward is fold)."""

    node_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, input, output_size, kernel_size, dilation, padding, stride):  # noqa: A002
        blocks = input.array
        channels = blocks.shape[1] // (kernel_size[0] * kernel_size[1])
        ctx.settings = (kernel_size, dilation, padding, stride)
        image_shape = (blocks.shape[0], channels) + tuple(output_size)
        return Tensor(col2im(_column_matrix(blocks), image_shape, kernel_size, stride, padding, dilation))

    @staticmethod
    def backward(ctx, grad_output):
        return UnfoldFunction.apply(grad_output, *ctx.settings), None, None, None, None, None


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,  # noqa: A002 (PyTorch's name)
           stride: Any = 1) -> Tensor:
    """Sliding blocks of ``input`` (N, C, H, W) or (C, H, W) as columns: (N, C·kh·kw, L), as ``F.unfold``."""
    if input.ndim < 3:  # PyTorch's error here comes from its dimension lookup: an IndexError
        raise IndexError(f"Dimension out of range: unfold expects a 3D (C, H, W) or 4D (N, C, H, W) input, "
                         f"but got a {input.ndim}D input of shape {list(input.shape)}")
    if input.ndim == 3:
        return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
    check_unfold_input(input)
    kernel_size, dilation, padding, stride = fold_settings("im2col", kernel_size, dilation, padding, stride)
    blocks = sliding_blocks(tuple(input.shape[2:]), kernel_size, dilation, padding, stride)
    if input.shape[0] == 0:  # an empty batch: (0, C·kh·kw, L) with no columns to compute
        shape = (0, input.shape[1] * kernel_size[0] * kernel_size[1], blocks[0] * blocks[1])
        return input.reshape(-1)[:0].reshape(shape)
    return UnfoldFunction.apply(input, kernel_size, dilation, padding, stride)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1,  # noqa: A002 (PyTorch's name)
         padding: Any = 0, stride: Any = 1) -> Tensor:
    """Sum columns (N, C·kh·kw, L) or (C·kh·kw, L) back into an image of ``output_size``, as ``F.fold``."""
    if input.ndim == 2:
        return fold(input.unsqueeze(0), output_size, kernel_size, dilation, padding, stride).squeeze(0)
    check_fold_input(input)
    output_size = fold_pair(output_size, "output_size", "col2im")
    kernel_size, dilation, padding, stride = fold_settings("col2im", kernel_size, dilation, padding, stride)
    check_fold_blocks(input, output_size, kernel_size, dilation, padding, stride)
    return FoldFunction.apply(input, output_size, kernel_size, dilation, padding, stride)
