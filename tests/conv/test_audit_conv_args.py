"""Regression tests from an audit of ``F.conv2d``'s and ``nn.grad``'s argument handling against PyTorch: each
test pins one behaviour where minigrad used to differ (empty batches, exception types, argument types).

Expected values come from PyTorch (the same call) or are derived by hand in the test.
"""

import warnings

import numpy
import pytest
import standin_cupy
from _torch import raises_like_torch, require_torch

import minigrad as mg
import minigrad.nn.functional as F
import minigrad.nn.grad  # noqa: F401  (makes mg.nn.grad available)

rng = numpy.random.default_rng(11)
X = rng.standard_normal((2, 4, 7, 6))
W = rng.standard_normal((6, 2, 3, 2))


def _host(t):
    return t.array.get() if t.device.type == "cuda" else numpy.asarray(t.array)


# --- an empty batch --------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:Using padding='same'")   # PyTorch's note on even kernels
@pytest.mark.parametrize("algorithm", ["im2col", "im2col_tuned", "rot180", "naive"])
@pytest.mark.parametrize("padding", [1, "same"])
def test_conv2d_of_an_empty_batch_is_empty_with_zero_gradients(algorithm, padding):
    """The im2col algorithm used to fail with NumPy's "cannot reshape array of size 0"."""
    torch = require_torch()
    def run(lib, **kwargs):
        x = lib.zeros(0, 4, 7, 6, dtype=lib.float64, requires_grad=True)
        w = lib.tensor(W, requires_grad=True)
        b = lib.ones(6, dtype=lib.float64, requires_grad=True)
        out = lib.nn.functional.conv2d(x, w, b, padding=padding, groups=2, **kwargs)
        out.sum().backward()
        return out, x.grad, w.grad, b.grad
    ours, theirs = run(mg, algorithm=algorithm), run(torch)
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape)
        numpy.testing.assert_array_equal(_host(a), b.detach().numpy())   # all zero, dW too


@pytest.mark.parametrize("algorithm", ["im2col", "im2col_tuned", "rot180", "naive"])
def test_nn_grad_of_an_empty_batch_with_its_own_gradients(algorithm):
    """conv2d_weight (and its backward) on no samples: a zero dW, as PyTorch gives."""
    torch = require_torch()
    x = mg.zeros(0, 4, 7, 6, dtype=mg.float64, requires_grad=True)
    delta = mg.zeros(0, 6, 3, 3, dtype=mg.float64, requires_grad=True)
    w = mg.tensor(W, requires_grad=True)
    grad_w = mg.nn.grad.conv2d_weight(x, W.shape, delta, stride=2, groups=2, algorithm=algorithm)
    grad_x = mg.nn.grad.conv2d_input(x.shape, w, delta, stride=2, groups=2, algorithm=algorithm)
    (grad_w.sum() + grad_x.sum()).backward()
    theirs = torch.nn.grad.conv2d_weight(torch.zeros(0, 4, 7, 6, dtype=torch.float64), W.shape,
                                         torch.zeros(0, 6, 3, 3, dtype=torch.float64), stride=2, groups=2)
    numpy.testing.assert_array_equal(_host(grad_w), theirs.numpy())
    assert tuple(grad_x.shape) == (0, 4, 7, 6) and tuple(x.grad.shape) == (0, 4, 7, 6)
    assert tuple(delta.grad.shape) == (0, 6, 3, 3) and not _host(w.grad).any()


def test_conv2d_of_an_empty_batch_runs_on_the_cupy_standin():
    standin_cupy.install()
    try:
        x = mg.zeros(0, 4, 7, 6, device="cuda", requires_grad=True)
        w = mg.ones(6, 2, 3, 2, device="cuda", requires_grad=True)
        out = F.conv2d(x, w, stride=2, groups=2, algorithm="im2col")
        out.sum().backward()
        assert isinstance(w.grad.array, standin_cupy.serving_module().ndarray)
        assert tuple(out.shape) == (0, 6, 3, 3) and not w.grad.array.get().any()
    finally:
        standin_cupy.uninstall()


# --- checks and argument types ---------------------------------------------------------------------

def test_conv2d_weight_with_no_output_channels_is_torchs_runtimeerror():
    """We used to raise NumPy's ValueError from a reshape."""
    raises_like_torch(lambda m: m.nn.functional.conv2d(m.zeros(1, 4, 5, 5), m.zeros(0, 4, 2, 2)),
                       RuntimeError, "expected weight to be at least 1 at dimension 0", "[0, 4, 2, 2]")


@pytest.mark.parametrize(("kwargs", "fragment"), [
    ({"padding": (1.5, 1)}, "1.5"), ({"padding": 1.5}, "1.5"), ({"stride": (2.0, 1)}, "2.0"),
    ({"stride": 1.0}, "1.0"), ({"dilation": True}, "True"),
])
def test_conv2d_sizes_must_be_ints(kwargs, fragment):
    """padding=(1.5, 1) used to be truncated to (1, 1) silently; a float alone failed with "not iterable"."""
    raises_like_torch(lambda m: m.nn.functional.conv2d(m.zeros(1, 1, 5, 5), m.zeros(1, 1, 2, 2), **kwargs),
                       TypeError, fragment)


