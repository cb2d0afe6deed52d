"""The autograd tour: every result remembers the operation that made it (``grad_fn``), and
walking ``next_functions`` from the loss back to the leaves shows the graph; gradients land
in ``.grad`` of the leaves, accumulate, and are zeroed; ``retain_grad`` keeps an inner one.

The node names printed here are PyTorch's (``AddmmBackward0`` ...) once the autograd work of
issue 13 is merged; until then minigrad's names differ.
"""

import numpy as np


def walk(fn, depth=0, seen=None):
    """The graph below ``fn`` as (depth, name) pairs, depth first, as a student would print it."""
    seen = set() if seen is None else seen
    if fn is None or id(fn) in seen:
        return []
    seen.add(id(fn))
    lines = [(depth, type(fn).__name__)]
    for child, _ in fn.next_functions:
        lines += walk(child, depth + 1, seen)
    return lines


def main(torch):
    nn, F = torch.nn, torch.nn.functional  # noqa: N806 (the course's names)
    rng = np.random.default_rng(2)
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    out.backward()
    first = {"y": type(y.grad_fn).__name__, "z": type(z.grad_fn).__name__, "out": type(out.grad_fn).__name__,
             "x_grad": x.grad.tolist(), "leaf": [x.is_leaf, y.is_leaf], "x_grad_fn": x.grad_fn}

    layer = nn.Linear(3, 2)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(rng.standard_normal((2, 3)), dtype=torch.float32))
        layer.bias.copy_(torch.tensor(rng.standard_normal(2), dtype=torch.float32))
    inputs = torch.tensor(rng.standard_normal((4, 3)), dtype=torch.float32)
    hidden = torch.relu(layer(inputs))
    hidden.retain_grad()
    loss = F.cross_entropy(hidden, torch.tensor([0, 1, 1, 0]))
    loss.backward(retain_graph=True)
    once = layer.weight.grad.clone()
    loss.backward()
    twice = layer.weight.grad.clone()
    layer.weight.grad.zero_()
    with torch.no_grad():
        untracked = layer(inputs)
    return {**first, "graph": walk(loss.grad_fn), "once": once.tolist(), "twice": twice.tolist(),
            "hidden_grad": hidden.grad.tolist(), "zeroed": float(layer.weight.grad.abs().sum()),
            "untracked": [untracked.requires_grad, untracked.grad_fn is None]}


def compare(ours, theirs):
    np.testing.assert_allclose(ours["x_grad"], [[4.5, 4.5], [4.5, 4.5]])
    np.testing.assert_allclose(ours["twice"], 2 * np.array(ours["once"]), rtol=1e-6)
    assert ours["leaf"] == [True, False] and ours["x_grad_fn"] is None and ours["zeroed"] == 0
    assert ours["untracked"] == [False, True]
    assert ours["graph"][0][0] == 0 and max(depth for depth, _ in ours["graph"]) >= 3
    if theirs is not None:
        np.testing.assert_allclose(ours["once"], theirs["once"], rtol=1e-5)
        np.testing.assert_allclose(ours["hidden_grad"], theirs["hidden_grad"], rtol=1e-5, atol=1e-7)
        assert [ours[k] for k in ("y", "z", "out")] == [theirs[k] for k in ("y", "z", "out")]
        assert ours["graph"] == theirs["graph"]
