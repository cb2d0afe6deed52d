"""The Tensor: an array, its gradient, and its place in the graph.

A Tensor holds a NumPy (or CuPy) array in ``.array``. If it was produced by a
recorded operation, ``.grad_fn`` is that operation's backward node; a tensor
without one is a *leaf*, and a leaf with ``requires_grad=True`` receives its
gradient in ``.grad`` when ``backward()`` runs. Every mathematical method here
is a one-line call into :mod:`minigrad.ops`, where each operation's forward and
backward live side by side.
"""

from __future__ import annotations

import copy
import functools
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ParamSpec, SupportsIndex, TypeVar, overload

import numpy

from minigrad import backend
from minigrad import dtypes as _dtypes
from minigrad._arguments import bool_argument
from minigrad.compat import unsupported as _unsupported

if TYPE_CHECKING:
    from minigrad.ops._util import ViewInfo

__all__ = ["Tensor", "Size", "numpy_keywords"]

_NON_LEAF_FLAG = "you can only change requires_grad flags of leaf variables."
_USE_DETACH = (" If you want to use a computed variable in a subgraph that doesn't require differentiation "
               "use var_no_grad = var.detach().")
_NON_LEAF_GRAD = ("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                  "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
                  "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
                  "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
                  "instead.")


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``minigrad.Size([2, 3])``."""

    def numel(self) -> int:
        count = 1
        for size in self:
            count *= size
        return count

    def __repr__(self) -> str:
        return f"minigrad.Size({list(self)})"


class _RemovableHandle:
    def __init__(self, hooks: list, hook: Any):
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)

    def __enter__(self) -> _RemovableHandle:
        return self

    def __exit__(self, *exc_info: Any) -> None:  # ``with t.register_hook(fn): ...`` removes it after
        self.remove()


class _AllDims:
    """The default ``dim`` of ``sum`` and ``mean``: all dims, but told apart from an explicit
    ``dim=None``, since PyTorch takes ``keepdim`` only along with a dim (``t.sum(keepdim=True)`` is its
    TypeError, ``t.sum(None, keepdim=True)`` is not)."""

    def __repr__(self) -> str:
        return "<all dims>"


ALL_DIMS = _AllDims()

_P = ParamSpec("_P")
_R = TypeVar("_R")

# Tensor has methods named bool, int and float, and inside its class body those names are the
# methods: its annotations say _bool, _int and _float instead (as PyTorch's own stubs do).
_bool = bool
_int = int
_float = float
_ndarray = numpy.ndarray  # inside the class body, ``numpy`` is the method


def numpy_keywords(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function`` that also takes NumPy's ``axis=`` and ``keepdims=`` for ``dim=`` and ``keepdim=``,
    as PyTorch's functions and methods do (``t.sum(axis=1, keepdims=True)``).

    Typed as returning ``function``'s own signature, so that type checkers and editors see
    ``t.sum()``'s parameters and result; the NumPy spellings are the aliases only at run time.
    """
    @functools.wraps(function)
    def accepting(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        for numpy_name, torch_name in (("axis", "dim"), ("keepdims", "keepdim")):
            if numpy_name in kwargs:
                if torch_name in kwargs:
                    raise TypeError(f"{function.__name__}() got both '{torch_name}' and its alias "
                                    f"'{numpy_name}'")
                kwargs[torch_name] = kwargs.pop(numpy_name)
        return function(*args, **kwargs)
    return accepting


class Tensor:
    """An n-dimensional array that can record the operations applied to it.

    Create tensors with :func:`minigrad.tensor`, :func:`minigrad.zeros` and friends;
    ``Tensor(array)`` wraps an existing NumPy/CuPy array without copying.
    """

    __slots__ = ("_array", "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_version_value",
                 "_last_op", "_accumulator", "_hooks", "_base", "__weakref__", "__dict__")
    __array_priority__ = 1000  # NumPy defers to our reflected operators: ndarray * Tensor -> Tensor
    _view: ViewInfo | None = None  # on a view: how it was made from its base (ops/_util.py ``ViewInfo``)
    _inference = False  # made inside ``inference_mode()``: PyTorch's inference tensor

    def __init__(self, data: Any = None, *shape: int, requires_grad: bool = False):
        if isinstance(data, numpy.ndarray) or backend.device_of(data).type == "cuda":
            array = data
        elif isinstance(data, numpy.generic):
            array = numpy.asarray(data)
        else:  # the legacy ``torch.Tensor(...)`` constructor: data or a shape, always float32
            array = _legacy_array(data, shape)
        self._array = array
        self._requires_grad = False
        self._grad: Tensor | None = None
        self._grad_fn: function.BackwardCFunction | None = None
        self._output_nr = 0
        self._version_value = 0  # in-place changes of this storage (kept by the base of a view)
        self._last_op = ""
        self._accumulator: weakref.ReferenceType[function.AccumulateGrad] | None = None
        self._hooks: list[Callable[[Tensor], Tensor | None]] | None = None
        self._base: Tensor | None = None
        if _GradMode.inference:
            self._inference = True
        if requires_grad:
            self.requires_grad = True

    # --- what the tensor is -------------------------------------------------------------

    @property
    def array(self) -> Any:
        """The underlying array itself (``numpy.ndarray``, or ``cupy.ndarray`` on the GPU)."""
        return self._array

    @property
    def data(self) -> Tensor:
        """A tensor sharing this one's storage, detached from the graph (changes go untracked)."""
        return Tensor(self._array)

    @data.setter
    def data(self, other: Tensor) -> None:
        if not isinstance(other, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(other).__name__}")
        self._array = other._array

    @property
    def shape(self) -> Size:
        return Size(self._array.shape)

    @property
    def ndim(self) -> int:
        return self._array.ndim

    @property
    def dtype(self) -> _dtypes.dtype:
        return _dtypes.from_numpy_dtype(self._array.dtype)

    @property
    def device(self) -> backend.Device:
        return backend.device_of(self._array)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def T(self) -> Tensor:  # noqa: N802 (PyTorch's name)
        if self.ndim != 2:
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                          "deprecated and it will throw an error in a future release. Consider `x.mT` to "
                          "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
                          "to reverse the dimensions of a tensor.", UserWarning, stacklevel=2)
        return self.permute(tuple(reversed(range(self.ndim))))

    @property
    def mT(self) -> Tensor:  # noqa: N802
        if self.ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                               f"{self.ndim}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def _version(self) -> int:
        """How many times this tensor's storage was changed in place (shared with its views)."""
        owner = self if self._base is None else self._base
        return owner._version_value

    def _bump_version(self, op_name: str) -> None:
        owner = self if self._base is None else self._base
        owner._version_value += 1
        owner._last_op = op_name

    @property
    def _last_inplace_op(self) -> str:
        return (self if self._base is None else self._base)._last_op

    def size(self, dim: int | None = None) -> Size | int:
        if dim is None:
            return Size(self._array.shape)
        if self.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._array.shape[_normalize_dim(dim, self.ndim)]

    def dim(self) -> int:
        return self._array.ndim

    ndimension = dim

    def numel(self) -> int:
        return int(self._array.size)

    nelement = numel

    def element_size(self) -> int:
        return self._array.itemsize

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def __len__(self) -> int:
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    # --- autograd state -----------------------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        if self._view is not None and self._view.version != self._version:
            inplace.refresh_view(self)  # a view whose base changed in place takes the base's new history
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self._grad_fn is not None:  # even ``= True``: a computed tensor's flag follows its inputs
            raise RuntimeError(_NON_LEAF_FLAG if value else _NON_LEAF_FLAG + _USE_DETACH)
        if value and self._inference and not _GradMode.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not "
                               "allowed.")
        if value and not self.dtype.is_floating_point:
            raise RuntimeError(f"only Tensors of floating point dtype can require gradients, "
                               f"got a tensor of dtype {self.dtype.name}")
        self._requires_grad = bool(value)

    def is_inference(self) -> bool:
        """True for a tensor made inside ``inference_mode()``: it cannot be saved for a backward pass,
        nor changed in place, outside that mode (as PyTorch's inference tensors)."""
        return self._inference

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place; on a computed tensor only ``True`` (already so) is allowed."""
        requires_grad = bool_argument(requires_grad, "requires_grad_", "requires_grad", position=1)
        if requires_grad and self._grad_fn is not None:
            return self
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> Tensor | None:
        grad = self._grad
        if grad is None and self._grad_fn is not None and not self.retains_grad:
            warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got "
                                f"{type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(f"assigned grad has data of a different size: {list(value.shape)} "
                                   f"vs the tensor's {list(self.shape)}")
            if value.dtype is not self.dtype:
                raise RuntimeError(f"assigned grad has data of a different type: {value.dtype.name} "
                                   f"vs the tensor's {self.dtype.name}")
            if value.device != self.device:
                raise RuntimeError(f"assigned grad has data located on a different device: {value.device} "
                                   f"vs the tensor's {self.device}")
        self._grad = value

    @property
    def grad_fn(self) -> Any:
        if self._view is not None and self._view.version != self._version:
            inplace.refresh_view(self)  # as in ``requires_grad``
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def retains_grad(self) -> bool:
        node = self._grad_fn
        return node is not None and self._output_nr in (node._retained or {})

    def _gradient_edge(self) -> tuple:
        """Where this tensor's gradient enters the graph: ``(node, output_nr)``."""
        if self._grad_fn is not None:
            return (self._grad_fn, self._output_nr)
        accumulator = self._accumulator() if self._accumulator is not None else None
        if accumulator is None:
            accumulator = function.AccumulateGrad(self)
            self._accumulator = weakref.ref(accumulator)
        return (accumulator, 0)

    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        """Compute the gradient of this tensor w.r.t. the graph's leaves (into their ``.grad``).

        With ``create_graph=True`` the backward pass is itself recorded: the leaves' ``.grad``
        then have a history and can be differentiated again (``retain_graph`` defaults to it).
        """
        if gradient is not None and not isinstance(gradient, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(gradient).__name__}")
        autograd.backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph,
                          inputs=inputs)

    def detach(self) -> Tensor:
        """The same data, cut from the graph (shares storage and version counter)."""
        out = Tensor(self._array)
        out._base = self if self._base is None else self._base
        if self._inference:  # as PyTorch: detached from an inference tensor, still one
            out._inference = True
        return out

    def detach_(self) -> Tensor:
        """Make this tensor a leaf that does not require grad, in place (not allowed on a view)."""
        if self._view is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` after backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None:
            return
        node = self._grad_fn
        if node._retained is None:
            node._retained = {}
        node._retained[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook: Any) -> _RemovableHandle:
        """``hook(grad)`` sees this tensor's gradient in backward and may return a replacement."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            node = self._grad_fn
            if node._tensor_hooks is None:
                node._tensor_hooks = {}
            hooks = node._tensor_hooks.setdefault(self._output_nr, [])
        hooks.append(hook)
        return _RemovableHandle(hooks, hook)

    def _alias(self) -> Tensor:
        """A new detached tensor object on the same array and version counter (``detach()``)."""
        return self.detach()

    # --- leaving minigrad ---------------------------------------------------------------

    def numpy(self, *, force: bool = False) -> numpy.ndarray:
        """The NumPy array (no copy on the CPU)."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        if self.device.type != "cpu":
            if not force:
                raise TypeError(f"can't convert {self.device} device type tensor to numpy. "
                                "Use Tensor.cpu() to copy the tensor to host memory first.")
            return backend.to_host(self._array)
        return self._array

    def __array__(self, dtype: Any = None, copy: Any = None) -> _ndarray:
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def item(self) -> Any:
        if self._array.size != 1:
            raise RuntimeError(f"a Tensor with {self._array.size} elements cannot be converted to Scalar")
        return self._array.item()

    def tolist(self) -> Any:
        return backend.to_host(self._array).tolist()

    def __float__(self) -> float:
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def _scalar(self) -> Any:
        if self._array.size != 1:  # int(t)/float(t) raise ValueError here, item() RuntimeError (PyTorch's)
            raise ValueError(f"only one element tensors can be converted to Python scalars "
                             f"(got {self._array.size} elements)")
        return self._array.item()

    def __bool__(self) -> bool:
        if self._array.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self._array.size} values is ambiguous")
        return bool(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self._array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __format__(self, spec: str) -> str:
        if self._array.ndim == 0:
            return format(self.item(), spec)
        return format(repr(self), spec)

    def __repr__(self) -> str:
        return formatting.tensor_repr(self)

    def __hash__(self) -> int:
        return id(self)

    if not TYPE_CHECKING:  # hidden from type checkers, which would otherwise accept any attribute
        def __getattr__(self, name: str) -> Any:
            """Only for names normal lookup did not find: PyTorch's Tensor names that minigrad lacks
            raise NotImplementedError naming docs/compatibility.md, any other AttributeError."""
            raise _unsupported.missing_attribute(self, name)

    def __iter__(self) -> Iterator[Tensor]:
        if self._array.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return indexing.iterate(self)

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        raise TypeError("minigrad tensors are not pickled; use mg.save(obj, path) / mg.load(path)")

    def __copy__(self) -> Tensor:
        """``copy.copy(t)``: a new leaf on the same data (a change to one shows in the other), with
        ``t``'s ``requires_grad``, class and attributes but no ``.grad``, as PyTorch's."""
        out = type(self).__new__(type(self))
        Tensor.__init__(out, self._array, requires_grad=self._requires_grad or self._grad_fn is not None)
        out.__dict__.update(self._user_attributes())
        return out

    def __deepcopy__(self, memo: dict) -> Tensor:
        """``copy.deepcopy(t)``: new data, and a deep copy of ``.grad`` and of the attributes.

        Only leaves can be copied so (a computed tensor's graph cannot), as in PyTorch. Views copied
        in one ``deepcopy`` share the copy of their base's data, as they shared the original's.
        """
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                               "the deepcopy protocol at the moment.")
        if id(self) in memo:
            return memo[id(self)]
        base = self._view.base if self._view is not None else self._base
        if base is not None and (id(base) in memo or base._grad_fn is None):
            # keep sharing memory: the copy is made from the copy of the base (one storage, one version)
            base_copy = copy.deepcopy(base, memo)
            array = self._view.fn(base_copy._array) if self._view is not None else base_copy._array
        else:
            base_copy, array = None, self._array.copy()
        out = type(self).__new__(type(self))
        Tensor.__init__(out, array, requires_grad=self._requires_grad)
        memo[id(self)] = out
        if base_copy is not None and self._view is not None:
            mark_view(out, base_copy, self._view.fn)
        elif base_copy is not None:
            out._base = base_copy if base_copy._base is None else base_copy._base
        for key, value in self._user_attributes().items():
            out.__dict__[key] = copy.deepcopy(value, memo)
        if self._grad is not None:
            out._grad = copy.deepcopy(self._grad, memo)
        return out

    def _user_attributes(self) -> dict:
        """The attributes set on this tensor (``t.name = ...``, a Parameter's), not its view record."""
        return {key: value for key, value in self.__dict__.items() if key != "_view"}

    # --- devices and dtypes -------------------------------------------------------------

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)`` or ``to(other)``: a copy when it changes."""
        device, dtype, copy = conversion.read_to_overload(args, kwargs)
        return conversion.to(self, device=device, dtype=dtype, copy=copy)

    def cpu(self) -> Tensor:
        return conversion.to(self, device=backend.CPU)

    def cuda(self, device: Any = None) -> Tensor:
        return conversion.to(self, device=backend.Device("cuda" if device is None else device))

    def type(self, dtype: Any = None) -> Any:
        """``type()``: the legacy type name, as PyTorch's (``'torch.FloatTensor'``, which course code
        compares strings with); ``type(dtype)``, ``type(mg.LongTensor)``, ``type('torch.LongTensor')``:
        a conversion."""
        if dtype is None:
            device = "cuda." if self.device.type == "cuda" else ""
            return f"torch.{device}{_LEGACY_TYPE_NAMES.get(self.dtype.name, self.dtype.name)}"
        dtype, device = _legacy_type(dtype)
        return conversion.to(self, device=device, dtype=dtype)

    def float(self) -> Tensor:
        return conversion.to(self, dtype=_dtypes.float32)

    def double(self) -> Tensor:
        return conversion.to(self, dtype=_dtypes.float64)

    def half(self) -> Tensor:
        return conversion.to(self, dtype=_dtypes.float16)

    def long(self) -> Tensor:
        return conversion.to(self, dtype=_dtypes.int64)

    def int(self) -> Tensor:
        return conversion.to(self, dtype=_dtypes.int32)

    def bool(self) -> Tensor:
        return conversion.to(self, dtype=_dtypes.bool)

    def short(self) -> Tensor:
        return conversion.to(self, dtype=_dtypes.int16)

    def char(self) -> Tensor:
        return conversion.to(self, dtype=_dtypes.int8)

    def byte(self) -> Tensor:
        return conversion.to(self, dtype=_dtypes.uint8)

    def type_as(self, other: Tensor) -> Tensor:
        other = _other_tensor(other, "type_as")  # as PyTorch's ``self.type(other.type())``: dtype and device
        return conversion.to(self, device=other.device, dtype=other.dtype)

    def clone(self) -> Tensor:
        return conversion.Clone.apply(self)

    def is_contiguous(self) -> _bool:
        """False for a view that PyTorch would also hold out of order (``x.t()``, ``x[:, ::2]``).

        A tensor that an operation made is contiguous, as PyTorch's results are; the memory order
        minigrad keeps inside (a convolution's (C, H, W, N)) is its own business.
        """
        return self._view is None or bool(self._array.flags.c_contiguous)

    def contiguous(self) -> Tensor:
        """This tensor, or a C-ordered copy of a view that is not (e.g. ``x.t()``), as PyTorch's."""
        return self if self.is_contiguous() else self.clone()

    # --- memory layout: strides and views of the same storage (minigrad.ops.strided) -----------

    def stride(self, dim: _int | None = None) -> Any:
        """Element steps in storage per step along each dimension (``stride(dim)``: one of them)."""
        return strided.stride(self, dim)

    def storage_offset(self) -> _int:
        return strided.storage_offset(self)

    def as_strided(self, size: Any, stride: Any, storage_offset: _int | None = None) -> Tensor:
        return strided.as_strided(self, size, stride, storage_offset)

    def unfold(self, dimension: _int, size: _int, step: _int) -> Tensor:
        """Windows of ``size`` elements ``step`` apart along ``dimension``, in a new last dim (a view)."""
        return strided.unfold(self, dimension, size, step)

    # --- arithmetic operators -----------------------------------------------------------

    def __add__(self, other: Any) -> Tensor:
        return arithmetic.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return arithmetic.add(self, other)  # the tensor first, as PyTorch records it

    def __sub__(self, other: Any) -> Tensor:
        return arithmetic.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return arithmetic.sub(other, self)

    def __mul__(self, other: Any) -> Tensor:
        return arithmetic.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return arithmetic.mul(self, other)  # the tensor first, as PyTorch records it

    def __truediv__(self, other: Any) -> Tensor:
        return arithmetic.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        # ``other / t`` is ``t.reciprocal() * other``, as PyTorch computes it: its nodes and rounding, and
        # a gradient from the saved reciprocal (``t`` may change in place before backward).
        return arithmetic.mul(elementwise.reciprocal(self), other)

    def __pow__(self, other: Any) -> Tensor:
        return arithmetic.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return arithmetic.pow(other, self)

    def __matmul__(self, other: Any) -> Tensor:
        return linalg.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return linalg.matmul(other, self)

    def __neg__(self) -> Tensor:
        return arithmetic.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return elementwise.abs(self)

    def __floordiv__(self, other: Any) -> Tensor:
        return arithmetic.floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Tensor:
        return arithmetic.floor_divide(other, self)

    def __mod__(self, other: Any) -> Tensor:
        return arithmetic.remainder(self, other)

    def __rmod__(self, other: Any) -> Tensor:
        return arithmetic.remainder(other, self)

    # In place: recorded like any operation (see ``inplace.apply``); a leaf that requires
    # grad refuses them outside ``no_grad``.
    def __iadd__(self, other: Any) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self.div_(other)

    def copy_(self, source: Any) -> Tensor:
        return inplace.apply(self, "copy_", lambda t: conversion.copy_into(t, source), source)

    def fill_(self, value: Any) -> Tensor:
        return inplace.fill(self, "fill_", value)

    def zero_(self) -> Tensor:
        return inplace.fill(self, "zero_", 0)

    def uniform_(self, a: _float = 0.0, b: _float = 1.0, *, generator: Any = None) -> Tensor:
        return inplace.fill_random(self, "uniform_", "uniform", a, b, generator)

    def normal_(self, mean: _float = 0.0, std: _float = 1.0, *, generator: Any = None) -> Tensor:
        return inplace.fill_random(self, "normal_", "normal", mean, std, generator)

    def random_(self, *bounds: _int | None, generator: Any = None) -> Tensor:
        """Integers uniform in [0, to) for ``random_(to)``, in [from, to) for ``random_(from, to)``."""
        return inplace.fill_random_integers(self, bounds, generator)

    # --- comparisons (bool tensors, no gradient) ----------------------------------------

    @overload  # type: ignore[override]  # a Tensor, not object's bool, as PyTorch's stubs say
    def __eq__(self, other: None | list[Any] | tuple[Any, ...] | str) -> _bool: ...
    @overload
    def __eq__(self, other: Any) -> Tensor: ...
    def __eq__(self, other: Any) -> Tensor | _bool:
        if other is None or isinstance(other, (list, tuple, str)):  # ``t == None`` is False, as in PyTorch
            return False
        return comparison.eq(self, other)

    @overload  # type: ignore[override]  # a Tensor, not object's bool, as PyTorch's stubs say
    def __ne__(self, other: None | list[Any] | tuple[Any, ...] | str) -> _bool: ...
    @overload
    def __ne__(self, other: Any) -> Tensor: ...
    def __ne__(self, other: Any) -> Tensor | _bool:
        if other is None or isinstance(other, (list, tuple, str)):
            return True
        return comparison.ne(self, other)

    def __lt__(self, other: Any) -> Tensor:
        return comparison.lt(self, other)

    def __le__(self, other: Any) -> Tensor:
        return comparison.le(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return comparison.gt(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return comparison.ge(self, other)

    def __and__(self, other: Any) -> Tensor:
        return comparison.logical_binary("bitwise_and", self, other)

    def __or__(self, other: Any) -> Tensor:
        return comparison.logical_binary("bitwise_or", self, other)

    def __xor__(self, other: Any) -> Tensor:
        return comparison.logical_binary("bitwise_xor", self, other)

    def __rand__(self, other: Any) -> Tensor:
        return comparison.logical_binary("bitwise_and", other, self)

    def __ror__(self, other: Any) -> Tensor:
        return comparison.logical_binary("bitwise_or", other, self)

    def __rxor__(self, other: Any) -> Tensor:
        return comparison.logical_binary("bitwise_xor", other, self)

    def __lshift__(self, other: Any) -> Tensor:
        return comparison.shift("left_shift", self, other)

    def __rlshift__(self, other: Any) -> Tensor:
        return comparison.shift("left_shift", other, self)

    def __rshift__(self, other: Any) -> Tensor:
        return comparison.shift("right_shift", self, other)

    def __rrshift__(self, other: Any) -> Tensor:
        return comparison.shift("right_shift", other, self)

    # In place, as ``t &= mask``: no gradient flows through bit operations, so nothing is recorded.
    def __iand__(self, other: Any) -> Tensor:
        return inplace.apply(self, "bitwise_and_",
                             lambda t: comparison.logical_binary("bitwise_and", t, other))

    def __ior__(self, other: Any) -> Tensor:
        return inplace.apply(self, "bitwise_or_",
                             lambda t: comparison.logical_binary("bitwise_or", t, other))

    def __ixor__(self, other: Any) -> Tensor:
        return inplace.apply(self, "bitwise_xor_",
                             lambda t: comparison.logical_binary("bitwise_xor", t, other))

    def __ilshift__(self, other: Any) -> Tensor:
        return inplace.apply(self, "__ilshift__", lambda t: comparison.shift("left_shift", t, other))

    def __irshift__(self, other: Any) -> Tensor:
        return inplace.apply(self, "__irshift__", lambda t: comparison.shift("right_shift", t, other))

    def __invert__(self) -> Tensor:
        return comparison.invert(self)

    def bitwise_not(self) -> Tensor:
        return comparison.bitwise_not(self)

    bitwise_and, bitwise_or, bitwise_xor = __and__, __or__, __xor__

    def eq(self, other: Any) -> Tensor:
        return comparison.eq(self, other)

    def ne(self, other: Any) -> Tensor:
        return comparison.ne(self, other)

    def lt(self, other: Any) -> Tensor:
        return comparison.lt(self, other)

    def le(self, other: Any) -> Tensor:
        return comparison.le(self, other)

    def gt(self, other: Any) -> Tensor:
        return comparison.gt(self, other)

    def ge(self, other: Any) -> Tensor:
        return comparison.ge(self, other)

    def equal(self, other: Tensor) -> _bool:
        return comparison.equal(self, other)

    def allclose(self, other: Tensor, rtol: _float = 1e-5, atol: _float = 1e-8,
                 equal_nan: _bool = False) -> _bool:
        return comparison.allclose(self, other, rtol, atol, equal_nan)

    def isnan(self) -> Tensor:
        return comparison.isnan(self)

    @numpy_keywords
    def any(self, dim: Any = None, keepdim: _bool = False) -> Tensor:
        return comparison.any(self, dim, keepdim)

    @numpy_keywords
    def all(self, dim: Any = None, keepdim: _bool = False) -> Tensor:
        return comparison.all(self, dim, keepdim)

    # --- math methods: each one line into minigrad.ops ---------------------------------

    def add(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return arithmetic.add(self, other, alpha=alpha)

    def add_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return inplace.apply(self, "add_", lambda t: arithmetic.add(t, other, alpha=alpha), other)

    def sub(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return arithmetic.sub(self, other, alpha=alpha)

    def sub_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        return inplace.apply(self, "sub_", lambda t: arithmetic.sub(t, other, alpha=alpha), other)

    def mul(self, other: Any) -> Tensor:
        return arithmetic.mul(self, other)

    def mul_(self, other: Any) -> Tensor:
        return inplace.apply(self, "mul_", lambda t: arithmetic.mul(t, other), other)

    def div(self, other: Any, *, rounding_mode: str | None = None) -> Tensor:
        return arithmetic.div(self, other, rounding_mode=rounding_mode)

    def div_(self, other: Any, *, rounding_mode: str | None = None) -> Tensor:
        return inplace.apply(self, "div_", lambda t: arithmetic.div(t, other, rounding_mode=rounding_mode),
                             other)

    def true_divide(self, other: Any) -> Tensor:
        return arithmetic.div(self, other)

    def true_divide_(self, other: Any) -> Tensor:
        return self.div_(other)

    def remainder(self, other: Any) -> Tensor:
        return arithmetic.remainder(self, other)

    def remainder_(self, other: Any) -> Tensor:
        return inplace.apply(self, "remainder_", lambda t: arithmetic.remainder(t, other), other)

    def pow(self, exponent: Any) -> Tensor:
        return arithmetic.pow(self, exponent)

    def pow_(self, exponent: Any) -> Tensor:
        return inplace.apply(self, "pow_", lambda t: arithmetic.pow(t, exponent), exponent)

    def neg(self) -> Tensor:
        return arithmetic.neg(self)

    def neg_(self) -> Tensor:
        return inplace.apply(self, "neg_", arithmetic.neg)

    def abs(self) -> Tensor:
        return elementwise.abs(self)

    def abs_(self) -> Tensor:
        return inplace.apply(self, "abs_", elementwise.abs)

    def exp(self) -> Tensor:
        return elementwise.exp(self)

    def exp_(self) -> Tensor:
        return inplace.apply(self, "exp_", elementwise.exp)

    def log(self) -> Tensor:
        return elementwise.log(self)

    def log_(self) -> Tensor:
        return inplace.apply(self, "log_", elementwise.log)

    def sqrt(self) -> Tensor:
        return elementwise.sqrt(self)

    def sqrt_(self) -> Tensor:
        return inplace.apply(self, "sqrt_", elementwise.sqrt)

    def sin(self) -> Tensor:
        return elementwise.sin(self)

    def cos(self) -> Tensor:
        return elementwise.cos(self)

    def tanh(self) -> Tensor:
        return activations.tanh(self)

    def tanh_(self) -> Tensor:
        return inplace.apply(self, "tanh_", activations.tanh)

    def sigmoid(self) -> Tensor:
        return activations.sigmoid(self)

    def sigmoid_(self) -> Tensor:
        return inplace.apply(self, "sigmoid_", activations.sigmoid)

    def relu(self) -> Tensor:
        return activations.relu(self)

    def relu_(self) -> Tensor:
        return inplace.apply(self, "relu_", activations.relu)

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        return rounding.clamp(self, min, max)

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 (PyTorch's names)
        return inplace.apply(self, "clamp_", lambda t: rounding.clamp(t, min, max), min, max)

    def where(self, condition: Tensor, other: Any) -> Tensor:
        """``self`` where ``condition`` holds, else ``other`` (as ``mg.where(condition, self, other)``)."""
        return elementwise.where(condition, self, other)

    clip = clamp

    def maximum(self, other: Tensor) -> Tensor:
        return elementwise.maximum(self, other)

    def minimum(self, other: Tensor) -> Tensor:
        return elementwise.minimum(self, other)

    @numpy_keywords
    def sum(self, dim: Any = ALL_DIMS, keepdim: _bool = False, *, dtype: Any = None) -> Tensor:
        return reduction.sum(self, dim, keepdim, dtype=dtype)

    @numpy_keywords
    def mean(self, dim: Any = ALL_DIMS, keepdim: _bool = False, *, dtype: Any = None) -> Tensor:
        return reduction.mean(self, dim, keepdim, dtype=dtype)

    def nanmean(self, dim: Any = None, keepdim: _bool = False, *, dtype: Any = None) -> Tensor:
        return statistics.nanmean(self, dim, keepdim, dtype=dtype)

    @numpy_keywords
    def var(self, dim: Any = None, unbiased: Any = None, keepdim: _bool = False, *,
            correction: Any = None) -> Tensor:
        return reduction.var(self, dim, unbiased, keepdim, correction=correction)

    @numpy_keywords
    def std(self, dim: Any = None, unbiased: Any = None, keepdim: _bool = False, *,
            correction: Any = None) -> Tensor:
        return reduction.std(self, dim, unbiased, keepdim, correction=correction)

    @numpy_keywords
    def max(self, dim: Any = None, keepdim: _bool = False, *, other: Tensor | None = None) -> Any:
        return extremes.max(self, dim, keepdim, other=other)

    @numpy_keywords
    def min(self, dim: Any = None, keepdim: _bool = False, *, other: Tensor | None = None) -> Any:
        return extremes.min(self, dim, keepdim, other=other)

    @numpy_keywords
    def amax(self, dim: Any = (), keepdim: _bool = False) -> Tensor:
        return extremes.amax(self, dim, keepdim)

    @numpy_keywords
    def amin(self, dim: Any = (), keepdim: _bool = False) -> Tensor:
        return extremes.amin(self, dim, keepdim)

    def aminmax(self, *, dim: _int | None = None, keepdim: _bool = False) -> Any:
        return statistics.aminmax(self, dim=dim, keepdim=keepdim)

    @numpy_keywords
    def argmax(self, dim: Any = None, keepdim: _bool = False) -> Tensor:
        return extremes.argmax(self, dim, keepdim)

    @numpy_keywords
    def argmin(self, dim: Any = None, keepdim: _bool = False) -> Tensor:
        return extremes.argmin(self, dim, keepdim)

    @numpy_keywords
    def softmax(self, dim: _int, dtype: Any = None) -> Tensor:  # no implicit dim here, as in PyTorch
        return softmax.softmax(self, _required_dim(dim, "softmax"), dtype)

    @numpy_keywords
    def log_softmax(self, dim: _int, dtype: Any = None) -> Tensor:
        return softmax.log_softmax(self, _required_dim(dim, "log_softmax"), dtype)

    # more math: rounding, logs, trigonometry, nan handling, reductions and products
    def sign(self) -> Tensor:
        return rounding.sign(self)

    def sgn(self) -> Tensor:
        return pointwise.sgn(self)

    def sgn_(self) -> Tensor:
        return inplace.apply(self, "sgn_", pointwise.sgn)

    def signbit(self) -> Tensor:
        return pointwise.signbit(self)

    def heaviside(self, values: Tensor) -> Tensor:
        return pointwise.heaviside(self, values)

    def round(self, *, decimals: _int = 0) -> Tensor:
        return rounding.round(self, decimals=decimals)

    def floor(self) -> Tensor:
        return rounding.floor(self)

    def ceil(self) -> Tensor:
        return rounding.ceil(self)

    def trunc(self) -> Tensor:
        return rounding.trunc(self)

    def frac(self) -> Tensor:
        return pointwise.frac(self)

    def frac_(self) -> Tensor:
        return inplace.apply(self, "frac_", pointwise.frac)

    def fmod(self, other: Any) -> Tensor:
        return pointwise.fmod(self, other)

    def fmod_(self, other: Any) -> Tensor:
        return inplace.apply(self, "fmod_", lambda t: pointwise.fmod(t, other), other)

    def log1p(self) -> Tensor:
        return elementwise.log1p(self)

    def expm1(self) -> Tensor:
        return elementwise.expm1(self)

    def square(self) -> Tensor:
        return elementwise.square(self)

    def rsqrt(self) -> Tensor:
        return elementwise.rsqrt(self)

    def reciprocal(self) -> Tensor:
        return elementwise.reciprocal(self)

    def tan(self) -> Tensor:
        return elementwise.tan(self)

    def asin(self) -> Tensor:
        return elementwise.asin(self)

    def acos(self) -> Tensor:
        return elementwise.acos(self)

    def atan(self) -> Tensor:
        return elementwise.atan(self)

    def atan2(self, other: Tensor) -> Tensor:
        return elementwise.atan2(self, other)

    arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2

    def sinh(self) -> Tensor:
        return elementwise.sinh(self)

    def cosh(self) -> Tensor:
        return elementwise.cosh(self)

    def log2(self) -> Tensor:
        return elementwise.log2(self)

    def log10(self) -> Tensor:
        return elementwise.log10(self)

    def erf(self) -> Tensor:
        return elementwise.erf(self)

    def erfinv(self) -> Tensor:
        return special.erfinv(self)

    def erfinv_(self) -> Tensor:
        return inplace.apply(self, "erfinv_", special.erfinv)

    def lgamma(self) -> Tensor:
        return special.lgamma(self)

    def lgamma_(self) -> Tensor:
        return inplace.apply(self, "lgamma_", special.lgamma)

    def digamma(self) -> Tensor:
        return special.digamma(self)

    def digamma_(self) -> Tensor:
        return inplace.apply(self, "digamma_", special.digamma)

    def polygamma(self, n: _int) -> Tensor:
        return special.polygamma(n, self)

    def polygamma_(self, n: _int) -> Tensor:
        return inplace.apply(self, "polygamma_", lambda t: special.polygamma(n, t))

    def clamp_min(self, min: Any) -> Tensor:  # noqa: A002
        return rounding.clamp_min(self, min)

    def clamp_max(self, max: Any) -> Tensor:  # noqa: A002
        return rounding.clamp_max(self, max)

    def nan_to_num(self, nan: _float = 0.0, posinf: _float | None = None,
                   neginf: _float | None = None) -> Tensor:
        return elementwise.nan_to_num(self, nan, posinf, neginf)

    def lerp(self, end: Tensor, weight: Any) -> Tensor:
        return elementwise.lerp(self, end, weight)

    def addcmul(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return pointwise.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return pointwise.addcmul_(self, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return pointwise.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        return pointwise.addcdiv_(self, tensor1, tensor2, value=value)

    def apply_(self, callable: Callable[[Any], Any]) -> Tensor:  # noqa: A002 (PyTorch's name)
        """Replace each element x by ``callable(x)`` (a Python function of a number), in place; CPU only
        and slow (one Python call per element), as in PyTorch."""
        return pointwise.apply_(self, callable)

    def isinf(self) -> Tensor:
        return comparison.isinf(self)

    def isfinite(self) -> Tensor:
        return comparison.isfinite(self)

    @numpy_keywords
    def prod(self, dim: Any = None, keepdim: _bool = False, *, dtype: Any = None) -> Tensor:
        return reduction.prod(self, dim, keepdim, dtype=dtype)

    @numpy_keywords
    def cumsum(self, dim: _int, *, dtype: Any = None) -> Tensor:
        return scan.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim: _int, *, dtype: Any = None) -> Tensor:
        return scan.cumprod(self, dim, dtype=dtype)

    def cumprod_(self, dim: _int, *, dtype: Any = None) -> Tensor:
        return inplace.apply(self, "cumprod_", lambda t: scan.cumprod(t, dim, dtype=dtype))

    def cummax(self, dim: _int) -> Any:
        return scan.cummax(self, dim)

    def cummin(self, dim: _int) -> Any:
        return scan.cummin(self, dim)

    def logcumsumexp(self, dim: _int) -> Tensor:
        return scan.logcumsumexp(self, dim)

    def diff(self, n: _int = 1, dim: _int = -1, prepend: Tensor | None = None,
             append: Tensor | None = None) -> Tensor:
        return scan.diff(self, n, dim, prepend, append)

    @numpy_keywords
    def logsumexp(self, dim: Any, keepdim: _bool = False) -> Tensor:
        return extremes.logsumexp(self, dim, keepdim)

    def norm(self, p: Any = "fro", dim: Any = None, keepdim: _bool = False, dtype: Any = None) -> Tensor:
        return distance.norm(self, p, dim, keepdim, dtype)

    def dot(self, other: Tensor) -> Tensor:
        return linalg.dot(self, other)

    def vdot(self, other: Tensor) -> Tensor:
        return matrices.vdot(self, other)

    def inner(self, other: Tensor) -> Tensor:
        return matrices.inner(self, other)

    def outer(self, vec2: Tensor) -> Tensor:
        return linalg.outer(self, vec2)

    def mv(self, vec: Tensor) -> Tensor:
        return linalg.mv(self, vec)

    def index_add(self, dim: _int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
        """A copy with ``alpha * source`` added at ``index`` along ``dim`` (repeated indices add up)."""
        return scatter_ops.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(self, dim: _int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
        return scatter_ops.index_add_(self, dim, index, source, alpha=alpha)

    def bernoulli(self, p: Any = None, *, generator: Any = None) -> Tensor:
        """0/1 samples, 1 with probability ``self`` (or ``p``), element by element."""
        return sampling.bernoulli(self, p, generator=generator)

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Tensor:
        return sampling.bernoulli_(self, p, generator=generator)

    def logical_not(self) -> Tensor:
        return comparison.logical_not(self)

    def logical_and(self, other: Tensor) -> Tensor:
        return comparison.logical_and(self, other)

    def logical_or(self, other: Tensor) -> Tensor:
        return comparison.logical_or(self, other)

    def logical_xor(self, other: Tensor) -> Tensor:
        return comparison.logical_xor(self, other)

    def bmm(self, mat2: Tensor) -> Tensor:
        return linalg.bmm(self, mat2)

    def addmm(self, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return linalg.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addmv(self, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return matrices.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addmv_(self, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return inplace.apply(self, "addmv_", lambda t: matrices.addmv(t, mat, vec, beta=beta, alpha=alpha),
                             mat, vec)

    def baddbmm(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return matrices.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm_(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return inplace.apply(self, "baddbmm_",
                             lambda t: matrices.baddbmm(t, batch1, batch2, beta=beta, alpha=alpha),
                             batch1, batch2)

    def matmul(self, other: Tensor) -> Tensor:
        return linalg.matmul(self, other)

    def mm(self, other: Tensor) -> Tensor:
        return linalg.mm(self, other)

    def matrix_power(self, n: _int) -> Tensor:
        return linalg.matrix_power(self, n)

    def trace(self) -> Tensor:
        return matrices.trace(self)

    def det(self) -> Tensor:
        return matrices.det(self)

    def inverse(self) -> Tensor:
        return matrices.inverse(self)

    def cross(self, other: Tensor, dim: _int | None = None) -> Tensor:
        return matrices.cross(self, other, dim)

    def t(self) -> Tensor:
        return shape_ops.t(self)

    def t_(self) -> Tensor:
        return strided.t_(self)

    def transpose(self, dim0: _int, dim1: _int) -> Tensor:
        return shape_ops.transpose(self, dim0, dim1)

    def transpose_(self, dim0: _int, dim1: _int) -> Tensor:
        return strided.transpose_(self, dim0, dim1)

    def permute(self, *dims: Any) -> Tensor:
        return shape_ops.permute(self, *dims)

    def reshape(self, *shape_args: Any) -> Tensor:
        return shape_ops.reshape(self, *shape_args)

    def view(self, *shape_args: Any, dtype: Any = None) -> Tensor:
        return shape_ops.view(self, *shape_args, dtype=dtype)

    def view_as(self, other: Tensor) -> Tensor:
        return shape_ops.view(self, _other_tensor(other, "view_as").shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        return shape_ops.reshape(self, _other_tensor(other, "reshape_as").shape)

    def flatten(self, start_dim: _int = 0, end_dim: _int = -1) -> Tensor:
        return shape_ops.flatten(self, start_dim, end_dim)

    @numpy_keywords
    def squeeze(self, dim: Any = None) -> Tensor:
        return shape_ops.squeeze(self, dim)

    def squeeze_(self, dim: Any = None) -> Tensor:
        return strided.squeeze_(self, dim)

    @numpy_keywords
    def unsqueeze(self, dim: _int) -> Tensor:
        return shape_ops.unsqueeze(self, dim)

    def unsqueeze_(self, dim: _int) -> Tensor:
        return strided.unsqueeze_(self, dim)

    def expand(self, *sizes: Any) -> Tensor:
        return shape_ops.expand(self, *sizes)

    def expand_as(self, other: Tensor) -> Tensor:
        return shape_ops.expand(self, _other_tensor(other, "expand_as").shape)

    # --- pieces, rearrangements, picks, sorting (ops.joining / rearrange / selection / sorting) -----

    def chunk(self, chunks: _int, dim: _int = 0) -> tuple:
        return joining.chunk(self, chunks, dim)

    def split(self, split_size: Any, dim: _int = 0) -> tuple:
        return joining.split(self, split_size, dim)

    def unbind(self, dim: _int = 0) -> tuple:
        return joining.unbind(self, dim)

    def narrow(self, dim: _int, start: _int, length: _int) -> Tensor:
        return joining.narrow(self, dim, start, length)

    def movedim(self, source: Any, destination: Any) -> Tensor:
        return shape_ops.movedim(self, source, destination)

    moveaxis = movedim

    def swapaxes(self, axis0: _int, axis1: _int) -> Tensor:
        return shape_ops.swapaxes(self, axis0, axis1)

    def swapdims(self, dim0: _int, dim1: _int) -> Tensor:
        return shape_ops.swapaxes(self, dim0, dim1)

    def broadcast_to(self, size: Any) -> Tensor:
        return shape_ops.broadcast_to(self, size)

    def flip(self, *dims_args: Any, dims: Any = None) -> Tensor:
        return rearrange.flip(self, *dims_args, dims=dims)

    def roll(self, shifts: Any, dims: Any = None) -> Tensor:
        return rearrange.roll(self, shifts, dims)

    def repeat(self, *sizes: Any) -> Tensor:
        return rearrange.repeat(self, *sizes)

    def repeat_interleave(self, repeats: Any, dim: _int | None = None, *,
                          output_size: _int | None = None) -> Tensor:
        return rearrange.repeat_interleave(self, repeats, dim, output_size=output_size)

    def tile(self, *dims: Any) -> Tensor:
        return arrange.tile(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims)

    def rot90(self, k: _int = 1, dims: Any = (0, 1)) -> Tensor:
        return arrange.rot90(self, k, dims)

    def kron(self, other: Tensor) -> Tensor:
        return arrange.kron(self, other)

    def index_select(self, dim: _int, index: Tensor) -> Tensor:
        return selection.index_select(self, dim, index)

    def masked_fill(self, mask: Tensor, value: Any) -> Tensor:
        return selection.masked_fill(self, mask, value)

    def masked_fill_(self, mask: Tensor, value: Any) -> Tensor:
        return selection.masked_fill_(self, mask, value)

    def tril(self, diagonal: _int = 0) -> Tensor:
        return selection.tril(self, diagonal)

    def tril_(self, diagonal: _int = 0) -> Tensor:
        return inplace.apply(self, "tril_", lambda t: selection.tril(t, diagonal))

    def triu(self, diagonal: _int = 0) -> Tensor:
        return selection.triu(self, diagonal)

    def triu_(self, diagonal: _int = 0) -> Tensor:
        return inplace.apply(self, "triu_", lambda t: selection.triu(t, diagonal))

    def diag(self, diagonal: _int = 0) -> Tensor:
        return selection.diag(self, diagonal)

    def sort(self, dim: _int = -1, descending: _bool = False, *, stable: _bool | None = None) -> Any:
        return sorting.sort(self, dim, descending, stable=stable)

    def argsort(self, dim: _int = -1, descending: _bool = False, *, stable: _bool = False) -> Tensor:
        return sorting.argsort(self, dim, descending, stable=stable)

    def topk(self, k: _int, dim: _int = -1, largest: _bool = True, sorted: _bool = True) -> Any:  # noqa: A002
        return sorting.topk(self, k, dim, largest, sorted)

    def kthvalue(self, k: _int, dim: _int = -1, keepdim: _bool = False) -> Any:
        return statistics.kthvalue(self, k, dim, keepdim)

    def median(self, dim: _int | None = None, keepdim: _bool = False) -> Any:
        return statistics.median(self, dim, keepdim)

    def nanmedian(self, dim: _int | None = None, keepdim: _bool = False) -> Any:
        return statistics.nanmedian(self, dim, keepdim)

    def mode(self, dim: _int = -1, keepdim: _bool = False) -> Any:
        return statistics.mode(self, dim, keepdim)

    def quantile(self, q: Any, dim: _int | None = None, keepdim: _bool = False, *,
                 interpolation: str = "linear") -> Tensor:
        return statistics.quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q: Any, dim: _int | None = None, keepdim: _bool = False, *,
                    interpolation: str = "linear") -> Tensor:
        return statistics.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    # --- sampling and counting (minigrad.ops.sampling / histogram) ------------------------------

    def multinomial(self, num_samples: _int, replacement: _bool = False, *, generator: Any = None) -> Tensor:
        return sampling.multinomial(self, num_samples, replacement, generator=generator)

    def histc(self, bins: _int = 100, min: Any = 0, max: Any = 0) -> Tensor:  # noqa: A002
        return histogram_ops.histc(self, bins, min, max)

    def histogram(self, bins: Any = 100, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
                  density: _bool = False) -> Any:
        return histogram_ops.histogram(self, bins, range=range, weight=weight, density=density)

    def unique(self, sorted: _bool = True, return_inverse: _bool = False, return_counts: _bool = False,  # noqa: A002
               dim: _int | None = None) -> Any:
        return counting.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse: _bool = False, return_counts: _bool = False,
                           dim: _int | None = None) -> Any:
        return counting.unique_consecutive(self, return_inverse, return_counts, dim)

    def bincount(self, weights: Tensor | None = None, minlength: _int = 0) -> Tensor:
        return counting.bincount(self, weights, minlength)

    def count_nonzero(self, dim: Any = None) -> Tensor:
        return counting.count_nonzero(self, dim)

    def nonzero(self, *, as_tuple: _bool = False) -> Any:
        return comparison.nonzero(self, as_tuple=as_tuple)

    def argwhere(self) -> Tensor:
        return counting.argwhere(self)

    # --- new tensors with this one's dtype and device (unless given) ---------------------------

    def _new_options(self, dtype: Any, device: Any, requires_grad: _bool) -> dict:
        return {"dtype": self.dtype if dtype is None else dtype,
                "device": self.device if device is None else device, "requires_grad": requires_grad}

    def new_zeros(self, *size: Any, dtype: Any = None, device: Any = None,
                  requires_grad: _bool = False) -> Tensor:
        return creation.zeros(*size, **self._new_options(dtype, device, requires_grad))

    def new_ones(self, *size: Any, dtype: Any = None, device: Any = None,
                 requires_grad: _bool = False) -> Tensor:
        return creation.ones(*size, **self._new_options(dtype, device, requires_grad))

    def new_empty(self, *size: Any, dtype: Any = None, device: Any = None,
                  requires_grad: _bool = False) -> Tensor:
        return creation.empty(*size, **self._new_options(dtype, device, requires_grad))

    def new_full(self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
                 requires_grad: _bool = False) -> Tensor:
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not "
                            f"{type(size).__name__}")
        return creation.full(size, fill_value, **self._new_options(dtype, device, requires_grad))

    def new_tensor(self, data: Any, *, dtype: Any = None, device: Any = None,
                   requires_grad: _bool = False) -> Tensor:
        """A copy of ``data`` (cut from any graph) with this tensor's dtype and device unless given."""
        return creation.tensor(data, **self._new_options(dtype, device, requires_grad))

    # --- elements by index: read, written, scattered (minigrad.ops: indexing, scatter, masking) ---

    def __getitem__(self, key: Any) -> Tensor:
        return indexing.getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        inplace.setitem(self, key, value)

    def gather(self, dim: _int, index: Tensor, *, sparse_grad: _bool = False) -> Tensor:
        """``out[i][j] = self[index[i][j]][j]`` for dim 0, ``self[i][index[i][j]]`` for dim 1."""
        return scatter_ops.gather(self, dim, index, sparse_grad=sparse_grad)

    def scatter(self, dim: _int, index: Tensor, src: Any = None, *, value: Any = None,
                reduce: str | None = None) -> Tensor:
        """A copy with ``out[index[i][j]][j] = src[i][j]`` for dim 0 (or ``= value``)."""
        return scatter_ops.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_(self, dim: _int, index: Tensor, src: Any = None, *, value: Any = None,
                 reduce: str | None = None) -> Tensor:
        return scatter_ops.scatter_(self, dim, index, src, value=value, reduce=reduce)

    def scatter_add(self, dim: _int, index: Tensor, src: Tensor) -> Tensor:
        """A copy with ``out[index[i][j]][j] += src[i][j]`` for dim 0 (repeated indices add up)."""
        return scatter_ops.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim: _int, index: Tensor, src: Tensor) -> Tensor:
        return scatter_ops.scatter_add_(self, dim, index, src)

    def scatter_reduce(self, dim: _int, index: Tensor, src: Tensor, reduce: str, *,
                       include_self: _bool = True) -> Tensor:
        return scatter_reduce_ops.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def scatter_reduce_(self, dim: _int, index: Tensor, src: Tensor, reduce: str, *,
                        include_self: _bool = True) -> Tensor:
        return scatter_reduce_ops.scatter_reduce_(self, dim, index, src, reduce, include_self=include_self)

    def index_put(self, indices: Any, values: Tensor, accumulate: _bool = False) -> Tensor:
        return masking.index_put(self, indices, values, accumulate)

    def index_put_(self, indices: Any, values: Tensor, accumulate: _bool = False) -> Tensor:
        return masking.index_put_(self, indices, values, accumulate)

    def index_fill(self, dim: _int, index: Tensor, value: Any) -> Tensor:
        return masking.index_fill(self, dim, index, value)

    def index_fill_(self, dim: _int, index: Tensor, value: Any) -> Tensor:
        return masking.index_fill_(self, dim, index, value)

    def masked_select(self, mask: Tensor) -> Tensor:
        return masking.masked_select(self, mask)

    def masked_scatter(self, mask: Tensor, source: Tensor) -> Tensor:
        return masking.masked_scatter(self, mask, source)

    def masked_scatter_(self, mask: Tensor, source: Tensor) -> Tensor:
        return masking.masked_scatter_(self, mask, source)

    def take(self, index: Tensor) -> Tensor:
        return masking.take(self, index)

    def put(self, index: Tensor, source: Tensor, accumulate: _bool = False) -> Tensor:
        return masking.put(self, index, source, accumulate)

    def put_(self, index: Tensor, source: Tensor, accumulate: _bool = False) -> Tensor:
        return masking.put_(self, index, source, accumulate)

    def select(self, dim: _int, index: _int) -> Tensor:
        return masking.select(self, dim, index)


_LEGACY_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                      "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
                      "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}


def _legacy_type(value: Any) -> tuple:
    """``(dtype, device)`` that ``t.type(value)`` names: a dtype keeps the device (None); a legacy
    type, as a class (``mg.LongTensor``) or a name (``'torch.cuda.FloatTensor'``), names its device
    too, as in PyTorch. Anything else is PyTorch's ValueError."""
    if isinstance(value, _dtypes.dtype):
        return value, None
    legacy_dtype = getattr(value, "dtype", None) if isinstance(value, type) else None
    if isinstance(legacy_dtype, _dtypes.dtype):  # mg.LongTensor
        return legacy_dtype, backend.Device("cuda" if getattr(value, "is_cuda", False) else "cpu")
    if isinstance(value, str):
        prefix, _, name = value.rpartition(".")
        for dtype_name, legacy_name in _LEGACY_TYPE_NAMES.items():
            if prefix in ("torch", "minigrad", "torch.cuda", "minigrad.cuda") and name == legacy_name:
                return _dtypes.as_dtype(dtype_name), backend.Device("cuda" if "cuda" in prefix else "cpu")
    shown = value if isinstance(value, str) else getattr(value, "__qualname__", type(value).__name__)
    raise ValueError(f"invalid type: '{shown}'")


def _legacy_array(data: Any, shape: tuple) -> Any:
    """``Tensor(2, 3)`` (uninitialised, shape) or ``Tensor([1, 2])`` (data), as float32."""
    dtype = _dtypes.get_default_dtype().numpy
    if data is None:
        return numpy.empty((0,), dtype=dtype)
    if isinstance(data, int) and not isinstance(data, bool):
        return numpy.zeros((data, *shape), dtype=dtype)
    if isinstance(data, (tuple, list)) and not shape:
        return numpy.asarray(data, dtype=dtype)
    raise TypeError(f"Tensor() expects an array, a list of numbers or a shape, got {type(data).__name__}; "
                    "use minigrad.tensor(data) to create tensors")


def _other_tensor(other: Any, method: str) -> Tensor:
    """``other`` itself, if it is a Tensor (``view_as``, ``type_as`` ...); PyTorch's TypeError if not."""
    if not isinstance(other, Tensor):
        raise TypeError(f"{method}(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    return other


def _required_dim(dim: Any, function: str) -> int:
    """``dim`` where PyTorch requires one (``softmax(dim=None)`` is its TypeError, not a default)."""
    if dim is None:
        raise TypeError(f"{function}(): argument 'dim' must be int, not NoneType")
    return dim


def _normalize_dim(dim: int, ndim: int) -> int:
    """A dimension in ``[0, ndim)`` from a possibly negative one, with PyTorch's error."""
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], "
                         f"but got {dim})")
    return dim % bound


# The operations import Tensor from this module, so they are imported after it exists.
from minigrad import _formatting as formatting  # noqa: E402, I001
from minigrad.autograd.grad_mode import _GradMode  # noqa: E402
from minigrad import autograd  # noqa: E402
from minigrad.autograd import function  # noqa: E402
from minigrad.ops import (arithmetic, comparison, conversion, elementwise, indexing,  # noqa: E402
                          inplace, linalg, reduction, softmax)
from minigrad.ops import shape as shape_ops  # noqa: E402
from minigrad.ops import scatter as scatter_ops  # noqa: E402
from minigrad.ops import joining, rearrange, selection, sorting  # noqa: E402
from minigrad.ops import activations, rounding  # noqa: E402
from minigrad.ops import histogram as histogram_ops  # noqa: E402
from minigrad.ops import sampling  # noqa: E402
from minigrad.ops import strided  # noqa: E402
from minigrad.ops import distance, extremes  # noqa: E402
from minigrad import creation  # noqa: E402
from minigrad.ops._util import mark_view  # noqa: E402
from minigrad.ops import (arrange, counting, masking, matrices, pointwise, scan, special,  # noqa: E402
                          statistics)
from minigrad.ops import scatter_reduce as scatter_reduce_ops  # noqa: E402
