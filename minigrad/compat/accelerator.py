"""``minigrad.accelerator``: PyTorch's device-neutral questions, answered for minigrad's one accelerator.

PyTorch's tutorials pick their device with
``torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"``;
here the only accelerator is a CUDA GPU through CuPy.
"""

from __future__ import annotations

from minigrad import backend
from minigrad.compat import cuda


def is_available() -> bool:
    """True when tensors can be placed on an accelerator (``'cuda'``)."""
    return backend.cuda_available()


def current_accelerator() -> backend.Device | None:
    """``device('cuda')`` when a GPU is usable, else None (as PyTorch on a machine without one)."""
    return backend.Device("cuda") if is_available() else None


def device_count() -> int:
    """How many accelerators there are (0 without a usable GPU)."""
    return cuda.device_count()
