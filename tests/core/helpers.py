"""One helper for every differentiable op: forward, gradients and gradcheck against PyTorch.

An op is a function ``fn(m, *inputs)`` where ``m`` is the library (``minigrad`` or ``torch``)
and the inputs are that library's tensors; since the APIs agree, the same function runs on
both, e.g. ``lambda m, a, b: a @ b`` or ``lambda m, a: m.softmax(a, dim=1)``. A table row
``case("name", fn, shape_or_array, ...)`` is then checked by :func:`check_op`:

1. ``minigrad.autograd.gradcheck`` passes in float64;
2. forward values, dtypes and ``requires_grad`` of every output match PyTorch's, in float64
   and float32;
3. the gradient of every input matches PyTorch's, for the backward of a random weighted sum
   of the (differentiable) outputs;
4. second derivatives: gradcheck of the first derivative (recorded with ``create_graph=True``)
   passes in float64, and the gradient of ⟨∂L/∂inputs, w⟩ for a random w matches PyTorch's.

Inputs given as a shape are random floats (seeded from the case's name); inputs given as a
NumPy array are used as they are (float arrays are cast to the run's dtype and require grad,
integer and bool arrays are constants).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy
import pytest
from _reference import reference
from _torch import exception_name, raised_by, require_torch

import minigrad as mg
from minigrad import backend

# (rtol, atol) per dtype: float32 loses ~7 digits, more through a reduction or exp
TOLERANCES = {"float64": (1e-9, 1e-11), "float32": (2e-5, 2e-5)}


def assert_misuse_raises_like_torch(misuse: Callable, pieces: list[str]) -> None:
    """``misuse(module)`` raises the same exception type on PyTorch and on minigrad, and minigrad's
    message names every one of ``pieces`` (the offending sizes, dims or values)."""
    theirs = reference(lambda torch: raised_by(misuse, torch))
    with pytest.raises(Exception) as ours:
        misuse(mg)
    assert exception_name(ours.value) == theirs, f"minigrad: {ours.value!r}\nPyTorch: {theirs}"
    message = str(ours.value)
    for piece in pieces:
        assert piece in message, f"{piece!r} not in {message!r}"


def to_numpy(t: mg.Tensor) -> numpy.ndarray:
    """Any minigrad tensor's data as a host NumPy array (the array itself on the CPU, else a copy)."""
    return backend.to_host(t.array)


def torch_to_numpy(t: Any) -> numpy.ndarray:
    return t.detach().cpu().numpy()


def dtype_name(dtype: Any) -> str:
    """'float32' for both ``torch.float32`` and ``minigrad.float32``."""
    return str(dtype).rsplit(".", 1)[-1]


def seed_of(name: str) -> int:
    """A stable seed from a case's name (``hash`` differs between processes)."""
    return zlib.crc32(name.encode())


# --- inputs -----------------------------------------------------------------------------------

_DOMAINS = {
    "real": lambda rng, shape: rng.standard_normal(shape),
    "positive": lambda rng, shape: rng.uniform(0.5, 2.0, shape),
    "large": lambda rng, shape: rng.standard_normal(shape) * 30.0 + 1000.0,
}


def make_inputs(specs: tuple, domain: str | tuple, seed: int) -> list[numpy.ndarray]:
    """Float64 host arrays for the shape specs (arrays pass through unchanged)."""
    rng = numpy.random.default_rng(seed)
    domains = (domain,) * len(specs) if isinstance(domain, str) else domain
    arrays = []
    for spec, name in zip(specs, domains):
        if isinstance(spec, numpy.ndarray):
            arrays.append(spec)
        else:
            arrays.append(_DOMAINS[name](rng, spec).astype(numpy.float64))
    return arrays


def _is_float(array: numpy.ndarray) -> bool:
    return array.dtype.kind == "f"


def _as_dtype(array: numpy.ndarray, dtype: str) -> numpy.ndarray:
    return array.astype(dtype) if _is_float(array) else array


def mg_inputs(arrays: list, dtype: str, requires_grad: bool = True) -> list[mg.Tensor]:
    """minigrad tensors on the default device; float ones require grad."""
    return [mg.tensor(_as_dtype(a, dtype), requires_grad=requires_grad and _is_float(a)) for a in arrays]


def torch_inputs(arrays: list, dtype: str) -> list:
    torch = require_torch()
    return [torch.tensor(_as_dtype(a, dtype), requires_grad=_is_float(a)) for a in arrays]


def outputs_of(result: Any) -> list:
    """The tensors an op returned, as a flat list (a tuple such as ``max(dim)``'s, or one tensor)."""
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


# --- comparisons ------------------------------------------------------------------------------

