"""BatchNorm beyond the PyTorch comparison in test_layers: the formulas written out in NumPy, the
single backward node, gradcheck in both modes, and the errors."""

import numpy
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

from .helpers import host


def _batch(shape=(6, 3, 2, 2), seed=0):
    return numpy.random.default_rng(seed).standard_normal(shape) * 3 + 1


def test_training_output_and_running_statistics_follow_the_formulas():
    x = _batch()
    layer = nn.BatchNorm2d(3, momentum=0.2).double()
    out = layer(mg.tensor(x))
    axes = (0, 2, 3)
    mean, var = x.mean(axis=axes), x.var(axis=axes)                       # biased, to normalise
    expected = (x - mean[None, :, None, None]) / numpy.sqrt(var[None, :, None, None] + 1e-5)
    numpy.testing.assert_allclose(host(out), expected, rtol=1e-12, atol=1e-12)
    count = x.size // 3
    numpy.testing.assert_allclose(host(layer.running_mean), 0.2 * mean, rtol=1e-12)
    numpy.testing.assert_allclose(host(layer.running_var), 0.8 + 0.2 * var * count / (count - 1), rtol=1e-12)
    assert layer.num_batches_tracked.item() == 1


def test_cumulative_average_when_momentum_is_none():
    layer = nn.BatchNorm1d(2, momentum=None).double()
    batches = [_batch((5, 2), seed) for seed in range(3)]
    for batch in batches:
        layer(mg.tensor(batch))
    average = numpy.mean([b.mean(axis=0) for b in batches], axis=0)
    numpy.testing.assert_allclose(host(layer.running_mean), average, rtol=1e-12)
    assert layer.num_batches_tracked.item() == 3


def test_eval_uses_running_statistics_and_leaves_them_alone():
    layer = nn.BatchNorm2d(3).double()
    with mg.no_grad():
        layer.running_mean.copy_(mg.tensor([1.0, -2.0, 0.5]))
        layer.running_var.copy_(mg.tensor([4.0, 0.25, 1.0]))
        layer.weight.copy_(mg.tensor([2.0, 1.0, -1.0]))
        layer.bias.copy_(mg.tensor([0.0, 1.0, 3.0]))
    layer.eval()
    x = _batch((2, 3, 2, 2))
    out = layer(mg.tensor(x))
    rm, rv = numpy.array([1.0, -2.0, 0.5]), numpy.array([4.0, 0.25, 1.0])
    w, b = numpy.array([2.0, 1.0, -1.0]), numpy.array([0.0, 1.0, 3.0])
    shape = (1, 3, 1, 1)
    normalized = (x - rm.reshape(shape)) / numpy.sqrt(rv.reshape(shape) + 1e-5)
    expected = normalized * w.reshape(shape) + b.reshape(shape)
    numpy.testing.assert_allclose(host(out), expected, rtol=1e-12)
    assert host(layer.running_mean).tolist() == [1.0, -2.0, 0.5] and layer.num_batches_tracked.item() == 0


def test_one_backward_node_for_the_whole_normalisation_named_as_pytorch():
    layer = nn.BatchNorm2d(3)
    out = layer(mg.randn(4, 3, 2, 2, requires_grad=True))
    assert out.grad_fn.name() == "NativeBatchNormBackward0"
    assert [type(n).__name__ for n, _ in out.grad_fn.next_functions] == ["AccumulateGrad"] * 3


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (3, 3, 2), (2, 3, 2, 2)])
def test_gradcheck_in_both_modes(training, shape):
    rng = numpy.random.default_rng(1)
    x = mg.tensor(rng.standard_normal(shape), requires_grad=True)
    w = mg.tensor(rng.uniform(0.5, 1.5, 3), requires_grad=True)
    b = mg.tensor(rng.standard_normal(3), requires_grad=True)
    mean, var = mg.tensor(rng.standard_normal(3)), mg.tensor(rng.uniform(0.5, 2.0, 3))
    def normalise(x, w, b):
        return F.batch_norm(x, mean, var, w, b, training=training)

    assert mg.autograd.gradcheck(normalise, (x, w, b))


def test_running_estimates_are_not_touched_when_not_tracking_or_in_eval():
    layer = nn.BatchNorm1d(2, track_running_stats=False)
    assert layer.running_mean is None and list(layer.state_dict()) == ["weight", "bias"]
    layer.eval()
    out = layer(mg.tensor([[1.0, 2.0], [3.0, 6.0]]))   # no running estimates: batch statistics even in eval
    numpy.testing.assert_allclose(host(out), [[-1.0, -1.0], [1.0, 1.0]], atol=1e-4)


def test_state_dict_without_num_batches_tracked_loads_as_in_torch():
    layer = nn.BatchNorm1d(3)
    layer(mg.randn(4, 3))
    state = {k: v for k, v in nn.BatchNorm1d(3).state_dict().items() if k != "num_batches_tracked"}
    assert repr(layer.load_state_dict(state)) == "<All keys matched successfully>"
    assert layer.num_batches_tracked.item() == 1 and "num_batches_tracked" not in state


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: nn.BatchNorm1d(3)(mg.randn(1, 3)), ValueError, r"more than 1 value per channel.*\[1, 3\]"),
    (lambda: nn.BatchNorm2d(3)(mg.randn(2, 3, 4)), ValueError, r"expected 4D input \(got 3D input\)"),
    (lambda: nn.BatchNorm1d(3)(mg.randn(2, 3, 4, 5)), ValueError,
     r"expected 2D or 3D input \(got 4D input\)"),
    (lambda: nn.BatchNorm1d(3)(mg.randn(4, 5)), RuntimeError,
     r"running_mean should contain 5 elements.*\[3\]"),
    (lambda: F.batch_norm(mg.randn(4, 3), None, None), RuntimeError, r"must be defined in evaluation mode"),
])
def test_errors(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
