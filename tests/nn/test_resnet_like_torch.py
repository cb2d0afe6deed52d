"""A small ResNet (BatchNorm, residual `+=`, strided and 1x1 shortcut convs, adaptive pooling,
LayerNorm, GELU) trained by SGD with Nesterov momentum under OneCycleLR and label smoothing:
step for step the same losses, parameters and running statistics as PyTorch, in float64."""

import numpy
import pytest
from _torch import require_torch

import minigrad as mg


def _resnet(lib):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self, c_in, c_out, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(c_out)
            self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(c_out)
            self.shortcut = nn.Sequential()
            if stride != 1 or c_in != c_out:
                self.shortcut = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False),
                                              nn.BatchNorm2d(c_out))

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += self.shortcut(x)
            return F.relu(out)

    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
        Block(8, 8, 1), Block(8, 16, 2), Block(16, 16, 1),
        nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 10),
    ).double()


@pytest.mark.parametrize("algorithm", ["im2col", "rot180"])
def test_a_small_resnet_trains_step_for_step_as_in_torch(algorithm):
    torch = require_torch()
    torch.manual_seed(0)
    theirs, ours = _resnet(torch), _resnet(mg)
    ours.load_state_dict({k: mg.tensor(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()})
    optimizers = [lib.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4, nesterov=True)
                  for lib, net in ((torch, theirs), (mg, ours))]
    schedules = [lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=6)
                 for lib, opt in zip((torch, mg), optimizers)]
    gen = numpy.random.default_rng(0)
    with mg.nn.conv_algorithm(algorithm):
        for _ in range(5):
            x, y = gen.standard_normal((4, 3, 15, 15)), gen.integers(0, 10, 4)
            losses = []
            for lib, net, opt, schedule in zip((torch, mg), (theirs, ours), optimizers, schedules):
                loss = lib.nn.functional.cross_entropy(net(lib.tensor(x)), lib.tensor(y), label_smoothing=0.1)
                opt.zero_grad()
                loss.backward()
                opt.step()
                schedule.step()
                losses.append(loss.item())
            assert losses[1] == pytest.approx(losses[0], rel=1e-12)
        for (name, t), m in zip(theirs.state_dict().items(), ours.state_dict().values()):
            numpy.testing.assert_allclose(m.array, t.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
        theirs.eval(), ours.eval()
        x = gen.standard_normal((2, 3, 15, 15))
        numpy.testing.assert_allclose(ours(mg.tensor(x)).array, theirs(torch.tensor(x)).detach().numpy(),
                                      rtol=1e-10, atol=1e-12)
