"""Regression tests from an audit of the losses and ``nn.functional`` against PyTorch: each test pins
one behaviour where minigrad used to differ (values, gradients, exception types, missing arguments).

Expected values come from PyTorch (the same call) or are derived by hand in the test.
"""

import warnings

import numpy
import pytest
import standin_cupy
from _reference import reference
from _torch import raises_like_torch, require_torch
from core.helpers import case, check_op

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

from .helpers import host

rng = numpy.random.default_rng(2024)
LOGITS = rng.standard_normal((4, 5))
TARGET = numpy.array([0, 4, 2, 1])
WEIGHT = numpy.array([0.3, 1.0, 2.0, 0.5, 1.7])
PROBABILITIES = rng.dirichlet(numpy.ones(5), size=4)


def _both(call):
    """``call(lib)`` on minigrad and on PyTorch (recorded: tensors come back as NumPy arrays); returns
    (ours, theirs)."""
    return call(mg), reference(call)




# --- cross_entropy / nll_loss ----------------------------------------------------------------------

@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_batched_input_with_a_0d_target_is_a_batch_size_valueerror(loss):
    """PyTorch counts a 0-d target as batch size 0 and raises ValueError (we raised RuntimeError)."""
    raises_like_torch(lambda m: getattr(m.nn.functional, loss)(m.tensor(LOGITS), m.tensor(1)), ValueError,
                       "batch_size (4)", "batch_size (0)")


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_unbatched_input_accepts_a_target_of_shape_1(loss, reduction):
    """Input (C,) with target (1,) is one sample, as with a 0-d target; 'none' gives a 0-d loss."""
    def forward(m, target):
        x = m.tensor(LOGITS[0], requires_grad=True)
        weight = m.tensor(WEIGHT)
        return x, getattr(m.nn.functional, loss)(x, m.tensor(target), weight=weight, reduction=reduction)

    x, ours = forward(mg, [3])
    _, theirs = forward(require_torch(), [3])  # PyTorch's forward works; its backward of this case raises
    assert ours.shape == tuple(theirs.shape) == ()
    numpy.testing.assert_allclose(host(ours), host(theirs), rtol=1e-12)
    ours.backward()
    x_ref, reference = forward(require_torch(), 3)  # the same sample with a 0-d target
    reference.backward()
    numpy.testing.assert_allclose(host(x.grad), host(x_ref.grad), rtol=1e-12)


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_unbatched_input_with_a_longer_target_is_a_valueerror(loss):
    raises_like_torch(lambda m: getattr(m.nn.functional, loss)(m.tensor(LOGITS[0]), m.tensor([1, 2])),
                       ValueError, "must have size 1", "target size: 2")


@pytest.mark.parametrize("smoothing", [-0.2, float("nan")])
@pytest.mark.parametrize("target", ["classes", "probabilities"])
def test_label_smoothing_that_is_not_positive_means_no_smoothing(smoothing, target):
    """PyTorch only rejects ε > 1; ε ≤ 0 or nan smooth nothing (we raised, and would have scaled by 1 − ε)."""
    def run(m):
        x = m.tensor(LOGITS, requires_grad=True)
        t = m.tensor(TARGET) if target == "classes" else m.tensor(PROBABILITIES)
        out = m.nn.functional.cross_entropy(x, t, weight=m.tensor(WEIGHT), reduction="sum",
                                            label_smoothing=smoothing)
        out.backward()
        return host(out), host(x.grad)

    (ours, ours_grad), (theirs, theirs_grad) = _both(run)
    numpy.testing.assert_allclose(ours, theirs, rtol=1e-12)
    numpy.testing.assert_allclose(ours_grad, theirs_grad, rtol=1e-10, atol=1e-12)
    unsmoothed = F.cross_entropy(mg.tensor(LOGITS), mg.tensor(TARGET) if target == "classes" else
                                 mg.tensor(PROBABILITIES), weight=mg.tensor(WEIGHT), reduction="sum")
    numpy.testing.assert_allclose(ours, host(unsmoothed), rtol=1e-12)


@pytest.mark.parametrize("loss, args", [
    ("cross_entropy", (LOGITS, TARGET)), ("nll_loss", (LOGITS, TARGET)), ("mse_loss", (LOGITS, LOGITS / 2)),
])
def test_elementwise_mean_is_the_deprecated_name_of_mean(loss, args):
    def run(m):
        with pytest.warns(UserWarning, match="elementwise_mean' is deprecated"):
            return host(getattr(m.nn.functional, loss)(m.tensor(args[0]), m.tensor(args[1]),
                                                       reduction="elementwise_mean"))

    ours, theirs = _both(run)
    numpy.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert nn.MSELoss(reduction="elementwise_mean").reduction == "elementwise_mean"  # as torch keeps it


