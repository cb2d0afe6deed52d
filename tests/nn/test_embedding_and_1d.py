"""nn.Embedding / F.embedding and the 1-D layers (Conv1d, MaxPool1d, AvgPool1d) against PyTorch:
values and every input's gradient in float64, gradcheck, repeated and padding indices,
from_pretrained, odd lengths, batch 1, unbatched inputs, reprs, state_dict keys, and errors
(with PyTorch's exception types, also on the strict CuPy stand-in)."""

import numpy
import pytest
from _reference import reference
from _torch import raises_like_torch, require_torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck

from .helpers import TOLERANCES, assert_close, check_layer, host

# --- embedding -------------------------------------------------------------------------------------


def _upstream(shape, seed):
    """A seeded output gradient of ``shape``."""
    return numpy.random.default_rng(seed).standard_normal(tuple(shape))


def _embedding_pair(indices, rows=6, dim=4, seed=0, **kwargs):
    """F.embedding in both libraries on the same float64 table; returns (ours, theirs) outputs and weights."""
    torch = require_torch()
    table = numpy.random.default_rng(seed).standard_normal((rows, dim))
    w_ours, w_theirs = mg.tensor(table, requires_grad=True), torch.tensor(table, requires_grad=True)
    out_ours = F.embedding(mg.tensor(indices), w_ours, **kwargs)
    out_theirs = torch.nn.functional.embedding(torch.tensor(indices), w_theirs, **kwargs)
    return (out_ours, w_ours), (out_theirs, w_theirs)


@pytest.mark.parametrize("indices", [
    numpy.array([[0, 1, 1], [5, 0, 2]]),           # repeated indices accumulate
    numpy.array([3, 3, 3, 3]),
    numpy.array(2),                                  # 0-d index -> one row
    numpy.array([[[1], [4]], [[4], [4]]]),          # any index shape
    numpy.array([], dtype=numpy.int64),
    numpy.array([[0, 1, 2]], dtype=numpy.int32),
])
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 1}, {"padding_idx": -2}, {"scale_grad_by_freq": True},
                                    {"padding_idx": 0, "scale_grad_by_freq": True}])
def test_embedding_values_and_weight_gradient_match_torch(indices, kwargs):
    table = numpy.random.default_rng(0).standard_normal((6, 4))

    def torch_answer(torch):
        weight = torch.tensor(table, requires_grad=True)
        out = torch.nn.functional.embedding(torch.tensor(indices), weight, **kwargs)
        (out * torch.tensor(_upstream(out.shape, 1))).sum().backward()
        return out, weight.grad

    out_theirs, grad_theirs = reference(torch_answer, {"indices": indices, "table": table})
    w_ours = mg.tensor(table, requires_grad=True)
    out_ours = F.embedding(mg.tensor(indices), w_ours, **kwargs)
    assert_close(out_ours, out_theirs, "float64", "output")
    (out_ours * mg.tensor(_upstream(out_ours.shape, 1))).sum().backward()
    assert_close(w_ours.grad, grad_theirs, "float64", "weight gradient")
    assert out_ours.grad_fn.name() == "EmbeddingBackward0"


def test_repeated_indices_accumulate_and_padding_row_gets_nothing():
    w = mg.tensor(numpy.arange(12.0).reshape(4, 3), requires_grad=True)
    F.embedding(mg.tensor([2, 2, 2, 0, 1, 1]), w, padding_idx=1).sum().backward()
    numpy.testing.assert_array_equal(host(w.grad), [[1.0] * 3, [0.0] * 3, [3.0] * 3, [0.0] * 3])


def test_embedding_gradcheck():
    w = mg.tensor(numpy.random.default_rng(2).standard_normal((5, 3)), requires_grad=True)
    index = mg.tensor([[0, 4, 4], [2, 0, 1]])
    assert gradcheck(lambda weight: F.embedding(index, weight), (w,))
    # (padding_idx and scale_grad_by_freq change the gradient on purpose: checked against PyTorch above)
    assert gradcheck(lambda weight: F.embedding(index, weight, padding_idx=3), (w,))


