"""Regression tests from an audit of misuse in ``nn`` (layers, ``F``, ``nn.grad``, losses, Module, Parameter)
against PyTorch: each row pins one call where minigrad used to return a silent result (a 0-sized kernel
gave zeros, a negative eps gave nan), raise another exception type (NumPy's or an AttributeError where
PyTorch's argument parser raises TypeError), or raise where PyTorch does not.

Every row runs the same call on PyTorch and on minigrad: both must raise the listed type, and minigrad's
message must name the listed numbers and names.
"""

import warnings

import numpy
import pytest
from _torch import raises_like_torch, require_torch

import minigrad as mg
import minigrad.nn.functional as F

from .helpers import host

pytest.importorskip("torch.nn.grad")   # makes torch.nn.grad available
import minigrad.nn.grad  # noqa: E402, F401  (makes mg.nn.grad available)

pytestmark = [pytest.mark.filterwarnings("ignore:Initializing zero-element tensors is a no-op"),
              pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths"),
              pytest.mark.filterwarnings("ignore:dropout2d. Received a 3D input")]

X = numpy.random.default_rng(3).standard_normal((4, 5))


def _cases(*rows):
    return [pytest.param(call, error, list(fragments), id=name) for name, call, error, fragments in rows]


# --- convolutions: kernel size, argument types, nn.grad ------------------------------------------------

CONV = _cases(
    ("kernel-0x3", lambda m: m.nn.functional.conv2d(m.ones(1, 2, 5, 5), m.ones(2, 2, 0, 3)), RuntimeError,
     ["kernel_height: 0", "kernel_width: 3"]),
    ("layer-kernel-0", lambda m: m.nn.Conv2d(2, 2, 0)(m.ones(1, 2, 5, 5)), RuntimeError,
     ["kernel_height: 0", "kernel_width: 0"]),
    ("same-kernel-0", lambda m: m.nn.functional.conv2d(m.ones(1, 2, 5, 5), m.ones(2, 2, 0, 3),
                                                       padding="same"),
     RuntimeError, ["kernel_height: 0", "kernel_width: 3"]),
    ("conv1d-kernel-0", lambda m: m.nn.functional.conv1d(m.ones(1, 2, 5), m.ones(2, 2, 0)), RuntimeError,
     ["kernel_height: 1", "kernel_width: 0"]),
    ("grad-input-kernel-0", lambda m: m.nn.grad.conv2d_input((1, 2, 5, 5), m.ones(2, 2, 0, 3),
                                                             m.ones(1, 2, 5, 3)),
     RuntimeError, ["kernel_height: 0", "kernel_width: 3"]),
    ("grad-weight-kernel-0", lambda m: m.nn.grad.conv2d_weight(m.ones(1, 2, 5, 5), (2, 2, 0, 3),
                                                               m.ones(1, 2, 5, 3)),
     RuntimeError, ["kernel_height: 0", "kernel_width: 3"]),
    ("groups-float", lambda m: m.nn.functional.conv2d(m.ones(1, 2, 5, 5), m.ones(2, 1, 3, 3), groups=2.0),
     TypeError, ["groups", "2.0"]),
    ("conv1d-groups-float", lambda m: m.nn.functional.conv1d(m.ones(1, 2, 5), m.ones(2, 1, 3), groups=2.0),
     TypeError, ["groups", "2.0"]),
    ("stride-str", lambda m: m.nn.functional.conv2d(m.ones(1, 2, 5, 5), m.ones(2, 2, 3, 3), stride="1"),
     TypeError, ["stride", "'1'"]),
    ("dilation-str", lambda m: m.nn.functional.conv2d(m.ones(1, 2, 5, 5), m.ones(2, 2, 3, 3), dilation="2"),
     TypeError, ["dilation", "'2'"]),
    ("input-numpy", lambda m: m.nn.functional.conv2d(numpy.ones((1, 2, 5, 5), numpy.float32),
                                                     m.ones(2, 2, 3, 3)),
     TypeError, ["input", "ndarray"]),
    ("weight-list", lambda m: m.nn.functional.conv2d(m.ones(1, 1, 2, 2), [[1.0]]), TypeError,
     ["weight", "list"]),
    ("bias-list", lambda m: m.nn.functional.conv2d(m.ones(1, 1, 2, 2), m.ones(1, 1, 1, 1), [1.0]), TypeError,
     ["bias", "list"]),
    ("conv1d-input-list", lambda m: m.nn.functional.conv1d([[1.0]], m.ones(1, 1, 1)), TypeError,
     ["input", "list"]),
    # nn.grad named the output size when the channels were what disagreed
    ("grad-input-channels", lambda m: m.nn.grad.conv2d_input((1, 3, 5, 5), m.ones(4, 2, 3, 3),
                                                             m.ones(1, 4, 3, 3)),
     RuntimeError, ["groups=1", "[4, 2, 3, 3]", "input[1, 3, 5, 5]", "2 channels", "3 channels"]),
    ("grad-weight-channels", lambda m: m.nn.grad.conv2d_weight(m.ones(1, 3, 5, 5), (4, 2, 3, 3),
                                                               m.ones(1, 4, 3, 3)),
     RuntimeError, ["groups=1", "[4, 2, 3, 3]", "input[1, 3, 5, 5]", "2 channels", "3 channels"]),
    ("grad-weight-input-list", lambda m: m.nn.grad.conv2d_weight([[1.0]], (4, 2, 3, 3), m.ones(1, 4, 3, 3)),
     RuntimeError, ["input", "list"]),
    ("grad-input-weight-list", lambda m: m.nn.grad.conv2d_input((1, 2, 5, 5), [[1.0]], m.ones(1, 2, 3, 3)),
     RuntimeError, ["weight", "list"]),
    ("grad-output-list", lambda m: m.nn.grad.conv2d_input((1, 2, 5, 5), m.ones(2, 2, 3, 3), [[1.0]]),
     AttributeError, ["list", "new_empty"]),
)


