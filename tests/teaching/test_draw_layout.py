"""draw_graph's pictures, checked in the layout's own geometry: no edge passes through a box it
does not connect, boxes do not overlap, the CNN-with-L2-penalty graph has a reasonable size; and
what the boxes say (data, grad, saved tensors), the shading of a stepper's progress, SVG output."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import BackwardStepper
from minigrad.viz import build_graph, draw_graph, graph_svg, layered_layout
from minigrad.viz.draw import COLOURS, layout_of
from minigrad.viz.graph import RAN_COLOURS

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


def cnn_with_l2_penalty():
    """The picture that came out 4385×1112 px with edges through MaxPool2d and SumBackward0."""
    mg.manual_seed(3)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 8, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 2 * 2, 3))
    images, labels = mg.randn(2, 1, 8, 8), mg.tensor([0, 2])
    penalty = sum((p ** 2).sum() for p in model.parameters())
    return F.cross_entropy(model(images), labels) + 1e-4 * penalty, dict(model.named_parameters())


def random_expression(seed: int):
    """A random graph of 3 leaves and 12 operations, some results used several times."""
    rng = np.random.default_rng(seed)
    pool = [mg.tensor(rng.normal(size=3), requires_grad=True) for _ in range(3)]
    operations = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a.tanh(),
                  lambda a, b: (a - b).exp(), lambda a, b: a.sum() * b]
    for _ in range(12):
        a, b = (pool[int(k)] for k in rng.integers(0, len(pool), size=2))
        pool.append(operations[int(rng.integers(0, len(operations)))](a, b))
    return sum(t.sum() for t in pool[-3:])


def crosses(p: tuple, q: tuple, box: tuple, inset: float = 1e-6) -> bool:
    """Whether segment p-q passes through the inside of box (left, bottom, right, top): Liang-Barsky."""
    left, bottom, right, top = box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset
    (x0, y0), (dx, dy) = p, (q[0] - p[0], q[1] - p[1])
    low, high = 0.0, 1.0
    for step, room in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - bottom), (dy, top - y0)):
        if step == 0:
            if room < 0:
                return False
            continue
        t = room / step
        low, high = (max(low, t), high) if step < 0 else (low, min(high, t))
        if low > high:
            return False
    return True


def assert_no_edge_crosses_a_box(graph, layout) -> None:
    for edge, route in zip(graph.edges, layout.routes):
        segments = list(zip(route, route[1:]))
        for k, (p, q) in enumerate(segments):
            for node in graph.nodes:
                own = (k == 0 and node.index == edge.source) or \
                    (k == len(segments) - 1 and node.index == edge.target)
                assert own or not crosses(p, q, layout.box(node.index)), \
                    (graph.nodes[edge.source].label, graph.nodes[edge.target].label, node.label)


def assert_boxes_apart(layout) -> None:
    boxes = [layout.box(i) for i in range(len(layout.positions))]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


@pytest.mark.parametrize("values", [False, True], ids=["plain", "values"])
def test_no_edge_of_the_cnn_with_l2_penalty_crosses_a_box(values):
    loss, params = cnn_with_l2_penalty()
    stepper = BackwardStepper(loss, params=params, retain_graph=True)
    stepper.run_until("Convolution")
    graph = build_graph(loss, params, "loss", values=values, stepper=stepper)
    layout, _ = layout_of(graph, 8.0)
    assert len(graph.nodes) >= 30          # (the exact count depends on how linear and the loss are recorded)
    assert_boxes_apart(layout)
    assert_no_edge_crosses_a_box(graph, layout)


@pytest.mark.parametrize("seed", range(8))
def test_no_edge_of_a_random_graph_crosses_a_box(seed):
    graph = build_graph(random_expression(seed))
    layout, _ = layout_of(graph, 8.0)
    assert_boxes_apart(layout)
    assert_no_edge_crosses_a_box(graph, layout)


def test_the_segment_test_sees_a_crossing():
    box = (0.0, 0.0, 1.0, 1.0)
    assert crosses((-1, 0.5), (2, 0.5), box) and crosses((0.5, 2), (0.5, 0.5), box)
    assert not crosses((-1, 2), (2, 1.5), box) and not crosses((1.0, -1), (1.0, 2), box)


def test_the_cnn_with_l2_penalty_has_a_reasonable_size():
    loss, params = cnn_with_l2_penalty()
    figure = draw_graph(loss, params=params, name="loss")
    width, height = figure.get_size_inches()
    assert width <= 16 and height <= 12, (width, height)          # was 43.9 × 11.1 inches
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in figure.axes[0].texts]
    area = sum(b.width * b.height for b in boxes)
    assert area / (figure.bbox.width * figure.bbox.height) > 0.07  # not mostly empty space (0.076)
    for i, a in enumerate(boxes):
        for other in boxes[i + 1:]:
            assert not a.overlaps(other)


def micrograd_example():
    """Notebook 01: L = tanh(a·b + c)."""
    a = mg.tensor(2.0, dtype=mg.float64, requires_grad=True)
    b = mg.tensor(-3.0, dtype=mg.float64, requires_grad=True)
    c = mg.tensor(10.0, dtype=mg.float64, requires_grad=True)
    e = a * b
    return a, b, c, e, (e + c).tanh()


def test_every_box_shows_data_and_grad_like_micrograd():
    a, b, c, e, L = micrograd_example()
    stepper = BackwardStepper(L, params={"a": a, "b": b, "c": c}, retain_graph=True)
    stepper.run()
    graph = build_graph(L, {"a": a, "b": b, "c": c, "e": e}, "L", values=True, stepper=stepper)
    notes = {node.label: node.notes for node in graph.nodes}
    dtanh = 1 - L.item() ** 2
    assert notes["L"] == [f"data {L.item():.4g}", "grad 1"]
    assert notes["a"] == ["data 2", f"grad {dtanh * -3:.4g}"]
    assert notes["c"] == ["data 10", f"grad {dtanh:.4g}"]
    assert notes["MulBackward0 (e)"][:2] == ["data -6", f"grad {dtanh:.4g}"]
    assert notes["MulBackward0 (e)"][2] == "saved [] []"                   # a and b, as torchviz lists
    assert notes["TanhBackward0"][0] == "grad 1"
    figure = draw_graph(L, params={"a": a, "b": b, "c": c, "e": e}, name="L", values=True, stepper=stepper)
    assert sorted(t.get_text() for t in figure.axes[0].texts) == sorted(n.text for n in graph.nodes)


def test_the_nodes_a_stepper_has_run_are_shaded_and_the_next_outlined():
    a, b, c, _, L = micrograd_example()
    stepper = BackwardStepper(L, params={"a": a, "b": b, "c": c})
    stepper.run_until("MulBackward0")
    figure = draw_graph(L, params={"a": a, "b": b, "c": c}, name="L", stepper=stepper)
    boxes = {t.get_text().split("\n")[0]: t.get_bbox_patch() for t in figure.axes[0].texts}
    to_rgb = matplotlib.colors.to_rgba
    for label in ("L", "TanhBackward0", "AddBackward0", "c"):          # already run
        kind = {"L": "output", "c": "parameter"}.get(label, "op")
        assert boxes[label].get_facecolor() == to_rgb(RAN_COLOURS[kind]), label
    for label, kind in (("MulBackward0", "op"), ("a", "parameter"), ("b", "parameter")):
        assert boxes[label].get_facecolor() == to_rgb(COLOURS[kind]), label
    red = [label for label, box in boxes.items() if box.get_edgecolor()[0] > 0.8]
    assert red == ["MulBackward0"]


def test_graph_svg_with_matplotlib():
    _, _, _, _, L = micrograd_example()
    svg = graph_svg(L, engine="matplotlib", values=True)
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and svg._repr_svg_() == svg
    with pytest.raises(ValueError, match="engine"):
        graph_svg(L, engine="png")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graph_svg_with_graphviz():
    a, b, c, _, L = micrograd_example()
    stepper = BackwardStepper(L, params={"a": a, "b": b, "c": c})
    stepper.run_until("MulBackward0")
    svg = graph_svg(L, params={"a": a, "b": b, "c": c}, name="L", stepper=stepper, engine="graphviz")
    assert "<svg" in svg and svg.count('class="node"') == 7 and svg.count('class="edge"') == 6
    assert "MulBackward0" in svg and RAN_COLOURS["op"] in svg and "#d62828" in svg


def test_tall_boxes_still_leave_room_for_edges_between_layers():
    graph = build_graph(random_expression(0))
    layout = layered_layout(graph, sizes=[(1.0, 0.98)] * len(graph.nodes))
    for route in layout.routes:
        ys = [y for _, y in route]
        assert all(a > b for a, b in zip(ys, ys[1:]))
    assert_boxes_apart(layout)
    assert_no_edge_crosses_a_box(graph, layout)
