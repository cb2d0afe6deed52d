"""Which convolution algorithm runs: ``'im2col'`` (the default), ``'rot180'`` or ``'naive'``.

Each name maps to a module exposing the same three array functions — ``forward``,
``grad_input`` and ``grad_weight`` — so a call picks one module and uses it for the
forward and, later, for the backward of that same call (a module may also define
``prepare_grad_output(δ, weight_shape, stride, groups)``, run once before the two gradient
functions, to lay δ out the way both of them read it)::

    with conv_algorithm("rot180"):
        y = conv(x)          # forward by rot180; y.backward() will also use rot180
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from minigrad.ops.conv import algo_im2col, algo_naive, algo_rot180

__all__ = ["ALGORITHMS", "conv_algorithm", "get_conv_algorithm", "resolve_algorithm"]

ALGORITHMS: dict[str, ModuleType] = {"im2col": algo_im2col, "rot180": algo_rot180, "naive": algo_naive}

_current = "im2col"


def _check(name: str) -> str:
    if name not in ALGORITHMS:
        raise ValueError(f"unknown convolution algorithm {name!r}; expected one of "
                         f"{', '.join(repr(n) for n in ALGORITHMS)}")
    return name


def get_conv_algorithm() -> str:
    """The algorithm a convolution called now, without ``algorithm=``, will use."""
    return _current


@contextmanager
def conv_algorithm(name: str) -> Iterator[str]:
    """Within the ``with`` block, convolutions default to ``name``; the previous default returns after."""
    global _current
    previous, _current = _current, _check(name)
    try:
        yield name
    finally:
        _current = previous


def resolve_algorithm(name: str | None) -> str:
    """``name`` checked, or the current default when None — decided when the forward runs."""
    return _current if name is None else _check(name)