@pytest.mark.parametrize("call, error, fragments", CONV)
def test_convolution_misuse_raises_like_torch(call, error, fragments):
    raises_like_torch(call, error, *fragments)


# --- batch norm: eps, momentum, dtypes, Tensor arguments -------------------------------------------------

BATCH_NORM = _cases(
    ("layer-eps-negative", lambda m: m.nn.BatchNorm1d(3, eps=-1.0)(m.ones(4, 3)), ValueError,
     ["positive during training", "-1.0"]),
    ("layer-eps-zero", lambda m: m.nn.BatchNorm2d(3, eps=0.0)(m.ones(2, 3, 2, 2)), ValueError,
     ["positive during training", "0.0"]),
    ("eval-eps-negative", lambda m: m.nn.BatchNorm2d(3, eps=-1.0).eval()(m.ones(2, 3, 2, 2)), ValueError,
     ["non-negative", "-1.0"]),
    ("F-eps-negative", lambda m: m.nn.functional.batch_norm(m.ones(4, 3), None, None, training=True,
                                                            eps=-1e-5),
     ValueError, ["-1e-05"]),
    ("int-input", lambda m: m.nn.BatchNorm1d(3)(m.ones(4, 3, dtype=m.int64)), NotImplementedError,
     ["batch_norm", "Long"]),
    ("float64-input-float32-layer", lambda m: m.nn.BatchNorm1d(3)(m.ones(4, 3, dtype=m.float64)),
     RuntimeError, ["mixed dtype", "float64", "float32"]),
    ("float32-input-float64-stats", lambda m: m.nn.functional.batch_norm(
        m.ones(4, 3), m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64)), RuntimeError,
     ["mixed dtype", "float32", "float64"]),
    ("momentum-str", lambda m: m.nn.BatchNorm1d(3, momentum="x")(m.ones(4, 3)), TypeError,
     ["momentum", "str"]),
    ("F-momentum-none", lambda m: m.nn.functional.batch_norm(m.ones(4, 3), m.zeros(3), m.ones(3),
                                                             training=True, momentum=None),
     TypeError, ["momentum", "NoneType"]),
    ("running-var-missing", lambda m: m.nn.functional.batch_norm(m.ones(4, 3), m.zeros(3), None,
                                                                 training=True),
     ValueError, ["running_mean", "running_var"]),
    ("1d-input-eval", lambda m: m.nn.functional.batch_norm(m.ones(3), m.zeros(3), m.ones(3)), RuntimeError,
     ["[3]"]),
    ("1d-input-training", lambda m: m.nn.functional.batch_norm(m.ones(3), None, None, training=True),
     IndexError, ["[-1, 0]", "[3]"]),
    ("weight-list", lambda m: m.nn.functional.batch_norm(m.ones(2, 2), m.zeros(2), m.ones(2), [1.0, 1.0]),
     TypeError, ["weight", "position 2", "list"]),
    ("running-mean-numpy", lambda m: m.nn.functional.batch_norm(m.ones(2, 2), numpy.zeros(2), m.ones(2)),
     TypeError, ["running_mean", "position 4", "ndarray"]),
)


