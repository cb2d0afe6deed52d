"""``detect_anomaly``: find the operation whose backward produced a NaN.

Inside the context, every recorded operation remembers where in the user's code it
was created, and every gradient the engine passes on is checked for NaN; the first
NaN raises a RuntimeError naming the operation and that place.
"""

from __future__ import annotations

import warnings
from typing import Any

from minigrad.autograd.grad_mode import _GradMode


class detect_anomaly:  # noqa: N801 (PyTorch's name)
    """Context manager (or decorator) enabling anomaly detection, as ``torch.autograd.detect_anomaly``.

    Args:
        check_nan: raise when a backward produces a NaN gradient, naming the node (False: nothing is checked).
    """

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should "
                      "only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        self._previous = _GradMode.anomaly
        _GradMode.anomaly = self.check_nan

    def __exit__(self, *exc_info: Any) -> None:
        _GradMode.anomaly = self._previous

    def __call__(self, function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with detect_anomaly(self.check_nan):
                return function(*args, **kwargs)
        return wrapper


class set_detect_anomaly:  # noqa: N801
    """``set_detect_anomaly(True)`` switches anomaly detection on (also as a context manager).

    Args:
        mode: True switches anomaly detection on, False off.
        check_nan: raise when a backward produces a NaN gradient, naming the node (False: nothing is checked).
    """

    def __init__(self, mode: bool, check_nan: bool = True):
        self._previous = _GradMode.anomaly
        _GradMode.anomaly = bool(mode) and check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info: Any) -> None:
        _GradMode.anomaly = self._previous


def is_anomaly_enabled() -> bool:
    return _GradMode.anomaly
