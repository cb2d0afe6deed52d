"""Creating tensors: ``tensor``, ``zeros``, ``ones``, ``full``, ``arange``, ``rand``, ``randn`` ...

Data is built on the host with NumPy and then placed on the requested device; random
numbers come from minigrad's own seeded generator (``mg.manual_seed``), so a seed
gives the same numbers on every device.
"""

from __future__ import annotations

import math
import operator
import warnings
from numbers import Number
from typing import Any

import numpy

from minigrad import backend
from minigrad import dtypes as _dtypes
from minigrad._arguments import bool_argument, int_argument
from minigrad.ops._util import converted_scalar
from minigrad.random import Generator, generator_argument
from minigrad.tensor import Tensor

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "eye", "arange",
           "linspace", "rand", "randn", "randint", "randperm", "zeros_like", "ones_like", "empty_like",
           "full_like", "rand_like", "randn_like"]


def _size(args: tuple, function: str | None = None, size: Any = None) -> tuple:
    """``zeros(2, 3)``, ``zeros((2, 3))``, ``zeros([2, 3])`` or ``zeros(size=(2, 3))`` -> (2, 3).

    ``zeros(())`` is 0-d; ``zeros()`` is a TypeError, as in PyTorch.
    """
    if size is not None:
        if args:
            raise TypeError(f"{function}() got multiple values for argument 'size'")
        args = (_size_tuple(size, function),)
    if not args and function is not None:
        raise TypeError(f'{function}() missing 1 required positional arguments: "size"')
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    for position, n in enumerate(args, start=1):
        if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)) and not (
                isinstance(n, Tensor) and n.numel() == 1):
            raise TypeError(f"size must be a tuple of ints, but got {args!r}")
        if not int(n) < 2**63:  # PyTorch's sizes are int64
            raise TypeError(f"{function}(): argument 'size' failed to unpack the object at pos {position} "
                            f"with error \"Overflow when unpacking long long\" ({n})")
    for n in args:
        if int(n) < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {int(n)}: {list(args)}")
    return tuple(int(n) for n in args)


def _size_tuple(size: Any, function: str | None) -> tuple:
    """A ``size`` that must be a sequence (``full``, ``randint``, ``size=``); an int is a TypeError."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{function}(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    return tuple(size)


def _requires_grad_flag(requires_grad: Any, function: str) -> bool:
    """``requires_grad=`` must be a Python bool (None means False), as PyTorch's factories demand."""
    return False if requires_grad is None else bool_argument(requires_grad, function, "requires_grad")


def _dtype(dtype: Any, function: str, default: _dtypes.dtype | None = None) -> _dtypes.dtype:
    """The dtype a factory's ``dtype=`` names, or ``default`` (the default float) when it is None."""
    if dtype is None:
        return default or _dtypes.get_default_dtype()
    return _dtypes.dtype_argument(dtype, function)


def _finish(host: numpy.ndarray, device: Any, requires_grad: bool, function: str) -> Tensor:
    requires_grad = _requires_grad_flag(requires_grad, function)
    dev = backend.default_device() if device is None else backend.Device(device)
    out = Tensor(backend.from_host(host, dev))
    if requires_grad:
        out.requires_grad = True
    return out


def _python_dtype(data: Any) -> _dtypes.dtype:
    """The dtype PyTorch infers for nested data: Python bool < int (int64) < float (the default
    float); NumPy scalars and arrays and tensors bring their own dtype; empty data is a float."""
    found = None
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple, range)):
            stack.extend(item)
            continue
        if isinstance(item, (Tensor, numpy.ndarray, numpy.generic)):
            current = _dtypes.as_dtype(item.dtype)
        elif isinstance(item, bool):
            current = _dtypes.bool
        elif isinstance(item, int):
            current = _dtypes.int64
        elif isinstance(item, float):
            current = _dtypes.get_default_dtype()
        elif isinstance(item, str):
            raise TypeError("new(): invalid data type 'str'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(item).__name__}")
        found = current if found is None else _dtypes.promote_types(found, current)
    return _dtypes.get_default_dtype() if found is None else found