def test_embedding_max_norm_renormalises_looked_up_rows_in_place_as_torch():
    torch = require_torch()
    table = numpy.random.default_rng(3).standard_normal((5, 3)) * 3
    indices = numpy.array([[0, 1, 1], [4, 0, 2]])
    for norm_type in (2.0, 1.0):
        ours, theirs = mg.tensor(table.copy()), torch.tensor(table.copy())
        out_ours = F.embedding(mg.tensor(indices), ours, max_norm=1.0, norm_type=norm_type)
        out_theirs = torch.nn.functional.embedding(torch.tensor(indices), theirs, max_norm=1.0,
                                                   norm_type=norm_type)
        assert_close(out_ours, out_theirs, "float64", "output")
        assert_close(ours, theirs, "float64", "renormalised weight")   # row 3 was not looked up: unchanged


def test_embedding_module_init_repr_state_dict():
    mg.manual_seed(0)
    layer = nn.Embedding(10, 3, padding_idx=-1)
    assert layer.padding_idx == 9 and layer.weight.shape == (10, 3) and layer.weight.requires_grad
    numpy.testing.assert_array_equal(host(layer.weight)[9], 0.0)
    assert 0.5 < float(host(layer.weight)[:9].std()) < 1.5            # N(0, 1)
    assert list(layer.state_dict()) == ["weight"]
    assert repr(layer) == "Embedding(10, 3, padding_idx=9)"
    assert repr(nn.Embedding(5, 3)) == "Embedding(5, 3)"
    torch = require_torch()
    kwargs = {"padding_idx": 0, "max_norm": 1.0, "norm_type": 1.0, "scale_grad_by_freq": True, "sparse": True}
    assert repr(nn.Embedding(5, 3, **kwargs)) == repr(torch.nn.Embedding(5, 3, **kwargs))


def test_embedding_module_matches_torch_with_loaded_weights():
    indices = numpy.array([[1, 2, 2, 7], [0, 7, 3, 3]])
    torch = require_torch()
    ours = nn.Embedding(8, 5, padding_idx=3).double()
    theirs = torch.nn.Embedding(8, 5, padding_idx=3).double()
    ours.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    out_ours, out_theirs = ours(mg.tensor(indices)), theirs(torch.tensor(indices))
    assert_close(out_ours, out_theirs, "float64", "output")
    out_ours.sum().backward()
    out_theirs.sum().backward()
    assert_close(ours.weight.grad, theirs.weight.grad, "float64", "weight gradient")


def test_from_pretrained_freezes_by_default_and_shares_the_table():
    table = mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    frozen = nn.Embedding.from_pretrained(table)
    assert not frozen.weight.requires_grad and (frozen.num_embeddings, frozen.embedding_dim) == (3, 2)
    out = frozen(mg.tensor([2, 0]))
    numpy.testing.assert_array_equal(host(out), [[5.0, 6.0], [1.0, 2.0]])
    assert not out.requires_grad
    trainable = nn.Embedding.from_pretrained(table, freeze=False, padding_idx=1)
    numpy.testing.assert_array_equal(host(trainable.weight)[1], [3.0, 4.0])   # kept, as PyTorch does
    trainable(mg.tensor([1, 2, 1])).sum().backward()
    numpy.testing.assert_array_equal(host(trainable.weight.grad), [[0, 0], [0, 0], [1, 1]])


