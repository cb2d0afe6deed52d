"""``nn.Module``: the base class of every layer and every model.

A Module keeps three ordered registries that plain attribute assignment fills:
``_parameters`` (``self.w = Parameter(...)``), ``_buffers`` (``register_buffer``: state
that is saved but not trained, such as BatchNorm's running mean) and ``_modules``
(``self.fc = Linear(...)``). Everything else — listing parameters, ``state_dict``,
``to(device)``, ``train()``/``eval()``, the printed tree — walks those registries.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ParamSpec, Protocol, TypeVar, cast, overload

from minigrad.autograd.grad_mode import no_grad
from minigrad.nn.parameter import Parameter
from minigrad.ops.conversion import read_to_overload
from minigrad.tensor import Tensor

__all__ = ["Module"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict(strict=False)`` could not match."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """Returned by ``register_forward_hook`` and friends; ``handle.remove()`` unregisters the hook.

    Args:
        hooks: the dictionary the hook was registered in; ``remove()`` deletes it there.
    """

    _next_id = 0

    def __init__(self, hooks: dict):
        self._hooks = hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc_info: Any) -> None:  # ``with module.register_forward_hook(fn): ...``
        self.remove()


def _typename(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"minigrad.Tensor({value.dtype.name})"
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first (for nesting a child's repr)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line if line.strip() else "" for line in lines[1:])


_Destination = TypeVar("_Destination", bound=dict[str, Any])  # state_dict's ``destination``
_P = ParamSpec("_P")
_R = TypeVar("_R", covariant=True)


class _HasForward(Protocol[_P, _R]):
    """A module as ``__call__`` sees it: its ``forward``'s parameters and result."""

    def forward(self, *args: _P.args, **kwargs: _P.kwargs) -> _R: ...