def _nested_tensors_to_host(data: Any) -> Any:
    """Nested data with the tensors in it (one element each, as PyTorch requires) as host arrays."""
    if isinstance(data, Tensor):
        if data.numel() != 1:  # PyTorch converts each to a Python number
            raise (ValueError("only one element tensors can be converted to Python scalars")
                   if data.dtype.is_floating_point else
                   TypeError("only integer tensors of a single element can be converted to an index"))
        return backend.to_host(data.array)
    if isinstance(data, (list, tuple)):
        return [_nested_tensors_to_host(item) for item in data]
    return data


def _ragged_error(data: Any) -> Exception:
    """PyTorch's error for nested data that is not rectangular: the first sequence whose length differs."""
    level, dim = [data], 0
    while level:
        is_sequence = [isinstance(item, (list, tuple)) or getattr(item, "ndim", 0) > 0 for item in level]
        if not any(is_sequence):
            break
        if not all(is_sequence):
            odd = level[is_sequence.index(False)]
            return TypeError(f"expected a sequence at dim {dim} like its neighbours, but got {odd!r}")
        expected = len(level[0])
        for item in level:
            if len(item) != expected:
                return ValueError(f"expected sequence of length {expected} at dim {dim} (got {len(item)})")
        level, dim = [child for item in level for child in item], dim + 1
    return ValueError(f"could not build a tensor from ragged or mixed data: {data!r}")


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (numbers, nested lists, arrays or tensors).

    Python floats become float32 (the default dtype), ints int64, bools bool; a NumPy
    array keeps its dtype.
    """
    dtype = None if dtype is None else _dtypes.dtype_argument(dtype, "tensor")
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
                      "rather than "
                      "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
        inferred = data.dtype
        if device is None:
            device = data.device
        host = backend.to_host(data.array)
    elif isinstance(data, numpy.ndarray):
        inferred = _dtypes.from_numpy_dtype(data.dtype)
        host = data
    elif backend.device_of(data).type == "cuda":
        inferred = _dtypes.from_numpy_dtype(data.dtype)
        if device is None:
            device = "cuda"
        host = backend.to_host(data)
    else:
        inferred = _python_dtype(data)
        try:
            host = numpy.asarray(_nested_tensors_to_host(data))
        except ValueError:  # NumPy's "inhomogeneous shape": name the lengths, as PyTorch does
            raise _ragged_error(data) from None
        if host.dtype.kind in "uO" and inferred is _dtypes.int64 and (
                dtype is None or not dtype.is_floating_point):
            raise ValueError(f"Overflow when unpacking long long: {data!r} holds an integer outside int64's "
                             f"range [-2**63, 2**63 - 1]")
        if host.dtype == object:
            raise _ragged_error(data)
    target = inferred if dtype is None else dtype
    with numpy.errstate(over="ignore"):  # 1e40 as float32 is inf, silently as in PyTorch
        host = numpy.array(host, dtype=target.numpy, copy=True)
    return _finish(host, device, requires_grad, "tensor")


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """Like :func:`tensor`, but shares memory with a NumPy array or tensor when nothing changes."""
    if dtype is not None:
        dtype = _dtypes.dtype_argument(dtype, "as_tensor")
    if isinstance(data, Tensor) and (dtype is None or dtype is data.dtype) and (
            device is None or backend.Device(device) == data.device):
        return data
    target = backend.default_device() if device is None else backend.Device(device)
    if isinstance(data, numpy.ndarray) and dtype is None and target == backend.CPU:
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: numpy.ndarray) -> Tensor:
    """A CPU tensor sharing memory with ``array`` (changes to one show in the other)."""
    if not isinstance(array, numpy.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtypes.from_numpy_dtype(array.dtype)  # raises for unsupported dtypes
    if any(step < 0 for step in array.strides):  # a flipped view: a tensor's strides are never negative
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with "
                         "negative strides are not currently supported. (You can probably work around this "
                         f"by making a copy of your array with array.copy().) Strides: {array.strides}")
    return Tensor(array)


def _factory(function: str, fill: Any, shape: tuple, dtype: Any, device: Any, requires_grad: bool,
             default: _dtypes.dtype | None = None) -> Tensor:
    target = _dtype(dtype, function, default)
    requires_grad = _requires_grad_flag(requires_grad, function)
    dev = backend.default_device() if device is None else backend.Device(device)
    xp = backend.array_module_for(dev)
    if fill is None:
        array = _allocated(lambda: xp.empty(shape, dtype=target.numpy), shape, target)
    else:
        fill = converted_scalar(fill, target)  # int8 refuses 300, uint8 takes -1 as 255
        array = _allocated(lambda: xp.full(shape, fill, dtype=target.numpy), shape, target)
    out = Tensor(array)
    if requires_grad:
        out.requires_grad = True
    return out


def _allocated(make: Any, shape: tuple, dtype: _dtypes.dtype) -> Any:
    """``make()``, the array of a new tensor: where the memory can't be had, PyTorch's RuntimeError
    instead of NumPy's MemoryError (a size past the largest array NumPy can address is refused
    before, as PyTorch refuses it)."""
    size = math.prod(shape) * dtype.numpy.itemsize
    if size >= 2**63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    try:
        return make()
    except MemoryError:
        raise RuntimeError(f"can't allocate memory: you tried to allocate {size} bytes (a tensor of shape "
                           f"{list(shape)} and dtype {dtype.name})") from None


def zeros(*shape: Any, size: Any = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False) -> Tensor:
    return _factory("zeros", 0, _size(shape, "zeros", size), dtype, device, requires_grad)


def ones(*shape: Any, size: Any = None, dtype: Any = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:
    return _factory("ones", 1, _size(shape, "ones", size), dtype, device, requires_grad)


def empty(*shape: Any, size: Any = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False) -> Tensor:
    return _factory("empty", None, _size(shape, "empty", size), dtype, device, requires_grad)


def full(size: Any, fill_value: Any, dtype: Any = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:
    """A tensor of ``fill_value``; its dtype follows the value (bool, int64 or the default float)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, (Number, numpy.generic)):
        raise TypeError(f"full(): argument 'fill_value' must be Number, not {type(fill_value).__name__}")
    return _factory("full", fill_value, _size((_size_tuple(size, "full"),)), dtype, device, requires_grad,
                    default=_dtypes.result_type(fill_value))


