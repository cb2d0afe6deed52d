"""``torch.backends.cuda``: was minigrad given CUDA (CuPy), and the matmul precision flags."""

from __future__ import annotations

import importlib.util
from typing import Any

__all__ = ["is_built", "matmul"]


def is_built() -> bool:
    """True when CuPy is installed, so minigrad can serve ``'cuda'`` on a machine with a GPU.

    Without CuPy this is False, as on a PyTorch CPU build. (``minigrad.cuda.is_available()``
    says whether a GPU is also there.)
    """
    return importlib.util.find_spec("cupy") is not None


class _MatmulFlags:
    """``torch.backends.cuda.matmul``: may matrix products trade precision for speed?

    PyTorch's defaults; CuPy's products in minigrad compute in the tensors' own precision either way.
    """

    _DEFAULTS = {"allow_tf32": False, "allow_fp16_reduced_precision_reduction": True,
                 "allow_bf16_reduced_precision_reduction": True}

    def __init__(self) -> None:
        for name, value in self._DEFAULTS.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._DEFAULTS:
            raise AttributeError(f"Unknown attribute {name}")
        if not isinstance(value, bool):
            raise RuntimeError(f"set_{name.removeprefix('allow_')}_cublas expects a bool, but got "
                               f"{type(value).__name__}")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return "minigrad.backends.cuda.matmul(" + ", ".join(
            f"{name}={getattr(self, name)}" for name in self._DEFAULTS) + ")"


matmul = _MatmulFlags()
