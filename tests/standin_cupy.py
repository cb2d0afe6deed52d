"""A strict CuPy 13 stand-in, so minigrad's GPU code path runs (and fails where CuPy would) without a GPU.

``standin`` is a module object that answers to the CuPy names minigrad may use; its arrays live
in host memory but behave as device arrays do (see /work/shared/CUPY.md):

- ``numpy.asarray(device_array)`` raises TypeError: copy explicitly with ``.get()`` / ``asnumpy``.
- A host array (even 0-d), a list, or a tuple where an array is expected raises TypeError
  ("Unsupported type <class 'numpy.ndarray'>"); Python and NumPy scalars are fine. Host arrays and
  lists used as indices are refused too (CuPy would copy them over on every call).
- Reductions and scalar indexing give 0-d device arrays; integer-array indices wrap around.
- Only functions CuPy 13 has exist (an explicit list, no pass-through to NumPy); ufuncs take out=,
  dtype=, casting= only; ``add.at`` with integer-array indices refuses the dtypes CuPy's atomics lack.
- NumPy functions called on device arrays dispatch here, as with CuPy (``numpy.exp(x)`` works,
  ``numpy.put_along_axis(x, ...)`` raises TypeError).

Where it knowingly differs from CuPy: host arrays and lists as indices are refused (CuPy copies
them over); ``sliding_window_view`` is read-only (NumPy's; CuPy's is writable, but code writing into
it fails on the CPU anyway); type promotion is NumPy 2's; there is no ``base``, ``data``,
``__cuda_array_interface__``, ``fuse``, raw kernels or memory pool; random numbers are NumPy's.

``install()`` serves minigrad's 'cuda' device from the stand-in; ``uninstall()`` forgets it.
"""

from __future__ import annotations

import os
import types
from typing import Any

import numpy
from standin_cupy_array import (
    MODULE,
    SCALARS,
    UFUNC_NAMES,
    UFUNCS,
    as_array,
    call,
    function,
    matmul,
    ndarray,
    ufunc,
    unsupported,
    wrap,
)

__all__ = ["install", "make_module", "real_cupy_requested", "serving_module", "standin", "uninstall"]

standin = MODULE


# --- host <-> device -----------------------------------------------------------------------

def _host_data(obj: Any) -> Any:
    """Host data for ``array``: device arrays nested in lists are accepted, as CuPy does."""
    if isinstance(obj, ndarray):
        return obj._a
    if isinstance(obj, (list, tuple)):
        return [_host_data(v) for v in obj]
    return obj


def array(obj: Any, dtype: Any = None, copy: bool = True, order: str = "K", subok: bool = False,
          ndmin: int = 0) -> ndarray:
    """A new device array from host data (lists, scalars, NumPy arrays) or a device array."""
    if isinstance(obj, ndarray) and not copy and (dtype is None or numpy.dtype(dtype) == obj.dtype):
        return obj
    return wrap(numpy.array(_host_data(obj), dtype=dtype, copy=True, order=order, ndmin=ndmin))


def asarray(a: Any, dtype: Any = None, order: str | None = None) -> ndarray:
    """``a`` itself if already a device array of that dtype, else a copy on the device."""
    if isinstance(a, ndarray) and (dtype is None or numpy.dtype(dtype) == a.dtype):
        return a
    return wrap(numpy.array(_host_data(a), dtype=dtype, copy=True, order=order or "K"))


def ascontiguousarray(a: Any, dtype: Any = None) -> ndarray:
    if isinstance(a, ndarray) and a.flags.c_contiguous and (dtype is None or numpy.dtype(dtype) == a.dtype):
        return a
    return wrap(numpy.array(_host_data(a), dtype=dtype, copy=True, order="C"))


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: numpy.ndarray | None = None) -> numpy.ndarray:
    """Copy a device array to the host; host data passes through ``numpy.asarray``."""
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    return numpy.asarray(a, order=order)


def get_array_module(*args: Any) -> Any:
    """The stand-in if any argument is a device array, else numpy."""
    return MODULE if any(isinstance(a, ndarray) for a in args) else numpy


# --- functions that differ from NumPy's ----------------------------------------------------

_take = function(numpy.take, "aa", "take")
_take_along_axis = function(numpy.take_along_axis, "aa", "take_along_axis")


def _wrapped(indices: Any, n: int) -> Any:
    """Out-of-range indices wrap around on CuPy (no IndexError): index modulo the axis length."""
    if n and isinstance(indices, (ndarray, int, numpy.integer)) and not isinstance(indices, bool):
        return indices % n
    return indices


