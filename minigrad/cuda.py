"""``minigrad.cuda``: is a GPU usable? (CuPy installed and a CUDA device present.)"""

from __future__ import annotations

from minigrad import backend


def is_available() -> bool:
    """True when tensors can be placed on ``'cuda'``."""
    return backend.cuda_available()


def device_count() -> int:
    if not is_available():
        return 0
    return int(backend.array_module_for(backend.CUDA).cuda.runtime.getDeviceCount())
