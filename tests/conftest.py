"""Suite-wide test setup.

This file's directory, ``tests/``, is put on ``sys.path`` by pytest (conftest files outside
packages are imported that way), so every test module can import the shared helpers that
live here: ``from _torch import require_torch`` and ``import standin_cupy``.
"""

import pytest
from _torch import ENV_VAR, torch_required


def pytest_configure(config: pytest.Config) -> None:
    """With ``MINIGRAD_REQUIRE_TORCH`` set, a missing PyTorch stops the run before any test.

    Every comparison test finds PyTorch through ``require_torch()`` or
    ``pytest.importorskip("torch")``; once ``import torch`` is known to work, neither can
    skip, so CI cannot pass with the comparisons silently skipped.
    """
    if torch_required():
        try:
            import torch  # noqa: F401
        except ImportError as error:
            raise pytest.UsageError(f"{ENV_VAR} is set but PyTorch cannot be imported: {error}") from error