def take(a: ndarray, indices: Any, axis: int | None = None, out: ndarray | None = None) -> ndarray:
    if not isinstance(a, ndarray):
        raise unsupported(a)
    return _take(a, _wrapped(indices, a.size if axis is None else a.shape[axis]), axis=axis, out=out)


def take_along_axis(a: ndarray, indices: ndarray, axis: int | None) -> ndarray:
    if not isinstance(a, ndarray):
        raise unsupported(a)
    return _take_along_axis(a, _wrapped(indices, a.size if axis is None else a.shape[axis]), axis)


def repeat(a: ndarray, repeats: Any, axis: int | None = None) -> ndarray:
    """``repeats``: an int or a host list/tuple of ints (CuPy refuses a device array there)."""
    if isinstance(repeats, ndarray):
        raise ValueError("cupy.ndarray cannot be specified as `repeats` argument.")
    return call(numpy.repeat, "a", (a, repeats, axis), {}, "repeat")


def copyto(dst: ndarray, src: Any, casting: str = "same_kind", where: Any = None) -> None:
    """CuPy's copyto does take ``where=`` (a device mask)."""
    if not isinstance(dst, ndarray):
        raise unsupported(dst)
    numpy.copyto(dst._a, as_array(src), casting=casting, where=True if where is None else as_array(where))


def _zero_d(func: Any, sig: str) -> Any:
    """CuPy returns a 0-d device array where NumPy returns a Python bool or int."""
    inner = function(func, sig)

    def standin(*args: Any, **kwargs: Any) -> ndarray:
        r = inner(*args, **kwargs)
        return r if isinstance(r, ndarray) else wrap(numpy.asarray(r))

    standin.__name__ = func.__name__
    return standin


def _dtype_of(x: Any) -> Any:
    return x.dtype if isinstance(x, ndarray) else x


def result_type(*arrays_and_dtypes: Any) -> numpy.dtype:
    return numpy.result_type(*map(_dtype_of, arrays_and_dtypes))


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    return numpy.can_cast(_dtype_of(from_), to, casting)


def ndim(a: Any) -> int:
    return a.ndim if isinstance(a, ndarray) else numpy.ndim(a)


def shape(a: Any) -> tuple[int, ...]:
    return a.shape if isinstance(a, ndarray) else numpy.shape(a)


def size(a: Any, axis: int | None = None) -> int:
    if isinstance(a, ndarray):
        return a.size if axis is None else a.shape[axis]
    return numpy.size(a, axis)


# --- NumPy functions with nothing to change but the argument checks ------------------------
# name -> signature: 'a' an array (device array or scalar), 's' a sequence of device arrays,
# '-' anything else (shape, axis, dtype, ...); a trailing '*' repeats the last kind.

_FUNCTIONS = {
    # elementwise, but functions rather than ufuncs in CuPy
    "where": "daa", "clip": "aaa", "round": "a", "around": "a", "nan_to_num": "a", "real": "a",
    "imag": "a", "sinc": "a", "isclose": "aa", "fill_diagonal": "aa",
    # reductions and statistics
    "sum": "a", "prod": "a", "mean": "a", "var": "a", "std": "a", "max": "a", "min": "a", "amax": "a",
    "amin": "a", "argmax": "a", "argmin": "a", "any": "a", "all": "a", "cumsum": "a", "cumprod": "a",
    "nansum": "a", "nanmean": "a", "nanmax": "a", "nanmin": "a", "median": "a", "average": "a",
    "ptp": "a", "diff": "a", "bincount": "a", "trace": "a",
    # shapes, views, joins
    "reshape": "a", "transpose": "a", "moveaxis": "a", "swapaxes": "a", "expand_dims": "a",
    "squeeze": "a", "broadcast_to": "a", "broadcast_arrays": "a*", "ravel": "a", "flip": "a",
    "fliplr": "a", "flipud": "a", "rot90": "a", "roll": "a", "tile": "a", "pad": "a",
    "atleast_1d": "a*", "atleast_2d": "a*", "atleast_3d": "a*", "concatenate": "s", "stack": "s",
    "vstack": "s", "hstack": "s", "dstack": "s", "column_stack": "s", "split": "a", "array_split": "a",
    "copy": "a", "diag": "a", "diagonal": "a", "tril": "a", "triu": "a",
    # sorting, searching, sets
    "sort": "a", "argsort": "a", "unique": "a", "searchsorted": "aa", "nonzero": "a", "argwhere": "a",
    "flatnonzero": "a",
    # products
    "dot": "aa", "vdot": "aa", "inner": "aa", "outer": "aa", "tensordot": "aa", "einsum": "-a*",
    "kron": "aa", "cross": "aa",
    # memory
    "may_share_memory": "aa", "shares_memory": "aa",
    # creation (no array arguments; device arrays as fill values are fine)
    "zeros": "", "ones": "", "empty": "", "full": "", "arange": "", "linspace": "", "logspace": "",
    "eye": "", "identity": "", "tri": "", "zeros_like": "a", "ones_like": "a", "empty_like": "a",
    "full_like": "a", "meshgrid": "a*",
}

