"""The nn package on the strict CuPy stand-in ('cuda' without a GPU): a model moved with ``.to('cuda')``
trains one step with every layer and loss, giving the same numbers as on the CPU.

The stand-in refuses what CuPy refuses (host arrays mixed into device operations, implicit
copies to the host, ``add.at`` with int64 indices ...), so this catches NumPy-only code in nn.
"""

import numpy
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad import backend
from minigrad.nn.utils import clip_grad_norm_, clip_grad_value_

from .helpers import host


def _model():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(4, 4, 3, padding="same", groups=2), nn.AvgPool2d(2), nn.Flatten(),
                         nn.Dropout(0.3), nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 3),
                         nn.Sigmoid())


def _one_step(model, device, x, target, probabilities):
    """Forward through every layer and every loss, backward, clip; returns the losses and gradients."""
    model.to(device)
    mg.manual_seed(0)  # the same dropout mask on both devices
    out = model(mg.tensor(x, device=device))
    t = mg.tensor(target, device=device)
    losses = [F.cross_entropy(out, t, weight=mg.tensor([1.0, 2.0, 0.5], device=device), label_smoothing=0.1),
              F.cross_entropy(out, mg.tensor(probabilities, device=device)),
              nn.NLLLoss(ignore_index=1)(F.log_softmax(out, dim=1), t),
              nn.MSELoss()(out, mg.zeros(out.shape, device=device))]
    sum(losses).backward()
    clip_grad_value_(model.parameters(), 10.0)
    norm = clip_grad_norm_(model.parameters(), 1.0)
    return [host(loss) for loss in losses] + [host(norm)], [host(p.grad) for p in model.parameters()]


def test_a_training_step_on_the_standin_matches_the_cpu(cuda):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((5, 1, 4, 4)).astype(numpy.float32)
    target = numpy.array([0, 2, 1, 1, 2])
    probabilities = rng.dirichlet(numpy.ones(3), size=5).astype(numpy.float32)
    mg.manual_seed(1)
    model = _model()
    state = {k: v.clone() for k, v in model.state_dict().items()}
    cpu_values, cpu_grads = _one_step(model, "cpu", x, target, probabilities)
    model.load_state_dict(state)
    model.zero_grad()
    cuda_values, cuda_grads = _one_step(model, cuda, x, target, probabilities)
    assert all(p.device == cuda for p in model.parameters())
    assert all(b.device == cuda for b in model.buffers())
    for ours, reference in zip(cuda_values + cuda_grads, cpu_values + cpu_grads):
        numpy.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-6)


def test_new_layers_and_init_on_the_default_cuda_device(cuda):
    mg.set_backend("cupy")
    layer = nn.Linear(3, 2)
    assert layer.weight.device == cuda and backend.device_of(layer.weight.array) == cuda
    nn.init.xavier_normal_(layer.weight)
    bn = nn.BatchNorm1d(2).eval()
    out = bn(layer(mg.randn(4, 3)))
    assert out.device == cuda
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):
        F.cross_entropy(out, mg.tensor([0, 5, 1, 1]))


def test_mixing_devices_names_both(cuda):
    layer = nn.Linear(3, 2).to(cuda)
    with pytest.raises(RuntimeError, match="cpu.*cuda|cuda.*cpu"):
        layer(mg.randn(4, 3))
