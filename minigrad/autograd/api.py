"""``backward`` and ``grad``: the two ways to start the engine."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minigrad.autograd.engine import run_backward
from minigrad.autograd.function import accumulate_grad
from minigrad.backend import get_array_module
from minigrad.tensor import Tensor


def _as_list(values: Any) -> list:
    if values is None:
        return []
    if isinstance(values, Tensor):
        return [values]
    return list(values)


def _root_gradients(outputs: list, grad_outputs: list) -> list:
    """One gradient per output: given, or ones for a one-element output."""
    if grad_outputs and len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad requires one gradient per output: got {len(grad_outputs)} gradients "
                           f"for {len(outputs)} outputs")
    grads = []
    for index, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not have "
                               "a grad_fn")
        grad = grad_outputs[index] if grad_outputs else None
        if grad is None:
            if out.numel() != 1:
                raise RuntimeError(f"grad can be implicitly created only for scalar outputs (the output has "
                                   f"shape {list(out.shape)}; pass a gradient of that shape)")
            grad = Tensor(get_array_module(out).ones_like(out.array))  # dout/dout = 1
        elif not isinstance(grad, Tensor):
            raise TypeError(f"gradients must be Tensors, got {type(grad).__name__}")
        elif grad.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{index}] has a shape of {list(grad.shape)} "
                               f"and output[{index}] has a shape of {list(out.shape)}.")
        elif grad.device != out.device:
            raise RuntimeError(f"grad_output[{index}] is on {grad.device} but output[{index}] "
                               f"is on {out.device}")
        if grad.dtype is not out.dtype:
            grad = grad.to(out.dtype)
        grads.append(grad)
    return grads


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate into the leaves' ``.grad`` the gradient of ``tensors`` (weighted by ``grad_tensors``).

    ``create_graph=True`` records the backward pass itself, so that the gradients (``x.grad``)
    can be differentiated again; ``retain_graph`` then defaults to True, as in PyTorch.
    """
    if retain_graph is None:
        retain_graph = create_graph
    outputs = _as_list(tensors)
    grads = _root_gradients(outputs, _as_list(grad_tensors))
    roots = [out._gradient_edge() for out in outputs]
    if inputs is None:
        run_backward(roots, grads, retain_graph, create_graph=create_graph)
        return
    targets = _as_list(inputs)
    if not targets:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    captured = run_backward_capturing(roots, grads, retain_graph, targets, create_graph)
    for target, grad in zip(targets, captured):
        if grad is not None:
            accumulate_grad(target, grad, create_graph)


def run_backward_capturing(roots: list, grads: list, retain_graph: bool, targets: Sequence[Tensor],
                           create_graph: bool = False) -> list:
    """Run backward and return the gradient that reached each of ``targets`` (None if none did)."""
    edges = []
    for target in targets:
        if not isinstance(target, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(target).__name__}")
        if not target.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        edges.append(target._gradient_edge())
    capture = {edge: None for edge in edges}
    run_backward(roots, grads, retain_graph, capture=capture, accumulate=False, create_graph=create_graph)
    return [capture[edge] for edge in edges]


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """The gradients of ``outputs`` w.r.t. ``inputs``, returned (no ``.grad`` is touched).

    An input that ``outputs`` do not depend on is an error, unless ``allow_unused=True`` (its
    gradient is then None) or ``materialize_grads=True`` (then zeros of its shape).
    ``create_graph=True`` records the computation of the gradients, so that they can be
    differentiated again (to any order); ``retain_graph`` then defaults to True.
    """
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True (a vmap over grad_outputs) is not supported by "
                                  "minigrad")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_list(outputs)
    targets = _as_list(inputs)
    if not targets:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _root_gradients(outputs, _as_list(grad_outputs))
    roots = [out._gradient_edge() for out in outputs]
    results = run_backward_capturing(roots, grads, retain_graph, targets, create_graph)
    for index, result in enumerate(results):
        if result is None and not allow_unused:
            raise RuntimeError(f"One of the differentiated Tensors (input {index}) appears to not have been "
                               "used in the graph. Set allow_unused=True if this is the desired behavior.")
    if materialize_grads:
        from minigrad.creation import zeros_like  # noqa: PLC0415

        results = [zeros_like(target) if result is None else result
                   for target, result in zip(targets, results)]
    return tuple(results)
