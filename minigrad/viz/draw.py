"""Draw a tensor's computation graph: with matplotlib (no Graphviz needed), or as SVG.

    fig = draw_graph(loss, params=dict(model.named_parameters()))
    fig.savefig("graph.svg")
    draw_graph(L, params={"a": a, "b": b}, values=True, stepper=stepper)   # numbers in every box
    Path("graph.svg").write_text(graph_svg(loss))   # Graphviz's dot when it is installed

Inputs are at the top and data flows down to the tensor drawn, at the bottom: grey
boxes are operations (their backward node's name), blue boxes named parameters,
yellow boxes other leaves that require grad, the green box the tensor itself. Every
box shows the shape of the tensor it produces; with ``values=True`` also its data, its
gradient and what the operation saved for backward. With a ``stepper``, the nodes it has
already run are filled darker and the next one is outlined in red.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from typing import Any

from minigrad.tensor import Tensor
from minigrad.viz._mpl import new_axes, pyplot
from minigrad.viz.graph import RAN_COLOURS, Graph, build_graph, to_dot
from minigrad.viz.layout import Layout, layered_layout

__all__ = ["draw_graph", "graph_svg", "box_inches", "SVG"]

COLOURS = {"output": "#b7e4c7", "op": "#e9ecef", "parameter": "#a5d8ff", "leaf": "#ffec99"}
_CHAR_WIDTH = 0.61   # of the font size: DejaVu Sans Mono's advance, rounded up
_LINE_HEIGHT = 1.25  # of the font size: matplotlib's line spacing, rounded up
_PAD = 0.35          # the box's padding around the text, in font sizes
_GAP = (0.3, 0.5)    # inches between columns and between layers


def box_inches(text: str, fontsize: float) -> tuple[float, float]:
    """The (width, height) in inches of ``text``'s box, drawn in a monospace font of ``fontsize`` points."""
    lines = text.split("\n")
    width = max(len(line) for line in lines) * _CHAR_WIDTH * fontsize + 2 * _PAD * fontsize + 2
    height = len(lines) * _LINE_HEIGHT * fontsize + 2 * _PAD * fontsize + 2
    return width / 72, height / 72


def _highlighted(graph: Graph, highlight: Any) -> set:
    """Indices of the nodes to emphasise: given as autograd nodes, tensors or labels."""
    if highlight is None:
        return {node.index for node in graph.nodes if node.next}
    wanted = highlight if isinstance(highlight, (list, tuple, set)) else [highlight]
    found = set()
    for item in wanted:
        for node in graph.nodes:
            if (node.node is not None and node.node is item) or (isinstance(item, Tensor) and (
                    node.tensor is item or (item.grad_fn is not None and node.node is item.grad_fn))) \
                    or (isinstance(item, str) and node.label == item):
                found.add(node.index)
    return found


def layout_of(graph: Graph, fontsize: float) -> tuple[Layout, float]:
    """The layout of ``graph``'s boxes at ``fontsize`` (x in inches, y in layers), and a layer's inches."""
    inches = [box_inches(node.text, fontsize) for node in graph.nodes]
    row = max(h for _, h in inches) + _GAP[1]
    return layered_layout(graph, sizes=[(w, h / row) for w, h in inches], gap=_GAP[0]), row


def extent(layout: Layout) -> tuple[float, float]:
    """The leftmost and rightmost x of any box or edge of ``layout``."""
    lefts = [layout.box(i)[0] for i in range(len(layout.positions))]
    rights = [layout.box(i)[2] for i in range(len(layout.positions))]
    routes = [x for route in layout.routes for x, _ in route]
    return min(lefts + routes), max(rights + routes)


