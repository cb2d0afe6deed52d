"""``minigrad.nn.functional`` (``F``): the layers as functions, with PyTorch's signatures.

Each entry delegates to the operation in :mod:`minigrad.ops` where its forward and backward
are written side by side; it checks only what PyTorch's argument parser checks before the
operation runs (Tensor arguments, the type of flags), and ``batch_norm`` its ``eps`` and dtypes:

    linear                  ops/linear.py        conv2d, conv1d, unfold, fold   ops/conv/
    max/avg_pool2d, adaptive_*_pool2d   ops/pool.py  max/avg_pool1d          ops/pool1d.py
    batch_norm, layer_norm  ops/normalization.py dropout, dropout2d       ops/dropout.py
    every loss (cross_entropy ... kl_div)        ops/loss.py, ops/elementwise_losses.py
    relu, leaky_relu, gelu, silu, elu, softplus, sigmoid, tanh             ops/activations.py
    softmax, log_softmax, softmin   ops/softmax.py   embedding           ops/embedding.py
    normalize, cosine_similarity, pairwise_distance                        ops/distance.py
    one_hot                 ops/scatter.py       pad                      ops/padding.py
"""

from __future__ import annotations

# ruff: noqa: A001, A002  (``input`` is PyTorch's argument name)
import numbers
import warnings
from typing import Any

from minigrad._arguments import bool_argument, int_argument
from minigrad.nn import grad  # noqa: F401  (``F.grad.conv2d_input``, as ``torch.nn.functional.grad``)
from minigrad.ops import activations as _activations
from minigrad.ops import adaptive_pool as _adaptive_pool
from minigrad.ops import avg_pool as _avg_pool
from minigrad.ops import conv as _conv
from minigrad.ops import distance as _distance
from minigrad.ops import dropout as _dropout
from minigrad.ops import elementwise_losses as _elementwise_losses
from minigrad.ops import embedding as _embedding
from minigrad.ops import linear as _linear
from minigrad.ops import loss as _loss
from minigrad.ops import normalization as _normalization
from minigrad.ops import padding as _padding
from minigrad.ops import pool as _pool
from minigrad.ops import pool1d as _pool1d
from minigrad.ops import scatter as _scatter
from minigrad.ops import smooth_activations as _smooth_activations
from minigrad.ops import softmax as _softmax
from minigrad.ops._util import check_tensor_arguments, not_implemented_for
from minigrad.ops.conv import conv1d as _conv1d
from minigrad.tensor import Tensor

__all__ = ["linear", "conv2d", "max_pool2d", "avg_pool2d", "relu", "relu_", "leaky_relu", "leaky_relu_",
           "sigmoid", "tanh", "softmax", "log_softmax", "one_hot", "dropout", "batch_norm", "cross_entropy",
           "nll_loss", "mse_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "pad", "unfold", "fold",
           "adaptive_avg_pool2d", "adaptive_max_pool2d", "layer_norm", "gelu", "silu", "elu", "softplus",
           "dropout2d", "l1_loss", "smooth_l1_loss", "huber_loss",
           "softmin", "normalize", "cosine_similarity", "pairwise_distance", "kl_div",
           "scaled_dot_product_attention",
           "embedding", "conv1d", "max_pool1d", "avg_pool1d"]


