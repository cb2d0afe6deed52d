"""``max_pool1d`` and ``avg_pool1d``: 1-D pooling is 2-D pooling of height 1.

The input (N, C, L) becomes (N, C, 1, L) and the window (1, k): the 2-D pooling's forward and
backward (ops/pool.py) do the work. The checks here are PyTorch's for the 1-D functions, so the
messages name 1-D sizes; ``return_indices`` gives each maximum's index along L.
"""

from __future__ import annotations

from typing import Any

from minigrad.ops import pool
from minigrad.ops._util import not_implemented_for
from minigrad.ops.conv.geometry import integer_size
from minigrad.tensor import Tensor

__all__ = ["max_pool1d", "avg_pool1d"]


def _single(value: Any, name: str, function: str, message: str) -> int:
    """An int or a sequence of one int, as that int; ``message`` formats the error for other lengths."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(message.format(size=len(value)))
        value = value[0]
    return integer_size(value, name, function, "tuple of ints")


def _is_default(stride: Any) -> bool:
    return stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002 (PyTorch's name)
               padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:
    """y[n, c, l] = max_j x[n, c, s·l + d·j − p] over the k taps j (padding is −∞), for (N, C, L) or (C, L).

    ``stride`` defaults to ``kernel_size``; with ``return_indices``, also each maximum's index along L.
    """
    name = "max_pool1d"
    if input.ndim not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(input.shape)}")
    sizes, stride = {}, kernel_size if _is_default(stride) else stride
    for key, value in (("kernel_size", kernel_size), ("stride", stride),
                       ("padding", padding), ("dilation", dilation)):
        sizes[key] = _single(value, key, name, f"max_pool1d() {key} must be an int, list of ints or tuple of "
                                               f"ints of size 1 but got size {{size}}")
    kernel, step, pad, spread = sizes["kernel_size"], sizes["stride"], sizes["padding"], sizes["dilation"]
    for key, value in (("kernel_size", kernel), ("stride", step), ("dilation", spread)):
        if value <= 0:
            raise RuntimeError(f"max_pool1d() {key} must be greater than zero, but got {value}")
    if pad < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {pad}")
    if pad > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={pad} and kernel_size={kernel}")
    length = pool.pool_output_size(input.shape[-1], kernel, step, pad, spread, bool(ceil_mode))
    if length < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {length} (input length "
                           f"{input.shape[-1]}, kernel_size={kernel}, stride={step}, padding={pad}, "
                           f"dilation={spread})")
    if not input.dtype.is_floating_point and not return_indices:  # PyTorch's 1-D kernel is float only
        raise not_implemented_for("max_pool1d_impl", input)
    result = pool.max_pool2d(input.unsqueeze(-2), (1, kernel), (1, step), (0, pad), (1, spread), ceil_mode,
                             return_indices)
    if return_indices:
        return result[0].squeeze(-2), result[1].squeeze(-2)
    return result.squeeze(-2)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002 (PyTorch's name)
               padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """y[n, c, l] = Σ_j x[n, c, s·l + j − p] / k over the k taps j, for (N, C, L) or (C, L); without
    ``count_include_pad`` the divisor counts only the taps inside the input. ``stride`` defaults to
    ``kernel_size``."""
    name = "avg_pool1d"
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor of size "
                           f"{list(input.shape)} for argument #1 'self' (while checking arguments for "
                           f"avg_pool1d)")
    sizes, stride = {}, kernel_size if _is_default(stride) else stride
    for key, value in (("kernel_size", kernel_size), ("stride", stride),
                       ("padding", padding)):
        sizes[key] = _single(value, key, name, f"avg_pool1d() argument '{key}' should contain one int "
                                               f"(got {{size}})")
    if sizes["stride"] == 0:
        raise RuntimeError("stride should not be zero")
    out = pool.avg_pool2d(input.unsqueeze(-2), (1, sizes["kernel_size"]), (1, sizes["stride"]),
                          (0, sizes["padding"]), ceil_mode, count_include_pad)
    return out.squeeze(-2)