def assert_matches(ours: mg.Tensor | None, theirs: Any, dtype: str, what: str) -> None:
    """Same None-ness, shape, dtype and (to ``dtype``'s tolerance) values as PyTorch's tensor.

    ``theirs`` is a PyTorch tensor or, replayed from a record, the NumPy array of one.
    """
    if theirs is None or ours is None:
        assert ours is None and theirs is None, f"{what}: minigrad gives {ours!r}, PyTorch gives {theirs!r}"
        return
    assert isinstance(ours, mg.Tensor), f"{what}: expected a Tensor, got {type(ours).__name__}"
    assert ours.device == backend.default_device(), f"{what}: on {ours.device}, not the default device"
    assert ours.shape == tuple(theirs.shape), f"{what}: shape {list(ours.shape)} != {list(theirs.shape)}"
    assert dtype_name(ours.dtype) == dtype_name(theirs.dtype), f"{what}: dtype {ours.dtype} vs {theirs.dtype}"
    expected = theirs if isinstance(theirs, numpy.ndarray) else torch_to_numpy(theirs)
    actual = to_numpy(ours)
    if expected.dtype.kind in "biu":
        numpy.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        rtol, atol = TOLERANCES["float32" if "float32" in (dtype, dtype_name(theirs.dtype)) else "float64"]
        numpy.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=what)


def _loss_weights(outputs: list, requires_grad: list[bool], seed: int) -> list:
    """The seeded weights of the sum both libraries backpropagate (None for outputs without grad)."""
    rng = numpy.random.default_rng(seed)
    return [rng.standard_normal(tuple(out.shape)).astype(dtype_name(out.dtype)) if grad else None
            for out, grad in zip(outputs, requires_grad)]


def torch_answer(fn: Callable, arrays: list, dtype: str, seed: int = 0) -> dict:
    """PyTorch's outputs, their ``requires_grad``, and every input's gradient of the weighted sum.

    Live with PyTorch, replayed from the records without it (``_reference.reference``).
    """
    def compute(torch: Any) -> dict:
        inputs = torch_inputs(arrays, dtype)
        outputs = outputs_of(fn(torch, *inputs))
        requires_grad = [bool(out.requires_grad) for out in outputs]
        weights = _loss_weights(outputs, requires_grad, seed)
        terms = [(out * torch.tensor(w)).sum() for out, w in zip(outputs, weights) if w is not None]
        if terms:
            sum(terms[1:], terms[0]).backward()
        grads = [t.grad if t.requires_grad and terms else "constant" for t in inputs]
        return {"outputs": outputs, "requires_grad": requires_grad, "grads": grads}

    return reference(compute, inputs={"arrays": arrays, "dtype": dtype, "seed": seed})


def check_against_torch(fn: Callable, arrays: list, dtype: str, seed: int = 0) -> None:
    """Forward values and every input's gradient (of a random weighted sum) equal PyTorch's."""
    theirs = torch_answer(fn, arrays, dtype, seed)
    ours_in = mg_inputs(arrays, dtype)
    ours_out = outputs_of(fn(mg, *ours_in))
    theirs_out = theirs["outputs"]
    assert len(ours_out) == len(theirs_out), f"{len(ours_out)} outputs, PyTorch gives {len(theirs_out)}"
    for k, (ours, expected, grad) in enumerate(zip(ours_out, theirs_out, theirs["requires_grad"])):
        assert_matches(ours, expected, dtype, f"output {k} ({dtype})")
        assert ours.requires_grad == grad, f"output {k}: requires_grad differs"
    weights = _loss_weights(theirs_out, theirs["requires_grad"], seed)
    terms = [(out * mg.tensor(w)).sum() for out, w in zip(ours_out, weights) if w is not None]
    if not terms:
        return
    sum(terms[1:], terms[0]).backward()
    # a float32 output (a cast, say) has float32 accuracy even in a float64 run, and so do the gradients
    accuracy = "float32" if any(dtype_name(t.dtype) == "float32" for t in theirs_out) else dtype
    for i, (ours, expected) in enumerate(zip(ours_in, theirs["grads"])):
        if not isinstance(expected, str):  # "constant": an integer input, or no backward at all
            assert_matches(ours.grad, expected, accuracy, f"gradient of input {i} ({dtype})")


def check_gradcheck(fn: Callable, arrays: list) -> None:
    """``minigrad.autograd.gradcheck`` (finite differences) agrees with backward, in float64."""
    inputs = mg_inputs(arrays, "float64")
    if not any(isinstance(out, mg.Tensor) and out.requires_grad for out in outputs_of(fn(mg, *inputs))):
        return  # nothing differentiable comes out (argmax, comparisons)
    assert mg.autograd.gradcheck(lambda *xs: fn(mg, *xs), tuple(inputs)) is True


def _differentiable(tensors: list) -> list:
    return [t for t in tensors if isinstance(t, mg.Tensor) and t.requires_grad]