def eye(n: int, m: int | None = None, dtype: Any = None, device: Any = None,
        requires_grad: bool = False) -> Tensor:
    for name, size in (("n", n), ("m", m)):
        if size is not None:
            int_argument(size, "eye", name)
            if size < 0:
                raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    target = _dtype(dtype, "eye")
    return _finish(numpy.eye(n, m, dtype=target.numpy), device, requires_grad, "eye")


def arange(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:
    """``[start, end)`` in steps; int64 when all arguments are ints, else the default float.

    With an integer ``dtype``, float bounds and step are first truncated to integers, as PyTorch does.
    """
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, (Tensor, numpy.generic)) else v for v in (start, end, step)]
    if values[2] == 0:
        raise RuntimeError("arange: step must be nonzero")
    if not all(math.isfinite(v) for v in values[:2]):
        raise RuntimeError(f"unsupported range: {values[0]} -> {values[1]}")
    target = _dtype(dtype, "arange", _dtypes.result_type(*values))
    if target is _dtypes.bool:
        if dtype is not None:
            raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
        target = _dtypes.int64  # arange(True): bools count as ints
    if not target.is_floating_point:
        values = [int(v) for v in values]
        if values[2] == 0:
            raise ValueError(f"step must be nonzero (step {step} truncated to the integer {target.name})")
    if (values[1] - values[0]) * values[2] < 0:
        raise RuntimeError(f"arange: upper bound and lower bound inconsistent with step sign "
                           f"(start={values[0]}, end={values[1]}, step={values[2]})")
    return _finish(numpy.arange(*values).astype(target.numpy), device, requires_grad, "arange")


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    if int_argument(steps, "linspace", "steps") < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {steps}")
    target = _dtype(dtype, "linspace")
    return _finish(numpy.linspace(start, end, steps).astype(target.numpy), device, requires_grad, "linspace")


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    """``steps`` numbers from base^start to base^end, evenly spaced in their exponents:
    base ** linspace(start, end, steps)."""
    if int_argument(steps, "logspace", "steps") < 0:
        raise RuntimeError(f"number of steps must be non-negative, got {steps}")
    target = _dtype(dtype, "logspace")
    exponents = numpy.linspace(start, end, steps)
    powers = numpy.power(float(base), exponents)
    return _finish(powers.astype(target.numpy), device, requires_grad, "logspace")


