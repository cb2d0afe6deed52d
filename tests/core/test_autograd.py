"""Graph behaviours: the engine, accumulation, freed buffers, retain_grad, hooks, autograd.grad,
the version counter, in-place ops, anomaly detection and grad mode."""

import inspect
import sys
import warnings

import numpy
import pytest
from _torch import require_torch

import minigrad as mg

from .helpers import to_numpy


def values(*numbers, dtype=mg.float64, requires_grad=True):
    return mg.tensor(list(numbers), dtype=dtype, requires_grad=requires_grad)


def assert_grad(t, expected):
    assert t.grad is not None, "no gradient"
    numpy.testing.assert_allclose(to_numpy(t.grad), numpy.asarray(expected, dtype=numpy.float64), rtol=1e-12)


# --- the engine -------------------------------------------------------------------------------

def test_backward_through_a_chain_of_100000_ops_is_iterative():
    limit = sys.getrecursionlimit()
    x = mg.tensor(1.0, dtype=mg.float64, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.00001
    y.backward()  # a recursive engine would hit RecursionError long before this depth
    assert sys.getrecursionlimit() == limit
    numpy.testing.assert_allclose(x.grad.item(), 1.00001 ** 100_000, rtol=1e-9)


def test_diamond_graph_sums_both_paths():
    x = values(2.0, -1.0)
    a = x * 3
    y = a * a + a.exp()  # a is used twice: its gradient is the sum of both uses
    y.sum().backward()
    a_value = 3 * numpy.array([2.0, -1.0])
    assert_grad(x, 3 * (2 * a_value + numpy.exp(a_value)))


def test_leaf_gradients_accumulate_across_backward_calls():
    x = values(1.0, 2.0)
    (x * 3).sum().backward()
    (x * x).sum().backward()
    assert_grad(x, [3 + 2 * 1.0, 3 + 2 * 2.0])
    x.grad.zero_()
    (x * 5).sum().backward()
    assert_grad(x, [5.0, 5.0])


def test_backward_with_explicit_gradient():
    x = values(1.0, 2.0, 3.0)
    y = x * x
    y.backward(mg.tensor([1.0, 0.0, -1.0], dtype=mg.float64))
    assert_grad(x, [2.0, 0.0, -6.0])


def test_second_backward_through_freed_graph_raises_mentioning_retain_graph():
    x = values(1.0, 2.0)
    y = (x.exp() * x).sum()  # Exp and Mul saved tensors for backward
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph"):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = values(1.0, 2.0)
    y = (x.sin() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    x_value = numpy.array([1.0, 2.0])
    assert_grad(x, 2 * (numpy.cos(x_value) * x_value + numpy.sin(x_value)))


def test_non_leaf_grad_is_none_unless_retained():
    x = values(1.0, 2.0)
    hidden = x * 2
    kept = x * 3
    kept.retain_grad()
    assert kept.retains_grad and not hidden.retains_grad
    (hidden * kept).sum().backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
        assert hidden.grad is None
    numpy.testing.assert_allclose(to_numpy(kept.grad), to_numpy(hidden.detach()))
    assert_grad(x, 2 * 3 * numpy.array([1.0, 2.0]) * 2)


def test_hook_on_a_leaf_replaces_its_gradient():
    x = values(1.0, 2.0)
    seen = []
    x.register_hook(lambda grad: seen.append(to_numpy(grad).copy()) or grad * 10)
    (x * 3).sum().backward()
    numpy.testing.assert_array_equal(seen[0], [3.0, 3.0])
    assert_grad(x, [30.0, 30.0])


def test_hook_on_a_non_leaf_changes_what_flows_on():
    x = values(1.0, 2.0)
    middle = x * x
    handle = middle.register_hook(lambda grad: grad * 0.5)
    (middle * 4).sum().backward()
    assert_grad(x, 0.5 * 4 * 2 * numpy.array([1.0, 2.0]))
    handle.remove()
    x.grad = None
    (x * x * 4).sum().backward()
    assert_grad(x, 4 * 2 * numpy.array([1.0, 2.0]))


def test_hook_handles_work_as_context_managers_like_torch():
    torch = require_torch()
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with x.register_hook(lambda grad: grad * 10):
            (x * 1).sum().backward()
        (x * 1).sum().backward()  # the hook is gone
        assert x.grad.tolist() == [11.0, 11.0]
        layer, seen = lib.nn.Linear(2, 1), []
        with layer.register_forward_hook(lambda module, args, out, seen=seen: seen.append(out.shape)):
            layer(lib.ones(1, 2))
        layer(lib.ones(1, 2))
        assert len(seen) == 1


@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "non-leaf"])
def test_hook_may_not_change_the_gradients_shape_or_dtype_like_torch(leaf):
    torch = require_torch()
    for lib in (mg, torch):
        wrong_shape = lib.ones(3)
        cases = [(lambda grad, w=wrong_shape: w, RuntimeError, "changed the size of value"),
                 (lambda grad: grad.double(), RuntimeError, "changed the type of value"),
                 (lambda grad: 3, TypeError, "hook returned 'int'")]
        for hook, error, pattern in cases:
            x = lib.tensor([1.0, 2.0], requires_grad=True)
            hooked = x if leaf else x * 1
            hooked.register_hook(hook)
            with pytest.raises(error, match=pattern):
                (hooked * 2).sum().backward()


