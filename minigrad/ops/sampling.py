"""Sampling: category indices with ``torch.multinomial``, normal and 0/1 samples with
``torch.normal`` and ``torch.bernoulli`` (also ``Tensor.bernoulli_``).

The random numbers come from minigrad's own generator on the host (so a seed gives the
same samples on every device) and are copied to the input's device; the sampling itself
is a few whole-array operations, with no loop over rows. A sample is not differentiated: as
in PyTorch, a ``normal`` or ``bernoulli`` of tensor parameters joins the graph and sends zero
gradient back to them (use ``mean + std * mg.randn_like(std)`` to differentiate through a
sample, the reparameterisation trick).
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend
from minigrad import dtypes as _dtypes
from minigrad._arguments import bool_argument, int_argument
from minigrad.autograd.function import Function
from minigrad.ops import inplace
from minigrad.ops._checks import sampling as checks
from minigrad.random import Generator, generator_argument
from minigrad.tensor import Tensor

__all__ = ["multinomial", "normal", "bernoulli", "bernoulli_"]


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,  # noqa: A002
                generator: Generator | None = None) -> Tensor:
    """``num_samples`` category indices per row of ``input`` (1-D: one row; 2-D: one row each).

    A row holds non-negative weights (they need not sum to 1); index ``j`` is drawn with
    probability ``input[j] / input.sum()``. The result is int64, of shape ``(num_samples,)`` or
    ``(rows, num_samples)``, on the input's device.

    - With replacement, each draw inverts the row's cumulative distribution:
      ``j = #{c : cdf[c] <= u}`` for ``u ~ U[0, 1)``, found by one ``searchsorted`` over all rows.
    - Without replacement, an exponential race: every category ``j`` gets the time
      ``e_j / p_j`` with ``e_j ~ Exp(1)``; the categories in order of arrival are distributed
      exactly as drawing one at a time and removing it (the Gumbel-top-k trick). Categories of
      weight 0 arrive last (in index order, as PyTorch's).
    """
    checks.check_input_tensor(input, "multinomial")
    num_samples = int_argument(num_samples, "multinomial", "num_samples", position=2)
    replacement = bool_argument(replacement, "multinomial", "replacement", position=3)
    rng = generator_argument(generator, "multinomial").rng
    checks.check_multinomial(input, num_samples, replacement)
    xp = backend.get_array_module(input.array)
    categories = input.shape[-1]
    rows = input.shape[0] if input.ndim == 2 else 1
    if rows == 0:
        return Tensor(xp.zeros((0, num_samples), dtype=xp.int64))
    weights = input.array.reshape(rows, categories).astype(xp.float64)
    checks.check_distributions(xp, weights)
    if replacement:
        uniforms = backend.from_host(rng.random((rows, num_samples)), input.device)
        indices = _with_replacement(xp, weights, uniforms)
    else:
        arrivals = backend.from_host(rng.standard_exponential(weights.shape), input.device)
        indices = _without_replacement(xp, weights, arrivals, num_samples)
    return Tensor(indices.reshape((*input.shape[:-1], num_samples)))


def _with_replacement(xp: Any, weights: Any, uniforms: Any) -> Any:
    """Inverse-CDF sampling of every row at once, one draw per ``uniforms`` entry (U[0, 1)).

    One sorted array holds all rows' CDFs, row ``i`` shifted to ``[2i, 2i + 1]``, so a single
    ``searchsorted`` finds every draw ``u + 2i``. The gap of 1 between rows keeps a draw that
    rounds up to its row's end inside its row; such a draw (and one beyond a CDF that sums to
    just under 1) is the row's last category of positive weight.
    """
    rows, categories = weights.shape
    num_samples = uniforms.shape[1]
    cdf = xp.cumsum(weights, axis=1)
    cdf /= cdf[:, -1:]
    shift = 2.0 * xp.arange(rows, dtype=xp.float64)[:, None]
    draws = uniforms + shift
    flat = xp.searchsorted((cdf + shift).reshape(-1), draws.reshape(-1), side="right")
    local = flat.reshape(rows, num_samples) - categories * xp.arange(rows)[:, None]
    last_positive = categories - 1 - xp.argmax(weights[:, ::-1] > 0, axis=1)
    return xp.minimum(local, last_positive[:, None]).astype(xp.int64)


def _without_replacement(xp: Any, weights: Any, arrivals: Any, num_samples: int) -> Any:
    """The exponential race: the ``num_samples`` largest ``p_j / e_j`` in decreasing order (a stable
    sort, so ties among zero weights go by index). ``arrivals`` holds the ``e_j ~ Exp(1)``."""
    keys = weights / xp.maximum(arrivals, numpy.finfo(numpy.float64).tiny)  # e_j = 0 has odds 2**-53
    if num_samples == 1:  # the first arrival alone (argmax takes the first of ties, as the sort)
        return xp.argmax(keys, axis=1)[:, None].astype(xp.int64)
    order = xp.argsort(-keys, axis=1, kind="stable")
    return order[:, :num_samples].astype(xp.int64)


class Normal(Function):  # PyTorch's node: NormalBackward
    """y ~ N(mean, std²) elementwise;   dy/dmean = dy/dstd = 0 (a sample is not differentiated)."""

    @staticmethod
    def forward(ctx, mean, std, rng, dtype):
        ctx.shapes = (mean.shape, std.shape)
        ctx.dtypes = (mean.dtype, std.dtype)
        shape = numpy.broadcast_shapes(mean.shape, std.shape)
        host = rng.standard_normal(shape) * backend.to_host(std.array) + backend.to_host(mean.array)
        return Tensor(backend.from_host(numpy.asarray(host, dtype=dtype.numpy), mean.device))

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
        return Tensor(backend.from_host(host.astype(p.dtype.numpy), p.device))

    @staticmethod
    def backward(ctx, grad):
        from minigrad.creation import zeros  # noqa: PLC0415

        return zeros(ctx.shape, dtype=ctx.dtype, device=grad.device), None


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
        checks.check_normal_numbers(mean, std, size)
        target = _dtype(dtype, "normal")
        checks.check_floating_dtype(target)
        shape = _size((size,) if isinstance(size, int) else tuple(size), "normal", None)
        host = rng.normal(float(mean), float(std), size=shape).astype(target.numpy)
        return _finish(host, device, requires_grad, "normal")
    checks.check_normal_tensors(mean, std, size)
    like = mean if isinstance(mean, Tensor) else std
    mean_t = mean if isinstance(mean, Tensor) else Tensor(backend.from_host(
        numpy.asarray(mean, dtype=like.dtype.numpy), like.device))
    std_t = std if isinstance(std, Tensor) else Tensor(backend.from_host(
        numpy.asarray(std, dtype=like.dtype.numpy), like.device))
    checks.check_mean_and_std(mean_t, std_t)
    return Normal.apply(mean_t, std_t, rng, _dtypes.promote_types(mean_t.dtype, std_t.dtype))


def bernoulli(input: Tensor, p: Any = None, *, generator: Generator | None = None) -> Tensor:  # noqa: A002
    """0/1 samples, 1 with probability ``input`` (element by element), of ``input``'s dtype.

    ``mg.bernoulli(mg.full((3,), 0.5))`` flips three fair coins. With ``p`` given, every
    element uses probability ``p`` instead (``input`` only gives the shape and dtype).
    """
    checks.check_input_tensor(input, "bernoulli")
    rng = generator_argument(generator, "bernoulli").rng
    if p is not None:
        return bernoulli_(input.detach().clone(), p, generator=generator)
    checks.check_bernoulli_input(input)
    checks.probabilities(input, "bernoulli")
    return Bernoulli.apply(input, rng)


def bernoulli_(a: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill ``a`` in place with 0/1 samples, 1 with probability ``p`` (a number, or a tensor that
    broadcasts to ``a``)."""
    rng = generator_argument(generator, "bernoulli_").rng
    host = checks.probabilities(p, "bernoulli_")
    try:
        draws = rng.random(a.shape) < numpy.broadcast_to(host, a.shape)
    except ValueError:
        raise RuntimeError(f"bernoulli_: the shape of p {list(numpy.shape(host))} does not broadcast to the "
                           f"tensor's shape {list(a.shape)}") from None
    return inplace._fill_from_host(a, "bernoulli_", draws.astype(a.dtype.numpy))
