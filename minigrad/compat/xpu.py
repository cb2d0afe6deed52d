"""``minigrad.xpu``: Intel GPUs, which minigrad does not drive; answers as PyTorch does on a machine
without one, so ``torch.xpu.is_available()`` in a device-choosing line runs."""

from __future__ import annotations


def is_available() -> bool:
    """Always False: minigrad's only accelerator is a CUDA GPU through CuPy."""
    return False


def device_count() -> int:
    return 0
