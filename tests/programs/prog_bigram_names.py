"""A character bigram model of names, counted and then learned, sampled with ``multinomial``
(the first lecture of a "language models from scratch" course, in our own words)."""

import numpy as np

WORDS = ("ada alma anna aria bea bella cara cleo dana dora eda ella elsa emma eva fay gia ida ila "
         "ina iris isla jana kai kara lea lena lia lila luna mara mia mila nia nora oda ola rosa "
         "sara tea una vera zara zoe").split()


def main(torch):
    F = torch.nn.functional  # noqa: N806 (the course's name; an import would always find PyTorch's)

    chars = sorted(set("".join(WORDS)))
    stoi = {c: i + 1 for i, c in enumerate(chars)}
    stoi["."] = 0
    itos = {i: c for c, i in stoi.items()}
    n = len(stoi)

    # count every pair of neighbours, '.' marking both ends of a name
    counts = torch.zeros((n, n), dtype=torch.int32)
    xs, ys = [], []
    for word in WORDS:
        letters = ["."] + list(word) + ["."]
        for first, second in zip(letters, letters[1:]):
            counts[stoi[first], stoi[second]] += 1
            xs.append(stoi[first])
            ys.append(stoi[second])
    probs = (counts + 1).float()  # add-one smoothing
    probs /= probs.sum(1, keepdims=True)
    xs, ys = torch.tensor(xs), torch.tensor(ys)
    count_nll = -probs[xs, ys].log().mean()

    # the same model learned: one-hot inputs times a weight matrix, softmax, gradient descent
    initial = np.random.default_rng(7).standard_normal((n, n))  # the same start on both libraries
    W = torch.tensor(initial, dtype=torch.float32, requires_grad=True)
    xenc = F.one_hot(xs, num_classes=n).float()
    losses = []
    for _ in range(60):
        logits = xenc @ W
        p = logits.exp()
        p = p / p.sum(1, keepdim=True)
        loss = -p[torch.arange(len(ys)), ys].log().mean() + 0.01 * (W ** 2).mean()
        W.grad = None
        loss.backward()
        W.data += -20 * W.grad
        losses.append(loss.item())

    # sample names from the counted model
    g = torch.Generator().manual_seed(2147483647)
    names = []
    for _ in range(20):
        out, ix = [], 0
        while True:
            ix = torch.multinomial(probs[ix], num_samples=1, replacement=True, generator=g).item()
            if ix == 0:
                break
            out.append(itos[ix])
        names.append("".join(out))
    first_letters = torch.multinomial(probs[0], num_samples=4000, replacement=True, generator=g)
    frequencies = F.one_hot(first_letters, num_classes=n).float().mean(0)
    return {"counts": counts.tolist(), "probs": probs.tolist(), "count_nll": count_nll.item(),
            "losses": losses, "names": names, "chars": chars, "first_frequencies": frequencies.tolist()}


def compare(ours, theirs):
    assert ours["losses"][-1] < ours["losses"][0] - 0.5  # learning works
    assert ours["losses"][-1] < ours["count_nll"] + 0.6  # and approaches the counted model
    assert all(set(name) <= set(ours["chars"]) for name in ours["names"])
    expected = np.array(ours["probs"][0])
    assert np.abs(np.array(ours["first_frequencies"]) - expected).max() < 0.04  # sd ≈ 0.007
    if theirs is not None:
        assert ours["counts"] == theirs["counts"]
        np.testing.assert_allclose(ours["probs"], theirs["probs"], rtol=1e-6)
        assert abs(ours["count_nll"] - theirs["count_nll"]) < 1e-5
        np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-4)