@pytest.mark.parametrize("call, error", [
    (lambda lib: lib.nn.functional.embedding(lib.tensor([6]), lib.zeros(6, 2)), IndexError),
    (lambda lib: lib.nn.functional.embedding(lib.tensor([-1]), lib.zeros(6, 2)), IndexError),
    (lambda lib: lib.nn.functional.embedding(lib.tensor([1.0]), lib.zeros(6, 2)), RuntimeError),
    (lambda lib: lib.nn.functional.embedding(lib.tensor([True]), lib.zeros(6, 2)), RuntimeError),
    (lambda lib: lib.nn.functional.embedding(lib.tensor([1]), lib.zeros(6)), RuntimeError),
    (lambda lib: lib.nn.functional.embedding(lib.tensor([1]), lib.zeros(6, 2, 2)), RuntimeError),
    (lambda lib: lib.nn.functional.embedding([1], lib.zeros(6, 2)), TypeError),
    (lambda lib: lib.nn.functional.embedding(lib.tensor([1]), lib.zeros(6, 2), padding_idx=6),
     AssertionError),
    (lambda lib: lib.nn.Embedding(6, 2, padding_idx=-7), AssertionError),
    (lambda lib: lib.nn.Embedding(6, 2, _weight=lib.zeros(5, 2)), AssertionError),
    (lambda lib: lib.nn.Embedding.from_pretrained(lib.zeros(6)), AssertionError),
])
def test_embedding_errors_as_torch(call, error):
    raises_like_torch(call, error)


def test_sparse_embedding_is_not_implemented():
    with pytest.raises(NotImplementedError, match="sparse"):
        nn.Embedding(4, 2, sparse=True)(mg.tensor([1]))


def test_embedding_on_the_standin(cuda):
    table = numpy.random.default_rng(4).standard_normal((5, 3)).astype(numpy.float32)
    w = mg.tensor(table, device=cuda, requires_grad=True)
    index = mg.tensor([[0, 4, 4], [2, 0, 1]], device=cuda)
    out = F.embedding(index, w, padding_idx=0, scale_grad_by_freq=True)
    out.sum().backward()
    numpy.testing.assert_allclose(host(out), table[[[0, 4, 4], [2, 0, 1]]])
    expected = numpy.zeros((5, 3), numpy.float32)
    expected[[1, 2, 4]] = 1.0
    numpy.testing.assert_allclose(host(w.grad), expected)
    for bad in ([5], [-1]):   # CuPy would wrap these around: they must raise
        with pytest.raises(IndexError, match="index out of range"):
            F.embedding(mg.tensor(bad, device=cuda), w)
    layer = nn.Embedding(5, 3, max_norm=1.0).to(cuda)
    layer(mg.tensor([1, 2], device=cuda))
    assert float(host(layer.weight)[[1, 2]].__pow__(2).sum(1).max()) <= 1.0 + 1e-5


# --- conv1d ----------------------------------------------------------------------------------------

