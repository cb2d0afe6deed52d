"""Classification losses as fused Functions: cross-entropy and negative log-likelihood.

Both see the input as rows: (N, C) as it is, (C,) as one row, (N, C, d1, ...) with the
class axis moved last and flattened to (N·d1·..., C). Row i has target class tᵢ and
weight aᵢ = w[tᵢ] (0 where tᵢ == ignore_index). With log-probabilities ℓ:

    nll:            lossᵢ = −aᵢ ℓ[i, tᵢ]                       d lossᵢ / d ℓᵢ = −aᵢ onehot(tᵢ)
    cross-entropy:  ℓ = log_softmax(x) (log-sum-exp),           d lossᵢ / d xᵢ = aᵢ (softmax(xᵢ) − onehot(tᵢ))

'mean' divides the sum by Σ aᵢ (the weighted count of rows that are not ignored;
0/0 = nan when every target is ignored, as in PyTorch), 'sum' does not, 'none' returns
one loss per target. Label smoothing ε > 0 mixes in a uniform target: (1 − ε) times the
loss above plus ε/C · Σ_c −w_c ℓ[i, c].
Binary cross-entropy (with logits x, or with probabilities) is elementwise: one loss per
element, weighted by w (broadcast), 'mean' over all elements. So is the mean squared error
at the end (with a weight, it is composed of ordinary ops, as PyTorch composes it).
"""

# ruff: noqa: A001, A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from typing import Any

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.dtypes import result_type
from minigrad.ops._checks import loss as checks
from minigrad.ops._util import grad_where, ieee_results, sign_array
from minigrad.ops.elementwise import where
from minigrad.ops.softmax import log_softmax, log_softmax_array
from minigrad.tensor import Tensor

# --- layout: classes last, one row per target ----------------------------------------------------

def to_rows(x: Any) -> Any:
    """(C,) -> (1, C);  (N, C) as is;  (N, C, d1, ...) -> (N·d1·..., C)."""
    if x.ndim == 1:
        return x.reshape(1, -1)
    if x.ndim == 2:
        return x
    return get_array_module(x).moveaxis(x, 1, -1).reshape(-1, x.shape[1])


def from_rows(rows: Any, shape: tuple) -> Any:
    """The inverse of :func:`to_rows` for an input of ``shape``."""
    if len(shape) <= 2:
        return rows.reshape(shape)
    moved = rows.reshape((shape[0],) + tuple(shape[2:]) + (shape[1],))
    return get_array_module(rows).moveaxis(moved, -1, 1)


def rows_of(t: Tensor) -> Tensor:
    """:func:`to_rows` in tensor operations (so that a backward using it can be differentiated)."""
    if t.ndim == 1:
        return t.reshape(1, -1)
    if t.ndim == 2:
        return t
    return t.movedim(1, -1).reshape(-1, t.shape[1])


def unrows(rows: Tensor, shape: tuple) -> Tensor:
    """:func:`from_rows` in tensor operations."""
    if len(shape) <= 2:
        return rows.reshape(shape)
    return rows.reshape((shape[0],) + tuple(shape[2:]) + (shape[1],)).movedim(-1, 1)


def _row_weights(ctx: Any, target: Tensor, weight: Tensor | None, ignore_index: int, dtype: Any) -> Any:
    """aᵢ = w[tᵢ] (1 without weights), 0 for ignored rows; keeps tᵢ (ignored -> class 0) in ctx."""
    xp = get_array_module(target)
    t = target.array.reshape(-1)
    valid = t != ignore_index
    ctx.classes = xp.where(valid, t, 0)
    ctx.valid = valid
    if weight is None:
        return valid.astype(dtype)
    return weight.array.astype(dtype, copy=False)[ctx.classes] * valid


def _loss_shape(input: Tensor, target: Tensor) -> tuple:
    """The shape of reduction='none': the target's, and () for an unbatched input (C,) (target () or (1,))."""
    return () if input.ndim == 1 else target.shape


def _reduce(per_row: Any, reduction: str, total_weight: Any, target_shape: tuple) -> Any:
    if reduction == "none":
        return per_row.reshape(target_shape)
    if reduction == "sum":
        return per_row.sum()
    with ieee_results():  # nothing to average over: 0 / 0 = nan, without NumPy's warning
        return per_row.sum() / total_weight


