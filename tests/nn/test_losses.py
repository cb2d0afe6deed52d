"""Cross-entropy, NLL and MSE: every reduction, class weights, ignore_index, label smoothing, soft
targets and spatial inputs against PyTorch; their error messages; and the fused graph."""

import warnings

import numpy
import pytest
from _torch import require_torch
from core.helpers import case, check_op

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

from .helpers import host

rng = numpy.random.default_rng(7)
TARGET = numpy.array([0, 3, 1, 3])
TARGET_IGNORED = numpy.array([0, -100, 1, 3])
SPATIAL_TARGET = rng.integers(0, 3, (2, 2, 3))
SPATIAL_TARGET[0, 1, 1] = 1
WEIGHT = numpy.array([0.3, 1.0, 2.0, 0.5])
SOFT = rng.dirichlet(numpy.ones(4), size=4)


def _const(m, array, like):
    return m.tensor(array, dtype=like.dtype)


def _ce(**options):
    return lambda m, x, t: m.nn.functional.cross_entropy(x, t, **options)


def _ce_weighted(**options):
    return lambda m, x, t: m.nn.functional.cross_entropy(x, t, weight=_const(m, WEIGHT, x), **options)


def _nll(**options):
    return lambda m, x, t: m.nn.functional.nll_loss(x, t, **options)


def _nll_weighted(**options):
    return lambda m, x, t: m.nn.functional.nll_loss(x, t, weight=_const(m, WEIGHT, x), **options)


CASES = [case(f"ce-{reduction}", _ce(reduction=reduction), (4, 4), TARGET)
         for reduction in ("mean", "sum", "none")]
CASES += [
    case("ce-weighted", _ce_weighted(), (4, 4), TARGET),
    case("ce-weighted-none", _ce_weighted(reduction="none"), (4, 4), TARGET),
    case("ce-ignore-index", _ce(), (4, 4), TARGET_IGNORED),
    case("ce-custom-ignore-index", _ce(ignore_index=3), (4, 4), TARGET),
    case("ce-weighted-ignored-sum", _ce_weighted(reduction="sum"), (4, 4), TARGET_IGNORED),
    case("ce-label-smoothing", _ce(label_smoothing=0.2), (4, 4), TARGET_IGNORED),
    case("ce-label-smoothing-weighted", _ce_weighted(label_smoothing=0.3), (4, 4), TARGET_IGNORED),
    case("ce-label-smoothing-none", _ce_weighted(label_smoothing=0.1, reduction="none"), (4, 4),
         TARGET_IGNORED),
    case("ce-spatial", _ce(), (2, 3, 2, 3), SPATIAL_TARGET),
    case("ce-spatial-none", _ce(reduction="none"), (2, 3, 2, 3), SPATIAL_TARGET),
    case("ce-unbatched", _ce(), (4,), numpy.array(2)),
    case("ce-probabilities", _ce(), (4, 4), SOFT),
    case("ce-probabilities-smoothed-weighted", _ce_weighted(label_smoothing=0.2, reduction="sum"), (4, 4),
         SOFT),
    case("ce-probabilities-none", _ce(reduction="none"), (4, 4), SOFT),
    case("nll-mean", _nll(), (4, 4), TARGET),
    case("nll-sum", _nll(reduction="sum"), (4, 4), TARGET),
    case("nll-none", _nll(reduction="none"), (4, 4), TARGET_IGNORED),
    case("nll-weighted-ignored", _nll_weighted(), (4, 4), TARGET_IGNORED),
    case("nll-spatial", _nll_weighted(reduction="none"), (2, 4, 2, 3), SPATIAL_TARGET),
    case("mse-mean", lambda m, x, y: m.nn.functional.mse_loss(x, y), (3, 4), (3, 4)),
    case("mse-sum", lambda m, x, y: m.nn.functional.mse_loss(x, y, reduction="sum"), (3, 4), (3, 4)),
    case("mse-none", lambda m, x, y: m.nn.functional.mse_loss(x, y, reduction="none"), (3, 4), (3, 4)),
]


