"""The computation graph behind a tensor, as plain data: nodes, edges, layers, DOT text.

    graph = build_graph(loss, params=dict(model.named_parameters()))
    graph.nodes[0]          # GraphNode(kind='output', label='output', shape=(), ...)
    graph.edges             # GraphEdge(source, target, shape, argument): data flows source -> target
    print(to_dot(loss))     # paste into any Graphviz viewer

There is one node per backward node (``tensor.grad_fn`` and everything it leads to),
the leaves that require grad among them (named from ``params`` when given), and one
node for the tensor itself. Nothing here needs matplotlib; :func:`draw_graph` in
``minigrad.viz.draw`` draws this structure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from minigrad.autograd.function import AccumulateGrad
from minigrad.tensor import Tensor

__all__ = ["Graph", "GraphNode", "GraphEdge", "build_graph", "to_dot", "shape_text"]


def shape_text(shape: tuple | None) -> str:
    """``[4, 3]`` as PyTorch prints sizes; ``-`` when unknown."""
    return "-" if shape is None else "[" + ", ".join(str(s) for s in shape) + "]"


@dataclass
class GraphNode:
    """One box of the picture.

    ``kind`` is ``'output'`` (the tensor drawn), ``'op'`` (a backward node),
    ``'parameter'`` (a leaf named in ``params``) or ``'leaf'`` (any other leaf that
    requires grad). ``node`` is the autograd node (an ``AccumulateGrad`` for a leaf).
    """

    index: int
    kind: str
    label: str
    shape: tuple | None
    node: Any = None
    tensor: Tensor | None = None

    @property
    def text(self) -> str:
        """Label and shape on two lines, as drawn."""
        return f"{self.label}\n{shape_text(self.shape)}"


@dataclass
class GraphEdge:
    """Data flows from node ``source`` into argument ``argument`` of node ``target``."""

    source: int
    target: int
    shape: tuple | None
    argument: int = 0


@dataclass
class Graph:
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


def build_graph(tensor: Tensor, params: dict | None = None, name: str = "output") -> Graph:
    """The graph that computed ``tensor``, from the tensor back to its leaves.

    ``params`` maps names to tensors (``dict(model.named_parameters())``) to label the
    leaves; ``name`` labels the tensor's own node. Nodes are numbered breadth first
    from the tensor (node 0).
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"build_graph expects a Tensor, got {type(tensor).__name__}")
    if not tensor.requires_grad:
        raise ValueError("the tensor does not require grad, so no graph was recorded for it")
    names = {id(t): key for key, t in (params or {}).items()}
    graph = Graph()
    graph.nodes.append(GraphNode(0, "output", name, tuple(tensor.shape), tensor=tensor))

    root, root_nr = tensor._gradient_edge()
    shapes = {(root, root_nr): tuple(tensor.shape)}  # (node, output_nr) -> shape of that output
    index_of = {root: 1}
    order = [root]
    edges = [(root, 0, 0, tuple(tensor.shape))]  # (source node, target index, argument, shape)
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
    return graph


_DOT_COLOURS = {"output": "#b7e4c7", "op": "#e9ecef", "parameter": "#a5d8ff", "leaf": "#ffec99"}


def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(tensor: Tensor | Graph, params: dict | None = None, name: str = "output") -> str:
    """Graphviz DOT text of ``tensor``'s graph (or of a :class:`Graph`), data flowing downwards."""
    graph = tensor if isinstance(tensor, Graph) else build_graph(tensor, params, name)
    lines = ["digraph minigrad {",
             "  graph [rankdir=TB];",
             '  node [shape=box, style="rounded,filled", fontname="monospace", fontsize=10];']
    for node in graph.nodes:
        colour = _DOT_COLOURS[node.kind]
        lines.append(f'  n{node.index} [label={_dot_string(node.text)}, fillcolor="{colour}"];')
    for edge in graph.edges:
        lines.append(f"  n{edge.source} -> n{edge.target};")
    lines.append("}")
    return "\n".join(lines) + "\n"
