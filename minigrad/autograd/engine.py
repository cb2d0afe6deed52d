"""The backward engine: walk the graph from the outputs to the leaves, newest node first.

The walk is iterative (a heap of ready nodes, no recursion), so a chain of 100,000
operations is fine. A node runs once every node that feeds it a gradient has run;
gradients arriving at the same place are summed, and a gradient whose shape was
broadcast in the forward is summed back to the input's shape here, in one place.

:class:`BackwardPass` does one node per :meth:`~BackwardPass.step`, so a teacher's
stepper can pause between nodes; :func:`run_backward` simply steps until the end.
"""

from __future__ import annotations

import heapq
import itertools
import os
import traceback
from collections.abc import Sequence
from typing import Any

from minigrad import backend
from minigrad._layout import contiguous_copy, short_run_ufuncs
from minigrad.autograd.function import AccumulateGrad, Node, _Anomaly, _Profiling, checked_hook_result
from minigrad.autograd.grad_mode import _GradMode
from minigrad.ops._util import ieee_results
from minigrad.tensor import Tensor

__all__ = ["BackwardPass", "run_backward", "sum_to_shape"]


def sum_to_shape(grad: Tensor, shape: tuple, node: Any = None, index: int = 0) -> Tensor:
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


def _shape_error(grad: Tensor, shape: tuple, node: Any, index: int) -> RuntimeError:
    name = node.name() if node is not None else "a backward function"
    return RuntimeError(f"Function {name} returned an invalid gradient at index {index} - got "
                        f"{list(grad.shape)} but expected shape compatible with {list(shape)}")


def _zeros_for(meta: tuple) -> Tensor:
    shape, dtype, array_type = meta
    return Tensor(backend.array_module_for_type(array_type).zeros(shape, dtype=dtype))


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _in_minigrad(filename: str) -> bool:
    """A frame of minigrad's own code (not a user's file that merely sits in a folder called minigrad)."""
    return os.path.abspath(filename).startswith(_PACKAGE_DIR)


def _check_nan(node: Node, index: int, grad: Tensor) -> None:
    array = grad._array
    if bool((array != array).any()):
        where = ""
        if node._trace:
            frames = [f for f in node._trace if not _in_minigrad(f.filename)] or node._trace
            where = ("\nThe operation was created at (most recent call last):\n"
                     + "".join(traceback.format_list(frames)))
        raise RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.{where}")


def _check_no_gradient_outside(node: Node, result: tuple, positions: tuple) -> None:
    """A forward argument that is not an input of the graph (an int, a class index) gets None."""
    for position, grad in enumerate(result):
        if grad is not None and position not in positions:
            raise RuntimeError(f"function {node.name()} returned a gradient different than None at position "
                               f"{position + 1}, but the corresponding forward input was not a Variable")


