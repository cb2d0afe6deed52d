"""Losses with one term per element, reduced by 'mean' (over every element), 'sum' or 'none':
binary cross-entropy (of logits, or of probabilities), the regression losses of the difference
d = x − y (MSE, L1, smooth L1, Huber) and the Kullback-Leibler divergence. Each states its
derivatives in its docstring. (With a weight, MSE and the others are composed of ordinary ops,
as PyTorch composes them.) The classification losses are in ``loss.py``.
"""

# ruff: noqa: A001, A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from typing import Any

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.dtypes import result_type
from minigrad.ops._checks import elementwise_losses as checks
from minigrad.ops._checks.loss import resolve_reduction
from minigrad.ops._util import ieee_results, sign_array
from minigrad.ops.elementwise import where
from minigrad.tensor import Tensor

# --- binary cross-entropy: elementwise, one loss per element ------------------------------------------

def _reduce_elements(loss: Any, reduction: str) -> Any:
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    with ieee_results():  # the mean of no elements is 0 / 0 = nan, as in PyTorch
        return loss.sum() / loss.size


def _element_scale(grad: Tensor, reduction: str, count: int) -> Tensor:
    """∂ out / ∂ lossᵢ: the incoming gradient itself ('none', 'sum'), or divided by the count ('mean')."""
    return grad / max(count, 1) if reduction == "mean" else grad


def _as_arrays(dtype: Any, *tensors: Tensor | None) -> list:
    """The tensors' arrays in the computation's dtype (None stays None)."""
    return [None if t is None else t.array.astype(dtype, copy=False) for t in tensors]


class BinaryCrossEntropyWithLogits(Function):
    """Binary cross-entropy of logits x against targets y, with pos_weight p and weight w (both broadcast):

        ℓ     = w·[(1 − y)·x + (1 + (p − 1)·y)·softplus(−x)]   (= −w·[p·y·log σ(x) + (1 − y)·log σ(−x)])
        dℓ/dx = w·[(1 + (p − 1)·y)·σ(x) − p·y]                (= w·[(1 − y) − (1 + (p − 1)·y)·σ(−x)])
        dℓ/dy = w·[−x + (p − 1)·softplus(−x)]      dℓ/dp = w·y·softplus(−x)      dℓ/dw = ℓ without w

    softplus(−x) = max(−x, 0) + log1p(e^−|x|) and σ are computed without a positive exponent, so
    |x| = 1000 gives finite values. p and w gradients have the loss's shape; the engine sums them
    back to p's and w's shapes. (PyTorch refuses weight and pos_weight that require grad.)
    """

    @staticmethod
    def forward(ctx, input, target, weight, pos_weight, reduction):
        dtype = result_type(input, target).numpy
        x, y, p, w = _as_arrays(dtype, input, target, pos_weight, weight)
        loss = _logits_unweighted(x, y, p, softplus_neg(Tensor(x)).array)
        if w is not None:
            loss = loss * w
        ctx.reduction = reduction
        ctx.save_for_backward(input, target, weight, pos_weight)
        return Tensor(_reduce_elements(loss, reduction).astype(target.dtype.numpy, copy=False))  # as PyTorch

    @staticmethod
    def backward(ctx, grad):
        input, target, weight, pos_weight = ctx.saved_tensors
        dtype = result_type(input, target)
        x, y = input.to(dtype), target.to(dtype)
        p, w = (None if t is None else t.to(dtype) for t in (pos_weight, weight))
        scale = _element_scale(grad, ctx.reduction, x.numel())
        weighted = scale if w is None else scale * w
        need_x, need_y, need_w, need_p, _ = ctx.needs_input_grad
        softplus = softplus_neg(x) if need_y or need_w or need_p else None
        grad_x = grad_y = grad_w = grad_p = None
        if need_x:
            if p is None:
                grad_x = weighted * (x.sigmoid() - y)
            else:
                py = p * y
                grad_x = weighted * ((1 + py - y) * x.sigmoid() - py)
        if need_y:
            grad_y = weighted * (-x if p is None else -x + (p - 1) * softplus)
        if need_w:
            grad_w = scale * _logits_unweighted(x, y, p, softplus)
        if need_p:
            grad_p = weighted * y * softplus
        return grad_x, grad_y, grad_w, grad_p, None


def softplus_neg(x: Tensor) -> Tensor:
    """softplus(−x) = log(1 + e⁻ˣ) = −log σ(x), as max(−x, 0) + log1p(e^−|x|): no exponent is positive."""
    return (-x).clamp(min=0) + (-x.abs()).exp().log1p()


