"""The calls the course survey (docs/compatibility.md) found missing: mv, index_add, the logical
ops, scaled_dot_product_attention, normal, bernoulli, finfo/iinfo, the constants, and PyTorch's
spellings that only need to exist (torch.cuda.manual_seed, torch.xpu, torch.utils.data.sampler,
nn.init's deprecated names). Each against PyTorch; the random ones by their statistics."""

from __future__ import annotations

import numpy
import pytest
from _torch import require_torch

import minigrad as mg
from minigrad import backend

from .helpers import assert_misuse_raises_like_torch, case, check_op, to_numpy


def _attention(m, *args, **kwargs):
    return m.nn.functional.scaled_dot_product_attention(*args, **kwargs)


A = numpy.array
ROWS = A([0, 2, 0, 3])  # a repeated index: its rows add up
CAUSAL = A([[True, False, False], [True, True, False], [True, True, True], [False, True, True]])

OPS = [
    case("mv", lambda m, a, x: m.mv(a, x), (3, 4), (4,)),
    case("mv_method", lambda m, a, x: a.mv(x), (1, 5), (5,)),
    case("index_add_dim0", lambda m, a, s, i: a.index_add(0, i, s), (5, 3), (4, 3), ROWS),
    case("index_add_dim1_alpha", lambda m, a, s, i: m.index_add(a, 1, i, s, alpha=-2.5), (3, 5), (3, 4),
         ROWS),
    case("index_add_inplace", lambda m, a, s, i: (a * 1).index_add_(-1, i, s), (2, 4), (2, 4), ROWS),
    case("index_add_batch1", lambda m, a, s, i: a.index_add(0, i, s), (1, 3), (1, 3), A([0])),
    case("sdpa", lambda m, q, k, v: _attention(m, q, k, v), (2, 4, 3), (2, 5, 3), (2, 5, 2)),
    # PyTorch's CPU kernel for the causal case has no double backward ("derivative for
    # aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented"): minigrad's
    # second derivatives are held by gradgradcheck alone there
    case("sdpa_causal", lambda m, q, k, v: _attention(m, q, k, v, is_causal=True), (1, 2, 4, 3), (1, 2, 4, 3),
         (1, 2, 4, 3), torch_second_order=False),
    case("sdpa_bool_mask_scale", lambda m, q, k, v, mask: _attention(m, q, k, v, attn_mask=mask, scale=0.3),
         (4, 2), (3, 2), (3, 5), CAUSAL),
    case("sdpa_float_mask", lambda m, q, k, v, bias: _attention(m, q, k, v, attn_mask=bias), (2, 3, 2),
         (2, 4, 2), (2, 4, 2), (3, 4)),
]


@pytest.mark.parametrize("c", OPS)
def test_op_matches_torch(c):
    check_op(c)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_ops_match_torch(name):
    torch = require_torch()
    a, b = A([[0, 1, 2], [3, 0, -1]]), A([1.0, 0.0, 0.5])
    ours = getattr(mg, name)(mg.tensor(a), mg.tensor(b))
    theirs = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
    assert ours.dtype is mg.bool
    numpy.testing.assert_array_equal(to_numpy(ours), theirs.numpy())
    method = getattr(mg.tensor(a), name)(mg.tensor(b))
    numpy.testing.assert_array_equal(to_numpy(method), theirs.numpy())
    numpy.testing.assert_array_equal(to_numpy(mg.tensor(a).logical_not()), numpy.logical_not(a))


