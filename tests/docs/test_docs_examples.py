"""The Python examples in docs/*.md run, and the worked numbers in the math pages are right.

Each page's ```python blocks run in order in one namespace, as a reader would paste them
into one session. A block preceded by ``<!-- docs-test: skip (reason) -->`` is not run
(excerpts of library code, code that needs a GPU).

The worked numbers were computed by hand; the tests below hold minigrad to them, so the
docs and the library cannot drift apart.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import numpy
import pytest

import minigrad as mg
import minigrad.nn.functional as F

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"(?P<skip><!-- docs-test: skip[^>]*-->\n)?"      # an optional marker line
                   r"(?P<indent>[ \t]*)```python\n(?P<code>.*?)\n(?P=indent)```", re.S)


def python_blocks(page: Path) -> list[tuple[str, bool]]:
    """(code, skipped) for every ```python block of a page, indentation removed."""
    blocks = []
    for match in FENCE.finditer(page.read_text(encoding="utf-8")):
        indent = match["indent"]
        code = "\n".join(line[len(indent):] if line.startswith(indent) else line
                         for line in match["code"].split("\n"))
        blocks.append((code, match["skip"] is not None))
    return blocks


PAGES = sorted(p for p in DOCS.glob("*.md") if any(not skipped for _, skipped in python_blocks(p)))


def test_the_pages_with_examples_are_found() -> None:
    names = {p.name for p in PAGES}
    assert {"getting-started.md", "backprop-linear.md", "backprop-conv.md", "custom-function.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_examples_run(page: Path) -> None:
    namespace: dict = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    for number, (code, skipped) in enumerate(python_blocks(page)):
        if skipped:
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(compile(code, f"{page.name}, python block {number}", "exec"), namespace)
            except Exception as error:
                where = f"{page.name}, python block {number}"
                raise AssertionError(f"{where} raised {error!r}:\n{code}") from error


# --- the worked numbers, as printed in the pages --------------------------------------------

def test_linear_worked_numbers() -> None:
    """docs/backprop-linear.md, "Worked numbers"."""
    x = mg.tensor([[1.0, 2, 0], [-1, 0, 3]], dtype=mg.float64, requires_grad=True)
    w = mg.tensor([[1.0, -1, 2], [0, 1, -1]], dtype=mg.float64, requires_grad=True)
    b = mg.tensor([0.5, -1.0], dtype=mg.float64, requires_grad=True)
    t = mg.tensor([[0.0, 1], [5, -3]], dtype=mg.float64)
    y = F.linear(x, w, b)
    loss = 0.5 * ((y - t) ** 2).sum()
    loss.backward()
    numpy.testing.assert_allclose(y.detach().numpy(), [[-0.5, 1], [5.5, -4]])
    assert loss.item() == pytest.approx(0.75)
    numpy.testing.assert_allclose(w.grad.numpy(), [[-1, -1, 1.5], [1, 0, -3]])
    numpy.testing.assert_allclose(b.grad.numpy(), [0, -1])
    numpy.testing.assert_allclose(x.grad.numpy(), [[-0.5, 0.5, -1], [0.5, -1.5, 2]])


@pytest.mark.parametrize("algorithm", ["im2col", "im2col_tuned", "rot180", "naive"])
def test_conv_worked_numbers(algorithm: str) -> None:
    """docs/backprop-conv.md, "A 3×3 example" (and its im2col and matrix views)."""
    x = mg.tensor([[[[1.0, 2, 0], [3, -1, 1], [0, 2, 2]]]], dtype=mg.float64, requires_grad=True)
    w = mg.tensor([[[[1.0, 0], [-1, 2]]]], dtype=mg.float64, requires_grad=True)
    b = mg.tensor([0.0], dtype=mg.float64, requires_grad=True)
    g = mg.tensor([[[[1.0, -1], [2, 0]]]], dtype=mg.float64)
    y = F.conv2d(x, w, b, algorithm=algorithm)
    (y * g).sum().backward()
    numpy.testing.assert_allclose(y.detach().numpy()[0, 0], [[-4, 5], [7, 1]])
    numpy.testing.assert_allclose(w.grad.numpy()[0, 0], [[5, 0], [4, 2]])
    numpy.testing.assert_allclose(b.grad.numpy(), [2])
    numpy.testing.assert_allclose(x.grad.numpy()[0, 0], [[1, -1, 0], [1, 3, -2], [-2, 4, 0]])


def test_conv_im2col_matrix_of_the_example() -> None:
    cols = F.unfold(mg.tensor([[[[1.0, 2, 0], [3, -1, 1], [0, 2, 2]]]]), kernel_size=2)[0]
    numpy.testing.assert_allclose(cols.numpy(), [[1, 2, 3, -1], [2, 0, -1, 1], [3, -1, 0, 2], [-1, 1, 2, 2]])
    dcols = mg.tensor([[[1.0, -1, 2, 0], [0, 0, 0, 0], [-1, 1, -2, 0], [2, -2, 4, 0]]])
    dx = F.fold(dcols, (3, 3), 2)[0, 0]
    numpy.testing.assert_allclose(dx.numpy(), [[1, -1, 0], [1, 3, -2], [-2, 4, 0]])


def test_conv_stride_example_in_one_dimension() -> None:
    """docs/backprop-conv.md, "Stride": x = (3, 1, -2, 4, 0), W = (1, 2, -1), s = 2, δ = (1, -2)."""
    x = mg.tensor([[[[3.0, 1, -2, 4, 0]]]], dtype=mg.float64, requires_grad=True)
    w = mg.tensor([[[[1.0, 2, -1]]]], dtype=mg.float64, requires_grad=True)
    y = F.conv2d(x, w, stride=(1, 2))
    y.backward(mg.tensor([[[[1.0, -2]]]], dtype=mg.float64))
    numpy.testing.assert_allclose(y.detach().numpy().ravel(), [7, 6])
    numpy.testing.assert_allclose(x.grad.numpy().ravel(), [1, 2, -3, -4, 2])
    numpy.testing.assert_allclose(w.grad.numpy().ravel(), [7, -7, -2])
