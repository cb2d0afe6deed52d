"""Pictures for learning: the computation graph, tensors as images, im2col, training curves, and
statistics of a model in training (``watch(model)``).

    from minigrad.viz import draw_graph, show_grid, show_im2col, plot_curves
    draw_graph(loss, params=dict(model.named_parameters())).savefig("graph.svg")
    draw_graph(L, params={"a": a}, values=True, stepper=stepper)   # data and grad in every box

Drawing needs matplotlib (``pip install matplotlib``, or minigrad's ``plot`` extra); it
is imported only when a picture is drawn, and ``build_graph`` / ``to_dot`` never need
it. Every drawing function returns its matplotlib Figure (created with pyplot, so a
notebook shows it; end the line with ``;`` to avoid a second copy from the returned
value, and in a script call ``fig.savefig(path)`` or ``plt.show()``).
"""

from minigrad.viz.curves import plot_curves
from minigrad.viz.draw import SVG, draw_graph, graph_svg
from minigrad.viz.graph import Graph, GraphEdge, GraphNode, build_graph, to_dot
from minigrad.viz.layout import Layout, layered_layout
from minigrad.viz.pictures import im2col_matrix, show_grid, show_im2col, show_tensor
from minigrad.viz.watch import Watch, watch

__all__ = ["draw_graph", "graph_svg", "SVG", "build_graph", "to_dot", "Graph", "GraphNode", "GraphEdge",
           "layered_layout", "Layout", "show_tensor", "show_grid", "show_im2col", "im2col_matrix",
           "plot_curves", "watch", "Watch"]
