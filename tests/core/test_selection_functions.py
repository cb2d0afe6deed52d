"""Issue 29's functions beyond the gradient table: counting and searching (``unique``, ``bincount``,
``searchsorted`` ...), dtypes of integer and bool inputs, empty and 0-d tensors, the special functions
at their poles, infinities and NaNs, and PyTorch's errors for misuse."""

from __future__ import annotations

import math
import warnings

import numpy
import pytest
from _reference import reference
from _torch import exception_class, exception_name, raises_like_torch

import minigrad as mg

from .helpers import assert_matches, outputs_of, to_numpy

A = numpy.array
NAN, INF = math.nan, math.inf


def _matches_torch(fn, *arrays):
    """fn(lib, *tensors) gives PyTorch's tensors (values, shapes, dtypes), or PyTorch's exception type."""
    def torch_result(torch):
        try:
            return {"out": outputs_of(fn(torch, *(torch.tensor(a) for a in arrays)))}
        except (RuntimeError, TypeError, IndexError, ValueError) as error:
            return {"error": exception_name(error)}

    theirs = reference(torch_result, inputs={"arrays": list(arrays)})
    if "error" in theirs:
        with pytest.raises(exception_class(theirs["error"])):
            fn(mg, *(mg.tensor(a) for a in arrays))
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = outputs_of(fn(mg, *(mg.tensor(a) for a in arrays)))
    assert len(ours) == len(theirs["out"])
    for k, (mine, expected) in enumerate(zip(ours, theirs["out"])):
        assert_matches(mine, expected, "float64", f"output {k}")


INTS = A([3, 1, 2, 3, 1, 5, 0, 5])
FLOATS = A([1.5, NAN, -0.0, 2.0, NAN, 1.5, -3.0])
ROWS = A([[1, 2], [1, 2], [0, 1], [3, 0], [0, 1]])

COUNTING = {
    "unique": (lambda m, a: m.unique(a), INTS),
    "unique_all": (lambda m, a: m.unique(a, return_inverse=True, return_counts=True), INTS),
    "unique_unsorted_flag": (lambda m, a: a.unique(sorted=False, return_counts=True), INTS),
    "unique_nan": (lambda m, a: m.unique(a, return_inverse=True), FLOATS),
    "unique_2d": (lambda m, a: m.unique(a, return_inverse=True), ROWS),
    "unique_dim0": (lambda m, a: m.unique(a, dim=0, return_inverse=True, return_counts=True), ROWS),
    "unique_dim1": (lambda m, a: a.unique(dim=1, return_counts=True), ROWS),
    "unique_bool": (lambda m, a: m.unique(a > 1), INTS),
    "unique_0d": (lambda m, a: m.unique(a[0], return_inverse=True), INTS),
    "unique_empty": (lambda m, a: m.unique(a[:0], return_counts=True), FLOATS),
    "unique_consecutive": (lambda m, a: m.unique_consecutive(a, return_inverse=True, return_counts=True),
                           A([1, 1, 2, 2, 3, 1, 1])),
    "unique_consecutive_dim": (lambda m, a: a.unique_consecutive(dim=0, return_counts=True), ROWS),
    "bincount": (lambda m, a: m.bincount(a), INTS),
    "bincount_minlength": (lambda m, a: a.bincount(minlength=9), INTS),
    "bincount_float32_weights": (lambda m, a: m.bincount(a, a.float() / 2), INTS),
    "bincount_float64_weights": (lambda m, a: m.bincount(a, a.double() / 2), INTS),
    "bincount_int_weights": (lambda m, a: m.bincount(a, weights=a), INTS),
    "bincount_empty": (lambda m, a: m.bincount(a[:0], minlength=3), INTS),
    "count_nonzero": (lambda m, a: m.count_nonzero(a), ROWS),
    "count_nonzero_dim": (lambda m, a: a.count_nonzero(0), ROWS),
    "count_nonzero_dims": (lambda m, a: m.count_nonzero(a, (0, 1)), ROWS),
    "argwhere": (lambda m, a: m.argwhere(a), ROWS),
    "argwhere_method_0d": (lambda m, a: a[0, 0].argwhere(), ROWS),
    "searchsorted": (lambda m, a, v: m.searchsorted(a, v), A([1, 3, 5, 7]), A([[3, 6, 9], [3, 4, 0]])),
    "searchsorted_right": (lambda m, a, v: m.searchsorted(a, v, right=True), A([1, 3, 3, 7]), A([3, 6, 9])),
    "searchsorted_side": (lambda m, a, v: m.searchsorted(a, v, side="right", out_int32=True), A([1., 3, 3]),
                          A([3., 0.5])),
    "searchsorted_rows": (lambda m, a, v: m.searchsorted(a, v, right=True), A([[1, 3, 5, 7], [2, 4, 6, 8]]),
                          A([[3, 6, 9], [3, 4, 7]])),
    "searchsorted_sorter": (lambda m, a, v: m.searchsorted(a, v, sorter=m.argsort(a)), A([5, 1, 7, 3]),
                            A([2, 6])),
    "searchsorted_number": (lambda m, a: m.searchsorted(a, 3.5), A([1.0, 3.0, 5.0])),
    "bucketize": (lambda m, v, b: m.bucketize(v, b), A([[1, 5], [3, 9]]), A([1, 3, 5, 7])),
    "bucketize_right": (lambda m, v, b: m.bucketize(v, b, right=True, out_int32=True), A([1, 5, 3, 9]),
                        A([1, 3, 5, 7])),
    "signbit": (lambda m, a: m.signbit(a), A([1.0, -0.0, 0.0, -2.0, INF, -INF])),
    "signbit_int": (lambda m, a: a.signbit(), INTS - 2),
    "heaviside": (lambda m, a, v: m.heaviside(a, v), A([-1.0, 0.0, 2.0, -0.0]), A([0.5])),
    "heaviside_method": (lambda m, a, v: a.heaviside(v), A([[-1.0, 0.0], [0.0, 3.0]]), A([0.25, 0.75])),
}


