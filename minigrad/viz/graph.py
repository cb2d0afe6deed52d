"""The computation graph behind a tensor, as plain data: nodes, edges, layers, DOT text.

    graph = build_graph(loss, params=dict(model.named_parameters()))
    graph.nodes[0]          # GraphNode(kind='output', label='output', shape=(), ...)
    graph.edges             # GraphEdge(source, target, shape, argument): data flows source -> target
    print(to_dot(loss))     # paste into any Graphviz viewer

There is one node per backward node (``tensor.grad_fn`` and everything it leads to),
the leaves that require grad among them (named from ``params`` when given), and one
node for the tensor itself. Nothing here needs matplotlib; :func:`draw_graph` in
``minigrad.viz.draw`` draws this structure.

With ``values=True`` every box also shows numbers, as micrograd's ``draw_dot`` does:
``data`` (of the tensor drawn, of the leaves and of any intermediate tensor named in
``params``), ``grad`` (a leaf's ``.grad``; with a ``stepper``, the δ each node received)
and, as torchviz does, the shapes of the tensors an operation saved for its backward.
With a :class:`~minigrad.autograd.BackwardStepper`, the nodes it has run are marked
``ran`` (drawn shaded) and the next one ``next``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from minigrad.autograd.function import AccumulateGrad
from minigrad.autograd.stepper import value_text
from minigrad.tensor import Tensor

__all__ = ["Graph", "GraphNode", "GraphEdge", "build_graph", "to_dot", "shape_text", "RAN_COLOURS"]


def shape_text(shape: tuple | None) -> str:
    """``[4, 3]`` as PyTorch prints sizes; ``-`` when unknown."""
    return "-" if shape is None else "[" + ", ".join(str(s) for s in shape) + "]"


@dataclass
class GraphNode:
    """One box of the picture.

    Attributes:
        index: its number, from 0 (the tensor drawn), breadth first towards the leaves.
        kind: ``'output'`` (the tensor drawn), ``'op'`` (a backward node), ``'parameter'``
            (a leaf named in ``params``) or ``'leaf'`` (any other leaf that requires grad).
        label: the text on its first line: the node's name, or the leaf's.
        shape: the shape of the tensor it produces (None when unknown).
        node: the autograd node (an ``AccumulateGrad`` for a leaf; None for the output).
        tensor: the tensor it stands for, when known (the output, a leaf, a named result).
        notes: further lines: data, grad, saved tensors (``values=True``).
        ran: a stepper has run this node.
        next: it is the stepper's next node.
    """

    index: int
    kind: str
    label: str
    shape: tuple | None
    node: Any = None
    tensor: Tensor | None = None
    notes: list[str] = field(default_factory=list)
    ran: bool = False
    next: bool = False

    @property
    def text(self) -> str:
        """Label, shape and any notes (data, grad, saved tensors), one per line, as drawn."""
        return "\n".join([self.label, shape_text(self.shape), *self.notes])


@dataclass
class GraphEdge:
    """Data flows from node ``source`` into argument ``argument`` of node ``target``.

    Attributes:
        source: the producing node's index.
        target: the consuming node's index.
        shape: the shape of the tensor passed (None when unknown).
        argument: which input of the target it is.
    """

    source: int
    target: int
    shape: tuple | None
    argument: int = 0


@dataclass
class Graph:
    """The boxes and arrows of a picture, as :func:`build_graph` made them.

    Attributes:
        nodes: the boxes, ``nodes[i].index == i``.
        edges: the arrows.
    """

    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)

    def inputs_of(self, index: int) -> list[int]:
        """Nodes whose output ``index`` consumes."""
        return [e.source for e in self.edges if e.target == index]

    def consumers_of(self, index: int) -> list[int]:
        """Nodes that consume ``index``'s output."""
        return [e.target for e in self.edges if e.source == index]

    def layers(self) -> list[int]:
        """Each node's layer: the longest path (in edges) from it to the output, node 0.

        A node sits one layer above the furthest of its consumers, so every edge goes
        from a higher layer to a lower one and the output is alone in layer 0.
        """
        waiting = [0] * len(self.nodes)  # consumers not placed yet
        inputs: list[list[int]] = [[] for _ in self.nodes]
        for e in self.edges:
            waiting[e.source] += 1
            inputs[e.target].append(e.source)
        layer = [0] * len(self.nodes)
        ready = [i for i, count in enumerate(waiting) if count == 0]
        while ready:  # Kahn's algorithm, from the output towards the leaves
            index = ready.pop()
            for source in inputs[index]:
                layer[source] = max(layer[source], layer[index] + 1)
                waiting[source] -= 1
                if waiting[source] == 0:
                    ready.append(source)
        return layer


def _leaf_kind_and_label(leaf: Tensor, names: dict) -> tuple:
    name = names.get(id(leaf))
    return ("parameter", name) if name is not None else ("leaf", "leaf")


