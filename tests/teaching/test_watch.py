"""watch(model): the statistics its hooks record are the ones computed by hand, only training
steps count, the plots draw them, and the MNIST example writes them with --watch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.viz import watch

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


def setup(seed: int = 0):
    mg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 8), nn.Sigmoid(), nn.Linear(8, 3))
    rng = np.random.default_rng(seed)
    x = mg.tensor(rng.normal(size=(32, 5)) * 3, dtype=mg.float32)
    y = mg.tensor(rng.integers(0, 3, size=32))
    return model, x, y, mg.optim.SGD(model.parameters(), lr=0.5)


def train_step(model, x, y, optimizer):
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def test_layer_statistics_are_the_ones_computed_by_hand():
    model, x, y, optimizer = setup()
    watcher = watch(model)
    assert list(watcher.layers) == ["0", "1", "2", "3", "4"]
    assert [r.kind for r in watcher.layers.values()] == ["Linear", "Tanh", "Linear", "Sigmoid", "Linear"]
    outputs = {}
    handles = [model[k].register_forward_hook(lambda m, a, out, k=k: outputs.setdefault(k, out))
               for k in range(5)]
    for k in range(5):
        model[k].register_forward_hook(lambda m, a, out: out.retain_grad())
    train_step(model, x, y, optimizer)
    for handle in handles:
        handle.remove()
    for k in range(5):
        record, out = watcher.layers[str(k)], outputs[k]
        values = out.detach().numpy().astype(np.float64)
        np.testing.assert_allclose([record.mean[0], record.std[0]], [values.mean(), values.std()], rtol=1e-6)
        grad = out.grad.numpy().astype(np.float64)
        np.testing.assert_allclose([record.grad_mean[0], record.grad_std[0]], [grad.mean(), grad.std()],
                                   rtol=1e-5, atol=1e-12)
        centres, density = record.histogram
        assert np.isclose((density * np.diff(centres).mean()).sum(), 1.0)   # a density over the values
    tanh = outputs[1].detach().numpy()
    sigmoid = outputs[3].detach().numpy()
    assert watcher.layers["1"].saturated[0] == pytest.approx((np.abs(tanh) > 0.97).mean())
    assert watcher.layers["3"].saturated[0] == pytest.approx(((sigmoid < 0.03) | (sigmoid > 0.97)).mean())
    assert watcher.layers["1"].saturated[0] > 0.1                 # inputs of std 3 saturate the tanh
    assert watcher.layers["0"].saturated == [None]


def test_update_to_data_ratio_and_gradient_flow_follow_the_optimizer():
    model, x, y, optimizer = setup(1)
    watcher = watch(model)
    before = [p.detach().numpy().astype(np.float64).copy() for p in model.parameters()]
    train_step(model, x, y, optimizer)
    grads = [p.grad.numpy().astype(np.float64) for p in model.parameters()]
    after = [p.detach().numpy().astype(np.float64) for p in model.parameters()]
    train_step(model, x, y, optimizer)          # its forward records the first step's update
    for (name, record), b, a, g in zip(watcher.parameters.items(), before, after, grads):
        assert record.update_data_ratio[0] == pytest.approx((a - b).std() / a.std(), rel=1e-5), name
        assert record.grad_abs_mean[0] == pytest.approx(np.abs(g).mean(), rel=1e-5)
        assert record.grad_abs_max[0] == pytest.approx(np.abs(g).max(), rel=1e-5)
        assert record.grad_data_ratio[0] == pytest.approx(g.std() / a.std(), rel=1e-5)
    figure = watcher.plot()                     # also records the last step
    assert all(len(r.update_data_ratio) == 2 for r in watcher.parameters.values())
    assert len(figure.axes) == 6
    update_axes = figure.axes[4]
    assert len(update_axes.lines) == 3 + 1      # the three weights and the 1e-3 guide
    assert len(figure.axes[5].patches) == 2 * 6  # mean and max |grad| for six parameters


def test_only_training_steps_are_recorded_and_remove_detaches():
    model, x, y, optimizer = setup(2)
    with watch(model, histogram_every=2) as watcher:
        train_step(model, x, y, optimizer)
        with mg.no_grad():
            model(x)
        model.eval()
        model(x)
        model.train()
        train_step(model, x, y, optimizer)
    assert watcher.step == 2 and len(watcher.layers["1"].mean) == 2
    train_step(model, x, y, optimizer)           # hooks removed on leaving the block
    assert watcher.step == 2 and len(watcher.layers["1"].mean) == 2
    assert "2 steps" in repr(watcher)
    with pytest.raises(ValueError, match="positive"):
        watch(model, histogram_every=0)


def test_save_writes_the_picture(tmp_path):
    model, x, y, optimizer = setup(3)
    watcher = watch(model)
    for _ in range(3):
        train_step(model, x, y, optimizer)
    path = watcher.save(tmp_path / "watch.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["watch.png"]


def test_the_mnist_example_writes_the_watch_plots(tmp_path):
    root = Path(__file__).resolve().parents[2]
    mnist = root.parent / "shared" / "data" / "mnist"      # every checkout has the shared files beside it
    if not mnist.is_dir():
        pytest.skip(f"the MNIST files are not at {mnist}")
    flags = ["--epochs", "1", "--train-subset", "256", "--test-subset", "100", "--data", str(mnist),
             "--out", str(tmp_path), "--watch"]
    result = subprocess.run([sys.executable, str(root / "examples" / "mnist_cnn.py"), *flags], cwd=root,
                            capture_output=True, text=True, timeout=600,
                            env={**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "watch.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"Plot: {tmp_path / 'watch.png'}" in result.stdout