def _row_scale(grad: Tensor, reduction: str, total_weight: Any) -> Any:
    """How much each row's loss contributes to the output: ∂ out / ∂ lossᵢ, shaped (M, 1) or scalar.

    A 'mean' over no weight at all (every target ignored) is NaN; its gradient is 0, as in PyTorch.
    """
    g = grad.array
    if reduction == "none":
        return g.reshape(-1, 1)
    if reduction == "sum":
        return g
    return g / (total_weight + (total_weight == 0))  # Σ aᵢ = 0 means every aᵢ = 0: any finite scale


def _row_scale_tensor(grad: Tensor, reduction: str, total_weight: Any) -> Tensor:
    """:func:`_row_scale` in tensor operations."""
    if reduction == "none":
        return grad.reshape(-1, 1)
    if reduction == "sum":
        return grad
    denominator = total_weight + (total_weight == 0)
    return grad / Tensor(get_array_module(grad).asarray(denominator, dtype=grad.array.dtype))


class CrossEntropy(Function):
    """loss = −Σ_c q_c log_softmax(x)_c with q the (smoothed) one-hot target;  dℓ = −scale · q on the rows
    not ignored (exactly 0 on ignored rows, whatever they hold), dx = dℓ − softmax · Σ_c dℓ_c."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, input, target, weight, ignore_index, reduction, label_smoothing):
        xp = get_array_module(input)
        x = to_rows(input.array)
        classes = x.shape[1]
        logp = log_softmax_array(x, axis=1)
        a = _row_weights(ctx, target, weight, ignore_index, x.dtype)
        picked = xp.take_along_axis(logp, ctx.classes[:, None], axis=1)[:, 0]
        with ieee_results():  # −inf · 0 (a class weighted 0) is nan, as PyTorch's
            per_row = grad_where(ctx.valid, -a * picked)                # an ignored row adds 0, even nan
        if label_smoothing > 0:
            w = 1 if weight is None else weight.array.astype(x.dtype, copy=False)
            uniform = grad_where(ctx.valid, -(logp * w).sum(axis=1))     # Σ_c −w_c ℓ[i, c]
            per_row = (1 - label_smoothing) * per_row + (label_smoothing / classes) * uniform
        ctx.total_weight = a.sum()
        ctx.settings = (reduction, label_smoothing, input.shape)
        ctx.row_weight = a
        ctx.save_for_backward(input, weight)
        return Tensor(_reduce(per_row, reduction, ctx.total_weight, _loss_shape(input, target)))

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        xp = get_array_module(input)
        reduction, smoothing, input_shape = ctx.settings
        rows = rows_of(input)
        classes = rows.shape[1]
        scale = _row_scale_tensor(grad, reduction, ctx.total_weight)
        valid = ctx.valid[:, None]
        picked = Tensor((xp.arange(classes) == ctx.classes[:, None]) & valid)
        grad_logp = where(picked, scale * Tensor(-ctx.row_weight[:, None] * (1 - smoothing)), 0.0)
        if smoothing > 0:
            dtype = rows.dtype.numpy
            w = xp.ones(classes, dtype=dtype) if weight is None else weight.array.astype(dtype)
            grad_logp = grad_logp + where(Tensor(valid), scale * Tensor(-(smoothing / classes) * w), 0.0)
        # log_softmax's backward, as PyTorch composes it (a nan row of x stays nan even when ignored)
        grad_rows = grad_logp - rows.softmax(1) * grad_logp.sum(1, keepdim=True)
        return unrows(grad_rows, input_shape), None, None, None, None, None


class CrossEntropyProbs(Function):
    """Soft targets q (x's shape): loss = −Σ_c w_c q_c log_softmax(x)_c;   dx = (Σ_c w_c q_c) p − w ⊙ q,
    dq = −w ⊙ log_softmax(x) (times 1 − ε with label smoothing ε)."""

    differentiable_backward = True

    @staticmethod
    def forward(ctx, input, target, weight, reduction, label_smoothing):
        x = to_rows(input.array)
        classes = x.shape[1]
        q = to_rows(target.array)
        if label_smoothing > 0:
            q = q * (1 - label_smoothing) + label_smoothing / classes
        w = 1 if weight is None else weight.array.astype(x.dtype, copy=False)
        logp = log_softmax_array(x, axis=1)
        per_row = -(w * q * logp).sum(axis=1)
        ctx.settings = (reduction, label_smoothing, input.shape, x.shape[0])
        ctx.save_for_backward(input, target, weight)
        batch = target.shape[:1] + target.shape[2:] if target.ndim > 1 else ()
        return Tensor(_reduce(per_row, reduction, x.shape[0], batch))

    @staticmethod
    def backward(ctx, grad):
        input, target, weight = ctx.saved_tensors
        reduction, smoothing, input_shape, count = ctx.settings
        rows, q = rows_of(input), rows_of(target)
        if smoothing > 0:
            q = q * (1 - smoothing) + smoothing / rows.shape[1]
        w = None if weight is None else Tensor(weight.array.astype(rows.dtype.numpy, copy=False))
        weighted_q = q if w is None else w * q
        scale = _row_scale_tensor(grad, reduction, count)
        grad_input = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_rows = scale * (weighted_q.sum(1, keepdim=True) * rows.softmax(1) - weighted_q)
            grad_input = unrows(grad_rows, input_shape)
        if ctx.needs_input_grad[1]:
            logp = rows.log_softmax(1)
            grad_rows = -scale * (1 - smoothing) * (logp if w is None else w * logp)
            grad_target = unrows(grad_rows, input_shape)
        return grad_input, grad_target, None, None, None


class NLL(Function):
    """loss = −aᵢ ℓ[i, tᵢ] for log-probabilities ℓ;   dℓ = −scaleᵢ · aᵢ at column tᵢ, exactly 0 elsewhere
    and on ignored rows (selected, so a nan or inf there gives 0, as PyTorch)."""

    node_name = "NllLossBackward0"
    graph_inputs = (0,)  # the class indices carry no gradient: PyTorch's node has one input
    differentiable_backward = True

    @staticmethod
    def forward(ctx, input, target, weight, ignore_index, reduction):
        xp = get_array_module(input)
        logp = to_rows(input.array)
        a = _row_weights(ctx, target, weight, ignore_index, logp.dtype)
        picked = xp.take_along_axis(logp, ctx.classes[:, None], axis=1)[:, 0]
        ctx.total_weight = a.sum()
        ctx.row_weight = a
        ctx.arguments = (target, weight, ignore_index, reduction)
        ctx.save_for_backward(input)  # for the backward's edge and shape, as PyTorch saves it
        with ieee_results():
            per_row = grad_where(ctx.valid, -a * picked)
        return Tensor(_reduce(per_row, reduction, ctx.total_weight, _loss_shape(input, target)))

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        rows = (ctx.classes, ctx.valid, ctx.row_weight, ctx.total_weight)
        return NllLossBackward.apply(grad, input, rows, *ctx.arguments), None, None, None, None


class NllLossBackward(Function):
    """dℓ = −scaleᵢ · aᵢ at column tᵢ (0 elsewhere) as a function of the loss's gradient: linear in it,
    and its adjoint is the loss itself, so d⟨dℓ, ε⟩/d(grad) = nll_loss(ε) (d/dℓ = 0)."""

    node_name = "NllLossBackwardBackward0"
    graph_inputs = (0, 1)  # grad_output and input (whose gradient is 0), as PyTorch's node
    differentiable_backward = True

    @staticmethod
    def forward(ctx, grad_output, input, rows, target, weight, ignore_index, reduction):  # noqa: A002
        xp = get_array_module(grad_output)
        classes, valid, row_weight, total_weight = rows
        scale = _row_scale(grad_output, reduction, total_weight)
        input_shape = tuple(input.shape)
        columns = input_shape[1] if len(input_shape) > 1 else input_shape[0]
        picked = (xp.arange(columns) == classes[:, None]) & valid[:, None]  # a scatter without add.at
        grad_rows = grad_where(picked, -row_weight[:, None] * scale)
        ctx.arguments = (target, weight, ignore_index, reduction)
        return Tensor(from_rows(grad_rows.astype(grad_output.array.dtype, copy=False), input_shape))

    @staticmethod
    def backward(ctx, grad):
        return NLL.apply(grad, *ctx.arguments), None, None, None, None, None, None


# --- binary cross-entropy: elementwise, one loss per element ------------------------------------------

def softplus_neg(x: Any) -> Any:
    """softplus(−x) = log(1 + e⁻ˣ) = −log σ(x), as max(−x, 0) + log1p(e^−|x|): no exponent is positive."""
    xp = get_array_module(x)
    return xp.maximum(-x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


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

    differentiable_backward = True

    @staticmethod
    def forward(ctx, input, target, weight, pos_weight, reduction):
        dtype = result_type(input, target).numpy
        x, y, p, w = _as_arrays(dtype, input, target, pos_weight, weight)
        loss = _logits_unweighted(x, y, p, softplus_neg(x))
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
        softplus = softplus_neg_of(x) if need_y or need_w or need_p else None
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


def softplus_neg_of(x: Tensor) -> Tensor:
    """:func:`softplus_neg` in tensor operations: max(−x, 0) + log1p(e^−|x|)."""
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

    differentiable_backward = True

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


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy of logits ``input`` (N, C, *) against class indices (N, *) or probabilities (N, C, *)."""
    reduction = checks.resolve_reduction(reduction)
    label_smoothing = checks.label_smoothing_argument(label_smoothing)
    checks.check_floating_input("cross_entropy", "logits", input)
    if target.shape == input.shape:  # as PyTorch: equal shapes mean class probabilities, whatever the dtype
        checks.check_probability_target(input, target, weight, ignore_index)
        dtype = result_type(input, target, *([] if weight is None else [weight]))  # as PyTorch's −Σ w q ℓ
        return CrossEntropyProbs.apply(input.to(dtype), target.to(dtype), weight, reduction, label_smoothing)
    checks.check_class_target(input, target, weight, ignore_index)
    if label_smoothing == 0:  # PyTorch's graph: NllLossBackward0 after LogSoftmaxBackward0
        log_probabilities = log_softmax(input, 1 if input.ndim > 1 else 0)
        return NLL.apply(log_probabilities, target, weight, ignore_index, reduction)
    return CrossEntropy.apply(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of log-probabilities ``input`` (N, C, *) at class indices ``target`` (N, *)."""
    reduction = checks.resolve_reduction(reduction)
    checks.check_floating_input("nll_loss", "log-probabilities", input)
    checks.check_class_target(input, target, weight, ignore_index)
    return NLL.apply(input, target, weight, ignore_index, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: str = "mean") -> Tensor:
    """−w·[p·y·log σ(x) + (1 − y)·log(1 − σ(x))] for logits x, targets y of x's shape (stable for any x)."""
    reduction = checks.resolve_reduction(reduction)
    checks.check_bce_with_logits(input, target, weight, pos_weight)
    return BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight, reduction)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         reduction: str = "mean") -> Tensor:
    """−w·[y·log x + (1 − y)·log(1 − x)] for probabilities x in [0, 1] (logs clamped at −100)."""
    reduction = checks.resolve_reduction(reduction)
    checks.check_bce(input, target, weight)
    return BinaryCrossEntropy.apply(input, target, weight, reduction)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean squared error: (input − target)² reduced by 'mean', 'sum' or 'none' (one ``MseLoss`` node).

    With ``weight`` (input's shape): w ⊙ (input − target)², and 'mean' is Σ w (x − y)² / Σ w,
    composed of ordinary ops (as PyTorch composes it).
    """
    reduction = checks.resolve_reduction(reduction)
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

    differentiable_backward = True

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
    differentiable_backward = True

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
    reduction = checks.resolve_reduction(reduction)
    checks.check_l1(input, target, reduction)
    if weight is None:
        return L1Loss.apply(input, target, reduction, None)
    return _weighted(L1Loss.apply(input, target, "none", None), weight, reduction, normalise=True)


def smooth_l1_loss(input: Tensor, target: Tensor, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """½d²/β where |d| < β, else |d| − ½β (d = input − target); β = 0 is the L1 loss."""
    reduction = checks.resolve_reduction(reduction)
    checks.check_beta(beta)
    checks.check_regression("smooth_l1_cpu", input, target)
    if beta == 0:
        return L1Loss.apply(input, target, reduction, None)
    return SmoothL1Loss.apply(input, target, reduction, float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """½d² where |d| < δ, else δ(|d| − ½δ) (d = input − target): δ times smooth_l1_loss with β = δ."""
    reduction = checks.resolve_reduction(reduction)
    checks.check_delta(delta)
    checks.check_regression("huber_cpu", input, target)
    if weight is None:
        return HuberLoss.apply(input, target, reduction, float(delta))
    return _weighted(HuberLoss.apply(input, target, "none", float(delta)), weight, reduction, normalise=False)


# --- Kullback-Leibler divergence: elementwise, composed as PyTorch's ------------------------------------

class XLogX(Function):
    """y = x·log x with 0·log 0 = 0 (PyTorch's xlogy(x, x));  dy/dx = log x + 1, and at x = 0 PyTorch's
    xlogy(x ≠ 0, x) + x / x = nan."""

    differentiable_backward = True

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
        reduction = checks.resolve_reduction(reduction)
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
