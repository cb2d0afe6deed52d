"""``select``, ``index_fill``, ``nonzero``/``index_put`` as Tensor methods and the ``bitwise_*``
names (minigrad/ops/masking.py, ops/comparison.py), against PyTorch: values, gradients, gradcheck,
node names and errors."""

import pytest
from _reference import reference
from _torch import raises_like_torch

import minigrad as mg

from .helpers import case, check_op


def _long(lib, values):
    return lib.tensor(values, dtype=lib.int64)


CASES = [
    case("select-dim0", lambda m, a: a.select(0, 1), (3, 4)),
    case("select-negative", lambda m, a: m.select(a, -1, -2), (2, 3, 4)),
    case("select-of-1d", lambda m, a: a.select(0, 2), (5,)),
    case("index_fill-dim1", lambda m, a: a.index_fill(1, _long(m, [0, 2]), -1.5), (3, 4)),
    case("index_fill-repeats-negative", lambda m, a: m.index_fill(a, 0, _long(m, [-1, 1, 1]), 2.0), (3, 2)),
    case("index_fill-scalar-index", lambda m, a: a.index_fill(-1, _long(m, 1), 0.0), (2, 3)),
    case("index_fill-tensor-value", lambda m, a, v: a.index_fill(1, _long(m, [1]), v.sum()), (2, 3), (2,)),
    case("index_fill_-in-place", lambda m, a: (a * 1).index_fill_(0, _long(m, [0]), 3.0), (2, 3)),
]


@pytest.mark.parametrize("c", CASES)
def test_against_pytorch(c):
    check_op(c)


def _names(lib):
    x = lib.arange(6.0).reshape(2, 3).requires_grad_()
    return [x.select(1, 1).grad_fn.name(), x.index_fill(1, _long(lib, [0]), 1.0).grad_fn.name()]


def test_node_names_are_pytorchs():
    assert _names(mg) == reference(_names) == ["SelectBackward0", "IndexFillBackward0"]


def _integers(lib):
    a, b = _long(lib, [[0, 3], [-2, 5]]), _long(lib, [[1, 1], [6, 0]])
    flags = lib.tensor([True, False, True])
    return {
        "index_fill int": a.index_fill(0, _long(lib, 1), 7).tolist(),
        "index_fill uint8 -1": lib.tensor([1, 2], dtype=lib.uint8).index_fill(0, _long(lib, 0), -1).tolist(),
        "not": a.bitwise_not().tolist(), "not bool": lib.bitwise_not(flags).tolist(),
        "and": a.bitwise_and(b).tolist(), "or": lib.bitwise_or(a, b).tolist(),
        "xor": a.bitwise_xor(3).tolist(),
        "nonzero": a.nonzero().tolist(), "nonzero tuple": [t.tolist() for t in a.nonzero(as_tuple=True)],
        "index_put": a.index_put((_long(lib, [0, 1]),), _long(lib, [9, 8])).tolist(),
        "index_put acc": a.index_put((_long(lib, [0, 0]), _long(lib, [1, 1])), _long(lib, [1, 1]),
                                     accumulate=True).tolist(),
        "select 0-d": a.select(1, 0).select(0, 1).item(),
    }


def test_integer_and_bool_values_are_pytorchs():
    assert _integers(mg) == reference(_integers)


def test_index_fill_and_index_put_in_place_write_the_tensor():
    x = mg.zeros(2, 3)
    assert x.index_fill_(1, mg.tensor([2]), 4.0) is x and x._version == 1
    assert x.tolist() == [[0, 0, 4], [0, 0, 4]]
    assert x.index_put_((mg.tensor([1]), mg.tensor([0])), mg.tensor(5.0)) is x
    assert x[1, 0].item() == 5.0


@pytest.mark.parametrize("call, error, fragment", [
    (lambda m: m.zeros(2, 3).select(1, 5), IndexError, "out of range"),
    (lambda m: m.tensor(1.0).select(0, 0), IndexError, "0-dim"),
    (lambda m: m.zeros(2, 3).select(2, 0), IndexError, "Dimension out of range"),
    (lambda m: m.zeros(2, 3).index_fill(1, m.tensor([0, 3]), 1.0), IndexError, "out of bounds"),
    (lambda m: m.zeros(2, 3).index_fill(1, m.tensor([0.0]), 1.0), IndexError, "int64"),
    (lambda m: m.zeros(2, 3).index_fill(1, m.tensor([[0]]), 1.0), RuntimeError, "vector/scalar"),
    (lambda m: m.zeros(2, dtype=m.int8).index_fill(0, m.tensor([0]), 300), RuntimeError, "overflow"),
    (lambda m: m.zeros(2).bitwise_not(), NotImplementedError, "Float"),
])
def test_errors_are_pytorchs(call, error, fragment):
    raises_like_torch(call, error, fragment)