CONV1D_CASES = [
    ({"stride": 1}, (2, 4, 7), (6, 4, 3)),
    ({"stride": 2, "padding": 1}, (2, 4, 9), (6, 4, 3)),
    ({"stride": 3, "padding": 2, "dilation": 2}, (1, 4, 11), (6, 4, 3)),       # batch 1, odd length
    ({"groups": 2, "padding": "same"}, (2, 4, 8), (6, 2, 4)),                   # even kernel: uneven padding
    ({"groups": 4, "padding": "valid"}, (3, 4, 5), (4, 1, 5)),                  # depthwise, kernel = length
    ({"padding": "same", "dilation": 3}, (2, 4, 9), (2, 4, 3)),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("algorithm", ["im2col", "im2col_tuned", "rot180", "naive"])
@pytest.mark.parametrize("kwargs, x_shape, w_shape", CONV1D_CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_conv1d_values_and_all_gradients_match_torch(kwargs, x_shape, w_shape, bias, algorithm):
    rng = numpy.random.default_rng(5)
    arrays = [rng.standard_normal(x_shape), rng.standard_normal(w_shape)] + \
        ([rng.standard_normal(w_shape[0])] if bias else [])

    def torch_answer(torch):
        leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
        out = torch.nn.functional.conv1d(*leaves, **kwargs)
        (out * torch.tensor(_upstream(out.shape, 6))).sum().backward()
        return [out] + [leaf.grad for leaf in leaves]

    out_theirs, *grads_theirs = reference(torch_answer, {"arrays": arrays})
    ours = [mg.tensor(a, requires_grad=True) for a in arrays]
    out_ours = F.conv1d(*ours, **kwargs, algorithm=algorithm)
    assert_close(out_ours, out_theirs, "float64", "output")
    (out_ours * mg.tensor(_upstream(out_ours.shape, 6))).sum().backward()
    for name, a, b in zip(("input", "weight", "bias"), ours, grads_theirs):
        assert_close(a.grad, b, "float64", f"{name} gradient")


def test_conv1d_algorithm_scope_reaches_it():
    x, w = mg.randn(1, 2, 6, requires_grad=True), mg.randn(3, 2, 3)
    with nn.conv_algorithm("naive"):
        out = F.conv1d(x, w)
    reference = F.conv1d(x, w, algorithm="im2col")
    numpy.testing.assert_allclose(host(out), host(reference), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="unknown convolution algorithm"):
        F.conv1d(x, w, algorithm="fft")


def test_conv1d_gradcheck():
    rng = numpy.random.default_rng(6)
    x, w, b = (mg.tensor(rng.standard_normal(s), requires_grad=True) for s in ((2, 4, 7), (2, 2, 3), (2,)))
    assert gradcheck(lambda *t: F.conv1d(*t, stride=2, padding=1, dilation=2, groups=2), (x, w, b))


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("padding_mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("x_shape", [(2, 4, 9), (1, 4, 6), (4, 7)])     # batch 1 and unbatched
def test_conv1d_layer_matches_torch(padding_mode, x_shape):
    input_array = numpy.random.default_rng(7).standard_normal(x_shape)
    check_layer(lambda lib: lib.nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2, padding_mode=padding_mode),
                input_array, "float64")
    check_layer(lambda lib: lib.nn.Conv1d(4, 2, 4, padding="same", dilation=1, padding_mode=padding_mode,
                                          bias=False), input_array, "float64")


def test_conv1d_layer_attributes_repr_state_dict_and_init():
    torch = require_torch()
    for kwargs in ({}, {"padding": "same"}, {"stride": 2, "padding": 1, "dilation": 2, "groups": 2,
                                              "bias": False, "padding_mode": "reflect"}):
        ours, theirs = nn.Conv1d(4, 6, 3, **kwargs), torch.nn.Conv1d(4, 6, 3, **kwargs)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        for name in ("kernel_size", "stride", "padding", "dilation", "output_padding",
                     "_reversed_padding_repeated_twice"):
            assert tuple(getattr(ours, name)) == tuple(getattr(theirs, name)) if not isinstance(
                getattr(ours, name), str) else getattr(ours, name) == getattr(theirs, name), name
    mg.manual_seed(0)
    layer = nn.Conv1d(3, 8, 5, groups=1)
    bound = 1 / numpy.sqrt(3 * 5)                   # Kaiming-uniform(a=√5): U(±1/√fan_in)
    assert layer.weight.shape == (8, 3, 5)
    assert numpy.abs(host(layer.weight)).max() <= bound and numpy.abs(host(layer.bias)).max() <= bound
    assert numpy.abs(host(layer.weight)).max() > 0.8 * bound
    assert repr(nn.Conv1d(4, 6, 3, algorithm="rot180")).endswith("algorithm='rot180')")


@pytest.mark.parametrize("call, error", [
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(7), lib.zeros(6, 4, 3)), RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7, 1), lib.zeros(6, 4, 3)), RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7), lib.zeros(6, 4, 3, 1)), RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7), lib.zeros(6, 3, 3)), RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7), lib.zeros(6, 4, 9)), RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7), lib.zeros(6, 4, 3), stride=0), RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7), lib.zeros(6, 4, 3), stride=(1, 1)),
     RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7), lib.zeros(6, 4, 3), padding=-1), RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7), lib.zeros(6, 4, 3), padding="same", stride=2),
     RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7), lib.zeros(6, 4, 3), padding="full"),
     RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7), lib.zeros(6, 4, 3), lib.zeros(5)),
     RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7), lib.zeros(5, 2, 3), groups=2), RuntimeError),
    (lambda lib: lib.nn.functional.conv1d(lib.zeros(2, 4, 7), lib.zeros(6, 4, 3, dtype=lib.float64)),
     RuntimeError),
    (lambda lib: lib.nn.Conv1d(4, 6, 3, stride=2, padding="same"), ValueError),
    (lambda lib: lib.nn.Conv1d(4, 6, 3, groups=3), ValueError),
    (lambda lib: lib.nn.Conv1d(4, 6, 3, padding_mode="mirror"), ValueError),
])
def test_conv1d_errors_as_torch(call, error):
    raises_like_torch(call, error)


