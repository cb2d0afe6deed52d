"""``unfold`` (im2col) and ``fold`` (col2im) as differentiable functions, as ``F.unfold`` / ``F.fold``.

    unfold: (N, C, H, W) -> (N, C·kh·kw, L)      one column per sliding block, L blocks
    fold:   (N, C·kh·kw, L) -> (N, C, H, W)      columns summed back onto their blocks

Each is the other's adjoint, so each one's backward is the other one.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops.conv.functional import conv_pair
from minigrad.ops.conv.geometry import Pair, output_shape
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


def _blocks(size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Pair:
    """Sliding blocks along each axis; PyTorch requires at least one."""
    blocks = output_shape(size, kernel_size, stride, padding, dilation)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(size)}, kernel_size={kernel_size}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of "
                           f"sliding blocks as {blocks}, but its components must be at least one.")
    return blocks


class UnfoldFunction(Function):
    """cols = im2col(x);   dx = col2im(d cols)."""

    @staticmethod
    def forward(ctx, input, kernel_size, dilation, padding, stride):  # noqa: A002 (PyTorch's name)
        x = input.array
        ctx.settings = (kernel_size, stride, padding, dilation)
        ctx.input_shape = x.shape
        return Tensor(_batched_columns(im2col(x, *ctx.settings), x.shape[0]))

    @staticmethod
    def backward(ctx, grad_output):
        return Tensor(col2im(_column_matrix(grad_output.array), ctx.input_shape, *ctx.settings)), \
            None, None, None, None


class FoldFunction(Function):
    """x = col2im(cols);   d cols = im2col(dx)."""

    @staticmethod
    def forward(ctx, input, output_size, kernel_size, dilation, padding, stride):  # noqa: A002
        blocks = input.array
        channels = blocks.shape[1] // (kernel_size[0] * kernel_size[1])
        ctx.settings = (kernel_size, stride, padding, dilation)
        image_shape = (blocks.shape[0], channels) + tuple(output_size)
        return Tensor(col2im(_column_matrix(blocks), image_shape, *ctx.settings))

    @staticmethod
    def backward(ctx, grad_output):
        g = grad_output.array
        return Tensor(_batched_columns(im2col(g, *ctx.settings), g.shape[0])), None, None, None, None, None


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,  # noqa: A002 (PyTorch's name)
           stride: Any = 1) -> Tensor:
    """Sliding blocks of ``input`` (N, C, H, W) or (C, H, W) as columns: (N, C·kh·kw, L), as ``F.unfold``."""
    if input.ndim == 3:
        return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
    if input.ndim != 4:
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    kernel_size, dilation = conv_pair(kernel_size, "kernel_size"), conv_pair(dilation, "dilation")
    padding, stride = conv_pair(padding, "padding"), conv_pair(stride, "stride")
    _blocks(tuple(input.shape[2:]), kernel_size, dilation, padding, stride)
    return UnfoldFunction.apply(input, kernel_size, dilation, padding, stride)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1,  # noqa: A002 (PyTorch's name)
         padding: Any = 0, stride: Any = 1) -> Tensor:
    """Sum columns (N, C·kh·kw, L) or (C·kh·kw, L) back into an image of ``output_size``, as ``F.fold``."""
    if input.ndim == 2:
        return fold(input.unsqueeze(0), output_size, kernel_size, dilation, padding, stride).squeeze(0)
    if input.ndim != 3:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    output_size, kernel_size = conv_pair(output_size, "output_size"), conv_pair(kernel_size, "kernel_size")
    dilation, padding, stride = conv_pair(dilation, "dilation"), conv_pair(padding, "padding"), \
        conv_pair(stride, "stride")
    taps = kernel_size[0] * kernel_size[1]
    if input.shape[1] % taps:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={input.shape[1]} and "
                           f"kernel_size={kernel_size}.")
    blocks = _blocks(output_size, kernel_size, dilation, padding, stride)
    if input.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(f"Given output_size={output_size}, kernel_size={kernel_size}, "
                           f"dilation={dilation}, padding={padding}, stride={stride}, expected size of "
                           f"input's dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={input.shape[2]}.")
    return FoldFunction.apply(input, output_size, kernel_size, dilation, padding, stride)
