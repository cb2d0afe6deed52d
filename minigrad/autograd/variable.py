"""``torch.autograd.Variable``: before PyTorch 0.4 the wrapper that made a tensor part of the
graph. Today (in PyTorch and here) ``Variable(t)`` returns a Tensor, and every Tensor is a
Variable to ``isinstance``; old tutorials keep running."""

from __future__ import annotations

import warnings
from typing import Any

from minigrad.tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor)

    def __call__(cls, data: Tensor | None = None, requires_grad: bool = False,
                 volatile: bool = False) -> Tensor:
        """A leaf on ``data``'s values (shared, not copied), with ``requires_grad`` as given."""
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            from minigrad.creation import empty  # noqa: PLC0415 (creation imports the ops)

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=False)``: ``tensor.detach().requires_grad_(requires_grad)``."""
