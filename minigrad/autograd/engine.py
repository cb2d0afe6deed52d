"""The backward engine: walk the graph from the outputs to the leaves, newest node first.

The walk is iterative (a heap of ready nodes, no recursion), so a chain of 100,000
operations is fine. A node runs once every node that feeds it a gradient has run;
gradients arriving at the same place are summed, and a gradient whose shape was
broadcast in the forward is summed back to the input's shape here, in one place.
"""

from __future__ import annotations

import heapq
from typing import Any, Sequence

from minigrad.autograd.function import AccumulateGrad, Node, _Anomaly
from minigrad.autograd.grad_mode import _GradMode
from minigrad.tensor import Tensor

__all__ = ["run_backward", "sum_to_shape"]


def sum_to_shape(grad: Tensor, shape: tuple, node: Node, index: int) -> Tensor:
    """Sum a broadcast gradient back to ``shape`` (the shape its input had)."""
    array = grad._array
    extra = array.ndim - len(shape)
    if extra < 0:
        raise _shape_error(grad, shape, node, index)
    axes = list(range(extra))
    for axis, size in enumerate(shape):
        if size == 1 and array.shape[extra + axis] != 1:
            axes.append(extra + axis)
        elif size != array.shape[extra + axis]:
            raise _shape_error(grad, shape, node, index)
    if axes:
        array = array.sum(axis=tuple(axes), keepdims=True)
    return Tensor(array.reshape(shape))


def _shape_error(grad: Tensor, shape: tuple, node: Node, index: int) -> RuntimeError:
    return RuntimeError(f"Function {node.name()} returned an invalid gradient at index {index} - got "
                        f"{list(grad.shape)} but expected shape compatible with {list(shape)}")


def _collect_dependencies(roots: Sequence[Node]) -> dict:
    """How many gradients each node will receive: one per edge into it."""
    dependencies: dict = {}
    seen = set(id(root) for root in roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            dependencies[child] = dependencies.get(child, 0) + 1
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return dependencies


def _zeros_for(meta: tuple) -> Tensor:
    from minigrad.backend import array_module_for

    shape, dtype, device = meta
    return Tensor(array_module_for(device).zeros(shape, dtype=dtype.numpy))


def _call_backward(node: Node, grads: list) -> tuple:
    """Run one node's backward on its output gradients; return one gradient per input."""
    if getattr(node, "materialize_grads", True):
        for index, grad in enumerate(grads):
            if grad is None and node._output_meta[index] is not None:
                grads[index] = _zeros_for(node._output_meta[index])
    result = node.apply(*grads)
    if not isinstance(result, tuple):
        result = (result,)
    expected = len(node.next_functions)
    if len(result) != expected:
        if len(result) > expected and all(g is None for g in result[expected:]):
            result = result[:expected]
        else:
            raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                               f"(expected {expected}, got {len(result)})")
    return result


def _check_gradient(node: Node, index: int, grad: Any) -> Tensor:
    """Validate the ``index``-th input gradient of ``node``: a Tensor of the input's shape and dtype."""
    if not isinstance(grad, Tensor):
        raise TypeError(f"function {node.name()} returned a gradient that is not a Tensor at index "
                        f"{index}: {type(grad).__name__}")
    shape, dtype, device = node._input_meta[index]
    if grad._array.shape != shape:
        grad = sum_to_shape(grad, shape, node, index)
    if grad._array.dtype != dtype.numpy:
        grad = Tensor(grad._array.astype(dtype.numpy))
    if _Anomaly.enabled:
        _check_nan(node, index, grad)
    return grad


def _check_nan(node: Node, index: int, grad: Tensor) -> None:
    xp_array = grad._array
    if bool((xp_array != xp_array).any()):
        where = ""
        if node._trace:
            where = "\nThe operation was created at (most recent call last):\n" + "".join(
                frame_line for frame_line in _format_trace(node._trace))
        raise RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.{where}")