@pytest.mark.parametrize("name", sorted(COUNTING))
def test_counting_and_searching_as_pytorch(name):
    fn, *arrays = COUNTING[name]
    _matches_torch(fn, *arrays)


INTEGER_INPUTS = {
    "cumprod": lambda m, a: m.cumprod(a, 0), "cumprod_dtype": lambda m, a: a.cumprod(0, dtype=m.float64),
    "cummax": lambda m, a: m.cummax(a, 0), "cummin": lambda m, a: a.cummin(0),
    "logcumsumexp": lambda m, a: m.logcumsumexp(a, 0), "diff": lambda m, a: m.diff(a),
    "median": lambda m, a: m.median(a), "median_dim": lambda m, a: a.median(0),
    "nanmedian": lambda m, a: m.nanmedian(a), "kthvalue": lambda m, a: m.kthvalue(a, 2),
    "mode": lambda m, a: m.mode(a), "quantile": lambda m, a: m.quantile(a, 0.5),
    "nanmean": lambda m, a: m.nanmean(a), "aminmax": lambda m, a: m.aminmax(a),
    "tile": lambda m, a: m.tile(a, (2,)), "rot90": lambda m, a: m.rot90(a.reshape(2, 2)),
    "kron": lambda m, a: m.kron(a, a), "masked_select": lambda m, a: m.masked_select(a, a > 0),
    "take": lambda m, a: m.take(a, m.tensor([0, 3])), "fmod": lambda m, a: m.fmod(a, 3),
    "fmod_by_zero": lambda m, a: m.fmod(a, 0), "frac": lambda m, a: m.frac(a), "sgn": lambda m, a: m.sgn(a),
    "trace": lambda m, a: m.trace(a.reshape(2, 2)), "lgamma": lambda m, a: m.lgamma(a),
    "digamma": lambda m, a: m.digamma(a), "erfinv": lambda m, a: m.erfinv(a),
    "addcmul": lambda m, a: m.addcmul(a, a, a, value=2),
    "addcmul_float_value": lambda m, a: m.addcmul(a, a, a, value=0.5),
    "addcdiv": lambda m, a: m.addcdiv(a, a, a), "det": lambda m, a: m.det(a.reshape(2, 2)),
    "inverse": lambda m, a: m.inverse(a.reshape(2, 2)), "cross": lambda m, a: m.cross(a[:3], a[1:], dim=0),
    "inner": lambda m, a: m.inner(a, a), "tensordot": lambda m, a: m.tensordot(a, a, 1),
    "scatter_reduce_mean": lambda m, a: a.scatter_reduce(0, m.tensor([0, 0, 1]), a[1:], "mean"),
    "scatter_reduce_prod": lambda m, a: a.scatter_reduce(0, m.tensor([0, 0, 1]), a[1:], "prod"),
    "cdist": lambda m, a: m.cdist(a.reshape(2, 2), a.reshape(2, 2)),
}


@pytest.mark.parametrize("name", sorted(INTEGER_INPUTS))
@pytest.mark.parametrize("array", [A([-2, 0, 3, 7]), A([True, False, True, True])], ids=["int64", "bool"])
def test_integer_and_bool_inputs_as_pytorch(name, array):
    _matches_torch(INTEGER_INPUTS[name], array)


