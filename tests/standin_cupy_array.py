"""The device array and ufuncs of the CuPy stand-in (the module itself is built in standin_cupy.py).

A stand-in ``ndarray`` wraps a host NumPy array that only this file and standin_cupy.py touch.
Every way in or out is checked the way CuPy 13 checks it: host arrays (and lists) are refused
where an array is expected, implicit conversion to NumPy raises, reductions and scalar indexing
give 0-d arrays, and integer-array indices wrap around. Results that are views in NumPy wrap the
NumPy view, so writes through views and slices reach the original memory, as on the GPU.
"""

from __future__ import annotations

import functools
import sys
import types
from pathlib import Path
from typing import Any

import numpy

# The module object is created here, so the array can find its functions (``__array_function__``)
# before standin_cupy.py has filled it in.
MODULE = types.ModuleType("cupy", "A strict CuPy 13 stand-in for tests; see tests/standin_cupy.py.")

SCALARS = (bool, int, float, complex, numpy.generic)  # CuPy's accepted scalar operands
_DTYPE_CHARS = "?bBhHiIlLqQefdFD"  # CuPy has no object, string, datetime or long double arrays
_NOT_IN_CUPY = ("where", "initial")  # NumPy keywords that CuPy 13 functions and ufuncs lack
_NO_HOST = ("Implicit conversion to a NumPy array is not allowed. "
            "Please use `.get()` to construct a NumPy array explicitly.")


# What minigrad's own code does to device arrays that a GPU run pays for, recorded with call sites:
# - NumPy's functions called on device arrays. Real CuPy serves them (as this stand-in does), but
#   the library promises to ask the backend for its array module instead; the suite fails on any.
# - Device-to-host synchronisations (``bool(x)``, ``int(x)``, ``x.item()``, ``x.get()``, ...): each
#   one stalls a real GPU until its queue drains. tests/core/test_gpu_syncs.py pins them to the
#   list in docs/gpu.md.
_LIBRARY_DIR = str(Path(__file__).resolve().parent.parent / "minigrad")
_STANDIN_FILES = {str(Path(__file__).resolve()), str(Path(__file__).resolve().with_name("standin_cupy.py"))}
LIBRARY_NUMPY_CALLS: list[str] = []
LIBRARY_SYNCS: list[tuple[str, str]] = []  # (what, "minigrad/file.py:function")