def _format_trace(trace: list) -> list:
    import traceback

    frames = [frame for frame in trace if "/minigrad/" not in frame.filename.replace("\\", "/")] or trace
    return traceback.format_list(frames)


def run_backward(roots: Sequence[tuple], root_grads: Sequence[Tensor], retain_graph: bool,
                 capture: dict | None = None, accumulate: bool = True) -> None:
    """Propagate ``root_grads`` from the ``roots`` edges ``(node, output_nr)`` to the leaves.

    With ``capture`` (a dict keyed by edges), the gradient arriving at each captured edge is
    stored there; with ``accumulate=False`` no leaf's ``.grad`` is touched (``autograd.grad``).
    """
    buffers: dict = {}
    for (node, output_nr), grad in zip(roots, root_grads):
        _add_to_buffer(buffers, node, output_nr, grad)
    root_nodes = list({id(node): node for node, _ in roots}.values())
    dependencies = _collect_dependencies(root_nodes)
    ready = [(-node._sequence_nr, id(node), node) for node in root_nodes if node not in dependencies]
    heapq.heapify(ready)

    grad_enabled = _GradMode.enabled
    _GradMode.enabled = False
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            grads = buffers.pop(node)
            grads = _run_tensor_hooks(node, grads)
            if capture is not None:
                for index, grad in enumerate(grads):
                    if (node, index) in capture:
                        capture[(node, index)] = grad
            if isinstance(node, AccumulateGrad):
                if accumulate and grads[0] is not None:
                    node.accumulate(grads[0])
                continue
            input_grads = _call_backward(node, grads)
            for hook in getattr(node, "_post_hooks", ()):
                hook(input_grads, tuple(grads))
            if not retain_graph:
                node._release()
            for index, ((child, child_nr), grad) in enumerate(zip(node.next_functions, input_grads)):
                if child is None:
                    continue
                if grad is not None:
                    grad = _check_gradient(node, index, grad)
                    _add_to_buffer(buffers, child, child_nr, grad)
                dependencies[child] -= 1
                if dependencies[child] == 0:
                    if child in buffers:
                        heapq.heappush(ready, (-child._sequence_nr, id(child), child))
                    else:  # nothing reached it: neither its inputs
                        _skip(child, dependencies, buffers, ready)
    finally:
        _GradMode.enabled = grad_enabled


def _skip(node: Node, dependencies: dict, buffers: dict, ready: list) -> None:
    """A node that received no gradient at all passes none on (iteratively)."""
    stack = [node]
    while stack:
        current = stack.pop()
        for child, _ in current.next_functions:
            if child is None:
                continue
            dependencies[child] -= 1
            if dependencies[child] == 0:
                if child in buffers:
                    heapq.heappush(ready, (-child._sequence_nr, id(child), child))
                else:
                    stack.append(child)


def _add_to_buffer(buffers: dict, node: Node, output_nr: int, grad: Tensor) -> None:
    slots = buffers.get(node)
    if slots is None:
        count = len(node._output_meta) if hasattr(node, "_output_meta") else 1
        slots = buffers[node] = [None] * count
    if slots[output_nr] is None:
        slots[output_nr] = grad
    else:
        slots[output_nr] = Tensor(slots[output_nr]._array + grad._array)


def _run_tensor_hooks(node: Node, grads: list) -> list:
    """Hooks registered on non-leaf tensors, and ``retain_grad``, see their gradient here."""
    hooks = getattr(node, "_tensor_hooks", None)
    if hooks:
        for index, functions in hooks.items():
            for function in functions:
                if grads[index] is None:
                    break
                result = function(grads[index])
                if result is not None:
                    grads[index] = result
    retained = getattr(node, "_retained", None)
    if retained:
        for index, reference in retained.items():
            tensor = reference()
            if tensor is not None and grads[index] is not None:
                if tensor._grad is None:
                    tensor._grad = Tensor(grads[index]._array.copy())
                else:
                    tensor._grad = Tensor(tensor._grad._array + grads[index]._array)
    return grads
