"""A character-level MLP language model: a learned embedding table, the context's vectors
concatenated, a tanh layer, cross-entropy, minibatches drawn with ``randint(generator=)``.
The weights start from the same NumPy numbers on both libraries; batches are chosen by NumPy
too, so the two runs train identically."""

import numpy as np

TEXT = "the cat sat on the mat and the dog sat on the log while the cat ate a date"


def main(torch):
    nn, F = torch.nn, torch.nn.functional  # noqa: N806 (the course's names)
    chars = sorted(set(TEXT))
    stoi = {c: i for i, c in enumerate(chars)}
    block = 3
    ids = [stoi[c] for c in TEXT]
    X = torch.tensor([ids[i:i + block] for i in range(len(ids) - block)])
    Y = torch.tensor(ids[block:])

    class CharMLP(nn.Module):
        def __init__(self, vocab, dim, hidden):
            super().__init__()
            self.embed = nn.Embedding(vocab, dim)
            self.hidden = nn.Linear(block * dim, hidden)
            self.out = nn.Linear(hidden, vocab)

        def forward(self, idx):
            emb = self.embed(idx)                       # (B, block, dim)
            h = torch.tanh(self.hidden(emb.view(emb.shape[0], -1)))
            return self.out(h)

    model = CharMLP(len(chars), 4, 32)
    rng = np.random.default_rng(11)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.3, dtype=torch.float32))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    losses = []
    for _ in range(150):
        ix = torch.tensor(rng.integers(0, X.shape[0], 16))
        loss = F.cross_entropy(model(X[ix]), Y[ix])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

    @torch.no_grad()
    def evaluate():
        model.eval()
        return F.cross_entropy(model(X), Y).item()

    g = torch.Generator().manual_seed(42)
    random_batch = torch.randint(0, X.shape[0], (8,), generator=g)
    return {"losses": losses, "full_loss": evaluate(), "embedding": model.embed.weight.tolist(),
            "random_batch_in_range": bool(((random_batch >= 0) & (random_batch < X.shape[0])).all())}


def compare(ours, theirs):
    assert np.mean(ours["losses"][-10:]) < 0.5 * np.mean(ours["losses"][:10])
    assert ours["random_batch_in_range"]
    if theirs is not None:
        np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=2e-3, atol=1e-5)
        np.testing.assert_allclose(ours["full_loss"], theirs["full_loss"], rtol=2e-3)
        np.testing.assert_allclose(ours["embedding"], theirs["embedding"], rtol=2e-3, atol=1e-4)
