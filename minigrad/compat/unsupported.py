"""PyTorch names minigrad leaves out: on purpose (and why), or not yet.

A course program that reaches for one of them gets a ``NotImplementedError`` that names the
feature, says why it is missing and points to ``docs/compatibility.md``, instead of an
``AttributeError`` that reads like a typo. Each namespace (``minigrad``, ``minigrad.nn``,
``minigrad.nn.functional``, ``minigrad.optim`` ...) gets a module ``__getattr__`` from
:func:`module_getattr`, and ``Tensor.__getattr__`` asks :func:`missing_attribute`.

Besides the names in the tables below, with their reasons, every other public name of PyTorch's
``torch``, ``torch.Tensor``, ``torch.nn``, ``torch.nn.functional`` and ``torch.optim`` that minigrad
lacks raises a NotImplementedError too: ``_pytorch_names.txt`` lists them, as PyTorch's ``dir()``
gave them. Their error is a :class:`MissingNameError`: a NotImplementedError that is also an
AttributeError, so that code probing for a feature (``hasattr(t, 'values')``, as matplotlib and
pandas do to every object they are given) still learns "no" quietly. Any other missing name is a
plain ``AttributeError``. These hooks run only when normal attribute lookup has failed, so they
cost nothing to the names that exist.

A name left out on purpose raises a plain NotImplementedError, so ``hasattr(torch, 'compile')``
raises too (``hasattr`` only catches ``AttributeError``): a program that probes for such a
feature learns, loudly, that it is missing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["UNSUPPORTED", "MissingNameError", "missing_attribute", "module_getattr", "pytorch_names",
           "unsupported_error"]

_RECURRENT = ("recurrent layers are outside minigrad's scope (it teaches feed-forward and convolutional "
              "backprop)")
_TRANSFORMER = ("ready-made transformer layers are outside minigrad's scope: build attention from nn.Linear "
                "and F.scaled_dot_product_attention (or masked_fill + softmax), as the course lectures do")
_COMPILER = "minigrad runs every operation eagerly in NumPy; there is no compiler, tracer or exporter"
_DISTRIBUTED = ("minigrad runs in one process on one device; there is no multi-process or multi-device "
                "training")
_COMPLEX = "minigrad's dtypes are real (float16/32/64, integers, bool); complex numbers are not supported"
_NOT_SURVEYED = ("not used by the course programs minigrad was surveyed against; write it as a Module or "
                 "function from minigrad's ops")
_UPSAMPLING = "transposed convolutions and resampling are outside minigrad's scope (Conv1d/Conv2d are taught)"
_3D = "minigrad's convolution and pooling layers are 1-D and 2-D"

UNSUPPORTED: dict[str, dict[str, str]] = {
    "minigrad": {
        "compile": _COMPILER, "jit": _COMPILER, "onnx": _COMPILER, "export": _COMPILER, "fx": _COMPILER,
        "_dynamo": _COMPILER, "library": _COMPILER,
        "distributed": _DISTRIBUTED, "multiprocessing": _DISTRIBUTED,
        "complex64": _COMPLEX, "complex128": _COMPLEX, "cfloat": _COMPLEX, "cdouble": _COMPLEX,
        "complex": _COMPLEX, "view_as_complex": _COMPLEX, "view_as_real": _COMPLEX, "polar": _COMPLEX,
        "fft": _COMPLEX, "stft": _COMPLEX, "istft": _COMPLEX,
        "bfloat16": "NumPy has no bfloat16; minigrad's floating dtypes are float16, float32 and float64",
        "sparse": "sparse tensors are not supported; every minigrad tensor is a dense NumPy (or CuPy) array",
        "sparse_coo_tensor": "sparse tensors are not supported; every minigrad tensor is dense",
        "sparse_csr_tensor": "sparse tensors are not supported; every minigrad tensor is dense",
        "quantization": "quantised tensors and models are outside minigrad's scope",
        "ao": "quantised tensors and models are outside minigrad's scope",
        "amp": "mixed precision (autocast, GradScaler) is outside minigrad's scope; cast with .half() "
               "or .float()",
        "autocast": "mixed precision (autocast, GradScaler) is outside minigrad's scope",
        "func": "functorch-style transforms are not supported; use minigrad.autograd.grad",
        "vmap": "functorch-style transforms are not supported; write the batch dimension explicitly",
        "hub": "minigrad downloads no pretrained models",
        "distributions": "torch.distributions is outside minigrad's scope; use mg.normal, mg.bernoulli, "
                         "mg.multinomial or write log-probabilities with minigrad's ops",
        "special": "torch.special is outside minigrad's scope; the common functions (exp, log, sigmoid, "
                   "erf ...) are at the top level",
        "nested": "nested (ragged) tensors are not supported",
        "masked": "masked tensors are not supported; use masked_fill or where",
    },
    "minigrad.nn": {
        **dict.fromkeys(("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "RNNBase"), _RECURRENT),
        **dict.fromkeys(("Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
                         "TransformerDecoderLayer", "MultiheadAttention"), _TRANSFORMER),
        **dict.fromkeys(("DataParallel", "parallel", "SyncBatchNorm"), _DISTRIBUTED),
        **dict.fromkeys(("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Upsample",
                         "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
                         "MaxUnpool2d"), _UPSAMPLING),
        **dict.fromkeys(("Conv3d", "MaxPool3d", "AvgPool3d", "BatchNorm3d", "AdaptiveAvgPool3d"), _3D),
        **dict.fromkeys(("LazyLinear", "LazyConv1d", "LazyConv2d", "LazyBatchNorm1d", "LazyBatchNorm2d"),
                        "lazy modules (sizes inferred at the first call) are not supported; give the sizes"),
        **dict.fromkeys(("Unfold", "Fold", "Softmax2d", "Hardtanh", "ReLU6", "Mish", "Softsign", "Threshold",
                         "Hardswish", "Hardsigmoid", "SELU", "CELU", "GLU", "LogSigmoid", "Tanhshrink",
                         "Softshrink", "Hardshrink", "RReLU", "PReLU", "ZeroPad2d", "ConstantPad2d",
                         "ReflectionPad2d", "ReplicationPad2d", "Dropout1d", "Dropout3d", "AlphaDropout",
                         "Bilinear", "RMSNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
                         "LocalResponseNorm", "EmbeddingBag", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d",
                         "LPPool2d", "TripletMarginLoss", "MarginRankingLoss", "CosineEmbeddingLoss",
                         "PoissonNLLLoss", "GaussianNLLLoss", "CTCLoss", "MultiLabelMarginLoss",
                         "MultiMarginLoss", "SoftMarginLoss", "MultiLabelSoftMarginLoss",
                         "HingeEmbeddingLoss"), _NOT_SURVEYED),
    },
    "minigrad.nn.functional": {
        **dict.fromkeys(("conv_transpose1d", "conv_transpose2d", "interpolate", "upsample", "grid_sample",
                         "affine_grid", "pixel_shuffle"), _UPSAMPLING),
        **dict.fromkeys(("conv3d", "max_pool3d", "avg_pool3d"), _3D),
        "multi_head_attention_forward": _TRANSFORMER,
        **dict.fromkeys(("logsigmoid", "hardtanh", "relu6", "glu", "mish", "hardswish", "hardsigmoid", "selu",
                         "celu", "softsign", "tanhshrink", "threshold", "ctc_loss", "triplet_margin_loss",
                         "margin_ranking_loss", "cosine_embedding_loss", "poisson_nll_loss",
                         "gaussian_nll_loss", "gumbel_softmax", "group_norm", "instance_norm",
                         "local_response_norm", "embedding_bag", "rms_norm", "adaptive_avg_pool1d", "prelu",
                         "rrelu", "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss"),
                        _NOT_SURVEYED),
    },
    "minigrad.optim": {
        "LBFGS": "LBFGS (a closure-driven quasi-Newton method) is outside minigrad's scope",
        "SparseAdam": "sparse tensors are not supported, so neither is SparseAdam",
        **dict.fromkeys(("Adamax", "NAdam", "RAdam", "ASGD", "Rprop"), _NOT_SURVEYED),
    },
    "minigrad.optim.lr_scheduler": dict.fromkeys(
        ("CosineAnnealingWarmRestarts", "CyclicLR", "ConstantLR", "PolynomialLR", "SequentialLR",
         "ChainedScheduler"), _NOT_SURVEYED),
    "minigrad.utils.tensorboard": {
        "SummaryWriter": "TensorBoard logging is outside minigrad's scope; print or plot with matplotlib",
    },
    "minigrad.utils": {
        "checkpoint": "activation checkpointing is outside minigrad's scope",
        "cpp_extension": _COMPILER,
    },
    "minigrad.linalg": dict.fromkeys(
        ("cholesky", "cholesky_ex", "cond", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
         "householder_product", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq", "lu",
         "lu_factor", "lu_factor_ex", "lu_solve", "matrix_exp", "matrix_norm", "matrix_rank",
         "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd",
         "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"),
        "decompositions and solvers are outside minigrad's scope; torch.linalg's det, inv, cross, matmul and "
        "matrix_power are supported (and matmul, mm, mv, dot, outer, einsum and norm at the top level)"),
}


class MissingNameError(NotImplementedError, AttributeError):
    """One of PyTorch's public names that minigrad does not implement (not one left out on purpose,
    with a reason): a NotImplementedError, and an AttributeError for ``hasattr`` and ``getattr(x,
    name, default)``."""


def unsupported_error(namespace: str, name: str) -> NotImplementedError:
    """The error for ``namespace.name``, which minigrad leaves out (on purpose, or not yet)."""
    shown = namespace.replace("minigrad", "torch", 1)
    reason = UNSUPPORTED.get(namespace, {}).get(name)
    kind = NotImplementedError if reason is not None else MissingNameError
    return kind(f"{shown}.{name} is not supported by minigrad: {reason or _NOT_YET}. See "
                f"docs/compatibility.md for what is supported and how it differs.")


_NOT_YET = "it is one of PyTorch's public names that minigrad does not implement"


@functools.cache
def pytorch_names(namespace: str) -> frozenset[str]:
    """PyTorch's public names in ``namespace`` (``'torch'``, ``'torch.Tensor'``, ``'torch.nn'`` ...),
    read once from ``_pytorch_names.txt``: ``[namespace]`` lines, then its names, several a line."""
    names: dict[str, set[str]] = {}
    section: set[str] = set()
    for line in (Path(__file__).with_name("_pytorch_names.txt")).read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            section = names.setdefault(line.strip("[]"), set())
        elif not line.startswith("#"):
            section.update(line.split())
    return frozenset(names.get(namespace, ()))


def module_getattr(namespace: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``namespace``: NotImplementedError for PyTorch's names minigrad
    leaves out, PyTorch's AttributeError for any other missing name."""
    table = UNSUPPORTED.get(namespace, {})
    pytorch_namespace = namespace.replace("minigrad", "torch", 1)

    def __getattr__(name: str) -> Any:  # noqa: N807 (the module hook's name)
        if name in table or (not name.startswith("_") and name in pytorch_names(pytorch_namespace)):
            raise unsupported_error(namespace, name)
        raise AttributeError(f"module '{namespace}' has no attribute '{name}'")

    return __getattr__


def missing_attribute(owner: Any, name: str) -> Exception:
    """The error for ``tensor.name`` where normal lookup found nothing: NotImplementedError for a
    public ``torch.Tensor`` name, else the AttributeError Python would raise."""
    if not name.startswith("_") and name in pytorch_names("torch.Tensor"):
        return unsupported_error("minigrad.Tensor", name)
    return AttributeError(f"'{type(owner).__name__}' object has no attribute '{name}'")
