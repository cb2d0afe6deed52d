"""Module-level functions that mirror Tensor methods, as PyTorch's ``torch.sum`` ... ``torch.where``.

Each name is the function a Tensor method calls, from :mod:`minigrad.ops`; those whose first
argument must be a Tensor check it, so ``mg.exp(2.0)`` is PyTorch's TypeError.
"""
# ruff: noqa: A001  (PyTorch's names: sum, max, min, abs, pow shadow builtins here on purpose)

from __future__ import annotations

import builtins
import functools
import types
import warnings
from collections.abc import Callable
from typing import Any, TypeVar, cast

from minigrad.autograd.grad_mode import is_grad_enabled, no_grad
from minigrad.ops import (
    activations,
    arithmetic,
    comparison,
    elementwise,
    extremes,
    linalg,
    reduction,
    rounding,
)
from minigrad.ops import arrange as _arrange
from minigrad.ops import counting as _counting
from minigrad.ops import distance as _distance
from minigrad.ops import histogram as _histogram_ops
from minigrad.ops import joining as _joining
from minigrad.ops import masking as _masking
from minigrad.ops import matrices as _matrices
from minigrad.ops import pointwise as _pointwise
from minigrad.ops import rearrange as _rearrange
from minigrad.ops import sampling as _sampling
from minigrad.ops import scan as _scan
from minigrad.ops import scatter as _scatter_ops
from minigrad.ops import scatter_reduce as _scatter_reduce
from minigrad.ops import selection as _selection
from minigrad.ops import shape as shape_ops
from minigrad.ops import softmax as softmax_ops
from minigrad.ops import sorting as _sorting
from minigrad.ops import special as _special
from minigrad.ops import statistics as _statistics
from minigrad.ops import strided as _strided
from minigrad.ops._util import TORCH_TYPE_NAMES
from minigrad.tensor import Tensor, _required_dim, numpy_keywords

_F = TypeVar("_F", bound=Callable[..., Any])