def test_conv2d_sizes_accept_numpy_ints():
    torch = require_torch()
    args = dict(stride=numpy.int64(2), padding=(numpy.int32(1), 1), dilation=[numpy.int64(1)])
    ours = F.conv2d(mg.tensor(X), mg.tensor(W), groups=2, **args)
    theirs = torch.nn.functional.conv2d(torch.tensor(X), torch.tensor(W), groups=2, **args)
    numpy.testing.assert_allclose(_host(ours), theirs.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("function", ["conv2d_input", "conv2d_weight"])
def test_nn_grad_with_a_padding_string_is_a_runtimeerror(function):
    """PyTorch's nn.grad takes the forward's actual padding; a string used to fail with int('s')."""
    def call(lib):
        delta = lib.zeros(2, 6, 7, 6, dtype=lib.float64)
        if function == "conv2d_input":
            return lib.nn.grad.conv2d_input(X.shape, lib.tensor(W), delta, padding="same", groups=2)
        return lib.nn.grad.conv2d_weight(lib.tensor(X), W.shape, delta, padding="same", groups=2)
    raises_like_torch(call, RuntimeError, "padding")


@pytest.mark.parametrize("size", [X.shape, list(X.shape), "Size"])
def test_nn_grad_input_size_as_tuple_list_or_size(size):
    """Pinned while auditing: PyTorch's positional signature, input_size given three ways."""
    torch = require_torch()
    delta = numpy.random.default_rng(0).standard_normal((2, 6, 5, 5))
    input_size = mg.Size(X.shape) if size == "Size" else size
    ours = mg.nn.grad.conv2d_input(input_size, mg.tensor(W), mg.tensor(delta), 1, 0, 1, 2)
    theirs = torch.nn.grad.conv2d_input(torch.Size(X.shape), torch.tensor(W), torch.tensor(delta), groups=2)
    numpy.testing.assert_allclose(_host(ours), theirs.numpy(), rtol=1e-10, atol=1e-12)


def test_conv2d_of_bool_is_not_implemented_as_in_torch():
    """A bool convolution used to come back as a tensor of ORs; integer convolutions stay allowed."""
    torch = require_torch()
    def call(lib, dtype):
        x = lib.tensor(numpy.arange(25).reshape(1, 1, 5, 5) % 3 == 0)
        return lib.nn.functional.conv2d(x.to(getattr(lib, dtype)), x[:, :, :2, :2].to(getattr(lib, dtype)))
    raises_like_torch(lambda m: call(m, "bool"), NotImplementedError, "not implemented for 'Bool'")
    numpy.testing.assert_array_equal(_host(call(mg, "int64")), call(torch, "int64").numpy())


@pytest.mark.parametrize(("function", "dtype", "name"), [("conv2d_input", "int64", "Long"),
                                                         ("conv2d_weight", "int32", "Int"),
                                                         ("conv2d_input", "bool", "Bool")])
def test_nn_grad_of_integers_is_not_implemented_as_in_torch(function, dtype, name):
    """PyTorch has no integer kernels for the convolution's gradients; we used to compute them."""
    def call(lib):
        kind = getattr(lib, dtype)
        delta = lib.ones(2, 6, 4, 4, dtype=kind)
        if function == "conv2d_input":
            return lib.nn.grad.conv2d_input((2, 4, 5, 5), lib.ones(6, 4, 2, 2, dtype=kind), delta)
        return lib.nn.grad.conv2d_weight(lib.ones(2, 4, 5, 5, dtype=kind), (6, 4, 2, 2), delta)
    raises_like_torch(call, NotImplementedError, f"not implemented for '{name}'")


def test_same_padding_with_an_even_kernel_warns_as_torch():
    """An even kernel (odd dilation) needs an asymmetric, copied padding: PyTorch warns (once a process,
    so it is not asked again here); odd kernels do not warn."""
    x = mg.ones(1, 1, 5, 5)
    with pytest.warns(UserWarning, match="padding='same' with even kernel lengths"):
        F.conv2d(x, mg.ones(1, 1, 2, 3), padding="same")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.conv2d(x, mg.ones(1, 1, 3, 3), padding="same")
        F.conv2d(x, mg.ones(1, 1, 2, 2), padding="same", dilation=2)   # d·(k−1) even: symmetric


def test_factories_need_a_size_as_in_torch():
    """``zeros()`` is a TypeError in PyTorch (``zeros(())`` is the 0-d tensor)."""
    torch = require_torch()
    for name in ("zeros", "ones", "empty", "rand", "randn"):
        with pytest.raises(TypeError):
            getattr(torch, name)()
        with pytest.raises(TypeError, match=f'{name}\\(\\) missing 1 required positional arguments: "size"'):
            getattr(mg, name)()
        assert getattr(mg, name)(()).shape == getattr(torch, name)(()).shape == ()
