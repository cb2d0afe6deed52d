"""Regression tests from an audit of pooling, ``nn.init`` and relu/sigmoid/tanh against PyTorch: each test
pins one behaviour where minigrad used to differ (values, exception types, messages, argument types).

Expected values come from PyTorch (the same call) or are derived by hand in the test.
"""

import math
import warnings

import numpy
import pytest
import standin_cupy
from _reference import reference
from _torch import raises_like_torch, require_torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.nn import init

from .helpers import host

rng = numpy.random.default_rng(7)
GRID = numpy.arange(16).reshape(1, 1, 4, 4)




# --- avg_pool2d ------------------------------------------------------------------------------------

def test_avg_pool2d_of_int64_truncates_toward_zero_as_torch():
    """PyTorch averages int64 in integers, rounding toward zero; we used to crash in NumPy's divide."""
    torch = require_torch()
    values = numpy.array([[[[-7, 1, 5, 0], [2, 3, -5, 0], [9, -2, 4, 4], [1, 1, -3, 3]]]])
    by_hand = numpy.array([[[[0, 0], [2, 2]]]])    # -1/4 -> 0, 0/4 -> 0, 9/4 -> 2, 8/4 -> 2
    ours = F.avg_pool2d(mg.tensor(values), 2)
    assert ours.dtype is mg.int64
    numpy.testing.assert_array_equal(host(ours), by_hand)
    for kwargs in ({"kernel_size": 3, "stride": 1, "padding": 1},
                   {"kernel_size": 3, "stride": 1, "padding": 1, "count_include_pad": False},
                   {"kernel_size": 2, "divisor_override": 3}, {"kernel_size": 2, "divisor_override": -3},
                   {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}):
        theirs = torch.nn.functional.avg_pool2d(torch.tensor(values), **kwargs)
        numpy.testing.assert_array_equal(host(F.avg_pool2d(mg.tensor(values), **kwargs)), theirs.numpy(),
                                         err_msg=str(kwargs))


@pytest.mark.parametrize(("dtype", "name"), [("int32", "Int"), ("uint8", "Byte"), ("int16", "Short"),
                                             ("bool", "Bool")])
def test_avg_pool2d_of_other_integer_dtypes_is_not_implemented_as_in_torch(dtype, name):
    """NotImplementedError (a RuntimeError) naming the dtype; we used to leak a NumPy UFuncTypeError."""
    raises_like_torch(lambda m: m.nn.functional.avg_pool2d(m.tensor(GRID.astype(dtype)), 2),
                       NotImplementedError, f"\"avg_pool2d\" not implemented for '{name}'")


def test_max_pool2d_of_bool_is_not_implemented_as_in_torch():
    """We used to raise NumPy's ValueError from iinfo(bool)."""
    raises_like_torch(lambda m: m.nn.functional.max_pool2d(m.tensor(GRID > 5), 2, padding=1),
                       NotImplementedError, "\"max_pool2d\" not implemented for 'Bool'")


@pytest.mark.parametrize("shape", [(4, 4), (4,), ()])
def test_avg_pool2d_of_fewer_than_3_dimensions_is_an_indexerror_as_in_torch(shape):
    """PyTorch reads size(-3) first and raises IndexError; we raised RuntimeError. The layer too."""
    raises_like_torch(lambda m: m.nn.functional.avg_pool2d(m.zeros(shape), 1), IndexError, "-3",
                       str(list(shape)))
    raises_like_torch(lambda m: m.nn.AvgPool2d(1)(m.zeros(shape)), IndexError, "-3")


@pytest.mark.parametrize("value", [2.5, 2.0, True])
def test_avg_pool2d_divisor_override_must_be_an_int(value):
    """PyTorch refuses a float or bool divisor with TypeError; we divided by it."""
    raises_like_torch(lambda m: m.nn.functional.avg_pool2d(m.zeros(1, 1, 4, 4), 2, divisor_override=value),
                       TypeError, "divisor_override", repr(value))