def test_hooks_match_torch():
    torch = require_torch()
    results = []
    for lib in (mg, torch):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        h = x.tanh()
        h.register_hook(lambda grad: grad.clamp(min=0.0))
        x.register_hook(lambda grad: grad * 2)
        (h * lib.tensor([1.0, -1.0, 3.0], dtype=lib.float64)).sum().backward()
        results.append(x.grad)
    numpy.testing.assert_allclose(to_numpy(results[0]), results[1].numpy(), rtol=1e-12)


def test_autograd_grad_returns_gradients_without_touching_dot_grad():
    x = values(1.0, 2.0)
    w = values(3.0, 4.0)
    y = (x * w).sum()
    gx, gw = mg.autograd.grad(y, [x, w])
    numpy.testing.assert_array_equal(to_numpy(gx), [3.0, 4.0])
    numpy.testing.assert_array_equal(to_numpy(gw), [1.0, 2.0])
    assert x.grad is None and w.grad is None


def test_autograd_grad_of_an_intermediate_and_with_grad_outputs():
    x = values(1.0, 2.0)
    h = x * x
    y = h * 3
    (gh,) = mg.autograd.grad(y, h, grad_outputs=mg.tensor([1.0, -2.0], dtype=mg.float64))
    numpy.testing.assert_array_equal(to_numpy(gh), [3.0, -6.0])


def test_autograd_grad_unused_input_raises_unless_allowed():
    x, unused = values(1.0), values(2.0)
    with pytest.raises(RuntimeError, match="allow_unused"):
        mg.autograd.grad((x * 2).sum(), [x, unused])
    gx, gu = mg.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert gu is None
    numpy.testing.assert_array_equal(to_numpy(gx), [2.0])


def test_autograd_grad_materialize_grads_gives_zeros_for_unused_inputs_like_torch():
    torch = require_torch()
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        unused = lib.tensor([[3.0], [4.0]], requires_grad=True)
        gx, gu = lib.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)
        assert gx.tolist() == [2.0, 2.0]
        assert gu.tolist() == [[0.0], [0.0]] and not gu.requires_grad
        with pytest.raises(ValueError, match="allow_unused"):
            lib.autograd.grad((x * 2).sum(), [x, unused], allow_unused=False, materialize_grads=True)


# --- the version counter and in-place operations ----------------------------------------------