def test_mean_over_no_targets_is_nan_without_a_numpy_warning():
    """PyTorch gives nan silently; NumPy's 0 / 0 RuntimeWarning is an error under ``-W error``."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for target in (mg.tensor([-100, -100]), mg.tensor(-100)):
            x = mg.randn(*((2, 3) if target.ndim else (3,)))
            assert numpy.isnan(F.cross_entropy(x, target).item())
            assert numpy.isnan(F.nll_loss(x, target).item())
        empty = F.cross_entropy(mg.zeros(0, 3), mg.zeros(0, dtype=mg.int64))
        assert numpy.isnan(empty.item())


def test_probability_target_with_a_wrong_weight_names_the_classes():
    raises_like_torch(lambda m: m.nn.functional.cross_entropy(m.tensor(LOGITS), m.tensor(PROBABILITIES),
                                                               weight=m.tensor(WEIGHT[:4])),
                       RuntimeError, "all 5 classes", "[4]")


# --- softmax / log_softmax -------------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, dim", [((0,), 0), ((0, 3), 0), ((0, 3), 1), ((3, 0), -1), ((2, 0, 4), 2)])
def test_softmax_of_an_empty_tensor_is_empty(fn, shape, dim):
    """We crashed (NumPy's max of an empty axis); PyTorch returns an empty tensor and an empty gradient."""
    def run(m):
        x = m.zeros(shape, requires_grad=True)
        out = getattr(m.nn.functional, fn)(x, dim)
        out.sum().backward()
        return out, x.grad

    (ours, ours_grad), (theirs, theirs_grad) = _both(run)
    assert ours.shape == tuple(theirs.shape) and ours_grad.shape == tuple(theirs_grad.shape) == shape


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_of_a_0d_tensor_checks_dim_and_warns_without_one(fn):
    raises_like_torch(lambda m: getattr(m.nn.functional, fn)(m.tensor(1.0), 1), IndexError, "[-1, 0]", "1")
    with pytest.warns(UserWarning, match="Implicit dimension choice") as record:
        out = getattr(F, fn)(mg.tensor(2.0))
    assert record[0].filename == __file__  # the warning points at the caller, as PyTorch's _stacklevel
    assert out.item() == (1.0 if fn == "softmax" else 0.0)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_dim_must_be_one_int(fn):
    """A tuple used to be taken for its first entry, silently."""
    raises_like_torch(lambda m: getattr(m.nn.functional, fn)(m.tensor(LOGITS), (0, 1)), TypeError, "tuple")


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_tensor_softmax_takes_dtype(fn):
    def run(m):
        x = m.tensor(LOGITS.astype(numpy.float32), requires_grad=True)
        out = getattr(x, fn)(1, dtype=m.float64)
        (out * m.tensor(LOGITS)).sum().backward()
        return out, x.grad

    (ours, ours_grad), (theirs, theirs_grad) = _both(run)
    assert ours.dtype == mg.float64 and ours_grad.dtype == mg.float32
    numpy.testing.assert_allclose(host(ours), host(theirs), rtol=1e-6)
    numpy.testing.assert_allclose(host(ours_grad), host(theirs_grad), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_of_infinities_matches_torch_without_numpy_warnings(fn):
    values = numpy.array([[-numpy.inf, -numpy.inf, 0.0], [numpy.inf, 1.0, 2.0], [numpy.nan, 1.0, 0.0],
                          [3e38, -3e38, 3e38]], dtype=numpy.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = host(getattr(F, fn)(mg.tensor(values), 1))
    theirs = host(getattr(require_torch().nn.functional, fn)(require_torch().tensor(values), 1))
    numpy.testing.assert_allclose(ours, theirs, rtol=1e-6)  # nan and inf where PyTorch has them


# --- dropout ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("p, training", [(0.0, True), (0.5, False)])
def test_dropout_that_drops_nothing_accepts_integer_inputs(p, training):
    def run(m):
        x = m.tensor([1, 2, 3])
        return x, m.nn.functional.dropout(x, p, training=training)

    (x, ours), (_, theirs) = _both(run)
    assert ours is x
    assert host(ours).tolist() == host(theirs).tolist()
    with pytest.raises(RuntimeError, match="int64"):  # dropping needs floats, in both libraries
        F.dropout(x, 0.5)


@pytest.mark.parametrize("training", [True, False])
def test_dropout_with_nan_p_is_a_runtimeerror(training):
    raises_like_torch(lambda m: m.nn.functional.dropout(m.ones(3), float("nan"), training), RuntimeError,
                       "nan")


def test_dropout_p1_of_infinite_values_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = host(F.dropout(mg.tensor([numpy.inf, 1.0]), 1.0))
    theirs = host(require_torch().nn.functional.dropout(require_torch().tensor([numpy.inf, 1.0]), 1.0))
    numpy.testing.assert_array_equal(out, theirs)  # inf · 0 = nan, then 0


# --- pad: reflect, replicate, circular ------------------------------------------------------------

def _pad(pad, mode):
    return lambda m, x: m.nn.functional.pad(x, pad, mode=mode)


PAD_CASES = [
    case(f"pad-{mode}-{name}", _pad(pad, mode), shape)
    for mode in ("reflect", "replicate", "circular")
    for name, shape, pad in [
        ("2d", (3, 5), (2, 1)),                          # unbatched (C, W)
        ("3d", (2, 3, 5), (1, 3)),
        ("3d-two-axes", (2, 4, 5), (2, 0, 1, 3)),        # unbatched (C, H, W)
        ("4d", (2, 2, 4, 5), (1, 2, 3, 1)),
        ("4d-crop", (2, 2, 4, 5), (-1, 3, 2, -2)),       # a negative width crops
        ("5d-three-axes", (1, 2, 3, 4, 5), (1, 0, 2, 1, 1, 2)),
        ("4d-three-axes", (2, 3, 4, 5), (0, 2, 1, -1, 2, 0)),
        ("all-sides-repeat", (1, 2, 2, 3), (2, 2, 1, 1)),
    ]
]


@pytest.mark.parametrize("c", PAD_CASES)
def test_pad_modes_match_torch(c):
    """Values and gradients (a position copied k times receives k gradients) and gradcheck."""
    check_op(c)


def test_pad_modes_by_hand():
    x = mg.tensor([[[0.0, 1.0, 2.0, 3.0]]], requires_grad=True)
    assert F.pad(x, (2, 1), mode="reflect").tolist() == [[[2.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0]]]
    assert F.pad(x, (2, 1), mode="replicate").tolist() == [[[0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 3.0]]]
    assert F.pad(x, (2, 1), mode="circular").tolist() == [[[2.0, 3.0, 0.0, 1.0, 2.0, 3.0, 0.0]]]
    F.pad(x, (3, 2), mode="replicate").sum().backward()
    assert x.grad.tolist() == [[[4.0, 1.0, 1.0, 3.0]]]  # each edge is copied into its padding
    assert F.pad(x, (1, 1), mode="reflect").grad_fn.name() == "ReflectionPadBackward0"


@pytest.mark.parametrize("call, error, fragments", [
    (lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (1, 0, 1)), RuntimeError, ["divisible by 2", "3"]),
    (lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (1,) * 8), RuntimeError, ["length 8", "dimension 3"]),
    (lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (1.0, 2.0)), TypeError, ["float"]),
    (lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (1, 1), mode="zeros"), NotImplementedError, ["zeros"]),
    (lambda m: m.nn.functional.pad(m.ones(3), (1, 1), mode="reflect"), NotImplementedError,
     ["Padding size 2", "1D input"]),
    (lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (1, 1, 1, 1, 1, 1), mode="replicate"),
     NotImplementedError, ["Padding size 6", "3D input"]),
    (lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (1, 0), mode="reflect", value=1.0), RuntimeError,
     ['"reflect"', "value"]),
    (lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (3, 0), mode="reflect"), RuntimeError,
     ["(3, 0)", "[1, 2, 3]"]),
    (lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (0, 4), mode="circular"), RuntimeError,
     ["wrapping around more than once", "(0, 4)"]),
    (lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (-2, -1), mode="replicate"), RuntimeError, ["[0]"]),
    (lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (-2, -2), mode="circular"), RuntimeError, ["[-1]"]),
    (lambda m: m.nn.functional.pad(m.ones(1, 0, 3), (1, 1), mode="replicate"), RuntimeError, ["[1, 0, 3]"]),
])
def test_pad_errors_are_torchs(call, error, fragments):
    raises_like_torch(call, error, *fragments)


