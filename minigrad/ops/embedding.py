"""Embedding: a lookup table of rows, ``F.embedding(input, weight)``.

    forward:   y[..., :] = W[index[...], :]            (any index shape; y is index.shape + (D,))
    backward:  dW[i, :] = Σ_{positions p with index[p] = i} dy[p, :]

A row picked twice receives both gradients (a bincount-based scatter-add, CuPy-safe), and the
``padding_idx`` row receives none. That backward is an operation of its own,
:class:`EmbeddingDenseBackward`, linear in dy, whose backward looks the rows up again.
``max_norm`` rescales, in place and outside the graph, each looked-up row whose p-norm
exceeds it (as PyTorch's ``embedding_renorm_``).
"""

from __future__ import annotations

from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops._checks import embedding as checks
from minigrad.ops.indexing import scatter_add
from minigrad.tensor import Tensor

__all__ = ["Embedding", "embedding"]


class Embedding(Function):
    """y = W[index];   dW = the rows of dy summed per index (zero for ``padding_idx``)."""

    graph_inputs = (1,)  # the indices carry no gradient: PyTorch's node has the weight only

    @staticmethod
    def forward(ctx, input, weight, padding_idx, scale_grad_by_freq):  # noqa: A002 (PyTorch's name)
        ctx.save_for_backward(input)
        ctx.weight_shape, ctx.padding_idx = weight.shape, padding_idx
        ctx.scale_grad_by_freq = scale_grad_by_freq
        return Tensor(weight.array[input.array])

    @staticmethod
    def backward(ctx, grad_output):
        (index,) = ctx.saved_tensors
        grad_weight = EmbeddingDenseBackward.apply(grad_output, index, ctx.weight_shape, ctx.padding_idx,
                                                   ctx.scale_grad_by_freq)
        return None, grad_weight, None, None


class EmbeddingDenseBackward(Function):
    """dW[i] = Σ_{p: index[p] = i} dy[p] (÷ the count of p with ``scale_grad_by_freq``; 0 for
    ``padding_idx``). Linear in dy: its backward is d(dy)[p] = ddW[index[p]] scaled the same way
    (0 where index[p] is ``padding_idx``), an embedding lookup."""

    graph_inputs = (0,)  # the indices carry no gradient
    node_name = "EmbeddingDenseBackwardBackward0"  # PyTorch's

    @staticmethod
    def forward(ctx, grad_output, index, weight_shape, padding_idx, scale_grad_by_freq):
        xp = get_array_module(grad_output)
        rows = index.array.reshape(-1)
        grad = grad_output.array.reshape(rows.shape[0], weight_shape[1])
        ctx.index, ctx.padding_idx, ctx.scale = index, padding_idx, None
        if scale_grad_by_freq:  # each row's gradient divided by how often it was looked up
            counts = xp.bincount(rows, minlength=weight_shape[0])
            ctx.scale = counts[index.array][..., None].astype(grad.dtype)
            grad = grad / ctx.scale.reshape(-1, 1)
        grad_weight = scatter_add(xp, grad, tuple(weight_shape), (rows,))
        if padding_idx is not None:
            grad_weight[padding_idx] = 0
        return Tensor(grad_weight)

    @staticmethod
    def backward(ctx, grad):
        from minigrad.ops.selection import MaskedFill  # noqa: PLC0415 (selection is a sibling op module)

        rows = Embedding.apply(ctx.index, grad, None, False)
        if ctx.padding_idx is not None:
            rows = MaskedFill.apply(rows, Tensor((ctx.index.array == ctx.padding_idx)[..., None]), 0)
        if ctx.scale is not None:
            rows = rows / Tensor(ctx.scale)
        return rows, None, None, None, None


def renorm_rows_(weight: Tensor, input: Tensor, max_norm: float,  # noqa: A002 (PyTorch's name)
                 norm_type: float) -> None:
    """W[i] *= max_norm / (‖W[i]‖_p + 1e-7) for each looked-up row i whose p-norm exceeds max_norm."""
    xp = get_array_module(weight)
    rows = xp.unique(input.array.reshape(-1))
    selected = weight.array[rows]
    magnitudes = xp.abs(selected)
    if norm_type == float("inf"):
        norms = magnitudes.max(axis=1)
    else:
        norms = (magnitudes ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(selected.dtype)
    weight.array[rows] = selected * scale[:, None]   # outside the graph, as PyTorch's no_grad renorm
    weight._bump_version("embedding_renorm_")


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,  # noqa: A002
              max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """The rows ``weight[input]`` of ``weight`` (num_embeddings, D) for int64/int32 indices of any shape.

    ``sparse=True`` (a sparse gradient) raises NotImplementedError: minigrad has no sparse tensors.
    """
    padding_idx = checks.padding_index(padding_idx, weight.shape[0] if weight.ndim else 0)
    checks.check_indices(input, weight)
    if sparse:
        raise NotImplementedError("embedding(sparse=True): minigrad has no sparse tensors; use sparse=False "
                                  "(a dense gradient)")
    if max_norm is not None:
        renorm_rows_(weight, input, max_norm, norm_type)
    return Embedding.apply(input, weight, padding_idx, bool(scale_grad_by_freq))
