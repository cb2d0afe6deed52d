"""The micrograd-sized engine in docs/architecture.md gives the gradients that BackwardPass gives.

The test runs the code block as it stands in the page, so the page cannot drift from the engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

PAGE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
BLOCK = re.compile(r"```python\n(.*?)\n```", re.S)


def _engine_code() -> str:
    """The page's one code block that defines ``backward(loss)``."""
    blocks = [code for code in BLOCK.findall(PAGE.read_text(encoding="utf-8")) if "def backward(loss" in code]
    assert len(blocks) == 1, f"expected one block defining backward(loss) in {PAGE.name}, found {len(blocks)}"
    return blocks[0]


def reference_backward() -> Callable[[mg.Tensor], None]:
    """``backward(loss)`` as the page defines it."""
    namespace: dict = {}
    exec(compile(_engine_code(), f"{PAGE.name}: the reference engine", "exec"), namespace)
    return namespace["backward"]


def test_the_reference_engine_is_micrograd_sized() -> None:
    lines = [line.strip() for line in _engine_code().splitlines()]
    code = [line for line in lines if line and not line.startswith(("#", "import ", "from "))]
    assert len(code) <= 25, f"the reference engine grew to {len(code)} lines"


def _mlp(generator: numpy.random.Generator) -> tuple[list[mg.Tensor], Callable[[], mg.Tensor]]:
    model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3)).double()
    x = mg.tensor(generator.standard_normal((6, 5)))
    target = mg.tensor(generator.integers(0, 3, 6))
    return list(model.parameters()), lambda: F.cross_entropy(model(x), target)


def _conv_net(generator: numpy.random.Generator) -> tuple[list[mg.Tensor], Callable[[], mg.Tensor]]:
    model = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(3 * 3 * 3, 4)).double()
    x = mg.tensor(generator.standard_normal((2, 2, 6, 6)))
    target = mg.tensor(generator.integers(0, 4, 2))
    return list(model.parameters()), lambda: F.cross_entropy(model(x), target)


def _fan_out(generator: numpy.random.Generator) -> tuple[list[mg.Tensor], Callable[[], mg.Tensor]]:
    """One value used many times: h feeds four consumers, x reaches the loss along three paths."""
    x = mg.tensor(generator.standard_normal((3, 4)), requires_grad=True)
    w = mg.tensor(generator.standard_normal((4, 4)), requires_grad=True)

    def loss() -> mg.Tensor:
        h = (x @ w).tanh()
        return (h * h + h.exp() - h @ w.t() * x + h.sum(1, keepdim=True)).mean()

    return [x, w], loss


def _broadcasting(generator: numpy.random.Generator) -> tuple[list[mg.Tensor], Callable[[], mg.Tensor]]:
    """Gradients summed back to the shapes their inputs had: (3, 1), (4,), a scalar."""
    a = mg.tensor(generator.standard_normal((3, 1)), requires_grad=True)
    b = mg.tensor(generator.standard_normal(4), requires_grad=True)
    c = mg.tensor(generator.standard_normal(()), requires_grad=True)
    return [a, b, c], lambda: ((a * b + c).sigmoid() * b - a / (1 + c * c)).sum()


@pytest.mark.parametrize("graph", [_mlp, _conv_net, _fan_out, _broadcasting],
                         ids=["mlp", "conv_net", "fan_out", "broadcasting"])
def test_reference_engine_matches_backward_pass(graph: Callable) -> None:
    mg.manual_seed(0)
    params, loss = graph(numpy.random.default_rng(0))
    reference_backward()(loss())
    by_reference = [p.grad.numpy().copy() for p in params]
    for p in params:
        p.grad = None
    loss().backward()
    for p, expected, name in zip(params, by_reference, range(len(params))):
        assert p.grad is not None, f"BackwardPass gave parameter {name} no gradient"
        assert numpy.abs(expected).sum() > 0, f"parameter {name}'s gradient is all zeros: a weak check"
        numpy.testing.assert_allclose(expected, p.grad.numpy(), rtol=1e-12, atol=1e-15,
                                      err_msg=f"parameter {name}")