def _check_float(function: str, name: str, position: int, value: Any) -> None:
    """A float argument (a number, or a one-element Tensor): a str, None ... is a TypeError."""
    if not (isinstance(value, numbers.Real) or (isinstance(value, Tensor) and value.numel() == 1)):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be float, not "
                        f"{type(value).__name__}")


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = input Wᵀ + b for input (*, in_features), weight (out_features, in_features).

    As in PyTorch, a weight vector (in_features,) without bias gives y = input @ weight, shape (*).
    """
    check_tensor_arguments("linear", {"input": input, "weight": weight, "bias": bias}, optional=("bias",))
    if weight.ndim == 1 and bias is None:
        return _linear.linear(input, weight.unsqueeze(0)).squeeze(-1)
    return _linear.linear(input, weight, bias)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1, *, algorithm: str | None = None) -> Tensor:
    """2-D cross-correlation of input (N, C_in, H, W) with weight (C_out, C_in/groups, kh, kw).

    ``algorithm``: ``'im2col'``, ``'im2col_tuned'``, ``'rot180'``, ``'naive'``, or None for the current
    default.
    """
    check_tensor_arguments("conv2d", {"input": input, "weight": weight, "bias": bias}, optional=("bias",))
    return _conv.conv2d(input, weight, bias, stride, padding, dilation, groups, algorithm=algorithm)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum of each window; ``stride`` defaults to ``kernel_size``."""
    check_tensor_arguments("max_pool2d", {"input": input})
    return _pool.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window; ``stride`` defaults to ``kernel_size``."""
    check_tensor_arguments("avg_pool2d", {"input": input})
    return _avg_pool.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            divisor_override)


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """im2col: (N, C, H, W) -> (N, C·kh·kw, L), one column per sliding block."""
    check_tensor_arguments("im2col", {"input": input})
    return _conv.unfold(input, kernel_size, dilation, padding, stride)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """col2im: (N, C·kh·kw, L) -> (N, C, H, W), overlapping blocks summed."""
    check_tensor_arguments("col2im", {"input": input})
    return _conv.fold(input, output_size, kernel_size, dilation, padding, stride)


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad with ``value`` ('constant'), or 'reflect', 'replicate', 'circular' copies of the input's edges;
    ``pad`` lists (before, after) widths starting from the last dimension (negative widths crop)."""
    check_tensor_arguments("pad", {"input": input})
    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}")
    if not isinstance(mode, str):
        raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not {type(mode).__name__}")
    if value is not None:
        _check_float("pad", "value", 4, value)
    return _padding.pad(input, pad, mode, value)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``out[..., c] = 1`` where ``tensor[...] == c``, else 0, for int64 class values: int64 of shape
    ``(*tensor.shape, num_classes)``; ``num_classes=-1`` means ``tensor.max() + 1``."""
    return _scatter.one_hot(tensor, num_classes)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0)."""
    check_tensor_arguments("relu", {"input": input})
    return input.relu_() if inplace else _activations.relu(input)


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else negative_slope·x."""
    return _activations.leaky_relu(input, negative_slope, inplace)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return _activations.leaky_relu(input, negative_slope, inplace=True)


def sigmoid(input: Tensor) -> Tensor:
    """1 / (1 + e⁻ˣ)."""
    return _activations.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return _activations.tanh(input)


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """e^xᵢ / Σⱼ e^xⱼ along ``dim``."""
    return _softmax.softmax(input, dim, dtype, _stacklevel=_stacklevel + 1)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """xᵢ − log Σⱼ e^xⱼ along ``dim`` (stable: log-sum-exp)."""
    return _softmax.log_softmax(input, dim, dtype, _stacklevel=_stacklevel + 1)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """e^−xᵢ / Σⱼ e^−xⱼ along ``dim``: the softmax of −input."""
    return _softmax.softmin(input, dim, dtype, _stacklevel=_stacklevel + 1)


def normalize(input: Tensor, p: float = 2.0, dim: Any = 1, eps: float = 1e-12) -> Tensor:
    """v / max(‖v‖_p, ε) for each vector v along ``dim``."""
    return _distance.normalize(input, p, dim, eps)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """⟨x₁, x₂⟩ / (‖x₁‖‖x₂‖) along ``dim``, as Σ (x₁ / max(‖x₁‖, ε)) · (x₂ / max(‖x₂‖, ε)) (broadcast)."""
    return _distance.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """‖x₁ − x₂ + ε‖_p over the last dimension."""
    return _distance.pairwise_distance(x1, x2, p, eps, keepdim)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero elements with probability ``p`` and scale the rest by 1/(1 − p); identity unless ``training``."""
    check_tensor_arguments("dropout", {"input": input})
    bool_argument(training, "dropout", "train", position=3)
    return _dropout.dropout(input, p, training, inplace)


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (axis 1) of input (N, C, *) by batch or running statistics, then γ·x̂ + β."""
    _check_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    return _normalization.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _check_batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
                      weight: Tensor | None, bias: Tensor | None, training: bool, momentum: Any,
                      eps: float) -> None:
    """What PyTorch's ``batch_norm`` checks before normalising: Tensor arguments, ``eps`` (> 0 in training,
    ≥ 0 otherwise), a float ``momentum``, and one floating dtype for the input and the per-channel tensors
    (a float16 input may use float32 ones)."""
    vectors = {"weight": weight, "bias": bias, "running_mean": running_mean, "running_var": running_var}
    check_tensor_arguments("batch_norm", {"input": input, **vectors}, optional=tuple(vectors))
    if input.ndim < 2:  # PyTorch reads size(1): out of range in training, a mismatch in evaluation
        if training:
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got 1): "
                             f"batch_norm expects an input (N, C, ...), but got input of shape "
                             f"{list(input.shape)}")
        raise RuntimeError(f"batch_norm expects an input of at least 2 dimensions (N, C, ...), but got input "
                           f"of shape {list(input.shape)}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    _check_float("batch_norm", "momentum", 7, momentum)
    if not input.dtype.is_floating_point:
        raise not_implemented_for("batch_norm", input)
    for name, vector in vectors.items():
        if vector is None or vector.dtype == input.dtype:
            continue
        if not (input.dtype.name == "float16" and vector.dtype.name == "float32"):  # mixed precision is fine
            raise RuntimeError(f"mixed dtype (CPU): all inputs must share same datatype (input of dtype "
                               f"{input.dtype.name}, {name} of dtype {vector.dtype.name})")


def _legacy_reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """PyTorch's deprecated ``size_average``/``reduce`` flags, translated to ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction instead.",
                  stacklevel=3)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else "mean" if size_average else "sum"


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: bool | None = None, ignore_index: int = -100, reduce: bool | None = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """−log softmax(input)[target] for logits (N, C, *) and int64 class indices (N, *) (or probabilities)."""
    check_tensor_arguments("cross_entropy_loss", {"input": input, "target": target, "weight": weight},
                           optional=("weight",))
    int_argument(ignore_index, "cross_entropy_loss", "ignore_index", position=5)
    _check_float("cross_entropy_loss", "label_smoothing", 6, label_smoothing)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _loss.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
             ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """−input[target] for log-probabilities (N, C, *) and int64 class indices (N, *)."""
    check_tensor_arguments("nll_loss_nd", {"input": input, "target": target, "weight": weight},
                           optional=("weight",))
    int_argument(ignore_index, "nll_loss_nd", "ignore_index", position=5)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _loss.nll_loss(input, target, weight, ignore_index, reduction)


