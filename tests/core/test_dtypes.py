"""Dtype rules, checked against PyTorch's: inference at creation, type promotion
(``torch.result_type``) over dtypes and operand kinds, division, comparisons, matmul."""

import numpy
import pytest
from _reference import reference

import minigrad as mg

from .helpers import dtype_name, to_numpy

DTYPES = ["bool", "uint8", "int32", "int64", "float32", "float64"]
SCALARS = [True, 3, 2.5]


def host_values(name, shape=(3,), divisor=False):
    """Values valid in every dtype (and nonzero when used as a divisor)."""
    if name == "bool":
        values = [True, True, True] if divisor else [True, False, True]
    else:
        values = [1, 2, 3] if divisor else [2, 0, 5]
    return numpy.array(values[:1] if shape == () else values, dtype=name).reshape(shape)


def operand(lib, name, kind, divisor=False):
    """A tensor of dtype ``name`` with dimensions ('tensor') or without ('zero_dim')."""
    shape = () if kind == "zero_dim" else (3,)
    return lib.tensor(host_values(name, shape, divisor))


# --- creation -----------------------------------------------------------------------------

@pytest.mark.parametrize("data", [
    2.5, 3, True, [1, 2], [1, 2.5], [True, False], [True, 2], [[1.0, 2.0], [3.0, 4.0]], [],
    numpy.float64(1.5), numpy.int32(7), [numpy.float64(1.5), 2.0],
    numpy.array([1.0, 2.0]), numpy.array([1, 2], dtype=numpy.int32), numpy.array([1, 2], dtype=numpy.uint8),
    numpy.array([True]), numpy.array(2.0, dtype=numpy.float32),
], ids=repr)
def test_tensor_infers_dtype_like_torch(data):
    t = mg.tensor(data)
    expected = reference(lambda torch: torch.tensor(data))
    assert dtype_name(t.dtype) == dtype_name(expected.dtype)
    numpy.testing.assert_array_equal(to_numpy(t), expected)


def test_python_floats_are_float32_ints_int64_bools_bool():
    assert mg.tensor(1.5).dtype is mg.float32
    assert mg.tensor([1, 2]).dtype is mg.int64
    assert mg.tensor([True]).dtype is mg.bool
    assert mg.zeros(2).dtype is mg.float32
    assert mg.ones(2, 3).dtype is mg.float32
    assert mg.randn(2).dtype is mg.float32
    assert mg.rand(2).dtype is mg.float32
    assert mg.arange(3).dtype is mg.int64
    assert mg.arange(0, 1, 0.25).dtype is mg.float32
    assert mg.full((2,), 3).dtype is mg.int64
    assert mg.full((2,), 3.0).dtype is mg.float32
    assert mg.full((2,), True).dtype is mg.bool
    assert mg.randint(0, 5, (3,)).dtype is mg.int64


def test_numpy_arrays_keep_their_dtype():
    double = numpy.array([1.0, 2.0])  # float64, NumPy's default
    assert mg.tensor(double).dtype is mg.float64
    assert mg.from_numpy(double).dtype is mg.float64
    assert mg.tensor(numpy.array([1, 2], dtype=numpy.int32)).dtype is mg.int32
    assert mg.from_numpy(numpy.zeros(2, dtype=numpy.uint8)).dtype is mg.uint8
    # and Python numbers do not lift them
    assert (mg.tensor(double) * 2.5).dtype is mg.float64
    assert (mg.tensor(numpy.array([1, 2], dtype=numpy.int32)) + 3).dtype is mg.int32


def test_default_dtype_can_be_float64():
    previous = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    try:
        assert mg.tensor(1.5).dtype is mg.float64
        assert mg.zeros(2).dtype is mg.float64
        assert (mg.tensor([1, 2]) / 2).dtype is mg.float64
    finally:
        mg.set_default_dtype(previous)
    assert mg.tensor(1.5).dtype is mg.float32


# --- promotion ------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["tensor", "zero_dim"])
@pytest.mark.parametrize("b_name", DTYPES)
@pytest.mark.parametrize("a_name", DTYPES)
def test_promotion_between_tensors_matches_torch(a_name, b_name, kind):
    a, b = operand(mg, a_name, "tensor"), operand(mg, b_name, kind)
    ops = {"+": lambda x, y: x + y, "*": lambda x, y: x * y, "maximum": lambda x, y: x.maximum(y)}

    def torch_results(torch):
        ta, tb = operand(torch, a_name, "tensor"), operand(torch, b_name, kind)
        return torch.result_type(ta, tb), {name: op(ta, tb) for name, op in ops.items()}

    expected, results = reference(torch_results)
    assert mg.result_type(a, b).name == expected
    for name, op in ops.items():
        ours = op(a, b)
        assert dtype_name(ours.dtype) == expected, f"{a_name} {name} {b_name} ({kind})"
        numpy.testing.assert_array_equal(to_numpy(ours), results[name])


