"""conv2d, conv2d_input, conv2d_weight, unfold and fold through autograd: against PyTorch and
finite differences, for every algorithm; argument errors; choosing the algorithm."""

import numpy
import pytest
from _reference import reference
from _torch import require_torch
from conv_reference import CASE_IDS, CASES, output_grad, torch_conv

import minigrad as mg
from minigrad.autograd import gradcheck
from minigrad.ops.conv import (
    ALGORITHMS,
    conv2d,
    conv2d_input,
    conv2d_weight,
    conv_algorithm,
    fold,
    get_conv_algorithm,
    unfold,
)
from minigrad.ops.conv.algorithms import Algorithm

NAMES = list(ALGORITHMS)


def _leaf(array):
    return mg.tensor(array, requires_grad=True)


def _close(ours, expected, what=""):
    assert tuple(ours.shape) == tuple(expected.shape), what
    numpy.testing.assert_allclose(ours.array if hasattr(ours, "array") else ours, expected, rtol=1e-10,
                                  atol=1e-10, err_msg=what)


# --- values and gradients -------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("name", NAMES)
def test_conv2d_and_every_gradient_match_torch(name, case):
    x, weight, bias = case.arrays(seed=7)
    grad_out = output_grad(case, seed=8)
    expected = torch_conv(case, x, weight, bias, grad_out)
    xs, ws, bs = _leaf(x), _leaf(weight), _leaf(bias)
    out = conv2d(xs, ws, bs, *case.settings, algorithm=name)
    out.backward(mg.tensor(grad_out))
    _close(out, expected["out"], "out")
    _close(xs.grad, expected["x"], "grad x")
    _close(ws.grad, expected["weight"], "grad weight")
    _close(bs.grad, expected["bias"], "grad bias")


GRADCHECK = [("im2col", case) for case in (CASES[1], CASES[3], CASES[6], CASES[12], CASES[16])] + \
    [("rot180", CASES[4]), ("rot180", CASES[9]), ("naive", CASES[10])] + \
    [("im2col_tuned", case) for case in (CASES[6], CASES[8], CASES[15])]


@pytest.mark.parametrize(("name", "case"), GRADCHECK, ids=[f"{n}-{c.name}" for n, c in GRADCHECK])
def test_gradcheck(name, case):
    x, weight, bias = (_leaf(a) for a in case.arrays(seed=9))
    assert gradcheck(lambda a, w, b: conv2d(a, w, b, *case.settings, algorithm=name), (x, weight, bias))


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_output_and_gradients_keep_the_dtype(dtype):
    x = mg.randn(2, 3, 6, 6, dtype=dtype, requires_grad=True)
    w = mg.randn(4, 3, 3, 3, dtype=dtype, requires_grad=True)
    out = conv2d(x, w, padding=1)
    out.sum().backward()
    assert out.dtype is dtype and x.grad.dtype is dtype and w.grad.dtype is dtype


def test_float32_is_close_to_torch():
    torch = require_torch()
    F = torch.nn.functional
    case = CASES[7]
    x, weight, bias = (a.astype(numpy.float32) for a in case.arrays())
    out = conv2d(mg.tensor(x), mg.tensor(weight), mg.tensor(bias), *case.settings)
    expected = F.conv2d(torch.tensor(x), torch.tensor(weight), torch.tensor(bias), *case.settings).numpy()
    numpy.testing.assert_allclose(out.array, expected, rtol=1e-4, atol=1e-4)


def _counting(functions, record):
    """``functions`` (an Algorithm) with each call of forward, grad_weight and grad_input recorded as
    ``record(function's name)`` first."""
    def counting(original, fn):
        if fn == "prepare_grad_output":
            return original
        return lambda *args, **kwargs: record(fn) or original(*args, **kwargs)

    return Algorithm(*(counting(original, fn) for original, fn in zip(functions, Algorithm._fields)))


