"""max_pool2d and avg_pool2d against PyTorch: values, indices, gradients (ties included), sizes, errors."""

import itertools

import numpy
import pytest
from _reference import reference

import minigrad as mg
from minigrad.autograd import gradcheck
from minigrad.ops.avg_pool import avg_pool2d
from minigrad.ops.pool import max_pool2d

# (H, W, kernel, stride, padding, dilation): non-square, overlapping, strided, padded, dilated.
GEOMETRIES = [
    (6, 6, 2, None, 0, 1),
    (7, 5, 3, 2, 1, 1),
    (8, 7, (3, 2), (2, 1), (1, 0), 1),
    (9, 9, 3, 1, 1, 2),
    (7, 8, (2, 3), (3, 2), (1, 1), (2, 1)),
    (5, 5, 1, 2, 0, 1),
    (5, 6, 5, 1, 2, 1),
]
IDS = [f"{h}x{w}-k{k}-s{s}-p{p}-d{d}" for h, w, k, s, p, d in GEOMETRIES]


def _tied(shape, seed):
    """Small integers: windows have many equal maxima, the case where the routing rule matters."""
    return numpy.random.default_rng(seed).integers(0, 3, shape).astype(numpy.float64)


def _leaf(array):
    return mg.tensor(array, requires_grad=True)


def _delta(shape, seed):
    """A seeded output gradient of ``shape``."""
    return numpy.random.default_rng(seed).standard_normal(tuple(shape))


@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize(("h", "w", "kernel", "stride", "padding", "dilation"), GEOMETRIES, ids=IDS)
def test_max_pool2d_values_indices_and_gradient_with_ties_match_torch(h, w, kernel, stride, padding, dilation,
                                                                      ceil_mode):
    x = _tied((2, 3, h, w), seed=h * w)

    def torch_pool(torch):
        xt = torch.tensor(x, requires_grad=True)
        out, idx = torch.nn.functional.max_pool2d(xt, kernel, stride, padding, dilation, ceil_mode, True)
        out.backward(torch.tensor(_delta(out.shape, 0)))
        return out, idx, xt.grad

    expected, expected_idx, expected_grad = reference(torch_pool, {"x": x})
    xs = _leaf(x)
    out, idx = max_pool2d(xs, kernel, stride, padding, dilation, ceil_mode, return_indices=True)
    out.backward(mg.tensor(_delta(expected.shape, 0)))
    numpy.testing.assert_array_equal(out.array, expected)
    numpy.testing.assert_array_equal(idx.array, expected_idx)
    assert idx.dtype is mg.int64 and not idx.requires_grad
    numpy.testing.assert_allclose(xs.grad.array, expected_grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize(("count_include_pad", "divisor_override"), [(True, None), (False, None), (True, 5)])
@pytest.mark.parametrize(("h", "w", "kernel", "stride", "padding", "dilation"),
                         [g for g in GEOMETRIES if g[5] == 1],
                         ids=[i for i, g in zip(IDS, GEOMETRIES) if g[5] == 1])
def test_avg_pool2d_values_and_gradient_match_torch(h, w, kernel, stride, padding, dilation, ceil_mode,
                                                    count_include_pad, divisor_override):
    x = numpy.random.default_rng(h + w).standard_normal((2, 3, h, w))
    settings = (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)

    def torch_pool(torch):
        xt = torch.tensor(x, requires_grad=True)
        out = torch.nn.functional.avg_pool2d(xt, *settings)
        out.backward(torch.tensor(_delta(out.shape, 1)))
        return out, xt.grad

    expected, expected_grad = reference(torch_pool, {"x": x})
    xs = _leaf(x)
    out = avg_pool2d(xs, *settings)
    out.backward(mg.tensor(_delta(expected.shape, 1)))
    numpy.testing.assert_allclose(out.array, expected, rtol=1e-12, atol=1e-12)
    numpy.testing.assert_allclose(xs.grad.array, expected_grad, rtol=1e-12, atol=1e-12)


def test_max_pool_routes_a_tie_to_the_first_maximum_in_scan_order():
    x = mg.tensor([[[[1.0, 5.0], [5.0, 5.0]]]], requires_grad=True)
    max_pool2d(x, 2).sum().backward()
    numpy.testing.assert_array_equal(x.grad.array[0, 0], [[0, 1], [0, 0]])


def test_max_pool_nan_and_all_minus_infinity_windows_as_torch():
    x = numpy.full((1, 1, 4, 4), -numpy.inf)
    x[0, 0, 1, 2] = x[0, 0, 2, 2] = numpy.nan
    x[0, 0, 3, 3] = 5.0

    def torch_pool(torch):
        xt = torch.tensor(x, requires_grad=True)
        out, idx = torch.nn.functional.max_pool2d(xt, 3, 1, 1, return_indices=True)
        out.sum().backward()
        return out, idx, xt.grad

    expected, expected_idx, expected_grad = reference(torch_pool, {"x": x})
    xs = _leaf(x)
    out, idx = max_pool2d(xs, 3, 1, 1, return_indices=True)
    out.sum().backward()
    numpy.testing.assert_array_equal(out.array, expected)   # NaN == NaN here
    numpy.testing.assert_array_equal(idx.array, expected_idx)
    numpy.testing.assert_array_equal(xs.grad.array, expected_grad)


@pytest.mark.parametrize("kernel, stride", [(2, 2), (3, 1)])
def test_max_pool_plus_infinity_ties_as_torch(kernel, stride):
    """+inf maxima (and ties between them) take the recomputing path: same routing as PyTorch."""
    x = numpy.zeros((1, 2, 4, 4))
    x[0, 0, 0, 1] = x[0, 0, 1, 0] = numpy.inf
    x[0, 1, 2, 2] = numpy.inf

    def torch_grad(torch):
        xt = torch.tensor(x, requires_grad=True)
        torch.nn.functional.max_pool2d(xt, kernel, stride).sum().backward()
        return xt.grad

    xs = _leaf(x)
    max_pool2d(xs, kernel, stride).sum().backward()
    numpy.testing.assert_array_equal(xs.grad.array, reference(torch_grad, {"x": x}))


@pytest.mark.parametrize("layout", ["chwn", "cnhw"])
def test_max_pool_of_a_conv_output_layout_as_torch(layout):
    """Conv outputs are NCHW views of (C, H, W, N) memory: pooling them routes δ as for NCHW input."""
    x = _tied((4, 3, 6, 6), seed=1)
    axes = (1, 2, 3, 0) if layout == "chwn" else (1, 0, 2, 3)
    laid_out = numpy.ascontiguousarray(x.transpose(axes)).transpose(numpy.argsort(axes))
    xs = mg.from_numpy(laid_out).requires_grad_()
    delta = numpy.random.default_rng(2).standard_normal((4, 3, 3, 3))

    def torch_grad(torch):
        xt = torch.tensor(x, requires_grad=True)
        torch.nn.functional.max_pool2d(xt, 2).backward(torch.tensor(delta))
        return xt.grad

    max_pool2d(xs, 2).backward(mg.tensor(delta))
    numpy.testing.assert_array_equal(xs.grad.array, reference(torch_grad, {"x": x, "delta": delta}))


def test_gradcheck_of_both_pools():
    x = _leaf(numpy.random.default_rng(2).permutation(2 * 2 * 7 * 6).reshape(2, 2, 7, 6) / 10.0)  # distinct
    assert gradcheck(lambda a: max_pool2d(a, (3, 2), (2, 1), 1, (1, 2), ceil_mode=True), (x,))
    assert gradcheck(lambda a: avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False), (x,))