def test_conv1d_error_names_1d_shapes():
    with pytest.raises(RuntimeError, match=r"weight of size \[6, 3, 3\], expected input\[2, 4, 7\]"):
        F.conv1d(mg.zeros(2, 4, 7), mg.zeros(6, 3, 3))


# --- 1-D pooling -----------------------------------------------------------------------------------

MAX_CASES = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "dilation": 2, "ceil_mode": True},
    {"kernel_size": (2,), "stride": [1], "ceil_mode": True},
    {"kernel_size": 4, "stride": 3, "padding": 2, "ceil_mode": True},
]
AVG_CASES = [
    {"kernel_size": 2},
    {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    {"kernel_size": 4, "stride": 3, "padding": 2, "ceil_mode": True},
    {"kernel_size": 4, "stride": 3, "padding": 2, "ceil_mode": True, "count_include_pad": False},
]


def _pool_pair(name, x_shape, kwargs, seed=8, ties=False):
    torch = require_torch()
    rng = numpy.random.default_rng(seed)
    array = rng.integers(0, 3, x_shape).astype(numpy.float64) if ties else rng.standard_normal(x_shape)
    x_ours, x_theirs = mg.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)
    out_ours = getattr(F, name)(x_ours, **kwargs)
    out_theirs = getattr(torch.nn.functional, name)(x_theirs, **kwargs)
    return (x_ours, out_ours), (x_theirs, out_theirs)


@pytest.mark.parametrize("x_shape", [(2, 3, 9), (1, 2, 8), (3, 11)])
@pytest.mark.parametrize("name, kwargs", [("max_pool1d", k) for k in MAX_CASES] +
                         [("avg_pool1d", k) for k in AVG_CASES])
@pytest.mark.parametrize("ties", [False, True])
def test_pool1d_values_and_gradient_match_torch(name, kwargs, x_shape, ties):
    rng = numpy.random.default_rng(8)
    array = rng.integers(0, 3, x_shape).astype(numpy.float64) if ties else rng.standard_normal(x_shape)

    def torch_answer(torch):
        x = torch.tensor(array, requires_grad=True)
        out = getattr(torch.nn.functional, name)(x, **kwargs)
        (out * torch.tensor(_upstream(out.shape, 9))).sum().backward()
        return out, x.grad

    out_theirs, grad_theirs = reference(torch_answer, {"x": array})
    x_ours = mg.tensor(array, requires_grad=True)
    out_ours = getattr(F, name)(x_ours, **kwargs)
    assert_close(out_ours, out_theirs, "float64", "output")
    (out_ours * mg.tensor(_upstream(out_ours.shape, 9))).sum().backward()
    assert_close(x_ours.grad, grad_theirs, "float64", "input gradient")


@pytest.mark.parametrize("kwargs", MAX_CASES)
def test_max_pool1d_return_indices_match_torch(kwargs):
    (_, (out_ours, idx_ours)), (_, (out_theirs, idx_theirs)) = _pool_pair(
        "max_pool1d", (2, 3, 10), {**kwargs, "return_indices": True})
    assert_close(out_ours, out_theirs, "float64", "output")
    numpy.testing.assert_array_equal(host(idx_ours), host(idx_theirs))
    assert idx_ours.dtype == mg.int64


def test_pool1d_gradcheck():
    x = mg.tensor(numpy.random.default_rng(10).standard_normal((2, 3, 9)), requires_grad=True)
    assert gradcheck(lambda t: F.max_pool1d(t, 3, 2, 1, dilation=2, ceil_mode=True), (x,))
    assert gradcheck(lambda t: F.avg_pool1d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False), (x,))


