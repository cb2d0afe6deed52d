"""nn.init's trunc_normal_, orthogonal_, eye_, dirac_; Softmin; normalize, cosine_similarity,
pairwise_distance (functions and layers); kl_div and KLDivLoss — values, gradients, reprs and errors
as PyTorch's."""

import math
import warnings

import numpy
import pytest
from _torch import raises_like_torch, require_torch
from core.helpers import check_against_torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck
from minigrad.nn import init

from .helpers import host


def _pair(rng, shape, array=None):
    """The same float64 array (``array``, or a random one of ``shape``) as a minigrad and a PyTorch leaf."""
    torch = require_torch()
    array = rng.standard_normal(shape) if array is None else array
    return mg.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)


def _compare(ours_out, theirs_out, ours_inputs, theirs_inputs, rng):
    """Same values, and the same gradients of a random weighted sum of the outputs."""
    torch = require_torch()
    assert tuple(ours_out.shape) == tuple(theirs_out.shape)
    numpy.testing.assert_allclose(host(ours_out), host(theirs_out), rtol=1e-10, atol=1e-12)
    weight = rng.standard_normal(tuple(theirs_out.shape))
    (ours_out * mg.tensor(weight)).sum().backward()
    (theirs_out * torch.tensor(weight)).sum().backward()
    for ours, theirs in zip(ours_inputs, theirs_inputs):
        if theirs.grad is None:
            assert ours.grad is None
        else:
            numpy.testing.assert_allclose(host(ours.grad), host(theirs.grad), rtol=1e-9, atol=1e-12)


# --- nn.init ---------------------------------------------------------------------------------------------

def _truncated_normal_moments(mean, std, a, b):
    """The mean and std of N(mean, std²) restricted to [a, b]."""
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2  # noqa: E731
    z = cdf(beta) - cdf(alpha)
    shift = (pdf(alpha) - pdf(beta)) / z
    variance = 1 + (alpha * pdf(alpha) - beta * pdf(beta)) / z - shift**2
    return mean + std * shift, std * math.sqrt(variance)


@pytest.mark.parametrize("mean, std, a, b", [(0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -1.0, 3.0),
                                             (0.0, 1.0, 2.0, 3.0),       # little mass: uniform proposals
                                             (0.0, 0.02, -0.04, 0.04), (1.0, 1.0, 0.0, 10.0)])
def test_trunc_normal_stays_within_bounds_with_the_truncated_moments(mean, std, a, b):
    generator = mg.Generator().manual_seed(0)
    w = mg.empty(200_000, dtype=mg.float64)
    assert init.trunc_normal_(w, mean, std, a, b, generator=generator) is w
    values = host(w)
    assert values.min() >= a and values.max() <= b
    expected_mean, expected_std = _truncated_normal_moments(mean, std, a, b)
    tolerance = 5 * expected_std / math.sqrt(values.size)
    assert abs(values.mean() - expected_mean) < tolerance
    assert abs(values.std() - expected_std) < 0.01 * expected_std


def test_trunc_normal_matches_torchs_statistics_and_seeds():
    torch = require_torch()
    theirs = torch.nn.init.trunc_normal_(torch.empty(100_000), 0.3, 0.7, -0.5, 1.0,
                                         generator=torch.Generator().manual_seed(0))
    ours = init.trunc_normal_(mg.empty(100_000), 0.3, 0.7, -0.5, 1.0, generator=mg.Generator().manual_seed(0))
    assert ours.dtype == mg.float32
    assert abs(float(ours.mean()) - float(theirs.mean())) < 0.01
    assert abs(float(ours.std()) - float(theirs.std())) < 0.01
    again = init.trunc_normal_(mg.empty(100_000), 0.3, 0.7, -0.5, 1.0,
                               generator=mg.Generator().manual_seed(0))
    numpy.testing.assert_array_equal(host(ours), host(again))