def test_in_place_change_of_a_saved_tensor_makes_backward_raise_naming_the_ops():
    x = values(0.5, 1.0)
    a = x * 2
    b = a.sin()  # Sin saves its input a
    a.add_(1)
    with pytest.raises(RuntimeError, match="inplace") as error:
        b.sum().backward()
    message = str(error.value)
    assert "SinBackward0" in message and "add_" in message


def test_in_place_change_of_a_saved_output_raises():
    x = values(0.5, 1.0)
    y = x.exp()  # Exp saves its output
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_change_through_detach_is_seen_by_the_version_counter():
    x = values(0.5, 1.0)
    y = x.sin()
    x.detach().zero_()  # shares x's storage and its version counter, as in PyTorch
    with pytest.raises(RuntimeError, match="inplace"):
        y.sum().backward()


def test_change_through_data_is_not_tracked():
    x = values(0.5, 1.0)
    y = x.sin()
    x.data.mul_(0)  # .data: same storage, untracked (PyTorch's escape hatch)
    y.sum().backward()
    assert_grad(x, numpy.cos([0.0, 0.0]))


def test_residual_in_place_add_matches_torch():
    torch = require_torch()
    rng = numpy.random.default_rng(5)
    x_host, w_host = rng.standard_normal((4, 3)), rng.standard_normal((3, 3))
    grads = []
    for lib in (mg, torch):
        x = lib.tensor(x_host, requires_grad=True)
        w = lib.tensor(w_host, requires_grad=True)
        identity = x
        out = x @ w
        out += identity
        out = out.relu()
        out.pow(2).sum().backward()
        grads.append((x.grad, w.grad))
    for ours, theirs in zip(grads[0], grads[1]):
        numpy.testing.assert_allclose(to_numpy(ours), theirs.numpy(), rtol=1e-12)


def test_in_place_on_a_leaf_requiring_grad_raises():
    w = values(1.0, 2.0)
    for change in (lambda: w.add_(1), lambda: w.mul_(2), lambda: w.zero_(), lambda: w.__setitem__(0, 5.0)):
        with pytest.raises(RuntimeError, match="leaf"):
            change()
    with pytest.raises(RuntimeError, match="leaf"):
        w -= 1  # noqa: F841 (the augmented assignment itself must raise)


def test_in_place_on_a_leaf_works_under_no_grad():
    w = values(1.0, 2.0)
    (w * w).sum().backward()
    with mg.no_grad():
        w -= 0.25 * w.grad
        w[0] = w[0] * 2
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    numpy.testing.assert_allclose(to_numpy(w.detach()), [(1.0 - 0.5) * 2, 2.0 - 1.0])


def test_setitem_on_a_non_leaf_matches_torch():
    torch = require_torch()
    grads = []
    for lib in (mg, torch):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([10.0, 20.0], dtype=lib.float64, requires_grad=True)
        y = x * 2
        y[:, 0] = v * v
        y[1, 1:] = 0.0
        (y * y).sum().backward()
        grads.append((x.grad, v.grad))
    for ours, theirs in zip(grads[0], grads[1]):
        numpy.testing.assert_allclose(to_numpy(ours), theirs.numpy(), rtol=1e-12)


def test_in_place_ops_bump_the_version():
    x = mg.zeros(3)
    view = x[1:]
    before = x._version
    x.add_(1)
    view.mul_(3)
    assert x._version > before + 1
    numpy.testing.assert_array_equal(to_numpy(x), [1.0, 3.0, 3.0])


# --- anomaly detection ------------------------------------------------------------------------
# These tests make NaN and inf on purpose: the array library's RuntimeWarnings are expected.
NAN_ON_PURPOSE = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@NAN_ON_PURPOSE
def test_detect_anomaly_names_the_operation_and_the_users_line():
    x = values(0.0, 1.0)
    with mg.autograd.detect_anomaly():
        zeroed = x * 0; line = inspect.currentframe().f_lineno  # noqa: E702 (the line to find)
        y = zeroed.sqrt()  # d sqrt(0) = inf, times d(x * 0)/dx = 0: NaN in MulBackward0
        with pytest.raises(RuntimeError, match="nan") as error:
            y.sum().backward()
    message = str(error.value)
    assert "MulBackward0" in message
    assert f"{__file__}\", line {line}" in message
    assert "zeroed = x * 0" in message


