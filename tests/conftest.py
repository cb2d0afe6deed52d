"""Suite-wide test setup.

This file's directory, ``tests/``, is put on ``sys.path`` by pytest (conftest files outside
packages are imported that way), so every test module can import the shared helpers that
live here: ``from _torch import require_torch``, ``from _reference import reference`` and
``import standin_cupy``.
"""

import _reference
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


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Recorded PyTorch answers are keyed by test and call: start the count for this test."""
    _reference.begin_test(item.nodeid)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """While recording (``tests/reference/record.py``), write the answers the session gathered."""
    if _reference.recording():
        for path in _reference.write_records():
            print(f"recorded {path.relative_to(_reference.TESTS.parent)}")


@pytest.fixture(autouse=True)
def no_numpy_calls_on_device_arrays():
    """Fail a test in which library code called a NumPy function on a (stand-in) device array.

    Such a call works on real CuPy only because CuPy serves NumPy's functions, and it breaks the
    promise that the library asks the backend for its array module; the stand-in records each one.
    """
    import standin_cupy_array  # noqa: PLC0415 (imported once the test session runs)

    standin_cupy_array.LIBRARY_NUMPY_CALLS.clear()
    yield
    calls = sorted(set(standin_cupy_array.LIBRARY_NUMPY_CALLS))
    standin_cupy_array.LIBRARY_NUMPY_CALLS.clear()
    if calls:
        pytest.fail("library code called NumPy on device arrays:\n" + "\n".join(calls), pytrace=False)
