"""The Tensor itself: attributes, leaving minigrad (numpy(), np.asarray, .array, item, tolist)
and repr in PyTorch's style."""


import numpy
import pytest
from _reference import reference
from _torch import require_torch

import minigrad as mg
from minigrad import backend

from .helpers import to_numpy

REPR_CASES = {
    "leaf_requires_grad": lambda m: m.tensor([1.0, 2.0], requires_grad=True),
    "zero_dim": lambda m: m.tensor(3.5),
    "ints": lambda m: m.tensor([1, 2, 3]),
    "int32": lambda m: m.tensor([1, 2], dtype=m.int32),
    "bools": lambda m: m.tensor([True, False]),
    "all_true": lambda m: m.tensor([True, True]),
    "matrix": lambda m: m.tensor([[1.5, -2.25], [3.0, 4.125]]),
    "float64": lambda m: m.tensor([1.0, 2.0], dtype=m.float64),
    "float64_requires_grad": lambda m: m.tensor([[1.0, 2.0]], dtype=m.float64, requires_grad=True),
    "small_values": lambda m: m.tensor([1e-5, 1.0]),
    "wide_range": lambda m: m.tensor([0.1, 123.456]),
    "integral_floats": lambda m: m.tensor([100.0, -3.0]),
    "nan_inf": lambda m: m.tensor([float("nan"), float("inf"), 1.0]),
    "nan_decimals": lambda m: m.tensor([float("nan"), 1.5]),
    "empty": lambda m: m.zeros(0),
    "empty_2d": lambda m: m.zeros(2, 0),
    "empty_int": lambda m: m.arange(0),
    "empty_bool_2d": lambda m: m.zeros(2, 0, dtype=m.bool),
    "empty_float64": lambda m: m.zeros(0, dtype=m.float64),
    "max_dim": lambda m: m.tensor([[1.0, 3.0], [2.0, 0.0]]).max(1),
    "min_dim_keepdim": lambda m: m.tensor([[1.0, 3.0], [2.0, 0.0]]).min(0, keepdim=True),
    "summarised": lambda m: m.arange(2000).float(),
    "summarised_matrix": lambda m: m.arange(3000).reshape(30, 100),
    "grad_fn": lambda m: m.tensor([1.0, 2.0], requires_grad=True) * 2,
    "grad_fn_zero_dim": lambda m: m.tensor([1.0, 2.0], requires_grad=True).sum(),
}


@pytest.mark.parametrize("make", REPR_CASES.values(), ids=REPR_CASES.keys())
def test_repr_matches_torch(make, device):
    ours = repr(make(mg))
    if device.type == "cuda":
        assert ", device='cuda:0'" in ours
        ours = ours.replace(", device='cuda:0'", "")
    expected = reference(lambda torch: repr(make(torch))).replace("torch.", "minigrad.")
    assert ours == expected


def test_repr_examples():
    cpu = backend.Device("cpu")
    leaf = mg.tensor([1.0, 2.0], requires_grad=True, device=cpu)
    assert repr(leaf) == "tensor([1., 2.], requires_grad=True)"
    assert repr(mg.tensor(3.5, device=cpu)) == "tensor(3.5000)"
    y = mg.tensor([1.0, 2.0], device=cpu, requires_grad=True).exp()
    assert repr(y).endswith(", grad_fn=<ExpBackward0>)")
    assert str(mg.Size([2, 3])) == "minigrad.Size([2, 3])"


def test_attributes():
    t = mg.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, tuple)
    assert t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert t.ndim == 3 and t.dim() == 3 and t.numel() == 24 and len(t) == 2
    assert t.dtype is mg.float32
    assert t.device == backend.default_device()
    with pytest.warns(UserWarning, match="x.T"):   # deprecated beyond 2-D, as in PyTorch
        assert t.T.shape == (4, 3, 2)
    assert mg.ones(2, 3).T.shape == (3, 2)
    assert mg.zeros((2, 3)).shape == mg.zeros([2, 3]).shape == (2, 3)


def test_max_and_min_along_a_dim_return_named_tuples():
    x = mg.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    result = x.max(dim=1)
    assert type(result) is mg.return_types.max and isinstance(mg.min(x, 1), mg.return_types.min)
    assert isinstance(result, tuple) and len(result) == 2
    values, indices = result
    assert result.values is values and result.indices is indices
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0] and indices.dtype is mg.int64
    low = mg.min(x, 0)
    assert low.values.tolist() == [1.0, 0.0, 2.0] and low.indices.tolist() == [0, 1, 0]


def test_module_level_view_as_reshape_as_type_as():
    a, b = mg.arange(6.0), mg.zeros(2, 3, dtype=mg.float64)
    assert mg.view_as(a, b).shape == (2, 3) and mg.reshape_as(a, b).shape == (2, 3)
    assert mg.type_as(a, b).dtype is mg.float64


def test_backward_without_gradient_on_any_one_element_tensor():
    x = mg.tensor([[2.0]], requires_grad=True)
    (x * 3).backward()
    assert x.grad.tolist() == [[3.0]]


