"""``nn.Parameter``: a Tensor that a Module registers as something to train."""

from __future__ import annotations

from minigrad._arguments import bool_argument
from minigrad.tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A leaf Tensor that requires grad by default and that ``Module`` lists in ``parameters()``.

    ``Parameter(t)`` shares ``t``'s array (no copy). Assigning one to a Module attribute
    (``self.w = Parameter(...)``) registers it; a plain Tensor attribute is not registered.

    Args:
        data: the initial values (a tensor; None gives an empty one).
        requires_grad: whether autograd tracks it (True: it is trained).
    """

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from minigrad.creation import empty  # noqa: PLC0415 (creation imports the ops)

            data = empty(0)
        if not isinstance(data, Tensor):  # PyTorch calls data.detach(): an AttributeError
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach' (nn.Parameter "
                                 f"expects a Tensor as data, but got {type(data).__name__})")
        # PyTorch checks it in the call that makes the Parameter, under that call's names
        requires_grad = bool_argument(requires_grad, "_make_subclass", "require_grad", position=3)
        super().__init__(data.array, requires_grad=requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()