def _random(draw: str, shape: tuple, generator: Generator | None, dtype: Any, device: Any,
            requires_grad: bool) -> Tensor:
    target = _dtype(dtype, draw)
    if not target.is_floating_point:  # (PyTorch first allocates, and fills nothing in an empty tensor)
        empty = _allocated(lambda: numpy.empty(shape, dtype=target.numpy), shape, target)
        if empty.size:
            raise NotImplementedError(f"{draw} is not implemented for {target.name}")
        return _finish(empty, device, requires_grad, draw)
    rng = generator_argument(generator, draw).rng
    if draw == "rand":
        host = _allocated(lambda: rng.random(shape, dtype=numpy.float64).astype(target.numpy), shape, target)
    else:
        host = _allocated(lambda: rng.standard_normal(shape, dtype=numpy.float64).astype(target.numpy),
                          shape, target)
    return _finish(host, device, requires_grad, draw)


def rand(*shape: Any, size: Any = None, generator: Generator | None = None, dtype: Any = None,
         device: Any = None, requires_grad: bool = False) -> Tensor:
    """Uniform numbers in [0, 1)."""
    return _random("rand", _size(shape, "rand", size), generator, dtype, device, requires_grad)


def randn(*shape: Any, size: Any = None, generator: Generator | None = None, dtype: Any = None,
          device: Any = None, requires_grad: bool = False) -> Tensor:
    """Standard normal numbers."""
    return _random("randn", _size(shape, "randn", size), generator, dtype, device, requires_grad)


def randint(low: int = 0, high: Any = None, size: Any = None, *, generator: Generator | None = None,
            dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Integers in ``[low, high)``; ``randint(high, size)`` starts at 0."""
    if size is None:
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=...)
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    for bound in (low, high):
        if isinstance(bound, float):
            raise TypeError(f"randint(): the bounds low and high must be ints, not float ({bound})")
    low, high = operator.index(low), operator.index(high)
    for bound in (low, high):
        if not -2**63 <= bound < 2**63:  # PyTorch's bounds are int64
            raise ValueError(f"randint(): Overflow when unpacking long long ({bound})")
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    target = _dtype(dtype, "randint", _dtypes.int64)
    rng = generator_argument(generator, "randint").rng
    shape = _size((_size_tuple(size, "randint"),))
    host = _allocated(lambda: rng.integers(low, high, size=shape), shape, target)
    return _finish(host.astype(target.numpy), device, requires_grad, "randint")


def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None, device: Any = None) -> Tensor:
    """A random permutation of ``0 .. n-1``."""
    _size((int_argument(n, "randperm", "n"),))  # raises for a negative n
    target = _dtype(dtype, "randperm", _dtypes.int64)
    order = generator_argument(generator, "randperm").rng.permutation(n)
    return _finish(order.astype(target.numpy), device, False, "randperm")


def _like(other: Tensor, dtype: Any, device: Any) -> tuple:
    if not isinstance(other, Tensor):
        raise TypeError(f"argument 'input' (position 1) must be Tensor, not {type(other).__name__}")
    return (other.dtype if dtype is None else dtype), (other.device if device is None else device)


def zeros_like(other: Tensor, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    dtype, device = _like(other, dtype, device)
    return zeros(other.shape, dtype=dtype, device=device, requires_grad=requires_grad)


def ones_like(other: Tensor, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    dtype, device = _like(other, dtype, device)
    return ones(other.shape, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_like(other: Tensor, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    dtype, device = _like(other, dtype, device)
    return empty(other.shape, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(other: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    dtype, device = _like(other, dtype, device)
    return full(other.shape, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def rand_like(other: Tensor, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    dtype, device = _like(other, dtype, device)
    return rand(other.shape, dtype=dtype, device=device, requires_grad=requires_grad)


def randn_like(other: Tensor, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    dtype, device = _like(other, dtype, device)
    return randn(other.shape, dtype=dtype, device=device, requires_grad=requires_grad)
