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


def _pair_argument(value: Any, name: str) -> Pair:
    """An int or a sequence of exactly two ints (PyTorch's ``_pair``; a 1-sequence is an error here)."""
    if isinstance(value, (tuple, list)) and len(value) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)} "
                           f"({name}={list(value)})")
    if any(isinstance(v, float) for v in (value if isinstance(value, (tuple, list)) else (value,))):
        raise TypeError(f"argument '{name}' must be tuple of ints, but got {value!r}")
    return conv_pair(value, name)


def _settings(kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> tuple[Pair, Pair, Pair, Pair]:
    """The four pairs, checked as PyTorch checks them (kernel, dilation, stride > 0; padding ≥ 0)."""
    kernel_size, dilation = _pair_argument(kernel_size, "kernel_size"), _pair_argument(dilation, "dilation")
    padding, stride = _pair_argument(padding, "padding"), _pair_argument(stride, "stride")
    for name, (h, w), low in (("kernel size", kernel_size, 1), ("stride", stride, 1),
                              ("dilation", dilation, 1), ("padding", padding, 0)):
        if min(h, w) < low:
            what = "non-negative" if low == 0 else "greater than zero"
            short = {"kernel size": "kernel", "padding": "pad"}.get(name, name)
            raise RuntimeError(f"{name} should be {what}, but got {short}_height: {h} {short}_width: {w}")
    return kernel_size, dilation, padding, stride


def _check_floating(input: Tensor, name: str) -> None:  # noqa: A002 (PyTorch's name)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"{name} is not implemented for {input.dtype.name} tensors "
                                  f"(PyTorch's im2col/col2im take floating point only)")


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
    if input.ndim < 3:  # PyTorch's error here comes from its dimension lookup: an IndexError
        raise IndexError(f"Dimension out of range: unfold expects a 3D (C, H, W) or 4D (N, C, H, W) input, "
                         f"but got a {input.ndim}D input of shape {list(input.shape)}")
    if input.ndim == 3:
        return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
    if input.ndim != 4 or 0 in input.shape[1:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    _check_floating(input, "unfold")
    kernel_size, dilation, padding, stride = _settings(kernel_size, dilation, padding, stride)
    _blocks(tuple(input.shape[2:]), kernel_size, dilation, padding, stride)
    if input.shape[0] == 0:  # an empty batch: (0, C·kh·kw, L) with no columns to compute
        blocks = output_shape(tuple(input.shape[2:]), kernel_size, stride, padding, dilation)
        shape = (0, input.shape[1] * kernel_size[0] * kernel_size[1], blocks[0] * blocks[1])
        return input.reshape(-1)[:0].reshape(shape)
    return UnfoldFunction.apply(input, kernel_size, dilation, padding, stride)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1,  # noqa: A002 (PyTorch's name)
         padding: Any = 0, stride: Any = 1) -> Tensor:
    """Sum columns (N, C·kh·kw, L) or (C·kh·kw, L) back into an image of ``output_size``, as ``F.fold``."""
    if input.ndim == 2:
        return fold(input.unsqueeze(0), output_size, kernel_size, dilation, padding, stride).squeeze(0)
    if input.ndim != 3 or 0 in input.shape[1:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    _check_floating(input, "fold")
    output_size = _pair_argument(output_size, "output_size")
    kernel_size, dilation, padding, stride = _settings(kernel_size, dilation, padding, stride)
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