def test_trunc_normal_warns_when_the_mean_is_far_from_the_bounds():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(mg.empty(100), mean=10.0, std=1.0, a=-2.0, b=2.0,
                           generator=mg.Generator().manual_seed(0))


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (6, 2, 3, 3), (2, 3, 4)])
def test_orthogonal_gives_orthonormal_rows_or_columns(shape):
    w = nn.Parameter(mg.empty(*shape, dtype=mg.float64))
    assert init.orthogonal_(w, gain=2.0, generator=mg.Generator().manual_seed(1)) is w
    assert w.grad_fn is None and w.requires_grad
    rows = shape[0]
    flat = host(w).reshape(rows, -1) / 2.0
    gram = flat @ flat.T if rows < flat.shape[1] else flat.T @ flat
    numpy.testing.assert_allclose(gram, numpy.eye(gram.shape[0]), atol=1e-12)


def test_orthogonal_follows_torchs_recipe_on_the_same_gaussian():
    """PyTorch's steps (flatten, transpose if rows < cols, QR, sign by diag(R)) on our own draws."""
    torch = require_torch()
    w = init.orthogonal_(mg.empty(3, 2, 2, dtype=mg.float64), generator=mg.Generator().manual_seed(3))
    same_draws = mg.Generator().manual_seed(3)
    gaussian = torch.tensor(host(mg.empty(3, 4, dtype=mg.float64).normal_(generator=same_draws)))
    q, r = torch.linalg.qr(gaussian.t())
    expected = (q * torch.diag(r).sign()).t().reshape(3, 2, 2)
    numpy.testing.assert_allclose(host(w), expected.numpy(), atol=1e-12)


def test_eye_and_dirac_match_torch():
    torch = require_torch()
    for shape in [(3, 5), (5, 3), (4, 4)]:
        numpy.testing.assert_array_equal(host(init.eye_(mg.empty(*shape))),
                                         torch.nn.init.eye_(torch.empty(*shape)).numpy())
    for shape, groups in [((4, 2, 3), 1), ((6, 4, 3, 3), 2), ((4, 6, 3, 2), 2), ((6, 2, 3, 3, 3), 3),
                          ((2, 5, 4, 4), 1)]:
        w = nn.Parameter(mg.empty(*shape))
        assert init.dirac_(w, groups) is w
        assert w.grad_fn is None
        numpy.testing.assert_array_equal(host(w), torch.nn.init.dirac_(torch.empty(*shape), groups).numpy())


def test_dirac_initialised_conv_is_the_identity():
    conv = nn.Conv2d(3, 3, 3, padding=1, bias=False)
    init.dirac_(conv.weight)
    x = mg.randn(2, 3, 5, 5)
    numpy.testing.assert_allclose(host(conv(x)), host(x), atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.init.orthogonal_(lib.empty(5)),
    lambda lib: lib.nn.init.eye_(lib.empty(2, 3, 4)),
    lambda lib: lib.nn.init.eye_(lib.empty(3)),
    lambda lib: lib.nn.init.dirac_(lib.empty(3, 3)),
    lambda lib: lib.nn.init.dirac_(lib.empty(3, 3, 3), groups=2),
    lambda lib: lib.nn.init.calculate_gain("softmax"),
    lambda lib: lib.nn.init.calculate_gain("leaky_relu", True),
])
def test_init_errors_are_torchs(call):
    raises_like_torch(call, ValueError)


def test_orthogonal_of_an_empty_tensor_is_a_no_op():
    w = mg.empty(0, 3)
    assert init.orthogonal_(w) is w


# --- softmin ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, dim", [((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1), ((5,), 0), ((), 0)])
def test_softmin_values_and_gradients_match_torch(shape, dim):
    rng = numpy.random.default_rng(0)
    check_against_torch(lambda m, x: m.nn.functional.softmin(x, dim), [rng.standard_normal(shape)], "float64")
    check_against_torch(lambda m, x: m.nn.Softmin(dim)(x), [rng.standard_normal(shape)], "float64", seed=1)


def test_softmin_implicit_dim_warns_and_chooses_as_torch():
    torch = require_torch()
    array = numpy.random.default_rng(1).standard_normal((2, 3, 4))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        ours = F.softmin(mg.tensor(array))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.functional.softmin(torch.tensor(array))
    numpy.testing.assert_allclose(host(ours), theirs.numpy(), rtol=1e-12)


