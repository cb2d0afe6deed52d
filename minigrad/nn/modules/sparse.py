"""``nn.Embedding``: a learnable lookup table, ``y = weight[input]``, as PyTorch's.

The weight (num_embeddings, embedding_dim) is drawn from N(0, 1), with the ``padding_idx``
row set to zeros; that row never receives a gradient. ``Embedding.from_pretrained`` wraps a
given table (frozen by default).
"""

from __future__ import annotations

# ruff: noqa: A002  (``input`` is PyTorch's argument name)
from typing import Any

from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import empty
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.modules.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor

__all__ = ["Embedding"]


class Embedding(Module):
    """y[..., :] = W[input[...], :]: int64/int32 indices of any shape (*) -> (*, embedding_dim).

    ``padding_idx`` (negative counts from the end): that row starts at zero and gets no gradient.
    ``max_norm``: each looked-up row whose ``norm_type``-norm exceeds it is rescaled to it, in
    place, before the lookup. ``scale_grad_by_freq``: each row's gradient is divided by how often
    the batch looks it up. ``sparse=True`` raises NotImplementedError in the forward (no sparse
    tensors in minigrad).

    Args:
        num_embeddings: how many rows the table has (the indices' range).
        embedding_dim: the length of each row.
        padding_idx: a row that starts at zero and gets no gradient.
        max_norm: rescale each looked-up row whose norm exceeds it.
        norm_type: the p of the norm ``max_norm`` bounds.
        scale_grad_by_freq: divide each row's gradient by how often the batch uses it.
        sparse: sparse gradients (not supported: raises in the forward).
        _weight: a table to use instead of a fresh one (``from_pretrained``).
        _freeze: with ``_weight``: the table requires no gradient.
        device: where the table is made.
        dtype: the table's dtype.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight: Tensor | None = None, _freeze: bool = False,
                 device: Any = None, dtype: Any = None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError(f"Padding_idx must be within num_embeddings (got padding_idx="
                                     f"{padding_idx} for num_embeddings={num_embeddings})")
            if padding_idx < 0:
                padding_idx += num_embeddings
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, device=device, dtype=dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError(f"Shape of weight does not match num_embeddings and embedding_dim: "
                                     f"{list(_weight.shape)} vs [{num_embeddings}, {embedding_dim}]")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self) -> None:
        """W ~ N(0, 1), then the ``padding_idx`` row set to zeros."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            text += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            text += ", sparse=True"
        return text

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None,
                        max_norm: float | None = None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, sparse: bool = False) -> Embedding:
        """An Embedding whose weight is ``embeddings`` (2-D, shared, not copied); ``freeze``: no gradient.

        As in PyTorch, the ``padding_idx`` row is kept as given (not zeroed) but gets no gradient.
        """
        if embeddings.dim() != 2:
            raise AssertionError(f"Embeddings parameter is expected to be 2-dimensional, but got size "
                                 f"{list(embeddings.shape)}")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
