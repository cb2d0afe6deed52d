"""``torch.backends.cpu``: the CPU's vector instructions, as PyTorch reports them."""

from __future__ import annotations

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """``'DEFAULT'``: minigrad does not pick kernels by instruction set (NumPy does that inside)."""
    return "DEFAULT"
