"""Every layer against the same PyTorch layer with identical weights: outputs, input and parameter
gradients, buffers — in float64 and float32 (``helpers.check_layer``)."""

import numpy
import pytest

from .helpers import check_layer

DTYPES = ["float64", "float32"]


def _input(shape, seed=0, low=None):
    rng = numpy.random.default_rng(seed)
    return rng.standard_normal(shape) if low is None else rng.uniform(low, -low, shape)


LAYERS = [
    pytest.param(lambda lib: lib.nn.Linear(5, 3), (4, 5), id="linear"),
    pytest.param(lambda lib: lib.nn.Linear(5, 3, bias=False), (4, 5), id="linear-no-bias"),
    pytest.param(lambda lib: lib.nn.Linear(5, 3), (2, 3, 5), id="linear-3d-input"),
    pytest.param(lambda lib: lib.nn.Linear(5, 3), (5,), id="linear-1d-input"),
    pytest.param(lambda lib: lib.nn.Conv2d(3, 4, 3), (2, 3, 7, 6), id="conv"),
    pytest.param(lambda lib: lib.nn.Conv2d(1, 32, 3, padding=1), (2, 1, 6, 6), id="conv-mnist-like"),
    pytest.param(lambda lib: lib.nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2),
                                           groups=2, bias=False), (2, 4, 8, 7), id="conv-pairs-groups"),
    pytest.param(lambda lib: lib.nn.Conv2d(2, 3, 4, padding="same", dilation=2), (1, 2, 9, 8),
                 id="conv-same"),
    pytest.param(lambda lib: lib.nn.Conv2d(2, 3, 3, stride=2, padding="valid"), (2, 2, 7, 7),
                 id="conv-valid"),
    pytest.param(lambda lib: lib.nn.MaxPool2d(2), (2, 3, 6, 5), id="maxpool"),
    pytest.param(lambda lib: lib.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), (1, 2, 7, 8),
                 id="maxpool-ceil"),
    pytest.param(lambda lib: lib.nn.AvgPool2d(2), (2, 3, 6, 5), id="avgpool"),
    pytest.param(lambda lib: lib.nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (1, 2, 7, 8),
                 id="avgpool-no-pad-count"),
    pytest.param(lambda lib: lib.nn.ReLU(), (3, 4), id="relu"),
    pytest.param(lambda lib: lib.nn.Sigmoid(), (3, 4), id="sigmoid"),
    pytest.param(lambda lib: lib.nn.Tanh(), (3, 4), id="tanh"),
    pytest.param(lambda lib: lib.nn.Softmax(dim=1), (3, 4, 2), id="softmax"),
    pytest.param(lambda lib: lib.nn.LogSoftmax(dim=-1), (3, 4), id="log-softmax"),
    pytest.param(lambda lib: lib.nn.Flatten(), (2, 3, 4, 2), id="flatten"),
    pytest.param(lambda lib: lib.nn.Flatten(0, 2), (2, 3, 4, 2), id="flatten-0-2"),
    pytest.param(lambda lib: lib.nn.Identity(), (2, 3), id="identity"),
    pytest.param(lambda lib: lib.nn.Sequential(lib.nn.Conv2d(1, 4, 3, padding=1), lib.nn.BatchNorm2d(4),
                                               lib.nn.ReLU(), lib.nn.MaxPool2d(2), lib.nn.Flatten(),
                                               lib.nn.Linear(16, 3)), (3, 1, 4, 4), id="small-cnn"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make, shape", LAYERS)
def test_layer_matches_torch(make, shape, dtype):
    check_layer(make, _input(shape), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mlp_with_dropout_in_eval_mode_matches_torch(dtype):
    """In eval mode Dropout is the identity in both libraries, so the whole MLP must agree."""
    def make(lib):
        return lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.ReLU(), lib.nn.Dropout(0.3), lib.nn.Linear(8, 3))

    check_layer(make, _input((5, 6)), dtype, train=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make, shape", [
    pytest.param(lambda lib: lib.nn.BatchNorm1d(4), (6, 4), id="bn1d"),
    pytest.param(lambda lib: lib.nn.BatchNorm1d(3), (5, 3, 4), id="bn1d-3d"),
    pytest.param(lambda lib: lib.nn.BatchNorm2d(3), (4, 3, 3, 2), id="bn2d"),
    pytest.param(lambda lib: lib.nn.BatchNorm2d(3, momentum=None), (4, 3, 3, 2), id="bn2d-cumulative"),
    pytest.param(lambda lib: lib.nn.BatchNorm2d(3, affine=False), (4, 3, 3, 2), id="bn2d-no-affine"),
    pytest.param(lambda lib: lib.nn.BatchNorm2d(3, track_running_stats=False), (4, 3, 3, 2),
                 id="bn2d-untracked"),
    pytest.param(lambda lib: lib.nn.BatchNorm2d(3, bias=False), (4, 3, 3, 2), id="bn2d-no-bias"),
])
@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
def test_batchnorm_matches_torch_over_several_steps(make, shape, dtype, train):
    """Three steps: running statistics, num_batches_tracked and gradients follow PyTorch's."""
    def make_with_weights(lib):
        layer = make(lib)
        if layer.affine:  # non-trivial γ, β so that their gradients and effect are visible
            with lib.no_grad():
                layer.weight.copy_(lib.tensor(numpy.linspace(0.5, 1.5, layer.num_features)))
                if layer.bias is not None:
                    layer.bias.copy_(lib.tensor(numpy.linspace(-0.3, 0.3, layer.num_features)))
        if layer.track_running_stats:
            with lib.no_grad():
                layer.running_mean.copy_(lib.tensor(numpy.linspace(-1.0, 1.0, layer.num_features)))
                layer.running_var.copy_(lib.tensor(numpy.linspace(0.5, 2.0, layer.num_features)))
        return layer

    check_layer(make_with_weights, _input(shape) * 2 + 0.5, dtype, train=train, calls=3)