def test_only_the_needed_gradients_are_computed(monkeypatch):
    calls = []
    monkeypatch.setitem(ALGORITHMS, "im2col", _counting(ALGORITHMS["im2col"], calls.append))
    x = mg.randn(1, 2, 5, 5, dtype=mg.float64)                  # no grad for the input
    w = mg.randn(3, 2, 3, 3, dtype=mg.float64, requires_grad=True)
    conv2d(x, w).sum().backward()
    assert calls == ["forward", "grad_weight"] and x.grad is None and w.grad is not None


# --- padding strings and unbatched input -----------------------------------------------------------

@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")
@pytest.mark.parametrize(("kernel", "dilation"), [((3, 3), 1), ((4, 2), 1), ((2, 5), (2, 1)), ((1, 1), 1)])
@pytest.mark.parametrize("name", NAMES)
def test_padding_same_matches_torch_including_asymmetric(name, kernel, dilation):
    rng = numpy.random.default_rng(0)
    x, weight = rng.standard_normal((2, 2, 7, 6)), rng.standard_normal((3, 2) + kernel)

    def torch_conv_same(torch):
        xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(weight, requires_grad=True)
        out = torch.nn.functional.conv2d(xt, wt, None, 1, "same", dilation)
        out.sum().backward()
        return out, xt.grad, wt.grad

    expected, expected_x, expected_w = reference(torch_conv_same, {"x": x, "weight": weight})
    xs, ws = _leaf(x), _leaf(weight)
    out = conv2d(xs, ws, None, 1, "same", dilation, algorithm=name)
    out.sum().backward()
    assert out.shape == (2, 3, 7, 6)
    _close(out, expected)
    _close(xs.grad, expected_x)
    _close(ws.grad, expected_w)


def test_padding_valid_is_no_padding():
    torch = require_torch()
    F = torch.nn.functional
    x, w = mg.randn(1, 2, 6, 6, dtype=mg.float64), mg.randn(3, 2, 3, 3, dtype=mg.float64)
    expected = F.conv2d(torch.tensor(x.array), torch.tensor(w.array), padding="valid").numpy()
    _close(conv2d(x, w, padding="valid"), expected)


def test_unbatched_input_as_torch():
    torch = require_torch()
    F = torch.nn.functional
    rng = numpy.random.default_rng(1)
    x, weight = rng.standard_normal((3, 6, 5)), rng.standard_normal((4, 3, 3, 2))
    bias = rng.standard_normal(4)
    xt = torch.tensor(x, requires_grad=True)
    expected = F.conv2d(xt, torch.tensor(weight), torch.tensor(bias), 2, 1)
    expected.sum().backward()
    xs = _leaf(x)
    out = conv2d(xs, mg.tensor(weight), mg.tensor(bias), 2, 1)
    out.sum().backward()
    _close(out, expected.detach().numpy())
    _close(xs.grad, xt.grad.numpy())


# --- errors name the numbers ------------------------------------------------------------------------

def _error(call):
    with pytest.raises(Exception) as info:
        call()
    return info.type, str(info.value)


@pytest.mark.parametrize(("x_shape", "w_shape", "kwargs", "pieces"), [
    ((1, 3, 5, 5), (2, 4, 3, 3), {}, ["expected input[1, 3, 5, 5] to have 4 channels", "got 3 channels",
                                      "[2, 4, 3, 3]"]),
    ((1, 3, 5, 5), (4, 1, 3, 3), {"groups": 2}, ["groups=2", "to have 2 channels", "got 3 channels"]),
    ((1, 4, 5, 5), (3, 2, 3, 3), {"groups": 2}, ["groups=2", "divisible by 2", "[3, 2, 3, 3]"]),
    ((5, 5), (2, 1, 3, 3), {}, ["3D (unbatched) or 4D", "[5, 5]"]),
    ((1, 1, 1, 5, 5), (2, 1, 3, 3), {}, ["[1, 1, 1, 5, 5]"]),
    ((1, 1, 3, 3), (2, 1, 5, 5), {}, ["(3 x 3)", "(5 x 5)", "can't be greater"]),
    ((1, 1, 4, 4), (2, 1, 3, 3), {"dilation": 2}, ["(4 x 4)", "(5 x 5)"]),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"stride": 2, "padding": "same"}, ["'same'", "strided"]),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"padding": "full"}, ["'full'"]),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"padding": -1}, ["negative padding", "-1"]),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"stride": 0}, ["stride", "0"]),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"dilation": (1, 0)}, ["dilation", "[1, 0]"]),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"groups": 0}, ["groups", "0"]),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"stride": (1, 2, 3)}, ["stride", "[1, 2, 3]"]),
    ((1, 3, 5, 5), (4, 3, 3), {}, ["[4, 3, 3]"]),
])
def test_bad_arguments_raise_runtime_error_naming_the_numbers(x_shape, w_shape, kwargs, pieces):
    kind, message = _error(lambda: conv2d(mg.zeros(*x_shape), mg.zeros(*w_shape), **kwargs))
    assert kind is RuntimeError, message
    for piece in pieces:
        assert piece in message, (piece, message)