@pytest.mark.parametrize("misuse, pieces", [
    (lambda m: m.mv(m.ones(2, 3), m.ones(4)), ["(2x3)", "(4)"]),
    (lambda m: m.mv(m.ones(2, 3), m.ones(3, 1)), ["got 1, 2, 2"]),
    (lambda m: m.zeros(3, 2).index_add_(0, m.tensor([0, 5]), m.ones(2, 2)), ["5", "size 3"]),
    (lambda m: m.zeros(3, 2).index_add_(0, m.tensor([-1]), m.ones(1, 2)), ["-1"]),
    (lambda m: m.zeros(4).index_add(0, m.tensor([-1, 0]), m.ones(2)), ["-1", "size 4"]),
    (lambda m: m.zeros(3, 2).index_add_(0, m.tensor([0, 1]), m.ones(3, 2)), ["(2)", "(3)"]),
    (lambda m: m.zeros(3, 2).index_add_(0, m.tensor([[0]]), m.ones(1, 2)), ["[1, 1]"]),
    (lambda m: m.zeros(3, 2).index_add_(0, m.tensor([0.0]), m.ones(1, 2)), ["int32/int64"]),
    (lambda m: m.zeros(3, 2).index_add_(0, m.tensor([0]), m.ones(1, 3)), ["[3, 2]", "[1, 3]"]),
    (lambda m: m.normal(0.0, -1.0, (2,)), ["-1"]),
    (lambda m: m.bernoulli(m.tensor([0.5, 2.0])), ["2.0"]),
    (lambda m: m.zeros(2).bernoulli_(-0.5), ["-0.5"]),
    (lambda m: _attention(m, m.ones(2, 3), m.ones(2, 3), m.ones(2, 3), attn_mask=m.ones(2, 2, dtype=m.bool),
                          is_causal=True), ["is_causal"]),
    (lambda m: m.finfo(m.int64), ["iinfo"]),
    (lambda m: m.iinfo(m.float32), ["finfo"]),
])
def test_misuse_raises_like_torch(misuse, pieces):
    assert_misuse_raises_like_torch(misuse, pieces)


def test_index_add_accumulates_embedding_gradients_as_the_lecture_does():
    """``dC.index_add_(0, Xb.view(-1), demb.view(-1, n))`` equals the loop over every (row, position)."""
    rng = numpy.random.default_rng(0)
    table = rng.standard_normal((7, 3))
    xb = rng.integers(0, 7, size=(5, 4))
    demb = rng.standard_normal((5, 4, 3))
    expected = numpy.zeros_like(table)
    for k in range(xb.shape[0]):
        for j in range(xb.shape[1]):
            expected[xb[k, j]] += demb[k, j]
    d_table = mg.zeros(7, 3, dtype=mg.float64)
    d_table.index_add_(0, mg.tensor(xb).view(-1), mg.tensor(demb).view(-1, 3))
    numpy.testing.assert_allclose(to_numpy(d_table), expected, rtol=1e-12)


def test_normal_with_numbers_is_seeded_shaped_and_distributed():
    a = mg.normal(2.0, 3.0, (200, 50), generator=mg.Generator().manual_seed(1))
    b = mg.normal(2.0, 3.0, size=(200, 50), generator=mg.Generator().manual_seed(1))
    assert a.shape == (200, 50) and a.dtype is mg.float32 and a.device == backend.default_device()
    numpy.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    values = to_numpy(a)
    assert abs(values.mean() - 2.0) < 0.1 and abs(values.std() - 3.0) < 0.1  # 10 000 samples: ~0.03 and ~0.02
    assert mg.normal(0, 1, (3,), dtype=mg.float64, requires_grad=True).requires_grad


def test_normal_with_tensors_broadcasts_and_sends_zero_gradients_like_torch():
    torch = require_torch()
    for lib in (mg, torch):
        mean = lib.tensor([[0.0], [100.0]], requires_grad=True)
        std = lib.tensor([1.0, 0.0, 2.0], requires_grad=True)
        out = lib.normal(mean, std)
        assert tuple(out.shape) == (2, 3) and out.requires_grad
        out.sum().backward()
        assert float(mean.grad.abs().sum()) == 0.0 and float(std.grad.abs().sum()) == 0.0
    sample = to_numpy(mg.normal(mg.tensor([[0.0], [100.0]]), mg.tensor([1.0, 0.0, 2.0])))
    assert sample[1, 1] == 100.0 and abs(sample[1, 0] - 100.0) < 10  # std 0: the mean itself
    assert mg.normal(mg.zeros(4), 1.0).shape == (4,)
    assert mg.normal(0.0, mg.ones(4, dtype=mg.float64)).dtype is mg.float64


