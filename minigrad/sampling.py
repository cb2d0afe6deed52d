"""Sampling from distributions given by tensors: ``mg.normal`` and ``mg.bernoulli`` (also
``Tensor.bernoulli_``), as PyTorch's.

The numbers are drawn on the host by minigrad's seeded generator and copied to the tensor's
device, as every random number in minigrad is. Sampling is not differentiable: as in PyTorch the
result of a tensor-parameter ``normal`` or ``bernoulli`` joins the graph, and the gradient it sends
back to the parameters is zero (use ``mean + std * mg.randn_like(std)`` to differentiate through
a sample, the reparameterisation trick).
"""

from __future__ import annotations

from numbers import Number
from typing import Any

import numpy

from minigrad import backend
from minigrad import dtypes as _dtypes
from minigrad.autograd.function import Function
from minigrad.ops import inplace
from minigrad.ops._util import wrap
from minigrad.random import Generator, generator_argument
from minigrad.tensor import Tensor

__all__ = ["normal", "bernoulli", "bernoulli_"]


class Normal(Function):  # PyTorch's node: NormalBackward
    """y ~ N(mean, std²) elementwise;   dy/dmean = dy/dstd = 0 (a sample is not differentiated)."""

    @staticmethod
    def forward(ctx, mean, std, rng, dtype):
        ctx.shapes = (mean.shape, std.shape)
        ctx.dtypes = (mean.dtype, std.dtype)
        shape = numpy.broadcast_shapes(mean.shape, std.shape)
        host = rng.standard_normal(shape) * backend.to_host(std.array) + backend.to_host(mean.array)
        return wrap(backend.from_host(numpy.asarray(host, dtype=dtype.numpy), mean.device))

    @staticmethod
    def backward(ctx, grad):
        from minigrad.creation import zeros  # noqa: PLC0415 (creation imports this module's users)

        mean_shape, std_shape = ctx.shapes
        mean_dtype, std_dtype = ctx.dtypes
        return (zeros(mean_shape, dtype=mean_dtype, device=grad.device),
                zeros(std_shape, dtype=std_dtype, device=grad.device), None, None)


class Bernoulli(Function):  # PyTorch's node: BernoulliBackward0
    """y ~ Bernoulli(p) elementwise (1 with probability p, else 0);   dy/dp = 0."""

    @staticmethod
    def forward(ctx, p, rng):
        ctx.shape, ctx.dtype = p.shape, p.dtype
        host = rng.random(p.shape) < backend.to_host(p.array)
        return wrap(backend.from_host(host.astype(p.dtype.numpy), p.device))

    @staticmethod
    def backward(ctx, grad):
        from minigrad.creation import zeros  # noqa: PLC0415

        return zeros(ctx.shape, dtype=ctx.dtype, device=grad.device), None


def _check_std(std: Any) -> None:
    smallest = float(backend.to_host(std.array).min()) if isinstance(std, Tensor) and std.numel() else std
    if isinstance(smallest, Number) and not smallest >= 0.0:
        raise RuntimeError(f"normal expects all elements of std >= 0.0, but found std {smallest}")


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Generator | None = None,
           dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Normal samples: ``normal(mean, std, size)`` with numbers gives a tensor of ``size``;
    with tensors, one sample per element of ``mean`` and ``std`` broadcast together.

    ``mg.normal(0, 1, (100, 2))`` is ``mg.randn(100, 2)``; ``mg.normal(mu, sigma)`` draws
    ``mu + sigma * ε`` element by element.
    """
    from minigrad.creation import _dtype, _finish, _size  # noqa: PLC0415

    rng = generator_argument(generator, "normal").rng
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: with a float mean and "
                            "std, give the size of the result (normal(mean, std, size))")
        for name, value in (("mean", mean), ("std", std)):
            if not isinstance(value, Number) or isinstance(value, bool):
                raise TypeError(f"normal(): argument '{name}' must be float, not {type(value).__name__}")
        _check_std(std)
        target = _dtype(dtype, "normal")
        if not target.is_floating_point:
            raise NotImplementedError(f"normal is not implemented for {target.name}: it draws floating point "
                                      f"numbers")
        shape = _size((size,) if isinstance(size, int) else tuple(size), "normal", None)
        host = rng.normal(float(mean), float(std), size=shape).astype(target.numpy)
        return _finish(host, device, requires_grad, "normal")
    if size is not None:
        raise TypeError("normal(): size= is only accepted with a float mean and std; with a tensor, the "
                        "result takes its shape")
    like = mean if isinstance(mean, Tensor) else std
    if not like.dtype.is_floating_point:
        raise NotImplementedError(f"normal is not implemented for {like.dtype.name} tensors: it draws "
                                  f"floating point numbers")
    _check_std(std)
    mean_t = mean if isinstance(mean, Tensor) else Tensor(backend.from_host(
        numpy.asarray(mean, dtype=like.dtype.numpy), like.device))
    std_t = std if isinstance(std, Tensor) else Tensor(backend.from_host(
        numpy.asarray(std, dtype=like.dtype.numpy), like.device))
    if mean_t.device != std_t.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{mean_t.device} and {std_t.device}! (normal)")
    try:
        numpy.broadcast_shapes(mean_t.shape, std_t.shape)
    except ValueError:
        raise RuntimeError(f"normal: the shapes of mean {list(mean_t.shape)} and std {list(std_t.shape)} "
                           f"do not broadcast") from None
    return Normal.apply(mean_t, std_t, rng, _dtypes.promote_types(mean_t.dtype, std_t.dtype))


def _probabilities(p: Any, function: str) -> numpy.ndarray:
    host = backend.to_host(p.array) if isinstance(p, Tensor) else numpy.asarray(p, dtype=numpy.float64)
    if host.size and not ((host >= 0) & (host <= 1)).all():  # NaN fails both tests, as in PyTorch
        bad = host[~((host >= 0) & (host <= 1))].reshape(-1)[0]
        raise RuntimeError(f"{function}: expected all probabilities p to be in [0, 1], but found p = {bad}")
    return host


def bernoulli(input: Tensor, p: Any = None, *, generator: Generator | None = None) -> Tensor:  # noqa: A002
    """0/1 samples, 1 with probability ``input`` (element by element), of ``input``'s dtype.

    ``mg.bernoulli(mg.full((3,), 0.5))`` flips three fair coins. With ``p`` given, every
    element uses probability ``p`` instead (``input`` only gives the shape and dtype).
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    rng = generator_argument(generator, "bernoulli").rng
    if p is not None:
        return bernoulli_(input.detach().clone(), p, generator=generator)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"bernoulli_tensor_cpu_self_" not implemented for '
                                  f"'{input.dtype.name}' (probabilities must be a floating point tensor)")
    _probabilities(input, "bernoulli")
    return Bernoulli.apply(input, rng)


def bernoulli_(a: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill ``a`` in place with 0/1 samples, 1 with probability ``p`` (a number, or a tensor that
    broadcasts to ``a``)."""
    rng = generator_argument(generator, "bernoulli_").rng
    host = _probabilities(p, "bernoulli_")
    try:
        draws = rng.random(a.shape) < numpy.broadcast_to(host, a.shape)
    except ValueError:
        raise RuntimeError(f"bernoulli_: the shape of p {list(numpy.shape(host))} does not broadcast to the "
                           f"tensor's shape {list(a.shape)}") from None
    return inplace._fill_from_host(a, "bernoulli_", draws.astype(a.dtype.numpy))
