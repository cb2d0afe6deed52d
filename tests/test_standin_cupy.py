"""The CuPy stand-in enforces CuPy 13's rules (/work/shared/CUPY.md) and serves minigrad's 'cuda' device.

Expected values come from NumPy on host copies, never from the stand-in itself.
"""

import copy
import operator
import pickle

import numpy
import pytest
import standin_cupy
from hypothesis import given, settings
from hypothesis import strategies as st
from standin_cupy import standin as cp

import minigrad
from minigrad import backend


@pytest.fixture(autouse=True)
def _forget_standin():
    yield
    standin_cupy.uninstall()


@pytest.fixture
def xp():
    return standin_cupy.install()


def _host(seed=0, shape=(3, 4), dtype=numpy.float32):
    return numpy.random.default_rng(seed).standard_normal(shape).astype(dtype)


# --- no implicit trip to the host ---------------------------------------------------------

@pytest.mark.parametrize("convert", [numpy.asarray, numpy.array, lambda a: numpy.float64(a) + numpy.ones(2)],
                         ids=["asarray", "array", "arithmetic"])
def test_implicit_conversion_to_numpy_raises(convert):
    with pytest.raises(TypeError, match=r"\.get\(\)"):
        convert(cp.asarray(_host()))


def test_copies_to_and_from_the_host_are_explicit_copies():
    host = _host()
    device = cp.asarray(host)
    host[0, 0] = 100.0  # the device copy must not see this
    back = device.get()
    back[0, 1] = -100.0  # nor this
    assert isinstance(back, numpy.ndarray) and isinstance(cp.asnumpy(device), numpy.ndarray)
    assert device[0, 0].item() != 100.0 and device[0, 1].item() != -100.0
    numpy.testing.assert_array_equal(cp.asnumpy(device)[1:], host[1:])
    assert cp.asarray(device) is device and cp.array(device) is not device
    assert cp.ascontiguousarray(device.T).flags.c_contiguous


# --- no mixing of host and device data ----------------------------------------------------

_MIXED = {
    "x + host": lambda x, h, m: x + h,
    "host + x": lambda x, h, m: h + x,
    "x += host": lambda x, h, m: operator.iadd(x, h),
    "host += x": lambda x, h, m: operator.iadd(h, x),
    "x * 0-d host": lambda x, h, m: x * numpy.array(2.0, numpy.float32),
    "x == host": lambda x, h, m: x == h,
    "x + list": lambda x, h, m: x + [1.0, 2.0, 3.0, 4.0],
    "add(x, host)": lambda x, h, m: cp.add(x, h),
    "maximum(x, list)": lambda x, h, m: cp.maximum(x, [0.0] * 4),
    "exp(list)": lambda x, h, m: cp.exp([1.0, 2.0]),
    "where(m, x, host)": lambda x, h, m: cp.where(m, x, h),
    "concatenate([x, host])": lambda x, h, m: cp.concatenate([x, h]),
    "x.dot(host.T)": lambda x, h, m: x.dot(h.T),
    "zeros_like(host)": lambda x, h, m: cp.zeros_like(h),
    "add(x, 1, out=host)": lambda x, h, m: cp.add(x, 1, out=h),
    "numpy.add(host, x)": lambda x, h, m: numpy.add(h, x),
    "numpy.concatenate([x, host])": lambda x, h, m: numpy.concatenate([x, h]),
    "x[:] = host": lambda x, h, m: operator.setitem(x, slice(None), h),
}


@pytest.mark.parametrize("op", list(_MIXED.values()), ids=list(_MIXED))
def test_mixing_host_and_device_arrays_raises(op):
    host = _host()
    device = cp.asarray(host)
    with pytest.raises(TypeError):
        op(device, host, device > 0)


def test_python_and_numpy_scalars_mix_fine():
    host = _host()
    x = cp.asarray(host)
    for result, expected in [(x + 1, host + 1), (2.0 * x, 2.0 * host), (x * numpy.float32(3), host * 3),
                             (numpy.float32(1) - x, 1 - host), (cp.maximum(x, 0), numpy.maximum(host, 0))]:
        assert isinstance(result, cp.ndarray) and result.dtype == numpy.float32
        numpy.testing.assert_allclose(result.get(), expected)


_BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor", "lshift", "rshift",
           "eq", "ne", "lt", "le", "gt", "ge"]