def build_graph(tensor: Tensor, params: dict | None = None, name: str = "output", values: bool = False,
                stepper: Any = None) -> Graph:
    """The graph that computed ``tensor``, from the tensor back to its leaves.

    ``params`` maps names to tensors (``dict(model.named_parameters())``, or intermediate
    results such as ``{"h": h}``) to label the leaves and the operations that produced
    them; ``name`` labels the tensor's own node. Nodes are numbered breadth first from the
    tensor (node 0). ``values`` adds data, grad and saved-tensor notes to every node;
    ``stepper`` (a :class:`~minigrad.autograd.BackwardStepper` on this graph) supplies
    the δ of every node it has run and marks the nodes ``ran`` and ``next``.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"build_graph expects a Tensor, got {type(tensor).__name__}")
    if not tensor.requires_grad:
        raise ValueError("the tensor does not require grad, so no graph was recorded for it")
    names = {id(t): key for key, t in (params or {}).items()}
    graph = Graph()
    graph.nodes.append(GraphNode(0, "output", name, tuple(tensor.shape), tensor=tensor))

    root, root_nr = tensor._gradient_edge()
    # (node, output_nr) -> shape of that output (None where the node recorded none)
    shapes: dict[tuple[Any, int], tuple[int, ...] | None] = {(root, root_nr): tuple(tensor.shape)}
    index_of = {root: 1}
    order = [root]
    # (source node, target index, argument, shape)
    edges: list[tuple[Any, int, int, tuple[int, ...] | None]] = [(root, 0, 0, tuple(tensor.shape))]
    head = 0
    while head < len(order):  # breadth first: number every node reachable from the root
        node = order[head]
        head += 1
        for argument, (edge, meta) in enumerate(zip(node.next_functions, getattr(node, "_input_meta", ()))):
            child, child_nr = edge
            if child is None:
                continue
            shape = None if meta is None else tuple(meta[0])
            shapes[(child, child_nr)] = shape
            if child not in index_of:
                index_of[child] = len(order) + 1
                order.append(child)
            edges.append((child, index_of[node], argument, shape))

    for node in order:
        if isinstance(node, AccumulateGrad):
            kind, label = _leaf_kind_and_label(node.variable, names)
            graph.nodes.append(GraphNode(index_of[node], kind, label, tuple(node.variable.shape), node,
                                         node.variable))
        else:
            outputs = [shapes[(node, k)] for k in range(len(node._output_meta)) if (node, k) in shapes]
            shape = outputs[0] if outputs else None
            graph.nodes.append(GraphNode(index_of[node], "op", node.name(), shape, node))
    graph.edges = [GraphEdge(index_of[child], target, shape, argument)
                   for child, target, argument, shape in edges]
    named = {t._gradient_edge(): (key, t) for key, t in (params or {}).items()
             if isinstance(t, Tensor) and t.grad_fn is not None}
    for graph_node in graph.nodes[1:]:
        if graph_node.kind == "op" and (graph_node.node, 0) in named:
            key, graph_node.tensor = named[(graph_node.node, 0)]
            graph_node.label = f"{graph_node.label} ({key})"
    if stepper is not None:
        _mark_progress(graph, stepper)
    if values:
        _add_notes(graph, stepper)
    return graph


def _mark_progress(graph: Graph, stepper: Any) -> None:
    """Which nodes the stepper has run, and which is next (the output counts as run once it started)."""
    ran = {id(step.node) for step in stepper.steps}
    following = stepper.next_node
    for graph_node in graph.nodes:
        graph_node.ran = bool(stepper.steps) if graph_node.node is None else id(graph_node.node) in ran
        graph_node.next = graph_node.node is not None and graph_node.node is following


def _saved_note(node: Any) -> str | None:
    """Shapes of the tensors an operation saved for backward (torchviz shows them too)."""
    saved = getattr(node, "_saved", None)
    if not saved or isinstance(node, AccumulateGrad):
        return "saved: freed" if getattr(node, "_released", False) else None
    return "saved " + " ".join(shape_text(tuple(t.shape)) for t in saved if t is not None)


def _add_notes(graph: Graph, stepper: Any) -> None:
    received = {} if stepper is None else {id(step.node): step.grad_output for step in stepper.steps}
    for graph_node in graph.nodes:
        tensor, node = graph_node.tensor, graph_node.node
        if tensor is not None:
            graph_node.notes.append(f"data {value_text(tensor.detach())}")
        if node is None:  # the tensor drawn: its δ is the one its grad_fn received
            node = graph.nodes[1].node if len(graph.nodes) > 1 else None
        grad = received.get(id(node))
        if grad is None and tensor is not None and graph_node.kind in ("parameter", "leaf"):
            grad = tensor.grad
        if grad is not None:
            graph_node.notes.append(f"grad {value_text(grad)}")
        if graph_node.kind == "op":
            saved = _saved_note(graph_node.node)
            if saved:
                graph_node.notes.append(saved)


_DOT_COLOURS = {"output": "#b7e4c7", "op": "#e9ecef", "parameter": "#a5d8ff", "leaf": "#ffec99"}
RAN_COLOURS = {"output": "#52b788", "op": "#adb5bd", "parameter": "#4dabf7", "leaf": "#fcc419"}
"""Darker fills for the nodes a BackwardStepper has already run."""


def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(tensor: Tensor | Graph, params: dict | None = None, name: str = "output", values: bool = False,
           stepper: Any = None) -> str:
    """Graphviz DOT text of ``tensor``'s graph (or of a :class:`Graph`), data flowing downwards.

    The arguments are :func:`build_graph`'s. Nodes a stepper ran are filled darker, the
    next one is outlined in red.
    """
    graph = tensor if isinstance(tensor, Graph) else build_graph(tensor, params, name, values, stepper)
    lines = ["digraph minigrad {",
             "  graph [rankdir=TB];",
             '  node [shape=box, style="rounded,filled", fontname="monospace", fontsize=10];']
    for node in graph.nodes:
        colour = (RAN_COLOURS if node.ran else _DOT_COLOURS)[node.kind]
        outline = ', color="#d62828", penwidth=2.5' if node.next else ""
        lines.append(f'  n{node.index} [label={_dot_string(node.text)}, fillcolor="{colour}"{outline}];')
    for edge in graph.edges:
        lines.append(f"  n{edge.source} -> n{edge.target};")
    lines.append("}")
    return "\n".join(lines) + "\n"
