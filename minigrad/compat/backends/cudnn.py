"""``torch.backends.cudnn``: NVIDIA's cuDNN library, available exactly when minigrad's ``'cuda'``
device is (CuPy and a GPU).

``enabled``, ``benchmark``, ``deterministic`` and ``allow_tf32`` are settable flags with
PyTorch's defaults, so a training script that sets them runs unchanged. minigrad's GPU
kernels are CuPy's and ignore them: they pick no algorithm by benchmarking, and give the
same results run after run.
"""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Iterator
from typing import Any

from minigrad import backend

__all__ = ["is_available", "version", "flags", "enabled", "benchmark", "deterministic", "allow_tf32"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10

_FLAGS = ("enabled", "benchmark", "deterministic", "allow_tf32")


def is_available() -> bool:
    """True when minigrad can use the ``'cuda'`` device (CuPy and a GPU)."""
    return backend.cuda_available()


def version() -> int | None:
    """cuDNN's version number when it is available (as CuPy reports it), else None."""
    if not is_available():
        return None
    try:
        from cupy.cuda import cudnn  # noqa: PLC0415 (optional, and only on a GPU machine)
    except ImportError:
        return None
    return int(cudnn.getVersion())


@contextlib.contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10,
          deterministic: bool = False, allow_tf32: bool = True) -> Iterator[None]:
    """Set the flags inside a ``with`` block, then restore them (PyTorch's defaults for the
    arguments are its, too: ``flags()`` alone turns cuDNN off)."""
    module = sys.modules[__name__]
    saved = {name: getattr(module, name) for name in (*_FLAGS, "benchmark_limit")}
    new = {"enabled": enabled, "benchmark": benchmark, "benchmark_limit": benchmark_limit,
           "deterministic": deterministic, "allow_tf32": allow_tf32}
    for name, value in new.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


class _FlagsModule(types.ModuleType):
    """This module, refusing a non-bool for a flag as PyTorch does (``benchmark = 'yes'``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FLAGS and not isinstance(value, bool):
            setter = {"enabled": "set_enabled_cudnn", "benchmark": "set_benchmark_cudnn",
                      "deterministic": "set_deterministic_cudnn", "allow_tf32": "set_allow_tf32_cudnn"}
            raise RuntimeError(f"{setter[name]} expects a bool, but got {type(value).__name__}")
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _FlagsModule