def test_softmin_dtype_argument():
    torch = require_torch()
    array = numpy.arange(6).reshape(2, 3)
    ours = F.softmin(mg.tensor(array), 1, dtype=mg.float64)
    theirs = torch.nn.functional.softmin(torch.tensor(array), 1, dtype=torch.float64)
    assert ours.dtype == mg.float64
    numpy.testing.assert_allclose(host(ours), theirs.numpy(), rtol=1e-12)


def test_softmax_family_reprs_match_torch():
    torch = require_torch()
    for name in ("Softmax", "LogSoftmax", "Softmin"):
        for args in ((), (1,), (-1,)):
            assert repr(getattr(nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))
    assert repr(nn.CosineSimilarity(0, 1e-3)) == repr(torch.nn.CosineSimilarity(0, 1e-3))
    assert repr(nn.PairwiseDistance(1.0)) == repr(torch.nn.PairwiseDistance(1.0))
    assert repr(nn.KLDivLoss(reduction="batchmean")) == repr(torch.nn.KLDivLoss(reduction="batchmean"))


# --- normalize, cosine_similarity, pairwise_distance -------------------------------------------------

@pytest.mark.parametrize("shape, p, dim", [((4, 5), 2.0, 1), ((4, 5), 1.0, 0), ((2, 3, 4), 3.0, -1),
                                           ((2, 3, 4), math.inf, 1), ((6,), 2.0, 0),
                                           ((2, 3, 4), 2.0, (1, 2))])
def test_normalize_matches_torch(shape, p, dim):
    rng = numpy.random.default_rng(2)
    check_against_torch(lambda m, x: m.nn.functional.normalize(x, p, dim), [rng.standard_normal(shape)],
                        "float64")


def test_normalize_below_eps_is_clamped_with_torchs_gradient():
    torch = require_torch()
    rng = numpy.random.default_rng(3)
    array = rng.standard_normal((3, 4))
    array[1] *= 1e-14
    array[2] = 0.0
    x, tx = _pair(rng, None, array=array)
    _compare(F.normalize(x), torch.nn.functional.normalize(tx), [x], [tx], rng)


@pytest.mark.parametrize("shape1, shape2, dim", [((4, 5), (4, 5), 1), ((4, 5), (4, 5), 0),
                                                 ((2, 3, 4), (3, 4), -1), ((3, 1, 4), (5, 4), 2),
                                                 ((6,), (6,), 0), ((2, 5), (1, 5), 1)])
def test_cosine_similarity_matches_torch(shape1, shape2, dim):
    rng = numpy.random.default_rng(4)
    check_against_torch(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, dim),
                        [rng.standard_normal(shape1), rng.standard_normal(shape2)], "float64")
    check_against_torch(lambda m, a, b: m.nn.CosineSimilarity(dim)(a, b),
                        [rng.standard_normal(shape1), rng.standard_normal(shape2)], "float64", seed=1)


def test_cosine_similarity_eps_clamp_is_invisible_to_autograd_as_in_torch():
    """PyTorch clamps the norms in place under no_grad: below eps the value uses eps, the gradient
    flows as if there were no clamp (and a zero vector gives 0 and a zero gradient)."""
    torch = require_torch()
    rng = numpy.random.default_rng(5)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    a[0] *= 1e-10
    b[1] *= 1e-12
    a[2] = 0.0
    b[3] = 0.0
    x1, t1 = _pair(rng, None, array=a)
    x2, t2 = _pair(rng, None, array=b)
    _compare(F.cosine_similarity(x1, x2, eps=1e-8), torch.nn.functional.cosine_similarity(t1, t2, eps=1e-8),
             [x1, x2], [t1, t2], rng)


