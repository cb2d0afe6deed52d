"""An MLP fits a curve from minibatches: ``TensorDataset``, ``DataLoader``, ``random_split``,
``nn.MSELoss``, Adam and a step schedule, ``model.train()``/``model.eval()`` and
``torch.no_grad()`` for validation — the training loop every course writes."""

import math

import numpy as np


def main(torch):
    nn = torch.nn
    rng = np.random.default_rng(8)
    x = torch.tensor(np.linspace(-math.pi, math.pi, 200)[:, None], dtype=torch.float32)
    y = torch.sin(x) + 0.05 * torch.tensor(rng.standard_normal((200, 1)), dtype=torch.float32)
    dataset = torch.utils.data.TensorDataset(x, y)
    train_set, valid_set = torch.utils.data.random_split(dataset, [160, 40],
                                                         generator=torch.Generator().manual_seed(0))
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=32, shuffle=True,
                                               generator=torch.Generator().manual_seed(1))
    valid_loader = torch.utils.data.DataLoader(valid_set, batch_size=64)

    model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 1))
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.5)
    valid_losses = []
    for _ in range(60):
        model.train()
        for xb, yb in train_loader:
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        model.eval()
        with torch.no_grad():
            total = sum(loss_fn(model(xb), yb).item() * len(xb) for xb, yb in valid_loader)
        valid_losses.append(total / len(valid_set))
    return {"valid_losses": valid_losses, "sizes": [len(train_set), len(valid_set)],
            "batches": len(train_loader), "lr": scheduler.get_last_lr()[0]}


def compare(ours, theirs):
    assert ours["sizes"] == [160, 40] and ours["batches"] == 5
    assert ours["valid_losses"][-1] < 0.02 < ours["valid_losses"][0]  # noise variance is 0.0025
    assert abs(ours["lr"] - 0.005) < 1e-12
    if theirs is not None:  # different shuffles and initial weights: the same trend, similar end
        assert theirs["valid_losses"][-1] < 0.02 and ours["lr"] == theirs["lr"]
        assert ours["batches"] == theirs["batches"]
