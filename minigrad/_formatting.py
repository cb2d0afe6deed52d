"""``repr(tensor)`` in PyTorch's style: ``tensor([1., 2.], requires_grad=True)``."""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend
from minigrad import dtypes as _dtypes

_LINE_WIDTH = 80
_THRESHOLD = 1000  # more elements than this are summarised with "..."
_EDGE_ITEMS = 3
_IMPLICIT_DTYPES = ("int64", "bool")  # PyTorch does not print these, nor the default float dtype


def _float_formatter(values: numpy.ndarray) -> Any:
    """PyTorch's choice of format, every element padded to the widest one."""
    plain = _plain_float_formatter(values)
    # PyTorch measures only the finite values: nan and inf do not widen the others
    width = max((len(plain(v)) for v in values[numpy.isfinite(values)].reshape(-1)), default=0)
    return lambda v: plain(v).rjust(width)


def _plain_float_formatter(values: numpy.ndarray) -> Any:
    """Integers as ``1.``, else 4 decimals, scientific for wide ranges."""
    finite = numpy.abs(values[numpy.isfinite(values)].astype(numpy.float64))
    if finite.size == 0:
        return lambda v: f"{v}"
    nonzero = finite[finite != 0]
    wide = nonzero.size and (nonzero.max() / nonzero.min() > 1000 or nonzero.max() > 1e8)
    if numpy.all(finite == numpy.round(finite)):
        if wide:
            return lambda v: f"{v:.4e}"
        return lambda v: f"{v:.0f}." if numpy.isfinite(v) else f"{v}"
    if wide or (nonzero.size and nonzero.min() < 1e-4):
        return lambda v: f"{v:.4e}"
    return lambda v: f"{v:.4f}"


def tensor_repr(t: Any) -> str:
    host = backend.to_host(t.array)
    prefix = "tensor("
    formatter = {}
    if host.dtype.kind == "f":
        summary = host if host.size <= _THRESHOLD else _edges(host)
        formatter = {"float_kind": _float_formatter(summary)}
    elif host.dtype.kind == "b":  # "True" is padded to the width of "False" only when one is shown
        width = 5 if not (host if host.size <= _THRESHOLD else _edges(host)).all() else 4
        formatter = {"bool": lambda v: str(bool(v)).rjust(width)}
    body = numpy.array2string(host, separator=", ", prefix=prefix, max_line_width=_LINE_WIDTH,
                              threshold=_THRESHOLD, edgeitems=_EDGE_ITEMS, formatter=formatter)
    body = body.replace(", ..., ", ",  ..., ")  # PyTorch's elided elements read " ..." within a row
    suffixes = []
    if host.size == 0 and host.shape != (0,):
        suffixes.append(f"size={tuple(host.shape)}")
    dev = t.device
    if dev.type != "cpu":
        suffixes.append(f"device='{dev.type}:{dev.index or 0}'")
    dtype = _dtypes.from_numpy_dtype(host.dtype)
    default = _dtypes.get_default_dtype()
    # an empty tensor shows its dtype unless it is the default float one (nothing else tells it)
    if dtype is not default and (host.size == 0 or dtype.name not in _IMPLICIT_DTYPES):
        suffixes.append(f"dtype=minigrad.{dtype.name}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"


def _edges(host: numpy.ndarray) -> numpy.ndarray:
    flat = host.reshape(-1)
    return numpy.concatenate([flat[:_EDGE_ITEMS], flat[-_EDGE_ITEMS:]])
