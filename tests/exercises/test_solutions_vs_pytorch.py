"""The reference solutions agree with PyTorch itself: ties, zeros, groups, momentum."""

from __future__ import annotations

import numpy
import pytest
from _torch import require_torch

import minigrad
from minigrad.exercises import reference_solution

batchnorm = reference_solution('batchnorm')
conv_im2col = reference_solution('conv_im2col')
relu_maxpool = reference_solution('relu_maxpool')
sgd = reference_solution('sgd')
softmax_xent = reference_solution('softmax_xent')


def _leaf(array: numpy.ndarray) -> minigrad.Tensor:
    return minigrad.tensor(array, requires_grad=True)


@pytest.mark.parametrize("kernel, stride", [(2, 2), (3, 1), (3, 2)])
def test_max_pool_routes_ties_like_pytorch(kernel: int, stride: int) -> None:
    torch = require_torch()
    rng = numpy.random.default_rng(0)
    x = rng.integers(0, 2, size=(2, 3, 7, 7)).astype(numpy.float64)   # ties in nearly every window
    mine = _leaf(x)
    out = relu_maxpool.max_pool2d(mine, kernel, stride)
    grad = rng.normal(size=tuple(out.shape))
    out.backward(minigrad.tensor(grad))
    reference = torch.tensor(x, requires_grad=True)
    torch.nn.functional.max_pool2d(reference, kernel, stride).backward(torch.tensor(grad))
    # overlapping windows add in another order: equal up to rounding, and a misrouted tie is off by O(1)
    numpy.testing.assert_allclose(mine.grad.numpy(), reference.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_relu_gradient_at_zero_like_pytorch() -> None:
    torch = require_torch()
    x = numpy.array([-1.0, 0.0, 2.0, 0.0])
    mine = _leaf(x)
    relu_maxpool.relu(mine).sum().backward()
    reference = torch.tensor(x, requires_grad=True)
    torch.relu(reference).sum().backward()
    numpy.testing.assert_array_equal(mine.grad.numpy(), reference.grad.numpy())


def test_grouped_strided_conv_like_pytorch() -> None:
    torch = require_torch()
    rng = numpy.random.default_rng(1)
    x, w, b = rng.normal(size=(2, 4, 9, 8)), rng.normal(size=(6, 2, 3, 2)), rng.normal(size=6)
    geometry = ((2, 1), (1, 2), (2, 1), 2)
    mine = [_leaf(a) for a in (x, w, b)]
    out = conv_im2col.conv2d(*mine, *geometry)
    grad = rng.normal(size=tuple(out.shape))
    out.backward(minigrad.tensor(grad))
    reference = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    expected = torch.nn.functional.conv2d(*reference, *geometry)
    expected.backward(torch.tensor(grad))
    numpy.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    for m, r in zip(mine, reference):
        numpy.testing.assert_allclose(m.grad.numpy(), r.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_batchnorm_and_cross_entropy_like_pytorch() -> None:
    torch = require_torch()
    rng = numpy.random.default_rng(2)
    x, gamma, beta = rng.normal(1, 2, size=(4, 3, 2, 5)), rng.uniform(0.5, 2, size=3), rng.normal(size=3)
    mine = [_leaf(a) for a in (x, gamma, beta)]
    out = batchnorm.BatchNormFunction.apply(*mine)
    grad = rng.normal(size=x.shape)
    out.backward(minigrad.tensor(grad))
    reference = [torch.tensor(a, requires_grad=True) for a in (x, gamma, beta)]
    torch.nn.functional.batch_norm(reference[0], None, None, reference[1], reference[2], training=True) \
        .backward(torch.tensor(grad))
    for m, r in zip(mine, reference):
        numpy.testing.assert_allclose(m.grad.numpy(), r.grad.numpy(), rtol=1e-9, atol=1e-12)
    logits, target = rng.normal(size=(5, 7)) * 10, rng.integers(0, 7, size=5)
    mine = _leaf(logits)
    softmax_xent.cross_entropy(mine, minigrad.tensor(target)).backward()
    reference = torch.tensor(logits, requires_grad=True)
    torch.nn.functional.cross_entropy(reference, torch.tensor(target)).backward()
    numpy.testing.assert_allclose(mine.grad.numpy(), reference.grad.numpy(), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("options", [{"momentum": 0.9, "dampening": 0.2, "weight_decay": 0.01},
                                     {"momentum": 0.9, "nesterov": True, "weight_decay": 0.1}])
def test_sgd_step_for_step_like_pytorch(options: dict) -> None:
    torch = require_torch()
    rng = numpy.random.default_rng(3)
    start = rng.normal(size=(3, 4))
    mine, reference = _leaf(start), torch.tensor(start, requires_grad=True)
    ours, theirs = sgd.SGD([mine], lr=0.1, **options), torch.optim.SGD([reference], lr=0.1, **options)
    for _ in range(4):
        grad = rng.normal(size=start.shape)
        mine.grad, reference.grad = minigrad.tensor(grad), torch.tensor(grad)
        ours.step()
        theirs.step()
        numpy.testing.assert_allclose(mine.detach().numpy(), reference.detach().numpy(), rtol=1e-12)
