"""draw_graph: one box per node, one arrow per edge, nothing overlapping."""

from __future__ import annotations

import io

import numpy as np
import pytest
from teaching_graphs import all_nodes, cnn_arrays, cnn_loss, leaves

import minigrad as mg
from minigrad.viz import build_graph, draw_graph

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


def known_graph():
    """loss = Σ 2·relu(x @ w + b), x a constant (4, 3): 8 nodes, 7 edges."""
    rng = np.random.default_rng(0)
    w = mg.tensor(rng.normal(size=(3, 2)), requires_grad=True)
    b = mg.tensor(rng.normal(size=2), requires_grad=True)
    x = mg.tensor(rng.normal(size=(4, 3)))
    return ((x @ w + b).relu() * 2).sum(), w, b


def test_draw_graph_draws_one_box_per_node_and_one_arrow_per_edge():
    from matplotlib.figure import Figure
    from matplotlib.patches import ArrowStyle, FancyArrowPatch

    loss, w, b = known_graph()
    figure = draw_graph(loss, params={"w": w, "b": b}, name="loss", highlight=loss.grad_fn)
    assert isinstance(figure, Figure)
    ax = figure.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert sorted(texts) == sorted(n.text for n in build_graph(loss, {"w": w, "b": b}, "loss").nodes)
    heads = [p for p in ax.patches
             if isinstance(p, FancyArrowPatch) and isinstance(p.get_arrowstyle(), ArrowStyle.CurveFilledB)]
    assert len(heads) == 7
    red = [t.get_text() for t in ax.texts if t.get_bbox_patch().get_edgecolor()[0] > 0.8]
    assert red == ["SumBackward0\n[]"]


def test_the_small_cnn_graph_is_drawn_without_overlapping_boxes():
    p = leaves(cnn_arrays())
    loss = cnn_loss(p)
    figure = draw_graph(loss, params=p, name="loss")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=60)
    assert buffer.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"
    renderer = figure.canvas.get_renderer()
    boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in figure.axes[0].texts]
    assert len(boxes) == 1 + len(all_nodes(loss))
    for i, a in enumerate(boxes):
        for other in boxes[i + 1:]:
            assert not a.overlaps(other)
    frame = figure.bbox
    assert all(frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
               for box in boxes)


def test_draw_graph_into_given_axes():
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots()
    a = mg.tensor(np.array([0.5, -1.0]), requires_grad=True)
    u = a.exp()
    assert draw_graph((u + u * a).sum(), ax=ax) is figure
    assert len(ax.texts) == 6
