"""``scatter_reduce``: src's values reduced into input where ``index`` points, by 'sum', 'prod', 'mean',
'amax' or 'amin' (``include_self``: input's value takes part).

For dim 0: ``out[index[i][j]][j] = reduce(input[index[i][j]][j] (if include_self), every src[i'][j] with
index[i'][j] = index[i][j])``. The values meeting at one position are reduced without ``ufunc.at`` (which
CuPy lacks for most reductions): sorted by position, then combined by a segmented doubling scan (log₂ n
passes), whose last element in each run of one position is that run's reduction.

The gradients (PyTorch's):

    sum:   dinput = dout (0 where written, without include_self),   dsrc = dout.gather(dim, index)
    mean:  the same, divided by the number N of values that met there
    amax, amin:  dout shared evenly among the values equal to the result (input's and src's)
    prod:  dinput = dout · out / input,  dsrc = dout.gather · out.gather / src  (zeros handled apart)
"""

# ruff: noqa: A002  (``input`` is PyTorch's argument name)

from __future__ import annotations

from typing import Any

from minigrad._arguments import bool_argument
from minigrad.autograd.function import Function
from minigrad.backend import get_array_module
from minigrad.ops import inplace as _inplace
from minigrad.ops._checks import scatter as checks
from minigrad.ops._util import ieee_results, not_implemented_for
from minigrad.ops.elementwise import where
from minigrad.ops.scatter import _at_least_1d, _grid_key, _integer, _leading_block, gather, scatter_add
from minigrad.tensor import Tensor

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _combine(xp: Any, reduce: str) -> Any:
    ufuncs = {"sum": xp.add, "mean": xp.add, "prod": xp.multiply, "amax": xp.maximum, "amin": xp.minimum}
    return ufuncs[reduce]


def _segment_reduce(xp: Any, combine: Any, positions: Any, values: Any) -> tuple:
    """(the distinct positions, the reduction of the values at each, how many values each had)."""
    order = xp.argsort(positions, kind="stable")
    positions, running = positions[order], values[order].copy()
    n, shift = positions.size, 1
    while shift < n:  # running[i] = combine(running[i − shift], running[i]) within one position's run
        same = positions[shift:] == positions[:-shift]
        combined = combine(running[:-shift], running[shift:])
        running[shift:] = xp.where(same, combined, running[shift:])
        shift *= 2
    last = xp.ones(n, dtype=bool)
    last[:-1] = positions[1:] != positions[:-1]
    ends = xp.nonzero(last)[0]
    counts = xp.diff(xp.concatenate([xp.zeros(1, dtype=ends.dtype) - 1, ends]))
    return positions[last], running[last], counts


class ScatterReduce(Function):
    """out = input with src reduced into it at ``index`` along ``dim`` (see the module's docstring)."""

    @staticmethod
    def forward(ctx, a, index, src, dim, reduce, include_self):
        xp = get_array_module(a)
        out = _at_least_1d(a.array).copy()
        flat = out.reshape(-1)
        counts = (xp.ones if include_self else xp.zeros)(flat.shape, dtype=flat.dtype)
        index_1d = _at_least_1d(index.array)
        if index_1d.size:
            where_to = xp.arange(out.size).reshape(out.shape)[_grid_key(index_1d, dim)].reshape(-1)
            values = _at_least_1d(src.array)[_leading_block(index_1d.shape)].reshape(-1)
            combine = _combine(xp, reduce)
            if reduce == "mean" and flat.dtype.kind == "b":
                raise not_implemented_for("scatter_gather_tensor_cpu_reduce_mean", a)
            with ieee_results():
                positions, reduced, count = _segment_reduce(xp, combine, where_to, values.astype(flat.dtype))
                flat[positions] = combine(flat[positions], reduced) if include_self else reduced
                counts[positions] = counts[positions] + count
                if reduce == "mean":
                    if flat.dtype.kind == "f":
                        flat[positions] = flat[positions] / counts[positions]
                    else:  # integers: PyTorch's mean rounds down
                        flat[positions] = flat[positions] // counts[positions]
        ctx.dim, ctx.reduce, ctx.include_self = dim, reduce, include_self
        ctx.counts = counts.reshape(a.array.shape)
        result = Tensor(out.reshape(a.array.shape))
        ctx.save_for_backward(a, index, src, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, index, src, result = ctx.saved_tensors
        dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
        xp = get_array_module(grad.array)
        written = _written(xp, a, index, dim)
        grad_a = grad_src = None
        if reduce in ("sum", "mean"):
            share = grad
            if reduce == "mean":
                share = grad / Tensor(xp.maximum(ctx.counts, 1).astype(grad.array.dtype))
            grad_a = share if include_self else where(written, 0.0, share)
            grad_src = gather(share, dim, index)
        elif reduce in ("amax", "amin"):
            self_is_result = Tensor((a.array == result.array) & (include_self | ~written.array))
            src_is_result = src == gather(result, dim, index)
            count = scatter_add(self_is_result.to(grad.dtype), dim, index, src_is_result.to(grad.dtype))
            share = grad / count
            grad_a = where(self_is_result, share, 0.0)
            grad_src = where(src_is_result, gather(share, dim, index), 0.0)
        else:  # prod: the product of all the others, also where one of them is 0
            ones = Tensor(xp.ones((), dtype=a.array.dtype))
            a_zero = Tensor(a.array == 0)
            masked_a = where(a_zero, ones, a)
            others_of_a = ScatterReduce.apply(masked_a, index, src, dim, "prod", include_self)
            grad_a = grad * others_of_a / masked_a
            if not include_self:
                grad_a = where(written, 0.0, grad)
            src_zero = src.array == 0
            zeros_there = scatter_add(Tensor(xp.zeros(a.shape, dtype=grad.array.dtype)), dim, index,
                                      Tensor(src_zero.astype(grad.array.dtype)))
            single_zero = Tensor(src_zero & (gather(zeros_there, dim, index).array == 1))
            others_of_zero = ScatterReduce.apply(a, index, where(single_zero, ones, src), dim, "prod",
                                                 include_self)
            grad_src = where(single_zero, gather(grad * others_of_zero, dim, index),
                             gather(grad * result, dim, index) / where(Tensor(src_zero), ones, src))
        return grad_a, None, grad_src, None, None, None


def _written(xp: Any, a: Tensor, index: Tensor, dim: int) -> Tensor:
    """True at the positions of ``a`` that ``index`` points to."""
    hit = _at_least_1d(xp.zeros(a.shape, dtype=bool))
    index_1d = _at_least_1d(index.array)
    if index_1d.size:
        hit[_grid_key(index_1d, dim)] = True
    return Tensor(hit.reshape(a.array.shape))


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """A copy of ``input`` with ``src``'s values reduced into it where ``index`` points along ``dim``
    (``reduce``: 'sum', 'prod', 'mean', 'amax' or 'amin'); shapes and dtypes as for ``scatter``."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch's older names, still accepted
    if reduce not in REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    include_self = bool_argument(include_self, "scatter_reduce", "include_self")
    checks.check_src_type("scatter_reduce", src)
    dim = checks.check_scatter("scatter_reduce", input, dim, index, src)
    return ScatterReduce.apply(input, _integer(index), src, dim, reduce, include_self)


def scatter_reduce_(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    def compute(t: Tensor) -> Tensor:
        return scatter_reduce(t, dim, index, src, reduce, include_self=include_self)

    return _inplace.apply(input, "scatter_reduce_", compute, src)