@pytest.mark.parametrize("call, error, fragments", BATCH_NORM)
def test_batch_norm_misuse_raises_like_torch(call, error, fragments):
    raises_like_torch(call, error, *fragments)


def test_batch_norm_of_a_float16_input_with_float32_statistics_is_allowed_as_in_torch():
    torch = require_torch()
    x = mg.tensor(X.astype(numpy.float16))
    out = F.batch_norm(x, mg.zeros(5), mg.ones(5), training=True)
    assert out.dtype is mg.float16
    assert tuple(torch.nn.functional.batch_norm(torch.tensor(X).half(), torch.zeros(5), torch.ones(5),
                                                training=True).shape) == out.shape


# --- the argument parser of F: Tensors, flags, numbers ------------------------------------------------------

FUNCTIONAL = _cases(
    ("linear-input-list", lambda m: m.nn.functional.linear([[1.0, 2.0]], m.ones(2, 2)), TypeError,
     ["linear", "input", "position 1", "list"]),
    ("linear-weight-numpy", lambda m: m.nn.functional.linear(m.ones(2, 2), numpy.ones((2, 2), numpy.float32)),
     TypeError, ["weight", "position 2", "ndarray"]),
    ("linear-layer-numpy", lambda m: m.nn.Linear(2, 2)(numpy.ones((1, 2), numpy.float32)), TypeError,
     ["input", "ndarray"]),
    ("relu-list", lambda m: m.nn.functional.relu([1.0, -1.0]), TypeError, ["relu", "list"]),
    ("relu-layer-list", lambda m: m.nn.ReLU()([1.0, -1.0]), TypeError, ["relu", "list"]),
    ("max-pool-list", lambda m: m.nn.functional.max_pool2d([[1.0]], 1), TypeError, ["max_pool2d", "list"]),
    ("avg-pool-numpy", lambda m: m.nn.functional.avg_pool2d(numpy.ones((1, 1, 2, 2)), 1), TypeError,
     ["avg_pool2d", "ndarray"]),
    ("avg-pool1d-numpy", lambda m: m.nn.functional.avg_pool1d(numpy.ones((1, 1, 4)), 2), TypeError,
     ["avg_pool1d", "ndarray"]),
    ("unfold-list", lambda m: m.nn.functional.unfold([[1.0]], 1), TypeError, ["im2col", "list"]),
    ("fold-list", lambda m: m.nn.functional.fold([[1.0]], (2, 2), 1), TypeError, ["col2im", "list"]),
    ("layer-norm-list", lambda m: m.nn.functional.layer_norm([[1.0, 2.0]], (2,)), TypeError,
     ["layer_norm", "list"]),
    ("dropout-list", lambda m: m.nn.functional.dropout([1.0, 2.0]), TypeError, ["dropout", "list"]),
    ("dropout-training-str", lambda m: m.nn.functional.dropout(m.ones(3), 0.5, training="no"), TypeError,
     ["train", "str"]),
    ("dropout-training-int", lambda m: m.nn.functional.dropout(m.ones(3), 0.5, training=1), TypeError,
     ["train", "int"]),
    ("dropout2d-training-none", lambda m: m.nn.functional.dropout2d(m.ones(1, 2, 3), 0.5, training=None),
     TypeError, ["train", "NoneType"]),
    ("pad-input-list", lambda m: m.nn.functional.pad([1.0], (1, 1)), TypeError, ["pad", "input", "list"]),
    ("pad-widths-int", lambda m: m.nn.functional.pad(m.ones(2, 3), 1), TypeError, ["pad", "int"]),
    ("pad-widths-numpy", lambda m: m.nn.functional.pad(m.ones(2, 3), numpy.array([1, 1])), TypeError,
     ["pad", "ndarray"]),
    ("pad-mode-none", lambda m: m.nn.functional.pad(m.ones(1, 2, 3), (1, 1), mode=None), TypeError,
     ["mode", "NoneType"]),
    ("pad-value-str", lambda m: m.nn.functional.pad(m.ones(2, 3), (1, 1), value="a"), TypeError,
     ["value", "str"]),
)


