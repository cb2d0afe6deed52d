"""``max_pool1d`` and ``avg_pool1d``: 1-D pooling is 2-D pooling of height 1.

The input (N, C, L) becomes (N, C, 1, L) and the window (1, k): the 2-D pooling's forward and
backward (ops/pool.py, ops/avg_pool.py) do the work. The checks (ops/_checks/pool1d.py) are
PyTorch's for the 1-D functions, so the messages name 1-D sizes; ``return_indices`` gives each
maximum's index along L.
"""

from __future__ import annotations

from typing import Any

from minigrad.ops import avg_pool, pool
from minigrad.ops._checks import pool1d as checks
from minigrad.tensor import Tensor

__all__ = ["max_pool1d", "avg_pool1d"]


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002 (PyTorch's name)
               padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:
    """y[n, c, l] = max_j x[n, c, s·l + d·j − p] over the k taps j (padding is −∞), for (N, C, L) or (C, L).

    ``stride`` defaults to ``kernel_size``; with ``return_indices``, also each maximum's index along L.
    """
    kernel, step, pad, spread = checks.max_pool1d_sizes(input, kernel_size, stride, padding, dilation)
    length = pool.pool_output_size(input.shape[-1], kernel, step, pad, spread, bool(ceil_mode))
    checks.check_max_pool1d_output(input, length, kernel, step, pad, spread, return_indices)
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
    sizes = checks.avg_pool1d_sizes(input, kernel_size, stride, padding)
    out = avg_pool.avg_pool2d(input.unsqueeze(-2), (1, sizes["kernel_size"]), (1, sizes["stride"]),
                          (0, sizes["padding"]), ceil_mode, count_include_pad)
    return out.squeeze(-2)