def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """(input − target)², optionally weighted elementwise; averaged (or summed, or not reduced)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _elementwise_losses.mse_loss(input, target, reduction, weight)


def kl_div(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """KL(target ‖ input) pointwise: t·(log t − x) for log-probabilities x and probabilities t (0·log 0 = 0;
    ``log_target``: eᵗ·(t − x)). 'batchmean' divides the sum by the batch size, the KL divergence of each
    sample; 'mean' divides by the number of elements, with PyTorch's warning."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support "
                      "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                      "definition.'mean' will be changed to behave the same as 'batchmean' in the next major "
                      "release.",
                      stacklevel=2)
    return _elementwise_losses.kl_div(input, target, reduction, log_target)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """−w·[y·log x + (1 − y)·log(1 − x)] for probabilities x in [0, 1] and targets y of x's shape.

    Each log is clamped at −100, so x = 0 or 1 gives a finite loss; ``weight`` broadcasts to x's shape.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _elementwise_losses.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: bool | None = None, reduce: bool | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """−w·[p·y·log σ(x) + (1 − y)·log(1 − σ(x))] for logits x, computed stably for any x.

    ``pos_weight`` p weighs the positive term (one per class: it broadcasts along the last dimension),
    ``weight`` w each element; both broadcast to x's shape.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _elementwise_losses.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


