"""The Optimizer base class: parameter groups, per-parameter state, and state dicts.

An optimizer holds ``param_groups``, a list of dicts; each has ``'params'`` (the tensors it
updates) and its own options (``'lr'``, ``'momentum'`` ...), so one model can train with
several learning rates. ``state`` maps each parameter to a dict of what the update rule
remembers between steps (momentum buffers, Adam's moments). Subclasses only write ``step``.

Updates are applied to the raw arrays (``p.array``) in place: nothing is recorded for
backward, and every ``Parameter`` stays the same object the model holds.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from copy import deepcopy
from itertools import chain
from typing import Any, TypeVar

from minigrad import dtypes
from minigrad.autograd.grad_mode import enable_grad
from minigrad.creation import tensor
from minigrad.tensor import Tensor

_Loss = TypeVar("_Loss")  # what ``step``'s closure returns, and so ``step`` too

__all__ = ["Optimizer", "required", "new_step_count", "advance_step", "lerp_"]


class _RequiredParameter:
    """Marks an option every parameter group must give (a default that is not a default)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class of all optimizers, as ``torch.optim.Optimizer``.

    ``params`` is an iterable of Tensors (``model.parameters()``), of ``(name, tensor)``
    pairs (``model.named_parameters()``), or of dicts, each one parameter group with its
    own options; ``defaults`` holds the options a group does not set.

    Args:
        params: the parameters to optimise: an iterable of tensors (``model.parameters()``), of (name, tensor)
            pairs, or of dicts, each a parameter group with its own options.
        defaults: the options a parameter group does not set.
    """

    _opt_called: bool  # set once ``step`` ran, by the lr_scheduler's wrapper (for its call-order warning)

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or "
                            f"dicts, but got {_typename(params)}")
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __repr__(self) -> str:
        """PyTorch's layout: each group's options, sorted, under "Parameter Group i"; a blank line between."""
        groups = []
        for i, group in enumerate(self.param_groups):
            options = [f"    {key}: {group[key]}\n" for key in sorted(group) if key != "params"]
            groups.append(f"\nParameter Group {i}\n" + "".join(options))
        return f"{type(self).__name__} (" + "".join(groups) + ")"

    # --- parameter groups ----------------------------------------------------------------

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (a dict with ``'params'`` and any options) to optimise."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the "
                            "ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        params = list(params)

        # (name, tensor) pairs from named_parameters(): keep the names beside the tensors.
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        if names and len(names) != len(params):
            raise ValueError("all optimizer params should be with/without names. "
                             "Some param names are missing")
        param_group["params"] = params
        if names:
            param_group["param_names"] = names

        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{_typename(param)}")
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            param_group.setdefault(name, default)

        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this "
                          "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                          "information", stacklevel=3)
        seen: set[Tensor] = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient: ``grad = None`` (default) or fill it with zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    grad = p.grad
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    # --- the update ----------------------------------------------------------------------

    def step(self, closure: Callable[[], _Loss] | None = None) -> _Loss | None:
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        raise NotImplementedError

    @staticmethod
    def _evaluate(closure: Callable[[], Any] | None) -> Any:
        """Run ``closure`` (which recomputes the loss and calls backward) with grad enabled."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def _params_with_grad(self) -> Iterator[tuple[dict, Tensor, Tensor, dict]]:
        """``(group, parameter, its gradient, its state)`` for every parameter that has a gradient, group
        by group."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is not None:
                    yield group, p, grad, self.state[p]

    def _update(self, param: Tensor, update: Callable[..., None], *args: Any, **kwargs: Any) -> None:
        """Run ``update(*args, **kwargs)``, which changes ``param``'s array in place, and mark the change.

        A backward that saved ``param`` must now refuse to run (its version counter moves on). If the
        update fails on shapes, the error names the (loaded) state's shape and the parameter's.
        """
        try:
            update(*args, **kwargs)
        except ValueError:
            self._check_state_shapes(param)
            raise
        param._bump_version("optimizer.step")

    def _check_state_shapes(self, param: Tensor) -> None:
        """Raise PyTorch's RuntimeError if a (loaded) state tensor does not have ``param``'s shape."""
        for key, value in self.state.get(param, {}).items():
            if isinstance(value, Tensor) and key != "step" and value.shape != param.shape:
                raise RuntimeError(f"optimizer state '{key}' of shape {list(value.shape)} does not match its "
                                   f"parameter of shape {list(param.shape)} (a state dict of another model?)")

    # --- saving and restoring --------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``, as PyTorch's.

        Parameters are replaced by their position in the groups (0, 1, ...), so the dict can be
        saved and loaded into a new optimizer over a new model with the same layout. The state
        tensors are the optimizer's own (not copies), as in PyTorch.
        """
        index_of: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            for p in group["params"]:
                index_of.setdefault(id(p), len(index_of))
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index_of[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore options and state from :meth:`state_dict`'s output (matched by position)."""
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        param_of = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                            chain.from_iterable(g["params"] for g in groups)))

        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                param = param_of[key]
                state[param] = _cast_to_param(param, value)
            else:
                state[key] = value
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})

    # Options a state dict saved before they existed lacks, with the values PyTorch fills in.
    _OPTIONS_OF_OLDER_DICTS: dict[str, Any] = {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Install ``state`` (also on unpickling), filling in the options older dicts lack."""
        self.__dict__.update(state)
        for group in self.param_groups:
            for option, value in self._OPTIONS_OF_OLDER_DICTS.items():
                group.setdefault(option, value)
        for param_state in self.state.values():  # older dicts may count steps with a plain number
            if "step" in param_state and not isinstance(param_state["step"], Tensor):
                param_state["step"] = new_step_count(float(param_state["step"]))


def new_step_count(value: float = 0.0) -> Tensor:
    """A parameter's step count as PyTorch keeps it: a 0-d tensor on the CPU, in float64 when that
    is the default dtype, else in float32."""
    dtype = dtypes.float64 if dtypes.get_default_dtype() is dtypes.float64 else dtypes.float32
    return tensor(value, dtype=dtype, device="cpu")


def advance_step(state: dict) -> float:
    """Count one more step in ``state['step']`` (in place, as PyTorch does) and return the new count."""
    count = state["step"].array
    count += 1
    return float(count)


def lerp_(start: Any, end: Any, weight: float) -> None:
    """``start += weight * (end - start)`` in place, in PyTorch's form (exact at weight 0 and 1)."""
    weight = start.dtype.type(weight)  # computed in the array's precision, as PyTorch does
    if abs(weight) < 0.5:
        # The array operand comes first, so its own module (NumPy or CuPy) does the multiply.
        start += (end - start) * weight
    else:
        start[...] = end - (end - start) * (1 - weight)


def _cast_to_param(param: Tensor, value: Any, key: Any = None) -> Any:
    """``value`` with its tensors moved to ``param``'s device (and dtype, if floating; never 'step')."""
    if isinstance(value, Tensor):
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast_to_param(param, v, key=k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_to_param(param, v) for v in value)
    return value


def _typename(value: Any) -> str:
    kind = type(value)
    if isinstance(value, Tensor):
        return "minigrad.Tensor"
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
