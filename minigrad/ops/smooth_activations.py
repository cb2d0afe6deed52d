"""The smooth activation functions: gelu, silu, elu, softplus (relu, leaky_relu, tanh and sigmoid
are in ``activations.py``). Each Function states its derivative; its derivative kernel, a Function
right below (PyTorch's ``gelu_backward``, ...), gives the second derivative.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import inplace as _inplace
from minigrad.ops._util import (
    ieee_results,
    not_implemented_for,
)
from minigrad.ops.elementwise import Where, erfc_array
from minigrad.tensor import Tensor

_SQRT_2_OVER_PI = 0.7978845608028654  # √(2/π)
_INV_SQRT_2PI = 0.3989422804014327    # 1/√(2π)


class Gelu(Function):
    """y = x·Φ(x), Φ(x) = ½ erfc(−x/√2);   dy/dx = Φ(x) + x·φ(x), φ(x) = e^(−x²/2)/√(2π).
    'tanh': y = ½x(1 + t), t = tanh(√(2/π)(x + 0.044715x³));
            dy/dx = ½(1 + t) + ½x(1 − t²)·√(2/π)(1 + 3·0.044715x²).
    """

    @staticmethod
    def forward(ctx, a, approximate):
        ctx.save_for_backward(a)
        ctx.approximate = approximate
        x, xp = a.array, get_array_module(a)
        if approximate == "tanh":
            return Tensor(0.5 * x * (1 + xp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))))
        return Tensor(0.5 * x * erfc_array(xp, -x * 0.7071067811865476))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return GeluBackward.apply(grad, a, ctx.approximate), None


class GeluBackward(Function):
    """gelu's backward, da = dy · gelu'(a), as a Function of (dy, a) (gelu' in ``Gelu``'s docstring);
    d(da)/d(dy) = gelu'(a),  d(da)/da = dy · gelu''(a), where
    gelu''(x) = φ(x)(2 − x²), and for 'tanh' (u = √(2/π)(x + 0.044715x³), t = tanh u)
    gelu''(x) = (1 − t²)(u' − x·t·u'² + ½x·u'')."""

    graph_inputs = (0, 1)

    @staticmethod
    def forward(ctx, grad, a, approximate):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, a)
        ctx.approximate = approximate
        x, xp = a.array, get_array_module(a)
        if approximate == "tanh":
            t = xp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))
            slope = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
        else:
            slope = 0.5 * erfc_array(xp, -x * 0.7071067811865476) + x * _INV_SQRT_2PI * xp.exp(-0.5 * x * x)
        return Tensor(grad.array * slope.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, a = ctx.saved_tensors
        d_grad = GeluBackward.apply(grad_grad, a, ctx.approximate) if ctx.needs_input_grad[0] else None
        d_a = None
        if ctx.needs_input_grad[1]:
            if ctx.approximate == "tanh":
                k, c = _SQRT_2_OVER_PI, 0.044715
                t = (k * (a + c * a * a * a)).tanh()
                du = k * (1 + 3 * c * a * a)
                curvature = (1 - t * t) * (du - a * t * du * du + 3 * k * c * a * a)   # ½x·u'' = 3kc·x²
            else:
                curvature = (a * a * -0.5).exp() * _INV_SQRT_2PI * (2 - a * a)
            d_a = grad_grad * grad * curvature
        return d_grad, d_a, None


def _sigmoid_array(xp: Any, x: Any) -> Any:
    """σ(x) = 1 / (1 + e⁻ˣ) without overflow (as ``Sigmoid``)."""
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e))


class Silu(Function):
    """y = x·σ(x);   dy/dx = σ(x)(1 + x(1 − σ(x)))."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return Tensor(a.array * _sigmoid_array(get_array_module(a), a.array))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return SiluBackward.apply(grad, a)


class SiluBackward(Function):
    """silu's backward, da = dy · σ(a)(1 + a(1 − σ(a))), as a Function of (dy, a);
    d(da)/d(dy) = the same slope,  d(da)/da = dy · σ(a)(1 − σ(a))(2 + a(1 − 2σ(a)))."""

    @staticmethod
    def forward(ctx, grad, a):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, a)
        x = a.array
        s = _sigmoid_array(get_array_module(a), x)
        return Tensor(grad.array * s * (1 + x * (1 - s)))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, a = ctx.saved_tensors
        d_grad = SiluBackward.apply(grad_grad, a) if ctx.needs_input_grad[0] else None
        d_a = None
        if ctx.needs_input_grad[1]:
            s = a.sigmoid()
            d_a = grad_grad * grad * (s * (1 - s) * (2 + a * (1 - 2 * s)))
        return d_grad, d_a


class Elu(Function):
    """y = x where x > 0, else α(eˣ − 1);   dy/dx = 1 where x > 0, else α eˣ (α at 0, as PyTorch).

    At a nan x the slope is nan, as in PyTorch's vectorised kernel (its scalar loop, used for short
    tensors, gives 1 there instead)."""

    @staticmethod
    def forward(ctx, a, alpha):
        ctx.save_for_backward(a)
        ctx.alpha = alpha
        x, xp = a.array, get_array_module(a)
        with ieee_results():
            return Tensor(xp.where(x > 0, x, alpha * xp.expm1(xp.minimum(x, 0))))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return EluBackward.apply(grad, a, ctx.alpha), None