def test_pad_edge_cases_match_torch():
    """Zero value allowed with reflect, an empty batch, cropping to nothing, a 0-d input with no widths."""
    for call in (lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (1, 0), mode="reflect", value=0),
                 lambda m: m.nn.functional.pad(m.ones(0, 2, 3), (1, 2), mode="replicate"),
                 lambda m: m.nn.functional.pad(m.ones(2, 3, 4), (0, 0, -3, 0), mode="circular"),
                 lambda m: m.nn.functional.pad(m.ones(2, 3, 4), (0, 0, -3, 0), mode="reflect"),
                 lambda m: m.nn.functional.pad(m.tensor(2.0), ())):
        ours, theirs = _both(call)
        assert ours.shape == tuple(theirs.shape)
        numpy.testing.assert_array_equal(host(ours), host(theirs))


def test_circular_pad_past_what_cropping_left_raises():
    """PyTorch copies uninitialised memory here (cropped to 2 entries, then wrapped by 3); we refuse."""
    with pytest.raises(RuntimeError, match=r"\(3, -1\).*2 entries left"):
        F.pad(mg.ones(1, 2, 3), (3, -1), mode="circular")


def test_gather_pads_run_on_the_cupy_standin():
    x = rng.standard_normal((2, 2, 3, 4)).astype(numpy.float32)
    grads = {}
    standin_cupy.install()
    try:
        for device in ("cpu", "cuda"):
            xt = mg.tensor(x, device=device, requires_grad=True)
            modes = ("reflect", "replicate", "circular")
            out = sum(F.pad(xt, (1, 2, 2, 1), mode=mode).sum() for mode in modes)
            out.backward()
            grads[device] = host(xt.grad)
    finally:
        mg.set_backend("numpy")
        standin_cupy.uninstall()
    numpy.testing.assert_allclose(grads["cuda"], grads["cpu"], rtol=1e-6)
    assert grads["cpu"].min() >= 3.0  # every input position appears at least once in each of the three


