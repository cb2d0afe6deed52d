"""Which convolution algorithm runs: ``'im2col'`` (default), ``'im2col_tuned'``, ``'rot180'``, ``'naive'``.

    'im2col'         algo_im2col.py         cols = im2col(x), Y = W·cols, dW = δ·colsᵀ, dx = col2im(Wᵀ·δ)
    'im2col_tuned'   algo_im2col_tuned.py   the same formulas in cache-sized bands (large layers; any, opt-in)
    'rot180'         algo_rot180.py         dx = δ ∗ rot180(W), as correlations with a flipped kernel
    'naive'          algo_naive.py          the definition, in loops over every output value

(``'im2col_plain'``, the plain file's former name, still selects ``'im2col'``.) Two kinds of
layer that ``'im2col'`` computes badly as whole matrices go to labelled files of their own, the
same formulas laid out for the processor (:func:`algorithm_functions` decides): depthwise layers
to ``depthwise.py``, and layers whose column matrix is larger than ``BANDED_FROM_BYTES`` to
``algo_im2col_tuned.py``'s bands. A call picks its functions when its forward runs and uses them
for that call's backward too::

    with conv_algorithm("rot180"):
        y = conv(x)          # forward by rot180; y.backward() will also use rot180

Every algorithm is four array functions of its file (``settings`` is
``stride, padding, dilation, groups``), listed by name in ``ALGORITHMS`` below::

    forward(x, weight, *settings) -> (y, saved)
    prepare_grad_output(δ, weight_shape, stride, groups) -> δ      # once, before the two below
    grad_weight(x, δ, weight_shape, *settings, saved=None) -> dW  # saved: its forward's
    grad_input(δ, W, input_shape, *settings) -> dx

``saved`` is whatever the forward computed that ``grad_weight`` needs again (the columns, the
padded input), or None when ``grad_weight`` runs without that forward (``nn.grad``).
``prepare_grad_output`` lays δ out as both gradient functions read it (the same values); most
return it unchanged. To add an algorithm, write such a file and add its functions to
``ALGORITHMS``: every test that walks ``ALGORITHMS`` then checks it against PyTorch and the others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from minigrad.ops.conv import algo_im2col, algo_im2col_tuned, algo_naive, algo_rot180, depthwise
from minigrad.ops.conv.geometry import Pair, output_shape

__all__ = ["ALGORITHMS", "Algorithm", "conv_algorithm", "get_conv_algorithm", "resolve_algorithm",
           "check_algorithm", "algorithm_functions", "column_bytes", "is_depthwise"]


class Algorithm(NamedTuple):
    """The four array functions of one way to compute a convolution."""

    forward: Callable[..., tuple]
    prepare_grad_output: Callable[..., Any]
    grad_weight: Callable[..., Any]
    grad_input: Callable[..., Any]


ALGORITHMS: dict[str, Algorithm] = {
    "im2col": Algorithm(algo_im2col.forward, algo_im2col.prepare_grad_output, algo_im2col.grad_weight,
                        algo_im2col.grad_input),
    "im2col_tuned": Algorithm(algo_im2col_tuned.forward, algo_im2col_tuned.prepare_grad_output,
                              algo_im2col_tuned.grad_weight, algo_im2col_tuned.grad_input),
    "rot180": Algorithm(algo_rot180.forward, algo_rot180.prepare_grad_output, algo_rot180.grad_weight,
                        algo_rot180.grad_input),
    "naive": Algorithm(algo_naive.forward, algo_naive.prepare_grad_output, algo_naive.grad_weight,
                       algo_naive.grad_input),
}
# The default's path for depthwise convolutions (one input channel per group, stride 1).
DEPTHWISE = Algorithm(depthwise.forward, depthwise.prepare_grad_output, depthwise.grad_weight,
                      depthwise.grad_input)
# The default's path for layers whose column matrix is larger than this: bands of it, each made and
# multiplied while in the cache. A matrix this large goes out to memory and back between im2col and
# each product, and glibc's allocator maps it afresh on every call, pages the system must zero
# (docs/performance.md, "The worst shapes").
BANDED_FROM_BYTES = 16 << 20
# Names that selected an algorithm before, and what they select now.
FORMER_NAMES = {"im2col_plain": "im2col"}

_current = "im2col"


def check_algorithm(name: str) -> str:
    """``name`` as a key of ``ALGORITHMS`` (a former name mapped); ValueError for an unknown one."""
    name = FORMER_NAMES.get(name, name)
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

    ``name``: ``'im2col'`` (the default outside any block: ``algo_im2col.py``),
    ``'im2col_tuned'`` (the same formulas in bands, ``algo_im2col_tuned.py``), ``'rot180'`` or ``'naive'``.
    """
    global _current
    previous, _current = _current, check_algorithm(name)
    try:
        yield _current
    finally:
        _current = previous


def resolve_algorithm(name: str | None) -> str:
    """``name`` checked, or the current default when None — decided when the forward runs."""
    return _current if name is None else check_algorithm(name)


def algorithm_functions(name: str, input_shape: tuple, weight_shape: tuple, settings: tuple,
                        itemsize: int) -> Algorithm:
    """The functions that compute algorithm ``name`` for a call with these shapes and ``settings``
    (stride, padding, dilation, groups) on numbers of ``itemsize`` bytes.

    The one place where the default ``'im2col'`` hands a layer to a file of its own: a depthwise
    convolution (one input channel per group, stride 1) to ``depthwise.py``, a layer whose column
    matrix is larger than ``BANDED_FROM_BYTES`` to ``algo_im2col_tuned.py``. The choice depends on
    the shapes only, so the forward and the gradients of one call make the same one.
    """
    if name != "im2col":
        return ALGORITHMS[name]
    if is_depthwise(weight_shape, settings[3], settings[0]):
        return DEPTHWISE
    if column_bytes(input_shape, weight_shape, settings, itemsize) > BANDED_FROM_BYTES:
        return ALGORITHMS["im2col_tuned"]
    return ALGORITHMS["im2col"]


def column_bytes(input_shape: tuple, weight_shape: tuple, settings: tuple, itemsize: int) -> int:
    """The size of im2col's column matrix, (C_in·kh·kw) × (H_out·W_out·N) numbers of ``itemsize`` bytes."""
    stride, padding, dilation, _ = settings
    h_out, w_out = output_shape(input_shape, tuple(weight_shape[2:]), stride, padding, dilation)
    return input_shape[1] * weight_shape[2] * weight_shape[3] * h_out * w_out * input_shape[0] * itemsize


def is_depthwise(weight_shape: tuple, groups: int, stride: Pair) -> bool:
    """What ``depthwise.py`` handles: one input channel per group, several groups, stride 1."""
    return groups > 1 and weight_shape[1] == 1 and tuple(stride) == (1, 1)