class EluBackward(Function):
    """elu's backward, da = dy where a > 0, else dy · α eᵃ, as a Function of (dy, a);
    d(da)/d(dy) = the same slope,  d(da)/da = 0 where a ≥ 0, else dy · α eᵃ."""

    graph_inputs = (0, 1)

    @staticmethod
    def forward(ctx, grad, a, alpha):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, a)
        ctx.alpha = alpha
        x, xp = a.array, get_array_module(a)
        slope = xp.where(x > 0, 1.0, alpha * xp.exp(xp.minimum(x, 0)))
        return Tensor(grad.array * slope.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, a = ctx.saved_tensors
        d_grad = EluBackward.apply(grad_grad, a, ctx.alpha) if ctx.needs_input_grad[0] else None
        d_a = None
        if ctx.needs_input_grad[1]:
            # eᵃ of a clamped at 0: no overflow (and no inf · 0) where a > 0 selects 0
            curvature = a.clamp(max=0).exp() * ctx.alpha
            # 0 at the kink a = 0 too, as PyTorch's elu_double_backward (its mask is a < 0)
            d_a = grad_grad * grad * Where.apply(Tensor(a.array >= 0), 0.0, curvature)
        return d_grad, d_a, None


class Softplus(Function):
    """y = log(1 + e^(βx)) / β, and y = x where βx > threshold;   dy/dx = σ(βx) (1 beyond threshold)."""

    @staticmethod
    def forward(ctx, a, beta, threshold):
        ctx.save_for_backward(a)
        ctx.beta, ctx.threshold = beta, threshold
        x, xp = a.array, get_array_module(a)
        bx = x * beta
        with ieee_results():
            return Tensor(xp.where(bx > threshold, x, xp.log1p(xp.exp(xp.minimum(bx, threshold))) / beta)
                        .astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return SoftplusBackward.apply(grad, a, ctx.beta, ctx.threshold), None, None


class SoftplusBackward(Function):
    """softplus's backward, da = dy · σ(βa) (dy where βa > threshold), as a Function of (dy, a);
    d(da)/d(dy) = the same slope,  d(da)/da = dy · β σ(βa)(1 − σ(βa)) (0 from βa = threshold on)."""

    graph_inputs = (0, 1)

    @staticmethod
    def forward(ctx, grad, a, beta, threshold):
        ctx.save_for_backward(grad if ctx.needs_input_grad[1] else None, a)
        ctx.beta, ctx.threshold = beta, threshold
        x, xp = a.array, get_array_module(a)
        bx = x * beta
        z = xp.exp(xp.minimum(bx, threshold))
        slope = xp.where(bx > threshold, 1.0, z / (z + 1))
        return Tensor(grad.array * slope.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad_grad):
        grad, a = ctx.saved_tensors
        beta, threshold = ctx.beta, ctx.threshold
        d_grad = SoftplusBackward.apply(grad_grad, a, beta, threshold) if ctx.needs_input_grad[0] else None
        d_a = None
        if ctx.needs_input_grad[1]:
            z = (a * beta).clamp(max=threshold).exp()
            curvature = z / ((z + 1) * (z + 1)) * beta     # β σ(βa)(1 − σ(βa)) = β z / (1 + z)²
            # 0 at the kink βa = threshold too, as PyTorch's softplus_double_backward (mask βa < threshold)
            d_a = grad_grad * grad * Where.apply(Tensor(a.array * beta >= threshold), 0.0, curvature)
        return d_grad, d_a, None, None


def _check_floating(a: Tensor, kernel: str) -> None:
    if not isinstance(a, Tensor):
        raise TypeError(f"{kernel}(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}")
    if not a.dtype.is_floating_point:
        raise not_implemented_for(kernel, a)


def gelu(a: Tensor, approximate: str = "none") -> Tensor:
    """x·Φ(x) (Φ the standard normal CDF), or its tanh approximation with ``approximate='tanh'``."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh. (got {approximate!r})")
    _check_floating(a, "GeluKernelImpl")
    return Gelu.apply(a, approximate)


def silu(a: Tensor, inplace: bool = False) -> Tensor:
    """x·σ(x) (the swish); ``inplace=True`` overwrites ``a``."""
    _check_floating(a, "silu_cpu")
    if inplace:
        return _inplace.apply(a, "silu_", Silu.apply)
    return Silu.apply(a)


def elu(a: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else α(eˣ − 1); ``inplace=True`` overwrites ``a``."""
    _check_floating(a, "elu_cpu")
    if inplace:
        return _inplace.apply(a, "elu_", lambda t: Elu.apply(t, alpha))
    return Elu.apply(a, alpha)


def softplus(a: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + e^(βx)) / β, reverting to x where βx > threshold."""
    _check_floating(a, "softplus_cpu")
    return Softplus.apply(a, beta, threshold)
