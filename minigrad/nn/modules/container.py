"""Containers: registered collections of modules (``ModuleList``, ``ModuleDict``) and of parameters
(``ParameterList``, ``ParameterDict``); ``Sequential``, the one with a ``forward``, is in
``sequential.py`` (re-exported here, PyTorch's import path).

A plain Python list of layers or tensors is invisible to ``parameters()``; these register every
element as a child module or a parameter under its index (``"0"``, ``"1"``, ...) or key, so that
``parameters()``, ``state_dict()``, ``to()`` and the printed tree all see it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from minigrad.nn.modules.module import Module, _addindent
from minigrad.nn.modules.sequential import Sequential, _index  # noqa: F401 (Sequential: PyTorch's import path)
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor

__all__ = ["ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


class ModuleList(Module):
    """A list of modules, registered so that their parameters belong to the parent. No ``forward``.

    Args:
        modules: the modules to hold, in order (an iterable).
    """

    def __init__(self, modules: Iterable[Module] | None = None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return type(self)(list(self._modules.values())[index])
        return self._modules[str(_index(index, len(self), "ModuleList"))]

    def __setitem__(self, index: int, module: Module) -> None:
        setattr(self, str(_index(index, len(self), "ModuleList")), module)

    def __delitem__(self, index: int | slice) -> None:
        modules = list(self._modules.values())
        if isinstance(index, slice):
            del modules[index]
        else:
            del modules[_index(index, len(self), "ModuleList")]
        self.__dict__["_modules"] = OrderedDict((str(i), m) for i, m in enumerate(modules))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        """A new ModuleList holding this one's modules, then ``other``'s."""
        return ModuleList([*self, *other])

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):  # a ModuleList or Sequential is one; a single layer is not
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got "
                            f"{type(modules).__name__}")
        for module in modules:
            self.append(module)
        return self

    def pop(self, index: int | slice) -> Module:
        """Remove the module at ``index`` and return it (the rest are renumbered)."""
        module = self[index]
        del self[index]
        return module

    def insert(self, index: int, module: Module) -> None:
        modules = list(self._modules.values())
        modules.insert(index, module)
        self.__dict__["_modules"] = OrderedDict()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)

    def __repr__(self) -> str:
        """Runs of identical children print once, as ``(0-2): 3 x Linear(...)`` (as PyTorch)."""
        reprs = [repr(module) for module in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list[list[Any]] = []                   # [first index, last index, repr]
        for i, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = [_addindent(f"({first}): {text}" if first == last else
                            f"({first}-{last}): {last - first + 1} x {text}", 2)
                 for first, last, text in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules (insertion-ordered), registered under their keys. No ``forward``.

    ``ModuleDict({"enc": enc, "dec": dec})`` or ``ModuleDict([("enc", enc), ("dec", dec)])``.

    Args:
        modules: name-module pairs (a mapping or an iterable of pairs).
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def pop(self, key: str) -> Module:
        """Remove ``key`` and return its module (KeyError if absent)."""
        module = self[key]
        del self[key]
        return module

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """Add (or overwrite) the entries of a mapping, a ModuleDict or an iterable of (key, module) pairs."""
        for key, module in _pairs(self, modules):
            self[key] = module


class ParameterList(Module):
    """A list of parameters registered under ``"0"``, ``"1"``, ...; a plain Tensor put in becomes a Parameter.

    Other objects may be held too (a Module is registered as a child). No ``forward``.

    Args:
        values: the parameters to hold, in order (tensors become Parameters).
    """

    def __init__(self, values: Iterable[Any] | None = None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _key(self, index: int) -> str:
        return str(_index(index, len(self), "ParameterList"))

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return type(self)(self[i] for i in range(*index.indices(len(self))))
        return getattr(self, self._key(index))

    def __setitem__(self, index: int, value: Any) -> None:
        setattr(self, self._key(index), _as_parameter(value))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        return self.extend(values)

    def append(self, value: Any) -> ParameterList:
        value = _as_parameter(value)  # first: a tensor that cannot be a Parameter leaves the list unchanged
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):  # a Tensor is one value
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got "
                            f"{type(values).__name__}")
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        """One line per entry, e.g. ``(0): Parameter containing: [minigrad.float32 of size 3x4]``."""
        return "\n".join(_describe(str(i), value, str(value.dtype) if isinstance(value, Tensor) else "")
                         for i, value in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters (insertion-ordered) under their keys; a plain Tensor put in becomes a Parameter.

    As PyTorch's, ``update`` with a plain ``dict`` adds its entries in sorted key order (an
    ``OrderedDict``, a ParameterDict or a list of pairs keep theirs); a missing key raises
    AttributeError, as ``getattr`` does. No ``forward``.

    Args:
        parameters: name-parameter pairs (a mapping or an iterable of pairs).
    """

    def __init__(self, parameters: Any = None):
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _check_key(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(f"Index given to ParameterDict cannot be used as a key as it is not a string "
                            f"(type is '{type(key).__name__}').")
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._check_key(key))

    def __setitem__(self, key: str, value: Any) -> None:
        setattr(self, self._check_key(key), _as_parameter(value))
        self._keys[key] = None

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> Iterable[str]:
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        return ((key, self[key]) for key in self._keys)

    def values(self) -> Iterable[Any]:
        return (self[key] for key in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``self[key]``, after setting it to ``default`` if it was absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str) -> Any:
        """Remove ``key`` and return its value (AttributeError if absent, as PyTorch)."""
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last inserted ``(key, value)`` pair (KeyError if empty)."""
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same parameters (not copies of them), in the same order."""
        return ParameterDict(OrderedDict(self.items()))

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        return ParameterDict((key, default) for key in keys)

    def update(self, parameters: Any) -> None:
        """Add (or overwrite) the entries of a mapping, a ParameterDict or an iterable of (key, value)."""
        if isinstance(parameters, Mapping) and not isinstance(parameters, OrderedDict):
            parameters = sorted(parameters.items())  # PyTorch's order for a plain dict
        for key, value in _pairs(self, parameters):
            self[key] = value

    def __or__(self, other: ParameterDict) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self

    def extra_repr(self) -> str:
        """One line per entry, e.g. ``(w): Parameter containing: [minigrad.FloatTensor of size 3x4]``."""
        return "\n".join(_describe(key, value, _type_name(value)) for key, value in self.items())


    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")


