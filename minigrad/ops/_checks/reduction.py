"""Argument checks of the reductions (``ops/reduction.py``) and the scans, with PyTorch's exceptions and
messages; the extremes' are in ``extremes.py``."""

from __future__ import annotations

import warnings
from typing import Any

from minigrad.ops._util import product, reduction_axes
from minigrad.tensor import ALL_DIMS, Tensor


def dims_given(dim: Any, keepdim: bool, name: str) -> Any:
    """``dim``, or None (all dims) when it was left out; ``keepdim`` without a dim is PyTorch's TypeError."""
    if dim is not ALL_DIMS:
        return dim
    if keepdim:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (keepdim=bool), but "
                        f"expected one of: {name}(*, dtype=None) or {name}(dim, keepdim=False, *, "
                        f"dtype=None): keepdim needs a dim (None for all dims)")
    return None


def check_mean_dtype(a: Tensor) -> None:
    if not a.dtype.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {a.dtype.name}")


def correction_argument(unbiased: Any, correction: Any) -> float:
    """var/std's correction, from ``correction`` or the older ``unbiased`` (1 by default)."""
    if correction is not None:
        if unbiased is not None:  # PyTorch has no signature taking both
            raise TypeError(f"var()/std() take unbiased or correction, not both (got unbiased={unbiased}, "
                            f"correction={correction})")
        return correction
    return 0 if unbiased is False else 1


def check_degrees_of_freedom(a: Tensor, axes: tuple | None, correction: float, name: str) -> None:
    """PyTorch's UserWarning when N - correction <= 0 (N = input numel / output numel, or 0)."""
    kept = tuple(1 if axes is None or i in axes else n for i, n in enumerate(a.shape))
    out_numel = product(kept)
    count = a.numel() // out_numel if out_numel else 0
    if count - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      f"reduction factor (input numel divided by output numel); got {count} element(s) "
                      f"and correction={correction}.", UserWarning, stacklevel=4)


def check_var_dtype(a: Tensor) -> None:
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"std and var only support floating point and complex dtypes, got {a.dtype.name}")


def one_axis(dim: Any, ndim: int) -> int:
    """The one axis ``dim`` names, checked against ``ndim`` (a 0-d tensor takes 0 or -1, as its axis 0)."""
    axes = reduction_axes(dim, ndim)
    return axes[0] if axes else 0


def check_int_dim(dim: Any, name: str) -> None:
    """max(dim), min(dim), argmax and argmin reduce one dim: a tuple would silently use only its first."""
    if not isinstance(dim, int) and not hasattr(dim, "__index__"):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
