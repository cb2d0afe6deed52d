"""Similarity and distance layers: ``CosineSimilarity`` and ``PairwiseDistance`` (ops/distance.py)."""

from __future__ import annotations

from minigrad.nn import functional as F
from minigrad.nn.modules.module import Module
from minigrad.tensor import Tensor

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """cos θ = ⟨x₁, x₂⟩ / (max(‖x₁‖, ε) · max(‖x₂‖, ε)) along ``dim``.

    Args:
        dim: the dimension the vectors lie along.
        eps: the smallest norm used in the denominator.
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """‖x₁ − x₂ + ε‖_p over the last dimension (``norm`` holds p, as PyTorch's attribute).

    Args:
        p: the norm's degree.
        eps: added to the difference, so that equal vectors have a gradient.
        keepdim: keep the reduced last dimension (of size 1).
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