def _on_tensor(function: _F) -> _F:
    """``function`` with PyTorch's TypeError when its first argument (``input``) is not a Tensor."""
    @functools.wraps(function)
    def checked(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 (PyTorch's name)
        if not isinstance(input, Tensor):
            raise TypeError(f"{function.__name__}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return function(input, *args, **kwargs)
    return cast(_F, checked)


def _writing_out(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` with PyTorch's ``out=``: the result is written into ``out`` (resized if its shape
    differs), which is returned. Not differentiable, so no argument may require grad."""
    @functools.wraps(function)
    def writing(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
        if out is None:
            return function(*args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{function.__name__}(): argument 'out' must be Tensor, not {type(out).__name__}")
        tensors = _tensors_in((*args, *kwargs.values(), out))
        if is_grad_enabled() and builtins.any(t.requires_grad for t in tensors):  # ``any`` is PyTorch's here
            raise RuntimeError(f"{function.__name__}(): functions with out=... arguments don't support "
                               f"automatic differentiation, but one of the arguments requires grad.")
        result = function(*args, **kwargs)
        if _CATEGORY[_kind(result.dtype)] > _CATEGORY[_kind(out.dtype)]:
            raise RuntimeError(f"result type {TORCH_TYPE_NAMES[result.dtype.name]} can't be cast to the "
                               f"desired output type {TORCH_TYPE_NAMES[out.dtype.name]}")
        if out.shape != result.shape:
            if out.numel():
                warnings.warn(f"An output with one or more elements was resized since it had shape "
                              f"{list(out.shape)}, which does not match the required output shape "
                              f"{list(result.shape)}.", UserWarning, stacklevel=2)
            out.data = result.to(out.dtype)
        else:
            with no_grad():
                out.copy_(result)
        return out
    return writing


_CATEGORY = {"bool": 0, "integer": 1, "floating": 2}


def _kind(dtype: Any) -> str:
    return "floating" if dtype.is_floating_point else "bool" if dtype.name == "bool" else "integer"


def _tensors_in(values: tuple) -> list:
    """The Tensors among ``values``, also inside lists and tuples (``cat([a, b], out=c)``)."""
    found = []
    for value in values:
        if isinstance(value, Tensor):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(_tensors_in(tuple(value)))
    return found


# arithmetic
add = _writing_out(arithmetic.add)
sub = subtract = _writing_out(arithmetic.sub)
mul = multiply = _writing_out(arithmetic.mul)
div = divide = _writing_out(arithmetic.div)
pow = _writing_out(arithmetic.pow)
neg = _writing_out(arithmetic.neg)
floor_divide = _writing_out(arithmetic.floor_divide)
remainder = _writing_out(arithmetic.remainder)
true_divide = _writing_out(arithmetic.div)

# elementwise functions
abs = _writing_out(_on_tensor(elementwise.abs))
exp = _writing_out(_on_tensor(elementwise.exp))
log = _writing_out(_on_tensor(elementwise.log))
sqrt = _writing_out(_on_tensor(elementwise.sqrt))
sin = _writing_out(_on_tensor(elementwise.sin))
cos = _writing_out(_on_tensor(elementwise.cos))
tanh = _writing_out(_on_tensor(activations.tanh))
sigmoid = _writing_out(_on_tensor(activations.sigmoid))
relu = _on_tensor(activations.relu)
clamp = clip = _writing_out(_on_tensor(rounding.clamp))
maximum = _writing_out(elementwise.maximum)
minimum = _writing_out(elementwise.minimum)
where = _writing_out(elementwise.where)

# reductions
sum = _writing_out(numpy_keywords(_on_tensor(reduction.sum)))
mean = _writing_out(numpy_keywords(_on_tensor(reduction.mean)))
var = _writing_out(numpy_keywords(_on_tensor(reduction.var)))
std = _writing_out(numpy_keywords(_on_tensor(reduction.std)))
max = numpy_keywords(_on_tensor(extremes.max))
min = numpy_keywords(_on_tensor(extremes.min))
amax = _writing_out(numpy_keywords(_on_tensor(extremes.amax)))
amin = _writing_out(numpy_keywords(_on_tensor(extremes.amin)))
argmax = _writing_out(numpy_keywords(_on_tensor(extremes.argmax)))
argmin = _writing_out(numpy_keywords(_on_tensor(extremes.argmin)))

# more math: rounding, logs, trigonometry, nan handling, reductions and products
sign = _writing_out(_on_tensor(rounding.sign))
round = _writing_out(_on_tensor(rounding.round))
floor = _writing_out(_on_tensor(rounding.floor))
ceil = _writing_out(_on_tensor(rounding.ceil))
trunc = fix = _writing_out(_on_tensor(rounding.trunc))
log1p = _writing_out(_on_tensor(elementwise.log1p))
expm1 = _writing_out(_on_tensor(elementwise.expm1))
square = _writing_out(_on_tensor(elementwise.square))
rsqrt = _writing_out(_on_tensor(elementwise.rsqrt))
reciprocal = _writing_out(_on_tensor(elementwise.reciprocal))
tan = _writing_out(_on_tensor(elementwise.tan))
asin = arcsin = _writing_out(_on_tensor(elementwise.asin))
acos = arccos = _writing_out(_on_tensor(elementwise.acos))
atan = arctan = _writing_out(_on_tensor(elementwise.atan))
atan2 = arctan2 = _writing_out(_on_tensor(elementwise.atan2))
sinh = _writing_out(_on_tensor(elementwise.sinh))
cosh = _writing_out(_on_tensor(elementwise.cosh))
log2 = _writing_out(_on_tensor(elementwise.log2))
log10 = _writing_out(_on_tensor(elementwise.log10))
erf = _writing_out(_on_tensor(elementwise.erf))
clamp_min = _writing_out(_on_tensor(rounding.clamp_min))
clamp_max = _writing_out(_on_tensor(rounding.clamp_max))
nan_to_num = _writing_out(_on_tensor(elementwise.nan_to_num))
lerp = _writing_out(_on_tensor(elementwise.lerp))
isinf = _on_tensor(comparison.isinf)
prod = _writing_out(numpy_keywords(_on_tensor(reduction.prod)))
cumsum = _writing_out(numpy_keywords(_on_tensor(_scan.cumsum)))
logsumexp = _writing_out(numpy_keywords(_on_tensor(extremes.logsumexp)))
norm = _on_tensor(_distance.norm)
all = _writing_out(numpy_keywords(_on_tensor(comparison.all)))
any = _writing_out(numpy_keywords(_on_tensor(comparison.any)))
dot = _writing_out(_on_tensor(linalg.dot))
outer = ger = _writing_out(_on_tensor(linalg.outer))
bmm = _writing_out(_on_tensor(linalg.bmm))
addmm = _writing_out(_on_tensor(linalg.addmm))
einsum = linalg.einsum
matrix_power = _on_tensor(linalg.matrix_power)


@numpy_keywords
@_on_tensor
def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:  # noqa: A002 (no implicit dim, as PyTorch)
    return softmax_ops.softmax(input, _required_dim(dim, "softmax"), dtype)


@numpy_keywords
@_on_tensor
def log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:  # noqa: A002
    return softmax_ops.log_softmax(input, _required_dim(dim, "log_softmax"), dtype)


# matrices and shapes
matmul = _writing_out(_on_tensor(linalg.matmul))
mm = _writing_out(_on_tensor(linalg.mm))
reshape = _on_tensor(shape_ops.reshape)
flatten = _on_tensor(shape_ops.flatten)
squeeze = numpy_keywords(_on_tensor(shape_ops.squeeze))
unsqueeze = numpy_keywords(_on_tensor(shape_ops.unsqueeze))
permute = _on_tensor(shape_ops.permute)
transpose = _on_tensor(shape_ops.transpose)
t = _on_tensor(shape_ops.t)
cat = concat = concatenate = _writing_out(numpy_keywords(_joining.cat))
stack = _writing_out(numpy_keywords(_joining.stack))

# pieces, rearrangements, picks and sorting
chunk = _on_tensor(_joining.chunk)
split = _on_tensor(_joining.split)
unbind = _on_tensor(_joining.unbind)
narrow = _on_tensor(_joining.narrow)
movedim = moveaxis = _on_tensor(shape_ops.movedim)
swapaxes = swapdims = _on_tensor(shape_ops.swapaxes)
broadcast_to = _on_tensor(shape_ops.broadcast_to)
flip = _on_tensor(_rearrange.flip)
roll = _on_tensor(_rearrange.roll)
repeat_interleave = _on_tensor(_rearrange.repeat_interleave)
index_select = _writing_out(_on_tensor(_selection.index_select))
masked_fill = _on_tensor(_selection.masked_fill)
tril = _writing_out(_on_tensor(_selection.tril))
triu = _writing_out(_on_tensor(_selection.triu))
diag = _writing_out(_on_tensor(_selection.diag))
as_strided = _on_tensor(_strided.as_strided)
hstack = _writing_out(_joining.hstack)
vstack = _writing_out(_joining.vstack)
sort = _on_tensor(_sorting.sort)
argsort = _on_tensor(_sorting.argsort)
topk = _on_tensor(_sorting.topk)

# gather and scatter along one dimension
gather = _writing_out(_on_tensor(_scatter_ops.gather))
scatter = _writing_out(_on_tensor(_scatter_ops.scatter))
scatter_add = _writing_out(_on_tensor(_scatter_ops.scatter_add))

# sampling and counting (no gradient)
_multinomial = _writing_out(_sampling.multinomial)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,  # noqa: A002
                generator: Any = None, out: Tensor | None = None) -> Tensor:
    """Category indices drawn from rows of weights (see :func:`minigrad.ops.sampling.multinomial`)."""
    if isinstance(out, Tensor) and out.dtype.name != "int64":
        raise RuntimeError(f"multinomial expects Long tensor out, got: {TORCH_TYPE_NAMES[out.dtype.name]}")
    return _multinomial(input, num_samples, replacement, generator=generator, out=out)


histc = _writing_out(_on_tensor(_histogram_ops.histc))
histogram = _on_tensor(_histogram_ops.histogram)

# comparisons (bool results, no gradient)
eq = _writing_out(_on_tensor(comparison.eq))
ne = _writing_out(_on_tensor(comparison.ne))
lt = _writing_out(_on_tensor(comparison.lt))
le = _writing_out(_on_tensor(comparison.le))
gt = _writing_out(_on_tensor(comparison.gt))
ge = _writing_out(_on_tensor(comparison.ge))
equal = comparison.equal
allclose = comparison.allclose
isclose = comparison.isclose
isnan = comparison.isnan
isfinite = comparison.isfinite
logical_not = comparison.logical_not
logical_and = _on_tensor(comparison.logical_and)
logical_or = _on_tensor(comparison.logical_or)
logical_xor = _on_tensor(comparison.logical_xor)
mv = _writing_out(_on_tensor(linalg.mv))
index_add = _on_tensor(_scatter_ops.index_add)
nonzero = comparison.nonzero


# Scans, order statistics, counting, arranging, masked selection, pointwise and special functions,
# and the rest of linear algebra (their files in minigrad.ops are named below).
cumprod = _writing_out(_scan.cumprod)
cummax = _scan.cummax
cummin = _scan.cummin
logcumsumexp = _writing_out(_scan.logcumsumexp)
diff = _writing_out(_scan.diff)
median = _statistics.median
nanmedian = _statistics.nanmedian
kthvalue = _statistics.kthvalue
mode = _statistics.mode
quantile = _writing_out(_statistics.quantile)
nanquantile = _writing_out(_statistics.nanquantile)
nanmean = _writing_out(_statistics.nanmean)
std_mean = _statistics.std_mean
var_mean = _statistics.var_mean
aminmax = _statistics.aminmax
unique = _counting.unique
unique_consecutive = _counting.unique_consecutive
bincount = _counting.bincount
count_nonzero = _counting.count_nonzero
argwhere = _counting.argwhere
searchsorted = _writing_out(_counting.searchsorted)
bucketize = _writing_out(_counting.bucketize)
tile = _arrange.tile
rot90 = _arrange.rot90
meshgrid = _arrange.meshgrid
cartesian_prod = _arrange.cartesian_prod
block_diag = _arrange.block_diag
kron = _writing_out(_arrange.kron)
masked_select = _writing_out(_masking.masked_select)
masked_scatter = _masking.masked_scatter
take = _writing_out(_masking.take)
put = _masking.put
index_put = _masking.index_put
index_put_ = _masking.index_put_
select = _masking.select
index_fill = _masking.index_fill
bitwise_not = comparison.bitwise_not


def bitwise_and(input: Any, other: Any) -> Tensor:  # noqa: A002 (PyTorch's name)
    return comparison.logical_binary("bitwise_and", input, other)


def bitwise_or(input: Any, other: Any) -> Tensor:  # noqa: A002
    return comparison.logical_binary("bitwise_or", input, other)


def bitwise_xor(input: Any, other: Any) -> Tensor:  # noqa: A002
    return comparison.logical_binary("bitwise_xor", input, other)


scatter_reduce = _writing_out(_scatter_reduce.scatter_reduce)
fmod = _writing_out(_pointwise.fmod)
frac = _writing_out(_pointwise.frac)
sgn = _writing_out(_pointwise.sgn)
signbit = _writing_out(_pointwise.signbit)
heaviside = _writing_out(_pointwise.heaviside)
addcmul = _writing_out(_pointwise.addcmul)
addcdiv = _writing_out(_pointwise.addcdiv)
lgamma = _writing_out(_special.lgamma)
digamma = _writing_out(_special.digamma)
polygamma = _writing_out(_special.polygamma)
erfinv = _writing_out(_special.erfinv)
trace = _matrices.trace
det = _matrices.det
inverse = _writing_out(_matrices.inverse)
cross = _writing_out(_matrices.cross)
addmv = _writing_out(_matrices.addmv)
baddbmm = _writing_out(_matrices.baddbmm)
vdot = _writing_out(_matrices.vdot)
inner = _writing_out(_matrices.inner)
tensordot = _matrices.tensordot
cdist = _distance.cdist


def view_as(a: Tensor, other: Tensor) -> Tensor:
    return a.view_as(other)


def reshape_as(a: Tensor, other: Tensor) -> Tensor:
    return a.reshape_as(other)


def type_as(a: Tensor, other: Tensor) -> Tensor:
    return a.type_as(other)


def expand(a: Tensor, *sizes: Any) -> Tensor:
    return shape_ops.expand(a, *sizes)


def clone(a: Tensor) -> Tensor:
    return a.clone()


def numel(a: Tensor) -> int:
    return a.numel()


def is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


def is_floating_point(input: Tensor) -> bool:  # noqa: A002 (PyTorch's name)
    return _on_tensor(Tensor.is_floating_point)(input)


# Every function defined or named here; not the modules and helpers imported to write them.
__all__ = [name for name, value in list(globals().items()) if not name.startswith("_")
           and not isinstance(value, types.ModuleType)
           and name not in ("annotations", "Any", "Callable", "Tensor", "numpy_keywords", "is_grad_enabled",
                            "no_grad", "TORCH_TYPE_NAMES")]