@NAN_ON_PURPOSE
def test_detect_anomaly_shows_user_frames_even_in_a_folder_named_minigrad(tmp_path):
    """Only minigrad's own package frames are hidden, not a user's project that is called minigrad."""
    user_file = tmp_path / "minigrad" / "train.py"
    source = "def forward(x):\n    return (x * 0).log() * 0\n"
    code = compile(source, str(user_file), "exec")
    namespace = {}
    exec(code, namespace)
    x = values(0.0, 2.0)
    with mg.autograd.detect_anomaly():
        y = namespace["forward"](x)
        with pytest.raises(RuntimeError, match="nan") as error:
            y.sum().backward()
    message = str(error.value)
    assert f"{user_file}\", line 2" in message
    assert "autograd/function.py" not in message and "minigrad/tensor.py" not in message


@NAN_ON_PURPOSE
def test_without_detect_anomaly_nan_flows_silently_as_in_torch():
    x = values(0.0)
    (x * 0).sqrt().sum().backward()
    assert numpy.isnan(to_numpy(x.grad)).all()


# --- grad mode ------------------------------------------------------------------------------

def test_no_grad_context_and_decorator():
    x = values(1.0)
    with mg.no_grad():
        assert not mg.is_grad_enabled()
        y = x * 2
    assert mg.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None

    @mg.no_grad()
    def double(t):
        return t * 2

    assert not double(x).requires_grad
    assert mg.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = values(1.0)
    with mg.no_grad():
        with mg.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad

    @mg.enable_grad()
    def double(t):
        return t * 2

    with mg.no_grad():
        assert double(x).requires_grad


def test_set_grad_enabled_as_context_call_and_decorator():
    x = values(1.0)
    with mg.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert mg.is_grad_enabled()
    mg.set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        mg.set_grad_enabled(True)

    @mg.set_grad_enabled(False)
    def double(t):
        return t * 2

    assert not double(x).requires_grad
    assert mg.is_grad_enabled() and (x * 2).requires_grad


def test_grad_mode_restored_after_an_exception():
    with pytest.raises(ValueError):
        with mg.no_grad():
            raise ValueError("boom")
    assert mg.is_grad_enabled()


# --- leaves, detach, data ---------------------------------------------------------------------

def test_leaf_and_requires_grad_flags():
    x = mg.ones(2)
    assert x.is_leaf and not x.requires_grad and x.grad_fn is None
    assert x.requires_grad_() is x and x.requires_grad and x.is_leaf
    y = x * 2
    assert not y.is_leaf and y.requires_grad and y.grad_fn is not None
    assert (mg.ones(2) * 2).is_leaf
    with pytest.raises(RuntimeError):
        y.requires_grad = False  # only leaves may change the flag
    x.requires_grad_(False)
    assert not (x * 2).requires_grad


def test_requires_grad_flag_of_a_non_leaf_matches_torch():
    """Setting the attribute on a computed tensor raises even for True; requires_grad_() is then a no-op."""
    torch = require_torch()
    for lib in (mg, torch):
        y = lib.tensor([1.0, 2.0], requires_grad=True) * 2
        assert y.requires_grad_() is y and y.requires_grad
        with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
            y.requires_grad = True
        with pytest.raises(RuntimeError, match="var.detach()"):
            y.requires_grad_(False)


