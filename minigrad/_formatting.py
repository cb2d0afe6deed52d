"""``repr(tensor)`` as PyTorch prints it: ``tensor([1., 2.], requires_grad=True)``.

A port of PyTorch's ``torch/_tensor_str.py`` (default print options) on a host copy of the
data, so a student's printout matches a PyTorch notebook character for character but for
the module name (``minigrad.float64`` for ``torch.float64``):

- one format for all elements (:class:`_Formatter`), chosen from the finite non-zero values:
  ``1.`` for integral values, 4 decimals, or scientific for wide ranges; padded to one width;
- rows of ``floor((80 - indent) / (width + 2))`` elements, nested dimensions on new lines;
- tensors of more than 1000 elements summarised with `` ...`` after 3 items at each edge;
- suffixes (``dtype=``, ``grad_fn=``, ...) after ``, `` or, when the line would pass 80
  columns, on a new line under the first bracket.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from minigrad import backend
from minigrad import dtypes as _dtypes

_LINE_WIDTH = 80
_THRESHOLD = 1000  # more elements than this are summarised with "..."
_EDGE_ITEMS = 3
_PRECISION = 4
_IMPLICIT_DTYPES = ("int64", "bool")  # PyTorch does not print these, nor the default float dtype


class _Formatter:
    """How every element of one tensor is written: PyTorch's ``_Formatter``."""

    def __init__(self, values: numpy.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            self.width = max((len(str(v)) for v in flat.tolist()), default=1)
            return
        shown = flat[numpy.isfinite(flat) & (flat != 0)].astype(numpy.float64)
        if shown.size == 0:
            return
        magnitudes = numpy.abs(shown)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(numpy.all(shown == numpy.ceil(shown)))
        self.sci_mode = bool(largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)
        for value in shown.tolist():
            if self.sci_mode:
                text = f"{value:.{_PRECISION}e}"
            elif self.int_mode:
                text = f"{value:.0f}."
            else:
                text = f"{value:.{_PRECISION}f}"
            self.width = max(self.width, len(text))

    def format(self, value: Any) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.width}.{_PRECISION}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{_PRECISION}f}"
        return text.rjust(self.width)


def _vector(values: numpy.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    """A 1-D row, wrapped so that each line holds as many elements as fit in 80 columns."""
    per_line = max(1, (_LINE_WIDTH - indent) // (formatter.width + 2))
    if summarize and values.shape[0] > 2 * _EDGE_ITEMS:
        items = ([formatter.format(v) for v in values[:_EDGE_ITEMS].tolist()] + [" ..."]
                 + [formatter.format(v) for v in values[-_EDGE_ITEMS:].tolist()])
    else:
        items = [formatter.format(v) for v in values.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values: numpy.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    """Any dimension: rows of rows, one more space of indent and one more blank line per level."""
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, formatter)
    rows = range(values.shape[0])
    if summarize and values.shape[0] > 2 * _EDGE_ITEMS:
        head = [_nested(values[i], indent + 1, summarize, formatter) for i in rows[:_EDGE_ITEMS]]
        tail = [_nested(values[i], indent + 1, summarize, formatter) for i in rows[-_EDGE_ITEMS:]]
        parts = [*head, "...", *tail]
    else:
        parts = [_nested(values[i], indent + 1, summarize, formatter) for i in rows]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _summarized(values: numpy.ndarray) -> numpy.ndarray:
    """The elements a summarised repr shows (3 at each edge of every dimension), for the formatter."""
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * _EDGE_ITEMS:
        values = numpy.concatenate([values[:_EDGE_ITEMS], values[-_EDGE_ITEMS:]])
    if values.ndim == 1:
        return values
    return numpy.stack([_summarized(row) for row in values])


def _body(host: numpy.ndarray, indent: int) -> str:
    if host.size == 0:
        return "[]"
    summarize = host.size > _THRESHOLD
    formatter = _Formatter(_summarized(host) if summarize else host)
    return _nested(host, indent, summarize, formatter)


def tensor_repr(t: Any) -> str:
    host = backend.to_host(t.array)
    prefix = "tensor("
    suffixes = []  # in PyTorch's order: device, size, dtype, then the autograd state
    dev = t.device
    if dev.type != "cpu":
        suffixes.append(f"device='{dev.type}:{dev.index or 0}'")
    if host.size == 0 and host.shape != (0,):
        suffixes.append(f"size={tuple(host.shape)}")
    dtype = _dtypes.from_numpy_dtype(host.dtype)
    default = _dtypes.get_default_dtype()
    # an empty tensor shows its dtype unless it is the default float one (nothing else tells it)
    if dtype is not default and (host.size == 0 or dtype.name not in _IMPLICIT_DTYPES):
        suffixes.append(f"dtype=minigrad.{dtype.name}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + _body(host, len(prefix)), suffixes, indent=len(prefix)) + ")"


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """``text`` followed by ``, suffix`` for each suffix, or by ``,\\n<indent>suffix`` when it would
    run past the line width: PyTorch's rule, its arithmetic included (its ``last_line_len``
    counts two more than the columns on a one-line repr, one more after a line break).

    The lengths are those of PyTorch's spelling (``torch.float64`` for ``minigrad.float64``), so a
    repr breaks where PyTorch's breaks and reads the same but for the module name.
    """
    pieces = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        width = len(suffix.replace("minigrad.", "torch."))
        if last_line + width + 2 > _LINE_WIDTH:
            pieces.append(",\n" + " " * indent + suffix)
            last_line = indent + width
        else:
            pieces.append(", " + suffix)
            last_line += width + 2
    return "".join(pieces)
