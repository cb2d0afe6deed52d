"""Walk through a backward pass one node at a time, and look at (or change) every gradient.

    stepper = BackwardStepper(loss, params=dict(model.named_parameters()))
    step = stepper.step()          # runs the first node (the loss's grad_fn)
    step.name, step.grad_output    # 'MeanBackward0', the δ it received
    step.grad_inputs               # what it sent to each of its inputs
    stepper.run_until("Convolution")    # stop *before* the next conv node runs
    stepper.set_gradient(stepper.pending_gradient() * 0)   # change the δ it is about to receive
    stepper.run()                  # the rest; the leaves' .grad now hold the result
    print(stepper)                 # one line per step: name, shapes, signed δ (sums shown)

Each node's backward runs when the stepper reaches it (on top of the engine's
:class:`~minigrad.autograd.engine.BackwardPass`), so a gradient changed between two
steps flows into every later step. Without changes, the leaves end with exactly the
``.grad`` that ``loss.backward()`` would give them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from minigrad import backend
from minigrad.autograd.api import _root_gradients
from minigrad.autograd.engine import BackwardPass
from minigrad.autograd.function import AccumulateGrad, Node
from minigrad.tensor import Tensor

__all__ = ["BackwardStepper", "BackwardStep"]


def _shape_text(shape: tuple | None) -> str:
    return "-" if shape is None else "[" + ", ".join(str(s) for s in shape) + "]"


SMALL = 8
"""Tensors with at most this many elements are shown value by value; larger ones as a summary."""


def _number(value: float) -> str:
    return f"{value:.4g}"


def _nested(values: Any) -> str:
    """A NumPy array of any rank as nested brackets of signed numbers: ``[[1, -2], [3, 4]]``."""
    if values.ndim == 0:
        return _number(float(values))
    return "[" + ", ".join(_nested(row) for row in values) + "]"


def _norm(grad: Tensor) -> float:
    """‖grad‖₂ as a Python float."""
    array = grad.array
    xp = backend.get_array_module(array)
    return float(xp.sqrt((array.astype(xp.float64) ** 2).sum()).item())


def value_text(grad: Tensor | None) -> str:
    """A gradient as text: its signed values when it has at most :data:`SMALL` elements
    (``-1.573``, ``[0.5, -2]``), else its shape, norm and range
    (``[64, 10] ‖·‖=2.31 min=-0.5 max=0.7``); ``-`` for a missing gradient."""
    if grad is None:
        return "-"
    array = grad.array
    if array.size <= SMALL:
        return _nested(backend.to_host(array).astype("float64"))
    xp = backend.get_array_module(array)
    low, high = (float(v.item()) for v in (xp.min(array), xp.max(array)))  # one sync each, for display
    return (f"{_shape_text(tuple(array.shape))} ‖·‖={_number(_norm(grad))} "
            f"min={_number(low)} max={_number(high)}")


SET_BY_HAND = "set_gradient"
"""The source named for a δ that :meth:`BackwardStepper.set_gradient` put in place."""


def sum_text(parts: list, total: Tensor | None) -> str:
    """``total`` as text, preceded by the parts it is the sum of when there are several
    (``-0.5 from MulBackward0 + -0.2864 from AddBackward0 = -0.7864``) or when one was
    replaced by :meth:`BackwardStepper.set_gradient`."""
    if len(parts) < 2 and not any(source == SET_BY_HAND for source, _ in parts):
        return value_text(total)
    terms = " + ".join(f"{value_text(grad)} from {source}" for source, grad in parts)
    return f"{terms} = {value_text(total)}"


@dataclass(eq=False)
class BackwardStep:
    """What one node did in the backward pass (made by :meth:`BackwardStepper.step`).

    Attributes:
        index: the step's number, from 0.
        node: the autograd node that ran.
        name: its name, PyTorch's (``MulBackward0``).
        input_shapes: the shape of each of the node's inputs (None where an input is not a
            float tensor).
        output_shapes: the shape of each of its outputs.
        grad_outputs: the δ that arrived at each output: the sum over all its consumers.
        grad_inputs: what its backward sent to each input (None where an input needs no
            gradient).
        variable: for a leaf (an ``AccumulateGrad`` node), the leaf tensor; else None.
        variable_name: the leaf's name from ``params``, if any.
        grad: for a leaf, a copy of its ``.grad`` after this step.
        arrivals: for each output, the terms of its δ as ``(source, gradient)`` pairs, the
            source being the consumer's label (``'set_gradient'`` for a δ replaced by hand).
    """

    index: int
    node: Node
    name: str
    input_shapes: tuple
    output_shapes: tuple
    grad_outputs: tuple
    grad_inputs: tuple
    variable: Tensor | None = None
    variable_name: str | None = None
    grad: Tensor | None = None
    arrivals: tuple = ()

    @property
    def grad_output(self) -> Tensor | None:
        """The δ of the (first) output: ``grad_outputs[0]``."""
        return self.grad_outputs[0]

    @property
    def output_shape(self) -> tuple | None:
        return self.output_shapes[0]

    @property
    def is_leaf(self) -> bool:
        return self.variable is not None

    @property
    def label(self) -> str:
        """The node's name, with the parameter's name for a leaf: ``AccumulateGrad (fc1.weight)``."""
        return f"{self.name} ({self.variable_name})" if self.variable_name else self.name

    def received_text(self) -> str:
        """The δ of each output, as the sum of its arrivals when there were several."""
        arrivals = self.arrivals or tuple(() for _ in self.grad_outputs)
        return "; ".join(sum_text(list(parts), grad) for parts, grad in zip(arrivals, self.grad_outputs))

    def summary(self) -> tuple:
        """The table row: number, label, output shape(s), δ received, and what went where."""
        outputs = " ".join(_shape_text(s) for s in self.output_shapes)
        if self.is_leaf:
            sent = f".grad = {value_text(self.grad)}"
        else:
            sent = "  ".join(f"{_shape_text(shape)}:{value_text(grad)}"
                             for shape, grad in zip(self.input_shapes, self.grad_inputs) if shape is not None)
        return str(self.index), self.label, outputs, self.received_text(), sent

    def __repr__(self) -> str:
        lines = [f"step {self.index}: {self.label}",
                 f"  δ in   {' '.join(_shape_text(s) for s in self.output_shapes)}   "
                 f"δ = {self.received_text()}"]
        if self.variable is not None:  # a leaf
            shape = _shape_text(tuple(self.variable.shape))
            lines.append(f"  leaf   {shape}   .grad = {value_text(self.grad)}")
        for i, (shape, grad) in enumerate(zip(self.input_shapes, self.grad_inputs)):
            if shape is not None:
                lines.append(f"  → input {i}  {_shape_text(shape)}   grad = {value_text(grad)}")
        return "\n".join(lines)


_HEADER = ("#", "node", "output", "δ received", "sent to inputs  [shape]:grad")


def format_table(rows: list) -> str:
    """Rows of strings as left-aligned columns under :data:`_HEADER`."""
    rows = [_HEADER, *rows]
    widths = [max(len(row[c]) for row in rows) for c in range(len(_HEADER) - 1)]
    return "\n".join("  ".join([cell.ljust(w) for cell, w in zip(row, widths)] + [row[-1]]).rstrip()
                     for row in rows)


class BackwardStepper:
    """A backward pass from ``output`` that advances one node per :meth:`step`.

    Args:
        output: the tensor to differentiate (the loss), as in ``output.backward()``.
        gradient: δ of ``output``; by default 1 for a one-element output (required otherwise).
        retain_graph: keep the saved tensors after each node ran, so that the graph can be
            differentiated (or drawn with its saved tensors) again.
        params: names for the leaves in records, tables and pictures, e.g.
            ``dict(model.named_parameters())``.
    """

    def __init__(self, output: Tensor, gradient: Tensor | None = None, retain_graph: bool = False,
                 params: dict | None = None):
        root_grads = _root_gradients([output], [] if gradient is None else [gradient])
        self._names = {id(t): name for name, t in (params or {}).items()}
        self._pass = BackwardPass([output._gradient_edge()], root_grads, retain_graph)
        self._ran: set = set()
        self.steps: list[BackwardStep] = []
        # (node, output_nr) -> [(source label, gradient)]: the terms of the δ being summed there
        self._arrivals: dict = {edge: [("backward", grad)]
                                for edge, grad in zip([output._gradient_edge()], root_grads)}

    # --- where we are ---------------------------------------------------------------------

    @property
    def done(self) -> bool:
        """True once every node that receives a gradient has run."""
        return self._pass.done

    @property
    def next_node(self) -> Node | None:
        """The node the next :meth:`step` will run (None when done)."""
        return self._pass.peek()

    def peek(self) -> Node | None:
        return self._pass.peek()

    def _output_meta(self, node: Node, output_nr: int) -> tuple | None:
        """(shape, dtype, array type) of one of ``node``'s outputs, None if it is not a float tensor."""
        if isinstance(node, AccumulateGrad):
            leaf = node.variable.array
            return tuple(leaf.shape), leaf.dtype, type(leaf)
        return node._output_meta[output_nr]

    def output_shapes(self, node: Node) -> tuple:
        """The shape of each of ``node``'s outputs (None for an output that is not a float tensor)."""
        metas = [self._output_meta(node, k) for k in range(len(node._output_meta))]
        return tuple(None if meta is None else tuple(meta[0]) for meta in metas)

    # --- reading and changing the gradients waiting for a node ----------------------------

    def _pending_slots(self, node: Node | None) -> tuple:
        node = self.next_node if node is None else node
        if node is None:
            raise RuntimeError("the backward pass is finished: no node is waiting for a gradient")
        slots = self._pass.buffers.get(node)
        if slots is None and (node in self._ran or self._pass.dependencies.get(node, 0) == 0):
            where = "has already run" if node in self._ran else "is not waiting in this backward pass"
            raise RuntimeError(f"{node.name()} {where}: its gradient can no longer be read or changed")
        return node, slots

    def pending_gradient(self, node: Node | None = None, output_nr: int = 0) -> Tensor | None:
        """The δ buffered so far for ``node``'s output ``output_nr`` (default: the next node).

        For the next node this is the complete sum it will receive; for a node further
        down it is the part that has arrived so far (None if nothing has). It is a copy:
        to change what the node receives, pass a new value to :meth:`set_gradient`.
        """
        _, slots = self._pending_slots(node)
        grad = None if slots is None else slots[output_nr]
        return None if grad is None else Tensor(grad.array.copy())

    def set_gradient(self, grad: Tensor, node: Node | None = None, output_nr: int = 0) -> None:
        """Replace the δ buffered for ``node``'s output ``output_nr`` (default: the next node).

        The node's backward will receive ``grad`` (plus whatever still arrives from nodes
        that have not run yet), and everything it sends on follows from it.
        """
        node, slots = self._pending_slots(node)
        if not isinstance(grad, Tensor):
            raise TypeError(f"set_gradient expects a Tensor, got {type(grad).__name__}")
        meta = self._output_meta(node, output_nr)
        array = grad.array.copy()  # ours: later in-place changes to ``grad`` don't leak in
        if meta is not None:
            if array.shape != meta[0]:
                raise RuntimeError(f"set_gradient: {node.name()}'s output {output_nr} has shape "
                                   f"{list(meta[0])}, got a gradient of shape {list(array.shape)}")
            if type(array) is not meta[2]:
                raise RuntimeError(f"set_gradient: the gradient is on {grad.device}, but "
                                   f"{node.name()}'s output is not")
            array = array.astype(meta[1], copy=False)
        if slots is None:
            slots = self._pass.buffers[node] = [None] * len(node._output_meta)
        slots[output_nr] = Tensor(array)
        self._arrivals[(node, output_nr)] = [(SET_BY_HAND, slots[output_nr])]

    # --- moving -----------------------------------------------------------------------------

    def step(self) -> BackwardStep:
        """Run the next node's backward; return what it received and what it sent."""
        if self.done:
            raise RuntimeError("the backward pass is finished: there is no node left to step")
        node, grad_outputs, grad_inputs = self._pass.step()
        self._ran.add(node)
        record = BackwardStep(index=len(self.steps), node=node, name=node.name(),
                              input_shapes=tuple(None if m is None else tuple(m[0])
                                                 for m in getattr(node, "_input_meta", ())),
                              output_shapes=self.output_shapes(node), grad_outputs=tuple(grad_outputs),
                              grad_inputs=tuple(grad_inputs),
                              arrivals=tuple(tuple(self._arrivals.pop((node, k), ()))
                                             for k in range(len(grad_outputs))))
        if isinstance(node, AccumulateGrad):
            leaf = node.variable
            record.variable = leaf
            record.variable_name = self._names.get(id(leaf))
            record.grad = None if leaf.grad is None else Tensor(leaf.grad.array.copy())
        for edge, grad in zip(node.next_functions, grad_inputs):
            if edge[0] is not None and grad is not None:
                self._arrivals.setdefault(edge, []).append((record.label, grad))
        self.steps.append(record)
        return record

    def __iter__(self) -> Iterator[BackwardStep]:
        while not self.done:
            yield self.step()

    def run(self) -> list[BackwardStep]:
        """Run every remaining node; return their records."""
        return list(self)

    def _matcher(self, kind: Any) -> Callable[[Node], bool]:
        """A node test from a name prefix ('Convolution', 'AccumulateGrad') of the node's PyTorch name or of
        its minigrad class (``max(dim)``'s node is 'MaxBackward0' of class 'SelectAlongBackward0'), a
        parameter's name, a Node, a Function class, or a predicate."""
        if isinstance(kind, str):
            return lambda node: node.name().startswith(kind) or _class_name(node).startswith(kind) or (
                isinstance(node, AccumulateGrad) and self._names.get(id(node.variable)) == kind)
        if isinstance(kind, Node):
            return lambda node: node is kind
        if isinstance(kind, type):
            if issubclass(kind, Node):
                return lambda node: isinstance(node, kind)
            # a Function class matches its subclasses' nodes too (MatMul: MmBackward0, BmmBackward0, ...)
            return lambda node: issubclass(getattr(node, "_forward_cls", type(None)), kind)
        if callable(kind):
            return kind
        raise TypeError(f"expected a name, a Node, a Function class or a predicate, "
                        f"got {type(kind).__name__}")

    def _waiting_nodes(self) -> list:
        """Nodes that may still run: those with a gradient buffered or still to receive one."""
        pending = dict.fromkeys(self._pass.buffers)
        pending.update((n, None) for n, count in self._pass.dependencies.items() if count > 0)
        return list(pending)

    def run_until(self, kind: Any) -> Node:
        """Run nodes up to, *not* including, the next one matching ``kind``; return that node.

        It is then :attr:`next_node`: read or change its δ with :meth:`pending_gradient`
        / :meth:`set_gradient` before it runs. ``kind`` is a name prefix (``"Convolution"``
        matches ``ConvolutionBackward0``), a parameter's name, a Node, a Function
        class or a predicate ``node -> bool``.
        """
        matches = self._matcher(kind)
        if not any(matches(node) for node in self._waiting_nodes()):
            names = sorted({node.name() for node in self._waiting_nodes()})
            raise ValueError(f"no node matching {kind!r} is left to run; "
                             f"waiting: {', '.join(names) or 'none'}")
        node = self.next_node  # None once the pass is done
        while node is not None and not matches(node):
            self.step()
            node = self.next_node
        if node is None:
            raise ValueError(f"the backward pass ended before a node matching {kind!r} received a gradient")
        return node

    def run_to(self, kind: Any) -> BackwardStep:
        """Run nodes up to *and including* the next one matching ``kind``; return its record."""
        self.run_until(kind)
        return self.step()

    # --- showing ------------------------------------------------------------------------------

    def table(self) -> str:
        """One line per step taken: number, node, output shape, the δ it received (as the sum of
        its parts when several consumers sent one), and the gradients it sent on.

        Gradients with at most :data:`SMALL` elements are written out with their signs;
        larger ones as shape, norm and range."""
        text = format_table([step.summary() for step in self.steps])
        node = self.next_node  # None once the pass is done
        if node is not None:
            text += f"\n(next: {node.name()})"
        return text

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        node = self.next_node  # None once the pass is done
        state = "done" if node is None else f"next: {node.name()}"
        return f"<BackwardStepper: {len(self.steps)} steps taken, {state}>"

    def _repr_html_(self) -> str:
        from html import escape  # noqa: PLC0415 (only notebooks need it)

        def cells(row: tuple, tag: str) -> str:
            return "".join(f"<{tag}>{escape(c)}</{tag}>" for c in row)

        body = "".join(f"<tr>{cells(step.summary(), 'td')}</tr>" for step in self.steps)
        node = self.next_node  # None once the pass is done
        footer = "" if node is None else f"<p>next: <code>{escape(node.name())}</code></p>"
        return f"<table><tr>{cells(_HEADER, 'th')}</tr>{body}</table>{footer}"


def _class_name(node: Node) -> str:
    """The node's minigrad class ('SelectAlongBackward0'), also where it bears PyTorch's name
    ('MaxBackward0')."""
    return getattr(type(node), "_renamed_from", type(node)).__name__
