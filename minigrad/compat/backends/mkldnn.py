"""``torch.backends.mkldnn``: the oneDNN CPU kernels. A PyTorch CPU build has them; minigrad's CPU
kernels are NumPy's, which use the BLAS NumPy was built with."""

from __future__ import annotations

import sys
import types
from typing import Any

__all__ = ["is_available", "enabled"]

enabled = True


def is_available() -> bool:
    """True, as on a PyTorch CPU build (minigrad always has its CPU kernels)."""
    return True


class _FlagsModule(types.ModuleType):
    """This module, refusing a non-bool for a flag as PyTorch does (``enabled = 'yes'``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "enabled" and not isinstance(value, bool):
            raise RuntimeError(f"set_enabled_mkldnn expects a bool, but got {type(value).__name__}")
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _FlagsModule