def draw_graph(tensor: Tensor, ax: Any = None, params: dict | None = None, name: str = "output",
               highlight: Any = None, fontsize: float = 8.0, values: bool = False,
               stepper: Any = None) -> Any:
    """Draw the graph that computed ``tensor``; return the matplotlib Figure.

    Args:
        tensor: the result whose graph is drawn (at the bottom).
        ax: axes to draw into; by default a new figure sized so that one column and one
            layer hold the largest box.
        params: names for tensors (``dict(model.named_parameters())``, or intermediate
            results such as ``{"h": h}``), shown in their boxes.
        name: the label of ``tensor``'s own box.
        highlight: autograd nodes, tensors or labels to outline in red (by default the
            stepper's next node).
        fontsize: of the boxes' text, in points.
        values: also write each box's data and gradient, and what each operation saved.
        stepper: a :class:`~minigrad.autograd.BackwardStepper` on this graph: the nodes it
            has run are filled darker, and (with ``values``) every one shows the δ it received.
    """
    graph = build_graph(tensor, params, name, values, stepper)
    layout, row = layout_of(graph, fontsize)
    left, right = extent(layout)
    left, right = left - _GAP[0], right + _GAP[0]
    depth = max(layout.layers)
    own_figure = ax is None
    figure, ax = new_axes(ax, (right - left, (depth + 1) * row))
    if own_figure:
        figure.subplots_adjust(left=0, right=1, bottom=0, top=1)  # x in inches, one layer is `row` inches

    emphasised = _highlighted(graph, highlight)
    boxes = []
    for node, (x, y) in zip(graph.nodes, layout.positions):
        red = node.index in emphasised
        fill = (RAN_COLOURS if node.ran else COLOURS)[node.kind]
        boxes.append(ax.text(x, y, node.text, ha="center", va="center", fontsize=fontsize, family="monospace",
                             zorder=1, bbox=dict(boxstyle=f"round,pad={_PAD}", facecolor=fill,
                                                 edgecolor="#d62828" if red else "#495057",
                                                 linewidth=2.5 if red else 0.8)))
    _draw_edges(ax, graph, layout, boxes)
    ax.set_xlim(left, right)
    ax.set_ylim(-0.5, depth + 0.5)
    ax.axis("off")
    return figure


def _draw_edges(ax: Any, graph: Graph, layout: Any, boxes: list) -> None:
    """Each edge as straight segments through its route, clipped at the two boxes, with a head."""
    from matplotlib.patches import FancyArrowPatch  # noqa: PLC0415 (optional dependency)

    for edge, route in zip(graph.edges, layout.routes):
        last = len(route) - 2
        for k, (start, end) in enumerate(zip(route, route[1:])):
            ax.add_patch(FancyArrowPatch(
                start, end, arrowstyle="-|>" if k == last else "-", mutation_scale=9, color="#495057",
                linewidth=0.9, shrinkA=0, shrinkB=0, zorder=2,  # after the boxes: they clip it
                patchA=boxes[edge.source].get_bbox_patch() if k == 0 else None,
                patchB=boxes[edge.target].get_bbox_patch() if k == last else None))


class SVG(str):
    """SVG text that a notebook shows as a picture."""

    def _repr_svg_(self) -> str:
        return str(self)


def graph_svg(tensor: Tensor, params: dict | None = None, name: str = "output", values: bool = False,
              stepper: Any = None, engine: str = "auto", fontsize: float = 8.0) -> SVG:
    """The graph of :func:`draw_graph` as SVG text (a notebook shows it; write it to a ``.svg`` file).

    ``engine``: ``"graphviz"`` lays it out with Graphviz's ``dot`` program, ``"matplotlib"``
    with :func:`draw_graph`; ``"auto"`` (the default) uses ``dot`` when it is installed.
    The other arguments are :func:`draw_graph`'s.
    """
    if engine not in ("auto", "graphviz", "matplotlib"):
        raise ValueError(f"engine must be 'auto', 'graphviz' or 'matplotlib', got {engine!r}")
    dot = shutil.which("dot")
    if engine == "graphviz" and dot is None:
        raise RuntimeError("engine='graphviz' needs Graphviz's dot program on the PATH "
                           "(apt-get install graphviz, brew install graphviz, or graphviz.org)")
    if dot is not None and engine != "matplotlib":
        text = to_dot(tensor, params, name, values, stepper)
        result = subprocess.run([dot, "-Tsvg"], input=text, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"dot -Tsvg failed: {result.stderr.strip()}")
        return SVG(result.stdout)
    figure = draw_graph(tensor, params=params, name=name, values=values, stepper=stepper, fontsize=fontsize)
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg")
    pyplot().close(figure)
    return SVG(buffer.getvalue())
