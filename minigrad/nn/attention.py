"""Scaled dot-product attention, written with the ops a student already knows.

``softmax(Q Kᵀ · scale + mask) V``: each of the L queries takes a weighted average of the S
values, weighted by how well it matches each key. Built from matmul, masked_fill, softmax and
dropout, so its backward is theirs (no Function of its own, unlike PyTorch's fused kernel).
"""

from __future__ import annotations

import math

from minigrad import dtypes as _dtypes
from minigrad.ops import comparison as _comparison
from minigrad.ops import dropout as _dropout
from minigrad.ops import softmax as _softmax
from minigrad.ops._util import check_tensor_arguments
from minigrad.tensor import Tensor

__all__ = ["scaled_dot_product_attention"]


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ keyᵀ * scale + mask) @ value`` for query (..., L, E), key (..., S, E) and
    value (..., S, Ev); the result is (..., L, Ev).

    ``scale`` defaults to 1/√E. ``is_causal=True`` lets query i see keys 0..i only (the lower
    triangle, as ``torch.tril``). ``attn_mask`` is a bool mask (True: may attend) or a float mask
    added to the scores; it broadcasts to (..., L, S). ``dropout_p`` drops attention weights.
    """
    check_tensor_arguments("scaled_dot_product_attention", {"query": query, "key": key, "value": value})
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention(enable_gqa=True) (grouped-query attention) "
                                  "is not supported by minigrad; see docs/compatibility.md")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"scaled_dot_product_attention: query, key and value must have at least 2 "
                           f"dimensions, got shapes {list(query.shape)}, {list(key.shape)} and "
                           f"{list(value.shape)}")
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention: query {list(query.shape)} and key "
                           f"{list(key.shape)} must share their last size, and key and value "
                           f"{list(value.shape)} their sequence length (size -2)")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                           "is_causal=True")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query @ key.transpose(-2, -1) * factor
    if is_causal:
        length, source = query.shape[-2], key.shape[-2]
        allowed = query.new_ones((length, source), dtype=_dtypes.bool).tril()
        scores = scores.masked_fill(_comparison.logical_not(allowed), float("-inf"))
    elif attn_mask is not None:
        if attn_mask.dtype is _dtypes.bool:
            scores = scores.masked_fill(_comparison.logical_not(attn_mask), float("-inf"))
        else:
            scores = scores + attn_mask
    if attn_mask is None:
        weights = _softmax.softmax(scores, -1)
    else:
        # A query row that may attend to nothing attends to nothing: its weights are 0 (PyTorch's
        # _safe_softmax), not softmax(-inf, …, -inf) = nan. Its scores are set to 0 first, so that
        # no nan reaches the backward either.
        nothing = (scores == float("-inf")).all(dim=-1, keepdim=True)
        weights = _softmax.softmax(scores.masked_fill(nothing, 0.0), -1).masked_fill(nothing, 0.0)
    if dropout_p > 0.0:
        weights = _dropout.dropout(weights, dropout_p, True)
    return weights @ value
