"""What a training step costs a real GPU, measured on the CuPy stand-in.

The stand-in records two things library code does to device arrays: NumPy functions called on
them (forbidden: the suite fails on any, see conftest.py) and device-to-host synchronisations
(each stalls a GPU's queue). A training step of the MNIST CNN must make only the syncs that
docs/gpu.md lists, and the recorder itself must catch what it promises to catch.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy
import pytest
import standin_cupy
import standin_cupy_array

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import optim

ROOT = Path(__file__).resolve().parent.parent

# The syncs of one training step of examples/mnist_cnn.py's CNN (forward, loss, backward, step),
# by call site, with how often each runs per step. docs/gpu.md explains each.
STEP_SYNCS = {
    ("bool()", "minigrad/ops/pool.py:_has_non_finite"): 2,        # once per max-pooling backward
    ("bool()", "minigrad/ops/_checks/loss.py:check_class_target"): 1,  # cross-entropy's target range
}


@pytest.fixture
def cnn_on_the_standin():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from mnist_cnn import make_model
    finally:
        sys.path.remove(str(ROOT / "examples"))
    if standin_cupy.real_cupy_requested():
        pytest.skip("counts the stand-in's records; real CuPy records nothing")
    standin_cupy.install()
    mg.manual_seed(0)
    try:
        yield make_model().to("cuda")
    finally:
        standin_cupy.uninstall()


@pytest.mark.parametrize("name", ["adam", "sgd"])
def test_a_training_step_makes_only_the_listed_syncs(cnn_on_the_standin, name):
    model = cnn_on_the_standin
    if name == "adam":
        optimizer = optim.Adam(model.parameters(), lr=1e-3)
    else:
        optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4)
    images = mg.randn(4, 1, 28, 28).to("cuda")
    labels = mg.randint(0, 10, (4,)).to("cuda")
    for _ in range(2):  # the second step runs with the optimiser's state in place
        standin_cupy_array.LIBRARY_SYNCS.clear()
        loss = F.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        assert Counter(standin_cupy_array.LIBRARY_SYNCS) == STEP_SYNCS
    assert not standin_cupy_array.LIBRARY_NUMPY_CALLS


def test_docs_list_every_sync_of_a_training_step():
    page = (ROOT / "docs" / "gpu.md").read_text(encoding="utf-8")
    for _, site in STEP_SYNCS:
        path, function = site.split(":")
        assert f"`{path}`" in page and f"`{function}`" in page, f"docs/gpu.md does not list {site}"


def test_the_recorder_catches_numpy_calls_and_syncs_from_library_code():
    """A line compiled as if it were in minigrad/ is recorded; the same line in a test is not."""
    if standin_cupy.real_cupy_requested():
        pytest.skip("the recorder is the stand-in's")
    cp = standin_cupy.standin
    library_file = str(ROOT / "minigrad" / "ops" / "example.py")
    code = compile("numpy.multiply(x, 2); bool(x.any())", library_file, "exec")
    standin_cupy_array.LIBRARY_NUMPY_CALLS.clear()
    standin_cupy_array.LIBRARY_SYNCS.clear()
    x = cp.ones(3)
    numpy.multiply(x, 2)
    bool(x.any())
    assert not standin_cupy_array.LIBRARY_NUMPY_CALLS and not standin_cupy_array.LIBRARY_SYNCS
    exec(code, {"numpy": numpy, "x": x})
    assert standin_cupy_array.LIBRARY_NUMPY_CALLS == [
        "numpy.multiply on a device array at minigrad/ops/example.py:1 (<module>)"]
    assert standin_cupy_array.LIBRARY_SYNCS == [("bool()", "minigrad/ops/example.py:<module>")]
    standin_cupy_array.LIBRARY_NUMPY_CALLS.clear()
    standin_cupy_array.LIBRARY_SYNCS.clear()
