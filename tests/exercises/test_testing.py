"""minigrad.testing: assert_close against PyTorch's (errors and messages), compare, numerical_gradient."""

from __future__ import annotations

import math

import numpy
import pytest
from _torch import require_torch

import minigrad
from minigrad.testing import assert_close, compare, numerical_gradient

NAN, INF = math.nan, math.inf

# (description, builder(lib) -> (actual, expected), keyword arguments): each is run with PyTorch and minigrad
CASES = [
    ("equal", lambda t: (t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0])), {}),
    ("one of four", lambda t: (t.tensor([1.0, 2.0, 3.0, 4.0]), t.tensor([1.0, 2.0, 3.0, 4.5])), {}),
    ("2-d index", lambda t: (t.tensor([[1.0, 2.0], [3.0, 4.0]]), t.tensor([[1.0, 2.0], [3.0, 0.0]])), {}),
    ("within float32 defaults", lambda t: (t.tensor([1.0]), t.tensor([1.0 + 1e-6])), {}),
    ("float64 is stricter", lambda t: (t.tensor([1.0], dtype=t.float64), t.tensor([1.0 + 1e-6],
                                                                                  dtype=t.float64)), {}),
    ("0-d tensors", lambda t: (t.tensor(1.0), t.tensor(1.5)), {}),
    ("numbers", lambda t: (1.0, 1.5), {}),
    ("integers", lambda t: (1, 2), {}),
    ("integer tensors", lambda t: (t.tensor([1, 2]), t.tensor([1, 3])), {}),
    ("bool tensors", lambda t: (t.tensor([True, False]), t.tensor([False, False])), {}),
    ("dtype", lambda t: (t.tensor([1.0]), t.tensor([1.0], dtype=t.float64)), {}),
    ("dtype unchecked", lambda t: (t.tensor([1.0]), t.tensor([1.0], dtype=t.float64)),
     {"check_dtype": False}),
    ("shape", lambda t: (t.tensor([1.0, 2.0]), t.tensor([1.0])), {}),
    ("nan", lambda t: (t.tensor([NAN]), t.tensor([NAN])), {}),
    ("nan equal", lambda t: (t.tensor([NAN, 1.0]), t.tensor([NAN, 1.0])), {"equal_nan": True}),
    ("inf", lambda t: (t.tensor([1.0, INF]), t.tensor([1.0, INF])), {}),
    ("opposite inf", lambda t: (t.tensor([1.0, INF]), t.tensor([1.0, -INF])), {}),
    ("tolerances", lambda t: (t.tensor([1.0, 2.0]), t.tensor([1.0, 2.01])), {"rtol": 1e-2, "atol": 0.0}),
    ("tight tolerances", lambda t: (t.tensor([1.0, 2.0]), t.tensor([1.0, 2.01])),
     {"rtol": 1e-4, "atol": 1e-4}),
    ("exact", lambda t: (t.tensor([1.0, 2.0]), t.tensor([1.0, 2.01])), {"rtol": 0.0, "atol": 0.0}),
    ("rtol alone", lambda t: (t.tensor([1.0]), t.tensor([1.0])), {"rtol": 1e-3}),
    ("atol alone", lambda t: (t.tensor([1.0]), t.tensor([1.0])), {"atol": 1e-3}),
    ("message", lambda t: (t.tensor([1.0]), t.tensor([2.0])), {"msg": "custom"}),
    ("message callable", lambda t: (t.tensor([1.0]), t.tensor([2.0])), {"msg": lambda m: "X" + m}),
    ("list item", lambda t: ([t.tensor([1.0]), t.tensor([2.0])], [t.tensor([1.0]), t.tensor([3.0])]), {}),
    ("list lengths", lambda t: ([1.0, 2.0], [1.0, 2.0, 3.0]), {}),
    ("dict item", lambda t: ({"a": t.tensor([1.0])}, {"a": t.tensor([2.0])}), {}),
    ("tuple and list", lambda t: ((1.0,), [1.0]), {}),
    ("None", lambda t: (None, None), {}),
    ("booleans", lambda t: (True, False), {}),
    ("tensor and number", lambda t: (t.tensor(1.0), 1.0), {}),
    ("empty", lambda t: (t.tensor([]), t.tensor([])), {}),
    ("large relative", lambda t: (t.tensor([1e-3, 5.0, -2.0]), t.tensor([2e-3, 5.0, -2.5])), {}),
]