def test_item_and_tolist():
    assert mg.tensor(2.5).item() == 2.5 and isinstance(mg.tensor(2.5).item(), float)
    assert mg.tensor([7]).item() == 7 and isinstance(mg.tensor([7]).item(), int)
    assert mg.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert float(mg.tensor(1.5)) == 1.5 and int(mg.tensor(3)) == 3
    with pytest.raises(RuntimeError, match="3 elements"):
        mg.tensor([1.0, 2.0, 3.0]).item()


def test_array_is_always_the_underlying_array():
    t = mg.ones(2, requires_grad=True)
    xp = backend.array_module_for(backend.default_device())
    assert isinstance(t.array, xp.ndarray)
    t2 = mg.Tensor(t.array)  # wraps without copying
    assert t2.array is t.array


def test_numpy_shares_memory_on_the_cpu():
    t = mg.zeros(3, device="cpu")
    array = t.numpy()
    assert isinstance(array, numpy.ndarray)
    array[0] = 5.0
    assert t[0].item() == 5.0
    source = numpy.arange(3.0)
    assert numpy.shares_memory(mg.from_numpy(source).numpy(), source)


def test_numpy_on_a_tensor_requiring_grad_raises():
    t = mg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        t.numpy()
    with pytest.raises(RuntimeError):
        numpy.asarray(t)
    numpy.testing.assert_array_equal(to_numpy(t.detach()), [1.0, 1.0])


def test_np_asarray_of_a_cpu_tensor():
    t = mg.tensor([1.0, 2.0], device="cpu")
    array = numpy.asarray(t)
    assert numpy.shares_memory(array, t.array)
    numpy.testing.assert_array_equal(array, [1.0, 2.0])
    assert numpy.asarray(t, dtype=numpy.float64).dtype == numpy.float64


def test_numpy_of_a_device_tensor_raises_like_torch(device):
    t = mg.tensor([1.0, 2.0])
    if device.type == "cpu":
        assert isinstance(t.numpy(), numpy.ndarray)
        return
    with pytest.raises(TypeError, match="cpu"):
        t.numpy()
    numpy.testing.assert_array_equal(t.cpu().numpy(), [1.0, 2.0])


def test_cpu_and_to_copy_between_devices(cuda_standin):
    host = mg.tensor([1.0, 2.0], device="cpu", requires_grad=True)
    on_gpu = host.to("cuda")
    assert on_gpu.device.type == "cuda" and host.device.type == "cpu"
    assert on_gpu.cpu().device.type == "cpu"
    (on_gpu * 3).sum().backward()  # the gradient comes back to the CPU leaf
    assert host.grad.device.type == "cpu"
    numpy.testing.assert_array_equal(host.grad.numpy(), [3.0, 3.0])
    assert host.cuda().device.type == "cuda"


def test_clone_copies():
    t = mg.tensor([1.0, 2.0])
    c = t.clone()
    c[0] = 9.0
    assert t[0].item() == 1.0


def test_zero_fill_copy():
    t = mg.zeros(2, 3)
    t.fill_(2.5)
    numpy.testing.assert_array_equal(to_numpy(t), numpy.full((2, 3), 2.5))
    t.copy_(mg.tensor([1.0, 2.0, 3.0]))  # broadcast into t's shape
    numpy.testing.assert_array_equal(to_numpy(t), [[1.0, 2.0, 3.0]] * 2)
    t.zero_()
    assert not to_numpy(t).any()


# --- creation on the default device -----------------------------------------------------------

FACTORIES = {
    "tensor": lambda: mg.tensor([1.0, 2.0]),
    "tensor_from_numpy": lambda: mg.tensor(numpy.ones(2)),
    "as_tensor_numpy": lambda: mg.as_tensor(numpy.ones(2)),
    "zeros": lambda: mg.zeros(2, 3),
    "ones": lambda: mg.ones((2, 3)),
    "empty": lambda: mg.empty(2),
    "full": lambda: mg.full((2,), 1.5),
    "eye": lambda: mg.eye(3),
    "arange": lambda: mg.arange(0, 5, 2),
    "linspace": lambda: mg.linspace(0, 1, 5),
    "rand": lambda: mg.rand(2),
    "randn": lambda: mg.randn(2, 2),
    "randint": lambda: mg.randint(0, 9, (4,)),
    "randperm": lambda: mg.randperm(5),
    "zeros_like": lambda: mg.zeros_like(mg.ones(2)),
    "ones_like": lambda: mg.ones_like(mg.ones(2), dtype=mg.float64),
    "full_like": lambda: mg.full_like(mg.ones(2), 7),
    "randn_like": lambda: mg.randn_like(mg.ones(2)),
}


@pytest.mark.parametrize("make", FACTORIES.values(), ids=FACTORIES.keys())
def test_factories_create_on_the_default_device(make, device):
    assert make().device == device