_LINALG = {"norm": "a", "inv": "a", "pinv": "a", "solve": "aa", "det": "a", "slogdet": "a", "svd": "a",
           "qr": "a", "eigh": "a", "cholesky": "a", "matrix_power": "a"}

_NUMPY_NAMES = [
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "bool_", "complex64", "complex128", "intp", "uintp", "byte", "ubyte", "short", "ushort",
    "intc", "uintc", "longlong", "ulonglong", "half", "single", "double", "csingle", "cdouble",
    "generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
    "complexfloating", "dtype", "finfo", "iinfo", "issubdtype", "isscalar", "promote_types", "inf",
    "nan", "pi", "e", "euler_gamma",
]


# --- cuda, random ----------------------------------------------------------------------------

class _Device:
    """``cupy.cuda.Device``: the single device 0."""

    def __init__(self, device: int | None = None):
        self.id = 0 if device is None else int(device)

    def __enter__(self):  # returns the device, as CuPy
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def use(self) -> None:
        return None

    def synchronize(self) -> None:
        return None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Device) and other.id == self.id

    def __hash__(self) -> int:
        return self.id

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"


def _cuda_module() -> types.ModuleType:
    cuda = types.ModuleType("cupy.cuda")
    cuda.Device = _Device
    cuda.is_available = lambda: True
    cuda.runtime = types.SimpleNamespace(getDeviceCount=lambda: 1, deviceSynchronize=lambda: None)
    null_stream = types.SimpleNamespace(synchronize=lambda: None)
    cuda.Stream = types.SimpleNamespace(null=null_stream)
    cuda.get_current_stream = lambda: null_stream
    return cuda


_rng = numpy.random.RandomState()


def _float(dtype: Any) -> numpy.dtype:
    dtype = numpy.dtype(dtype)
    if dtype.char not in "fd":
        raise TypeError("cupy.random only supports float32 and float64")
    return dtype


def _draw(sampler: Any, dtype: Any, *args: Any, size: Any = None) -> ndarray:
    """``sampler(*args, size)`` drawn on the host; parameters may be device arrays, not host ones."""
    for a in args:
        if not isinstance(a, (ndarray, *SCALARS)):
            raise unsupported(a)
    host_args = [a._a if isinstance(a, ndarray) else a for a in args]
    return wrap(numpy.asarray(sampler(*host_args, size=size), dtype=dtype))


class _Generator:
    """``cupy.random.default_rng()``: no normal, choice or permutation on CuPy's Generator."""

    def __init__(self, seed: Any = None):
        self._g = numpy.random.default_rng(seed)

    def random(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> ndarray:
        return _draw(self._g.random, _float(dtype), size=size)

    def standard_normal(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> ndarray:
        return _draw(self._g.standard_normal, _float(dtype), size=size)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None,
                dtype: Any = numpy.float64) -> ndarray:
        return _draw(self._g.uniform, _float(dtype), low, high, size=size)

    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = numpy.int64,
                 endpoint: bool = False) -> ndarray:
        high = low if high is None else high
        low = 0 if high is low else low
        return wrap(numpy.asarray(self._g.integers(low, high, size, dtype, endpoint)))


