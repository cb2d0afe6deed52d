"""Drawing category indices from rows of probabilities: ``torch.multinomial``.

The random numbers come from minigrad's own generator on the host (so a seed gives the
same samples on every device) and are copied to the input's device; the sampling itself
is a few whole-array operations, with no loop over rows.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend
from minigrad._arguments import bool_argument, int_argument
from minigrad.ops._util import TORCH_TYPE_NAMES
from minigrad.random import Generator, generator_argument
from minigrad.tensor import Tensor

__all__ = ["multinomial"]


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
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    num_samples = int_argument(num_samples, "multinomial", "num_samples", position=2)
    replacement = bool_argument(replacement, "multinomial", "replacement", position=3)
    rng = generator_argument(generator, "multinomial").rng
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
    xp = backend.get_array_module(input.array)
    rows = input.shape[0] if input.ndim == 2 else 1
    if categories == 0 and rows > 0:
        raise RuntimeError(f"cannot sample from distributions with no categories (prob_dist of shape "
                           f"{list(input.shape)})")
    if rows == 0:
        return Tensor(xp.zeros((0, num_samples), dtype=xp.int64))
    weights = input.array.reshape(rows, categories).astype(xp.float64)
    _check_distributions(xp, weights)
    if replacement:
        uniforms = backend.from_host(rng.random((rows, num_samples)), input.device)
        indices = _with_replacement(xp, weights, uniforms)
    else:
        arrivals = backend.from_host(rng.standard_exponential(weights.shape), input.device)
        indices = _without_replacement(xp, weights, arrivals, num_samples)
    return Tensor(indices.reshape((*input.shape[:-1], num_samples)))


def _check_distributions(xp: Any, weights: Any) -> None:
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
