"""The graph as data (build_graph, layers, layout, DOT) and as a picture (draw_graph)."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from teaching_graphs import all_nodes, cnn_arrays, cnn_loss, leaves, mlp_arrays, mlp_loss

import minigrad as mg
from minigrad.viz import build_graph, layered_layout, to_dot


def known_graph():
    """loss = Σ 2·relu(x @ w + b), x a constant (4, 3): 8 nodes, 7 edges (written out in the tests)."""
    rng = np.random.default_rng(0)
    w = mg.tensor(rng.normal(size=(3, 2)), requires_grad=True)
    b = mg.tensor(rng.normal(size=2), requires_grad=True)
    x = mg.tensor(rng.normal(size=(4, 3)))
    return ((x @ w + b).relu() * 2).sum(), w, b


def described(graph) -> tuple:
    nodes = [(n.kind, n.label, n.shape) for n in graph.nodes]
    label = [n.label for n in graph.nodes]
    edges = {(label[e.source], label[e.target], e.argument, e.shape) for e in graph.edges}
    return nodes, edges


def test_build_graph_of_a_known_expression():
    loss, w, b = known_graph()
    graph = build_graph(loss, params={"w": w}, name="loss")
    nodes, edges = described(graph)
    assert nodes == [("output", "loss", ()), ("op", "SumBackward0", ()), ("op", "MulBackward0", (4, 2)),
                     ("op", "ReluBackward0", (4, 2)), ("op", "AddBackward0", (4, 2)),
                     ("op", "MmBackward0", (4, 2)), ("leaf", "leaf", (2,)), ("parameter", "w", (3, 2))]
    assert edges == {("SumBackward0", "loss", 0, ()), ("MulBackward0", "SumBackward0", 0, (4, 2)),
                     ("ReluBackward0", "MulBackward0", 0, (4, 2)),
                     ("AddBackward0", "ReluBackward0", 0, (4, 2)),
                     ("MmBackward0", "AddBackward0", 0, (4, 2)), ("leaf", "AddBackward0", 1, (2,)),
                     ("w", "MmBackward0", 1, (3, 2))}
    assert len(graph.edges) == 7
    assert graph.nodes[6].tensor is b and graph.nodes[7].tensor is w
    assert graph.nodes[1].node is loss.grad_fn
    assert graph.layers() == [0, 1, 2, 3, 4, 5, 5, 6]
    assert graph.inputs_of(4) == [5, 6] and graph.consumers_of(5) == [4]


def shared_graph():
    """u = exp(a) is used by the add and by the product: loss = Σ (u + u·a)."""
    a = mg.tensor(np.array([0.5, -1.0]), requires_grad=True)
    u = a.exp()
    return (u + u * a).sum(), a


def test_a_shared_node_appears_once_and_sits_above_its_furthest_consumer():
    loss, a = shared_graph()
    graph = build_graph(loss, params={"a": a})
    labels = [n.label for n in graph.nodes]
    assert sorted(labels) == ["AddBackward0", "ExpBackward0", "MulBackward0", "SumBackward0", "a", "output"]
    assert len(graph.edges) == 7                              # a feeds exp and mul; exp feeds add and mul
    layer = dict(zip(labels, graph.layers()))
    assert layer == {"output": 0, "SumBackward0": 1, "AddBackward0": 2, "MulBackward0": 3, "ExpBackward0": 4,
                     "a": 5}


def test_layout_keeps_boxes_apart_and_routes_long_edges_through_every_layer():
    graph = build_graph(cnn_loss(leaves(cnn_arrays())))
    layout = layered_layout(graph)
    assert [y for _, y in layout.positions] == [float(depth) for depth in graph.layers()]
    by_layer: dict = {}
    for x, y in layout.positions:
        by_layer.setdefault(y, []).append(x)
    for xs in by_layer.values():
        xs.sort()
        assert all(b - a >= 1 - 1e-9 for a, b in zip(xs, xs[1:]))
    for edge, route in zip(graph.edges, layout.routes):
        assert route[0] == layout.positions[edge.source] and route[-1] == layout.positions[edge.target]
        top, bottom = int(route[0][1]), int(route[-1][1])
        # two points per layer it meets, straight down through the layer: (x, y + reach), (x, y - reach)
        assert len(route) == 2 * (top - bottom + 1)
        ys = [y for _, y in route]
        assert all(a > b for a, b in zip(ys, ys[1:]))
        for (x0, y0), (x1, y1) in zip(route[0::2], route[1::2]):
            assert x0 == x1 and y1 <= np.floor(y0) <= y0              # vertical across one layer
    loss, _ = shared_graph()
    shared = build_graph(loss)
    long_edges = [r for r in layered_layout(shared).routes if len(r) > 4]
    assert len(long_edges) == 2              # exp -> add skips the mul's layer, a -> mul skips exp's


def test_every_graph_node_is_an_autograd_node_or_the_output():
    loss = mlp_loss(p := leaves(mlp_arrays()))
    graph = build_graph(loss, params=p)
    assert len(graph.nodes) == 1 + len(all_nodes(loss))
    assert {n.label for n in graph.nodes if n.kind == "parameter"} == set(p)


def test_to_dot_lists_every_node_and_edge():
    loss, w, _ = known_graph()
    dot = to_dot(loss, params={"w": w}, name="loss")
    assert dot.startswith("digraph minigrad {") and dot.rstrip().endswith("}")
    node_lines = re.findall(r'^  n(\d+) \[label="([^"]*)"', dot, flags=re.M)
    assert [int(i) for i, _ in node_lines] == list(range(8))
    assert ('7', "w\\n[3, 2]") in node_lines and ('5', "MmBackward0\\n[4, 2]") in node_lines
    edges = set(re.findall(r"^  n(\d+) -> n(\d+);", dot, flags=re.M))
    assert edges == {("1", "0"), ("2", "1"), ("3", "2"), ("4", "3"), ("5", "4"), ("6", "4"), ("7", "5")}


def test_build_graph_refuses_a_tensor_without_a_graph():
    with pytest.raises(ValueError, match="does not require grad"):
        build_graph(mg.ones(3))
    with pytest.raises(TypeError):
        build_graph(np.ones(3))


def test_importing_minigrad_and_its_viz_does_not_import_matplotlib():
    code = ("import sys, minigrad, minigrad.viz, minigrad.autograd\n"
            "loss = (minigrad.ones(2, requires_grad=True) * 3).sum()\n"
            "minigrad.viz.to_dot(loss); minigrad.autograd.BackwardStepper(loss).run()\n"
            "assert 'matplotlib' not in sys.modules, 'matplotlib was imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)