def test_cosine_similarity_of_large_and_parallel_vectors_as_torch():
    """Scaled first, |cos| ≤ 1 for parallel vectors; a norm that overflows gives 0, as PyTorch's."""
    torch = require_torch()
    array = numpy.array([[1e150, 3e149, 2e150], [1e200, 1e200, 1.0], [0.1, 0.3, 0.7]])
    ours = F.cosine_similarity(mg.tensor(array), mg.tensor(array * 3))
    theirs = torch.nn.functional.cosine_similarity(torch.tensor(array), torch.tensor(array * 3))
    numpy.testing.assert_allclose(host(ours), theirs.numpy(), rtol=1e-15)
    assert (numpy.abs(host(ours)) <= 1).all()


def test_cosine_similarity_promotes_integers_as_torch():
    torch = require_torch()
    a, b = numpy.array([[1, 2, 3]]), numpy.array([[2.0, 0.5, 1.0]], dtype=numpy.float32)
    ours = F.cosine_similarity(mg.tensor(a), mg.tensor(b))
    theirs = torch.nn.functional.cosine_similarity(torch.tensor(a), torch.tensor(b))
    assert ours.dtype == mg.float32
    numpy.testing.assert_allclose(host(ours), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("shape1, shape2, p, keepdim", [
    ((4, 5), (4, 5), 2.0, False), ((4, 5), (5,), 1.0, True), ((2, 3, 4), (3, 4), 3.0, False),
    ((6,), (6,), 2.0, False), ((4, 5), (4, 5), math.inf, False)])
def test_pairwise_distance_matches_torch(shape1, shape2, p, keepdim):
    rng = numpy.random.default_rng(6)
    check_against_torch(lambda m, a, b: m.nn.functional.pairwise_distance(a, b, p, keepdim=keepdim),
                        [rng.standard_normal(shape1), rng.standard_normal(shape2)], "float64")
    check_against_torch(lambda m, a, b: m.nn.PairwiseDistance(p, 1e-3, keepdim)(a, b),
                        [rng.standard_normal(shape1), rng.standard_normal(shape2)], "float64", seed=1)


def test_pairwise_distance_of_equal_vectors_has_a_finite_gradient():
    x1 = mg.ones(2, 3, dtype=mg.float64, requires_grad=True)
    F.pairwise_distance(x1, mg.ones(2, 3, dtype=mg.float64)).sum().backward()
    assert numpy.isfinite(host(x1.grad)).all()


def test_similarity_gradchecks():
    rng = numpy.random.default_rng(7)
    x1 = mg.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    x2 = mg.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda a, b: F.cosine_similarity(a, b), (x1, x2))
    assert gradcheck(lambda a, b: F.pairwise_distance(a, b, 3.0), (x1, x2))
    assert gradcheck(lambda a: F.normalize(a, dim=0), (x1,))
    assert gradcheck(lambda a: F.softmin(a, 1), (x1,))


@pytest.mark.parametrize("call, error", [
    (lambda lib: lib.nn.functional.cosine_similarity(lib.ones(3, 4), lib.ones(3, 5)), RuntimeError),
    (lambda lib: lib.nn.functional.cosine_similarity(lib.ones(3, 4), lib.ones(3, 4), dim=2), IndexError),
    (lambda lib: lib.nn.functional.cosine_similarity(lib.ones(3, dtype=lib.int64),
                                                     lib.ones(3, dtype=lib.int64), dim=0), RuntimeError),
    (lambda lib: lib.nn.functional.pairwise_distance(lib.ones(3, 4), lib.ones(3, 5)), RuntimeError),
    (lambda lib: lib.nn.functional.normalize(lib.ones(3), dim=1), IndexError),
    (lambda lib: lib.nn.functional.softmin(lib.ones(3, 4), dim=2), IndexError),
])
def test_similarity_errors_are_torchs(call, error):
    raises_like_torch(call, error)


# --- kl_div ----------------------------------------------------------------------------------------------

def _kl_arrays(rng, shape, log_target, zeros=True) -> list:
    """Float64 log-probabilities and a target (probabilities, or their logs with ``log_target``)."""
    logits = rng.standard_normal(shape)
    log_probs = logits - numpy.log(numpy.exp(logits).sum(-1, keepdims=True))
    target = rng.dirichlet(numpy.ones(shape[-1]), size=shape[:-1])
    if zeros:
        target[..., 0] = 0.0   # 0·log 0 = 0
    if log_target:
        target = numpy.log(target + 1e-3)
    return [log_probs, target]


