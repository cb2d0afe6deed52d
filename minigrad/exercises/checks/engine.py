"""Checks of exercise 12: the student's topological order and backward pass against minigrad's own engine."""

from __future__ import annotations

from collections.abc import Callable

import numpy

from minigrad.exercises._grading import expect_close, expect_flag, leaf, running
from minigrad.exercises.checks._common import need
from minigrad.tensor import Tensor

NAMES = ("topological_order", "backward")
# what minigrad has built in and the student writes here: a solution may not call it
# (any ``.backward`` attribute: ``loss.backward()`` would be minigrad's engine doing the exercise)
BUILTINS = ("backward", "autograd.grad", "engine.Engine", "engine.GraphTask")

# (what the graph is, how many times x is used, the function of the leaves x (4, 3) and w (3,))
GRAPHS: list[tuple[str, int, Callable[[Tensor, Tensor], Tensor]]] = [
    ("(x + x).sum() + w.sum()", 2, lambda x, w: (x + x).sum() + w.sum()),
    ("(x · w).sum(), w broadcast over x's rows", 1, lambda x, w: (x * w).sum()),
    ("(x · x + exp(x) · w).sum()", 3, lambda x, w: (x * x + x.exp() * w).sum()),
    ("(relu(x · w) · x).mean() · 3", 2, lambda x, w: (x * w).relu().mul(x).mean() * 3),
]


def _leaves(seed: int) -> tuple:
    rng = numpy.random.default_rng(seed)
    return rng.normal(size=(4, 3)), rng.normal(size=(3,))


def _reachable(root: object) -> list:
    """The nodes below ``root`` and, for each, the nodes it feeds (the grader's own walk)."""
    found, stack = {root: None}, [root]
    while stack:
        for child, _ in stack.pop().next_functions:   # type: ignore[attr-defined]
            if child is not None and child not in found:
                found[child] = None
                stack.append(child)
    return list(found)


def check_order(ns: dict, quick: bool) -> None:
    order_of = need(ns, "topological_order")
    x_array, w_array = _leaves(60)
    for text, _, function in GRAPHS:
        root = function(leaf(x_array), leaf(w_array)).grad_fn
        with running(f"the graph of {text}"):
            order = list(order_of(root))
        nodes = _reachable(root)
        position = {node: index for index, node in enumerate(order)}
        complete = len(order) == len(nodes) == len(position) and set(order) == set(nodes)
        expect_flag("every node once", complete,
                    f"topological_order gives {len(order)} nodes ({len(position)} different) for the graph "
                    f"of {text}, which has {len(nodes)}: every node reachable through next_functions, once")
        expect_flag("the root first", order[:1] == [root],
                    f"topological_order does not start at the root for the graph of {text}")
        before = all(position[node] < position[child] for node in nodes for child, _ in node.next_functions
                     if child is not None)
        expect_flag("each node before its inputs", before,
                    f"in topological_order for the graph of {text}, a node comes after one of its inputs: "
                    f"each node must come before every node it feeds from (reverse the depth-first order)")


def _compare(ns: dict, seed: int, calls: int) -> None:
    backward = need(ns, "backward")
    x_array, w_array = _leaves(seed)
    for text, uses, function in GRAPHS:
        x, w = leaf(x_array), leaf(w_array)
        reference_x, reference_w = leaf(x_array), leaf(w_array)
        for _ in range(calls):
            with running(f"the graph of {text}" + (", called twice" if calls > 1 else "")):
                backward(function(x, w), Tensor(numpy.asarray(1.0)))
            function(reference_x, reference_w).backward()
        config = f"the graph of {text}" + (", backward called twice" if calls > 1 else "")
        factors = {"the number of backward calls": calls} if calls > 1 else {"the number of uses of x": uses}
        expect_close("x.grad", x.grad, reference_x.grad, config, of="x (4, 3)", factors=factors)
        expect_close("w.grad", w.grad, reference_w.grad, config, of="w (3,)", factors=factors)


def check_gradients(ns: dict, quick: bool) -> None:
    _compare(ns, 61, 1)


def check_accumulation(ns: dict, quick: bool) -> None:
    _compare(ns, 62, 2)


PARTS = [("topological order", 3, check_order),
         ("gradients, summed where a tensor is reused", 5, check_gradients),
         ("accumulating into .grad", 2, check_accumulation)]