@pytest.mark.parametrize("name", _BINARY)
def test_operators_match_numpy_including_reflected_and_inplace(name):
    rng = numpy.random.default_rng(1)
    a, b = rng.integers(1, 5, (2, 3)).astype(numpy.int32), rng.integers(1, 5, (2, 3)).astype(numpy.int32)
    op = getattr(operator, name)
    numpy.testing.assert_array_equal(op(cp.asarray(a), cp.asarray(b)).get(), op(a, b))
    numpy.testing.assert_array_equal(op(3, cp.asarray(b)).get(), op(numpy.int32(3), b))
    inplace = getattr(operator, f"i{name.rstrip('_')}", None)
    if inplace is not None and name not in ("truediv", "eq", "ne", "lt", "le", "gt", "ge"):
        x = cp.asarray(a)
        assert inplace(x, cp.asarray(b)) is x
        numpy.testing.assert_array_equal(x.get(), op(a, b))


# --- reductions and scalar indexing give 0-d device arrays ---------------------------------

def test_reductions_and_scalar_indexing_are_0d_device_arrays():
    host = _host()
    x = cp.asarray(host)
    results = {"sum": (x.sum(), host.sum()), "max": (x.max(), host.max()), "mean": (cp.mean(x), host.mean()),
               "argmax": (x.argmax(), host.argmax()), "index": (x[1, 2], host[1, 2]),
               "numpy.sum": (numpy.sum(x), host.sum()), "norm": (cp.linalg.norm(x), numpy.linalg.norm(host)),
               "allclose": (cp.allclose(x, x), True),
               "count_nonzero": (cp.count_nonzero(x > 0), (host > 0).sum())}
    for name, (result, expected) in results.items():
        assert isinstance(result, cp.ndarray) and result.ndim == 0, name
        assert result.item() == pytest.approx(expected, rel=1e-5), name


def test_conversions_of_size_one_arrays():
    x = cp.asarray(numpy.array([[2.5, -1.0]], numpy.float32))
    assert float(x[0, 0]) == 2.5 and int(x[0, 1]) == -1 and bool(x[0, 0]) and f"{x.sum():.2f}" == "1.50"
    assert range(10)[cp.asarray(3)] == 3
    assert [v.item() for v in x[0]] == [2.5, -1.0] and all(isinstance(v, cp.ndarray) for v in x[0])
    with pytest.raises(TypeError):
        iter(x[0, 0])
    with pytest.raises(ValueError):
        bool(x)


# --- views write through ---------------------------------------------------------------------

def test_writes_through_views_reach_the_original():
    host = _host()
    x = cp.asarray(host)
    x[1:, :2] += 10.0
    x.T[0] = 0.0  # column 0 through a transposed view
    x[2, 3][...] = 7.0  # a scalar index is a 0-d view, as on CuPy
    x.reshape(-1)[5] = 5.0
    expected = host.copy()
    expected[1:, :2] += 10.0
    expected[:, 0] = 0.0
    expected[2, 3] = 7.0
    expected.reshape(-1)[5] = 5.0
    numpy.testing.assert_array_equal(x.get(), expected)


def test_sliding_window_view_is_a_view_of_device_memory():
    host = _host(shape=(2, 5, 6))
    x = cp.asarray(host)
    windows = cp.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(1, 2))
    numpy.testing.assert_array_equal(windows.get(), numpy.lib.stride_tricks.sliding_window_view(host, (3, 3),
                                                                                               axis=(1, 2)))
    assert cp.shares_memory(windows, x)
    strided = cp.lib.stride_tricks.as_strided(x, shape=(2, 3), strides=(x.strides[0], x.strides[2]))
    strided[1, 2] = 42.0
    assert x[1, 0, 2].item() == 42.0


# --- products ------------------------------------------------------------------------------------

def test_matmul_tensordot_einsum_match_numpy():
    a, b = _host(1, (2, 3, 4)), _host(2, (2, 4, 5))
    x, y = cp.asarray(a), cp.asarray(b)
    pairs = [(x @ y, a @ b), (cp.matmul(x, y), numpy.matmul(a, b)),
             (cp.tensordot(x, y, axes=([0, 2], [0, 1])), numpy.tensordot(a, b, axes=([0, 2], [0, 1]))),
             (cp.einsum("bij,bjk->bik", x, y), numpy.einsum("bij,bjk->bik", a, b)),
             (x[0].dot(y[0]), a[0].dot(b[0])), (numpy.einsum("bij->j", x), a.sum(axis=(0, 1)))]
    for result, expected in pairs:
        assert isinstance(result, cp.ndarray)
        numpy.testing.assert_allclose(result.get(), expected, rtol=1e-5)


# --- only what CuPy 13 has --------------------------------------------------------------------

@pytest.mark.parametrize("name", ["put_along_axis", "concat", "astype", "permute_dims", "matrix", "errstate",
                                  "asmatrix", "vecdot"])
def test_functions_cupy_lacks_are_absent(name):
    with pytest.raises(AttributeError):
        getattr(cp, name)