def test_grad_of_a_non_leaf_warns_unless_retained_like_torch():
    torch = require_torch()
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        hidden, kept, view = x * 2, x * 3, x[:1]
        kept.retain_grad()
        (hidden * kept).sum().backward()
        for t in (hidden, view):
            with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
                assert t.grad is None
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert kept.grad.tolist() == [2.0, 4.0] and x.grad.tolist() == [12.0, 24.0]
            assert lib.ones(1).grad is None  # a leaf: no warning


def test_detach_in_place_refuses_views_like_torch():
    torch = require_torch()
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="Can't detach views in-place"):
            (x * 2)[:1].detach_()
        with pytest.raises(RuntimeError, match="Can't detach views in-place"):
            lib.ones(3)[1:].detach_()
        y = x * 2
        assert y.detach_() is y and y.is_leaf and not y.requires_grad
        d = x[:1].detach()  # shares storage but is no view: may be detached in place
        assert d.detach_() is d


def test_detach_shares_storage_and_leaves_the_graph():
    x = values(1.0, 2.0)
    y = x * 2
    d = y.detach()
    assert d.is_leaf and not d.requires_grad and d.grad_fn is None
    d[0] = 7.0
    assert y[0].item() == 7.0  # same storage


def test_data_is_a_detached_tensor_sharing_storage():
    x = values(1.0, 2.0)
    data = x.data
    assert not data.requires_grad and data.is_leaf
    data.mul_(3)
    numpy.testing.assert_array_equal(to_numpy(x.detach()), [3.0, 6.0])
    x.data = mg.tensor([5.0, 6.0], dtype=mg.float64)
    assert x.requires_grad
    numpy.testing.assert_array_equal(to_numpy(x.detach()), [5.0, 6.0])


def test_no_grad_and_enable_grad_decorate_without_parentheses_like_torch():
    x = mg.tensor([1.0, 2.0], requires_grad=True)

    @mg.no_grad
    def doubled(t):
        """Twice t."""
        return t * 2

    @mg.enable_grad
    def tripled(t):
        return t * 3

    assert doubled(x).requires_grad is False and doubled.__doc__ == "Twice t."
    assert mg.is_grad_enabled()
    with mg.no_grad():
        assert tripled(x).requires_grad is True
        assert not mg.is_grad_enabled()


def test_inference_mode_turns_recording_off_like_torch():
    torch = require_torch()
    for lib in (mg, torch):
        x = lib.tensor([1.0], requires_grad=True)
        with lib.inference_mode():
            assert not lib.is_grad_enabled() and not (x * 2).requires_grad
        with lib.no_grad(), lib.inference_mode(False):
            assert lib.is_grad_enabled()  # mode=False records again

        @lib.inference_mode()
        def predict(t):
            return t * 2

        assert not predict(x).requires_grad and lib.is_grad_enabled()

        @lib.inference_mode
        def bare(t):
            return t * 2

        @lib.inference_mode(False)
        def recording(t):
            return t * 2

        with lib.no_grad():
            assert not bare(x).requires_grad and recording(x).requires_grad


@pytest.mark.parametrize("fill", ["fill_", "zero_"])
def test_filling_a_non_leaf_keeps_it_in_the_graph_with_a_zero_gradient_like_torch(fill):
    torch = require_torch()
    results = {}
    for lib in (mg, torch):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x * 2  # (exp would save its output, and then refuse the fill as PyTorch does)
        getattr(y, fill)(*([0.5] if fill == "fill_" else []))
        (y * x).sum().backward()
        results[lib] = (y.grad_fn is not None, y.requires_grad, y.tolist(), x.grad.tolist())
    assert results[mg] == results[torch]


def test_is_anomaly_enabled_at_top_level_follows_detect_anomaly_as_in_torch():
    assert mg.is_anomaly_enabled() is False and mg.is_anomaly_enabled is mg.autograd.is_anomaly_enabled
    with mg.autograd.detect_anomaly():
        assert mg.is_anomaly_enabled() is True
    assert mg.is_anomaly_enabled() is False