@pytest.mark.parametrize("call, error, fragments", FUNCTIONAL)
def test_functional_argument_misuse_raises_like_torch(call, error, fragments):
    raises_like_torch(call, error, *fragments)


# --- losses: PyTorch's order of checks, Tensor arguments, reduction checked on the call ----------------

LOSSES = _cases(
    ("nll-0d-input", lambda m: m.nn.functional.nll_loss(m.tensor(1.0), m.tensor(0)), ValueError, ["got 0"]),
    ("ce-float-target-other-batch", lambda m: m.nn.functional.cross_entropy(m.zeros(4, 5), m.zeros(3, 5)),
     ValueError, ["batch_size (4)", "batch_size (3)"]),
    ("ce-float-target-class-shape", lambda m: m.nn.functional.cross_entropy(m.zeros(4, 5), m.zeros(4)),
     RuntimeError, ["Long", "float32"]),
    ("ce-int-target-of-input-shape", lambda m: m.nn.functional.cross_entropy(m.zeros(2, 3),
                                                                             m.zeros(2, 3, dtype=m.int64)),
     RuntimeError, ["probabilities", "Long", "[2, 3]"]),
    ("ce-int32-target-other-batch", lambda m: m.nn.functional.cross_entropy(
        m.zeros(4, 5), m.tensor([0, 1, 2], dtype=m.int32)), ValueError, ["batch_size (4)", "batch_size (3)"]),
    ("nll-int32-target-other-batch", lambda m: m.nn.functional.nll_loss(
        m.zeros(2, 5, 3), m.zeros(1, 3, dtype=m.int32)), ValueError, ["batch_size (2)", "batch_size (1)"]),
    ("ce-target-list", lambda m: m.nn.functional.cross_entropy(m.zeros(2, 3), [0, 1]), TypeError,
     ["target", "position 2", "list"]),
    ("ce-input-list", lambda m: m.nn.functional.cross_entropy([[1.0, 2.0]], m.tensor([0])), TypeError,
     ["input", "position 1", "list"]),
    ("ce-weight-list", lambda m: m.nn.functional.cross_entropy(m.zeros(2, 3), m.tensor([0, 1]),
                                                               weight=[1.0, 1.0, 1.0]),
     TypeError, ["weight", "position 3", "list"]),
    ("nll-target-list", lambda m: m.nn.functional.nll_loss(m.zeros(2, 3), [0, 1]), TypeError,
     ["nll_loss_nd", "target", "list"]),
    ("layer-ignore-index-float", lambda m: m.nn.CrossEntropyLoss(ignore_index=1.5)(m.zeros(2, 3),
                                                                                   m.tensor([0, 1])),
     TypeError, ["ignore_index", "float"]),
    ("nll-ignore-index-float", lambda m: m.nn.functional.nll_loss(m.zeros(2, 3), m.tensor([0, 1]),
                                                                  ignore_index=1.0),
     TypeError, ["ignore_index", "float"]),
    ("label-smoothing-str", lambda m: m.nn.functional.cross_entropy(m.zeros(2, 3), m.tensor([0, 1]),
                                                                    label_smoothing="x"),
     TypeError, ["label_smoothing", "str"]),
)


