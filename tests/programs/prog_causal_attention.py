"""One head of masked self-attention, built up as the GPT lecture does: averaging the past with
a ``tril`` mask and ``masked_fill(-inf)``, then learned queries and keys, then sampling the
next token with ``softmax`` and ``multinomial``."""

import numpy as np


def main(torch):
    nn, F = torch.nn, torch.nn.functional  # noqa: N806 (the course's names)
    rng = np.random.default_rng(21)
    B, T, C = 2, 5, 8
    x = torch.tensor(rng.standard_normal((B, T, C)), dtype=torch.float32)

    # version 1: the mean of the past, by a masked softmax
    tril = torch.tril(torch.ones(T, T))
    wei = torch.zeros((T, T)).masked_fill(tril == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    averaged = wei @ x
    by_loop = torch.stack([torch.stack([x[b, :t + 1].mean(0) for t in range(T)]) for b in range(B)])

    # version 2: a learned head
    class Head(nn.Module):
        def __init__(self, size):
            super().__init__()
            self.key = nn.Linear(C, size, bias=False)
            self.query = nn.Linear(C, size, bias=False)
            self.value = nn.Linear(C, size, bias=False)
            self.register_buffer("tril", torch.tril(torch.ones(T, T)))

        def forward(self, x):
            _, t, _ = x.shape
            k, q = self.key(x), self.query(x)
            scores = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
            scores = scores.masked_fill(self.tril[:t, :t] == 0, float("-inf"))
            return F.softmax(scores, dim=-1) @ self.value(x)

    head = Head(4)
    with torch.no_grad():
        for p in head.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
    out = head(x)
    out.sum().backward()
    fused = F.scaled_dot_product_attention(head.query(x), head.key(x), head.value(x), is_causal=True)

    # sampling: the last position's scores as a distribution over 6 tokens
    to_vocab = torch.tensor(rng.standard_normal((4, 6)), dtype=torch.float32)
    logits = (out @ to_vocab)[:, -1, :]
    probs = F.softmax(logits, dim=-1)
    g = torch.Generator().manual_seed(1337)
    idx_next = torch.multinomial(probs, num_samples=1, generator=g)
    many = torch.multinomial(probs, num_samples=3000, replacement=True, generator=g)
    frequencies = F.one_hot(many, num_classes=6).float().mean(1)
    return {"averaged": averaged.tolist(), "by_loop": by_loop.tolist(), "out": out.tolist(),
            "fused": fused.tolist(), "key_grad": head.key.weight.grad.tolist(),
            "buffers": [name for name, _ in head.named_buffers()], "probs": probs.tolist(),
            "idx_next_shape": list(idx_next.shape), "frequencies": frequencies.tolist()}


def compare(ours, theirs):
    np.testing.assert_allclose(ours["averaged"], ours["by_loop"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours["fused"], ours["out"], rtol=1e-5, atol=1e-6)
    assert ours["buffers"] == ["tril"] and ours["idx_next_shape"] == [2, 1]
    np.testing.assert_allclose(ours["frequencies"], ours["probs"], atol=0.04)  # 3000 draws: sd ≤ 0.01
    if theirs is not None:
        for key in ("averaged", "out", "fused", "key_grad", "probs"):
            np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-4, atol=1e-6, err_msg=key)
