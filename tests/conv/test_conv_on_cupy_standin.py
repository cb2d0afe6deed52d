"""Conv, pooling, unfold/fold run on the 'cuda' device (the strict CuPy stand-in) and give the CPU's numbers.

The stand-in refuses what CuPy refuses (host arrays mixed in, implicit host copies,
functions CuPy lacks), so this catches NumPy-only code in the conv kernels.
"""

import sys
from pathlib import Path

import numpy
import pytest

import minigrad as mg
from minigrad.ops.avg_pool import avg_pool2d
from minigrad.ops.conv import ALGORITHMS, algo_im2col_tuned, conv2d, conv2d_input, conv2d_weight, fold, unfold
from minigrad.ops.pool import max_pool2d

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # tests/, where the stand-in lives
standin_cupy = pytest.importorskip("standin_cupy")


@pytest.fixture(autouse=True)
def _standin():
    standin_cupy.install()
    yield
    standin_cupy.uninstall()


def _pair(shape, seed):
    """The same float64 values as a CPU leaf and a 'cuda' leaf."""
    host = numpy.random.default_rng(seed).standard_normal(shape)
    return mg.tensor(host, requires_grad=True), mg.tensor(host, device="cuda", requires_grad=True)


def _host(tensor):
    return tensor.array.get() if tensor.device.type == "cuda" else tensor.array


CONV = [  # (C_in, C_out, groups, kernel, stride, padding, dilation)
    (4, 6, 2, (3, 2), (2, 1), (1, 0), (1, 2)),
    (4, 4, 4, (3, 3), 1, 1, 1),          # depthwise, whole-row taps
    (4, 8, 4, (3, 3), 2, 1, 1),          # depthwise with multiplier, strided taps
    (3, 5, 1, (3, 3), 1, 2, 2),
]


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
@pytest.mark.parametrize(("c_in", "c_out", "groups", "kernel", "stride", "padding", "dilation"), CONV)
def test_conv2d_on_the_device_matches_the_cpu(algorithm, c_in, c_out, groups, kernel, stride, padding,
                                              dilation):
    results = []
    for index in (0, 1):
        x = _pair((2, c_in, 7, 6), 0)[index]
        w = _pair((c_out, c_in // groups) + kernel, 1)[index]
        b = _pair((c_out,), 2)[index]
        out = conv2d(x, w, b, stride, padding, dilation, groups, algorithm=algorithm)
        (out * out).sum().backward()
        results.append([_host(t) for t in (out, x.grad, w.grad, b.grad)])
    assert isinstance(out.array, standin_cupy.serving_module().ndarray)
    for cpu, device in zip(*results):
        numpy.testing.assert_allclose(device, cpu, rtol=1e-12, atol=1e-12)


def test_im2col_takes_bands_of_rows_on_the_cpu_and_one_band_on_the_device(monkeypatch):
    """Bands fit the CPU's cache; the device gets one big product. Both give the same numbers."""
    monkeypatch.setattr(algo_im2col_tuned, "BAND_BYTES", 1)  # one output row per band on the CPU
    assert len(algo_im2col_tuned._bands(numpy, 5, 27, 6, 2, 8)) == 5
    assert algo_im2col_tuned._bands(standin_cupy.serving_module(), 5, 27, 6, 2, 8) == [slice(0, 5)]
    test_conv2d_on_the_device_matches_the_cpu("im2col", *CONV[3])


POOLS = [
    lambda a: max_pool2d(a, 3, 2, 1, ceil_mode=True),
    lambda a: max_pool2d(a, 2, return_indices=True)[0],
    lambda a: avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda a: avg_pool2d(a, 2, divisor_override=3),
    lambda a: unfold(a, 2, 1, 1, 1),
    lambda a: fold(unfold(a, 2), (7, 6), 2),
    lambda a: conv2d_input((2, 3, 7, 6), a[:, :, :3, :3], a[:, :2, :5, :4]),
    lambda a: conv2d_weight(a, (2, 3, 3, 3), a[:, :2, :5, :4]),
]


@pytest.mark.parametrize("index", range(len(POOLS)))
def test_pooling_fold_and_conv_grads_on_the_device_match_the_cpu(index):
    results = []
    for which in (0, 1):
        x = _pair((2, 3, 7, 6), 3)[which]
        out = POOLS[index](x)
        (out * out).sum().backward()
        results.append((_host(out), _host(x.grad)))
    for cpu, device in zip(*results):
        numpy.testing.assert_allclose(device, cpu, rtol=1e-12, atol=1e-12)