def _logits_unweighted(x: Any, y: Any, p: Any, softplus: Any) -> Any:
    """(1 − y)·x + (1 + (p − 1)·y)·softplus(−x), without p: (1 − y)·x + softplus(−x)."""
    return (1 - y) * x + (1 if p is None else 1 + (p - 1) * y) * softplus


class BinaryCrossEntropy(Function):
    """Binary cross-entropy of probabilities x in [0, 1] against targets y, with weight w (broadcast):

        ℓ     = −w·[y·max(log x, −100) + (1 − y)·max(log(1 − x), −100)]   (each log clamped, as PyTorch's)
        dℓ/dx = w·(x − y) / max(x·(1 − x), 1e-12)      dℓ/dy = −w·logit(x) = w·log((1 − x) / x)
        dℓ/dw = ℓ without w

    (PyTorch refuses a weight that requires grad.)
    """

    @staticmethod
    def forward(ctx, input, target, weight, reduction):
        x, y = input.array, target.array
        loss = _bce_unweighted(x, y)
        if weight is not None:
            loss = loss * weight.array.astype(x.dtype, copy=False)
        ctx.reduction = reduction
        ctx.save_for_backward(input, target, weight)
        return Tensor(_reduce_elements(loss, reduction))

    @staticmethod
    def backward(ctx, grad):
        x, y, weight = ctx.saved_tensors
        scale = _element_scale(grad, ctx.reduction, x.numel())
        weighted = scale if weight is None else scale * weight.to(x.dtype)
        need_x, need_y, need_w, _ = ctx.needs_input_grad
        grad_x = grad_y = grad_w = None
        if need_x:
            grad_x = weighted * (x - y) / (x * (1 - x)).clamp(min=1e-12)
        if need_y:
            grad_y = weighted * -(x / (1 - x)).log()  # logit(0) = −inf and logit(1) = inf, as PyTorch's
        if need_w:
            grad_w = scale * ((y - 1) * (-x).log1p().clamp(min=-100) - y * x.log().clamp(min=-100))
        return grad_x, grad_y, grad_w, None