def test_pool1d_layers_match_torch_reprs_and_attributes():
    torch = require_torch()
    array = numpy.random.default_rng(11).standard_normal((2, 3, 9))
    check_layer(lambda lib: lib.nn.MaxPool1d(3, 2, 1, ceil_mode=True), array, "float64")
    check_layer(lambda lib: lib.nn.AvgPool1d(3, 2, 1, count_include_pad=False), array, "float64")
    for ours, theirs in [(nn.MaxPool1d(3), torch.nn.MaxPool1d(3)),
                         (nn.MaxPool1d(3, 2, 1, 2, True, True), torch.nn.MaxPool1d(3, 2, 1, 2, True, True)),
                         (nn.AvgPool1d(3), torch.nn.AvgPool1d(3)),
                         (nn.AvgPool1d(3, 2, 1, True, False), torch.nn.AvgPool1d(3, 2, 1, True, False))]:
        assert repr(ours) == repr(theirs)
        assert (ours.kernel_size, ours.stride, ours.padding) == \
            (theirs.kernel_size, theirs.stride, theirs.padding)
        assert list(ours.state_dict()) == []
    out, indices = nn.MaxPool1d(2, return_indices=True)(mg.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
    assert host(indices).tolist() == [[[1, 2]]]


@pytest.mark.parametrize("call, error", [
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(7), 2), RuntimeError),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 2, 2, 7), 2), RuntimeError),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 0, 7), 2), RuntimeError),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 4, 7), 2, padding=2), RuntimeError),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 4, 7), 9), RuntimeError),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 4, 7), 0), RuntimeError),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 4, 7), 2, stride=0), RuntimeError),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 4, 7), 2, dilation=0), RuntimeError),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 4, 7), 2, padding=-1), RuntimeError),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 4, 7), (2, 2)), RuntimeError),
    (lambda lib: lib.nn.functional.max_pool1d(lib.zeros(2, 4, 7, dtype=lib.int64), 2), NotImplementedError),
    (lambda lib: lib.nn.functional.avg_pool1d(lib.zeros(7), 2), RuntimeError),
    (lambda lib: lib.nn.functional.avg_pool1d(lib.zeros(2, 2, 2, 7), 2), RuntimeError),
    (lambda lib: lib.nn.functional.avg_pool1d(lib.zeros(2, 4, 7), 2, padding=2), RuntimeError),
    (lambda lib: lib.nn.functional.avg_pool1d(lib.zeros(2, 4, 7), 9), RuntimeError),
    (lambda lib: lib.nn.functional.avg_pool1d(lib.zeros(2, 4, 7), 0), RuntimeError),
    (lambda lib: lib.nn.functional.avg_pool1d(lib.zeros(2, 4, 7), (2, 2)), RuntimeError),
    (lambda lib: lib.nn.functional.avg_pool1d(lib.zeros(2, 4, 7), 2, padding=-1), RuntimeError),
])
def test_pool1d_errors_as_torch(call, error):
    raises_like_torch(call, error)


@pytest.mark.filterwarnings("ignore:Using padding='same'")
def test_1d_layers_on_the_standin_match_the_cpu(cuda):
    rng = numpy.random.default_rng(12)
    x = rng.standard_normal((2, 4, 9)).astype(numpy.float32)
    mg.manual_seed(0)
    model = nn.Sequential(nn.Conv1d(4, 6, 3, padding=1, padding_mode="reflect"), nn.MaxPool1d(2),
                          nn.Conv1d(6, 4, 2, padding="same", groups=2), nn.AvgPool1d(2, padding=1))
    results = []
    for device in ("cpu", cuda):
        model.to(device)
        model.zero_grad()
        xt = mg.tensor(x, device=device, requires_grad=True)
        out = model(xt)
        (out * out).sum().backward()
        results.append([host(out), host(xt.grad)] + [host(p.grad) for p in model.parameters()])
    for ours, expected in zip(*results):
        numpy.testing.assert_allclose(ours, expected, **TOLERANCES["float32"])
