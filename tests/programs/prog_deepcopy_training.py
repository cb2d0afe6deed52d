"""Two students start from one model: ``copy.deepcopy`` it, train the copy, and the original
stays as it was; the optimiser's state is deep-copied too (``Tensor.__deepcopy__`` at work)."""

import copy

import numpy as np


def main(torch):
    nn = torch.nn
    rng = np.random.default_rng(5)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
    x = torch.tensor(rng.standard_normal((32, 3)), dtype=torch.float32)
    y = x.sum(1, keepdim=True) ** 2 / 3
    before = [p.detach().clone() for p in model.parameters()]

    twin = copy.deepcopy(model)
    optimizer = torch.optim.Adam(twin.parameters(), lr=0.05)
    losses = []
    for _ in range(40):
        loss = nn.functional.mse_loss(twin(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    saved_state = copy.deepcopy(optimizer.state_dict())

    unchanged = all(torch.equal(b, p) for b, p in zip(before, model.parameters()))
    shared = any(a is b for a, b in zip(model.parameters(), twin.parameters()))
    return {"losses": losses, "original_unchanged": unchanged, "shares_parameters": shared,
            "original_loss": nn.functional.mse_loss(model(x), y).item(),
            "state_steps": [int(s["step"]) for s in saved_state["state"].values()]}


def compare(ours, theirs):
    assert ours["original_unchanged"] and not ours["shares_parameters"]
    assert ours["losses"][-1] < 0.5 * ours["losses"][0]
    assert abs(ours["original_loss"] - ours["losses"][0]) < 1e-6  # the original still gives the first loss
    assert ours["state_steps"] and set(ours["state_steps"]) == {40}
    if theirs is not None:
        np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-4)
        assert ours["state_steps"] == theirs["state_steps"]