# --- more layers: adaptive pooling, layer norm, smooth activations, channel dropout, robust losses -----

def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """The mean of each adaptive window: output (…, out_h, out_w), row i covering [⌊iH/out⌋, ⌈(i+1)H/out⌉)."""
    return _adaptive_pool.adaptive_avg_pool2d(input, output_size)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum of each adaptive window (windows as ``adaptive_avg_pool2d``'s)."""
    return _adaptive_pool.adaptive_max_pool2d(input, output_size, return_indices)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each sample over its last ``len(normalized_shape)`` dimensions, then γ·x̂ + β."""
    check_tensor_arguments("layer_norm", {"input": input})
    return _normalization.layer_norm(input, normalized_shape, weight, bias, eps)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x·Φ(x) with Φ the standard normal CDF ('tanh': its tanh approximation)."""
    return _smooth_activations.gelu(input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x·σ(x)."""
    return _smooth_activations.silu(input, inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, else α(eˣ − 1)."""
    return _smooth_activations.elu(input, alpha, inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + e^(βx)) / β, and x where βx > threshold."""
    return _smooth_activations.softplus(input, beta, threshold)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels (input[n, c]) with probability ``p``, scale the rest by 1/(1 − p)."""
    check_tensor_arguments("feature_dropout", {"input": input})
    bool_argument(training, "feature_dropout", "train", position=3)
    return _dropout.dropout2d(input, p, training, inplace)


def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """|input − target|, averaged (or summed, or not reduced)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _elementwise_losses.l1_loss(input, target, reduction, weight)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                   reduce: bool | None = None, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """½d²/β where |d| < β, else |d| − ½β, for d = input − target."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _elementwise_losses.smooth_l1_loss(input, target, reduction, beta)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """½d² where |d| < δ, else δ(|d| − ½δ), for d = input − target."""
    return _elementwise_losses.huber_loss(input, target, reduction, delta, weight)


# --- lookup tables and 1-D layers: embedding (ops/embedding.py), conv1d and 1-D pooling, which run as -----
# --- their 2-D versions with a height of 1 (ops/conv/conv1d.py, ops/pool1d.py) ------------------------------

def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """y = weight[input]: the rows of ``weight`` (num_embeddings, D) for int64/int32 indices of any shape.

    The backward sums the rows' gradients per index; the ``padding_idx`` row gets none. ``max_norm``
    rescales looked-up rows in place; ``sparse=True`` raises NotImplementedError (no sparse tensors).
    """
    return _embedding.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1, *, algorithm: str | None = None) -> Tensor:
    """1-D cross-correlation of input (N, C_in, L) or (C_in, L) with weight (C_out, C_in/groups, k).

    Computed as ``conv2d`` of height 1, so ``algorithm``
    ('im2col', 'im2col_tuned', 'rot180', 'naive') applies.
    """
    check_tensor_arguments("conv1d", {"input": input, "weight": weight, "bias": bias}, optional=("bias",))
    return _conv1d.conv1d(input, weight, bias, stride, padding, dilation, groups, algorithm=algorithm)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum of each window along L of (N, C, L) or (C, L); ``stride`` defaults to ``kernel_size``."""
    check_tensor_arguments("max_pool1d", {"input": input})
    return _pool1d.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """The mean of each window along L of (N, C, L) or (C, L); ``stride`` defaults to ``kernel_size``."""
    check_tensor_arguments("avg_pool1d", {"input": input})
    return _pool1d.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


from minigrad.compat.unsupported import module_getattr  # noqa: E402
from minigrad.nn.attention import scaled_dot_product_attention  # noqa: E402, F401 (F.scaled_dot_product_attention)

__getattr__ = module_getattr("minigrad.nn.functional")  # NotImplementedError for names left out on purpose
