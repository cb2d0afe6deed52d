"""Small graphs shared by the teaching tests, built from seeded data."""

from __future__ import annotations

import numpy as np

import minigrad as mg
from minigrad.ops.conv import conv2d
from minigrad.ops.linear import linear
from minigrad.ops.pool import max_pool2d


def leaves(arrays: dict) -> dict:
    """Fresh float64 leaves that require grad, one per named array."""
    return {name: mg.tensor(array, requires_grad=True) for name, array in arrays.items()}


def mlp_arrays(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {"fc1.weight": rng.normal(size=(5, 4)), "fc1.bias": rng.normal(size=5),
            "fc2.weight": rng.normal(size=(3, 5)), "fc2.bias": rng.normal(size=3)}


def mlp_loss(p: dict, seed: int = 1):
    """Cross-entropy of a 4-5-3 MLP (Linear, ReLU, Linear) on a batch of 6."""
    rng = np.random.default_rng(seed)
    x = mg.tensor(rng.normal(size=(6, 4)))
    target = mg.tensor(rng.integers(0, 3, size=6))
    h = linear(x, p["fc1.weight"], p["fc1.bias"]).relu()
    logits = linear(h, p["fc2.weight"], p["fc2.bias"])
    return -logits.log_softmax(1)[mg.arange(6), target].mean()


def cnn_arrays(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {"conv1.weight": rng.normal(size=(3, 1, 3, 3)), "conv1.bias": rng.normal(size=3),
            "conv2.weight": rng.normal(size=(4, 3, 3, 3)), "conv2.bias": rng.normal(size=4),
            "fc.weight": rng.normal(size=(2, 4)), "fc.bias": rng.normal(size=2)}


def cnn_loss(p: dict, seed: int = 1):
    """A small CNN on 2 images of 1x10x10: conv, relu, pool, conv, relu, pool, flatten, linear, MSE-like."""
    rng = np.random.default_rng(seed)
    x = mg.tensor(rng.normal(size=(2, 1, 10, 10)))
    h = max_pool2d(conv2d(x, p["conv1.weight"], p["conv1.bias"]).relu(), 2)       # (2, 3, 4, 4)
    h = max_pool2d(conv2d(h, p["conv2.weight"], p["conv2.bias"]).relu(), 2)       # (2, 4, 1, 1)
    out = linear(h.flatten(1), p["fc.weight"], p["fc.bias"])                        # (2, 2)
    return (out ** 2).mean()


def all_nodes(tensor) -> list:
    """Every backward node reachable from ``tensor`` (by walking next_functions)."""
    seen, stack = [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if any(node is s for s in seen):
            continue
        seen.append(node)
        stack.extend(child for child, _ in node.next_functions if child is not None)
    return seen
