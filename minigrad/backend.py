"""Where tensor data lives: devices and the array module (NumPy or CuPy) behind each.

Every kernel in minigrad starts with ``xp = get_array_module(array)`` and then
uses ``xp`` exactly as it would use NumPy, so one code path serves the CPU
(NumPy) and the GPU (CuPy). Arrays only cross between devices here, through
:func:`to_device`.
"""

from __future__ import annotations

import threading
import types
from typing import Any

import numpy

__all__ = [
    "Device",
    "device",
    "get_array_module",
    "device_of",
    "to_device",
    "to_host",
    "from_host",
    "default_device",
    "get_default_device",
    "set_default_device",
    "set_backend",
    "cuda_available",
    "use_cuda_module",
]


class Device:
    """A device, as ``torch.device``: ``Device('cpu')``, ``Device('cuda')``, ``Device('cuda:0')``."""

    __slots__ = ("type", "index")
    type: str
    index: int | None

    def __init__(self, type: str | Device, index: int | None = None):  # noqa: A002 (PyTorch's name)
        if isinstance(type, Device):
            index = type.index if index is None else index
            type = type.type  # noqa: A001
        if not isinstance(type, str):
            raise TypeError(f"device must be a string such as 'cpu' or 'cuda', got {type!r}")
        name, _, number = type.partition(":")
        if name not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {type!r}")
        if number:
            if index is not None:
                raise RuntimeError(f"device index given twice: {type!r} and index={index}")
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: {type!r}")
            index = int(number)
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self.type = name
        self.index = index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = Device(other)
        if not isinstance(other, Device):
            return NotImplemented
        return self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self) -> int:
        return hash((self.type, self.index or 0))

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __enter__(self) -> Device:
        """``with mg.device('cuda'):`` makes this the default device for new tensors inside the block."""
        _default.entered.append(_default.device)
        _default.device = self
        return self

    def __exit__(self, *exc_info: Any) -> None:
        _default.device = _default.entered.pop()


device = Device  # ``mg.device('cpu')`` as in PyTorch
CPU = Device("cpu")
CUDA = Device("cuda")

# --- the CUDA side: real CuPy, or a stand-in installed by the tests -----------------

_cuda_xp: types.ModuleType | Any | None = None  # the array module for 'cuda', once loaded
_cuda_error: str | None = None  # why CUDA is unavailable, once we tried


class CudaUnavailableError(RuntimeError, AssertionError):
    """The 'cuda' device was asked for but cannot be used (no CuPy, or no GPU).

    PyTorch's CPU builds raise AssertionError ("Torch not compiled with CUDA enabled") and its CUDA
    builds a RuntimeError on a machine without a GPU; this is both, so either ``except`` catches it.
    """


def use_cuda_module(xp: Any | None) -> None:
    """Serve the 'cuda' device with ``xp`` (a CuPy-like module), or forget it with None.

    minigrad's own tests use this to run the suite on a strict CuPy stand-in on
    machines without a GPU. The module must offer ``ndarray``, ``asarray`` (host to
    device) and ``asnumpy`` (device to host), as CuPy does.
    """
    global _cuda_xp, _cuda_error
    _cuda_xp, _cuda_error = xp, None
    if xp is None and _default.device == CUDA:
        _default.device = CPU


def _load_cupy() -> Any:
    """Import CuPy and check for a GPU; raise a :class:`CudaUnavailableError` that says what is missing."""
    global _cuda_xp, _cuda_error
    if _cuda_xp is not None:
        return _cuda_xp
    if _cuda_error is None:
        try:
            import cupy  # noqa: PLC0415 (optional dependency, imported on first use)
        except ImportError:
            _cuda_error = ("CuPy is not installed. Install the GPU extra "
                           "(pip install \"minigrad-edu[gpu]\") on a machine with an NVIDIA GPU.")
        else:
            try:
                count = cupy.cuda.runtime.getDeviceCount()
            except Exception as error:  # CuPy raises its own CUDARuntimeError here
                count, reason = 0, str(error)
            else:
                reason = "no CUDA device was found"
            if count > 0:
                _cuda_xp = cupy
                return cupy
            _cuda_error = f"CuPy is installed but no GPU is usable: {reason}."
    raise CudaUnavailableError(f"CUDA is not available: {_cuda_error}")


def cuda_available() -> bool:
    """True when the 'cuda' device can be used (CuPy and a GPU, or a registered stand-in)."""
    try:
        _load_cupy()
    except RuntimeError:
        return False
    return True


def _cuda_array_type() -> type | None:
    return None if _cuda_xp is None else _cuda_xp.ndarray


# --- arrays and their devices ------------------------------------------------------------

