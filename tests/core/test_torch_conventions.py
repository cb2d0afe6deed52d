"""NumPy's ``axis=`` / ``keepdims=`` for ``dim=`` / ``keepdim=``, and ``is_contiguous()``, as in PyTorch."""

import numpy
import pytest
from _reference import reference
from _torch import require_torch

import minigrad as mg

from .helpers import to_numpy

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
    theirs = reference(lambda torch: CALLS[name](torch, torch.tensor(data)))
    assert tuple(ours.shape) == tuple(theirs.shape)
    numpy.testing.assert_allclose(to_numpy(ours), theirs, rtol=1e-12)


def test_a_name_and_its_alias_together_are_a_type_error():
    torch = require_torch()
    t = mg.ones(2, 3)
    with pytest.raises(TypeError, match="alias"):
        t.sum(dim=0, axis=1)
    with pytest.raises(TypeError):
        torch.ones(2, 3).sum(dim=0, axis=1)


IS_CONTIGUOUS = {
    "fresh": lambda m: m.ones(3, 4),
    "t()": lambda m: m.ones(3, 4).t(),
    "every other column": lambda m: m.ones(3, 4)[:, ::2],
    "rows from 1": lambda m: m.ones(3, 4)[1:],
    "t().contiguous()": lambda m: m.ones(3, 4).t().contiguous(),
    "expand": lambda m: m.ones(3, 4).expand(2, 3, 4),
    "unsqueeze": lambda m: m.ones(3, 4).unsqueeze(0),
    "permute": lambda m: m.ones(2, 3, 4).permute(2, 0, 1),
    "conv2d output": lambda m: m.nn.functional.conv2d(m.ones(2, 1, 5, 5), m.ones(3, 1, 3, 3)),
}


@pytest.mark.parametrize("name", list(IS_CONTIGUOUS))
def test_is_contiguous_answers_as_torch(name):
    theirs = reference(lambda torch: IS_CONTIGUOUS[name](torch).is_contiguous())
    assert IS_CONTIGUOUS[name](mg).is_contiguous() == theirs


OUT_CALLS = {
    "add": (lambda m, a, b, out: m.add(a, b, out=out), (2, 3)),
    "mul": (lambda m, a, b, out: m.mul(a, b, out=out), (2, 3)),
    "matmul": (lambda m, a, b, out: m.matmul(a, b.t(), out=out), (2, 2)),
    "exp": (lambda m, a, b, out: m.exp(a, out=out), (2, 3)),
    "sum over dim": (lambda m, a, b, out: m.sum(a, 0, out=out), (3,)),
    "cat": (lambda m, a, b, out: m.cat([a, b], dim=1, out=out), (2, 6)),
    "where": (lambda m, a, b, out: m.where(a > 0, a, b, out=out), (2, 3)),
}


@pytest.mark.parametrize("name", list(OUT_CALLS))
@pytest.mark.parametrize("out_shape", ["right", "empty"])
def test_out_is_written_and_returned_as_in_torch(name, out_shape):
    call, shape = OUT_CALLS[name]
    data = numpy.random.default_rng(3).standard_normal((2, 2, 3))

    def written(m):
        a, b = m.tensor(data[0]), m.tensor(data[1])
        out = m.zeros(shape if out_shape == "right" else (0,), dtype=m.float64)
        returned = call(m, a, b, out)
        assert returned is out and tuple(out.shape) == shape
        return out

    numpy.testing.assert_allclose(to_numpy(written(mg)), reference(written), rtol=1e-12)


def test_out_refuses_what_torch_refuses():
    torch = require_torch()
    for m in (mg, torch):
        x = m.ones(2, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            m.mul(x, 2, out=m.empty(2, 3))
        with m.no_grad():
            assert m.mul(x, 2, out=m.empty(2, 3)).requires_grad is False
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
            m.add(m.ones(2), m.ones(2), out=m.zeros(2, dtype=m.int64))
        with pytest.warns(UserWarning, match="resized"):
            m.add(m.ones(2), m.ones(2), out=m.zeros(5))


def test_the_tutorials_device_line_runs_and_names_the_accelerator(device):
    """PyTorch's quickstart: ``torch.accelerator.current_accelerator().type if ... else "cpu"``."""
    chosen = mg.accelerator.current_accelerator().type if mg.accelerator.is_available() else "cpu"
    if device.type == "cuda":     # the CuPy stand-in serves 'cuda' in this run
        assert chosen == "cuda" and mg.accelerator.device_count() == 1
        assert mg.ones(2, device=chosen).device == mg.device("cuda")
    else:
        assert chosen == "cpu" and mg.accelerator.current_accelerator() is None
        assert mg.accelerator.device_count() == 0


INDEX_KEYS = {
    "int": lambda x: x[0],
    "two ints": lambda x: x[0, 1],
    "slice": lambda x: x[1:],
    "int then slice": lambda x: x[0, 1:],
    "slice then int": lambda x: x[1:, 0],
    "full slice then int": lambda x: x[:, 0],
    "int then full slice": lambda x: x[0, :],
    "None": lambda x: x[None],
    "list": lambda x: x[[0, 1]],
    "range and tensor": lambda x: x[range(2), x.detach()[:2, 0].abs().long() % 4],
    "Ellipsis then int": lambda x: x[..., 0],
    "everything": lambda x: x[:, :],
    "mask": lambda x: x[x > 0],
}


@pytest.mark.parametrize("name", list(INDEX_KEYS))
def test_indexing_nodes_carry_torchs_names_and_values(name):
    data = numpy.arange(12.0).reshape(3, 4) - 5

    def indexed(m):
        result = INDEX_KEYS[name](m.tensor(data, requires_grad=True))
        return result.grad_fn.name(), result.detach()

    node, values = reference(indexed)
    ours = INDEX_KEYS[name](mg.tensor(data, requires_grad=True))
    assert ours.grad_fn.name() == node
    numpy.testing.assert_array_equal(to_numpy(ours.detach()), values)
