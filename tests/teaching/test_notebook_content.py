"""What the notebooks must show (their cells' own asserts run in tests/notebooks): Δb worked out
with numbers, set_gradient freezing the parameters upstream, labels as captions, true timings."""

from __future__ import annotations

import json
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def source(name: str) -> str:
    notebook = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
    return "\n".join("".join(cell["source"]) for cell in notebook["cells"])


def test_the_conv_notebook_works_the_bias_gradient_out_with_numbers():
    text = source("03_conv2d_backward.ipynb")
    assert r"\Delta b = \sum_{h, w} \delta[h, w] = 1 + (-1) + 2 + 0 = 2" in text
    assert "F.conv2d(X, Wt, bias)" in text and "assert np.allclose(bias.grad.numpy(), [delta.sum()])" in text


def test_the_conv_notebook_demonstrates_set_gradient():
    text = source("03_conv2d_backward.ipynb")
    assert "stepper.set_gradient(mg.zeros_like(stepper.pending_gradient()))" in text
    assert "frozen" in text and "optimizer.step()" in text


def test_the_mnist_notebook_states_true_timings_and_labels_its_images():
    text = source("04_mnist_cnn.ipynb")
    assert "several minutes" not in text and "20–30 s per epoch" in text
    assert 'captions=[f"label {y}" for y in train_set.labels[:16]]' in text


def test_the_autograd_notebook_shows_signed_deltas_and_a_sum_being_formed():
    text = source("01_autograd_from_zero.ipynb")
    assert r"\lVert\delta\rVert" not in text
    assert 'BackwardStepper(x * x + x, params={"x": x})' in text and "$1 + 3 + 3 = 7$" in text
    assert "values=True, stepper=stepper" in text