def test_mixed_dtypes_raise_naming_both():
    x32, w64 = mg.zeros(1, 3, 5, 5), mg.zeros(4, 3, 3, 3, dtype=mg.float64)
    kind, message = _error(lambda: conv2d(x32, w64))
    assert kind is RuntimeError and "float32" in message and "float64" in message
    kind, message = _error(lambda: conv2d(x32, mg.zeros(4, 3, 3, 3), mg.zeros(4, dtype=mg.float64)))
    assert kind is RuntimeError and "float32" in message and "float64" in message and "bias" in message


def test_bias_of_the_wrong_size_raises():
    kind, message = _error(lambda: conv2d(mg.zeros(1, 3, 5, 5), mg.zeros(4, 3, 3, 3), mg.zeros(3)))
    assert kind is RuntimeError and "4 elements" in message and "[3]" in message


def test_unknown_algorithm_is_a_value_error_listing_the_valid_ones():
    for call in (lambda: conv2d(mg.zeros(1, 1, 3, 3), mg.zeros(1, 1, 2, 2), algorithm="fft"),
                 lambda: conv_algorithm("fft").__enter__()):
        kind, message = _error(call)
        assert kind is ValueError and "'fft'" in message
        assert all(name in message for name in NAMES)
    assert get_conv_algorithm() == "im2col"


# --- choosing the algorithm -------------------------------------------------------------------------

@pytest.fixture
def counted(monkeypatch):
    """Count calls of each algorithm's three functions: {('naive', 'forward'): 1, ...}."""
    counts = {}
    for name, functions in list(ALGORITHMS.items()):
        def record(fn, name=name):
            counts[(name, fn)] = counts.get((name, fn), 0) + 1

        monkeypatch.setitem(ALGORITHMS, name, _counting(functions, record))
    return counts


def _layer():
    """A conv "layer" built outside any scope: its parameters and settings, called later."""
    weight = mg.randn(3, 2, 3, 3, dtype=mg.float64, requires_grad=True)
    bias = mg.randn(3, dtype=mg.float64, requires_grad=True)
    return lambda x, **kw: conv2d(x, weight, bias, padding=1, **kw)


def test_the_default_is_im2col_and_a_scope_changes_it_then_restores_it():
    assert get_conv_algorithm() == "im2col"
    with conv_algorithm("rot180"):
        assert get_conv_algorithm() == "rot180"
        with conv_algorithm("naive"):
            assert get_conv_algorithm() == "naive"
        assert get_conv_algorithm() == "rot180"
    assert get_conv_algorithm() == "im2col"
    with pytest.raises(KeyError), conv_algorithm("naive"):
        raise KeyError("an error inside the scope")
    assert get_conv_algorithm() == "im2col"


def test_a_layer_called_inside_a_scope_uses_it_for_forward_and_backward(counted):
    layer = _layer()
    x = mg.randn(2, 2, 5, 5, dtype=mg.float64, requires_grad=True)
    with conv_algorithm("naive"):
        out = layer(x)
    out.sum().backward()                       # after the scope has closed
    assert counted == {("naive", "forward"): 1, ("naive", "grad_input"): 1, ("naive", "grad_weight"): 1}


