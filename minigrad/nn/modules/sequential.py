"""``Sequential``: a pipeline of modules, each fed the output of the one before.

The registered collections that have no ``forward`` (``ModuleList``, ``ModuleDict``,
``ParameterList``, ``ParameterDict``) are in ``container.py``.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from minigrad.nn.modules.module import Module

__all__ = ["Sequential"]


def _index(index: int, length: int, kind: str) -> int:
    """A non-negative position from a possibly negative index, with PyTorch's IndexError."""
    index = operator.index(index)  # TypeError for '0' or 1.0, as PyTorch
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of range for a {kind} of length {length}")
    return index % length


class Sequential(Module):
    """Modules applied in order: ``Sequential(a, b, c)(x) == c(b(a(x)))``.

    ``Sequential(OrderedDict([("conv", ...), ("relu", ...)]))`` names the children.
    """

    def __init__(self, *args: Any):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    def forward(self, input: Any) -> Any:  # noqa: A002 (PyTorch's name)
        for module in self._modules.values():
            input = module(input)  # noqa: A001
        return input

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return type(self)(OrderedDict(list(self._modules.items())[index]))
        return list(self._modules.values())[_index(index, len(self), "Sequential")]

    def __setitem__(self, index: int, module: Module) -> None:
        key = list(self._modules)[_index(index, len(self), "Sequential")]
        setattr(self, key, module)

    def __delitem__(self, index: int | slice) -> None:
        keys = list(self._modules)
        doomed = keys[index] if isinstance(index, slice) else [keys[_index(index, len(self), "Sequential")]]
        for key in doomed:
            del self._modules[key]
        if all(key.isdigit() for key in self._modules):  # keep the numbering 0, 1, 2, ... (as PyTorch)
            self.__dict__["_modules"] = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: Sequential) -> Sequential:
        """A new Sequential running this one's modules, then ``other``'s (renumbered from 0)."""
        return Sequential(*self, *_only_sequential(other))

    def __iadd__(self, other: Sequential) -> Sequential:
        return self.extend(list(_only_sequential(other)))

    def __mul__(self, times: int) -> Sequential:
        """A new Sequential running this one's modules ``times`` times over (the same modules, shared)."""
        _check_factor(self, times)
        return Sequential(*(list(self) * times))

    __rmul__ = __mul__

    def __imul__(self, times: int) -> Sequential:
        _check_factor(self, times)
        return self.extend(list(self) * (times - 1))

    def pop(self, index: int | slice) -> Module:
        """Remove the module at ``index`` and return it (the rest are renumbered)."""
        module = self[index]
        del self[index]
        return module

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Put ``module`` before position ``index`` (−len ≤ index ≤ len, as PyTorch)."""
        if not -len(self) <= operator.index(index) <= len(self):
            raise IndexError(f"Index out of range: {index} (for a Sequential of length {len(self)})")
        modules = list(self._modules.values())
        modules.insert(index, module)
        self.__dict__["_modules"] = OrderedDict()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)
        return self


def _check_factor(sequential: Sequential, times: Any) -> None:
    """PyTorch's errors for ``Sequential * times`` when ``times`` is not a positive int."""
    if not isinstance(times, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(sequential)} and {type(times)}")
    if times <= 0:
        raise ValueError(f"Non-positive multiplication factor {times} for {type(sequential)}")


def _only_sequential(other: Any) -> Sequential:
    """``other`` if it is a Sequential; PyTorch's ValueError for ``Sequential + anything else``."""
    if not isinstance(other, Sequential):
        raise ValueError(f"add operator supports only objects of Sequential class, "
                         f"but {type(other)} is given.")
    return other