class BackwardPass:
    """One backward pass over a graph, advanced one node at a time by :meth:`step`.

    ``roots`` are edges ``(node, output_nr)`` with their gradients ``root_grads``. With
    ``capture`` (a dict keyed by edges), the gradient arriving at each captured edge is
    stored there; with ``accumulate=False`` no leaf's ``.grad`` is touched.
    """

    def __init__(self, roots: Sequence[tuple], root_grads: Sequence[Tensor], retain_graph: bool = False,
                 capture: dict | None = None, accumulate: bool = True):
        self.retain_graph = retain_graph
        self.capture = capture
        self.accumulate = accumulate
        self.buffers: dict = {}
        for (node, output_nr), grad in zip(roots, root_grads):
            self._add_to_buffer(node, output_nr, grad)
        root_nodes = list({id(node): node for node, _ in roots}.values())
        self.dependencies = self._count_dependencies(root_nodes)
        self._pushes = itertools.count()  # ties (leaves) in the order they became ready
        self.ready = [(-node._sequence_nr, next(self._pushes), node) for node in root_nodes
                      if node not in self.dependencies]
        heapq.heapify(self.ready)

    @staticmethod
    def _count_dependencies(roots: list) -> dict:
        """How many gradients each node will receive: one per edge into it."""
        dependencies: dict = {}
        stack = list(roots)
        while stack:
            node = stack.pop()
            for child, _ in node.next_functions:
                if child is None:
                    continue
                count = dependencies.get(child)
                if count is None:
                    dependencies[child] = 1
                    stack.append(child)  # first time seen: walk its inputs too
                else:
                    dependencies[child] = count + 1
        return dependencies

    @property
    def done(self) -> bool:
        return not self.ready

    def peek(self) -> Node | None:
        """The node the next :meth:`step` will run."""
        return self.ready[0][2] if self.ready else None

    def step(self) -> tuple:
        """Run the next node's backward; return ``(node, output_grads, input_grads)``."""
        profiler = _Profiling.recorder
        if profiler is None:
            return self._step()
        event = profiler.begin()
        node, grads, input_grads = self._step()
        profiler.end(event, node.name(), grads)
        return node, grads, input_grads

    def _step(self) -> tuple:
        _, _, node = heapq.heappop(self.ready)
        grads = self.buffers.pop(node)
        if node._tensor_hooks or node._retained:
            grads = self._run_tensor_hooks(node, grads)
        if isinstance(node, AccumulateGrad) and grads[0] is not None:
            grads[0] = node.run_hooks(grads[0])  # before grad() captures it, as in PyTorch
        if self.capture is not None:
            for index, grad in enumerate(grads):
                if (node, index) in self.capture:
                    self.capture[(node, index)] = grad
        if isinstance(node, AccumulateGrad):
            if self.accumulate and grads[0] is not None:
                node.accumulate(grads[0])
            return node, grads, ()

        grad_enabled = _GradMode.enabled
        _GradMode.enabled = False
        try:
            input_grads = self._call_backward(node, grads)
        finally:
            _GradMode.enabled = grad_enabled
        if node._post_hooks:
            for hook in node._post_hooks:
                hook(input_grads, tuple(grads))
        if not self.retain_graph:
            node._release()
        self._send(node, input_grads)
        return node, grads, input_grads

    def run(self) -> None:
        # inf and nan in gradients come silently, as in PyTorch (NumPy would warn); strided views'
        # ufuncs (col2im's adds, pooling's and ReLU's gradients) run unbuffered (see _layout.py).
        with ieee_results(), short_run_ufuncs():
            while self.ready:
                self.step()

    def _call_backward(self, node: Node, grads: list) -> tuple:
        """Run one node's backward on its output gradients; return one checked gradient per input."""
        if node.materialize_grads:
            for index, grad in enumerate(grads):
                if grad is None and node._output_meta[index] is not None:
                    grads[index] = _zeros_for(node._output_meta[index])
        result = node.apply(*grads)
        if not isinstance(result, tuple):
            result = (result,)
        expected = node._num_inputs  # backward returns one gradient per forward argument
        if len(result) != expected:
            if len(result) > expected and all(g is None for g in result[expected:]):
                result = result[:expected]
            else:
                raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                                   f"(expected {expected}, got {len(result)})")
        positions = node._grad_positions
        if len(positions) != len(result):
            _check_no_gradient_outside(node, result, positions)
        checked = []
        for index, position in enumerate(positions):
            grad = result[position]
            if grad is not None and node._input_meta[index] is not None:
                grad = self._check_gradient(node, index, grad)
            checked.append(grad)
        return tuple(checked)

    @staticmethod
    def _check_gradient(node: Node, index: int, grad: Any) -> Tensor:
        """The ``index``-th input gradient of ``node`` as a Tensor of that input's shape and dtype."""
        if not isinstance(grad, Tensor):
            raise RuntimeError(f"function {node.name()} returned a gradient that is not a Tensor at index "
                            f"{index}: {type(grad).__name__}")
        shape, dtype, _ = node._input_meta[index]
        if grad._array.shape != shape:
            grad = sum_to_shape(grad, shape, node, index)
        if grad._array.dtype != dtype:
            grad = Tensor(grad._array.astype(dtype))
        if _Anomaly.enabled:
            _check_nan(node, index, grad)
        return grad

    def _send(self, node: Node, input_grads: tuple) -> None:
        """Pass each input gradient along its edge; a node whose last gradient arrived becomes ready."""
        dependencies = self.dependencies
        for (child, child_nr), grad in zip(node.next_functions, input_grads):
            if child is None:
                continue
            if grad is not None:
                self._add_to_buffer(child, child_nr, grad)
            remaining = dependencies[child] - 1
            dependencies[child] = remaining
            if remaining == 0:
                if child in self.buffers:
                    heapq.heappush(self.ready, (-child._sequence_nr, next(self._pushes), child))
                else:  # no gradient reached it at all: it passes none on
                    self._send(child, (None,) * len(child.next_functions))

    def _add_to_buffer(self, node: Node, output_nr: int, grad: Tensor) -> None:
        slots = self.buffers.get(node)
        if slots is None:
            slots = self.buffers[node] = [None] * len(node._output_meta)
        if slots[output_nr] is None:
            slots[output_nr] = grad
        else:
            slots[output_nr] = Tensor(slots[output_nr]._array + grad._array)

    @staticmethod
    def _run_tensor_hooks(node: Node, grads: list) -> list:
        """Hooks registered on non-leaf tensors, and ``retain_grad``, see their gradient here."""
        hooks = node._tensor_hooks
        if hooks:
            for index, functions in hooks.items():
                for function in functions:
                    if grads[index] is None:
                        break
                    result = function(grads[index])
                    if result is not None:
                        grads[index] = checked_hook_result(function, grads[index], result)
        retained = node._retained
        if retained:
            for index, reference in retained.items():
                tensor = reference()
                if tensor is not None and grads[index] is not None:
                    if tensor._grad is None:
                        tensor._grad = Tensor(contiguous_copy(grads[index]._array))
                    else:
                        tensor._grad = Tensor(tensor._grad._array + grads[index]._array)
        return grads


def run_backward(roots: Sequence[tuple], root_grads: Sequence[Tensor], retain_graph: bool,
                 capture: dict | None = None, accumulate: bool = True) -> None:
    """Propagate ``root_grads`` from the ``roots`` to the leaves in one go."""
    BackwardPass(roots, root_grads, retain_graph, capture, accumulate).run()
