"""``multinomial`` (statistics, reproducibility, PyTorch's errors) and ``histc``/``histogram``
(values, edges and errors compared with PyTorch)."""

import numpy
import pytest
from _reference import reference
from _torch import require_torch

import minigrad as mg
from minigrad import backend

from .helpers import assert_misuse_raises_like_torch, to_numpy

# chi-square critical values at p = 0.9999 (so a correct sampler fails one seed in 10 000)
_CHI2_9999 = {1: 15.14, 2: 18.42, 3: 21.11, 4: 23.51, 11: 37.37}


def _chi_square(counts: numpy.ndarray, expected: numpy.ndarray) -> float:
    keep = expected > 0
    return float((((counts - expected) ** 2)[keep] / expected[keep]).sum())


# --- multinomial -------------------------------------------------------------------------------

def test_multinomial_with_replacement_follows_the_weights_of_every_row():
    weights = numpy.array([[1.0, 2.0, 3.0, 4.0, 0.0], [0.0, 5.0, 0.0, 0.0, 5.0], [1.0, 1.0, 1.0, 1.0, 1.0]])
    draws = 20_000
    samples = mg.multinomial(mg.tensor(weights), draws, replacement=True,
                             generator=mg.Generator().manual_seed(1))
    assert samples.shape == (3, draws) and samples.dtype is mg.int64
    assert samples.device == backend.default_device()
    host = to_numpy(samples)
    for row, probabilities in zip(host, weights / weights.sum(1, keepdims=True)):
        counts = numpy.bincount(row, minlength=5)
        assert counts[probabilities == 0].sum() == 0, "a category of weight 0 was drawn"
        degrees = int((probabilities > 0).sum()) - 1
        assert _chi_square(counts, draws * probabilities) < _CHI2_9999[degrees]


def test_multinomial_without_replacement_draws_in_the_order_of_sequential_sampling():
    """First draw ~ p; the pair (first, second) ~ p_i p_j / (1 - p_i), as drawing and removing."""
    p = numpy.array([0.1, 0.2, 0.3, 0.4])
    rows = 30_000
    samples = to_numpy(mg.multinomial(mg.tensor(numpy.tile(p, (rows, 1))), 4,
                                      generator=mg.Generator().manual_seed(2)))
    assert (numpy.sort(samples, axis=1) == numpy.arange(4)).all(), "a row repeats a category"
    first = numpy.bincount(samples[:, 0], minlength=4)
    assert _chi_square(first, rows * p) < _CHI2_9999[3]
    pairs = numpy.bincount(samples[:, 0] * 4 + samples[:, 1], minlength=16)
    expected = (p[:, None] * p[None, :] / (1 - p[:, None])).reshape(-1) * rows
    expected[::5] = 0  # (i, i) cannot happen
    assert pairs[::5].sum() == 0
    assert _chi_square(pairs, expected) < _CHI2_9999[11]


def test_multinomial_is_reproducible_and_takes_its_numbers_from_the_generator():
    weights = mg.tensor([0.1, 0.5, 0.2, 0.2])
    mg.manual_seed(7)
    first = to_numpy(mg.multinomial(weights, 10, True))
    mg.manual_seed(7)
    again = to_numpy(weights.multinomial(10, replacement=True))
    numpy.testing.assert_array_equal(first, again)
    generator = mg.Generator().manual_seed(3)
    from_generator = to_numpy(mg.multinomial(weights, 4, generator=generator))
    mg.manual_seed(0)  # the global generator does not matter when one is given
    numpy.testing.assert_array_equal(from_generator, to_numpy(
        mg.multinomial(weights, 4, generator=mg.Generator().manual_seed(3))))
    later = [to_numpy(mg.multinomial(weights, 4, generator=generator)) for _ in range(5)]
    assert any((draw != from_generator).any() for draw in later), "the generator's state did not advance"