EDGES = {
    "cumprod_empty": (lambda m, a: m.cumprod(a[:0], 0), A([1.0])),
    "cumprod_0d": (lambda m, a: m.cumprod(a[0], 0), A([2.0])),
    "cummax_0d": (lambda m, a: m.cummax(a[0], -1), A([2.0])),
    "cummax_empty": (lambda m, a: m.cummax(a[:, :0], 1), A([[1.0]])),
    "cummax_nan": (lambda m, a: m.cummax(a, 0), A([1.0, NAN, 3.0, 0.0])),
    "cummin_nan": (lambda m, a: m.cummin(a, 0), A([1.0, 0.5, NAN, 0.0])),
    "logcumsumexp_infinities": (lambda m, a: m.logcumsumexp(a, 0), A([-INF, -INF, 0.0, INF, -1000.0])),
    "logcumsumexp_far_apart": (lambda m, a: m.logcumsumexp(a, 0), A([-1000.0, 0.0, 1000.0])),
    "diff_n0": (lambda m, a: m.diff(a, 0), A([1.0, 2.0])),
    "diff_too_many": (lambda m, a: m.diff(a, 3), A([1.0, 2.0])),
    "median_empty": (lambda m, a: m.median(a[:0]), A([1.0])),
    "median_0d": (lambda m, a: m.median(a[0]), A([2.0])),
    "median_0d_dim": (lambda m, a: m.median(a[0], 0), A([2.0])),
    "median_all_nan": (lambda m, a: m.median(a), A([1.0, NAN, 3.0])),
    "nanmedian_all_nan_rows": (lambda m, a: m.nanmedian(a, 1), A([[NAN, NAN], [1.0, NAN]])),
    "kthvalue_0d": (lambda m, a: m.kthvalue(a[0], 1), A([2.0])),
    "mode_0d": (lambda m, a: m.mode(a[0]), A([2.0])),
    "mode_ties_smallest": (lambda m, a: m.mode(a), A([3.0, 1.0, 2.0, 1.0, 3.0, 2.0])),
    "quantile_0d": (lambda m, a: m.quantile(a[0], 0.5), A([2.0])),
    "nanquantile_all_nan": (lambda m, a: m.nanquantile(a, 0.5, 1), A([[NAN, NAN], [1.0, NAN]])),
    "nanmean_all_nan": (lambda m, a: m.nanmean(a), A([NAN, NAN])),
    "aminmax_0d": (lambda m, a: m.aminmax(a[0]), A([2.0])),
    "tile_0d": (lambda m, a: m.tile(a[0], (2, 2)), A([2.0])),
    "tile_empty": (lambda m, a: m.tile(a, (0, 2)), A([[1.0, 2.0]])),
    "masked_select_0d": (lambda m, a: m.masked_select(a[0], a > 1), A([2.0, 0.5])),
    "masked_select_none": (lambda m, a: m.masked_select(a, a > 5), A([2.0, 0.5])),
    "take_empty_index": (lambda m, a: m.take(a, m.zeros(0, dtype=m.int64)), A([2.0, 0.5])),
    "meshgrid_0d": (lambda m, a: m.meshgrid(a[0], a, indexing="ij"), A([2.0, 0.5])),
    "meshgrid_one": (lambda m, a: m.meshgrid(a, indexing="xy"), A([2.0, 0.5])),
    "cartesian_prod_one": (lambda m, a: m.cartesian_prod(a), A([2.0, 0.5])),
    "block_diag_none": (lambda m, a: m.block_diag(), A([1.0])),
    "block_diag_mixed_dtypes": (lambda m, a: m.block_diag(a, a.long()), A([[1.5, 2.0]])),
    "kron_0d": (lambda m, a: m.kron(a[0], a), A([2.0, 3.0])),
    "det_empty": (lambda m, a: m.det(a.reshape(0, 0)), A([])),
    "inverse_empty_batch": (lambda m, a: m.inverse(a.reshape(0, 2, 2)), A([])),
    "trace_empty": (lambda m, a: m.trace(a.reshape(0, 3)), A([])),
    "fmod_special": (lambda m, a: m.fmod(a, 2.0), A([-3.5, -0.0, INF, NAN, 5.0])),
    "fmod_by_zero_float": (lambda m, a: m.fmod(a, 0.0), A([1.0, -1.0])),
    "frac_special": (lambda m, a: m.frac(a), A([-3.5, -0.0, 2.25, NAN])),
    "sgn_special": (lambda m, a: m.sgn(a), A([-3.5, -0.0, 0.0, NAN, INF])),
    "scatter_reduce_nan_amax": (lambda m, a: a.scatter_reduce(0, m.tensor([0, 0]), a[1:], "amax"),
                                A([1.0, NAN, 2.0])),
    "logspace": (lambda m, a: m.logspace(-2, 2, 5), A([1.0])),
    "logspace_base2_float64": (lambda m, a: m.logspace(0, 3, 4, base=2, dtype=m.float64), A([1.0])),
    "logspace_int": (lambda m, a: m.logspace(0, 2, 3, dtype=m.int64), A([1.0])),
    "logspace_one_step": (lambda m, a: m.logspace(1.5, 2, 1), A([1.0])),
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_empty_zero_d_and_non_finite_as_pytorch(name):
    fn, *arrays = EDGES[name]
    _matches_torch(fn, *arrays)


# lgamma and digamma at their poles, zeros of either sign, infinities, NaN, tiny and huge values
SPECIAL_EDGES = A([0.0, -0.0, -1.0, -2.0, -50.0, 1.0, 2.0, 0.5, -0.5, -2.5, 1e-300, 1e-8, 1e8, 1e300, 171.7,
                   -170.5, INF, -INF, NAN, 1.4616321449683622, 3.0000001])
ERFINV_EDGES = A([-1.0, 1.0, -0.0, 0.0, 1e-300, -1e-20, 0.5, 0.9999999999, 1 - 2.0 ** -52, -(1 - 2.0 ** -53),
                  1.0000001, -2.0, INF, NAN])


@pytest.mark.parametrize("name", ["lgamma", "digamma", "erfinv"])
def test_special_functions_at_the_edges(name):
    """Accurate to 1e-13 (relative) against PyTorch in float64, also at poles, ±0, ±inf and NaN."""
    points = ERFINV_EDGES if name == "erfinv" else SPECIAL_EDGES
    theirs = reference(lambda torch: getattr(torch, name)(torch.tensor(points)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = to_numpy(getattr(mg, name)(mg.tensor(points)))
    numpy.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-15)
    assert (numpy.signbit(ours) == numpy.signbit(theirs))[~numpy.isnan(ours)].all()


# digamma below 0, reflected (ψ(x) = ψ(1 − x) − π cot(πx)): far out, and beside the poles
DIGAMMA_NEGATIVE = {
    "float64": A([-1e6 + 0.5, -1e6 - 0.25, -123456.789, -1e15 - 0.5, -4503599627370495.5, -1e-8, -1 - 1e-9,
                  -2 - 1e-7, -0.5, -2.5, -20.7]),
    "float32": A([-1e6 + 0.5, -123456.79, -1e-6, -1 + 2.0 ** -20, -2 - 2.0 ** -19, -3 + 2.0 ** -21,
                  -50 + 2.0 ** -17, -0.5, -2.5, -20.7], dtype=numpy.float32),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_digamma_of_large_negative_x_and_near_the_poles(dtype):
    """Within 1e-13 in float64; in float32 PyTorch computes in float32 (a few ulps off, amplified
    beside a pole), minigrad in float64 and rounds."""
    points = DIGAMMA_NEGATIVE[dtype]
    theirs = reference(lambda torch: torch.digamma(torch.tensor(points)), inputs={"points": points})
    ours = to_numpy(mg.digamma(mg.tensor(points)))
    numpy.testing.assert_allclose(ours, theirs, rtol=1e-13 if dtype == "float64" else 1e-5)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_just_right_of_a_pole(n):
    """Just right of a pole −m, PyTorch's 1 / tan(π·frac(x)) loses digits (ψ(−3 + 2⁻⁴⁰) is 4.6e-5 off).
    The exact value: the recurrence ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁾(x + m) − (−1)ⁿ n! Σₖ₌₀^{m−1} 1/(x + k)^{n+1}
    from PyTorch's ψ⁽ⁿ⁾ at x + m, a small positive number (each x + k is exact here)."""
    points = A([-3 + 2.0 ** -40, -1 + 1e-9, -50 + 1e-6, -2.999999, -7.75])
    m = -numpy.floor(points)
    shifted = reference(lambda torch: torch.polygamma(n, torch.tensor(points + m)), inputs={"n": n})
    terms = [numpy.where(k < m, 1.0 / (points + k) ** (n + 1), 0.0) for k in range(50)]
    expected = shifted - (-1) ** n * math.factorial(n) * numpy.sum(terms, axis=0)
    rtol = 1e-9 if n == 1 else 1e-13  # PyTorch's trigamma: about 1e-10 (test_trigamma_against_pytorch...)
    numpy.testing.assert_allclose(to_numpy(mg.polygamma(n, mg.tensor(points))), expected, rtol=rtol)


def test_polygamma_far_below_zero():
    """ψ⁽ⁿ⁾ below 0 by reflection, at any distance: against PyTorch for n = 3 (its sum is accurate
    there); for n = 2 at x = −N + ½, where cot's second derivative is 0 and so ψ⁽²⁾(x) = ψ⁽²⁾(1 − x)
    (PyTorch's own sum loses digits far out: 1.5e-3 at −999999.5)."""
    points = A([-2.5, -0.3, -20.7, -10000.5, -12345.5, -999999.5])
    theirs = reference(lambda torch: torch.polygamma(3, torch.tensor(points)))
    numpy.testing.assert_allclose(to_numpy(mg.polygamma(3, mg.tensor(points))), theirs, rtol=1e-13)
    halves = A([-2.5, -10000.5, -12345.5, -999999.5])
    mirrored = reference(lambda torch: torch.polygamma(2, torch.tensor(1 - halves)))
    numpy.testing.assert_allclose(to_numpy(mg.polygamma(2, mg.tensor(halves))), mirrored, rtol=1e-14)


def test_special_functions_over_a_wide_range():
    """lgamma, digamma over (−30, 30) and decades up to 1e300; erfinv over (−1, 1) and towards ±1."""
    rng = numpy.random.default_rng(0)
    x = numpy.concatenate([rng.uniform(-30, 30, 2000), numpy.geomspace(1e-300, 1e300, 300)])
    y = numpy.concatenate([rng.uniform(-1, 1, 2000), 1 - numpy.geomspace(1e-16, 0.5, 100)])
    for name, points in (("lgamma", x), ("digamma", x), ("erfinv", y)):
        theirs = reference(lambda torch, n=name, p=points: getattr(torch, n)(torch.tensor(p)),
                           inputs={"points": points})
        numpy.testing.assert_allclose(to_numpy(getattr(mg, name)(mg.tensor(points))), theirs, rtol=1e-12,
                                      atol=1e-14, err_msg=name)
    for name, points in (("lgamma", x), ("erfinv", y)):  # float32: computed in float64, rounded
        points = points[numpy.abs(points) < 1e38].astype(numpy.float32)
        theirs = reference(lambda torch, n=name, p=points: getattr(torch, n)(torch.tensor(p)),
                           inputs={"points": points})
        numpy.testing.assert_allclose(to_numpy(getattr(mg, name)(mg.tensor(points))), theirs, rtol=3e-6,
                                      atol=1e-6, err_msg=name)


def test_trigamma_against_pytorch_where_pytorchs_is_accurate():
    """ψ⁽¹⁾ (digamma's derivative): PyTorch's trigamma is accurate to about 1e-10 only (a short series);
    minigrad's to about 1e-15 (also checked against the series ψ⁽¹⁾(x) = Σ 1/(x + k)²)."""
    points = A([-3.7, -0.4, 0.3, 1.0, 2.5, 7.7, 15.2, 100.0])
    theirs = reference(lambda torch: torch.polygamma(1, torch.tensor(points)))
    ours = to_numpy(mg.polygamma(1, mg.tensor(points)))
    numpy.testing.assert_allclose(ours, theirs, rtol=1e-9)
    k = numpy.arange(2_000_000.0)
    direct = (1.0 / (2.5 + k) ** 2).sum() + 1 / (2.5 + k[-1] + 1)  # the tail Σ_{k>N} ≈ 1/(x + N)
    assert abs(ours[4] - direct) < 1e-12


def test_median_mode_and_cummax_pick_the_element_pytorch_picks_at_ties():
    """Which of equal elements gets the gradient: median(dim) and kthvalue pick by a stable sort (for these
    lines, PyTorch's choice), mode the last occurrence, cummax the latest maximum, median() all of them."""
    ties = A([[1.0, 2.0, 2.0, 2.0, 3.0], [2.0, 2.0, 2.0, 2.0, 2.0], [5.0, 5.0, 1.0, 1.0, 0.0]])
    calls = {"median": lambda m, a: m.median(a, 1).indices, "mode": lambda m, a: m.mode(a, 1).indices,
             "cummax": lambda m, a: m.cummax(a, 1).indices, "cummin": lambda m, a: m.cummin(a, 1).indices}
    for name, fn in calls.items():
        theirs = reference(lambda torch, f=fn: f(torch, torch.tensor(ties)), inputs={"name": name})
        numpy.testing.assert_array_equal(to_numpy(fn(mg, mg.tensor(ties))), theirs, err_msg=name)
    a = mg.tensor(ties, requires_grad=True)
    mg.median(a).backward()  # the median 2.0 occurs 8 times: each gets 1/8, as in PyTorch
    numpy.testing.assert_allclose(to_numpy(a.grad), (ties == 2.0) / 8.0)


@pytest.mark.parametrize("size", [2, 3, 5, 9, 16, 33])
def test_kthvalue_picks_pytorchs_element_among_equal_values(size):
    """PyTorch's quickselect decides which of equal values kthvalue returns (and sends the gradient to);
    replayed for the tied lines (``kthvalue_ties.py``), with NaN as the largest value."""
    rng = numpy.random.default_rng(size)
    values = rng.integers(0, 4, (40, size)).astype(numpy.float64)
    values[rng.random(values.shape) < 0.05] = NAN
    for k in sorted({1, size // 3 + 1, size}):
        theirs = reference(lambda torch, k=k: torch.kthvalue(torch.tensor(values), k, 1), inputs={"k": k})
        ours = mg.kthvalue(mg.tensor(values), k, 1)
        numpy.testing.assert_array_equal(to_numpy(ours.indices), theirs[1], err_msg=f"k={k}")
        numpy.testing.assert_array_equal(to_numpy(ours.values), theirs[0], err_msg=f"k={k}")


WITHOUT_DERIVATIVE = {
    "unique": lambda m, a: m.unique(a, return_counts=True)[0],
    "unique_dim": lambda m, a: m.unique(a, dim=0),
    "unique_consecutive": lambda m, a: a.unique_consecutive(),
    "heaviside": lambda m, a: m.heaviside(a, m.tensor([0.5])),
}


@pytest.mark.parametrize("name", sorted(WITHOUT_DERIVATIVE))
def test_results_without_a_derivative_are_recorded_and_refuse_backward(name):
    """As in PyTorch: the result of an input that requires grad requires grad too, names PyTorch's node,
    and its backward raises NotImplementedError."""
    fn = WITHOUT_DERIVATIVE[name]

    def node_name(lib):
        out = fn(lib, lib.tensor([1.0, 0.0, 0.0, 2.0], requires_grad=True))
        return out.requires_grad, out.grad_fn.name()

    assert node_name(mg) == tuple(reference(node_name))
    error = RuntimeError if name == "heaviside" else NotImplementedError  # (a subclass of RuntimeError)
    raises_like_torch(lambda lib: fn(lib, lib.tensor([1.0, 0.0], requires_grad=True)).sum().backward(),
                      error, "derivative")


def test_meshgrid_without_indexing_warns_and_uses_ij():
    with pytest.warns(UserWarning, match="indexing"):
        grid_x, grid_y = mg.meshgrid(mg.arange(3), mg.arange(2))
    assert grid_x.shape == (3, 2) and grid_y.shape == (3, 2)


def test_cross_without_dim_warns_and_uses_the_first_dim_of_size_3():
    with pytest.warns(UserWarning, match="dim"):
        out = mg.cross(mg.tensor(A([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])),
                       mg.tensor(A([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])))
    numpy.testing.assert_array_equal(to_numpy(out), A([[0.0, 1.0], [0.0, 0.0], [1.0, 0.0]]))


def test_apply_replaces_each_element_in_place():
    x = mg.tensor(A([[1.0, -2.0], [3.0, 0.5]]), device="cpu")  # a Python call per element: CPU only
    view = x.t()
    assert view.apply_(lambda v: v * 10 if v > 0 else 0.0) is view
    numpy.testing.assert_array_equal(to_numpy(x), A([[10.0, 0.0], [30.0, 5.0]]))
    with pytest.raises(RuntimeError, match="requires grad"):
        mg.ones(2, requires_grad=True, device="cpu").apply_(abs)


def test_index_put_writes_and_accumulates():
    x = mg.zeros(2, 3)
    rows, columns = mg.tensor([0, 0, 1]), mg.tensor([1, 1, 2])
    out = mg.index_put(x, (rows, columns), mg.tensor([1.0, 2.0, 3.0]), accumulate=True)
    numpy.testing.assert_array_equal(to_numpy(out), A([[0.0, 3.0, 0.0], [0.0, 0.0, 3.0]]))
    assert mg.index_put_(x, (mg.tensor([1]),), mg.tensor(7.0)) is x
    numpy.testing.assert_array_equal(to_numpy(x), A([[0.0, 0.0, 0.0], [7.0, 7.0, 7.0]]))


MISUSE = {
    "kthvalue_k_too_large": (lambda m: m.kthvalue(m.ones(2, 3), 4), RuntimeError, "k"),
    "kthvalue_k_zero": (lambda m: m.kthvalue(m.ones(3), 0), RuntimeError, "k"),
    "median_dim_out_of_range": (lambda m: m.median(m.ones(2, 3), 2), IndexError, "range"),
    "mode_empty_dim": (lambda m: m.mode(m.ones(2, 0), 1), IndexError, "size"),
    "quantile_q_out_of_range": (lambda m: m.quantile(m.ones(3), 1.5), RuntimeError, "[0, 1]"),
    "quantile_integer_input": (lambda m: m.quantile(m.ones(3, dtype=m.int64), 0.5), RuntimeError, "float"),
    "quantile_bad_interpolation": (lambda m: m.quantile(m.ones(3), 0.5, interpolation="cubic"), RuntimeError,
                                   "cubic"),
    "quantile_empty": (lambda m: m.quantile(m.ones(0), 0.5), RuntimeError, "empty"),
    "quantile_q_2d": (lambda m: m.quantile(m.ones(3), m.ones(2, 2) / 2), RuntimeError, "1D"),
    "nanmean_integer": (lambda m: m.nanmean(m.ones(3, dtype=m.int64)), RuntimeError, "Long"),
    "aminmax_empty": (lambda m: m.aminmax(m.ones(0)), RuntimeError, "empty"),
    "cumprod_dim_out_of_range": (lambda m: m.cumprod(m.ones(2, 3), 2), IndexError, "range"),
    "logcumsumexp_integer": (lambda m: m.logcumsumexp(m.ones(3, dtype=m.int64), 0), RuntimeError, "Long"),
    "diff_0d": (lambda m: m.diff(m.tensor(1.0)), RuntimeError, "one-dimensional"),
    "diff_negative_order": (lambda m: m.diff(m.ones(3), -1), RuntimeError, "-1"),
    "unique_dim_out_of_range": (lambda m: m.unique(m.ones(2, 3), dim=2), IndexError, "range"),
    "bincount_2d": (lambda m: m.bincount(m.ones(2, 2, dtype=m.int64)), RuntimeError, "1-d"),
    "bincount_negative": (lambda m: m.bincount(m.tensor([1, -1])), RuntimeError, "non-negative"),
    "bincount_float": (lambda m: m.bincount(m.ones(3)), RuntimeError, "Float"),
    "bincount_weights_length": (lambda m: m.bincount(m.tensor([1, 2]), m.ones(3)), RuntimeError, "weights"),
    "searchsorted_side": (lambda m: m.searchsorted(m.ones(3), m.ones(2), side="middle"), RuntimeError,
                          "middle"),
    "searchsorted_opposites": (lambda m: m.searchsorted(m.ones(3), m.ones(2), right=True, side="left"),
                               RuntimeError, "opposites"),
    "searchsorted_rows_mismatch": (lambda m: m.searchsorted(m.ones(2, 3), m.ones(3, 2)), RuntimeError,
                                   "[2, 3]"),
    "bucketize_2d_boundaries": (lambda m: m.bucketize(m.ones(3), m.ones(2, 2)), RuntimeError, "dim(2)"),
    "rot90_one_dim": (lambda m: m.rot90(m.ones(3), 1, [0]), RuntimeError, "rotation dims"),
    "rot90_1d_input": (lambda m: m.rot90(m.ones(3)), RuntimeError, "total dims"),
    "rot90_same_dims": (lambda m: m.rot90(m.ones(2, 2), 1, [1, -1]), RuntimeError, "different"),
    "meshgrid_2d": (lambda m: m.meshgrid(m.ones(2, 2), indexing="ij"), RuntimeError, "2D"),
    "meshgrid_bad_indexing": (lambda m: m.meshgrid(m.ones(2), indexing="ji"), RuntimeError, "ji"),
    "meshgrid_dtypes": (lambda m: m.meshgrid(m.ones(2), m.ones(2, dtype=m.int64), indexing="ij"),
                        RuntimeError, "dtype"),
    "cartesian_prod_2d": (lambda m: m.cartesian_prod(m.ones(2, 2), m.ones(2)), RuntimeError, "1D"),
    "block_diag_3d": (lambda m: m.block_diag(m.ones(2, 2, 2)), RuntimeError, "3 dimensions"),
    "masked_select_not_bool": (lambda m: m.masked_select(m.ones(3), m.ones(3)), RuntimeError, "Bool"),
    "masked_select_shapes": (lambda m: m.masked_select(m.ones(3), m.ones(2) > 0), RuntimeError, "size"),
    "masked_scatter_short_source": (lambda m: m.masked_scatter(m.ones(3), m.ones(3) > 0, m.ones(2)),
                                    RuntimeError, "source"),
    "take_out_of_range": (lambda m: m.take(m.ones(2, 2), m.tensor([4])), IndexError, "out of range"),
    "take_float_index": (lambda m: m.take(m.ones(2, 2), m.tensor([1.0])), RuntimeError, "long"),
    "put_sizes": (lambda m: m.ones(4).put(m.tensor([0, 1]), m.ones(3)), IndexError, "same number"),
    "scatter_reduce_bad_reduce": (lambda m: m.ones(3).scatter_reduce(0, m.tensor([0]), m.ones(1), "median"),
                                  RuntimeError, "reduce"),
    "fmod_integer_by_zero_tensor": (lambda m: m.fmod(m.tensor([1, 2]), m.tensor([1, 0])), RuntimeError,
                                    "ZeroDivisionError"),
    "frac_integer": (lambda m: m.frac(m.tensor([1, 2])), RuntimeError, "frac"),
    "heaviside_dtypes": (lambda m: m.heaviside(m.ones(2), m.ones(2, dtype=m.float64)), RuntimeError,
                         "dtypes"),
    "addcdiv_integers": (lambda m: m.addcdiv(m.ones(2), m.tensor([1, 2]), m.tensor([1, 2])), RuntimeError,
                         "Integer division"),
    "addcmul_shapes": (lambda m: m.addcmul(m.ones(2), m.ones(3), m.ones(3)), RuntimeError, "size"),
    "trace_3d": (lambda m: m.trace(m.ones(2, 2, 2)), RuntimeError, "matrix"),
    "det_not_square": (lambda m: m.det(m.ones(2, 3)), RuntimeError, "square"),
    "det_1d": (lambda m: m.det(m.ones(3)), RuntimeError, "2 dimensions"),
    "det_integer": (lambda m: m.det(m.ones(2, 2, dtype=m.int64)), RuntimeError, "Long"),
    "inverse_singular": (lambda m: m.inverse(m.ones(2, 2)), RuntimeError, "singular"),
    "linalg_inv_singular": (lambda m: m.linalg.inv(m.zeros(3, 3)), RuntimeError, "singular"),
    "linalg_cross_ndim": (lambda m: m.linalg.cross(m.ones(2, 3), m.ones(3)), RuntimeError, "dimensions"),
    "cross_no_size_3": (lambda m: m.cross(m.ones(2, 2), m.ones(2, 2)), RuntimeError, "3"),
    "cross_dim_not_3": (lambda m: m.cross(m.ones(3, 2), m.ones(3, 2), dim=1), RuntimeError, "length 3"),
    "addmv_shapes": (lambda m: m.addmv(m.ones(2), m.ones(2, 3), m.ones(2)), RuntimeError, "size mismatch"),
    "baddbmm_shapes": (lambda m: m.baddbmm(m.ones(2, 2), m.ones(1, 2, 3), m.ones(1, 2, 2)), RuntimeError,
                       "batch2"),
    "baddbmm_input_too_large": (lambda m: m.baddbmm(m.ones(2, 1, 2, 2), m.ones(1, 2, 3), m.ones(1, 3, 2)),
                                RuntimeError, "number of dimensions"),
    "vdot_2d": (lambda m: m.vdot(m.ones(2, 2), m.ones(2, 2)), RuntimeError, "1D"),
    "inner_sizes": (lambda m: m.inner(m.ones(2, 3), m.ones(2)), RuntimeError, "last dimension"),
    "tensordot_sizes": (lambda m: m.tensordot(m.ones(2, 3), m.ones(2, 3), 1), RuntimeError, "contracted"),
    "cdist_columns": (lambda m: m.cdist(m.ones(2, 3), m.ones(2, 4)), RuntimeError, "columns"),
    "cdist_1d": (lambda m: m.cdist(m.ones(3), m.ones(3)), RuntimeError, "2D"),
    "cdist_negative_p": (lambda m: m.cdist(m.ones(2, 3), m.ones(2, 3), p=-1.0), RuntimeError, "non-negative"),
    "logspace_negative_steps": (lambda m: m.logspace(0, 1, -1), RuntimeError, "non-negative"),
}


@pytest.mark.parametrize("name", sorted(MISUSE))
def test_misuse_raises_as_pytorch(name):
    call, error, fragment = MISUSE[name]
    raises_like_torch(call, error, fragment)
