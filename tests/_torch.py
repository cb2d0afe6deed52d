"""PyTorch as the reference: ``torch = require_torch()`` in any test module or helper.

PyTorch is optional for minigrad's tests: without it, the comparison tests skip. CI sets
``MINIGRAD_REQUIRE_TORCH=1`` so that a missing PyTorch fails the run instead of silently
skipping every comparison.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType

import pytest

ENV_VAR = "MINIGRAD_REQUIRE_TORCH"


def torch_required() -> bool:
    """True when the environment demands PyTorch (``MINIGRAD_REQUIRE_TORCH`` set to a true value)."""
    return os.environ.get(ENV_VAR, "").strip().lower() not in ("", "0", "false", "no")


def require_torch() -> ModuleType:
    """The ``torch`` module; skips the calling test (or module) without it, or fails when required."""
    if torch_required():
        try:
            import torch
        except ImportError as error:
            pytest.fail(f"{ENV_VAR} is set but PyTorch cannot be imported: {error}", pytrace=False)
        return torch
    return pytest.importorskip("torch")


def raises_like_torch(call: Callable[[ModuleType], object], error: type, *fragments: str) -> None:
    """``call(lib)`` raises ``error`` with PyTorch and with minigrad; ours names every fragment."""
    import minigrad  # noqa: PLC0415 (this module is imported by conftest, before minigrad is needed)

    with pytest.raises(error):
        call(require_torch())
    with pytest.raises(error) as raised:
        call(minigrad)
    for fragment in fragments:
        assert fragment in str(raised.value), f"{fragment!r} not in {str(raised.value)!r}"
