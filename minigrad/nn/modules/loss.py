"""Loss layers: ``CrossEntropyLoss``, ``NLLLoss``, ``MSELoss``, ``BCELoss``, ``BCEWithLogitsLoss``,
``KLDivLoss``, ... (the fused Functions are in ops/loss.py and ops/elementwise_losses.py)."""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from minigrad.nn import functional as F
from minigrad.nn.functional import _legacy_reduction
from minigrad.nn.modules.module import Module
from minigrad.tensor import Tensor

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "BCELoss", "BCEWithLogitsLoss", "L1Loss", "SmoothL1Loss",
           "HuberLoss", "KLDivLoss"]


class _Loss(Module):
    """``reduction`` is checked when the loss is computed, not here: PyTorch builds ``MSELoss(reduction='x')``
    and raises its ValueError on the first call."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    """A loss with per-class weights, kept as a buffer (so it moves with ``to()`` and is saved)."""

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    """loss = −log softmax(x)[target], averaged over targets (weighted, ``ignore_index`` skipped).

    Input: logits (N, C) or (N, C, d1, ...); target: int64 class indices (N) or (N, d1, ...),
    or class probabilities of the input's shape.

    Args:
        weight: a rescaling weight per class (C), kept as a buffer; None weighs every class 1.
        size_average: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``reduce``.
        ignore_index: targets equal to this class contribute no loss and no gradient (and do not count in the
            mean).
        reduce: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``size_average``.
        reduction: ``'mean'`` (the default), ``'sum'``, or ``'none'`` for one loss per element.
        label_smoothing: ε in [0, 1]: the target becomes (1 − ε)·one-hot + ε/C.
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean",
                 label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """loss = −input[target] for log-probabilities (use after ``LogSoftmax``).

    Args:
        weight: a rescaling weight per class (C), kept as a buffer; None weighs every class 1.
        size_average: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``reduce``.
        ignore_index: targets equal to this class contribute no loss and no gradient (and do not count in the
            mean).
        reduce: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``size_average``.
        reduction: ``'mean'`` (the default), ``'sum'``, or ``'none'`` for one loss per element.
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class MSELoss(_Loss):
    """loss = (input − target)², averaged over all elements (or summed, or not reduced).

    Args:
        size_average: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``reduce``.
        reduce: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``size_average``.
        reduction: ``'mean'`` (the default), ``'sum'``, or ``'none'`` for one loss per element.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class BCELoss(_WeightedLoss):
    """loss = −w·[y·log x + (1 − y)·log(1 − x)] for probabilities x in [0, 1] (use after ``Sigmoid``).

    Each log is clamped at −100; ``weight`` (a buffer) broadcasts to the input's shape.

    Args:
        weight: a rescaling weight broadcast to the input's shape (a buffer).
        size_average: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``reduce``.
        reduce: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``size_average``.
        reduction: ``'mean'`` (the default), ``'sum'``, or ``'none'`` for one loss per element.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """``Sigmoid`` and ``BCELoss`` in one, computed stably from the logits x:
    loss = −w·[p·y·log σ(x) + (1 − y)·log(1 − σ(x))].

    ``weight`` w and ``pos_weight`` p (one per class, broadcast along the last dimension) are buffers.

    Args:
        weight: a rescaling weight broadcast to the input's shape (a buffer).
        size_average: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``reduce``.
        reduce: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``size_average``.
        reduction: ``'mean'`` (the default), ``'sum'``, or ``'none'`` for one loss per element.
        pos_weight: a weight for the positive examples, one per class (broadcast along the last dimension).
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean", pos_weight: Tensor | None = None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class L1Loss(_Loss):
    """loss = |input − target|, averaged over all elements (or summed, or not reduced).

    Args:
        size_average: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``reduce``.
        reduce: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``size_average``.
        reduction: ``'mean'`` (the default), ``'sum'``, or ``'none'`` for one loss per element.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """loss = ½d²/β where |d| < β, else |d| − ½β, for d = input − target.

    Args:
        size_average: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``reduce``.
        reduce: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``size_average``.
        reduction: ``'mean'`` (the default), ``'sum'``, or ``'none'`` for one loss per element.
        beta: where the loss turns from quadratic to linear.
    """

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
                 beta: float = 1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """loss = ½d² where |d| < δ, else δ(|d| − ½δ), for d = input − target.

    Args:
        reduction: ``'mean'`` (the default), ``'sum'``, or ``'none'`` for one loss per element.
        delta: where the loss turns from quadratic to linear.
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """loss = target·(log target − input) pointwise (0·log 0 = 0), for log-probabilities ``input`` and
    probabilities ``target`` (``log_target=True``: log-probabilities, eᵗ·(t − x)).

    ``reduction='batchmean'`` (sum / batch size) gives the KL divergence per sample; 'mean' averages over
    every element and warns, as PyTorch's.

    Args:
        size_average: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``reduce``.
        reduce: deprecated (PyTorch's legacy flag): when given, it sets ``reduction`` with ``size_average``.
        reduction: ``'batchmean'`` (the KL divergence per sample), ``'mean'``, ``'sum'`` or ``'none'``.
        log_target: ``target`` holds log-probabilities too.
    """

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
                 log_target: bool = False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
