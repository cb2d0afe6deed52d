"""Grad mode: whether operations are recorded for backward (``no_grad``, ``enable_grad``).

Grad mode and inference mode belong to a thread, as in PyTorch: ``no_grad`` in one thread does
not stop another thread from recording, and a new thread starts recording, outside inference mode.
Anomaly mode (``autograd/anomaly.py``) is kept beside them, per thread too.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

from minigrad._arguments import bool_argument

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]

_F = TypeVar("_F", bound=Callable[..., Any])  # a decorated function keeps its signature for type checkers


class _ThreadModes(threading.local):
    """This thread's grad mode, inference mode and anomaly mode (``threading.local``: each thread
    sees its own; anomaly mode too, as minigrad's SPEC settles, where PyTorch 2.13 keeps it for the
    whole process: docs/compatibility.md).

    The class attributes are what every thread starts with; a thread that sets one gets a value
    of its own and the others keep theirs. Read on every operation, it costs one attribute
    lookup, no lock (about 20 ns more than a global: docs/performance.md).
    """

    enabled = True      # operations are recorded (``no_grad`` sets it False)
    inference = False   # inside ``inference_mode()``
    anomaly = False     # inside ``detect_anomaly()`` (``autograd/anomaly.py``)


_GradMode = _ThreadModes()  # read across the library as ``_GradMode.enabled``: this thread's modes


def is_grad_enabled() -> bool:
    """True when new operations are recorded in the graph."""
    return _GradMode.enabled


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()`` (in this thread), as ``torch.is_inference_mode_enabled``."""
    return _GradMode.inference


class _GradModeContext:
    """A context manager that is also a decorator, like PyTorch's."""

    mode: bool

    def __new__(cls, function: Any = None, *args: Any) -> Any:
        if callable(function):  # ``@no_grad`` without parentheses decorates directly (PyTorch 2)
            return cls()(function)
        return super().__new__(cls)

    def __enter__(self) -> None:
        self._previous = _GradMode.enabled
        _GradMode.enabled = self.mode

    def __exit__(self, *exc_info: Any) -> None:
        _GradMode.enabled = self._previous

    def _fresh(self) -> _GradModeContext:
        """A new context with the same setting: each call of a decorated function enters its own."""
        return self.__class__()

    def __call__(self, function: _F) -> _F:
        if inspect.isgeneratorfunction(function):
            return cast(_F, self._wrap_generator(function))

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self._fresh():
                return function(*args, **kwargs)
        return cast(_F, wrapper)

    def _wrap_generator(self, function: Callable) -> Callable:
        """A generator runs in the mode each time it resumes; its caller keeps its own mode in between."""
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            generator = function(*args, **kwargs)
            request = None
            while True:
                with self._fresh():
                    try:
                        response = generator.send(request)
                    except StopIteration as stop:
                        return stop.value
                request = yield response
        return wrapper


class no_grad(_GradModeContext):  # noqa: N801 (PyTorch's name)
    """Run the block (or decorated function) without recording operations."""

    mode = False


class enable_grad(_GradModeContext):  # noqa: N801
    """Record operations inside the block, even within ``no_grad``."""

    mode = True


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """``set_grad_enabled(False)`` works as a call, a context manager or a decorator.

    Args:
        mode: False stops recording operations (as ``no_grad``), True records them.
    """

    def __init__(self, mode: bool):
        self.mode = bool_argument(mode, "set_grad_enabled", "mode", position=1)
        self._previous = _GradMode.enabled
        _GradMode.enabled = self.mode

    def __enter__(self) -> None:
        pass

    def _fresh(self) -> set_grad_enabled:
        return set_grad_enabled(self.mode)

    def __call__(self, function: _F) -> _F:
        _GradMode.enabled = self._previous  # as a decorator it changes nothing until the call
        return super().__call__(function)


class inference_mode(_GradModeContext):  # noqa: N801
    """``no_grad`` for inference code; the tensors made inside are inference tensors, which autograd
    refuses to save, change in place or differentiate outside the mode (as PyTorch's).

    As in PyTorch, ``inference_mode(False)`` records operations again, as ``enable_grad`` does.

    Args:
        mode: True (the default) stops recording operations; False records them again.
    """

    def __init__(self, mode: bool = True):
        self.mode = not mode

    def __enter__(self) -> None:
        self._previous_inference = _GradMode.inference
        _GradMode.inference = not self.mode
        super().__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        super().__exit__(*exc_info)
        _GradMode.inference = self._previous_inference

    def _fresh(self) -> inference_mode:
        return inference_mode(not self.mode)
