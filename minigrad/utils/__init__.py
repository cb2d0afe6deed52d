"""``minigrad.utils``: holds ``minigrad.utils.data``, the PyTorch spelling of ``minigrad.data``."""

from minigrad.utils import data

__all__ = ["data"]