# --- unfold / fold ---------------------------------------------------------------------------------

IMAGES = rng.standard_normal((2, 3, 5, 6))
COLUMNS = rng.standard_normal((2, 12, 20))


@pytest.mark.parametrize("call, error, fragments", [
    (lambda m: m.nn.functional.unfold(m.tensor(IMAGES), 0), RuntimeError, ["kernel_height: 0"]),
    (lambda m: m.nn.functional.unfold(m.tensor(IMAGES), 2, stride=(1, 0)), RuntimeError, ["stride_width: 0"]),
    (lambda m: m.nn.functional.unfold(m.tensor(IMAGES), 2, padding=-1), RuntimeError, ["pad_height: -1"]),
    (lambda m: m.nn.functional.unfold(m.tensor(IMAGES), 2, dilation=0), RuntimeError, ["dilation_height: 0"]),
    (lambda m: m.nn.functional.unfold(m.tensor(IMAGES), (2,)), RuntimeError, ["kernel_size", "size 1"]),
    (lambda m: m.nn.functional.unfold(m.tensor(IMAGES[0, 0]), 2), IndexError, ["2D"]),
    (lambda m: m.nn.functional.unfold(m.zeros(2, 0, 5, 6), 2), RuntimeError, ["[2, 0, 5, 6]"]),
    (lambda m: m.nn.functional.unfold(m.ones(1, 1, 3, 3, dtype=m.int64), 2), NotImplementedError, []),
    (lambda m: m.nn.functional.fold(m.tensor(COLUMNS), (5, 6), 2, stride=0), RuntimeError,
     ["stride_height: 0"]),
    (lambda m: m.nn.functional.fold(m.tensor(COLUMNS), (5, 6), 0), RuntimeError, ["kernel_width: 0"]),
    (lambda m: m.nn.functional.fold(m.tensor(COLUMNS), (5,), 2), RuntimeError, ["output_size", "size 1"]),
    (lambda m: m.nn.functional.fold(m.zeros(2, 0, 20), (5, 6), 2), RuntimeError, ["[2, 0, 20]"]),
    (lambda m: m.nn.functional.fold(m.ones(1, 4, 4, dtype=m.int64), (3, 3), 2), NotImplementedError, []),
])
def test_unfold_and_fold_argument_errors_are_torchs(call, error, fragments):
    raises_like_torch(call, error, *fragments)


def test_unfold_of_an_empty_batch():
    def run(m):
        x = m.zeros(0, 3, 5, 6, requires_grad=True)
        out = m.nn.functional.unfold(x, 2, padding=1)
        out.sum().backward()
        return out, x.grad

    (ours, ours_grad), (theirs, theirs_grad) = _both(run)
    assert ours.shape == tuple(theirs.shape) == (0, 12, 42)
    assert ours_grad.shape == tuple(theirs_grad.shape)


# --- linear ----------------------------------------------------------------------------------------

LINEAR_CASES = [
    case("linear-weight-vector", lambda m, x, w: m.nn.functional.linear(x, w), (3, 4), (4,)),
    case("linear-weight-vector-batched", lambda m, x, w: m.nn.functional.linear(x, w), (2, 3, 4), (4,)),
    case("linear-weight-vector-1d-input", lambda m, x, w: m.nn.functional.linear(x, w), (4,), (4,)),
]


@pytest.mark.parametrize("c", LINEAR_CASES)
def test_linear_with_a_weight_vector_matches_torch(c):
    """PyTorch's F.linear takes a 1-D weight (one output feature, dropped): y = x @ w."""
    check_op(c)


def test_linear_with_a_weight_vector_and_a_bias_is_an_error_as_in_torch():
    raises_like_torch(lambda m: m.nn.functional.linear(m.ones(3, 4), m.ones(4), m.ones(1)), RuntimeError)