def test_multinomial_falls_back_to_zero_weights_only_when_the_positive_ones_are_used_up():
    torch = require_torch()
    ours = to_numpy(mg.multinomial(mg.tensor([0.0, 1.0, 0.0, 0.0]), 3))
    theirs = torch.multinomial(torch.tensor([0.0, 1.0, 0.0, 0.0]), 3).numpy()
    assert ours[0] == theirs[0] == 1  # then zero weights, distinct (PyTorch's order among them is free)
    assert sorted(ours[1:]) == sorted(set(ours[1:])) and set(ours[1:]) <= {0, 2, 3}
    assert (to_numpy(mg.multinomial(mg.tensor([[0.0, 0.0, 3.0]] * 50), 7, True)) == 2).all()


@pytest.mark.parametrize("shape, num_samples, replacement", [
    ((5,), 1, False), ((5,), 5, False), ((1, 7), 3, True), ((4, 2), 2, False), ((0, 3), 2, True),
    ((3,), 10, True), ((2, 1), 1, False), ((0, 0), 1, True)])
def test_multinomial_shapes_and_dtypes_match_pytorch(shape, num_samples, replacement):
    torch = require_torch()
    weights = numpy.random.default_rng(0).uniform(0.1, 1.0, shape)
    for dtype in ("float32", "float64"):
        ours = mg.multinomial(mg.tensor(weights.astype(dtype)), num_samples, replacement)
        theirs = torch.multinomial(torch.tensor(weights.astype(dtype)), num_samples, replacement)
        assert ours.shape == tuple(theirs.shape) and ours.dtype is mg.int64
        host = to_numpy(ours)
        assert ((host >= 0) & (host < shape[-1])).all()
        if not replacement and host.size:
            assert (numpy.diff(numpy.sort(host, axis=-1), axis=-1) > 0).all()


def test_multinomial_result_needs_no_grad_and_input_may_require_it():
    weights = mg.tensor([0.3, 0.7], requires_grad=True)
    out = mg.multinomial(weights, 2)
    assert not out.requires_grad and out.grad_fn is None


def test_multinomial_writes_into_out():
    out = mg.zeros(0, dtype=mg.int64)
    result = mg.multinomial(mg.tensor([0.0, 0.0, 1.0]), 2, True, out=out)
    assert result is out and to_numpy(out).tolist() == [2, 2]


MULTINOMIAL_MISUSE = {
    "negative": (lambda m: m.multinomial(m.tensor([0.2, -0.1, 0.5]), 1), ["element < 0"]),
    "inf": (lambda m: m.multinomial(m.tensor([0.2, float("inf")]), 1), ["inf"]),
    "nan": (lambda m: m.multinomial(m.tensor([float("nan"), 1.0]), 1, True), ["nan"]),
    "minus_inf": (lambda m: m.multinomial(m.tensor([float("-inf"), 1.0]), 1), ["inf"]),
    "zero_sum": (lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1), ["sum of probabilities <= 0"]),
    "zero_sum_row": (lambda m: m.multinomial(m.tensor([[1.0, 1.0], [0.0, 0.0]]), 1, True),
                     ["sum of probabilities <= 0"]),
    "too_many": (lambda m: m.multinomial(m.tensor([0.2, 0.3, 0.5]), 4),
                 ["n_sample > prob_dist.size(-1)", "4"]),
    "zero_samples": (lambda m: m.multinomial(m.tensor([0.2, 0.8]), 0), ["n_sample <= 0"]),
    "negative_samples": (lambda m: m.multinomial(m.tensor([0.2, 0.8]), -2, True), ["n_sample <= 0"]),
    "zero_dim": (lambda m: m.multinomial(m.tensor(0.5), 1), ["1 or 2 dim"]),
    "three_dim": (lambda m: m.multinomial(m.ones(2, 2, 2), 1), ["1 or 2 dim", "[2, 2, 2]"]),
    "long_input": (lambda m: m.multinomial(m.tensor([1, 2, 3]), 1), ["floating-point", "Long"]),
    "bool_input": (lambda m: m.multinomial(m.tensor([True, False]), 1), ["floating-point", "Bool"]),
    "float_samples": (lambda m: m.multinomial(m.tensor([0.2, 0.8]), 1.5), ["num_samples", "float"]),
    "int_replacement": (lambda m: m.multinomial(m.tensor([0.2, 0.8]), 2, 1), ["replacement", "int"]),
    "bad_generator": (lambda m: m.multinomial(m.tensor([0.2, 0.8]), 1, generator=3), ["generator"]),
    "list_input": (lambda m: m.multinomial([0.2, 0.8], 1), ["input", "list"]),
    "float_out": (lambda m: m.multinomial(m.tensor([0.2, 0.8]), 1, out=m.zeros(1)), ["Float"]),
    "no_categories": (lambda m: m.multinomial(m.ones(2, 0), 1, True), ["[2, 0]"]),
    "no_categories_1d": (lambda m: m.multinomial(m.ones(0), 1, True), ["[0]"]),
}