def test_the_algorithm_keyword_wins_over_the_scope(counted):
    layer = _layer()
    x = mg.randn(1, 2, 4, 4, dtype=mg.float64, requires_grad=True)
    with conv_algorithm("naive"):
        out = layer(x, algorithm="rot180")
        out.sum().backward()
    assert counted == {("rot180", "forward"): 1, ("rot180", "grad_input"): 1, ("rot180", "grad_weight"): 1}


def test_without_scope_or_keyword_the_default_runs(counted):
    x = mg.randn(1, 2, 4, 4, dtype=mg.float64, requires_grad=True)
    out = _layer()(x)
    with conv_algorithm("rot180"):             # a scope around the backward alone changes nothing
        out.sum().backward()
    assert counted == {("im2col", "forward"): 1, ("im2col", "grad_input"): 1, ("im2col", "grad_weight"): 1}


def test_the_nn_layer_follows_the_scope_when_present(counted):
    nn = pytest.importorskip("minigrad.nn")
    if not hasattr(nn, "Conv2d"):
        pytest.skip("minigrad.nn.Conv2d not available yet")
    layer = nn.Conv2d(2, 3, 3, padding=1).double()
    with conv_algorithm("naive"):
        out = layer(mg.randn(1, 2, 4, 4, dtype=mg.float64, requires_grad=True))
    out.sum().backward()
    assert counted == {("naive", "forward"): 1, ("naive", "grad_input"): 1, ("naive", "grad_weight"): 1}


# --- conv2d_input / conv2d_weight (torch.nn.grad) ------------------------------------------------------

@pytest.mark.parametrize("case", CASES[::2], ids=CASE_IDS[::2])
@pytest.mark.parametrize("name", NAMES)
def test_conv2d_input_and_weight_match_torch_nn_grad(name, case):
    x, weight, _ = case.arrays(seed=11)
    grad_out = output_grad(case, seed=12)

    def torch_nn_grad(torch):
        tx, tw, tg = torch.tensor(x), torch.tensor(weight), torch.tensor(grad_out)
        return (torch.nn.grad.conv2d_input(x.shape, tw, tg, *case.settings),
                torch.nn.grad.conv2d_weight(tx, weight.shape, tg, *case.settings))

    expected_x, expected_w = reference(torch_nn_grad, {"x": x, "weight": weight, "grad_out": grad_out})
    ours_x = conv2d_input(x.shape, mg.tensor(weight), mg.tensor(grad_out), *case.settings, algorithm=name)
    ours_w = conv2d_weight(mg.tensor(x), weight.shape, mg.tensor(grad_out), *case.settings, algorithm=name)
    assert isinstance(ours_x, mg.Tensor) and isinstance(ours_w, mg.Tensor)
    _close(ours_x, expected_x)
    _close(ours_w, expected_w)


@pytest.mark.parametrize("name", ["im2col", "im2col_tuned", "rot180"])
def test_conv2d_input_and_weight_are_differentiable(name):
    case = CASES[3]
    x, weight, _ = (_leaf(a) for a in case.arrays(seed=13))
    delta = _leaf(output_grad(case, seed=14))
    assert gradcheck(lambda w, d: conv2d_input(case.input_shape, w, d, *case.settings, algorithm=name),
                     (weight, delta))
    assert gradcheck(lambda a, d: conv2d_weight(a, case.weight_shape, d, *case.settings, algorithm=name),
                     (x, delta))


def test_conv2d_input_with_a_size_that_does_not_fit_raises():
    weight, delta = mg.zeros(4, 3, 3, 3), mg.zeros(2, 4, 3, 3)
    kind, message = _error(lambda: conv2d_input((2, 3, 6, 6), weight, delta))
    assert kind is RuntimeError and "[2, 3, 6, 6]" in message and "[2, 4, 4, 4]" in message
    kind, message = _error(lambda: conv2d_weight(mg.zeros(2, 3, 5, 5), (4, 2, 3, 3), delta))
    assert kind is RuntimeError and "[4, 2, 3, 3]" in message


