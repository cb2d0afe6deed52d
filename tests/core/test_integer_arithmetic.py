"""Integer tensors with Python numbers, bit operations and bool powers, as PyTorch (issue 12, section 5):
the tensor's dtype wins and values wrap around; reflected bitwise operators and shifts exist; floats and
bools are refused where PyTorch refuses them, with its exception type and message."""

from __future__ import annotations

import pytest
from _reference import reference
from _torch import raises_like_torch, require_torch

import minigrad as mg

from .helpers import dtype_name, to_numpy

INTEGER_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]

EXPRESSIONS = {
    "t + (-2)": lambda t: t + (-2),
    "(-2) + t": lambda t: (-2) + t,
    "t - 5": lambda t: t - 5,
    "5 - t": lambda t: 5 - t,
    "t * 200": lambda t: t * 200,
    "t + 300": lambda t: t + 300,
    "t + 2**40": lambda t: t + 2**40,
    "t.add(-2)": lambda t: t.add(-2),
    "t.mul(-1)": lambda t: t.mul(-1),
    "t // -2": lambda t: t // -2,
    "t % -2": lambda t: t % -2,
    "t < -1": lambda t: t < -1,
    "t >= -1": lambda t: t >= -1,
    "t == 259": lambda t: t == 259,
    "t != -253": lambda t: t != -253,
    "3 & t": lambda t: 3 & t,
    "3 | t": lambda t: 3 | t,
    "3 ^ t": lambda t: 3 ^ t,
    "t & -1": lambda t: t & -1,
    "t << 1": lambda t: t << 1,
    "1 << t": lambda t: 1 << t,
    "t >> 1": lambda t: t >> 1,
    "64 >> t": lambda t: 64 >> t,
    "t << 9": lambda t: t << 9,
    "t >> 70": lambda t: t >> 70,
    "t << -1": lambda t: t << -1,
    "t >> -1": lambda t: t >> -1,
    "t + True": lambda t: t + True,
    "t + 2.5": lambda t: t + 2.5,
}


@pytest.mark.parametrize("expression", EXPRESSIONS)
@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_python_ints_with_integer_tensors_follow_torch(dtype, expression):
    """``uint8([3, 1, 2]) + (-2)`` is ``uint8([1, 255, 0])``: the int takes the tensor's dtype, wrapping."""
    values = [3, 1, 2, -128] if dtype != "uint8" else [3, 1, 2, 200]
    theirs = reference(lambda torch: EXPRESSIONS[expression](torch.tensor(values,
                                                                          dtype=getattr(torch, dtype))))
    ours = EXPRESSIONS[expression](mg.tensor(values, dtype=getattr(mg, dtype)))
    assert dtype_name(ours.dtype) == dtype_name(theirs.dtype)
    assert to_numpy(ours).tolist() == theirs.tolist()


def test_issue_example_wraps():
    result = mg.tensor([3, 1, 2], dtype=mg.uint8) + (-2)
    assert result.dtype == mg.uint8 and to_numpy(result).tolist() == [1, 255, 0]


def test_shifts_of_a_tensor_by_a_tensor():
    torch = require_torch()
    for lib in (torch, mg):
        values = lib.tensor([1, -8, 64, 5], dtype=lib.int16)
        counts = lib.tensor([3, 1, 17, -2], dtype=lib.int16)
        if lib is torch:
            expected = [(values << counts).tolist(), (values >> counts).tolist()]
        else:
            assert [to_numpy(values << counts).tolist(), to_numpy(values >> counts).tolist()] == expected


BOOL_CASES = {
    "b & True": lambda m, b: b & True,
    "True & b": lambda m, b: True & b,
    "3 & b": lambda m, b: 3 & b,
    "b | 2": lambda m, b: b | 2,
    "b ** True": lambda m, b: b ** True,
    "b ** False": lambda m, b: b ** False,
    "b ** 2": lambda m, b: b ** 2,
    "2 ** b": lambda m, b: 2 ** b,
    "b << 1": lambda m, b: b << 1,
    "1 << b": lambda m, b: 1 << b,
}


@pytest.mark.parametrize("expression", BOOL_CASES)
def test_bool_tensors_follow_torch(expression):
    theirs = reference(lambda torch: BOOL_CASES[expression](torch, torch.tensor([True, False, True])))
    ours = BOOL_CASES[expression](mg, mg.tensor([True, False, True]))
    assert dtype_name(ours.dtype) == dtype_name(theirs.dtype)
    assert to_numpy(ours).tolist() == theirs.tolist()


REFUSED = {
    "bool ** bool": (lambda m: m.tensor([True, False]) ** m.tensor([True, True]), NotImplementedError,
                     ['"pow" not implemented for \'Bool\'']),
    "True ** bool": (lambda m: True ** m.tensor([True, False]), NotImplementedError, ['"pow"', "'Bool'"]),
    "bool << bool": (lambda m: m.tensor([True]) << m.tensor([True]), NotImplementedError,
                     ['"lshift_cpu" not implemented for \'Bool\'']),
    "float & 1": (lambda m: m.tensor([1.0, 2.0]) & 1, NotImplementedError,
                  ['"bitwise_and_cpu" not implemented for \'Float\'']),
    "1 & float": (lambda m: 1 & m.tensor([1.0, 2.0]), NotImplementedError, ['"bitwise_and_cpu"', "'Float'"]),
    "1 | float": (lambda m: 1 | m.tensor([1.0]), NotImplementedError, ['"bitwise_or_cpu"', "'Float'"]),
    "1 ^ double": (lambda m: 1 ^ m.tensor([1.0], dtype=m.float64), NotImplementedError,
                   ['"bitwise_xor_cpu" not implemented for \'Double\'']),
    "int & 1.5": (lambda m: m.tensor([1, 2]) & 1.5, NotImplementedError, ['"bitwise_and_cpu"', "'Float'"]),
    "float << 1": (lambda m: m.tensor([1.0]) << 1, NotImplementedError,
                   ['"lshift_cpu" not implemented for \'Float\'']),
    "1 >> float": (lambda m: 1 >> m.tensor([1.0]), NotImplementedError, ['"rshift_cpu"', "'Float'"]),
    "~float": (lambda m: ~m.tensor([1.0]), TypeError, ["~", "integer and Boolean-type tensors"]),
    "int + 2**70": (lambda m: m.tensor([1], dtype=m.uint8) + 2**70, OverflowError, []),
}


@pytest.mark.parametrize("name", REFUSED)
def test_refused_like_torch(name):
    call, error, fragments = REFUSED[name]
    raises_like_torch(call, error, *fragments)


def test_in_place_bit_operations():
    torch = require_torch()
    results = []
    for lib in (torch, mg):
        t = lib.tensor([1, 2, 200], dtype=lib.uint8)
        t &= 3
        t |= 300
        t ^= -1
        t <<= 1
        t >>= 2
        results.append(t.tolist())
    assert results[0] == results[1]
    raises_like_torch(lambda m: m.tensor([1.0]).__iand__(3), NotImplementedError, '"bitwise_and_cpu"')