def test_bernoulli_draws_ones_at_rate_p():
    generator = mg.Generator().manual_seed(3)
    probabilities = mg.tensor([0.0, 1.0, 0.25]).expand(4000, 3)
    draws = to_numpy(mg.bernoulli(probabilities, generator=generator))
    assert set(numpy.unique(draws)) <= {0.0, 1.0}
    assert draws[:, 0].sum() == 0 and draws[:, 1].sum() == 4000
    assert abs(draws[:, 2].mean() - 0.25) < 0.03  # sd of the mean ≈ 0.007
    same = mg.bernoulli(probabilities, generator=mg.Generator().manual_seed(3))
    numpy.testing.assert_array_equal(to_numpy(same), draws)


def test_bernoulli_in_place_and_with_p_keep_dtype_and_shape():
    torch = require_torch()
    for lib in (mg, torch):
        filled = lib.zeros(3, dtype=lib.long).bernoulli_(lib.tensor([0.0, 1.0, 1.0]))
        assert filled.tolist() == [0, 1, 1] and filled.dtype == lib.long
        half = lib.ones(2000).bernoulli(0.5)
        assert half.shape == (2000,) and 0.4 < float(half.mean()) < 0.6
        dropped = (lib.rand(1000) > 0.3).float()  # d2l's dropout mask, by hand
        assert dropped.dtype == lib.float32
    p = mg.full((5,), 0.5, requires_grad=True)
    out = mg.bernoulli(p)
    assert out.requires_grad
    out.sum().backward()
    numpy.testing.assert_array_equal(to_numpy(p.grad), numpy.zeros(5))


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_matches_torch(name):
    torch = require_torch()
    ours, theirs = mg.finfo(getattr(mg, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert mg.finfo().eps == torch.finfo().eps


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    torch = require_torch()
    ours, theirs = mg.iinfo(getattr(mg, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.min, ours.max) == (theirs.bits, theirs.min, theirs.max)


def test_constants_and_predicates_match_torch():
    torch = require_torch()
    assert (mg.pi, mg.e, mg.inf) == (torch.pi, torch.e, torch.inf) and mg.nan != mg.nan
    assert mg.is_floating_point(mg.ones(1)) and not mg.is_floating_point(mg.ones(1, dtype=mg.long))
    with pytest.raises(TypeError):
        mg.is_floating_point(1.0)


def test_cuda_manual_seed_leaves_the_cpu_stream_alone_as_in_torch():
    torch = require_torch()
    for lib in (mg, torch):
        lib.manual_seed(5)
        first = lib.rand(3).tolist()
        lib.manual_seed(5)
        lib.cuda.manual_seed(99)
        lib.cuda.manual_seed_all(99)
        assert lib.rand(3).tolist() == first
    assert mg.xpu.is_available() is False and mg.xpu.device_count() == 0


def test_pytorch_spellings_of_the_data_modules_import():
    from minigrad.utils.data import sampler  # noqa: PLC0415 (the import is what is tested)
    from minigrad.utils.data.dataloader import DataLoader  # noqa: PLC0415
    from minigrad.utils.data.dataset import Dataset  # noqa: PLC0415

    assert DataLoader is mg.data.DataLoader and Dataset is mg.data.Dataset
    assert sampler.SubsetRandomSampler is mg.utils.data.sampler.SubsetRandomSampler
    first_six = sampler.SubsetRandomSampler(range(6), generator=mg.Generator().manual_seed(0))
    loader = DataLoader(mg.data.TensorDataset(mg.arange(10)), batch_size=4, sampler=first_six)
    assert sorted(mg.cat([x for (x,) in loader]).tolist()) == list(range(6))


@pytest.mark.parametrize("old", ["uniform", "normal", "constant", "xavier_uniform", "xavier_normal",
                                 "kaiming_uniform", "kaiming_normal", "orthogonal"])
def test_deprecated_init_names_warn_like_torch_and_initialise(old):
    torch = require_torch()
    args = {"constant": (0.25,)}.get(old, ())
    for lib in (torch, mg):
        weight = lib.empty(4, 3)
        with pytest.warns(FutureWarning, match=f"nn.init.{old}_"):
            getattr(lib.nn.init, old)(weight, *args)
        assert float(weight.abs().sum()) > 0

