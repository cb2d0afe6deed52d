"""Exercise 12 — the backward engine: topological order and gradient accumulation.

``loss.backward()`` walks the graph the forward recorded. Each Tensor made by an operation
has a ``grad_fn``, a node; ``node.next_functions`` lists, for each input of that operation,
``(the input's node, output_nr)`` — the node is None for an input that needs no gradient,
and an ``AccumulateGrad`` node (its leaf tensor is ``node.variable``) for a leaf that
requires grad. ``call_backward(node, [grad])`` runs the node's backward on the gradient of
its output and returns one gradient (or None) per entry of ``next_functions``.

Write

* ``topological_order(root)``: every node reachable from ``root`` through
  ``next_functions``, ``root`` first, each node before every node it feeds into
  (a depth-first search that appends a node after all its inputs, then reversed);
* ``backward(output, grad)``: the gradient of ``output`` with respect to every leaf,
  added into ``leaf.grad`` (``None`` becomes the gradient; a second ``backward`` adds to
  it). A node runs once, after every gradient for it has arrived: sum them first — a
  tensor used twice in the forward gets two gradients.

Graphs here have one output per node (no ``split``/``unbind``).
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd.engine import call_backward
from minigrad.autograd.function import AccumulateGrad
from minigrad.tensor import Tensor


def topological_order(root: Any) -> list:
    """Every node reachable from ``root``, ``root`` first, each before the nodes it feeds."""
    order: list = []
    seen: set = set()
    raise NotImplementedError('topological order: depth-first, append a node after its inputs; reverse at the end')
    return order


def backward(output: Tensor, grad: Tensor) -> None:
    """``output``'s gradient with respect to each leaf, added into ``leaf.grad``."""
    grads: dict = {output.grad_fn: grad}    # node → the sum of the gradients that reached it
    for node in topological_order(output.grad_fn):
        if node not in grads:
            continue                          # no gradient flows through this node
        g = grads.pop(node)
        raise NotImplementedError("accumulation: a leaf adds g to .grad; another node sends its inputs' gradients on")