def test_unbatched_input_and_integer_input():
    x = numpy.random.default_rng(3).standard_normal((3, 6, 5))
    ints = numpy.arange(32).reshape(1, 2, 4, 4)

    def torch_pools(torch):
        F = torch.nn.functional
        return (F.max_pool2d(torch.tensor(x), 2, 1, 1), F.avg_pool2d(torch.tensor(x), 3, 2, 1),
                F.max_pool2d(torch.tensor(ints), 2, padding=1))

    most, average, of_ints = reference(torch_pools, {"x": x, "ints": ints})
    numpy.testing.assert_array_equal(max_pool2d(mg.tensor(x), 2, 1, 1).array, most)
    numpy.testing.assert_allclose(avg_pool2d(mg.tensor(x), 3, 2, 1).array, average, rtol=1e-12)
    result = max_pool2d(mg.tensor(ints), 2, padding=1)
    assert result.dtype is mg.int64
    numpy.testing.assert_array_equal(result.array, of_ints)


def test_float32_stays_float32():
    x = mg.randn(1, 2, 6, 6, requires_grad=True)
    for out in (max_pool2d(x, 2), avg_pool2d(x, 3, 2, 1)):
        out.sum().backward()
        assert out.dtype is mg.float32 and x.grad.dtype is mg.float32


@pytest.mark.parametrize(("call", "pieces"), [
    (lambda x: max_pool2d(x, 3, padding=2), ["pad=2", "kernel_size=3"]),
    (lambda x: avg_pool2d(x, 3, padding=2), ["pad=2", "kernel_size=3"]),
    (lambda x: max_pool2d(x[0, 0], 2), ["3D or 4D", "[5, 5]"]),
    (lambda x: max_pool2d(mg.zeros(1, 2, 2, 2), 3), ["(2x2x2)", "(2x0x0)", "too small"]),
    (lambda x: avg_pool2d(x, 2, divisor_override=0), ["divisor must be not zero"]),
    (lambda x: max_pool2d(x, 2, stride=0), ["stride", "0"]),
    (lambda x: max_pool2d(x, 2, dilation=0), ["dilation"]),
])
def test_bad_arguments_raise_runtime_error_naming_the_numbers(call, pieces):
    with pytest.raises(RuntimeError) as info:
        call(mg.zeros(1, 2, 5, 5))
    for piece in pieces:
        assert piece in str(info.value), (piece, str(info.value))


def test_ceil_mode_sizes_match_torch_over_a_sweep():
    sweep = list(itertools.product(range(3, 10), (2, 3), (1, 2, 3), (0, 1)))

    def torch_shapes(torch):
        pool = torch.nn.functional.max_pool2d
        return [list(pool(torch.zeros(1, 1, size, size), k, s, p, ceil_mode=True).shape)
                for size, k, s, p in sweep]

    for (size, k, s, p), expected in zip(sweep, reference(torch_shapes), strict=True):
        assert list(max_pool2d(mg.zeros(1, 1, size, size), k, s, p, ceil_mode=True).shape) == expected
        assert list(avg_pool2d(mg.zeros(1, 1, size, size), k, s, p, ceil_mode=True).shape) == expected
