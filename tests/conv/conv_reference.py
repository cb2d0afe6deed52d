"""The convolution settings the conv tests sweep, and PyTorch's answers for them (float64).

Expected values come from PyTorch (torch.nn.functional.conv2d and its autograd), never
from minigrad: live where PyTorch is installed, else as recorded (``_reference``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy
from _reference import reference


@dataclass(frozen=True)
class ConvCase:
    name: str
    n: int
    c_in: int
    size: tuple           # (H, W)
    c_out: int
    kernel: tuple         # (kh, kw)
    stride: tuple = (1, 1)
    padding: tuple = (0, 0)
    dilation: tuple = (1, 1)
    groups: int = 1

    @property
    def settings(self) -> tuple:
        return self.stride, self.padding, self.dilation, self.groups

    @property
    def input_shape(self) -> tuple:
        return (self.n, self.c_in) + self.size

    @property
    def weight_shape(self) -> tuple:
        return (self.c_out, self.c_in // self.groups) + self.kernel

    def arrays(self, seed: int = 0) -> tuple:
        """Seeded float64 ``(x, weight, bias)``."""
        rng = numpy.random.default_rng(seed)
        return (rng.standard_normal(self.input_shape), rng.standard_normal(self.weight_shape),
                rng.standard_normal(self.c_out))


def _remainder(case: ConvCase, axis: int) -> int:
    """Input rows (axis 0) or columns (axis 1) at the end that no window reaches."""
    span = case.size[axis] + 2 * case.padding[axis] - case.dilation[axis] * (case.kernel[axis] - 1) - 1
    return span % case.stride[axis]


CASES = [
    ConvCase("basic", 2, 3, (7, 6), 4, (3, 3)),
    ConvCase("stride2-pad1", 2, 3, (8, 8), 4, (3, 3), (2, 2), (1, 1)),
    ConvCase("stride3-pad2", 1, 2, (11, 10), 3, (3, 3), (3, 3), (2, 2)),
    ConvCase("stride-pair-pad-pair-3x2", 2, 3, (7, 6), 4, (3, 2), (2, 1), (1, 0)),
    ConvCase("kernel-1x3", 2, 2, (5, 7), 3, (1, 3), (1, 2), (0, 1)),
    ConvCase("dilation2", 2, 2, (9, 9), 3, (3, 3), (1, 1), (2, 2), (2, 2)),
    ConvCase("dilation-pair-groups4", 1, 4, (9, 8), 4, (3, 3), (2, 2), (2, 1), (2, 1), 4),
    ConvCase("groups2", 2, 4, (6, 6), 6, (3, 3), (1, 1), (1, 1), (1, 1), 2),
    ConvCase("depthwise", 2, 3, (6, 5), 3, (3, 3), (1, 1), (1, 1), (1, 1), 3),
    ConvCase("depthwise-multiplier2", 1, 2, (5, 5), 4, (3, 3), (2, 1), (1, 1), (1, 1), 2),
    ConvCase("batch1-channel1", 1, 1, (5, 5), 1, (3, 3)),
    ConvCase("odd-5x3-kernel", 3, 1, (9, 7), 2, (5, 3), (2, 2), (2, 1)),
    ConvCase("uncovered-border", 2, 2, (8, 8), 3, (3, 3), (3, 3)),
    ConvCase("kernel-fills-padded-input", 2, 2, (3, 4), 2, (5, 4), (1, 1), (1, 0)),
    ConvCase("1x1-stride2", 2, 4, (5, 5), 3, (1, 1), (2, 2)),
    ConvCase("groups4-stride2-dilation2", 2, 8, (10, 9), 4, (3, 2), (2, 2), (1, 1), (2, 2), 4),
    ConvCase("depthwise-dilated-multiplier3", 2, 2, (7, 8), 6, (3, 2), (1, 1), (2, 1), (2, 2), 2),
]
CASE_IDS = [case.name for case in CASES]

# The grid really covers what it claims to (the test of the tests).
assert any(_remainder(case, 0) or _remainder(case, 1) for case in CASES)
assert {case.stride[0] for case in CASES} >= {1, 2, 3}
assert any(case.groups == case.c_in == case.c_out for case in CASES)


def torch_conv(case: ConvCase, x: numpy.ndarray, weight: numpy.ndarray, bias: numpy.ndarray | None,
               grad_out: numpy.ndarray | None = None) -> dict:
    """PyTorch's output and, given ``grad_out``, the gradients of x, weight (and bias), all float64."""
    inputs = {"x": x, "weight": weight, "bias": bias, "grad_out": grad_out, "settings": case.settings}
    return reference(lambda torch: _torch_conv(torch, case, x, weight, bias, grad_out), inputs)


def _torch_conv(torch, case: ConvCase, x: numpy.ndarray, weight: numpy.ndarray, bias: numpy.ndarray | None,
                grad_out: numpy.ndarray | None) -> dict:
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(weight, requires_grad=True)
    bt = None if bias is None else torch.tensor(bias, requires_grad=True)
    out = torch.nn.functional.conv2d(xt, wt, bt, *case.settings)
    result = {"out": out.detach().numpy()}
    if grad_out is not None:
        out.backward(torch.tensor(grad_out))
        result.update(x=xt.grad.numpy(), weight=wt.grad.numpy())
        if bt is not None:
            result["bias"] = bt.grad.numpy()
    return result


def output_grad(case: ConvCase, seed: int = 1) -> numpy.ndarray:
    """A seeded δ of the output's shape (computed independently of minigrad)."""
    sizes = [(case.size[a] + 2 * case.padding[a] - case.dilation[a] * (case.kernel[a] - 1) - 1)
             // case.stride[a] + 1 for a in (0, 1)]
    return numpy.random.default_rng(seed).standard_normal((case.n, case.c_out, *sizes))
