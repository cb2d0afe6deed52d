"""``torch.autograd.functional``'s first-order helpers: ``vjp`` and ``jacobian``.

Both take a function of tensors and run it on fresh leaves (the inputs detached, made to
require grad), so what they return never joins the caller's graph:

- ``vjp(f, x, v)`` is ``(f(x), vᵀ ∂f/∂x)``: one backward pass, ``v`` the gradient of ``f(x)``;
- ``jacobian(f, x)`` is ∂f/∂x of shape ``f(x).shape + x.shape``: one backward pass per
  element of ``f(x)`` (reverse mode), each with a one-hot gradient — the rows of the Jacobian.

Return structures are PyTorch's: a Tensor where the user gave a Tensor, a tuple where a
tuple, and for ``jacobian`` with several outputs and several inputs a tuple (per output) of
tuples (per input).

The helpers that need gradients of gradients or forward-mode AD — ``jvp``, ``hessian``,
``hvp``, ``vhp`` and ``create_graph=True`` — wait for higher-order gradients (``create_graph``
in the engine); until then they raise ``NotImplementedError`` (see docs/compatibility.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.autograd.api import grad
from minigrad.autograd.grad_mode import enable_grad, no_grad
from minigrad.tensor import Tensor

__all__ = ["vjp", "jacobian", "jvp", "hessian", "hvp", "vhp"]

_STRATEGIES = ("forward-mode", "reverse-mode")


def _higher_order(feature: str) -> NotImplementedError:
    return NotImplementedError(f"{feature} needs higher-order gradients (create_graph=True), which minigrad "
                               f"does not support yet; see docs/compatibility.md")


def _as_tuple(values: Any, what: str, function: str) -> tuple[bool, tuple]:
    """``(was_tuple, values as a tuple)``, every value a Tensor (PyTorch's TypeError otherwise)."""
    is_tuple = isinstance(values, (tuple, list))
    values = tuple(values) if is_tuple else (values,)
    for index, value in enumerate(values):
        if not isinstance(value, Tensor):
            raise TypeError(f"The {what} given to {function} must be either a Tensor or a tuple of Tensors "
                            f"but the value at index {index} has type {type(value)}.")
    return is_tuple, values


def _fresh_leaves(inputs: tuple) -> tuple:
    """The inputs as new leaves that require grad: the function's graph starts here."""
    return tuple(x.detach().requires_grad_() for x in inputs)


def _run(func: Callable, inputs: tuple, was_tuple: bool, function: str) -> tuple[bool, tuple]:
    with enable_grad():
        outputs = func(*inputs) if was_tuple else func(inputs[0])
    return _as_tuple(outputs, "outputs of the user-provided function", function)


def _gradients(output: Tensor, gradient: Tensor, inputs: tuple, strict: bool, independent: Callable) -> list:
    """d⟨output, gradient⟩/d input for each input; zeros where the output does not depend on it."""
    grads = (None,) * len(inputs)
    if output.requires_grad:
        grads = grad(output, inputs, gradient, retain_graph=True, allow_unused=True)
    result = []
    for index, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(independent(index))
            g = x.new_zeros(x.shape)
        result.append(g)
    return result


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), vᵀ J)``: the vector-Jacobian product, the gradient ``backward(v)`` would give.

    ``v`` has the structure and shapes of ``func``'s outputs; it may be left out when the output is
    a single one-element tensor. ``strict=True`` makes an input the output does not depend on an
    error instead of a zero gradient.
    """
    if create_graph:
        raise _higher_order("vjp(create_graph=True)")
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    inputs = _fresh_leaves(inputs)
    outputs_tuple, outputs = _run(func, inputs, inputs_tuple, "vjp")
    if v is None:
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                               "Tensor with a single element.")
        vectors = (outputs[0].new_ones(outputs[0].shape),)
    else:
        _, vectors = _as_tuple(v, "v", "vjp")
        _check_vectors(vectors, outputs)
    totals = [x.new_zeros(x.shape) for x in inputs]
    for index, (out, vector) in enumerate(zip(outputs, vectors)):
        if strict and not out.requires_grad:
            raise RuntimeError(f"The output of the user-provided function is independent of input 0. This is "
                               f"not allowed in strict mode (output {index} does not require grad).")
        grads = _gradients(out, vector, inputs, strict, lambda i: (
            f"The output of the user-provided function is independent of input {i}. This is not allowed in "
            f"strict mode."))
        with no_grad():
            totals = [total + g for total, g in zip(totals, grads)]
    detached = tuple(out.detach() for out in outputs)
    return (detached if outputs_tuple else detached[0]), (tuple(totals) if inputs_tuple else totals[0])


def _check_vectors(vectors: tuple, outputs: tuple) -> None:
    if len(vectors) != len(outputs):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(outputs)} but got "
                           f"{len(vectors)}.")
    for index, (vector, out) in enumerate(zip(vectors, outputs)):
        if vector.shape != out.shape:
            raise RuntimeError(f"Entry {index} in v has invalid size: should be {list(out.shape)} but got "
                               f"{list(vector.shape)} (the shape of output {index}).")


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """∂ func(inputs) / ∂ inputs: for one output and one input a Tensor of shape
    ``output.shape + input.shape``; a tuple per input and/or per output where those are tuples.

    Computed in reverse mode, one backward pass per output element (``vectorize`` is accepted
    and gives the same result; forward mode needs forward AD, which minigrad lacks).
    """
    if strategy not in _STRATEGIES:  # PyTorch checks with an assert: the same exception type here
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                         'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                         'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if not vectorize:
            raise ValueError("torch.autograd.functional.jacobian: `strategy=\"forward-mode\"` is only "
                             "implemented for `vectorize=True`.")
        raise NotImplementedError("jacobian(strategy='forward-mode') needs forward-mode AD, which minigrad "
                                  "does not have; use strategy='reverse-mode' (see docs/compatibility.md)")
    if create_graph:
        raise _higher_order("jacobian(create_graph=True)")
    if strict and vectorize:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorize=True` are not "
                           "supported together. Please either set `strict=False` or `vectorize=False`.")
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    inputs = _fresh_leaves(inputs)
    outputs_tuple, outputs = _run(func, inputs, inputs_tuple, "jacobian")
    per_output = []
    for out_index, out in enumerate(outputs):
        blocks = _jacobian_blocks(out, inputs, strict, out_index)
        per_output.append(tuple(blocks) if inputs_tuple else blocks[0])
    return tuple(per_output) if outputs_tuple else per_output[0]


def _jacobian_blocks(out: Tensor, inputs: tuple, strict: bool, out_index: int) -> list:
    """∂out/∂x for each input x, built row by row: row k is the gradient of out's k-th element."""
    if out.numel() == 0 or not out.requires_grad:
        if strict and out.numel():
            raise RuntimeError(f"Output {out_index} of the user-provided function does not require "
                               f"gradients. The outputs must be computed in a differentiable manner from the "
                               f"input when running in strict mode.")
        return [x.new_zeros(tuple(out.shape) + tuple(x.shape)) for x in inputs]
    from minigrad.creation import eye  # noqa: PLC0415 (creation imports autograd)
    from minigrad.ops.shape import stack  # noqa: PLC0415

    basis = eye(out.numel(), dtype=out.dtype, device=out.device)  # row k: the one-hot gradient of element k
    rows: list[list] = [[] for _ in inputs]
    for k in range(out.numel()):  # one backward pass per output element: a row of every block
        grads = _gradients(out, basis[k].reshape(out.shape), inputs, strict, lambda i: (
            f"Output {out_index} of the user-provided function is independent of input {i}. This is not "
            f"allowed in strict mode."))
        for block, g in zip(rows, grads):
            block.append(g.reshape(-1))
    with no_grad():
        return [stack(block).reshape(tuple(out.shape) + tuple(x.shape)) for block, x in zip(rows, inputs)]


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """The Jacobian-vector product J v (PyTorch computes it with a double backward)."""
    raise _higher_order("jvp")


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The matrix of second derivatives of a scalar function."""
    raise _higher_order("hessian")


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """The Hessian-vector product H v of a scalar function."""
    raise _higher_order("hvp")


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """The vector-Hessian product vᵀ H of a scalar function."""
    raise _higher_order("vhp")
