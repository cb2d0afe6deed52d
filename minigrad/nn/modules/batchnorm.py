"""``nn.BatchNorm1d`` and ``nn.BatchNorm2d``: normalise each channel, then scale and shift.

In training the batch's own mean and (biased) variance normalise it, and the running
estimates are updated in place:  r ← (1 − momentum)·r + momentum·batch statistic
(the running variance takes the unbiased batch variance; ``momentum=None`` gives a
cumulative average). In evaluation the running estimates are used instead. The
closed-form backward lives in ``minigrad/ops/normalization.py``.
"""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from typing import Any

from minigrad import dtypes
from minigrad.creation import empty, ones, tensor, zeros
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.modules.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor

__all__ = ["BatchNorm1d", "BatchNorm2d"]


class _BatchNorm(Module):
    """Shared by BatchNorm1d/2d; they differ only in the input dimensions they accept."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None, dtype: Any = None,
                 *, bias: bool = True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=dtypes.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """γ = 1, β = 0, running mean 0 and running variance 1."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def _load_from_state_dict(self, state_dict: Any, prefix: str, *args: Any) -> None:
        # As PyTorch for a state dict without version metadata: an older checkpoint without
        # num_batches_tracked loads, keeping the current count.
        key = prefix + "num_batches_tracked"
        if self.track_running_stats and key not in state_dict:
            state_dict[key] = self.num_batches_tracked
        super()._load_from_state_dict(state_dict, prefix, *args)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        # Batch statistics in training, and in evaluation when there are no running estimates.
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        # The running estimates are updated only when they are tracked and we are training.
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None, self.running_var if track else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Input (N, C) or (N, C, L): statistics per channel over N (and L).

    Args:
        num_features: C, the number of channels (features) normalised separately.
        eps: added to the variance before the square root, for numerical stability.
        momentum: the running statistics' update weight: running = (1 − momentum)·running + momentum·batch;
            None averages all batches seen (a cumulative mean).
        affine: learn a scale ``weight`` (γ, init 1) and shift ``bias`` (β, init 0) per channel.
        track_running_stats: keep running mean and variance for ``eval()``; without them, evaluation uses the
            batch's statistics too.
        device: the device the parameters are created on (default: the CPU).
        dtype: their dtype (default: ``torch.get_default_dtype()``, float32).
        bias: with ``affine``, whether β is learned (``bias=False``: scale only).
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Input (N, C, H, W): statistics per channel over N, H and W.

    Args:
        num_features: C, the number of channels (features) normalised separately.
        eps: added to the variance before the square root, for numerical stability.
        momentum: the running statistics' update weight: running = (1 − momentum)·running + momentum·batch;
            None averages all batches seen (a cumulative mean).
        affine: learn a scale ``weight`` (γ, init 1) and shift ``bias`` (β, init 0) per channel.
        track_running_stats: keep running mean and variance for ``eval()``; without them, evaluation uses the
            batch's statistics too.
        device: the device the parameters are created on (default: the CPU).
        dtype: their dtype (default: ``torch.get_default_dtype()``, float32).
        bias: with ``affine``, whether β is learned (``bias=False``: scale only).
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")
