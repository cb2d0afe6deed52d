"""In-place operations (``add_``, ``+=``, ``x[i] = v``, ``fill_`` ...), as PyTorch records them.

An in-place op computes the out-of-place result and writes it into the tensor's own
array, so views of that storage see the change. When the graph is being recorded,
the op is recorded on a snapshot of the old value and the tensor takes the new node
as its ``grad_fn``. Every in-place change bumps the storage's version counter, so a
backward that saved the old value raises instead of using the new one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad import dtypes as _dtypes
from minigrad.autograd.grad_mode import _GradMode, no_grad
from minigrad.tensor import Tensor


def _check_allowed(a: Tensor, op_name: str, recording: bool) -> None:
    if recording and a._requires_grad and a._grad_fn is None:
        raise RuntimeError(f"a leaf Variable that requires grad is being used in an in-place operation "
                           f"({op_name}). Wrap it in `with minigrad.no_grad():` or use an out-of-place "
                           "operation.")
    # a view in the graph (not a detached alias: PyTorch lets ``x.detach().zero_()`` through)
    if recording and a._base is not None and a._requires_grad:
        raise RuntimeError(f"{op_name}: minigrad does not record in-place operations on a view of a tensor "
                           f"that requires grad (this tensor of shape {list(a.shape)} is a view). "
                           "Use the out-of-place form, e.g. `y = y + x` instead of `y += x`.")


def _check_result(a: Tensor, result: Tensor, op_name: str) -> None:
    if result.shape != a.shape:
        raise RuntimeError(f"{op_name}: output with shape {list(a.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}")
    if not _can_cast(result.dtype, a.dtype):
        raise RuntimeError(f"{op_name}: result type {result.dtype.name} can't be cast to the desired output "
                           f"type {a.dtype.name}")


def _can_cast(source: _dtypes.dtype, target: _dtypes.dtype) -> bool:
    """PyTorch's rule for in-place results: never down a category (float -> int, int -> bool)."""
    return source.category <= target.category


def apply(a: Tensor, op_name: str, compute: Callable[[Tensor], Tensor], *others: Any) -> Tensor:
    """Replace ``a``'s values with ``compute(a)``, recording the op if the graph needs it."""
    recording = _GradMode.enabled and (a._requires_grad or any(
        isinstance(o, Tensor) and o._requires_grad for o in others))
    _check_allowed(a, op_name, recording)
    if recording:
        snapshot = Tensor(a._array.copy())  # the old value, with the old place in the graph
        snapshot._requires_grad, snapshot._grad_fn, snapshot._output_nr = (
            a._requires_grad, a._grad_fn, a._output_nr)
        result = compute(snapshot)
    else:
        with no_grad():
            result = compute(a)
    _check_result(a, result, op_name)
    a._array[...] = result._array
    if recording:
        a._grad_fn, a._output_nr, a._requires_grad = result._grad_fn, result._output_nr, result._requires_grad
    a._bump_version(op_name)
    return a


def fill(a: Tensor, op_name: str, value: Any) -> Tensor:
    """Set every element to ``value``; afterwards ``a`` no longer depends on its past."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        value = value.item()
    _check_allowed(a, op_name, _GradMode.enabled)
    a._array.fill(value)
    if a._grad_fn is not None:
        a._grad_fn, a._requires_grad = None, False
    a._bump_version(op_name)
    return a


def fill_random(a: Tensor, op_name: str, distribution: str, first: float, second: float,
                generator: Any) -> Tensor:
    """Fill with uniform(first, second) or normal(mean=first, std=second) numbers (host-drawn)."""
    from minigrad import backend  # noqa: PLC0415
    from minigrad.random import default_generator  # noqa: PLC0415

    if not a.dtype.is_floating_point:
        raise RuntimeError(f"{op_name} expects a floating point tensor, got {a.dtype.name}")
    rng = (generator or default_generator).rng
    if distribution == "uniform":
        host = rng.uniform(first, second, size=a.shape)
    else:
        host = rng.normal(first, second, size=a.shape)
    _check_allowed(a, op_name, _GradMode.enabled)
    a._array[...] = backend.from_host(host.astype(a.dtype.numpy), a.device)
    a._bump_version(op_name)
    return a
