"""Argument checks of sampling (``ops/sampling.py``), with PyTorch's exceptions and messages."""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from numbers import Number
from typing import Any, cast

import numpy  # host copies of the probabilities only

from minigrad import backend
from minigrad.ops._util import TORCH_TYPE_NAMES
from minigrad.tensor import Tensor


def check_input_tensor(input: Any, function: str) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{function}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def check_multinomial(input: Tensor, num_samples: int, replacement: bool) -> None:
    """Rows (1-D or 2-D) of floating weights, with categories enough for the samples."""
    if input.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim, got a {input.ndim}-D tensor of shape "
                           f"{list(input.shape)}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{TORCH_TYPE_NAMES[input.dtype.name]}")
    if num_samples <= 0:
        raise RuntimeError(f"cannot sample n_sample <= 0 samples (num_samples={num_samples})")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(f"cannot sample n_sample > prob_dist.size(-1) samples without replacement "
                           f"(num_samples={num_samples}, categories={categories})")
    rows = input.shape[0] if input.ndim == 2 else 1
    if categories == 0 and rows > 0:
        raise RuntimeError(f"cannot sample from distributions with no categories (prob_dist of shape "
                           f"{list(input.shape)})")


def check_distributions(xp: Any, weights: Any) -> None:
    """PyTorch's errors for a row that is not a distribution (one host sync for both checks)."""
    if weights.size == 0:
        return
    bad_values = ~xp.all(xp.isfinite(weights) & (weights >= 0))
    bad_sums = xp.any(weights.sum(axis=1) <= 0)
    bad = backend.to_host(xp.stack([bad_values, bad_sums]))
    if bad[0]:
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if bad[1]:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def check_std(std: Any) -> None:
    """A standard deviation (a number or every element of a tensor) is not negative (nor NaN)."""
    smallest = std
    if isinstance(std, Tensor) and std.numel():
        smallest = float(backend.to_host(std.array).min())
    # a complex std fails the comparison (TypeError), a NaN the test
    if isinstance(smallest, Number) and not cast(float, smallest) >= 0.0:
        raise RuntimeError(f"normal expects all elements of std >= 0.0, but found std {smallest}")


def check_normal_numbers(mean: Any, std: Any, size: Any) -> None:
    """``normal(mean, std, size)`` of numbers: real numbers, ``std >= 0``, a size given."""
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments: with a float mean and "
                        "std, give the size of the result (normal(mean, std, size))")
    for name, value in (("mean", mean), ("std", std)):
        if not isinstance(value, Number) or isinstance(value, bool):
            raise TypeError(f"normal(): argument '{name}' must be float, not {type(value).__name__}")
    check_std(std)


def check_floating_dtype(target: Any) -> None:
    if not target.is_floating_point:
        raise NotImplementedError(f"normal is not implemented for {target.name}: it draws floating point "
                                  f"numbers")


def check_normal_tensors(mean: Any, std: Any, size: Any) -> None:
    """``normal(mean, std)`` with a tensor: no size, floating point, ``std >= 0``."""
    if size is not None:
        raise TypeError("normal(): size= is only accepted with a float mean and std; with a tensor, the "
                        "result takes its shape")
    like = mean if isinstance(mean, Tensor) else std
    if not like.dtype.is_floating_point:
        raise NotImplementedError(f"normal is not implemented for {like.dtype.name} tensors: it draws "
                                  f"floating point numbers")
    check_std(std)


def check_mean_and_std(mean_t: Tensor, std_t: Tensor) -> None:
    """One device, shapes that broadcast together."""
    if mean_t.device != std_t.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{mean_t.device} and {std_t.device}! (normal)")
    try:
        numpy.broadcast_shapes(mean_t.shape, std_t.shape)
    except ValueError:
        raise RuntimeError(f"normal: the shapes of mean {list(mean_t.shape)} and std {list(std_t.shape)} "
                           f"do not broadcast") from None


def probabilities(p: Any, function: str) -> numpy.ndarray:
    """``p`` on the host, every probability in [0, 1] (NaN is not)."""
    host = backend.to_host(p.array) if isinstance(p, Tensor) else numpy.asarray(p, dtype=numpy.float64)
    if host.size and not ((host >= 0) & (host <= 1)).all():  # NaN fails both tests, as in PyTorch
        bad = host[~((host >= 0) & (host <= 1))].reshape(-1)[0]
        raise RuntimeError(f"{function}: expected all probabilities p to be in [0, 1], but found p = {bad}")
    return host


def check_bernoulli_input(input: Tensor) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"bernoulli_tensor_cpu_self_" not implemented for '
                                  f"'{input.dtype.name}' (probabilities must be a floating point tensor)")