class Module:
    """Base class for layers and models: subclass it, create the layers in ``__init__``, write ``forward``.

    ``module(x)`` calls ``forward(x)`` (after any forward pre-hooks, before any forward hooks).
    """

    training: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments {args} {kwargs}")
        d = self.__dict__  # set directly: __setattr__ needs these registries to exist
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        name = type(self).__name__
        raise NotImplementedError(f'Module [{name}] is missing the required "forward" function')

    def __call__(self: _HasForward[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R:
        """``forward(*args, **kwargs)``, with the forward hooks around it. Typed as this module's own
        ``forward``, so that ``nn.Linear(3, 4)(x)`` is a Tensor to a type checker."""
        return cast(Module, self)._call_impl(*args, **kwargs)

    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks):
            return self.forward(*args, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, output)
            if result is not None:
                output = result
        return output

    def register_forward_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, args)`` runs before ``forward``; it may return replacement args."""
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, args, output)`` runs after ``forward``; it may return a replacement output."""
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    # --- registration -------------------------------------------------------------------------

    def _check_new_name(self, kind: str, name: Any, registry: str) -> None:
        if registry not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[registry]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (or None: a declared but absent parameter, e.g. ``bias=False``)."""
        self._check_new_name("parameter", name, "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(minigrad.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             f"created explicitly. To express '{name}' as a function of another Tensor, "
                             "compute the value in the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register state that is not trained; ``persistent=False`` leaves it out of ``state_dict``."""
        self._check_new_name("buffer", name, "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(minigrad Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register a child module (what ``self.name = module`` does)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_new_name("module", name, "_modules")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep="_parameters")  # re-assigning keeps its place in the order
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(minigrad.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if d.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep="_modules")
            d["_modules"][name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(minigrad.nn.Module or None expected)")
            d["_modules"][name] = None
        elif d.get("_buffers") is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(minigrad.Tensor or None expected)")
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str = "") -> None:
        """Remove ``name`` from every registry but ``keep`` (before it is registered anew as another kind)."""
        d = self.__dict__
        d.pop(name, None)
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry != keep:
                d[registry].pop(name, None)
        d["_non_persistent_buffers_set"].discard(name)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: parameters, buffers and modules live in the registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                return d[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(registry, ()):
                del self.__dict__[registry][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters) + list(self._modules)
                + list(self._buffers))
        return sorted(key for key in set(keys) if not key[0].isdigit())

    # --- walking the tree ------------------------------------------------------------------------

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for this module and every descendant, depth first, each module once."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry: str, prefix: str, recurse: bool,
                       remove_duplicate: bool) -> Iterator[tuple[str, Any]]:
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in module.__dict__[registry].items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``("fc.weight", Parameter)`` pairs in registration order; a shared parameter appears once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def get_submodule(self, target: str) -> Module:
        """The descendant at a dotted path such as ``"features.0"`` ('' is this module)."""
        module = self
        for part in target.split(".") if target else ():
            if not hasattr(module, part):
                raise AttributeError(f"{module._get_name()} has no attribute `{part}` (in '{target}')")
            child = getattr(module, part)
            if not isinstance(child, Module):
                raise AttributeError(f"`{part}` is not an nn.Module (in '{target}')")
            module = child
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path such as ``"features.0.weight"``."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}` (in '{target}')")
        if not isinstance(getattr(module, name), Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter (in '{target}')")
        return getattr(module, name)

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path such as ``"bn.running_mean"``."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}` (in '{target}')")
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer (in '{target}')")
        return module._buffers[name]

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every child (recursively) and then on this module; returns ``self``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # --- modes and gradients ---------------------------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Set training mode (Dropout drops, BatchNorm uses batch statistics) here and below."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """``train(False)``: Dropout is the identity and BatchNorm uses its running statistics."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the parameters' gradients (``grad = None``, or zeros with ``set_to_none=False``)."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                with no_grad():
                    param.grad.zero_()

    # --- devices and dtypes ----------------------------------------------------------------------

    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        """Convert every parameter, gradient and buffer with ``fn``.

        A Parameter keeps its identity (only its data is replaced), so an optimizer
        built before ``model.to(...)`` still holds the model's parameters.
        """
        for module in self.children():
            module._apply(fn)
        with no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                param.data = fn(param)
                if param.grad is not None:
                    param.grad.data = fn(param.grad)
            for name, buffer in self._buffers.items():
                if buffer is not None:
                    self._buffers[name] = fn(buffer)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)`` or ``to(tensor)``, in place; returns ``self``.

        A dtype applies to floating-point parameters and buffers only (integer buffers such as
        ``num_batches_tracked`` keep theirs).
        """
        device, dtype, _ = read_to_overload(args, dict(kwargs))
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            return t.to(device=device, dtype=dtype if t.is_floating_point() else None)

        return self._apply(convert)

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def cuda(self, device: Any = None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    # --- saving and loading ----------------------------------------------------------------------

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()

    @overload
    def state_dict(self, *, destination: _Destination, prefix: str = ...,
                   keep_vars: bool = ...) -> _Destination: ...
    @overload
    def state_dict(self, *, prefix: str = ..., keep_vars: bool = ...) -> OrderedDict[str, Any]: ...
    @overload
    def state_dict(self, *args: Any, destination: dict[str, Any] | None = ..., prefix: str = ...,
                   keep_vars: bool = ...) -> dict[str, Any]: ...  # the deprecated positional form
    def state_dict(self, *args: Any, destination: dict[str, Any] | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Any]:
        """An OrderedDict ``{"fc.weight": tensor, "bn.running_mean": tensor, ...}`` of detached tensors.

        Holds every parameter and persistent buffer, under dotted names; the tensors share
        memory with the model (save them with ``mg.save``). ``destination``, ``prefix`` and
        ``keep_vars`` given by position still work, with PyTorch's deprecation warning.
        """
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
                          " for details.", FutureWarning, stacklevel=2)
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict: Mapping, prefix: str, missing_keys: list,
                              unexpected_keys: list, error_msgs: list, assign: bool = False) -> None:
        """Copy this module's own entries of ``state_dict`` (keys ``prefix + name``) into place."""
        local = {name: value for name, value in self._parameters.items() if value is not None}
        local.update({name: value for name, value in self._buffers.items()
                      if value is not None and name not in self._non_persistent_buffers_set})
        for name, current in local.items():
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            given = state_dict[key]
            if not isinstance(given, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected a minigrad Tensor '
                                  f"from checkpoint but received {type(given)}")
            elif given.shape != current.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {given.shape} from "
                                  f"checkpoint, the shape in current model is {current.shape}.")
            elif assign:
                if isinstance(current, Parameter):
                    given = Parameter(given, requires_grad=current.requires_grad)
                setattr(self, name, given)
            else:
                with no_grad():
                    current.copy_(given)
        for key in state_dict:
            if not key.startswith(prefix):
                continue
            head, dot, _ = key[len(prefix):].partition(".")
            if (dot and head not in self._modules) or (not dot and head not in local):
                unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping, strict: bool = True, assign: bool = False) -> Any:
        """Copy values from ``state_dict`` into this module's parameters and buffers, in place.

        With ``strict``, missing or unexpected keys raise a RuntimeError listing them; a
        shape mismatch always raises. Returns ``(missing_keys, unexpected_keys)``.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        state_dict = OrderedDict(state_dict)  # a module's loader may add entries; keep the caller's intact
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []

        def load(module: Module, local_state: Mapping, prefix: str) -> None:
            module._load_from_state_dict(local_state, prefix, missing_keys, unexpected_keys, error_msgs,
                                         assign)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state.items() if k.startswith(child_prefix)},
                         child_prefix)

        load(self, state_dict, "")
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # --- printing --------------------------------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The layer's settings inside its ``repr``, e.g. ``in_features=4, out_features=2, bias=True``."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): {_addindent(repr(module), 2)}" for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"