def _type_name(value: Any) -> str:
    """PyTorch's ``torch.typename`` under minigrad's name (``minigrad.FloatTensor``), for a tensor."""
    return value.type().replace("torch.", "minigrad.", 1) if isinstance(value, Tensor) else ""


def _as_parameter(value: Any) -> Any:
    """What a parameter container stores: a plain Tensor becomes a Parameter (sharing its data)."""
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) else value


def _describe(key: str, value: Any, type_name: str) -> str:
    """One ``extra_repr`` line of a parameter container, laid out as PyTorch's."""
    if not isinstance(value, Tensor):
        return f"  ({key}): Object of type: {type(value).__name__}"
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    size = "x".join(str(n) for n in value.shape)
    where = value.device
    device = f" ({where.type}:{where.index or 0})" if where.type != "cpu" else ""  # PyTorch's "(cuda:0)"
    return f"  ({key}): {kind} containing: [{type_name} of size {size}{device}]"


def _pairs(container: Module, entries: Any) -> Iterator[tuple[Any, Any]]:
    """The (key, value) pairs of a dict-like container's ``update`` argument, with PyTorch's errors."""
    name = type(container).__name__
    if not isinstance(entries, Iterable):
        raise TypeError(f"{name}.update should be called with an iterable of key/value pairs, but got "
                        f"{type(entries).__name__}")
    if isinstance(entries, (Mapping, type(container))):  # a ModuleDict, or a ParameterDict, is no Mapping
        yield from entries.items()
        return
    for j, pair in enumerate(entries):
        if not isinstance(pair, Iterable):
            raise TypeError(f"{name} update sequence element #{j} should be Iterable; is "
                            f"{type(pair).__name__}")
        pair = list(pair)
        if len(pair) != 2:
            raise ValueError(f"{name} update sequence element #{j} has length {len(pair)}; 2 is required")
        yield pair[0], pair[1]