@pytest.mark.parametrize("call, error, fragments", LOSSES)
def test_loss_misuse_raises_like_torch(call, error, fragments):
    raises_like_torch(call, error, *fragments)


@pytest.mark.parametrize("ignore_index", [-5, -100])
def test_probability_targets_accept_a_negative_ignore_index_as_torch(ignore_index):
    """PyTorch refuses ignore_index ≥ 0 with soft targets; a negative one (not only -100) is unused."""
    torch = require_torch()
    probabilities = numpy.full((4, 5), 0.2)
    ours = F.cross_entropy(mg.tensor(X), mg.tensor(probabilities), ignore_index=ignore_index)
    theirs = torch.nn.functional.cross_entropy(torch.tensor(X), torch.tensor(probabilities),
                                               ignore_index=ignore_index)
    numpy.testing.assert_allclose(host(ours), host(theirs), rtol=1e-12)


LOSS_LAYERS = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss",
               "BCEWithLogitsLoss", "KLDivLoss"]


@pytest.mark.parametrize("name", LOSS_LAYERS)
def test_a_bad_reduction_is_refused_by_the_call_not_the_constructor(name):
    """PyTorch builds the layer and raises on its first call; we raised in the constructor."""
    torch = require_torch()
    target = {"CrossEntropyLoss": lambda m: m.tensor([0, 1]), "NLLLoss": lambda m: m.tensor([0, 1])}.get(
        name, lambda m: m.full((2, 3), 0.5))
    for lib in (torch, mg):
        layer = getattr(lib.nn, name)(reduction="total")
        assert layer.reduction == "total"
    raises_like_torch(lambda m: getattr(m.nn, name)(reduction="total")(m.full((2, 3), 0.5), target(m)),
                      ValueError, "total")


# --- Module, Parameter, Flatten ----------------------------------------------------------------------------

MODULE = _cases(
    ("parameter-of-a-list", lambda m: m.nn.Parameter([1.0, 2.0]), AttributeError, ["list", "detach"]),
    ("parameter-of-numpy", lambda m: m.nn.Parameter(numpy.ones(2)), AttributeError, ["ndarray", "detach"]),
    ("parameter-requires-grad-str", lambda m: m.nn.Parameter(m.ones(1), requires_grad="x"), TypeError,
     ["require_grad", "str"]),
    ("parameter-requires-grad-int", lambda m: m.nn.Parameter(m.ones(1), requires_grad=1), TypeError,
     ["require_grad", "int"]),
    ("flatten-0d", lambda m: m.nn.Flatten()(m.tensor(1.0)), IndexError, ["[-1, 0]", "1"]),
    ("flatten-1d", lambda m: m.nn.Flatten()(m.ones(3)), IndexError, ["[-1, 0]", "1"]),
)


@pytest.mark.parametrize("call, error, fragments", MODULE)
def test_module_misuse_raises_like_torch(call, error, fragments):
    raises_like_torch(call, error, *fragments)


def test_state_dict_takes_deprecated_positional_arguments_as_torch():
    """``state_dict(destination, prefix, keep_vars)`` by position still works in PyTorch, with a warning."""
    torch = require_torch()
    ours, theirs = mg.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        state = ours.state_dict(None, "layer.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        reference = theirs.state_dict(None, "layer.")
    assert list(state) == list(reference) == ["layer.weight", "layer.bias"]
    destination = {}
    with pytest.warns(FutureWarning):
        assert ours.state_dict(destination, "p.", True) is destination
    assert destination["p.weight"] is ours.weight   # keep_vars=True keeps the Parameter itself