def _bce_unweighted(x: Any, y: Any) -> Any:
    """(y − 1)·max(log1p(−x), −100) − y·max(log x, −100): PyTorch's order of operations."""
    xp = get_array_module(x)
    with ieee_results():  # log(0) = −inf before the clamp
        return (y - 1) * xp.maximum(xp.log1p(-x), -100) - y * xp.maximum(xp.log(x), -100)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: str = "mean") -> Tensor:
    """−w·[p·y·log σ(x) + (1 − y)·log(1 − σ(x))] for logits x, targets y of x's shape (stable for any x)."""
    reduction = resolve_reduction(reduction)
    checks.check_bce_with_logits(input, target, weight, pos_weight)
    return BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight, reduction)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         reduction: str = "mean") -> Tensor:
    """−w·[y·log x + (1 − y)·log(1 − x)] for probabilities x in [0, 1] (logs clamped at −100)."""
    reduction = resolve_reduction(reduction)
    checks.check_bce(input, target, weight)
    return BinaryCrossEntropy.apply(input, target, weight, reduction)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean squared error: (input − target)² reduced by 'mean', 'sum' or 'none' (one ``MseLoss`` node).

    With ``weight`` (input's shape): w ⊙ (input − target)², and 'mean' is Σ w (x − y)² / Σ w,
    composed of ordinary ops (as PyTorch composes it).
    """
    reduction = resolve_reduction(reduction)
    checks.check_mse(input, target)
    if weight is None:
        return MseLoss.apply(input, target, reduction, None)
    checks.check_mse_weight(weight, input)
    diff = input - target
    squared = diff * diff * weight
    if reduction == "none":
        return squared
    if reduction == "sum":
        return squared.sum()
    return squared.mean() if weight is None else squared.sum() / weight.sum()


# --- robust regression losses: functions of the difference d = x − y ------------------------------

class _DifferenceLoss(Function):
    """lossᵢ = f(dᵢ), dᵢ = xᵢ − yᵢ, reduced;  d loss/dxᵢ = f′(dᵢ)·g (÷ N for 'mean'),  d loss/dyᵢ = −that.
    Subclasses give f (``value``), f′ (``slope``) and f″ (``curvature``, piecewise constant) side by side;
    the derivative is :class:`DifferenceLossBackward`, whose own derivative uses f′ and f″."""

    @staticmethod
    def value(d: Any, parameter: float) -> Any:
        raise NotImplementedError

    @staticmethod
    def slope(d: Any, parameter: float) -> Any:
        raise NotImplementedError

    @staticmethod
    def curvature(d: Any, parameter: float) -> Any:
        """f″(d) as an array or a number; None where it is 0 everywhere."""
        raise NotImplementedError

    @classmethod
    def forward(cls, ctx, input, target, reduction, parameter):
        dtype = result_type(input, target).numpy
        ctx.diff = input.array.astype(dtype, copy=False) - target.array.astype(dtype, copy=False)
        ctx.reduction, ctx.parameter = reduction, parameter
        ctx.save_for_backward(input, target)  # for the backward's edges (their values are in ctx.diff)
        losses = cls.value(ctx.diff, parameter)
        if reduction == "none":
            return Tensor(losses)
        return Tensor(losses.sum() if reduction == "sum" else losses.mean())

    @classmethod
    def backward(cls, ctx, grad):
        grad_input = DifferenceLossBackward.apply(grad, *ctx.saved_tensors, ctx.diff, ctx.reduction,
                                                  ctx.parameter, cls)
        return grad_input, (-grad_input if ctx.needs_input_grad[1] else None), None, None


class DifferenceLossBackward(Function):
    """dx = f′(d)·g·k (k = 1/N for 'mean', else 1; dy = −dx) as a function of the loss's gradient g, x, y:

        d⟨ε, dx⟩/dg = Σ f′(d)·ε·k (one term per element for 'none'),    d⟨ε, dx⟩/dx = f″(d)·g·k·ε = −d/dy.

    f″ is piecewise constant, so the next derivative in x and y is 0 (PyTorch's ``*_double_backward``).
    """

    graph_inputs = (0, 1, 2)  # grad_output, input, target

    @staticmethod
    def forward(ctx, grad_output, input, target, diff, reduction, parameter, loss):  # noqa: A002
        ctx._name = loss.__name__ + "BackwardBackward0"  # PyTorch's MseLossBackwardBackward0, ...
        g = grad_output.array
        scale = g / diff.size if reduction == "mean" else g
        ctx.arguments = (diff, reduction, parameter, loss)
        ctx.save_for_backward(grad_output, input, target)
        return Tensor((loss.slope(diff, parameter) * scale).astype(diff.dtype, copy=False))

    @staticmethod
    def backward(ctx, gg):
        grad, input, target = ctx.saved_tensors
        diff, reduction, parameter, loss = ctx.arguments
        grad_grad = grad_input = None
        if ctx.needs_input_grad[0]:
            per_element = DifferenceLossBackward.apply(gg, input, target, diff, "none", parameter, loss)
            grad_grad = per_element if reduction == "none" else \
                per_element.sum() if reduction == "sum" else per_element.mean()
        curvature = loss.curvature(diff, parameter)
        if curvature is not None:
            if not isinstance(curvature, (int, float)):
                curvature = Tensor(curvature)
            grad_input = gg * grad * (curvature / diff.size if reduction == "mean" else curvature)
        elif ctx.needs_input_grad[1] or ctx.needs_input_grad[2]:
            grad_input = Tensor(get_array_module(diff).zeros_like(diff))  # f″ = 0: zeros, as PyTorch's
        grad_target = None if grad_input is None else -grad_input
        return grad_grad, grad_input, grad_target, None, None, None, None


class MseLoss(_DifferenceLoss):
    """f(d) = d²;   f′(d) = 2d,   f″(d) = 2. Broadcast operands get their gradients summed back."""

    @staticmethod
    def value(d: Any, parameter: float) -> Any:
        return d * d

    @staticmethod
    def slope(d: Any, parameter: float) -> Any:
        return 2 * d

    @staticmethod
    def curvature(d: Any, parameter: float) -> Any:
        return 2.0


class L1Loss(_DifferenceLoss):
    """f(d) = |d|;   f′(d) = sign d (0 at 0 and at nan),   f″(d) = 0."""

    @staticmethod
    def value(d: Any, parameter: float) -> Any:
        return get_array_module(d).abs(d)

    @staticmethod
    def slope(d: Any, parameter: float) -> Any:
        return sign_array(get_array_module(d), d)  # 0 at a nan d, as PyTorch

    @staticmethod
    def curvature(d: Any, parameter: float) -> Any:
        return None


class SmoothL1Loss(_DifferenceLoss):
    """f(d) = ½d²/β where |d| < β, else |d| − ½β;   f′(d) = d/β inside, sign d outside;   f″ = 1/β inside."""

    @staticmethod
    def value(d: Any, beta: float) -> Any:
        xp = get_array_module(d)
        size = xp.abs(d)
        return xp.where(size < beta, 0.5 * d * d / beta, size - 0.5 * beta)

    @staticmethod
    def slope(d: Any, beta: float) -> Any:
        xp = get_array_module(d)
        return xp.where(xp.abs(d) < beta, d / beta, xp.sign(d))

    @staticmethod
    def curvature(d: Any, beta: float) -> Any:
        return ((get_array_module(d).abs(d) < beta) / beta).astype(d.dtype)


class HuberLoss(_DifferenceLoss):
    """f(d) = ½d² where |d| < δ, else δ(|d| − ½δ);   f′(d) = d inside, δ·sign d outside;   f″ = 1 inside."""

    @staticmethod
    def value(d: Any, delta: float) -> Any:
        xp = get_array_module(d)
        size = xp.abs(d)
        return xp.where(size < delta, 0.5 * d * d, delta * (size - 0.5 * delta))

    @staticmethod
    def slope(d: Any, delta: float) -> Any:
        xp = get_array_module(d)
        return xp.clip(d, -delta, delta)

    @staticmethod
    def curvature(d: Any, delta: float) -> Any:
        return (get_array_module(d).abs(d) < delta).astype(d.dtype)


def _weighted(losses: Tensor, weight: Tensor, reduction: str, normalise: bool) -> Tensor:
    """w ⊙ losses, reduced, composed of ordinary ops as PyTorch composes it; 'mean' is Σ w·loss / Σ w
    when ``normalise`` (l1_loss), the plain mean of w·loss otherwise (huber_loss)."""
    checks.check_loss_weight(weight, losses)
    weighted = losses * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    return weighted.sum() / weight.sum() if normalise else weighted.mean()


def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean absolute error |input − target|, reduced by 'mean', 'sum' or 'none' (optionally weighted)."""
    reduction = resolve_reduction(reduction)
    checks.check_l1(input, target, reduction)
    if weight is None:
        return L1Loss.apply(input, target, reduction, None)
    return _weighted(L1Loss.apply(input, target, "none", None), weight, reduction, normalise=True)


def smooth_l1_loss(input: Tensor, target: Tensor, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """½d²/β where |d| < β, else |d| − ½β (d = input − target); β = 0 is the L1 loss."""
    reduction = resolve_reduction(reduction)
    checks.check_beta(beta)
    checks.check_regression("smooth_l1_cpu", input, target)
    if beta == 0:
        return L1Loss.apply(input, target, reduction, None)
    return SmoothL1Loss.apply(input, target, reduction, float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """½d² where |d| < δ, else δ(|d| − ½δ) (d = input − target): δ times smooth_l1_loss with β = δ."""
    reduction = resolve_reduction(reduction)
    checks.check_delta(delta)
    checks.check_regression("huber_cpu", input, target)
    if weight is None:
        return HuberLoss.apply(input, target, reduction, float(delta))
    return _weighted(HuberLoss.apply(input, target, "none", float(delta)), weight, reduction, normalise=False)


# --- Kullback-Leibler divergence: elementwise, composed as PyTorch's ------------------------------------

class XLogX(Function):
    """y = x·log x with 0·log 0 = 0 (PyTorch's xlogy(x, x));  dy/dx = log x + 1, and at x = 0 PyTorch's
    xlogy(x ≠ 0, x) + x / x = nan."""

    @staticmethod
    def forward(ctx, a):
        xp = get_array_module(a)
        x = a.array
        ctx.save_for_backward(a)
        with ieee_results():  # log of a negative target is nan, as PyTorch's
            return Tensor(xp.where(x == 0, x.dtype.type(0), x * xp.log(x)))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (where(x == 0, 0.0, x.log()) + x / x)


def kl_div(input: Tensor, target: Tensor, reduction: str = "mean", log_target: bool = False) -> Tensor:
    """KL(target ‖ input) pointwise, for log-probabilities ``input`` and probabilities ``target``:
    t·(log t − x) with 0·log 0 = 0 (``log_target``: eᵗ·(t − x) for log-probabilities t), then summed
    ('sum'), averaged over every element ('mean') or over the first dimension ('batchmean'), or not reduced.
    The operands broadcast."""
    if reduction != "batchmean":
        reduction = resolve_reduction(reduction)
    checks.check_kl_div(input, target)
    if log_target:
        pointwise = target.exp() * (target - input)
    else:
        pointwise = XLogX.apply(target) - target * input
    if reduction == "none":
        return pointwise
    if reduction == "mean":
        return pointwise.mean()
    total = pointwise.sum()
    return total / input.shape[0] if reduction == "batchmean" and input.ndim != 0 else total