def _kl_operands(rng, shape, log_target, zeros=True):
    torch = require_torch()
    return [(mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True))
            for a in _kl_arrays(rng, shape, log_target, zeros)]


@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean", "mean"])
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 4), (6,)])
def test_kl_div_matches_torch(reduction, log_target, shape):
    rng = numpy.random.default_rng(8)

    def functional(m, x, t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return m.nn.functional.kl_div(x, t, reduction=reduction, log_target=log_target)

    def module(m, x, t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return m.nn.KLDivLoss(reduction=reduction, log_target=log_target)(x, t)

    for seed, fn in enumerate((functional, module)):
        arrays = _kl_arrays(rng, shape, log_target, zeros=log_target)  # target grad at 0 is nan
        check_against_torch(fn, arrays, "float64", seed)


def test_kl_div_zero_target_contributes_nothing_and_no_nan():
    torch = require_torch()
    rng = numpy.random.default_rng(9)
    (x, tx), (t, tt) = _kl_operands(rng, (3, 4), log_target=False)
    t.requires_grad_(False)
    tt.requires_grad_(False)
    ours = F.kl_div(x, t, reduction="none")
    assert numpy.isfinite(host(ours)).all() and (host(ours)[:, 0] == 0).all()
    _compare(F.kl_div(x, t, reduction="batchmean"), torch.nn.functional.kl_div(tx, tt, reduction="batchmean"),
             [x], [tx], rng)
    assert numpy.isfinite(host(x.grad)).all()


def test_kl_div_target_gradient_at_zero_is_nan_as_torchs():
    torch = require_torch()
    ours = mg.tensor([0.0, 0.5, 0.5], requires_grad=True)
    theirs = torch.tensor([0.0, 0.5, 0.5], requires_grad=True)
    x = [-1.0, -0.5, -2.0]
    F.kl_div(mg.tensor(x), ours, reduction="sum").backward()
    torch.nn.functional.kl_div(torch.tensor(x), theirs, reduction="sum").backward()
    numpy.testing.assert_allclose(host(ours.grad), theirs.grad.numpy(), rtol=1e-6)
    assert numpy.isnan(host(ours.grad)[0])


def test_kl_div_mean_warns_and_batchmean_divides_by_the_batch_only():
    rng = numpy.random.default_rng(10)
    (x, _), (t, _) = _kl_operands(rng, (4, 5), log_target=False)
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        mean = F.kl_div(x, t)
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        nn.KLDivLoss()(x, t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        total = F.kl_div(x, t, reduction="sum")
        batchmean = F.kl_div(x, t, reduction="batchmean")
        nn.KLDivLoss(reduction="batchmean")(x, t)
    assert float(batchmean) == pytest.approx(float(total) / 4)
    assert float(mean) == pytest.approx(float(total) / 20)


def test_kl_div_gradcheck():
    rng = numpy.random.default_rng(11)
    (x, _), (t, _) = _kl_operands(rng, (3, 4), log_target=False, zeros=False)
    assert gradcheck(lambda a, b: F.kl_div(a, b, reduction="batchmean"), (x, t))
    assert gradcheck(lambda a, b: F.kl_div(a, b, reduction="none", log_target=True), (x, t))


@pytest.mark.parametrize("call, error", [
    (lambda lib: lib.nn.functional.kl_div(lib.ones(3), lib.ones(3), reduction="average"), ValueError),
    (lambda lib: lib.nn.KLDivLoss(reduction="average")(lib.ones(3), lib.ones(3)), ValueError),
    (lambda lib: lib.nn.functional.kl_div(lib.ones(3, dtype=lib.int64), lib.ones(3), reduction="sum"),
     RuntimeError),
    (lambda lib: lib.nn.functional.kl_div(lib.ones(3, 4), lib.ones(3, 5), reduction="sum"), RuntimeError),
])
def test_kl_div_errors_are_torchs(call, error):
    raises_like_torch(call, error)
