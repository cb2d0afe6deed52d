"""A layered layout for a small graph, in plain Python (no Graphviz needed).

1. Layers: the longest path from each node to the output (``Graph.layers``), so all
   edges point from a higher layer down to a lower one.
2. An edge that skips layers gets one invisible waypoint per skipped layer, so it can
   be routed around the boxes in between.
3. Order within a layer: start from a depth-first walk (first argument leftmost), then
   a few sweeps sort each layer by the mean position of its neighbours (the barycentre
   heuristic), which removes most crossings.
4. x positions: each item moves towards the mean x of its neighbours (an operation
   only towards other operations, so a chain of operations stays straight), then the
   layer is spread so that neighbouring boxes keep ``gap`` between them (a waypoint is a
   box of width 0), leaves giving way to operations.
5. Routes: all boxes of a layer lie in a horizontal band around it; an edge crosses a
   band only vertically (leaving its source straight down, passing a skipped layer
   through its waypoint, entering its target straight from above) and slants only
   between bands. As a waypoint keeps ``gap`` from the boxes beside it, no edge passes
   through a box it does not connect.

Units: y in layers (the output at y = 0, inputs above), x in any unit (``draw_graph``
uses inches). ``sizes`` gives each box's (width, height), the height below 1 layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from minigrad.viz.graph import Graph

__all__ = ["Layout", "layered_layout"]


MARGIN = 0.04
"""Gap, in layers, between a band of boxes and the bend where an edge starts to slant (less when
the boxes leave less room between two bands)."""


@dataclass
class Layout:
    """Where :func:`layered_layout` put everything.

    Attributes:
        positions: node i's centre (x, y).
        routes: the points edge k passes through, its two nodes' centres included.
        layers: node i's layer (0: the output).
        sizes: node i's box (width, height).
    """

    positions: list[tuple[float, float]]
    routes: list[list[tuple[float, float]]]
    layers: list[int]
    sizes: list[tuple[float, float]]

    def box(self, index: int) -> tuple[float, float, float, float]:
        """Node ``index``'s box as (left, bottom, right, top)."""
        (x, y), (width, height) = self.positions[index], self.sizes[index]
        return x - width / 2, y - height / 2, x + width / 2, y + height / 2


def _depth_first_order(graph: Graph) -> list[int]:
    """Nodes in preorder from the output, visiting inputs in argument order."""
    inputs: list[list[tuple[int, int]]] = [[] for _ in graph.nodes]
    for edge in graph.edges:
        inputs[edge.target].append((edge.argument, edge.source))
    order, seen, stack = [], set(), [0]
    while stack:
        index = stack.pop()
        if index in seen:
            continue
        seen.add(index)
        order.append(index)
        stack.extend(source for _, source in sorted(inputs[index], reverse=True))
    return order + [i for i in range(len(graph.nodes)) if i not in seen]


def _spread(desired: list[float], priority: Sequence[float], widths: list[float], gap: float) -> list[float]:
    """Positions in the same order, each as close to ``desired`` as it can be, with boxes of
    ``widths`` centred there at least ``gap`` apart.

    Items are placed by decreasing ``priority``: an operation gets the spot it wants and the
    leaves around it move aside. Every placed pair ``j < k`` keeps ``x[k] - x[j] >= need[k] -
    need[j]`` (the room items j to k take up), so there is always room for those in between.
    """
    need = [0.0]
    for a, b in zip(widths, widths[1:]):
        need.append(need[-1] + (a + b) / 2 + gap)
    placed: dict[int, float] = {}
    for i in sorted(range(len(desired)), key=lambda i: -priority[i]):
        low = max((x + need[i] - need[j] for j, x in placed.items() if j < i), default=float("-inf"))
        high = min((x - (need[j] - need[i]) for j, x in placed.items() if j > i), default=float("inf"))
        placed[i] = min(max(desired[i], low), high)
    return [placed[i] for i in range(len(desired))]