def test_avg_pool2d_of_infinities_gives_torchs_nan_without_numpy_warnings():
    """inf + (−inf) in one window is nan, silently (we used to print NumPy's RuntimeWarning)."""
    torch = require_torch()
    values = numpy.array([[[[-numpy.inf, numpy.inf, 1, numpy.nan], [-numpy.inf, -numpy.inf, 2, 3],
                            [numpy.nan, 0, numpy.inf, numpy.inf], [1, 1, numpy.inf, 5]]]])
    x = mg.tensor(values, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = F.avg_pool2d(x, 2, 1, 1)
        out.backward(mg.ones(*out.shape))
    theirs = torch.nn.functional.avg_pool2d(torch.tensor(values), 2, 1, 1)
    numpy.testing.assert_array_equal(host(out), theirs.numpy())
    numpy.testing.assert_array_equal(host(x.grad), numpy.ones((1, 1, 4, 4)))   # each element is in 4 windows


# --- argument handling shared by both pools --------------------------------------------------------

@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
@pytest.mark.parametrize(("kwargs", "fragment"), [
    ({"kernel_size": 2.0}, "2.0"), ({"kernel_size": (2, 1.5)}, "1.5"), ({"kernel_size": True}, "True"),
    ({"kernel_size": 2, "stride": (1.0, 1)}, "1.0"), ({"kernel_size": 2, "padding": 0.5}, "0.5"),
])
def test_pool_sizes_must_be_ints(pool, kwargs, fragment):
    """Floats were truncated by int() (padding=0.5 meant 0) or failed with "not iterable"."""
    raises_like_torch(lambda m: getattr(m.nn.functional, pool)(m.zeros(1, 1, 4, 4), **kwargs), TypeError,
                       fragment)


@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
def test_pool_sizes_accept_numpy_ints(pool):
    torch = require_torch()
    x = rng.standard_normal((1, 2, 6, 6))
    args = (numpy.int64(3), (numpy.int32(2), 1), numpy.int64(1))
    numpy.testing.assert_allclose(host(getattr(F, pool)(mg.tensor(x), *args)),
                                  getattr(torch.nn.functional, pool)(torch.tensor(x), *args).numpy())


@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
@pytest.mark.parametrize(("kwargs", "fragments"), [
    ({"kernel_size": 2, "padding": -1}, ["pad must be non-negative", "-1"]),
    ({"kernel_size": 2, "stride": -1}, ["stride should be greater than zero", "dH: -1 dW: -1"]),
    ({"kernel_size": (0, 2), "stride": 1}, ["kernel size should be greater than zero", "kH: 0 kW: 2"]),
])
def test_pool_negative_sizes_have_torchs_messages(pool, kwargs, fragments):
    """A negative padding used to be reported as "at most half of the kernel"; a negative stride as zero."""
    raises_like_torch(lambda m: getattr(m.nn.functional, pool)(m.zeros(1, 1, 4, 4), **kwargs), RuntimeError,
                       *fragments)


@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
def test_pool_too_many_sizes_names_the_function(pool):
    """The message named "max_pool2d/avg_pool2d" whichever was called."""
    raises_like_torch(lambda m: getattr(m.nn.functional, pool)(m.zeros(1, 1, 4, 4), (2, 2, 2)), RuntimeError,
                       f"{pool}: kernel_size", "[2, 2, 2]")


def test_integer_pooling_runs_on_the_cupy_standin():
    torch = require_torch()
    standin_cupy.install()
    try:
        values = numpy.array([[[[-7, 1, 5], [2, 3, -5], [9, -2, 4]]]])
        ours = F.avg_pool2d(mg.tensor(values, device="cuda"), 2, 1, 1, count_include_pad=False)
        assert isinstance(ours.array, standin_cupy.serving_module().ndarray)
        theirs = torch.nn.functional.avg_pool2d(torch.tensor(values), 2, 1, 1, count_include_pad=False)
        numpy.testing.assert_array_equal(ours.array.get(), theirs.numpy())
    finally:
        standin_cupy.uninstall()


# --- relu / sigmoid / tanh on bool and integer tensors --------------------------------------------

@pytest.mark.parametrize("call", [lambda m, t: m.nn.functional.relu(t), lambda m, t: m.relu(t),
                                  lambda m, t: t.relu(), lambda m, t: m.nn.ReLU()(t),
                                  lambda m, t: m.nn.functional.relu(t, inplace=True), lambda m, t: t.relu_()])
def test_relu_of_bool_is_a_runtimeerror_as_in_torch(call):
    """max(True, 0) used to come back as a bool tensor."""
    raises_like_torch(lambda m: call(m, m.tensor([True, False, True])), RuntimeError,
                       "Boolean inputs not supported for relu")


def test_relu_of_bool_in_place_leaves_the_tensor_alone():
    t = mg.tensor([True, False])
    with pytest.raises(RuntimeError):
        t.relu_()
    assert host(t).tolist() == [True, False] and t._version == 0


@pytest.mark.parametrize("fn", ["relu", "sigmoid", "tanh"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int8"])
def test_activations_of_integers_match_torch(fn, dtype):
    """Pinned while auditing: relu keeps the integer dtype, sigmoid and tanh give float32."""
    values = numpy.array([-3, 0, 2, 1]).astype(dtype)
    ours = getattr(F, fn)(mg.tensor(values))
    theirs = reference(lambda torch: getattr(torch.nn.functional, fn)(torch.tensor(values)))
    assert str(ours.dtype).rsplit(".", 1)[-1] == str(theirs.dtype)
    numpy.testing.assert_allclose(host(ours), theirs, rtol=1e-6)


# --- nn.init (no discrepancy found: these pin what the audit checked) ------------------------------

@pytest.mark.parametrize("nonlinearity", ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                                          "conv_transpose2d", "conv_transpose3d", "sigmoid", "tanh", "relu",
                                          "leaky_relu", "selu"])
@pytest.mark.parametrize("param", [None, 0.2, 1, numpy.float64(0.3)])
def test_calculate_gain_for_every_nonlinearity_torch_lists(nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == pytest.approx(
        reference(lambda torch: torch.nn.init.calculate_gain(nonlinearity, param)))


@pytest.mark.parametrize("fill", [
    lambda lib, t: lib.nn.init.kaiming_uniform_(t, a=0.3, mode="fan_out", nonlinearity="leaky_relu"),
    lambda lib, t: lib.nn.init.kaiming_normal_(t, mode="FAN_IN", nonlinearity="tanh"),
    lambda lib, t: lib.nn.init.xavier_uniform_(t, gain=0.5),
    lambda lib, t: lib.nn.init.xavier_normal_(t, gain=3.0),
])
def test_scaled_initialisers_have_torchs_spread(fill):
    """Seeded, so each library's own numbers are fixed; the spreads agree within sampling error."""
    torch = require_torch()
    torch.manual_seed(0)
    mg.manual_seed(0)
    ours, theirs = fill(mg, mg.empty(60, 50, 4)), fill(torch, torch.empty(60, 50, 4))
    assert host(ours).std() == pytest.approx(theirs.std().item(), rel=0.03)
    assert abs(host(ours).max()) <= abs(theirs.abs().max().item()) * 1.25


def test_initialisers_run_without_grad_and_return_their_tensor():
    generator = mg.Generator().manual_seed(4)
    for fill in (lambda t: init.uniform_(t, a=-1, b=2, generator=generator),
                 lambda t: init.normal_(t, mean=1, std=2, generator=generator),
                 lambda t: init.constant_(t, val=0.5), init.zeros_, init.ones_,
                 lambda t: init.kaiming_uniform_(t, generator=generator),
                 lambda t: init.xavier_normal_(t, generator=generator)):
        t = mg.empty(3, 4, requires_grad=True)
        assert fill(t) is t
        assert t.is_leaf and t.grad_fn is None and t.requires_grad
    bound = math.sqrt(6 / 4)   # kaiming_uniform_ with a=0 on fan_in = 4: √3 · √2 / √4
    assert numpy.abs(host(t)).max() <= bound


def test_kaiming_errors_as_torch():
    raises_like_torch(lambda m: m.nn.init.kaiming_uniform_(m.empty(3, 4), mode="fan_avg"), ValueError,
                       "Mode fan_avg not supported")
    raises_like_torch(lambda m: m.nn.init.kaiming_normal_(m.empty(5)), ValueError, "fewer than 2 dimensions")
    raises_like_torch(lambda m: m.nn.init.kaiming_normal_(m.empty(3, 4), a="x"), ValueError,
                       "negative_slope x not a valid number")
    assert init._calculate_correct_fan(mg.empty(6, 5, 3), "fan_out") == 18
    assert nn.init is init