def _library_caller() -> Any:
    """The first frame above the stand-in's own code, if it is minigrad's code; else None."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename in _STANDIN_FILES:
        frame = frame.f_back
    if frame is None or not frame.f_code.co_filename.startswith(_LIBRARY_DIR):
        return None
    return frame


def _site(frame: Any, with_line: bool) -> str:
    path = Path(frame.f_code.co_filename).relative_to(Path(_LIBRARY_DIR).parent).as_posix()
    return f"{path}:{frame.f_lineno}" if with_line else f"{path}:{frame.f_code.co_name}"


def _note_numpy_call(name: str) -> None:
    """Record ``numpy.<name>`` called on a device array by library code."""
    frame = _library_caller()
    if frame is not None:
        LIBRARY_NUMPY_CALLS.append(f"numpy.{name} on a device array at {_site(frame, True)} "
                                   f"({frame.f_code.co_name})")


def _note_sync(what: str) -> None:
    """Record a device-to-host copy or conversion made by library code."""
    frame = _library_caller()
    if frame is not None:
        LIBRARY_SYNCS.append((what, _site(frame, False)))


def unsupported(x: Any) -> TypeError:
    return TypeError(f"Unsupported type {type(x)}")


def wrap(a: numpy.ndarray) -> ndarray:
    """A device array around the host array ``a`` (no copy: views stay views)."""
    if a.dtype.char not in _DTYPE_CHARS:
        raise ValueError(f"Unsupported dtype {a.dtype}")
    out = ndarray.__new__(ndarray)
    out._a = a
    return out


# --- arguments: what each position of a function accepts -----------------------------------

def as_array(x: Any) -> Any:
    """A position where CuPy expects an array: a device array or a scalar, never host data."""
    if isinstance(x, ndarray):
        return x._a
    if x is None or isinstance(x, SCALARS):
        return x
    raise unsupported(x)


def _as_arrays(seq: Any) -> Any:
    """A sequence of device arrays (concatenate, stack)."""
    if isinstance(seq, ndarray):
        return seq._a
    if not isinstance(seq, (list, tuple)):
        raise unsupported(seq)
    for x in seq:
        if not isinstance(x, ndarray):
            raise unsupported(x)
    return [x._a for x in seq]


def _as_other(x: Any) -> Any:
    """Any other argument (shape, axis, dtype, fill value, out=): unwrapped, host arrays refused."""
    if isinstance(x, ndarray):
        return x._a
    if isinstance(x, numpy.ndarray):
        raise unsupported(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_as_other(v) for v in x)
    return x


def _device_array(x: Any) -> Any:
    """A position where CuPy calls array methods: a device array only (``where``'s condition)."""
    if isinstance(x, ndarray):
        return x._a
    raise unsupported(x)


_UNWRAP = {"a": as_array, "d": _device_array, "s": _as_arrays, "-": _as_other}


def _kind(sig: str, i: int) -> str:
    """Position ``i`` of a signature such as 'aa' (two arrays, then anything) or '-a*' (then arrays).

    'a': a device array or a scalar; 'd': a device array only; 's': a sequence of device arrays;
    '-': anything that is not host array data.
    """
    if sig.endswith("*"):
        return sig[min(i, len(sig) - 2)]
    return sig[i] if i < len(sig) else "-"


def wrap_result(r: Any, known: dict[int, ndarray]) -> Any:
    """Device arrays for the host results; an input handed back (``out=``, no-op) stays itself."""
    if isinstance(r, numpy.ndarray):
        same = known.get(id(r))
        return wrap(r) if same is None else same
    if isinstance(r, numpy.generic):  # CuPy reductions give 0-d arrays, never scalars
        return wrap(numpy.asarray(r))
    if isinstance(r, tuple) and hasattr(r, "_fields"):  # named tuples (svd, ...)
        return type(r)(*(wrap_result(v, known) for v in r))
    if isinstance(r, (tuple, list)):
        return type(r)(wrap_result(v, known) for v in r)
    return r


def call(func: Any, sig: str, args: tuple, kwargs: dict, name: str = "") -> Any:
    """Run the NumPy ``func`` on unwrapped arguments, checking each against ``sig``."""
    for key in _NOT_IN_CUPY:
        if key in kwargs:
            raise TypeError(f"{name or func.__name__}() got an unexpected keyword argument '{key}'")
    host_args = [_UNWRAP[_kind(sig, i)](x) for i, x in enumerate(args)]
    host_kwargs = {k: _as_other(v) for k, v in kwargs.items()}
    known = {}
    for x in (*args, *kwargs.values()):
        for y in x if isinstance(x, (list, tuple)) else (x,):
            if isinstance(y, ndarray):
                known[id(y._a)] = y
    return wrap_result(func(*host_args, **host_kwargs), known)


def function(func: Any, sig: str, name: str | None = None) -> Any:
    """The stand-in's version of the NumPy function ``func``: arguments checked against ``sig``."""
    name = name or func.__name__

    def standin(*args: Any, **kwargs: Any) -> Any:
        return call(func, sig, args, kwargs, name)

    standin.__name__ = standin.__qualname__ = name
    standin.__doc__ = f"CuPy stand-in for numpy.{name} (array arguments: {sig!r})."
    return standin


# --- indices: device arrays only, and integer arrays wrap around ---------------------------

def device_key(key: Any, shape: tuple[int, ...]) -> tuple:
    """A NumPy index tuple for ``key``; integer-array indices taken modulo their axis, as CuPy does.

    Ints, slices, None, Ellipsis and device arrays are accepted; host arrays and lists are refused
    (stricter than CuPy, which silently copies them to the device on every call).
    """
    items = list(key) if isinstance(key, tuple) else [key]
    for i, item in enumerate(items):
        if isinstance(item, ndarray):
            items[i] = item._a
        elif isinstance(item, (numpy.ndarray, list, tuple)):
            raise TypeError(f"index arrays must be device arrays (create them with xp): got {type(item)}")

    def width(v: Any) -> int:  # how many axes of the array one index item consumes
        if v is None or v is Ellipsis or isinstance(v, (bool, numpy.bool_)):
            return 0
        return v.ndim if isinstance(v, numpy.ndarray) and v.dtype == bool else 1

    in_ellipsis = len(shape) - sum(width(v) for v in items)
    axis = 0
    for i, v in enumerate(items):
        if v is Ellipsis:
            axis += max(in_ellipsis, 0)
            continue
        if isinstance(v, numpy.ndarray) and v.dtype.kind in "iu" and axis < len(shape) and shape[axis]:
            items[i] = v % shape[axis]
        axis += width(v)
    if not any(v is Ellipsis for v in items):
        items.append(Ellipsis)  # so a full integer index gives a 0-d view, as CuPy does
    return tuple(items)


def _defers_to(other: Any) -> bool:
    """CuPy's ``_should_use_rop``: leave a binary operator to ``other`` when it asks for that."""
    if isinstance(other, ndarray):
        return False
    try:
        other_ufunc = other.__array_ufunc__
    except AttributeError:
        return ndarray.__array_priority__ < getattr(other, "__array_priority__", 0)
    return other_ufunc is None


class _Flags:
    """CuPy's ``ndarray.flags``: only the three flags CuPy keeps."""

    def __init__(self, a: numpy.ndarray):
        self.c_contiguous = a.flags.c_contiguous
        self.f_contiguous = a.flags.f_contiguous
        self.owndata = a.flags.owndata

    def __getitem__(self, name: str) -> bool:
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous,
                "OWNDATA": self.owndata}[name]

    def __repr__(self) -> str:
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  OWNDATA : {self.owndata}")