def get_array_module(array: Any) -> Any:
    """The array module (``numpy`` or ``cupy``) owning ``array`` (an array or a Tensor): Chainer's ``xp``."""
    if isinstance(array, numpy.ndarray):
        return numpy
    array_type = _cuda_array_type()
    if array_type is not None and isinstance(array, array_type):
        return _cuda_xp
    inner = getattr(array, "array", None)  # a Tensor: look at its data
    if inner is not None and inner is not array:
        return get_array_module(inner)
    return numpy


def array_module_for_type(array_type: type) -> Any:
    """The array module whose arrays are of ``array_type``."""
    if array_type is numpy.ndarray or _cuda_xp is None:
        return numpy
    return _cuda_xp if issubclass(array_type, _cuda_xp.ndarray) else numpy


def device_of(array: Any) -> Device:
    """The device an array lives on: 'cpu' for NumPy arrays, 'cuda' for CuPy arrays."""
    array_type = _cuda_array_type()
    if array_type is not None and isinstance(array, array_type):
        return CUDA
    return CPU


def array_module_for(dev: Device) -> Any:
    """The array module that creates arrays on ``dev``."""
    return numpy if dev.type == "cpu" else _load_cupy()


def to_host(array: Any) -> numpy.ndarray:
    """Copy a device array to a NumPy array (no copy for NumPy arrays)."""
    if isinstance(array, numpy.ndarray):
        return array
    if _cuda_xp is not None and isinstance(array, _cuda_xp.ndarray):
        return _cuda_xp.asnumpy(array)
    return numpy.asarray(array)


def from_host(array: numpy.ndarray, dev: Device) -> Any:
    """Place a NumPy array on ``dev`` (no copy when ``dev`` is the CPU)."""
    if dev.type == "cpu":
        return array
    return _load_cupy().asarray(array)


def to_device(array: Any, dev: Device) -> Any:
    """The same values on ``dev``: no copy when already there."""
    if device_of(array) == dev:
        return array
    return from_host(to_host(array), dev)


# --- the default device for new tensors ---------------------------------------------------
# One setting serves ``set_default_device``, ``with mg.device(...)`` and ``set_backend``: the
# factories (``tensor``, ``zeros``, ``randn`` ...) read it through :func:`default_device`.


class _ThreadDefault(threading.local):
    """This thread's default device (``threading.local``): as in PyTorch, setting it changes it for
    the calling thread only, and a new thread starts on the CPU."""

    device: Device = CPU

    def __init__(self) -> None:
        self.entered: list[Device] = []  # the defaults that enclosing ``with device(...)`` blocks restore


_default = _ThreadDefault()


def default_device() -> Device:
    """The device new tensors are created on when no ``device=`` is given."""
    return _default.device


def get_default_device() -> Device:
    """The device factories use when no ``device=`` is given, as ``torch.get_default_device()``.

    ``'cuda'`` comes back with its index (``cuda:0``), and, as PyTorch's, raises when no GPU is
    usable.
    """
    if _default.device.type == "cuda" and _default.device.index is None:
        _load_cupy()
        return Device("cuda", 0)
    return _default.device


def set_default_device(device: Device | str | int | None) -> None:
    """Make ``device`` the default for new tensors, as ``torch.set_default_device``; None means the CPU.

    As PyTorch's, the setting is the calling thread's: other threads keep theirs.

    Nothing is checked here: without CuPy, ``set_default_device('cuda')`` succeeds and creating
    a tensor then raises :class:`CudaUnavailableError`, as with a PyTorch CPU build. An int is
    a CUDA device index. Existing tensors stay where they are.
    """
    if device is None:
        _default.device = CPU
    elif isinstance(device, (str, Device)):
        _default.device = Device(device)
    elif isinstance(device, int) and not isinstance(device, bool):
        if not cuda_available():
            raise RuntimeError(f"Cannot access accelerator device when none is available (device {device}).")
        _default.device = Device("cuda", device)
    else:  # Device's own message
        raise TypeError(f"device must be a string such as 'cpu' or 'cuda', got {device!r}")


def set_backend(name: str) -> None:
    """``'numpy'``: new tensors on the CPU (the default); ``'cupy'``: new tensors on the GPU.

    The same setting as :func:`set_default_device` (``'cpu'`` or ``'cuda'``), except that
    ``'cupy'`` checks at once that a GPU is usable. Existing tensors stay where they are. Like
    ``set_default_device``, it sets the calling thread's default.
    """
    if name == "numpy":
        set_default_device(CPU)
    elif name == "cupy":
        _load_cupy()
        set_default_device(CUDA)
    else:
        raise ValueError(f"unknown backend {name!r}: expected 'numpy' or 'cupy'")
