"""NumPy's ``axis=`` / ``keepdims=`` are accepted for ``dim=`` / ``keepdim=``, as PyTorch accepts them."""

import numpy
import pytest
from _torch import require_torch

import minigrad as mg

from .helpers import to_numpy

torch = require_torch()

CALLS = {
    "t.sum(axis, keepdims)": lambda m, t: t.sum(axis=1, keepdims=True),
    "sum(t, axis)": lambda m, t: m.sum(t, axis=0),
    "t.mean(axis)": lambda m, t: t.mean(axis=-1),
    "mean(t, axis, keepdims)": lambda m, t: m.mean(t, axis=(0, 2), keepdims=True),
    "t.var(axis)": lambda m, t: t.var(axis=0),
    "std(t, axis)": lambda m, t: m.std(t, axis=1),
    "t.max(axis).values": lambda m, t: t.max(axis=1).values,
    "min(t, axis, keepdims).indices": lambda m, t: m.min(t, axis=2, keepdims=True).indices,
    "t.amax(axis)": lambda m, t: t.amax(axis=(1, 2)),
    "argmin(t, axis)": lambda m, t: m.argmin(t, axis=1),
    "t.argmax(axis, keepdims)": lambda m, t: t.argmax(axis=0, keepdims=True),
    "t.softmax(axis)": lambda m, t: t.softmax(axis=1),
    "log_softmax(t, axis)": lambda m, t: m.log_softmax(t, axis=-1),
    "cat(axis)": lambda m, t: m.cat([t, t], axis=1),
    "stack(axis)": lambda m, t: m.stack([t, t], axis=2),
    "t.unsqueeze(axis)": lambda m, t: t.unsqueeze(axis=0),
    "squeeze(t[:1], axis)": lambda m, t: m.squeeze(t[:1], axis=0),
    "(t > 0).any(axis)": lambda m, t: (t > 0).any(axis=1),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_numpy_keyword_matches_torch(name):
    data = numpy.random.default_rng(7).standard_normal((2, 3, 4))
    ours = CALLS[name](mg, mg.tensor(data))
    theirs = CALLS[name](torch, torch.tensor(data))
    assert tuple(ours.shape) == tuple(theirs.shape)
    numpy.testing.assert_allclose(to_numpy(ours), theirs.numpy(), rtol=1e-12)


def test_a_name_and_its_alias_together_are_a_type_error():
    t = mg.ones(2, 3)
    with pytest.raises(TypeError, match="alias"):
        t.sum(dim=0, axis=1)
    with pytest.raises(TypeError):
        torch.ones(2, 3).sum(dim=0, axis=1)