def test_conv2d_input_covers_every_input_size_a_strided_output_allows():
    """Input 7x7 and 8x8 both give a 3x3 output with kernel 3, stride 2; the extra row gets zero."""
    torch = require_torch()
    weight, delta = numpy.ones((1, 1, 3, 3)), numpy.ones((1, 1, 3, 3))
    for size in (7, 8):
        expected = torch.nn.grad.conv2d_input((1, 1, size, size), torch.tensor(weight), torch.tensor(delta),
                                              stride=2).numpy()
        for name in NAMES:
            _close(conv2d_input((1, 1, size, size), mg.tensor(weight), mg.tensor(delta), stride=2,
                                algorithm=name), expected)


# --- unfold / fold ---------------------------------------------------------------------------------

UNFOLD = [((2, 3, 6, 5), (2, 3), 1, 0, 1), ((1, 2, 7, 7), 3, 2, 1, 2),
          ((2, 1, 5, 8), (1, 3), (1, 2), (0, 1), (2, 1))]


@pytest.mark.parametrize(("shape", "kernel", "dilation", "padding", "stride"), UNFOLD)
def test_unfold_and_fold_match_torch_with_gradients(shape, kernel, dilation, padding, stride):
    rng = numpy.random.default_rng(2)
    x = rng.standard_normal(shape)
    xs = _leaf(x)
    cols = unfold(xs, kernel, dilation, padding, stride)
    weights = rng.standard_normal(tuple(cols.shape))
    blocks = rng.standard_normal(tuple(cols.shape))

    def torch_unfold_fold(torch):
        F = torch.nn.functional
        xt, bt = torch.tensor(x, requires_grad=True), torch.tensor(blocks, requires_grad=True)
        unfolded = F.unfold(xt, kernel, dilation, padding, stride)
        (unfolded * torch.tensor(weights)).sum().backward()
        folded = F.fold(bt, shape[2:], kernel, dilation, padding, stride)
        (folded * torch.tensor(x)).sum().backward()
        return unfolded, xt.grad, folded, bt.grad

    expected_cols, expected_x, expected_folded, expected_blocks = reference(
        torch_unfold_fold, {"x": x, "weights": weights, "blocks": blocks})
    (cols * mg.tensor(weights)).sum().backward()
    _close(cols, expected_cols)
    _close(xs.grad, expected_x)

    bs = _leaf(blocks)
    folded = fold(bs, shape[2:], kernel, dilation, padding, stride)
    (folded * mg.tensor(x)).sum().backward()
    _close(folded, expected_folded)
    _close(bs.grad, expected_blocks)


def test_unfold_and_fold_gradcheck_and_unbatched():
    torch = require_torch()
    F = torch.nn.functional
    x = _leaf(numpy.random.default_rng(3).standard_normal((2, 2, 5, 4)))
    assert gradcheck(lambda a: unfold(a, (2, 3), 1, 1, (2, 1)), (x,))
    blocks = _leaf(numpy.random.default_rng(4).standard_normal((2, 12, 6)))
    assert gradcheck(lambda b: fold(b, (3, 4), 2, 1, 0, 1), (blocks,))
    single = numpy.random.default_rng(5).standard_normal((2, 5, 4))
    _close(unfold(mg.tensor(single), 2), F.unfold(torch.tensor(single), 2).numpy())
    _close(fold(mg.tensor(single[0, :4]), (3, 3), 2), F.fold(torch.tensor(single[0, :4]), (3, 3), 2).numpy())


def test_fold_errors_name_the_sizes():
    kind, message = _error(lambda: fold(mg.zeros(1, 5, 9), (4, 4), 2))
    assert kind is RuntimeError and "input.size(1)=5" in message
    kind, message = _error(lambda: fold(mg.zeros(1, 4, 8), (4, 4), 2))
    assert kind is RuntimeError and "3 * 3 = 9" in message and "input.size(2)=8" in message
    kind, message = _error(lambda: unfold(mg.zeros(1, 1, 2, 2), 3))
    assert kind is RuntimeError and "(2, 2)" in message and "(0, 0)" in message
