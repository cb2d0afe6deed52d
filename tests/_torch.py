"""PyTorch as the reference: ``torch = require_torch()`` in any test module or helper.

PyTorch is optional for minigrad's tests: without it, the comparison tests skip. CI sets
``MINIGRAD_REQUIRE_TORCH=1`` so that a missing PyTorch fails the run instead of silently
skipping every comparison.
"""

from __future__ import annotations

import builtins
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


def exception_name(error: BaseException | type) -> str:
    """An exception's qualified class name, e.g. ``'builtins.TypeError'``: what a record can hold."""
    kind = error if isinstance(error, type) else type(error)
    return f"{kind.__module__}.{kind.__qualname__}"


def exception_class(name: str) -> type[BaseException]:
    """The built-in exception class a recorded name such as ``'builtins.TypeError'`` names."""
    module, _, qualname = name.rpartition(".")
    kind = getattr(builtins, qualname, None) if module == "builtins" else None
    if not (isinstance(kind, type) and issubclass(kind, BaseException)):
        raise ValueError(f"{name} is not a built-in exception: PyTorch's own exceptions are not recorded")
    return kind


def raised_by(call: Callable[[ModuleType], object], lib: ModuleType) -> str:
    """The name of the exception ``call(lib)`` raises; fails the test when it raises none."""
    try:
        call(lib)
    except Exception as error:  # noqa: BLE001 (any exception is the answer)
        return exception_name(error)
    pytest.fail(f"{lib.__name__} raised no exception", pytrace=False)


def raises_like_torch(call: Callable[[ModuleType], object], error: type, *fragments: str) -> None:
    """``call(lib)`` raises ``error`` with PyTorch and with minigrad; ours names every fragment.

    PyTorch's side is recorded (``_reference``), so without PyTorch minigrad's side still runs.
    """
    from _reference import reference  # noqa: PLC0415 (_reference imports this module)

    import minigrad  # noqa: PLC0415 (this module is imported by conftest, before minigrad is needed)

    def torch_raises(torch: ModuleType) -> bool:
        with pytest.raises(error):
            call(torch)
        return True

    assert reference(torch_raises) is True
    with pytest.raises(error) as raised:
        call(minigrad)
    for fragment in fragments:
        assert fragment in str(raised.value), f"{fragment!r} not in {str(raised.value)!r}"