def _outcome(lib: object, build: object, kwargs: dict) -> tuple:
    actual, expected = build(lib)
    try:
        (lib.testing.assert_close if lib is not minigrad else assert_close)(actual, expected, **kwargs)
    except Exception as error:  # noqa: BLE001 (the error is what we compare)
        return type(error), str(error)
    return None, ""


@pytest.mark.parametrize("build, kwargs", [(b, k) for _, b, k in CASES], ids=[c[0] for c in CASES])
def test_assert_close_like_pytorch(build: object, kwargs: dict) -> None:
    torch = require_torch()
    expected_type, expected_message = _outcome(torch, build, kwargs)
    error_type, message = _outcome(minigrad, build, kwargs)
    assert error_type is expected_type, message
    if error_type is TypeError:  # names the classes: torch.Tensor there, minigrad.tensor.Tensor here
        assert message.startswith("No comparison pair was able to handle inputs of type")
        return
    assert message == expected_message.replace("torch.", "minigrad.")


def test_reached_as_torch_testing() -> None:
    assert minigrad.testing.assert_close is assert_close   # `import minigrad as torch; torch.testing...`


def test_numpy_arrays_compare_as_tensor_likes() -> None:
    with pytest.raises(AssertionError, match=r"Greatest absolute difference: 0.5 at index \(0,\)"):
        assert_close(numpy.array([1.0]), numpy.array([1.5]))
    assert_close(numpy.array([1.0, 2.0]), numpy.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="No comparison pair"):
        assert_close(minigrad.tensor([1.0]), numpy.array([1.0]))


def test_subclasses_and_stride() -> None:
    parameter = minigrad.nn.Parameter(minigrad.tensor([1.0]))
    assert_close(parameter, minigrad.tensor([1.0]))
    with pytest.raises(TypeError):
        assert_close(parameter, minigrad.tensor([1.0]), allow_subclasses=False)
    matrix = minigrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert_close(matrix.t(), minigrad.tensor([[1.0, 3.0], [2.0, 4.0]]))
    with pytest.raises(AssertionError, match=r"'stride\(\)' do not match: \(1, 2\) != \(2, 1\)"):
        assert_close(matrix.t(), minigrad.tensor([[1.0, 3.0], [2.0, 4.0]]), check_stride=True)


def test_compare_prints_karpathys_line(capsys: pytest.CaptureFixture) -> None:
    x = minigrad.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    h = x * 3
    h.retain_grad()
    (h ** 2).sum().backward()
    assert compare("h", 2 * h.detach(), h)
    out = capsys.readouterr().out
    assert out.startswith("h               | exact: True  | approximate: True  | maxdiff: 0")
    assert not compare("x", 18 * x.detach() + 1e-3, x)
    assert "exact: False | approximate: False | maxdiff: 0.001" in capsys.readouterr().out
    assert compare("x", 18 * x.detach().numpy() * (1 + 1e-6), x)   # approximate, not exact
    assert "exact: False | approximate: True " in capsys.readouterr().out


def test_compare_refuses_what_it_cannot_compare() -> None:
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.sum().backward()
    with pytest.raises(RuntimeError, match=r"retain_grad\(\)"):
        compare("h", h.detach(), h)
    with pytest.raises(ValueError, match=r"shape \(3,\) but the tensor .* shape \(2,\)"):
        compare("x", numpy.zeros(3), x)


def test_numerical_gradient_of_numpy_functions() -> None:
    torch = require_torch()
    rng = numpy.random.default_rng(0)
    x, w, upstream = rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(4, 5))
    numeric = numerical_gradient(lambda a: numpy.tanh(a @ w.T), x, upstream)
    xt = torch.tensor(x, requires_grad=True)
    torch.tanh(xt @ torch.tensor(w).T).backward(torch.tensor(upstream))
    numpy.testing.assert_allclose(numeric, xt.grad.numpy(), rtol=1e-6, atol=1e-8)
    before = x.copy()
    scalar = numerical_gradient(lambda a: float((a ** 3).sum()), x)
    numpy.testing.assert_allclose(scalar, 3 * before ** 2, rtol=1e-6)
    numpy.testing.assert_array_equal(x, before)   # restored
    with pytest.raises(ValueError, match=r"grad_output has shape \(2,\)"):
        numerical_gradient(lambda a: a * 2, numpy.zeros(3), numpy.ones(2))
    with pytest.raises(TypeError, match="floating-point"):
        numerical_gradient(lambda a: a, numpy.arange(3))