def _rebuild(host: numpy.ndarray) -> ndarray:  # for pickle: CuPy pickles through the host
    return wrap(host)


class ndarray:  # noqa: N801 (CuPy's name)
    """A device array (CuPy's ``cupy.ndarray``): ``ndarray(shape, dtype=float)`` is uninitialised."""

    __slots__ = ("_a",)
    __array_priority__ = 100
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, shape: Any, dtype: Any = float, memptr: Any = None, strides: Any = None,
                 order: str = "C"):
        if memptr is not None or strides is not None:
            raise NotImplementedError("the stand-in does not mimic memptr= or strides=")
        self._a = wrap(numpy.empty(shape, dtype, order))._a

    # --- no implicit trip to the host ---
    def __array__(self, *args: Any, **kwargs: Any) -> numpy.ndarray:
        raise TypeError(_NO_HOST)

    def get(self, stream: Any = None, order: str = "C", out: numpy.ndarray | None = None,
            blocking: bool = True) -> numpy.ndarray:
        """Copy to the host (a new NumPy array, or into ``out``)."""
        _note_sync("get()")
        if out is None:
            return numpy.array(self._a, order=order, copy=True)
        if not isinstance(out, numpy.ndarray):
            raise TypeError("Only numpy.ndarray can be obtained from cupy.ndarray")
        out[...] = self._a
        return out

    def set(self, arr: numpy.ndarray, stream: Any = None) -> None:
        """Copy the host array ``arr`` (same shape and dtype) into this device array."""
        if not isinstance(arr, numpy.ndarray):
            raise TypeError("Only numpy.ndarray can be set to cupy.ndarray")
        if arr.dtype != self.dtype:
            raise TypeError(f"{arr.dtype} array cannot be set to {self.dtype} array")
        if arr.shape != self.shape:
            raise ValueError("Shape mismatch")
        self._a[...] = arr

    def item(self, *args: Any) -> Any:
        _note_sync("item()")
        return self._a.item(*args)

    def tolist(self) -> Any:
        _note_sync("tolist()")
        return self._a.tolist()

    def __float__(self) -> float:
        _note_sync("float()")
        return float(self._a)

    def __int__(self) -> int:
        _note_sync("int()")
        return int(self._a)

    def __complex__(self) -> complex:
        return complex(self._a)

    def __index__(self) -> int:
        _note_sync("index")
        return self._a.__index__()

    def __bool__(self) -> bool:
        _note_sync("bool()")
        return bool(self._a)

    def __repr__(self) -> str:
        return repr(self._a)

    def __str__(self) -> str:
        return str(self._a)

    def __format__(self, spec: str) -> str:
        return format(self._a, spec)

    def __reduce__(self) -> tuple:
        return _rebuild, (self._a.copy(),)

    def __copy__(self) -> ndarray:
        return self.copy()

    def __deepcopy__(self, memo: dict) -> ndarray:
        return self.copy()

    # --- attributes ---
    @property
    def shape(self) -> tuple[int, ...]:
        return self._a.shape

    @shape.setter
    def shape(self, value: Any) -> None:
        try:
            self._a = numpy.reshape(self._a, value, copy=False)
        except ValueError as error:
            raise AttributeError(f"incompatible shape: {error}") from None

    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    T = property(lambda self: wrap(self._a.T))
    real = property(lambda self: wrap(self._a.real))
    imag = property(lambda self: wrap(self._a.imag))
    flags = property(lambda self: _Flags(self._a))
    device = property(lambda self: MODULE.cuda.Device(0))
    # CuPy's MemoryPointer, for the address only (``x.data.ptr``: where the first element sits)
    data = property(lambda self: types.SimpleNamespace(ptr=self._a.__array_interface__["data"][0]))

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Any:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self)))

    # --- indexing ---
    def __getitem__(self, key: Any) -> ndarray:
        return wrap_result(self._a[device_key(key, self.shape)], {})

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a[device_key(key, self.shape)] = as_array(value)

    def take(self, indices: Any, axis: int | None = None, out: ndarray | None = None) -> ndarray:
        return MODULE.take(self, indices, axis, out)

    def repeat(self, repeats: Any, axis: int | None = None) -> ndarray:
        return MODULE.repeat(self, repeats, axis)

    def fill(self, value: Any) -> None:
        if isinstance(value, (ndarray, numpy.ndarray)) and value.ndim != 0:
            raise ValueError(f"non-scalar {type(value).__name__} cannot be used for fill")
        self._a.fill(value.item() if isinstance(value, numpy.ndarray) else as_array(value))

    def sort(self, axis: int = -1, kind: str | None = None) -> None:
        self._a.sort(axis=axis, kind=kind)

    def astype(self, dtype: Any, order: str = "K", casting: str | None = None, subok: Any = None,
               copy: bool = True) -> ndarray:
        return call(numpy.ndarray.astype, "a", (self, dtype), {"order": order, "copy": copy,
                                                                 "casting": casting or "unsafe"})

    # --- NumPy's own functions called on device arrays: dispatch here, as CuPy does ---
    def __array_ufunc__(self, np_ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        _note_numpy_call(np_ufunc.__name__ if method == "__call__" else f"{np_ufunc.__name__}.{method}")
        if "out" in kwargs:
            if len(kwargs["out"]) != 1:
                raise ValueError("The 'out' parameter must have exactly one array value")
            kwargs["out"] = kwargs["out"][0]
        func = getattr(MODULE, np_ufunc.__name__, None)
        if method != "__call__":
            func = getattr(func, method, None)
        if func is None:
            return NotImplemented
        for x in (*inputs, kwargs.get("out")):
            if x is not None and not isinstance(x, (ndarray, numpy.ndarray, *SCALARS)):
                return NotImplemented  # e.g. a tuple of index arrays in numpy.add.at: no dispatch
        if np_ufunc.__name__ in ("greater", "greater_equal", "less", "less_equal", "equal", "not_equal"):
            # CuPy's workaround for numpy/numpy#12142: 0-d host operands become scalars here
            inputs = tuple(x.item() if isinstance(x, numpy.ndarray) and x.ndim == 0 else x for x in inputs)
        return func(*inputs, **kwargs)

    def __array_function__(self, func: Any, arg_types: Any, args: tuple, kwargs: dict) -> Any:
        _note_numpy_call(func.__name__)
        try:
            namespace = functools.reduce(getattr, func.__module__.split(".")[1:], MODULE)
            impl = getattr(namespace, func.__name__)
        except AttributeError:
            return NotImplemented  # NumPy then raises TypeError: CuPy lacks this function
        if not all(t in (ndarray, numpy.ndarray) for t in arg_types):
            return NotImplemented
        return impl(*args, **kwargs)  # host arrays among the arguments are refused there


def _method(name: str, sig: str = "") -> Any:
    """A method that runs ``numpy.ndarray.<name>``, its arguments checked against ``sig``."""
    np_method = getattr(numpy.ndarray, name, None) or getattr(numpy, name)  # ptp left ndarray in NumPy 2

    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        return call(np_method, "a" + sig, (self, *args), kwargs, name)

    method.__name__ = method.__qualname__ = name
    return method


_METHODS = [
    "reshape", "view", "transpose", "swapaxes", "ravel", "flatten", "copy", "squeeze", "sum", "mean",
    "var", "std", "max", "min", "argmax", "argmin", "prod", "any", "all", "cumsum", "cumprod", "ptp",
    "trace", "diagonal", "round", "conj", "conjugate", "nonzero", "argsort",
]
for _name in _METHODS:
    setattr(ndarray, _name, _method(_name))
ndarray.dot = _method("dot", "a")
ndarray.clip = _method("clip", "aa")


# --- ufuncs: out=, dtype=, casting= only -----------------------------------------------------

# CuPy 13's scatter (ufunc.at) with integer-array indices uses atomics, defined for these dtypes
_AT_DTYPES = {
    "add": ("int32", "float16", "float32", "float64", "uint32", "uint64"),
    "subtract": ("int32", "uint32"),
    "maximum": ("int32", "float32", "float64", "uint32", "uint64"),
    "minimum": ("int32", "float32", "float64", "uint32", "uint64"),
}


class ufunc:  # noqa: N801 (CuPy's name)
    """A CuPy ufunc: elementwise over device arrays and scalars; keywords out, dtype, casting only."""

    def __init__(self, np_ufunc: numpy.ufunc):
        self._np = np_ufunc
        self.__name__ = np_ufunc.__name__
        self.name = f"cupy_{np_ufunc.__name__}"
        self.nin, self.nout, self.nargs = np_ufunc.nin, np_ufunc.nout, np_ufunc.nargs

    def __repr__(self) -> str:
        return f"<ufunc '{self.name}'>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if set(kwargs) - {"out", "dtype", "casting"}:
            raise TypeError(f"Wrong arguments {kwargs}")
        return call(self._np, "a*", args, kwargs, self.__name__)

    def outer(self, a: Any, b: Any, **kwargs: Any) -> ndarray:
        if set(kwargs) - {"out", "dtype", "casting"}:
            raise TypeError(f"Wrong arguments {kwargs}")
        return call(self._np.outer, "aa", (a, b), kwargs, self.__name__)

    def reduce(self, array: ndarray, axis: Any = 0, dtype: Any = None, out: Any = None,
               keepdims: bool = False) -> ndarray:
        reductions = {"add": MODULE.sum, "multiply": MODULE.prod}
        if self.__name__ not in reductions:
            raise NotImplementedError(f"`{self.name}.reduce` is not supported yet")
        return reductions[self.__name__](array, axis, dtype, out, keepdims)

    def accumulate(self, array: ndarray, axis: int = 0, dtype: Any = None, out: Any = None) -> ndarray:
        scans = {"add": MODULE.cumsum, "multiply": MODULE.cumprod}
        if self.__name__ not in scans:
            raise NotImplementedError(f"`{self.name}.accumulate` is not supported yet")
        return scans[self.__name__](array, axis, dtype, out)

    def at(self, a: ndarray, indices: Any, b: Any = None) -> None:
        """Unbuffered in-place ``a[indices] op= b``; indices wrap around; dtypes as CuPy's atomics."""
        dtypes = _AT_DTYPES.get(self.__name__)
        if dtypes is None:
            raise NotImplementedError(f"`{self.name}.at` is not supported yet")
        if not isinstance(a, ndarray):
            raise unsupported(a)
        key = device_key(indices, a.shape)
        fancy = any(isinstance(k, numpy.ndarray) and k.dtype.kind in "iu" for k in key)
        if fancy and a.dtype.name not in dtypes:
            raise TypeError(f"cupy.{self.__name__}.at only supports {', '.join(dtypes)} as data type")
        self._np.at(a._a, key, as_array(b))


UFUNC_NAMES = [
    "absolute", "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
    "bitwise_and", "bitwise_or", "bitwise_xor", "cbrt", "ceil", "conjugate", "copysign", "cos", "cosh",
    "deg2rad", "degrees", "divide", "divmod", "equal", "exp", "exp2", "expm1", "float_power", "floor",
    "floor_divide", "fmax", "fmin", "fmod", "frexp", "gcd", "greater", "greater_equal", "heaviside",
    "hypot", "invert", "isfinite", "isinf", "isnan", "lcm", "ldexp", "left_shift", "less", "less_equal",
    "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not",
    "logical_or", "logical_xor", "maximum", "minimum", "modf", "multiply", "negative", "nextafter",
    "not_equal", "positive", "power", "rad2deg", "radians", "reciprocal", "remainder", "right_shift",
    "rint", "sign", "signbit", "sin", "sinh", "sqrt", "square", "subtract", "tan", "tanh", "trunc",
]
UFUNCS = {name: ufunc(getattr(numpy, name)) for name in UFUNC_NAMES}
matmul = function(numpy.matmul, "aa")


def _binary(name: str) -> tuple[Any, Any, Any]:
    """``x op y``, ``y op x`` and ``x op= y`` for the ufunc ``name``."""
    f = matmul if name == "matmul" else UFUNCS[name]

    def op(self: ndarray, other: Any) -> Any:
        return NotImplemented if _defers_to(other) else f(self, other)

    def rop(self: ndarray, other: Any) -> Any:
        return NotImplemented if _defers_to(other) else f(other, self)

    def iop(self: ndarray, other: Any) -> Any:
        return NotImplemented if _defers_to(other) else f(self, other, out=self)

    return op, rop, iop


for _op, _name in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
                   ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "power"),
                   ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                   ("lshift", "left_shift"), ("rshift", "right_shift"), ("matmul", "matmul"),
                   ("divmod", "divmod")]:
    _forward, _reflected, _inplace = _binary(_name)
    setattr(ndarray, f"__{_op}__", _forward)
    setattr(ndarray, f"__r{_op}__", _reflected)
    if _op not in ("matmul", "divmod"):
        setattr(ndarray, f"__i{_op}__", _inplace)
for _op, _name in [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                   ("gt", "greater"), ("ge", "greater_equal")]:
    setattr(ndarray, f"__{_op}__", _binary(_name)[0])


def _unary(name: str) -> Any:
    return lambda self: UFUNCS[name](self)


for _op, _name in [("neg", "negative"), ("pos", "positive"), ("abs", "absolute"), ("invert", "invert")]:
    setattr(ndarray, f"__{_op}__", _unary(_name))
