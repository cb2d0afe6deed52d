"""``conv1d``: a 1-D convolution is a 2-D one of height 1.

    y[n, o, l] = b[o] + Σ_c Σ_k W[o, c, k] · x[n, c, s·l + d·k − p]

The input (N, C, L) becomes (N, C, 1, L), the weight (C_out, C_in/groups, k) becomes
(C_out, C_in/groups, 1, k), and ``conv2d`` runs with stride (1, s), padding (0, p) and
dilation (1, d): every conv2d algorithm ('im2col', 'im2col_tuned', 'rot180', 'naive') and its backward serve
conv1d too. The checks here are PyTorch's for conv1d, so the messages name 1-D shapes.
"""

from __future__ import annotations

from typing import Any

from minigrad._arguments import integer_size
from minigrad.autograd.function import Function
from minigrad.ops.conv._checks import check_conv1d, conv_single
from minigrad.ops.conv.functional import Conv2dFunction, conv2d, conv2d_gradients
from minigrad.tensor import Tensor

__all__ = ["Conv1dFunction", "conv1d"]


def _height_one(t: Tensor) -> Tensor:
    """(N, C, L) seen as (N, C, 1, L), sharing ``t``'s storage and version counter, outside the graph."""
    return t.detach().unsqueeze(2)


class Conv1dFunction(Function):
    """y = x ⋆ W + b on (N, C, L): conv2d's forward and backward on height-1 views, in one node
    (PyTorch's ``ConvolutionBackward0``, whose inputs are the 3-D input, weight and bias)."""

    node_name = "ConvolutionBackward0"
    graph_inputs = (0, 1, 2)

    @staticmethod
    def forward(ctx, input, weight, bias, stride, padding, dilation, groups, algorithm=None):  # noqa: A002
        out = Conv2dFunction.forward(ctx, _height_one(input), _height_one(weight), bias, (1, stride),
                                     (0, padding), (1, dilation), groups, algorithm)
        ctx.save_for_backward(input, weight)   # the 3-D tensors: a second derivative reaches their graphs
        return Tensor(out.array[:, :, 0])

    @staticmethod
    def backward(ctx, grad_output):
        """conv2d's three gradients of the height-1 views, seen as 1-D again."""
        x, weight = ctx.saved_tensors
        grad_input, grad_weight, grad_bias = conv2d_gradients(ctx, x.unsqueeze(2), weight.unsqueeze(2),
                                                              grad_output.unsqueeze(2))
        if grad_input is not None:
            grad_input = grad_input.squeeze(2)
        if grad_weight is not None:
            grad_weight = grad_weight.squeeze(2)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002 (PyTorch's name)
           stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1, *,
           algorithm: str | None = None) -> Tensor:
    """1-D cross-correlation, as ``torch.nn.functional.conv1d``: input (N, C_in, L) or (C_in, L),
    weight (C_out, C_in/groups, k) -> (N, C_out, L_out), L_out = ⌊(L + 2p − d(k − 1) − 1) / s⌋ + 1.

    ``padding``: an int, ``'valid'`` (none) or ``'same'`` (L_out = L; stride 1 only).
    ``algorithm``: the conv2d algorithm that computes it (see ``algorithms.py``).
    """
    if input.ndim == 2:  # unbatched, as PyTorch allows
        return conv1d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups,
                      algorithm=algorithm).squeeze(0)
    if input.ndim != 3:
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: "
                           f"{list(input.shape)}")
    stride, dilation = conv_single(stride, "stride"), conv_single(dilation, "dilation")
    groups = integer_size(groups, "groups", "conv1d", "int")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: {padding!r}")
        if padding == "same" and stride != 1:
            raise RuntimeError("padding='same' is not supported for strided convolutions")
    else:
        padding = conv_single(padding, "padding")
    check_conv1d(input, weight, bias, stride, padding, dilation, groups)
    total = dilation * (weight.shape[2] - 1)  # 'same' pads this much in all
    symmetric = {"valid": 0, "same": total // 2 if total % 2 == 0 else None}.get(padding, padding)
    if symmetric is not None:
        return Conv1dFunction.apply(input, weight, bias, stride, symmetric, dilation, groups, algorithm)
    padding_2d = padding if isinstance(padding, str) else (0, padding)
    out = conv2d(input.unsqueeze(2), weight.unsqueeze(2), bias, (1, stride), padding_2d, (1, dilation),
                 groups, algorithm=algorithm)
    return out.squeeze(2)