@pytest.mark.parametrize("name", MULTINOMIAL_MISUSE)
def test_multinomial_misuse_raises_like_pytorch(name):
    misuse, pieces = MULTINOMIAL_MISUSE[name]
    assert_misuse_raises_like_torch(misuse, pieces)


# --- histc and histogram -----------------------------------------------------------------------

_DATA = [1.0, 2.0, 1.0, 4.0, 2.5, 3.0, -1.0, 7.0, 3.0, 0.0]

HISTOGRAM_CASES = {
    "histc_range": lambda m, x: m.histc(x, bins=4, min=0, max=3),
    "histc_data_range": lambda m, x: m.histc(x, bins=4),
    "histc_method": lambda m, x: x.histc(3),
    "histc_upper_edge_in_last_bin": lambda m, x: m.histc(x, bins=3, min=-1, max=3),
    "histc_all_outside": lambda m, x: m.histc(x, bins=5, min=100, max=200),
    "histc_min_equals_max": lambda m, x: m.histc(x, bins=4, min=2, max=2),
    "histc_constant_data": lambda m, x: m.histc(x * 0 + 2, bins=4),
    "histc_empty": lambda m, x: m.histc(x[:0], bins=4),
    "histc_matrix": lambda m, x: m.histc(x.reshape(2, 5), bins=6, min=-2, max=8),
    "histc_one_bin": lambda m, x: m.histc(x, bins=1),
    "histc_boundary": lambda m, x: m.histc(m.tensor([0.29999998, 0.3, 0.1, 1.0], dtype=x.dtype), 10, 0, 1),
    "histc_nan_ignored_with_range": lambda m, x: m.histc(m.tensor([1.0, float("nan"), float("inf")],
                                                                  dtype=x.dtype), 4, 0, 2),
    "histogram_bins": lambda m, x: m.histogram(x, bins=4),
    "histogram_method": lambda m, x: x.histogram(5),
    "histogram_range": lambda m, x: m.histogram(x, bins=4, range=(0.0, 3.0)),
    "histogram_int_range": lambda m, x: m.histogram(x, 3, range=(1, 2)),
    "histogram_edges": lambda m, x: m.histogram(x, bins=m.tensor([0.0, 1.0, 5.0, 10.0], dtype=x.dtype)),
    "histogram_edges_density": lambda m, x: m.histogram(x, m.tensor([-1.0, 1.0, 5.0, 7.0], dtype=x.dtype),
                                                         density=True),
    "histogram_weight": lambda m, x: m.histogram(x, bins=4, weight=m.arange(10, dtype=x.dtype)),
    "histogram_weight_density": lambda m, x: m.histogram(x, 4, weight=m.arange(10, dtype=x.dtype),
                                                          density=True),
    "histogram_density": lambda m, x: m.histogram(x, 7, density=True),
    "histogram_constant": lambda m, x: m.histogram(x * 0 + 2, 4),
    "histogram_empty": lambda m, x: m.histogram(x[:0], 4),
    "histogram_matrix": lambda m, x: m.histogram(x.reshape(5, 2), 3),
    "histogram_fine_edges": lambda m, x: m.histogram(m.tensor([0.1, 0.2, 0.3], dtype=x.dtype), 10,
                                                      range=(0.1, 0.3)),
    "histogram_many_bins": lambda m, x: m.histogram(m.linspace(-3, 3, 1001, dtype=x.dtype), 37),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", HISTOGRAM_CASES)
def test_histograms_match_pytorch(name, dtype):
    case = HISTOGRAM_CASES[name]
    data = numpy.array(_DATA, dtype=dtype)
    ours = case(mg, mg.tensor(data))
    # PyTorch's answer as arrays: [hist, bin_edges] for histogram, [counts] for histc
    theirs = reference(lambda torch: list(_as_tuple(case(torch, torch.tensor(data)))), inputs={"data": data})
    if name.startswith("histogram"):
        assert type(ours).__name__ == "histogram" and ours._fields == ("hist", "bin_edges")
        assert ours.hist is ours[0] and ours.bin_edges is ours[1]
    pairs = list(zip(_as_tuple(ours), theirs, strict=True))
    for mine, expected in pairs:
        assert mine.dtype.name == dtype and mine.shape == tuple(expected.shape)
        assert mine.device == backend.default_device()
        numpy.testing.assert_allclose(to_numpy(mine), expected, rtol=1e-6, atol=0, err_msg=name)


def _as_tuple(result):
    return tuple(result) if isinstance(result, tuple) else (result,)


def test_histc_of_a_tensor_that_requires_grad_gives_plain_counts():
    counts = mg.histc(mg.tensor([0.5, 1.5, 1.7], requires_grad=True), bins=2, min=0, max=2)
    assert not counts.requires_grad and to_numpy(counts).tolist() == [1.0, 2.0]


HISTOGRAM_MISUSE = {
    "histc_zero_bins": (lambda m: m.histc(m.ones(3), bins=0), ["bins must be > 0", "0"]),
    "histc_negative_bins": (lambda m: m.histc(m.ones(3), bins=-1), ["bins must be > 0", "-1"]),
    "histc_float_bins": (lambda m: m.histc(m.ones(3), bins=2.5), ["bins", "float"]),
    "histc_min_above_max": (lambda m: m.histc(m.ones(3), 4, min=3, max=1), ["max must be larger than min"]),
    "histc_nan_data": (lambda m: m.histc(m.tensor([1.0, float("nan")]), 4), ["not finite"]),
    "histc_inf_data": (lambda m: m.histc(m.tensor([1.0, float("inf")]), 4), ["[1, inf]", "not finite"]),
    "histc_inf_max": (lambda m: m.histc(m.ones(3), 4, min=0, max=float("inf")), ["not finite"]),
    "histc_nan_min": (lambda m: m.histc(m.ones(3), 4, min=float("nan"), max=2), ["not finite"]),
    "histc_long": (lambda m: m.histc(m.tensor([1, 2, 3]), 4), ["Long"]),
    "histc_list": (lambda m: m.histc([1.0, 2.0], 4), ["Tensor"]),
    "histogram_long": (lambda m: m.histogram(m.tensor([1, 2]), 4), ["Long"]),
    "histogram_zero_bins": (lambda m: m.histogram(m.ones(3), 0), ["bins must be > 0"]),
    "histogram_one_edge": (lambda m: m.histogram(m.ones(3), m.tensor([1.0])), ["bins must be > 0"]),
    "histogram_float_bins": (lambda m: m.histogram(m.ones(3), 4.0), ["float"]),
    "histogram_reversed_range": (lambda m: m.histogram(m.ones(3), 4, range=(3.0, 1.0)),
                                 ["min should not exceed max"]),
    "histogram_range_of_three": (lambda m: m.histogram(m.ones(3), 4, range=(1.0, 2.0, 3.0)), ["got 3"]),
    "histogram_inf_range": (lambda m: m.histogram(m.ones(3), 4, range=(0.0, float("inf"))), ["not finite"]),
    "histogram_nan_data": (lambda m: m.histogram(m.tensor([1.0, float("nan")]), 4), ["not finite"]),
    "histogram_edges_2d": (lambda m: m.histogram(m.ones(3), m.ones(1, 3)), ["one dimension", "2"]),
    "histogram_edges_dtype": (lambda m: m.histogram(m.ones(3), m.tensor([0.0, 1.0], dtype=m.float64)),
                              ["same dtype", "float64"]),
    "histogram_weight_shape": (lambda m: m.histogram(m.ones(3), 4, weight=m.ones(2)), ["[3]", "[2]"]),
    "histogram_weight_dtype": (lambda m: m.histogram(m.ones(3), 4, weight=m.ones(3, dtype=m.int64)),
                               ["same dtype"]),
}


@pytest.mark.parametrize("name", HISTOGRAM_MISUSE)
def test_histogram_misuse_raises_like_pytorch(name):
    misuse, pieces = HISTOGRAM_MISUSE[name]
    assert_misuse_raises_like_torch(misuse, pieces)


def test_multinomial_single_draws_without_replacement_follow_the_weights():
    """One draw per row (the sampling step of a character model) is the first arrival of the race."""
    p = numpy.array([0.5, 0.0, 0.25, 0.125, 0.125])
    rows = 40_000
    draws = to_numpy(mg.multinomial(mg.tensor(numpy.tile(p, (rows, 1))), 1,
                                    generator=mg.Generator().manual_seed(5)))
    assert draws.shape == (rows, 1)
    counts = numpy.bincount(draws[:, 0], minlength=5)
    assert counts[1] == 0
    assert _chi_square(counts, rows * p) < _CHI2_9999[3]


def test_histograms_of_random_data_count_as_pytorch():
    """100 seeded cases: data on a grid (values on the edges) or not, random bins and ranges."""
    torch = require_torch()
    rng = numpy.random.default_rng(3)
    for trial in range(100):
        dtype = ("float32", "float64")[trial % 2]
        values = rng.standard_normal(int(rng.integers(1, 300)))
        if trial % 3 == 0:
            values = numpy.round(values * 4) / 4
        bins = int(rng.integers(1, 60))
        low, high = sorted(rng.uniform(-2, 2, 2)) if trial % 4 else (0.0, 0.0)
        ours = mg.tensor(values, dtype=getattr(mg, dtype))
        theirs = torch.tensor(values, dtype=getattr(torch, dtype))
        numpy.testing.assert_array_equal(to_numpy(mg.histc(ours, bins, low, high)),
                                         torch.histc(theirs, bins, low, high).numpy(), err_msg=str(trial))
        options = {"range": (float(low), float(high))} if low < high else {}
        mine, reference = mg.histogram(ours, bins, **options), torch.histogram(theirs, bins, **options)
        # PyTorch's linspace rounds by its SIMD width, so its inner edges may differ from the exact
        # formula's in the last bits: equal to a few ulps of the largest edge, and the same counts given them
        largest = float(reference.bin_edges.abs().max())
        numpy.testing.assert_allclose(to_numpy(mine.bin_edges), reference.bin_edges.numpy(), rtol=0,
                                      atol=4 * largest * numpy.finfo(dtype).eps)
        if trial % 3:  # off the grid no value sits on an edge, so the counts agree as well
            numpy.testing.assert_array_equal(to_numpy(mine.hist), reference.hist.numpy(), err_msg=str(trial))
        their_edges = mg.tensor(reference.bin_edges.numpy())
        counted = mg.histogram(ours, their_edges).hist
        numpy.testing.assert_array_equal(to_numpy(counted), reference.hist.numpy(), err_msg=str(trial))
