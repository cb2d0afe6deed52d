"""Which convolution algorithm runs: ``'im2col'`` (default), ``'im2col_plain'``, ``'rot180'``, ``'naive'``.

    'im2col'         algo_im2col_tuned.py   the plain file's formulas in cache-sized bands (fast)
    'im2col_plain'   algo_im2col.py         cols = im2col(x), Y = W·cols, dW = δ·colsᵀ, dx = col2im(Wᵀ·δ)
    'rot180'         algo_rot180.py         dx = δ ∗ rot180(W), as correlations with a flipped kernel
    'naive'          algo_naive.py          the definition, in loops over every output value

A call picks one module when its forward runs (``algorithm_module``) and uses it for that
call's backward too::

    with conv_algorithm("rot180"):
        y = conv(x)          # forward by rot180; y.backward() will also use rot180

Every algorithm module has the same four array functions (``settings`` is
``stride, padding, dilation, groups``)::

    forward(x, weight, *settings) -> (y, saved)
    prepare_grad_output(δ, weight_shape, stride, groups) -> δ      # once, before the two below
    grad_weight(x, δ, weight_shape, *settings, saved=None) -> dW  # saved: this module's forward's
    grad_input(δ, weight, input_shape, *settings) -> dx

``saved`` is whatever the forward computed that ``grad_weight`` needs again (the columns, the
padded input), or None when ``grad_weight`` runs without that forward (``nn.grad``).
``prepare_grad_output`` lays δ out as both gradient functions read it; most modules return it
unchanged. To add an algorithm, write such a module and add it to ``ALGORITHMS`` below: every
test that walks ``ALGORITHMS`` then checks it against PyTorch and the others.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from minigrad.ops.conv import algo_im2col, algo_im2col_tuned, algo_naive, algo_rot180, depthwise
from minigrad.ops.conv.geometry import Pair

__all__ = ["ALGORITHMS", "conv_algorithm", "get_conv_algorithm", "resolve_algorithm", "algorithm_module"]

ALGORITHMS: dict[str, ModuleType] = {"im2col": algo_im2col_tuned, "im2col_plain": algo_im2col,
                                     "rot180": algo_rot180, "naive": algo_naive}

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
    """Within the ``with`` block, convolutions default to ``name``; the previous default returns after.

    ``name``: ``'im2col'`` (the default outside any block: ``algo_im2col_tuned.py``),
    ``'im2col_plain'`` (the same formulas as written, ``algo_im2col.py``), ``'rot180'`` or ``'naive'``.
    """
    global _current
    previous, _current = _current, _check(name)
    try:
        yield name
    finally:
        _current = previous


def resolve_algorithm(name: str | None) -> str:
    """``name`` checked, or the current default when None — decided when the forward runs."""
    return _current if name is None else _check(name)


def algorithm_module(name: str, weight_shape: tuple, stride: Pair, groups: int) -> ModuleType:
    """The module that computes algorithm ``name`` for a call with these settings.

    The one place where the depthwise path is chosen: the default ``'im2col'`` hands a
    depthwise convolution (one input channel per group, stride 1) to ``depthwise.py``.
    """
    if name == "im2col" and depthwise.is_depthwise(weight_shape, groups, stride):
        return depthwise
    return ALGORITHMS[name]