def layered_layout(graph: Graph, sweeps: int = 12, sizes: list | None = None, gap: float = 0.2) -> Layout:
    """Positions for every node of ``graph`` and routes for its edges (see the module's docstring).

    ``sizes``: each node's box (width, height), the height in layers and below 1 (default
    0.8 by 0.5); ``gap``: the least room between two boxes (or a box and an edge) of a layer.
    """
    sizes = [(0.8, 0.5)] * len(graph.nodes) if sizes is None else [tuple(s) for s in sizes]
    if len(sizes) != len(graph.nodes) or any(not (0 < w and 0 < h < 1) for w, h in sizes):
        raise ValueError(f"layered_layout needs one (width, height) per node, the height below 1 "
                         f"layer, got {sizes}")
    layer = graph.layers()
    # Items are nodes (their index) and waypoints (("via", edge number, layer)).
    neighbours: dict = {i: [] for i in range(len(graph.nodes))}
    chains = []
    for k, edge in enumerate(graph.edges):
        skipped = range(layer[edge.source] - 1, layer[edge.target], -1)
        chain = [edge.source] + [("via", k, depth) for depth in skipped]
        chain.append(edge.target)
        for a, b in zip(chain, chain[1:]):
            neighbours.setdefault(a, []).append(b)
            neighbours.setdefault(b, []).append(a)
        chains.append(chain)

    rank = {index: r for r, index in enumerate(_depth_first_order(graph))}
    item_layer = {item: (layer[item] if isinstance(item, int) else item[2]) for item in neighbours}
    key = {item: (rank[item] if isinstance(item, int) else rank[graph.edges[item[1]].source] + 0.5)
           for item in neighbours}
    rows: list[list] = [[] for _ in range(max(layer) + 1)]
    for item in sorted(neighbours, key=lambda item: key[item]):
        rows[item_layer[item]].append(item)

    x = {}
    for row in rows:
        for position, item in enumerate(row):
            x[item] = (position - (len(row) - 1) / 2) * (max(w for w, _ in sizes) + gap)

    is_leaf = {item: isinstance(item, int) and graph.nodes[item].kind in ("parameter", "leaf")
               for item in neighbours}
    priority = {item: 0 if is_leaf[item] else 1 for item in neighbours}

    def mean_x(item: object, side: int) -> float:
        """Mean x of the item's neighbours in the layer on ``side`` (an operation ignores leaves);
        an item with no neighbour there stays where it is."""
        near = [n for n in neighbours[item] if item_layer[n] == item_layer[item] + side]
        if not is_leaf[item]:
            near = [n for n in near if not is_leaf[n]] or near
        return sum(x[n] for n in near) / len(near) if near else x[item]

    for sweep in range(sweeps):
        # Even sweeps align each layer with the one below it (nearer the output), odd sweeps
        # with the one above; each layer follows a neighbour layer that has just been placed.
        side = -1 if sweep % 2 == 0 else 1
        for depth in range(len(rows)) if side == -1 else range(len(rows) - 1, -1, -1):
            row = rows[depth]
            if sweep < sweeps // 2:  # first fix the order, then the coordinates
                row.sort(key=lambda item: (mean_x(item, side), is_leaf[item]))
            ranks = [priority[item] for item in row]
            widths = [sizes[item][0] if isinstance(item, int) else 0.0 for item in row]
            for item, value in zip(row, _spread([mean_x(item, side) for item in row], ranks, widths, gap)):
                x[item] = value

    positions = [(x[i], float(layer[i])) for i in range(len(graph.nodes))]
    band = [0.0] * len(rows)  # half the height of each layer's tallest box
    for i, (_, height) in enumerate(sizes):
        band[layer[i]] = max(band[layer[i]], height / 2)
    routes = [_route(chain, x, item_layer, band) for chain in chains]
    return Layout(positions, routes, layer, sizes)


def _route(chain: list, x: dict, item_layer: dict, band: list) -> list:
    """The points of one edge: vertical inside every band of boxes, slanted only between bands."""
    points = []
    last = len(chain) - 1
    for k, item in enumerate(chain):
        at, depth = x[item], float(item_layer[item])
        half = band[item_layer[item]]  # from the layer's centre line to just outside its band (< 0.5)
        reach = half + min(MARGIN, (0.5 - half) / 2)
        if k == 0:
            points += [(at, depth), (at, depth - reach)]
        elif k == last:
            points += [(at, depth + reach), (at, depth)]
        else:
            points += [(at, depth + reach), (at, depth - reach)]
    return points
