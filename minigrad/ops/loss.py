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
The losses with one term per element (binary cross-entropy, MSE, L1, Huber, KL) are in
``elementwise_losses.py``.
"""

# ruff: noqa: A001, A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from typing import Any

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.dtypes import result_type
from minigrad.ops._checks import loss as checks
from minigrad.ops._util import grad_where, ieee_results
from minigrad.ops.elementwise import where
from minigrad.ops.softmax import log_softmax, log_softmax_array
from minigrad.tensor import Tensor

# --- layout: classes last, one row per target ----------------------------------------------------

def rows_of(t: Tensor) -> Tensor:
    """(C,) -> (1, C);  (N, C) as is;  (N, C, d1, ...) -> (N·d1·..., C). In tensor operations, so that
    a backward using it can be differentiated (in a forward, grad mode is off: they record nothing)."""
    if t.ndim == 1:
        return t.reshape(1, -1)
    if t.ndim == 2:
        return t
    return t.movedim(1, -1).reshape(-1, t.shape[1])


def unrows(rows: Tensor, shape: tuple) -> Tensor:
    """The inverse of :func:`rows_of` for an input of ``shape``."""
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


def _row_scale(grad: Tensor, reduction: str, total_weight: Any) -> Tensor:
    """How much each row's loss contributes to the output: ∂ out / ∂ lossᵢ, shaped (M, 1) or scalar.

    A 'mean' over no weight at all (every target ignored) is NaN; its gradient is 0, as in PyTorch
    (Σ aᵢ = 0 means every aᵢ = 0: any finite scale will do).
    """
    if reduction == "none":
        return grad.reshape(-1, 1)
    if reduction == "sum":
        return grad
    denominator = total_weight + (total_weight == 0)
    return grad / Tensor(get_array_module(grad).asarray(denominator, dtype=grad.array.dtype))


class CrossEntropy(Function):
    """loss = −Σ_c q_c log_softmax(x)_c with q the (smoothed) one-hot target;  dℓ = −scale · q on the rows
    not ignored (exactly 0 on ignored rows, whatever they hold), dx = dℓ − softmax · Σ_c dℓ_c."""

    @staticmethod
    def forward(ctx, input, target, weight, ignore_index, reduction, label_smoothing):
        xp = get_array_module(input)
        x = rows_of(input).array
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
        scale = _row_scale(grad, reduction, ctx.total_weight)
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

    @staticmethod
    def forward(ctx, input, target, weight, reduction, label_smoothing):
        x = rows_of(input).array
        classes = x.shape[1]
        q = rows_of(target).array
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
        scale = _row_scale(grad, reduction, count)
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

    @staticmethod
    def forward(ctx, input, target, weight, ignore_index, reduction):
        xp = get_array_module(input)
        logp = rows_of(input).array
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

    @staticmethod
    def forward(ctx, grad_output, input, rows, target, weight, ignore_index, reduction):  # noqa: A002
        xp = get_array_module(grad_output)
        classes, valid, row_weight, total_weight = rows
        scale = _row_scale(grad_output, reduction, total_weight).array
        input_shape = tuple(input.shape)
        columns = input_shape[1] if len(input_shape) > 1 else input_shape[0]
        picked = (xp.arange(columns) == classes[:, None]) & valid[:, None]  # a scatter without add.at
        grad_rows = grad_where(picked, -row_weight[:, None] * scale)
        ctx.arguments = (target, weight, ignore_index, reduction)
        return unrows(Tensor(grad_rows.astype(grad_output.array.dtype, copy=False)), input_shape)

    @staticmethod
    def backward(ctx, grad):
        return NLL.apply(grad, *ctx.arguments), None, None, None, None, None, None


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