def test_from_numpy_is_always_on_the_cpu_and_shares_memory():
    source = numpy.zeros(3)
    t = mg.from_numpy(source)
    assert t.device.type == "cpu"
    source[1] = 4.0
    assert t[1].item() == 4.0


def test_seeded_random_numbers_are_the_same_on_every_device(cuda_standin):
    mg.manual_seed(3)
    on_cpu = mg.randn(5, device="cpu")
    mg.manual_seed(3)
    on_gpu = mg.randn(5, device="cuda")
    numpy.testing.assert_array_equal(on_cpu.numpy(), to_numpy(on_gpu))
    generator = mg.Generator().manual_seed(3)
    numpy.testing.assert_array_equal(mg.randn(5, generator=generator, device="cpu").numpy(), on_cpu.numpy())


# --- indices from the host -----------------------------------------------------------------------

def test_host_indices_index_a_tensor_on_any_device():
    """As in PyTorch: CPU index tensors and NumPy index arrays work whatever the tensor's device."""
    host = numpy.arange(12.0).reshape(3, 4)
    x = mg.tensor(host, requires_grad=True)
    rows, mask = numpy.array([0, 2, 2]), numpy.array([True, False, True])
    for key, host_key in [(mg.tensor(rows, device="cpu"), rows), (rows, rows),
                          (mg.tensor(mask, device="cpu"), mask), (mask, mask)]:
        numpy.testing.assert_array_equal(to_numpy(x[key].detach()), host[host_key])
    x[mg.tensor(rows, device="cpu")].sum().backward()
    numpy.testing.assert_array_equal(to_numpy(x.grad), [[1.0] * 4, [0.0] * 4, [2.0] * 4])


def test_reductions_of_a_zero_dim_tensor_accept_dim_0_and_minus_1_like_torch():
    torch = require_torch()
    reductions = [lambda t: t.sum(0), lambda t: t.sum(-1), lambda t: t.sum((0,)),
                  lambda t: t.mean(0, keepdim=True), lambda t: t.amax(-1), lambda t: t.var(0, unbiased=False),
                  lambda t: t.argmax(0)]
    for reduce in reductions:
        ours, theirs = mg.tensor(2.5, requires_grad=True), torch.tensor(2.5, requires_grad=True)
        out, expected = reduce(ours), reduce(theirs)
        assert out.shape == tuple(expected.shape) == ()
        assert out.item() == expected.item()
        if expected.requires_grad:
            out.backward()
            expected.backward()
            assert ours.grad.item() == theirs.grad.item()
    with pytest.raises(IndexError):
        mg.tensor(2.5).sum(1)


def test_legacy_type_names_and_comparison_with_none_like_torch():
    torch = require_torch()
    for dtype in ("float32", "float64", "int64", "int32", "uint8", "bool"):
        ours = mg.ones(2, dtype=getattr(mg, dtype), device="cpu")
        theirs = torch.ones(2, dtype=getattr(torch, dtype))
        assert ours.type() == theirs.type()  # 'torch.FloatTensor': course code compares these strings
    t = mg.ones(2)
    assert (t == None) is False and (t != None) is True  # noqa: E711 (the comparison is the test)
    assert t.type(mg.int64).dtype is mg.int64


def test_tensor_where_method_and_unary_in_place_ops_match_torch():
    torch = require_torch()
    values = [[0.5, -2.0, 3.0], [1.5, 0.25, -0.75]]
    for lib, results in ((mg, []), (torch, [])):
        x = lib.tensor(values)
        results.append(x.where(x > 0, lib.tensor(-1.0)))
        results.append(x.where(x < 1, 9.0))
        for name in ("abs_", "exp_", "log_", "sqrt_", "sigmoid_", "tanh_"):
            y = lib.tensor(values).abs()
            assert getattr(y, name)() is y
            results.append(y)
        if lib is mg:
            ours = results
        else:
            theirs = results
    for a, b in zip(ours, theirs):
        numpy.testing.assert_allclose(to_numpy(a), b.numpy(), rtol=1e-6)


def test_unary_in_place_op_on_a_non_leaf_is_differentiated_like_torch():
    torch = require_torch()
    grads = []
    for lib in (mg, torch):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = x * 2
        y.sigmoid_()
        (y * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        grads.append(x.grad)
    numpy.testing.assert_allclose(to_numpy(grads[0]), grads[1].numpy(), rtol=1e-6)


def test_randint_keyword_forms_and_negative_seeds_like_torch():
    torch = require_torch()
    assert mg.randint(high=10, size=(3,)).shape == (3,)
    assert mg.randint(10, size=(2, 2)).shape == (2, 2)
    assert int(mg.randint(3, 4, size=(5,)).min()) == 3
    for seed in (-1, -12345):
        assert mg.manual_seed(seed).initial_seed() == torch.manual_seed(seed).initial_seed()
        expected = torch.Generator().manual_seed(seed).initial_seed()
        assert mg.Generator().manual_seed(seed).initial_seed() == expected
    assert mg.manual_seed(3.0).initial_seed() == 3  # the global seed takes anything int() takes, as torch's