@pytest.mark.parametrize("c", CASES)
def test_loss_matches_torch(c):
    check_op(c)


def test_cross_entropy_is_nll_loss_after_log_softmax_with_gradient_softmax_minus_onehot():
    x = mg.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], dtype=mg.float64, requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor([1, 2]), reduction="sum")
    assert loss.grad_fn.name() == "NllLossBackward0"                  # PyTorch's graph
    (log_softmax, _), = loss.grad_fn.next_functions
    assert log_softmax.name() == "LogSoftmaxBackward0"
    assert log_softmax.next_functions[0][0].variable is x
    loss.backward()
    values = numpy.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])
    softmax = numpy.exp(values) / numpy.exp(values).sum(axis=1, keepdims=True)
    numpy.testing.assert_allclose(host(x.grad), softmax - numpy.eye(3)[[1, 2]], rtol=1e-12)


def test_cross_entropy_is_stable_for_huge_logits():
    torch = require_torch()
    logits = numpy.array([[1e4, -1e4, 0.0], [-5e3, 5e3, 5e3]], dtype=numpy.float32)
    ours = mg.tensor(logits, requires_grad=True)
    theirs = torch.tensor(logits, requires_grad=True)
    loss_ours = F.cross_entropy(ours, mg.tensor([1, 2]))
    loss_theirs = torch.nn.functional.cross_entropy(theirs, torch.tensor([1, 2]))
    loss_ours.backward()
    loss_theirs.backward()
    assert numpy.isfinite(loss_ours.item())
    numpy.testing.assert_allclose(loss_ours.item(), loss_theirs.item(), rtol=1e-6)
    numpy.testing.assert_allclose(host(ours.grad), host(theirs.grad), atol=1e-7)


def test_all_targets_ignored_gives_nan_mean_and_zero_sum_as_torch():
    x = mg.randn(3, 4, requires_grad=True)
    target = mg.tensor([-100, -100, -100])
    with warnings.catch_warnings():  # NumPy may warn about the 0 / 0; PyTorch silently gives nan too
        warnings.simplefilter("ignore", RuntimeWarning)
        assert numpy.isnan(F.cross_entropy(x, target).item())
    loss = F.cross_entropy(x, target, reduction="sum")
    assert loss.item() == 0.0
    loss.backward()
    assert not host(x.grad).any()