def test_numpy_functions_cupy_lacks_raise_on_device_arrays():
    x = cp.zeros((2, 3), dtype=cp.float32)
    with pytest.raises(TypeError, match="put_along_axis"):
        numpy.put_along_axis(x, cp.zeros((2, 1), dtype=cp.int64), 1.0, axis=1)
    assert not hasattr(cp.lib, "recfunctions") and not hasattr(cp.lib.stride_tricks, "broadcast_shapes")


def test_numpy_functions_dispatch_to_the_standin():
    host = _host()
    x = cp.asarray(host)
    pairs = [(numpy.exp(x), numpy.exp(host)), (numpy.concatenate([x, x]), numpy.vstack([host] * 2)),
             (numpy.maximum(x, 0.5), numpy.maximum(host, 0.5)), (numpy.sum(x, axis=0), host.sum(0))]
    for result, expected in pairs:
        assert isinstance(result, cp.ndarray)
        numpy.testing.assert_allclose(result.get(), expected, rtol=1e-6)


@pytest.mark.parametrize("call", [lambda x, m: cp.exp(x, where=m), lambda x, m: numpy.exp(x, where=m),
                                  lambda x, m: cp.add(x, 1.0, where=m), lambda x, m: x.sum(where=m),
                                  lambda x, m: cp.max(x, initial=0.0), lambda x, m: cp.exp(x, order="C")],
                         ids=["exp", "numpy.exp", "add", "sum", "max initial", "order"])
def test_ufuncs_reject_keywords_cupy_lacks(call):
    x = cp.asarray(_host())
    with pytest.raises(TypeError):
        call(x, x > 0)


def test_ufuncs_accept_out_dtype_casting():
    host = _host()
    x, out = cp.asarray(host), cp.empty((3, 4), dtype=cp.float64)
    assert cp.add(x, 1.0, out=out, dtype=cp.float64, casting="same_kind") is out
    numpy.testing.assert_allclose(out.get(), host.astype(numpy.float64) + 1.0)
    assert numpy.multiply(x, 2.0, out=x) is x
    numpy.testing.assert_allclose(x.get(), host * 2.0)


def test_ufunc_methods():
    host = _host()
    x = cp.asarray(host)
    numpy.testing.assert_allclose(cp.add.reduce(x).get(), host.sum(axis=0), rtol=1e-6)
    numpy.testing.assert_allclose(cp.multiply.outer(x[0], x[1]).get(), numpy.multiply.outer(host[0], host[1]))
    with pytest.raises(NotImplementedError):
        cp.maximum.reduce(x)


# --- indices ------------------------------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-30, 30), min_size=1, max_size=8), st.integers(0, 1))
def test_integer_array_indices_wrap_around(indices, axis):
    host = numpy.arange(35, dtype=numpy.float32).reshape(5, 7)
    x, i = cp.asarray(host), cp.asarray(indices)
    expected = numpy.take(host, indices, axis=axis, mode="wrap")
    numpy.testing.assert_array_equal(cp.take(x, i, axis=axis).get(), expected)
    numpy.testing.assert_array_equal((x[i] if axis == 0 else x[:, i]).get(), expected)
    column_or_row = x[:, :1] if axis == 0 else x[:1]
    along = cp.take_along_axis(column_or_row, i.reshape((-1, 1) if axis == 0 else (1, -1)), axis=axis)
    numpy.testing.assert_array_equal(along.get().ravel(), numpy.take(host[:, 0] if axis == 0 else host[0],
                                                                      indices, mode="wrap"))
    y = cp.zeros(7, dtype=cp.float32)
    y[i] = 1.0
    assert y.get()[numpy.asarray(indices) % 7].all()


def test_plain_int_indices_out_of_range_raise():
    x = cp.zeros((2, 3))
    with pytest.raises(IndexError):
        x[2]
    with pytest.raises(IndexError):
        x[0, -4] = 1.0


@pytest.mark.parametrize("index", [numpy.array([0, 1]), [0, 1], (0, [1, 2]), (slice(None), numpy.array(1))],
                         ids=["host array", "list", "list in tuple", "0-d host array"])
def test_host_indices_are_refused(index):
    x = cp.zeros((3, 3))
    with pytest.raises(TypeError):
        x[index]
    with pytest.raises(TypeError):
        x[index] = 1.0


