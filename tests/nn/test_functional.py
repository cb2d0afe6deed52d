"""``nn.functional`` against ``torch.nn.functional``: one table row per call, checked by the core suite's
``check_op`` (forward and every input's gradient in float64 and float32, then gradcheck in float64)."""

import numpy
import pytest
from core.helpers import case, check_op

import minigrad as mg
import minigrad.nn.functional as F

RUNNING_MEAN = numpy.array([0.2, -0.4, 1.0])
RUNNING_VAR = numpy.array([0.5, 1.5, 2.0])


def _const(m, array, like):
    """A constant of ``like``'s dtype in library ``m`` (weights and statistics that take no gradient)."""
    return m.tensor(array, dtype=like.dtype)


CASES = [
    case("linear", lambda m, x, w, b: m.nn.functional.linear(x, w, b), (4, 5), (3, 5), (3,)),
    case("linear-no-bias", lambda m, x, w: m.nn.functional.linear(x, w), (4, 5), (3, 5)),
    case("linear-batched", lambda m, x, w, b: m.nn.functional.linear(x, w, b), (2, 3, 5), (4, 5), (4,)),
    case("linear-1d", lambda m, x, w, b: m.nn.functional.linear(x, w, b), (5,), (3, 5), (3,)),
    case("relu", lambda m, x: m.nn.functional.relu(x), (3, 4)),
    case("sigmoid", lambda m, x: m.nn.functional.sigmoid(x), (3, 4)),
    case("tanh", lambda m, x: m.nn.functional.tanh(x), (3, 4)),
    case("softmax", lambda m, x: m.nn.functional.softmax(x, dim=1), (3, 4)),
    case("log-softmax", lambda m, x: m.nn.functional.log_softmax(x, dim=0), (3, 4)),
    case("pad", lambda m, x: m.nn.functional.pad(x, (1, 2, 0, 1), value=0.5), (2, 3, 2)),
    case("conv2d", lambda m, x, w, b: m.nn.functional.conv2d(x, w, b, stride=2, padding=1), (2, 2, 5, 5),
         (3, 2, 3, 3), (3,)),
    case("max-pool2d", lambda m, x: m.nn.functional.max_pool2d(x, 2, stride=1), (1, 2, 4, 4)),
    case("avg-pool2d", lambda m, x: m.nn.functional.avg_pool2d(x, 3, stride=2, padding=1), (1, 2, 5, 4)),
    case("unfold", lambda m, x: m.nn.functional.unfold(x, 2, padding=1), (1, 2, 3, 3)),
    case("fold", lambda m, x: m.nn.functional.fold(x, (3, 3), 2), (1, 8, 4)),
    case("dropout-eval", lambda m, x: m.nn.functional.dropout(x, 0.5, training=False), (3, 4)),
    case("dropout-p0", lambda m, x: m.nn.functional.dropout(x, 0.0), (3, 4)),
    case("batch-norm-train", lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, True),
         (4, 3, 2, 2), (3,), (3,)),
    case("batch-norm-train-2d", lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True,
                                                                        eps=0.1), (5, 3)),
    case("batch-norm-eval", lambda m, x, w, b: m.nn.functional.batch_norm(
        x, _const(m, RUNNING_MEAN, x), _const(m, RUNNING_VAR, x), w, b), (4, 3, 2), (3,), (3,)),
]


@pytest.mark.parametrize("c", CASES)
def test_functional_matches_torch(c):
    check_op(c)


def test_linear_is_addmm_after_the_transposed_weight_as_in_pytorch():
    x, w = mg.randn(2, 3, requires_grad=True), mg.randn(4, 3, requires_grad=True)
    b = mg.randn(4, requires_grad=True)
    out = F.linear(x, w, b)
    assert out.grad_fn.name() == "AddmmBackward0"
    (bias_node, _), (x_node, _), (t_node, _) = out.grad_fn.next_functions
    assert bias_node.variable is b and x_node.variable is x and t_node.name() == "TBackward0"
    assert t_node.next_functions[0][0].variable is w


def test_linear_refuses_mixed_dtypes_naming_both():
    x, w = mg.randn(2, 3, dtype=mg.float64), mg.randn(4, 3)
    with pytest.raises(RuntimeError, match="float64.*float32"):
        F.linear(x, w)
    with pytest.raises(RuntimeError, match="bias of dtype float64"):
        F.linear(mg.randn(2, 3), w, mg.zeros(4, dtype=mg.float64))


def test_linear_with_wrong_in_features_names_both_shapes():
    with pytest.raises(RuntimeError, match=r"\(2x5 and 3x4\).*\[2, 5\].*\[4, 3\]"):
        mg.nn.Linear(3, 4)(mg.randn(2, 5))


def test_relu_inplace_overwrites_its_input():
    x = mg.tensor([-1.0, 2.0])
    assert F.relu(x, inplace=True) is x
    assert x.tolist() == [0.0, 2.0]
