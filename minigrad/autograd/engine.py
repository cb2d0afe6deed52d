"""The backward engine: walk the graph from the outputs to the leaves, newest node first.

The walk is iterative (a heap of ready nodes, no recursion), so a chain of 100,000
operations is fine. A node runs once every node that feeds it a gradient has run;
gradients arriving at the same place are summed, and a gradient whose shape was
broadcast in the forward is summed back to the input's shape here, in one place.

:class:`BackwardPass` does one node per :meth:`~BackwardPass.step`, so a teacher's
stepper can pause between nodes; :func:`run_backward` simply steps until the end.
docs/architecture.md shows the same walk first in twenty lines (a topological sort and a
reversed loop), which :func:`call_backward`, the one call into a node, serves too.
"""

from __future__ import annotations

import heapq
import itertools
import os
import traceback
from collections.abc import Sequence
from typing import Any

import numpy

from minigrad import backend
from minigrad import dtypes as _dtypes
from minigrad.autograd.function import (
    AccumulateGrad,
    Node,
    _Profiling,
    checked_hook_result,
    recorded_copy,
)
from minigrad.autograd.grad_mode import _GradMode, set_grad_enabled
from minigrad.ops._util import ieee_results
from minigrad.performance.layout import contiguous_copy
from minigrad.tensor import Tensor

__all__ = ["BackwardPass", "call_backward", "run_backward", "sum_to_shape"]


def sum_to_shape(grad: Tensor, shape: tuple, node: Any = None, index: int = 0) -> Tensor:
    """Sum a broadcast gradient back to ``shape`` (the shape its input had).

    A gradient that is itself recorded (``create_graph=True``) is summed by tensor operations,
    so that the sum is part of its graph.
    """
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
    if grad.requires_grad and _GradMode.enabled:
        summed = grad.sum(dim=tuple(axes), keepdim=True) if axes else grad
        return summed.reshape(shape)
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


def call_backward(node: Node, grads: list, create_graph: bool = False) -> tuple:
    """Run ``node``'s backward on the gradients of its outputs; return one gradient per edge in
    ``node.next_functions``: a Tensor of that input's shape and dtype, or None.

    The backward runs with inf and nan silent (as PyTorch's), and with grad mode on only for
    ``create_graph``: backwards are written in tensor operations, which then record a graph of
    the backward itself (gradients of gradients). An output that received no gradient gets
    zeros (None after ``ctx.set_materialize_grads(False)``).
    """
    with ieee_results():
        return _run_node(node, grads, create_graph)


def _run_node(node: Node, grads: list, create_graph: bool) -> tuple:
    """:func:`call_backward` inside a pass, which has already made inf and nan silent."""
    grad_enabled = _GradMode.enabled
    _GradMode.enabled = create_graph
    try:
        if node.materialize_grads:
            _fill_missing(node, grads)
        return _one_per_edge(node, node.apply(*grads))
    finally:
        _GradMode.enabled = grad_enabled


def _one_per_edge(node: Node, result: Any) -> tuple:
    """What ``backward`` returned (one gradient per forward argument) as one checked gradient per edge."""
    if not isinstance(result, tuple):
        result = (result,)
    expected = node._num_inputs
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
            grad = _check_gradient(node, index, grad)
        checked.append(grad)
    return tuple(checked)


def _check_gradient(node: Node, index: int, grad: Any) -> Tensor:
    """The ``index``-th input gradient of ``node`` as a Tensor of that input's shape and dtype."""
    if not isinstance(grad, Tensor):
        raise RuntimeError(f"function {node.name()} returned a gradient that is not a Tensor at index "
                           f"{index}: {type(grad).__name__}")
    shape, dtype, _ = node._input_meta[index]
    if grad._array.shape != shape:
        grad = sum_to_shape(grad, shape, node, index)
    if grad._array.dtype != dtype:
        recorded = grad.requires_grad
        grad = grad.to(_dtypes.from_numpy_dtype(dtype)) if recorded else Tensor(grad._array.astype(dtype))
    if _GradMode.anomaly:
        _check_nan(node, index, grad)
    return grad


