"""Backpropagation by hand through a small MLP with batch normalisation, each step checked
against autograd's (``retain_grad`` on every intermediate, ``torch.allclose``), the embedding
gradient gathered with ``index_add_``. Weights and data come from NumPy: both libraries
compute the same numbers, and each library's manual gradients match its own autograd."""

import numpy as np


def main(torch):
    F = torch.nn.functional  # noqa: N806 (the course's name)
    rng = np.random.default_rng(9)
    vocab, block, dim, hidden, n = 11, 3, 4, 16, 24

    def param(*shape, scale=1.0):
        return torch.tensor(rng.standard_normal(shape) * scale, dtype=torch.float32, requires_grad=True)

    C = param(vocab, dim)
    W1, b1 = param(block * dim, hidden, scale=0.3), param(hidden, scale=0.1)
    W2, b2 = param(hidden, vocab, scale=0.1), param(vocab, scale=0.1)
    gain, shift = param(1, hidden, scale=0.1) + 1.0, param(1, hidden, scale=0.1)
    gain.retain_grad()
    shift.retain_grad()
    Xb = torch.tensor(rng.integers(0, vocab, (n, block)))
    Yb = torch.tensor(rng.integers(0, vocab, n))

    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hprebn = embcat @ W1 + b1
    mean = hprebn.sum(0, keepdim=True) / n
    diff = hprebn - mean
    var = (diff ** 2).sum(0, keepdim=True) / (n - 1)
    var_inv = (var + 1e-5) ** -0.5
    raw = diff * var_inv
    h = torch.tanh(gain * raw + shift)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Yb)
    for t in (logits, h, raw, var_inv, var, diff, hprebn, embcat, emb):
        t.retain_grad()
    loss.backward()

    # the backward pass, written out
    dlogits = F.softmax(logits, 1)
    dlogits[range(n), Yb] -= 1
    dlogits /= n
    dh = dlogits @ W2.T
    dpre = (1.0 - h ** 2) * dh
    dgain = (raw * dpre).sum(0, keepdim=True)
    draw = gain * dpre
    dvar_inv = (diff * draw).sum(0, keepdim=True)
    dvar = -0.5 * (var + 1e-5) ** -1.5 * dvar_inv
    ddiff = var_inv * draw + 2 * diff * torch.ones_like(diff) * dvar / (n - 1)
    dhprebn = ddiff.clone() - ddiff.sum(0) / n
    dembcat = dhprebn @ W1.T
    demb = dembcat.view(emb.shape)
    dC = torch.zeros_like(C)
    dC.index_add_(0, Xb.view(-1), demb.view(-1, dim))
    logit_max = logits.max(1, keepdim=True).values
    picked = F.one_hot(logits.max(1).indices, num_classes=vocab)

    def agree(manual, t):
        return bool(torch.allclose(manual, t.grad, rtol=1e-4, atol=1e-6))

    pairs = {"logits": (dlogits, logits), "h": (dh, h), "gain": (dgain, gain), "raw": (draw, raw),
             "var": (dvar, var), "diff": (ddiff, diff), "hprebn": (dhprebn, hprebn), "emb": (demb, emb),
             "C": (dC, C)}
    checks = {name: agree(manual, t) for name, (manual, t) in pairs.items()}
    return {"loss": loss.item(), "checks": checks, "dC": dC.tolist(),
            "max_diff": (dC - C.grad).abs().max().item(), "picked_is_max": bool(
                ((logits * picked).sum(1, keepdim=True) == logit_max).all())}


def compare(ours, theirs):
    assert all(ours["checks"].values()), ours["checks"]
    assert ours["max_diff"] < 1e-5 and ours["picked_is_max"]
    if theirs is not None:
        assert abs(ours["loss"] - theirs["loss"]) < 1e-5
        np.testing.assert_allclose(ours["dC"], theirs["dC"], rtol=1e-4, atol=1e-6)
        assert ours["checks"] == theirs["checks"]
