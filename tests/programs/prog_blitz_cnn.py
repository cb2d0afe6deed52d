"""The 60-minute-blitz network: two convolutions with max pooling, three linear layers, a
forward pass on a random 32×32 image, ``net.zero_grad()``, backward from a given gradient,
an MSE loss against a dummy target and one SGD step. Weights and data come from NumPy, so both
libraries compute the same numbers."""

import numpy as np


def main(torch):
    nn, F = torch.nn, torch.nn.functional  # noqa: N806 (the course's names)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = torch.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    net = Net()
    rng = np.random.default_rng(4)
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.2, 0.2, tuple(p.shape)), dtype=torch.float32))
    params = list(net.parameters())
    image = torch.tensor(rng.standard_normal((1, 1, 32, 32)), dtype=torch.float32)
    out = net(image)
    net.zero_grad()
    out.backward(torch.tensor(rng.standard_normal((1, 10)), dtype=torch.float32))
    bias_grad = net.conv1.bias.grad.clone()

    target = torch.arange(1, 11).view(1, -1).float()
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.001)
    optimizer.zero_grad()
    loss = criterion(net(image), target)
    loss.backward()
    optimizer.step()
    return {"n_params": len(params), "first_shape": list(params[0].size()), "out": out.tolist(),
            "bias_grad": bias_grad.tolist(), "loss": loss.item(),
            "loss_after": criterion(net(image), target).item(), "repr_lines": len(repr(net).splitlines())}


def compare(ours, theirs):
    assert ours["n_params"] == 10 and ours["first_shape"] == [6, 1, 5, 5]
    assert ours["loss_after"] < ours["loss"]
    if theirs is not None:
        for key in ("out", "bias_grad", "loss", "loss_after"):
            np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-4, atol=1e-6, err_msg=key)
        assert ours["repr_lines"] == theirs["repr_lines"]