def _fill_missing(node: Node, grads: list) -> None:
    """Zeros for the outputs that received no gradient, so that ``backward`` gets a Tensor for each
    (``ctx.set_materialize_grads(False)`` leaves None instead)."""
    for index, grad in enumerate(grads):
        if grad is None and node._output_meta[index] is not None:
            grads[index] = _zeros_for(node._output_meta[index])


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
    stored there; with ``accumulate=False`` no leaf's ``.grad`` is touched. With
    ``create_graph`` the backward computation is itself recorded (see :func:`call_backward`).
    """

    def __init__(self, roots: Sequence[tuple], root_grads: Sequence[Tensor], retain_graph: bool = False,
                 capture: dict | None = None, accumulate: bool = True, create_graph: bool = False):
        self.retain_graph = retain_graph
        self.create_graph = create_graph
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
        # Roots start on the stack: one that also lies below another root must not be walked twice.
        root_set = set(roots) if len(roots) > 1 else ()
        stack = list(roots)
        while stack:
            node = stack.pop()
            for child, _ in node.next_functions:
                if child is None:
                    continue
                count = dependencies.get(child)
                if count is None:
                    dependencies[child] = 1
                    if child not in root_set:
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
        """Run the next node's backward; return ``(node, output_grads, input_grads)``.

        A leaf's node adds its gradient to ``leaf.grad``; any other node runs its backward
        and sends one gradient along each edge to its inputs.
        """
        self._user_settings = numpy.geterr()
        with ieee_results():
            return self._step()

    def run(self) -> None:
        self._user_settings = numpy.geterr()
        with ieee_results():
            while self.ready:
                self._step()

    # The steps, in the order ``_step`` takes them. inf and nan in gradients come silently, as in
    # PyTorch (NumPy would warn): ``ieee_results`` is set once around the pass (every backward
    # included, so an op's backward needs none of its own), while the user's hooks run with the
    # NumPy settings the user had (``_as_user``).

    def _step(self) -> tuple:
        profiler = _Profiling.recorder
        event = None if profiler is None else profiler.begin()
        node = self._pop_ready()
        grads = self._gather(node)
        if isinstance(node, AccumulateGrad):
            self._accumulate(node, grads[0])
            input_grads: tuple = ()
        else:
            input_grads = _run_node(node, grads, self.create_graph)
            self._run_post_hooks(node, input_grads, grads)
            if not self.retain_graph:
                node._release()  # its saved tensors are not needed again
            self._send(node, input_grads)
        if event is not None:
            profiler.end(event, node.name(), grads)
        return node, grads, input_grads

    def _pop_ready(self) -> Node:
        """The newest node whose gradients have all arrived."""
        return heapq.heappop(self.ready)[2]

    def _gather(self, node: Node) -> list:
        """The gradient of each of ``node``'s outputs, after the hooks, as ``grad()`` captures it."""
        grads = self.buffers.pop(node)
        if node._tensor_hooks or node._retained:
            grads = self._run_tensor_hooks(node, grads)
        if isinstance(node, AccumulateGrad) and grads[0] is not None and node.variable._hooks:
            with self._as_user():
                grads[0] = node.run_hooks(grads[0])  # before grad() captures it, as in PyTorch
        if self.capture is not None:
            for index, grad in enumerate(grads):
                if (node, index) in self.capture:
                    self.capture[(node, index)] = grad
        return grads

    def _accumulate(self, node: AccumulateGrad, grad: Tensor | None) -> None:
        """A leaf's gradient is added to its ``.grad`` (unless this pass only captures)."""
        if self.accumulate and grad is not None:
            node.accumulate(grad, self.create_graph)

    def _run_post_hooks(self, node: Node, input_grads: tuple, grads: list) -> None:
        """``node.register_hook(fn)``: ``fn(grad_inputs, grad_outputs)``, for inspection."""
        if node._post_hooks:
            with self._as_user():
                for hook in node._post_hooks:
                    hook(input_grads, tuple(grads))

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

    # What the steps use.

    def _add_to_buffer(self, node: Node, output_nr: int, grad: Tensor) -> None:
        slots = self.buffers.get(node)
        if slots is None:
            slots = self.buffers[node] = [None] * len(node._output_meta)
        if slots[output_nr] is None:
            slots[output_nr] = grad
        elif self.create_graph:  # a tensor used twice in the forward: its two gradients are summed
            with set_grad_enabled(True):
                slots[output_nr] = slots[output_nr] + grad
        else:
            slots[output_nr] = Tensor(slots[output_nr]._array + grad._array)

    def _as_user(self) -> Any:
        """A ``with`` block in which the user's code (hooks) sees the user's own NumPy settings."""
        return numpy.errstate(**self._user_settings)

    def _run_tensor_hooks(self, node: Node, grads: list) -> list:
        """Hooks registered on non-leaf tensors, and ``retain_grad``, see their gradient here."""
        hooks = node._tensor_hooks
        if hooks:
            with self._as_user():
                self._run_hooks_of(hooks, grads)
        retained = node._retained
        if retained:
            for index, reference in retained.items():
                tensor = reference()
                if tensor is not None and grads[index] is not None:
                    with set_grad_enabled(self.create_graph):
                        tensor._grad = _retained_sum(tensor._grad, grads[index], self.create_graph)
        return grads

    @staticmethod
    def _run_hooks_of(hooks: dict, grads: list) -> None:
        """Each output's hooks in turn; a hook may replace the gradient the next one sees."""
        for index, functions in hooks.items():
            for function in functions:
                if grads[index] is None:
                    break
                result = function(grads[index])
                if result is not None:
                    grads[index] = checked_hook_result(function, grads[index], result)


def _retained_sum(held: Tensor | None, grad: Tensor, create_graph: bool) -> Tensor:
    """A retained (or leaf) gradient after ``grad`` arrives: a copy of the first, then the sum.

    With ``create_graph`` both steps are recorded tensor operations, as PyTorch's ``.grad`` then
    has a history (``CloneBackward0``, ``AddBackward0``) and can be differentiated.
    """
    if create_graph:
        return recorded_copy(grad) if held is None else held + grad
    if held is None:
        return Tensor(contiguous_copy(grad._array))
    return Tensor(held._array + grad._array)


def run_backward(roots: Sequence[tuple], root_grads: Sequence[Tensor], retain_graph: bool,
                 capture: dict | None = None, accumulate: bool = True, create_graph: bool = False) -> None:
    """Propagate ``root_grads`` from the ``roots`` to the leaves in one go."""
    BackwardPass(roots, root_grads, retain_graph, capture, accumulate, create_graph).run()
