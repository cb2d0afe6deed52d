"""The reference solutions run unchanged on the 'cuda' device (the strict CuPy stand-in)."""

from __future__ import annotations

import numpy
import pytest
import standin_cupy

import minigrad
from minigrad.exercises import reference_solution

batchnorm = reference_solution('batchnorm')
broadcasting = reference_solution('broadcasting')
conv_im2col = reference_solution('conv_im2col')
conv_rot180 = reference_solution('conv_rot180')
linear = reference_solution('linear')
relu_maxpool = reference_solution('relu_maxpool')
sgd = reference_solution('sgd')
softmax_xent = reference_solution('softmax_xent')


@pytest.fixture
def standin():
    standin_cupy.install()
    yield
    standin_cupy.uninstall()


def _inputs(rng: numpy.random.Generator, shapes: list, device: str) -> list:
    return [minigrad.tensor(rng.normal(size=shape), device=device, requires_grad=True) for shape in shapes]


TARGET = numpy.array([1, 0, 2, 2])


def _cross_entropy(z: minigrad.Tensor) -> minigrad.Tensor:
    return softmax_xent.cross_entropy(z, minigrad.tensor(TARGET, device=z.device))


def _steps(z: minigrad.Tensor) -> minigrad.Tensor:
    return softmax_xent.cross_entropy_steps(z, minigrad.tensor(TARGET, device=z.device))

CASES = {
    "mul": ([(3, 1, 4), (2, 4)], lambda a, b: broadcasting.Mul.apply(a, b)),
    "div": ([(3, 4), (4,)], lambda a, b: broadcasting.Div.apply(a, b * b + 1)),
    "linear": ([(4, 3), (5, 3), (5,)], linear.linear),
    "cross_entropy": ([(4, 3)], _cross_entropy),
    "steps": ([(4, 3)], _steps),
    "relu_pool": ([(2, 3, 6, 6)], lambda x: relu_maxpool.max_pool2d(relu_maxpool.relu(x), 3, 2)),
    "conv_im2col": ([(2, 4, 7, 7), (6, 2, 3, 3), (6,)],
                    lambda x, w, b: conv_im2col.conv2d(x, w, b, 2, 1, 1, 2)),
    "conv_rot180": ([(2, 3, 7, 6), (4, 3, 3, 2)],
                    lambda x, w: conv_rot180.Conv2dRot180.apply(x, w, (2, 1), (1, 0), (1, 2))),
    "batchnorm": ([(4, 3, 2, 2), (3,), (3,)], batchnorm.BatchNormFunction.apply),
}


@pytest.mark.parametrize("name", list(CASES))
def test_function_on_the_cuda_standin_equals_the_cpu(name: str, standin: None) -> None:
    shapes, function = CASES[name]
    results = []
    for device in ("cuda", "cpu"):
        inputs = _inputs(numpy.random.default_rng(0), shapes, device)
        out = function(*inputs)
        out.backward(minigrad.ones(out.shape, dtype=out.dtype, device=device))
        assert out.device.type == device
        results.append([out.detach().cpu().numpy()] + [x.grad.cpu().numpy() for x in inputs])
    for on_gpu, on_cpu in zip(*results):
        numpy.testing.assert_allclose(on_gpu, on_cpu, rtol=1e-10, atol=1e-12)


def test_sgd_on_the_cuda_standin(standin: None) -> None:
    finals = []
    for device in ("cuda", "cpu"):
        rng = numpy.random.default_rng(1)
        p = minigrad.tensor(rng.normal(size=(3, 2)), device=device, requires_grad=True)
        optimizer = sgd.SGD([p], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
        for _ in range(3):
            p.grad = minigrad.tensor(rng.normal(size=(3, 2)), device=device)
            optimizer.step()
        finals.append(p.detach().cpu().numpy())
    numpy.testing.assert_allclose(finals[0], finals[1], rtol=1e-12)
