"""Compare a minigrad layer with the same PyTorch layer, holding identical weights.

:func:`check_layer` builds both layers, copies PyTorch's ``state_dict`` into minigrad's with
``load_state_dict`` (so the two state dicts must have the same keys and shapes), runs both
on the same input, backpropagates the same random weighted sum of the outputs, and checks
the output, the input's gradient, every parameter's gradient (matched by name, in
``named_parameters`` order) and every buffer afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy
from _torch import require_torch

import minigrad as mg
import minigrad.nn  # noqa: F401  (makes mg.nn available)

TOLERANCES = {"float64": {"rtol": 1e-10, "atol": 1e-12}, "float32": {"rtol": 2e-5, "atol": 2e-5}}


def host(t: Any) -> numpy.ndarray:
    """A NumPy copy of a minigrad or PyTorch tensor."""
    if isinstance(t, mg.Tensor):
        return mg.backend.to_host(t.array).copy()
    return t.detach().cpu().numpy().copy()


def assert_close(ours: Any, theirs: Any, dtype: str, what: str) -> None:
    shapes = f"{list(ours.shape)} vs {list(theirs.shape)}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {shapes}"
    assert str(ours.dtype).rsplit(".", 1)[-1] == str(theirs.dtype).rsplit(".", 1)[-1], \
        f"{what}: dtype {ours.dtype} vs {theirs.dtype}"
    numpy.testing.assert_allclose(host(ours), host(theirs), err_msg=what, **TOLERANCES[dtype])


def load_torch_weights(ours: mg.nn.Module, theirs: Any) -> None:
    """Copy PyTorch's state_dict into the minigrad module (strict: same keys, same shapes)."""
    state = {key: mg.tensor(value.detach().cpu().numpy()) for key, value in theirs.state_dict().items()}
    result = ours.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []


def check_layer(make: Callable[[Any], Any], input_array: numpy.ndarray, dtype: str, seed: int = 0,
                train: bool = True, calls: int = 1) -> tuple:
    """``make(lib)`` builds the layer with ``lib`` = ``minigrad`` or ``torch``; compare them on one input.

    ``calls`` > 1 runs forward/backward that many times (stateful layers: BatchNorm).
    Returns the two layers.
    """
    torch = require_torch()
    theirs = make(torch).to(getattr(torch, dtype))
    ours = make(mg).to(getattr(mg, dtype))
    load_torch_weights(ours, theirs)
    assert [name for name, _ in ours.named_parameters()] == [name for name, _ in theirs.named_parameters()]
    ours.train(train)
    theirs.train(train)
    rng = numpy.random.default_rng(seed)
    for call in range(calls):
        x_ours = mg.tensor(input_array.astype(dtype), requires_grad=True)
        x_theirs = torch.tensor(input_array.astype(dtype), requires_grad=True)
        out_ours, out_theirs = ours(x_ours), theirs(x_theirs)
        assert_close(out_ours, out_theirs, dtype, f"output (call {call})")
        weight = rng.standard_normal(tuple(out_theirs.shape)).astype(dtype)
        (out_ours * mg.tensor(weight)).sum().backward()
        (out_theirs * torch.tensor(weight)).sum().backward()
        assert_close(x_ours.grad, x_theirs.grad, dtype, f"input gradient (call {call})")
    for (name, p_ours), (_, p_theirs) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert_close(p_ours.grad, p_theirs.grad, dtype, f"gradient of {name}")
    ours_buffers, theirs_buffers = dict(ours.named_buffers()), dict(theirs.named_buffers())
    assert list(ours_buffers) == list(theirs_buffers)
    for name, buffer in theirs_buffers.items():
        if buffer.dtype.is_floating_point:
            assert_close(ours_buffers[name], buffer, dtype, f"buffer {name}")
        else:
            numpy.testing.assert_array_equal(host(ours_buffers[name]), host(buffer), err_msg=name)
    return ours, theirs