def _random_module() -> types.ModuleType:
    r = types.ModuleType("cupy.random")
    r.seed = lambda seed=None: _rng.seed(seed)
    r.rand = lambda *size, dtype=float: _draw(_rng.random_sample, _float(dtype), size=size)
    r.randn = lambda *size, dtype=float: _draw(_rng.standard_normal, _float(dtype), size=size)
    r.random = r.random_sample = lambda size=None, dtype=float: _draw(_rng.random_sample, _float(dtype),
                                                                        size=size)
    r.standard_normal = lambda size=None, dtype=float: _draw(_rng.standard_normal, _float(dtype), size=size)
    r.uniform = lambda low=0.0, high=1.0, size=None, dtype=float: _draw(_rng.uniform, _float(dtype), low,
                                                                          high, size=size)
    r.normal = lambda loc=0.0, scale=1.0, size=None, dtype=float: _draw(_rng.normal, _float(dtype), loc,
                                                                          scale, size=size)
    r.randint = lambda low, high=None, size=None, dtype=int: wrap(
        numpy.asarray(_rng.randint(low, high, size, dtype)))
    r.permutation = lambda a: (wrap(_rng.permutation(a)) if isinstance(a, (int, numpy.integer))
                               else MODULE.take(a, wrap(_rng.permutation(len(a))), axis=0))
    r.default_rng = _Generator
    return r


# --- the module --------------------------------------------------------------------------------

def _einsum(*operands: Any, **kwargs: Any) -> Any:
    """``einsum`` as CuPy's: it takes no ``out=`` (nor ``order=``/``casting=``)."""
    unknown = sorted(set(kwargs) - {"dtype", "optimize"})
    if unknown:
        raise TypeError(f"Did not understand the following kwargs: {unknown}")
    return function(numpy.einsum, "-a*")(*operands, **kwargs)


def _build() -> None:
    m = MODULE
    m.__version__ = "13.3.0"  # the CuPy release whose behaviour this mimics
    m.ndarray, m.ufunc, m.matmul = ndarray, ufunc, matmul
    for name in UFUNC_NAMES:
        setattr(m, name, UFUNCS[name])
    m.abs, m.mod, m.true_divide, m.conj = m.absolute, m.remainder, m.divide, m.conjugate
    for name, sig in _FUNCTIONS.items():
        setattr(m, name, function(getattr(numpy, name), sig))
    for name in ("allclose", "array_equal"):
        setattr(m, name, _zero_d(getattr(numpy, name), "aa"))
    m.count_nonzero = _zero_d(numpy.count_nonzero, "a")
    m.einsum = _einsum
    for f in (array, asarray, ascontiguousarray, asnumpy, get_array_module, take, take_along_axis, repeat,
              copyto, result_type, can_cast, ndim, shape, size):
        setattr(m, f.__name__, f)
    for name in _NUMPY_NAMES:
        setattr(m, name, getattr(numpy, name))
    m.newaxis = None
    m.linalg = types.ModuleType("cupy.linalg")
    for name, sig in _LINALG.items():
        setattr(m.linalg, name, function(getattr(numpy.linalg, name), sig))
    m.lib = types.ModuleType("cupy.lib")
    m.lib.stride_tricks = types.ModuleType("cupy.lib.stride_tricks")
    m.lib.stride_tricks.as_strided = function(numpy.lib.stride_tricks.as_strided, "a")
    m.lib.stride_tricks.sliding_window_view = function(numpy.lib.stride_tricks.sliding_window_view, "a")
    m.cuda = _cuda_module()
    m.random = _random_module()


_build()


def make_module() -> types.ModuleType:
    """The stand-in module (one per process: its arrays are one type)."""
    return MODULE


REAL_CUPY_VAR = "MINIGRAD_TEST_REAL_CUPY"


def real_cupy_requested() -> bool:
    """True when ``MINIGRAD_TEST_REAL_CUPY`` asks the device tests to run on real CuPy and a GPU."""
    return os.environ.get(REAL_CUPY_VAR, "").strip().lower() not in ("", "0", "false", "no")


def serving_module() -> types.ModuleType:
    """The module that serves 'cuda' once :func:`install` ran: the stand-in, or real CuPy."""
    if real_cupy_requested():
        import cupy

        return cupy
    return MODULE


def install() -> types.ModuleType:
    """Serve minigrad's 'cuda' device from the stand-in; returns it.

    With ``MINIGRAD_TEST_REAL_CUPY=1`` (scripts/gpu-check.sh sets it on a machine with a GPU), the
    same tests run on real CuPy instead: 'cuda' is served by ``cupy`` and this returns it.
    """
    from minigrad import backend  # the stand-in itself does not need minigrad

    module = serving_module()
    backend.use_cuda_module(module)
    return module


def uninstall() -> None:
    """Forget the stand-in: 'cuda' is unavailable again (unless real CuPy and a GPU are present)."""
    from minigrad import backend

    backend.use_cuda_module(None)