@pytest.mark.parametrize("loss", [
    lambda functional, x, t, w: functional.cross_entropy(x, t),
    lambda functional, x, t, w: functional.cross_entropy(x, t, weight=w, label_smoothing=0.2),
    lambda functional, x, t, w: functional.nll_loss(x, t, weight=w),
], ids=["ce", "ce-weighted-smoothed", "nll-weighted"])
def test_all_targets_ignored_mean_has_a_zero_gradient_as_torch(loss):
    """The mean over no targets is nan, but its backward gives zeros (not nan) in PyTorch."""
    torch = require_torch()
    x = rng.standard_normal((3, 4))
    target, weight = numpy.array([-100, -100, -100]), numpy.array([1.0, 2.0, 0.5, 1.0])
    grads = {}
    for lib, functional in ((mg, F), (torch, torch.nn.functional)):
        xt = lib.tensor(x, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's 0 / 0 in the forward
            out = loss(functional, xt, lib.tensor(target), lib.tensor(weight))
        assert numpy.isnan(out.item())
        out.backward()
        grads[lib] = host(xt.grad)
    numpy.testing.assert_array_equal(grads[mg], grads[torch])
    assert not grads[mg].any()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_loss_modules_match_torch_and_keep_weight_as_a_buffer(reduction):
    torch = require_torch()
    x = rng.standard_normal((5, 4))
    target = numpy.array([0, 1, 3, -1, 2])
    ours = nn.CrossEntropyLoss(weight=mg.tensor(WEIGHT), ignore_index=-1, reduction=reduction,
                               label_smoothing=0.1)
    theirs = torch.nn.CrossEntropyLoss(weight=torch.tensor(WEIGHT), ignore_index=-1, reduction=reduction,
                                       label_smoothing=0.1)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    numpy.testing.assert_allclose(host(ours(mg.tensor(x), mg.tensor(target))),
                                  host(theirs(torch.tensor(x), torch.tensor(target))), rtol=1e-12)
    log_probs = numpy.log(numpy.exp(x) / numpy.exp(x).sum(axis=1, keepdims=True))
    nll_ours = nn.NLLLoss(reduction=reduction, ignore_index=-1)(mg.tensor(log_probs), mg.tensor(target))
    nll_theirs = torch.nn.NLLLoss(reduction=reduction, ignore_index=-1)(torch.tensor(log_probs),
                                                                        torch.tensor(target))
    numpy.testing.assert_allclose(host(nll_ours), host(nll_theirs), rtol=1e-12)
    y = rng.standard_normal((5, 4))
    mse_ours = nn.MSELoss(reduction=reduction)(mg.tensor(x), mg.tensor(y))
    mse_theirs = torch.nn.MSELoss(reduction=reduction)(torch.tensor(x), torch.tensor(y))
    numpy.testing.assert_allclose(host(mse_ours), host(mse_theirs), rtol=1e-12)


def test_legacy_size_average_and_reduce_flags():
    x, t = mg.randn(3, 4), mg.tensor([0, 1, 2])
    with pytest.warns(UserWarning, match="reduction"):
        summed = F.cross_entropy(x, t, size_average=False)
    numpy.testing.assert_allclose(summed.item(), F.cross_entropy(x, t, reduction="sum").item(), rtol=1e-6)
    with pytest.warns(UserWarning):
        assert nn.MSELoss(reduce=False).reduction == "none"


def test_mse_loss_warns_on_broadcasting_shapes():
    with pytest.warns(UserWarning, match="different to the input size"):
        F.mse_loss(mg.randn(3, 1), mg.randn(3))


# --- errors name the bad value, the number of classes and the shapes ---------------------------------

@pytest.mark.parametrize("call, error, pattern", [
    (lambda: F.cross_entropy(mg.randn(3, 10), mg.tensor([1, 10, 2])), IndexError,
     r"Target 10 is out of bounds.*10 classes"),
    (lambda: F.nll_loss(mg.randn(3, 5), mg.tensor([1, -1, 2])), IndexError,
     r"Target -1 is out of bounds.*5 classes"),
    (lambda: F.cross_entropy(mg.randn(2, 3, 4, 4), mg.tensor(numpy.full((2, 4, 4), 3))), IndexError,
     r"Target 3 is out of bounds"),
    (lambda: F.cross_entropy(mg.randn(3, 5), mg.tensor([1, 2, 3], dtype=mg.int32)), RuntimeError,
     r"Long \(int64\).*int32"),
    (lambda: F.cross_entropy(mg.randn(3, 5), mg.tensor([1, 2, 3, 4])), ValueError,
     r"batch_size \(3\) to match target batch_size \(4\).*\[3, 5\].*\[4\]"),
    (lambda: F.cross_entropy(mg.randn(2, 3, 4, 4), mg.tensor(numpy.zeros((2, 4, 5), dtype=numpy.int64))),
     RuntimeError, r"\[2, 3, 4, 4\].*\[2, 4, 5\]"),
    (lambda: F.nll_loss(mg.randn(3, 5), mg.tensor([[1], [2], [3]])), RuntimeError, r"multi-target.*\[3, 1\]"),
    (lambda: F.cross_entropy(mg.randn(3, 5), mg.randn(3, 4)), RuntimeError, r"\[3, 5\].*\[3, 4\]"),
    (lambda: F.cross_entropy(mg.randn(3, 5), mg.tensor([1, 2, 3]), weight=mg.ones(4)), RuntimeError,
     r"all 5 classes.*\[4\]"),
    (lambda: F.cross_entropy(mg.randn(3, 5), mg.tensor([1, 2, 3]), reduction="average"), ValueError,
     r"average is not a valid value for reduction"),
    (lambda: F.cross_entropy(mg.randn(3, 5), mg.tensor([1, 2, 3]), label_smoothing=1.5), RuntimeError,
     r"label_smoothing must be between 0.0 and 1.0"),
    (lambda: F.cross_entropy(mg.randn(3, 5), mg.randn(3, 5).softmax(1), ignore_index=1), RuntimeError,
     r"ignore_index is not supported for floating point target"),
    (lambda: nn.NLLLoss(reduction="mea")(mg.randn(2, 3), mg.tensor([0, 1])), ValueError,
     r"mea is not a valid value"),  # checked on the call, as PyTorch (the constructor accepts it)
    (lambda: F.cross_entropy(mg.ones(2, 3, dtype=mg.int64), mg.tensor([0, 1])), NotImplementedError, "int64"),
    (lambda: F.nll_loss(mg.ones(2, 3, dtype=mg.int64), mg.tensor([0, 1])), NotImplementedError, "int64"),
    (lambda: F.mse_loss(mg.ones(3, dtype=mg.int64), mg.zeros(3, dtype=mg.int64)), NotImplementedError,
     "int64 and int64"),
])
def test_loss_errors(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_loss_error_types_are_torchs():
    """The exception types above are the ones PyTorch raises for the same misuse."""
    torch = require_torch()
    TF = torch.nn.functional
    with pytest.raises(IndexError):
        TF.cross_entropy(torch.randn(3, 10), torch.tensor([1, 10, 2]))
    with pytest.raises(ValueError):
        TF.cross_entropy(torch.randn(3, 5), torch.tensor([1, 2, 3, 4]))
    with pytest.raises(RuntimeError):
        TF.cross_entropy(torch.randn(3, 5), torch.tensor([1, 2, 3], dtype=torch.int32))
    with pytest.raises(RuntimeError):
        TF.cross_entropy(torch.randn(2, 3, 4, 4), torch.zeros(2, 4, 5, dtype=torch.long))
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
        TF.cross_entropy(torch.randn(3, 5), torch.tensor([1, 2, 3]), label_smoothing=1.5)
    with pytest.raises(NotImplementedError):
        TF.cross_entropy(torch.ones(2, 3, dtype=torch.int64), torch.tensor([0, 1]))
    with pytest.raises(NotImplementedError):
        TF.nll_loss(torch.ones(2, 3, dtype=torch.int64), torch.tensor([0, 1]))
    with pytest.raises(NotImplementedError):
        TF.mse_loss(torch.ones(3, dtype=torch.int64), torch.zeros(3, dtype=torch.int64))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(("input_shape", "target_shape"), [((3, 4), (3, 4)), ((3, 4), (4,)), ((1, 4), (3, 1)),
                                                           ((), ())])
def test_mse_loss_is_one_node_with_torchs_name_values_and_gradients(input_shape, target_shape, reduction):
    torch = require_torch()
    gen = numpy.random.default_rng(11)
    x_data, y_data = gen.standard_normal(input_shape), gen.standard_normal(target_shape)
    results = {}
    for lib in (mg, torch):
        x = lib.tensor(x_data, requires_grad=True)
        y = lib.tensor(y_data, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # the size-mismatch warning, checked elsewhere
            loss = lib.nn.functional.mse_loss(x, y, reduction=reduction)
        loss.backward(lib.tensor(gen.standard_normal(tuple(loss.shape))) if reduction == "none" else None)
        results[lib] = (loss.grad_fn.name(), loss.detach(), x.grad, y.grad)
        gen = numpy.random.default_rng(11)
        gen.standard_normal(input_shape), gen.standard_normal(target_shape)
    assert results[mg][0] == results[torch][0] == "MseLossBackward0"
    for ours, theirs in zip(results[mg][1:], results[torch][1:]):
        numpy.testing.assert_allclose(host(ours), theirs.numpy(), rtol=1e-12, atol=1e-14)


def test_mse_loss_gradcheck_with_broadcasting():
    gen = numpy.random.default_rng(12)
    x = mg.tensor(gen.standard_normal((3, 4)), requires_grad=True)
    y = mg.tensor(gen.standard_normal((4,)), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert mg.autograd.gradcheck(lambda a, b: F.mse_loss(a, b), (x, y))
