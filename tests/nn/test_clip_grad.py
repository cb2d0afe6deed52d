"""nn.utils.clip_grad_norm_ / clip_grad_value_ against torch.nn.utils on the same gradients."""

import math

import numpy
import pytest
from _torch import require_torch

import minigrad as mg
from minigrad.nn.utils import clip_grad_norm_, clip_grad_value_

from .helpers import host

SHAPES = [(3, 4), (5,), ()]


def _params(lib, dtype="float64", scale=1.0, seed=0):
    rng = numpy.random.default_rng(seed)
    params = []
    for shape in SHAPES:
        p = lib.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
        p.grad = lib.tensor((rng.standard_normal(shape) * scale).astype(dtype))
        params.append(p)
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    torch = require_torch()
    ours, theirs = _params(mg), _params(torch)
    total_ours = clip_grad_norm_(ours, max_norm, norm_type)
    total_theirs = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert isinstance(total_ours, mg.Tensor) and total_ours.ndim == 0
    numpy.testing.assert_allclose(total_ours.item(), total_theirs.item(), rtol=1e-12)
    for p, q in zip(ours, theirs):
        numpy.testing.assert_allclose(host(p.grad), host(q.grad), rtol=1e-12)


def test_clip_grad_norm_reaches_max_norm_and_skips_missing_grads():
    params = _params(mg, scale=10.0)
    params.append(mg.zeros(2, requires_grad=True))        # no gradient: ignored
    clip_grad_norm_(params, 1.0)
    total = math.sqrt(sum(float((host(p.grad) ** 2).sum()) for p in params[:3]))
    assert total == pytest.approx(1.0, rel=1e-5)
    assert clip_grad_norm_([mg.zeros(2, requires_grad=True)], 1.0).item() == 0.0


def test_clip_grad_norm_accepts_a_single_tensor_and_float32():
    p = mg.ones(4, requires_grad=True)
    p.grad = mg.full((4,), 3.0)
    total = clip_grad_norm_(p, 2.0)
    assert total.item() == pytest.approx(6.0) and p.grad.dtype == mg.float32
    numpy.testing.assert_allclose(host(p.grad), 1.0, rtol=1e-5)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf · 0, as in PyTorch
def test_nonfinite_norm_raises_only_when_asked():
    p = mg.ones(2, requires_grad=True)
    p.grad = mg.tensor([math.inf, 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert math.isinf(clip_grad_norm_([p], 1.0).item())


def test_clip_grad_value_matches_torch():
    torch = require_torch()
    ours, theirs = _params(mg, scale=3.0), _params(torch, scale=3.0)
    assert clip_grad_value_(ours, 1.5) is None
    torch.nn.utils.clip_grad_value_(theirs, 1.5)
    for p, q in zip(ours, theirs):
        numpy.testing.assert_array_equal(host(p.grad), host(q.grad))
        assert numpy.abs(host(p.grad)).max() <= 1.5
