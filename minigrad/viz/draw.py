"""Draw a tensor's computation graph with matplotlib (no Graphviz binary needed).

    fig = draw_graph(loss, params=dict(model.named_parameters()))
    fig.savefig("graph.png")

Inputs are at the top and data flows down to the tensor drawn, at the bottom: grey
boxes are operations (their backward node's name), blue boxes named parameters,
yellow boxes other leaves that require grad, the green box the tensor itself. Every
box shows the shape of the tensor it produces.
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor import Tensor
from minigrad.viz._mpl import new_axes
from minigrad.viz.graph import Graph, build_graph
from minigrad.viz.layout import layered_layout

__all__ = ["draw_graph"]

COLOURS = {"output": "#b7e4c7", "op": "#e9ecef", "parameter": "#a5d8ff", "leaf": "#ffec99"}
_CHAR_WIDTH = 0.6  # of the font size, for a monospace font


def _highlighted(graph: Graph, highlight: Any) -> set:
    """Indices of the nodes to emphasise: given as autograd nodes, tensors or labels."""
    if highlight is None:
        return set()
    wanted = highlight if isinstance(highlight, (list, tuple, set)) else [highlight]
    found = set()
    for item in wanted:
        for node in graph.nodes:
            if (node.node is not None and node.node is item) or (isinstance(item, Tensor) and (
                    node.tensor is item or (item.grad_fn is not None and node.node is item.grad_fn))) \
                    or (isinstance(item, str) and node.label == item):
                found.add(node.index)
    return found


def draw_graph(tensor: Tensor, ax: Any = None, params: dict | None = None, name: str = "output",
               highlight: Any = None, fontsize: float = 8.0) -> Any:
    """Draw the graph that computed ``tensor``; return the matplotlib Figure.

    ``params`` (``dict(model.named_parameters())``) names the parameter boxes, ``name``
    the tensor's box. ``highlight``: autograd nodes, tensors or labels to outline in red
    (``highlight=stepper.next_node`` shows where a BackwardStepper is).
    """
    graph = build_graph(tensor, params, name)
    layout = layered_layout(graph)
    xs = [x for x, _ in layout.positions]
    depth = max(layout.layers)
    longest = max(len(line) for node in graph.nodes for line in node.text.split("\n"))
    column_inches = (longest * _CHAR_WIDTH * fontsize + 18) / 72
    row_inches = 3.3 * fontsize * 1.25 / 72 + 0.25
    own_figure = ax is None
    figure, ax = new_axes(ax, ((max(xs) - min(xs) + 1) * column_inches + 0.2, (depth + 1) * row_inches + 0.2))
    if own_figure:
        figure.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.99)

    emphasised = _highlighted(graph, highlight)
    boxes = []
    for node, (x, y) in zip(graph.nodes, layout.positions):
        red = node.index in emphasised
        boxes.append(ax.text(x, y, node.text, ha="center", va="center", fontsize=fontsize, family="monospace",
                             zorder=1, bbox=dict(boxstyle="round,pad=0.35", facecolor=COLOURS[node.kind],
                                                 edgecolor="#d62828" if red else "#495057",
                                                 linewidth=2.5 if red else 0.8)))
    _draw_edges(ax, graph, layout, boxes)
    ax.set_xlim(min(xs) - 0.5, max(xs) + 0.5)
    ax.set_ylim(-0.5, depth + 0.5)
    ax.axis("off")
    return figure


def _draw_edges(ax: Any, graph: Graph, layout: Any, boxes: list) -> None:
    """Each edge as straight segments through its waypoints, clipped at the two boxes, with a head."""
    from matplotlib.patches import FancyArrowPatch  # noqa: PLC0415 (optional dependency)

    for edge, route in zip(graph.edges, layout.routes):
        last = len(route) - 2
        for k, (start, end) in enumerate(zip(route, route[1:])):
            ax.add_patch(FancyArrowPatch(
                start, end, arrowstyle="-|>" if k == last else "-", mutation_scale=9, color="#495057",
                linewidth=0.9, shrinkA=0, shrinkB=0, zorder=2,  # after the boxes: they clip it
                patchA=boxes[edge.source].get_bbox_patch() if k == 0 else None,
                patchB=boxes[edge.target].get_bbox_patch() if k == last else None))
