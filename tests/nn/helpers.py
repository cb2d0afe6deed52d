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
from _reference import reference

import minigrad as mg
import minigrad.nn  # noqa: F401  (makes mg.nn available)

TOLERANCES = {"float64": {"rtol": 1e-10, "atol": 1e-12}, "float32": {"rtol": 2e-5, "atol": 2e-5}}


def host(t: Any) -> numpy.ndarray:
    """A NumPy copy of a minigrad or PyTorch tensor."""
    if isinstance(t, mg.Tensor):
        return mg.backend.to_host(t.array).copy()
    if isinstance(t, numpy.ndarray):
        return t.copy()
    return t.detach().cpu().numpy().copy()


def assert_close(ours: Any, theirs: Any, dtype: str, what: str) -> None:
    """Same shape, dtype and values; ``theirs`` is a PyTorch tensor or, replayed, its NumPy array."""
    shapes = f"{list(ours.shape)} vs {list(theirs.shape)}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {shapes}"
    assert str(ours.dtype).rsplit(".", 1)[-1] == str(theirs.dtype).rsplit(".", 1)[-1], \
        f"{what}: dtype {ours.dtype} vs {theirs.dtype}"
    numpy.testing.assert_allclose(host(ours), host(theirs), err_msg=what, **TOLERANCES[dtype])


def load_torch_weights(ours: mg.nn.Module, theirs: Any) -> None:
    """Copy PyTorch's state_dict (a module's, or its arrays by name) into the minigrad module
    (strict: same keys, same shapes)."""
    items = theirs.items() if isinstance(theirs, dict) else theirs.state_dict().items()
    state = {key: mg.tensor(host(value)) for key, value in items}
    result = ours.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []


def torch_layer_answer(make: Callable[[Any], Any], input_array: numpy.ndarray, dtype: str, seed: int = 0,
                       train: bool = True, calls: int = 1,
                       describe: Callable[[Any], Any] | None = None) -> dict:
    """PyTorch's side of :func:`check_layer`: its initial state, and per call the output and input
    gradient, then the parameters' gradients, the buffers, the state dict's keys, and whatever
    ``describe(layer)`` says (recorded, see ``_reference``)."""
    def compute(torch: Any) -> dict:
        with torch.random.fork_rng():  # a seeded initialisation, so that the records are reproducible
            torch.manual_seed(seed)
            layer = make(torch).to(getattr(torch, dtype))
        state = {key: host(value) for key, value in layer.state_dict().items()}
        layer.train(train)
        rng = numpy.random.default_rng(seed)
        outputs, input_grads = [], []
        for _ in range(calls):
            x = torch.tensor(input_array.astype(dtype), requires_grad=True)
            out = layer(x)
            weight = rng.standard_normal(tuple(out.shape)).astype(dtype)
            (out * torch.tensor(weight)).sum().backward()
            outputs.append(out)
            input_grads.append(x.grad)
        return {"state": state, "outputs": outputs, "input_grads": input_grads,
                "parameters": [[name, p.grad] for name, p in layer.named_parameters()],
                "buffers": [[name, b] for name, b in layer.named_buffers()],
                "state_keys": list(layer.state_dict()), "described": describe and describe(layer)}

    return reference(compute, inputs={"x": input_array, "dtype": dtype, "seed": seed, "train": train,
                                      "calls": calls})


def check_layer(make: Callable[[Any], Any], input_array: numpy.ndarray, dtype: str, seed: int = 0,
                train: bool = True, calls: int = 1, describe: Callable[[Any], Any] | None = None) -> tuple:
    """``make(lib)`` builds the layer with ``lib`` = ``minigrad`` or ``torch``; compare them on one input.

    ``calls`` > 1 runs forward/backward that many times (stateful layers: BatchNorm).
    Returns minigrad's layer and PyTorch's answer (:func:`torch_layer_answer`; its
    ``"described"`` is ``describe(torch_layer)``, for the test to compare with minigrad's).
    """
    theirs = torch_layer_answer(make, input_array, dtype, seed, train, calls, describe)
    ours = make(mg).to(getattr(mg, dtype))
    load_torch_weights(ours, theirs["state"])
    assert [name for name, _ in ours.named_parameters()] == [name for name, _ in theirs["parameters"]]
    ours.train(train)
    rng = numpy.random.default_rng(seed)
    for call in range(calls):
        x_ours = mg.tensor(input_array.astype(dtype), requires_grad=True)
        out_ours = ours(x_ours)
        assert_close(out_ours, theirs["outputs"][call], dtype, f"output (call {call})")
        weight = rng.standard_normal(tuple(out_ours.shape)).astype(dtype)
        (out_ours * mg.tensor(weight)).sum().backward()
        assert_close(x_ours.grad, theirs["input_grads"][call], dtype, f"input gradient (call {call})")
    for (name, p_ours), (_, p_theirs) in zip(ours.named_parameters(), theirs["parameters"]):
        assert_close(p_ours.grad, p_theirs, dtype, f"gradient of {name}")
    ours_buffers, theirs_buffers = dict(ours.named_buffers()), dict(theirs["buffers"])
    assert list(ours_buffers) == list(theirs_buffers)
    for name, buffer in theirs_buffers.items():
        if buffer.dtype.kind == "f":
            assert_close(ours_buffers[name], buffer, dtype, f"buffer {name}")
        else:
            numpy.testing.assert_array_equal(host(ours_buffers[name]), host(buffer), err_msg=name)
    return ours, theirs
