"""Weight initialisation, in place and without recording gradients, as ``torch.nn.init``.

The scaled schemes keep the variance of activations (Xavier/Glorot) or of ReLU
activations (Kaiming/He) roughly constant from layer to layer:

    xavier:   std = gain · √(2 / (fan_in + fan_out))
    kaiming:  std = gain / √fan,   gain = calculate_gain(nonlinearity, a)
    uniform variants draw from U(−√3·std, √3·std), which has that std.

``trunc_normal_`` draws N(mean, std²) restricted to [a, b]; ``orthogonal_`` a (semi-)orthogonal
matrix (Q of a Gaussian's QR); ``eye_`` and ``dirac_`` identities for Linear and Conv layers.

Random numbers come from minigrad's host generator (``mg.manual_seed``, or ``generator=``).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from minigrad.autograd.grad_mode import no_grad
from minigrad.backend import get_array_module
from minigrad.creation import empty, empty_like, eye
from minigrad.creation import tensor as _tensor
from minigrad.dtypes import int64
from minigrad.ops.elementwise import where
from minigrad.random import Generator
from minigrad.tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "zeros_", "ones_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "orthogonal_"]

_LINEAR_FUNCTIONS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                     "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The recommended gain for a nonlinearity: 1 (linear, sigmoid), 5/3 (tanh), √2 (relu),
    √(2 / (1 + slope²)) (leaky_relu, slope ``param``, default 0.01), 3/4 (selu)."""
    if nonlinearity in _LINEAR_FUNCTIONS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """fan_in = size(1) · receptive field, fan_out = size(0) · receptive field (Linear: in, out)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = 1
    for size in tensor.shape[2:]:
        receptive_field *= size
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _no_op_for_empty(tensor: Tensor) -> bool:
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill with U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Generator | None = None) -> Tensor:
    """Fill with N(mean, std²)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _norm_cdf(x: float) -> float:
    """Φ(x), the standard normal CDF."""
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Generator | None = None) -> Tensor:
    """Fill with N(mean, std²) restricted to [a, b], by rejection sampling as PyTorch's.

    When [a, b] holds more than 30% of the normal's mass, draws outside it are redrawn from the normal;
    otherwise uniform draws on [a, b] are kept with probability pdf(x) / pdf(mode).
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        mass = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if mass > 0.3:
            result = _redrawn_normal(tensor, mean, std, a, b, generator)
        else:
            result = _accepted_uniform(tensor, mean, std, a, b, generator)
        return tensor.copy_(result)


def _redrawn_normal(tensor: Tensor, mean: float, std: float, a: float, b: float,
                    generator: Generator | None) -> Tensor:
    """N(mean, std²) draws, each one outside [a, b] redrawn until none is."""
    lo, hi = (_tensor(bound, dtype=tensor.dtype).item() for bound in (a, b))  # the bounds the dtype holds
    result = empty_like(tensor).normal_(mean, std, generator=generator)
    while True:
        outside = (result < lo) | (result > hi)
        if not bool(outside.any()):
            return result
        result = where(outside, empty_like(result).normal_(mean, std, generator=generator), result)


def _accepted_uniform(tensor: Tensor, mean: float, std: float, a: float, b: float,
                      generator: Generator | None) -> Tensor:
    """U(a, b) proposals x, each kept when log u ≤ log pdf(x) − log pdf(mode), u ~ U(0, 1)."""
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def rejected(x: Tensor) -> Tensor:
        log_pdf = -0.5 * ((x - mean) / std) ** 2 - log_peak
        return empty_like(x).uniform_(generator=generator).log() > log_pdf

    result = empty_like(tensor).uniform_(a, b, generator=generator)
    pending = rejected(result)
    while bool(pending.any()):
        candidates = empty_like(result).uniform_(a, b, generator=generator)
        result = where(pending, candidates, result)
        pending = pending & rejected(candidates)
    return result


def constant_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def ones_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.fill_(1.0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix (ones on the diagonal of a rectangle)."""
    if tensor.ndim != 2:
        raise ValueError(f"Only tensors with 2 dimensions are supported (got shape {list(tensor.shape)})")
    with no_grad():
        rows, columns = tensor.shape
        tensor.copy_(eye(rows, columns, dtype=tensor.dtype, device=tensor.device))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D conv weight with the Dirac delta: output channel g·(C_out/groups) + d of
    each group copies input channel d (for d < min(C_out/groups, C_in)) at the kernel's centre."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError(f"Only tensors with 3, 4, or 5 dimensions are supported (got shape "
                         f"{list(tensor.shape)})")
    if tensor.shape[0] % groups != 0:
        raise ValueError(f"dim 0 must be divisible by groups (size {tensor.shape[0]}, groups={groups})")
    per_group = tensor.shape[0] // groups
    copied = min(per_group, tensor.shape[1])
    out_channels = [g * per_group + d for g in range(groups) for d in range(copied)]
    in_channels = [d for _ in range(groups) for d in range(copied)]
    centre = tuple(size // 2 for size in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        index = tuple(_tensor(channels, dtype=int64, device=tensor.device)
                      for channels in (out_channels, in_channels))
        tensor[index + centre] = 1
    return tensor


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Generator | None = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain``: Q of the QR of a Gaussian (rows × cols) matrix,
    its columns' signs fixed by diag(R) so that Q is uniform (Haar); trailing dimensions are flattened.

    With rows ≥ cols the columns are orthonormal (WᵀW = I), otherwise the rows are (WWᵀ = I).
    """
    if tensor.ndim < 2:
        raise ValueError(f"Only tensors with 2 or more dimensions are supported (got shape "
                         f"{list(tensor.shape)})")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    gaussian = empty(rows, cols, dtype=tensor.dtype, device=tensor.device).normal_(0, 1, generator=generator)
    matrix = gaussian.array if rows >= cols else gaussian.array.T  # QR of the tall orientation
    xp = get_array_module(matrix)
    q, r = xp.linalg.qr(matrix)
    q = q * xp.sign(xp.diagonal(r))
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.copy_(Tensor(q.astype(matrix.dtype, copy=False)).reshape(tensor.shape))
        tensor.mul_(gain)
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill with U(−a, a), a = gain · √(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill with N(0, std²), std = gain · √(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: Generator | None = None) -> Tensor:
    """Fill with U(−bound, bound), bound = √3 · gain / √fan. Layers use a = √5, giving bound = 1/√fan_in."""
    if _no_op_for_empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: Generator | None = None) -> Tensor:
    """Fill with N(0, std²), std = gain / √fan."""
    if _no_op_for_empty(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def reset_layer_parameters_(weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's default for Linear and Conv2d: W ~ kaiming_uniform_(a=√5), i.e. U(±1/√fan_in),
    and b ~ U(±1/√fan_in), with fan_in = in_features (or C_in/groups·kh·kw)."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)


def _deprecated(method: Any) -> Any:
    """PyTorch's old name without the trailing underscore: warns, then calls ``method``."""
    old_name = method.__name__[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{method.__name__}`.",
                      FutureWarning, stacklevel=2)
        return method(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"Deprecated alias of :func:`{method.__name__}` (as in PyTorch)."
    return deprecated_init


# PyTorch still accepts these (with a FutureWarning); older course code calls them.
uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