@pytest.mark.parametrize("scalar", SCALARS, ids=["True", "3", "2.5"])
@pytest.mark.parametrize("kind", ["tensor", "zero_dim"])
@pytest.mark.parametrize("a_name", DTYPES)
def test_promotion_with_python_scalars_matches_torch(a_name, kind, scalar):
    a = operand(mg, a_name, kind)

    def torch_results(torch):
        ta = operand(torch, a_name, kind)
        return torch.result_type(ta, scalar), [ta * scalar, scalar * ta, ta + scalar]

    expected, results = reference(torch_results)
    assert mg.result_type(a, scalar).name == expected
    for ours, theirs in zip([a * scalar, scalar * a, a + scalar], results, strict=True):
        assert dtype_name(ours.dtype) == expected
        numpy.testing.assert_array_equal(to_numpy(ours), theirs)


@pytest.mark.parametrize("b_name", DTYPES)
@pytest.mark.parametrize("a_name", DTYPES)
def test_true_division_dtype_matches_torch(a_name, b_name):
    a, b = operand(mg, a_name, "tensor"), operand(mg, b_name, "tensor", divisor=True)
    ours = a / b
    theirs = reference(lambda torch: operand(torch, a_name, "tensor") / operand(torch, b_name, "tensor",
                                                                                  divisor=True))
    assert dtype_name(ours.dtype) == dtype_name(theirs.dtype)
    numpy.testing.assert_allclose(to_numpy(ours), theirs, rtol=1e-6)


def test_int_by_int_division_is_float32():
    out = mg.tensor([1, 2, 3]) / mg.tensor([2, 2, 2])
    assert out.dtype is mg.float32
    numpy.testing.assert_array_equal(to_numpy(out), numpy.array([0.5, 1.0, 1.5], dtype=numpy.float32))
    assert (mg.tensor([3]) / 2).dtype is mg.float32


def test_bool_minus_bool_raises_like_torch():
    with pytest.raises(RuntimeError, match="bool"):
        mg.tensor([True, False]) - mg.tensor([False, False])


# --- comparisons ------------------------------------------------------------------------------

@pytest.mark.parametrize("compare", [
    lambda a, b: a > b, lambda a, b: a >= b, lambda a, b: a < b, lambda a, b: a <= b,
    lambda a, b: a == b, lambda a, b: a != b, lambda a, b: a.eq(b), lambda a, b: a.ge(b),
    lambda a, b: a > 0.5,
], ids=[">", ">=", "<", "<=", "==", "!=", "eq", "ge", "> scalar"])
def test_comparisons_give_bool_without_grad(compare):
    a = mg.tensor([0.0, 1.0, 2.0], requires_grad=True)
    b = mg.tensor([1.0, 1.0, 1.0])
    out = compare(a, b)
    assert out.dtype is mg.bool
    assert not out.requires_grad
    assert out.grad_fn is None


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_module_level_comparisons_match_torch(name):
    a, b = [1.0, 2.0, 3.0], [2.0, 2.0, 2.0]
    ours = getattr(mg, name)(mg.tensor(a), mg.tensor(b))
    theirs = reference(lambda torch: getattr(torch, name)(torch.tensor(a), torch.tensor(b)))
    assert ours.dtype is mg.bool and theirs.dtype == numpy.bool_
    numpy.testing.assert_array_equal(to_numpy(ours), theirs)


def test_casting_to_integers_ends_differentiation():
    x = mg.tensor([1.7, -2.2], requires_grad=True)
    as_long = x.long()
    assert as_long.dtype is mg.int64 and not as_long.requires_grad
    assert as_long.tolist() == [1, -2]  # truncation toward zero, as PyTorch
    assert x.double().requires_grad and x.double().dtype is mg.float64


def test_comparison_values_with_promotion():
    out = mg.tensor([1, 2, 3]) < mg.tensor([1.5, 1.5, 3.5])
    numpy.testing.assert_array_equal(to_numpy(out), [True, False, True])


# --- matmul refuses mixed dtypes ----------------------------------------------------------------

@pytest.mark.parametrize("a_name, b_name",
                         [("float32", "float64"), ("float64", "float32"), ("int64", "float32")])
def test_matmul_refuses_mixed_dtypes(a_name, b_name):
    a = mg.ones(2, 3, dtype=getattr(mg, a_name))
    b = mg.ones(3, 2, dtype=getattr(mg, b_name))
    with pytest.raises(RuntimeError) as error:
        a @ b
    assert a_name in str(error.value) and b_name in str(error.value)
    with pytest.raises(RuntimeError):
        a.mm(b)


def test_matmul_same_dtype_keeps_it():
    a = mg.ones(2, 3, dtype=mg.float64)
    assert (a @ mg.ones(3, dtype=mg.float64)).dtype is mg.float64
    assert (mg.ones(2, 3, dtype=mg.int64) @ mg.ones(3, 2, dtype=mg.int64)).dtype is mg.int64


def test_reductions_of_integers_follow_torch():
    ints = mg.tensor([[1, 2], [3, 4]])
    assert ints.sum().dtype is mg.int64
    assert mg.tensor([True, True, False]).sum().item() == 2
    with pytest.raises(RuntimeError, match="mean"):
        ints.mean()