def check_gradgradcheck(fn: Callable, arrays: list, seed: int) -> None:
    """Finite differences of the first derivative agree with its own backward, in float64.

    The first derivative is ``v ↦ Σ vᵢ·∂outᵢ/∂inputs`` recorded with ``create_graph=True``; it is
    checked as a function of the inputs and of ``v`` (as PyTorch's gradgradcheck does).
    """
    inputs = mg_inputs(arrays, "float64")
    outputs = _differentiable(outputs_of(fn(mg, *inputs)))
    wrt = _differentiable(inputs)
    if not outputs or not wrt:
        return
    rng = numpy.random.default_rng(seed)
    vs = [mg.tensor(rng.standard_normal(tuple(out.shape)), requires_grad=True) for out in outputs]
    positions = [i for i, t in enumerate(inputs) if t.requires_grad]

    def first_derivative(*args: mg.Tensor) -> tuple:
        xs, v = list(inputs), args[len(positions):]
        for position, x in zip(positions, args):
            # gradcheck's finite differences pass plain copies: they must still be differentiable here
            xs[position] = x if x.requires_grad else x.detach().requires_grad_()
        with mg.enable_grad():
            outs = _differentiable(outputs_of(fn(mg, *xs)))
            grads = mg.autograd.grad(outs, [xs[p] for p in positions], list(v), create_graph=True,
                                     allow_unused=True)
        return tuple(g for g in grads if g is not None and g.requires_grad)

    if not first_derivative(*wrt, *vs):
        return  # the first derivative is a constant (floor, sign): nothing to differentiate
    assert mg.autograd.gradcheck(first_derivative, (*wrt, *vs)) is True


def second_derivative_weights(outputs: list, inputs: list, seed: int) -> tuple:
    """The seeded v (one per differentiable output) and w (one per differentiable input)."""
    rng = numpy.random.default_rng(seed + 1)
    vs = [rng.standard_normal(tuple(out.shape)) for out in outputs]
    ws = [rng.standard_normal(tuple(t.shape)) for t in inputs]
    return vs, ws


def _second_derivatives(lib: Any, fn: Callable, inputs: list, seed: int) -> list | None:
    """∂/∂inputs ⟨Σ vᵢ·∂outᵢ/∂inputs, w⟩ in ``lib`` (None where the first derivative is constant)."""
    outputs = [o for o in outputs_of(fn(lib, *inputs)) if o.requires_grad]
    wrt = [t for t in inputs if t.requires_grad]
    if not outputs or not wrt:
        return None
    vs, ws = second_derivative_weights(outputs, wrt, seed)
    firsts = lib.autograd.grad(outputs, wrt, [lib.tensor(v) for v in vs], create_graph=True,
                               allow_unused=True)
    terms = [(g * lib.tensor(w)).sum() for g, w in zip(firsts, ws) if g is not None and g.requires_grad]
    if not terms:
        return None
    seconds = lib.autograd.grad(sum(terms[1:], terms[0]), wrt, allow_unused=True)
    # "unused" and zero are the same derivative (libraries differ in which they return)
    return [lib.zeros_like(t) if s is None else s for s, t in zip(seconds, wrt)]


def check_second_order_against_torch(fn: Callable, arrays: list, seed: int) -> None:
    """Second derivatives (the gradient of a weighted first derivative) equal PyTorch's, in float64."""
    def compute(torch: Any) -> Any:
        return _second_derivatives(torch, fn, torch_inputs(arrays, "float64"), seed)

    theirs = reference(compute, inputs={"arrays": arrays, "seed": seed})
    ours = _second_derivatives(mg, fn, mg_inputs(arrays, "float64"), seed)
    if theirs is None or ours is None:
        # one side's first derivative is constant: the other's must be too (or vanish)
        for second in ours or theirs or []:
            values = to_numpy(second) if isinstance(second, mg.Tensor) else numpy.asarray(second)
            assert not numpy.any(values), "second derivative: one library has none, the other is nonzero"
        return
    assert len(ours) == len(theirs)
    # a float32 output (a cast) has float32 accuracy even in a float64 run, as in check_against_torch
    outputs = outputs_of(fn(mg, *mg_inputs(arrays, "float64")))
    accuracy = "float32" if any(dtype_name(out.dtype) == "float32" for out in outputs) else "float64"
    for i, (mine, expected) in enumerate(zip(ours, theirs)):
        assert_matches(mine, expected, accuracy, f"second derivative w.r.t. input {i}")


# --- the table ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable
    specs: tuple
    domain: str | tuple = "real"
    gradcheck: bool = True  # False where finite differences are meaningless (3-way ties)
    gradgradcheck: bool = True  # False where the first derivative jumps at the inputs (ties)
    torch_second_order: bool = True  # False where PyTorch cannot differentiate its own backward


def case(name: str, fn: Callable, *specs: Any, domain: str | tuple = "real", gradcheck: bool = True,
         gradgradcheck: bool = True, torch_second_order: bool = True) -> Any:
    """One table row: ``case("add", lambda m, a, b: a + b, (2, 3), (3,))``."""
    return pytest.param(Case(name, fn, specs, domain, gradcheck, gradgradcheck, torch_second_order), id=name)


def check_op(c: Case) -> None:
    """All of it: gradcheck (which needs no PyTorch), then PyTorch in float64 and float32."""
    seed = seed_of(c.name)
    arrays = make_inputs(c.specs, c.domain, seed)
    if c.gradcheck:
        check_gradcheck(c.fn, arrays)
    if c.gradcheck and c.gradgradcheck:
        check_gradgradcheck(c.fn, arrays, seed)
    for dtype in ("float64", "float32"):
        check_against_torch(c.fn, arrays, dtype, seed)
    if c.torch_second_order:
        check_second_order_against_torch(c.fn, arrays, seed)