def test_add_at_accumulates_wraps_and_refuses_dtypes_cupy_lacks():
    x = cp.zeros(4, dtype=cp.float32)
    cp.add.at(x, cp.asarray([0, 0, 5, -1]), 1.0)  # 5 wraps to 1, -1 is 3
    numpy.testing.assert_array_equal(x.get(), [2.0, 1.0, 0.0, 1.0])
    grid = cp.zeros((2, 3), dtype=cp.float64)
    cp.add.at(grid, (cp.asarray([0, 0, 1]), cp.asarray([2, 2, 0])), cp.asarray([1.0, 2.0, 4.0]))
    numpy.testing.assert_array_equal(grid.get(), [[0, 0, 3], [4, 0, 0]])
    cp.add.at(cp.zeros(3, dtype=cp.int32), cp.asarray([1]), 1)  # int32 data: CuPy's atomicAdd has it
    with pytest.raises(TypeError, match="int32"):
        cp.add.at(cp.zeros(3, dtype=cp.int64), cp.asarray([1]), 1)  # int64 data: no atomicAdd on CuPy
    with pytest.raises(TypeError):
        numpy.add.at(grid, (cp.asarray([0]), cp.asarray([1])), 1.0)  # numpy.add.at with a tuple: no dispatch
    with pytest.raises(TypeError):
        cp.add.at(x, numpy.array([0]), 1.0)


# --- the rest of the surface -------------------------------------------------------------------

def test_random_takes_float32_or_float64_only():
    assert cp.random.rand(2, 3, dtype=cp.float32).dtype == numpy.float32
    assert cp.random.normal(0.0, 2.0, size=(4,), dtype=cp.float64).shape == (4,)
    for dtype in (cp.float16, cp.int32):
        with pytest.raises(TypeError):
            cp.random.randn(3, dtype=dtype)
    rng = cp.random.default_rng(0)
    assert rng.standard_normal((2,), dtype=cp.float32).dtype == numpy.float32
    assert not any(hasattr(rng, name) for name in ("normal", "choice", "permutation"))


@pytest.mark.parametrize("data", [["a", "b"], numpy.array([1], object), numpy.array([1], numpy.longdouble)],
                         ids=["strings", "object", "longdouble"])
def test_dtypes_cupy_lacks_are_refused(data):
    with pytest.raises(ValueError):
        cp.asarray(data)


def test_pickle_and_deepcopy_give_independent_device_arrays():
    x = cp.asarray(_host())
    for clone in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x), copy.copy(x)):
        assert isinstance(clone, cp.ndarray) and not cp.shares_memory(clone, x)
        numpy.testing.assert_array_equal(clone.get(), x.get())


def test_module_helpers():
    x = cp.zeros(2)
    assert cp.get_array_module(x, numpy.zeros(2)) is cp and cp.get_array_module(numpy.zeros(2)) is numpy
    assert cp.cuda.runtime.getDeviceCount() == 1
    assert cp.result_type(x, cp.float32) == numpy.float64 and cp.can_cast(cp.zeros(2, cp.float32), cp.float64)
    assert cp.may_share_memory(x, x[1:]) and not cp.shares_memory(x, x.copy())
    with pytest.raises(ValueError):
        cp.repeat(x, cp.asarray([1, 2]))  # CuPy: repeats must be host ints


# --- minigrad's backend with the stand-in installed --------------------------------------------

def test_backend_moves_arrays_between_host_and_standin(xp):
    cuda = backend.Device("cuda")
    assert backend.cuda_available()
    host = _host()
    device = backend.to_device(host, cuda)
    assert isinstance(device, xp.ndarray) and backend.device_of(device) == cuda
    assert backend.get_array_module(device) is xp and backend.to_device(device, cuda) is device
    host[0, 0] = 50.0
    assert device[0, 0].item() != 50.0  # to_device copied
    back = backend.to_host(device)
    assert isinstance(back, numpy.ndarray) and backend.device_of(back) == backend.Device("cpu")
    numpy.testing.assert_array_equal(back[1:], host[1:])
    assert isinstance(backend.from_host(host, cuda), xp.ndarray)


def test_backend_default_device_follows_install_and_uninstall(xp):
    backend.set_backend("cupy")
    assert backend.default_device() == backend.Device("cuda")
    standin_cupy.uninstall()
    assert backend.default_device() == backend.Device("cpu")


@pytest.mark.parametrize("move", [lambda m: m.zeros(2).cuda(), lambda m: m.zeros(2, device="cuda"),
                                  lambda m: m.zeros(2).to("cuda")], ids=["cuda()", "device=", "to()"])
def test_cuda_without_a_gpu_raises_what_torchs_cpu_build_raises(move):
    """PyTorch's CPU build: AssertionError "Torch not compiled with CUDA enabled"; its CUDA build on a
    machine without a GPU: RuntimeError. minigrad's error is both."""
    if backend.cuda_available():
        pytest.skip("this machine has a GPU")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        with pytest.raises(AssertionError):
            move(torch)
    with pytest.raises(AssertionError, match="CUDA is not available"):
        move(minigrad)
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        move(minigrad)
