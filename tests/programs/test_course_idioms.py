"""The calls and keywords the course survey found (docs/compatibility.md), each evaluated on
minigrad and on PyTorch and compared: same type of result, and for tensors the same shape,
dtype and values (only shape and dtype where the value is random)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _reference import reference
from _torch import require_torch

import minigrad

# Each idiom is an expression over ``m`` (the library), as course code writes it with ``torch``.
VALUES = r"""
m.zeros(5, 3, dtype=m.long)
m.tensor([5.5, 3]).new_ones(5, 3, dtype=m.double)
m.Tensor([1., 2.])
m.Tensor([[1, 2], [3, 4]]).dtype
m.Tensor(2, 3).shape
m.add(m.ones(2), m.ones(2), out=m.empty(2))
m.matmul(m.ones(2, 2), m.ones(2, 2), out=m.empty(2, 2))
m.mul(m.ones(2), 3, out=m.empty(2))
m.ones(5).add_(1)
m.ones(2, 2).to("cpu", m.double)
m.ones(2, 2).to(device="cpu", dtype=m.long)
m.arange(12.).view(3, 4)[..., -1]
m.ones(2, 2, requires_grad=True).grad_fn is None
m.eye(4, 5, requires_grad=True)
m.linspace(-math.pi, math.pi, 7, device="cpu", dtype=m.float)
m.full((), 0.3, dtype=m.float, requires_grad=True)
m.zeros((27, 27), dtype=m.int32).shape
m.arange(9.).view(3, 3).sum(1, keepdims=True)
m.arange(9.).view(3, 3).sum(axis=0)
m.arange(9.).view(3, 3).sum(axis=[0, 1])
m.arange(9.).view(3, 3).mean(axis=0)
m.arange(9.).view(3, 3).cumsum(axis=0)
m.arange(9.).view(3, 3).max(1, keepdim=True).values
m.arange(9.).view(3, 3).max(1).indices
m.arange(9.).view(3, 3).argmax(axis=1)
m.arange(9.).view(3, 3).std(0, keepdim=True)
m.arange(9.).view(3, 3).var(0, keepdim=True, unbiased=True)
m.arange(9.).view(3, 3).var(0, correction=0)
(m.arange(9.) + 1).log10()
m.arange(9.).view(3, 3).norm(2, 1, keepdim=True)
m.norm(m.arange(3.))
m.mv(m.arange(6.).view(2, 3), m.ones(3))
m.dot(m.arange(3.), m.arange(3.))
m.ones(2, 3).type(m.long)
m.ones(2, 3).type_as(m.ones(2, dtype=m.long))
m.ones(3).nelement()
m.arange(12.).view(4, 3).view(-1)
m.arange(12.).view(4, 3).view(2, -1)
m.arange(12.).view(4, 3).t().contiguous()
m.arange(12.).view(2, 6).split(2, dim=1)
m.unbind(m.arange(12.).view(4, 3), 1)
m.tril(m.ones(4, 4))
m.zeros(4, 4).masked_fill(m.tril(m.ones(4, 4)) == 0, float('-inf'))
m.nn.functional.softmax(m.zeros(4, 4).masked_fill(m.tril(m.ones(4, 4)) == 0, float('-inf')), dim=-1)
m.nn.functional.softmax(m.arange(8.).view(2, 4), 1)
m.topk(m.tensor([[1., 5., 3.], [4., 2., 6.]]), 2)
m.topk(m.tensor([[1., 5., 3.], [4., 2., 6.]]), k=1, dim=-1)
m.nn.functional.one_hot(m.tensor([0, 2]), num_classes=3).float()
m.nn.functional.one_hot(m.tensor([0, 2]))
m.nn.functional.cross_entropy(m.arange(12.).view(4, 3) / 5, m.tensor([0, 1, 2, -1]), ignore_index=-1)
m.nn.functional.cross_entropy(m.arange(12.).view(4, 3) / 5, m.tensor([0, 1, 2, 1]), reduction='none')
m.nn.functional.nll_loss(-m.arange(12.).view(4, 3), m.tensor([0, 1, 2, 1]), reduction='sum')
m.nn.functional.binary_cross_entropy(m.tensor([0.2, 0.7]), m.tensor([0., 1.]), reduction='sum')
m.nn.functional.binary_cross_entropy_with_logits(m.tensor([0.2, -0.7]), m.tensor([0., 1.]))
m.nn.functional.smooth_l1_loss(m.tensor([0.2, 3.0]), m.zeros(2))
m.nn.functional.mse_loss(m.tensor([0.2, 3.0]), m.zeros(2))
m.nn.MSELoss(reduction='sum')(m.tensor([0.2, 3.0]), m.zeros(2))
m.nn.CrossEntropyLoss(reduction='none')(m.arange(12.).view(4, 3) / 5, m.tensor([0, 1, 2, 1]))
m.nn.NLLLoss()(-m.arange(12.).view(4, 3), m.tensor([0, 1, 2, 1]))
m.nn.BCELoss()(m.tensor([0.2, 0.7]), m.tensor([0., 1.]))
m.nn.Flatten(0, 1)(m.arange(3.).view(3, 1))
m.nn.Flatten()(m.ones(2, 3, 4)).shape
m.nn.Softmax(dim=1)(m.arange(6.).view(2, 3))
m.nn.ReLU(inplace=True)(m.tensor([-1., 2.]))
m.nn.Tanh()(m.tensor([-1., 2.]))
m.nn.Sigmoid()(m.tensor([-1., 2.]))
m.nn.GELU()(m.tensor([-1., 2.]))
m.nn.Identity()(m.tensor([-1., 2.]))
m.nn.Linear(in_features=3, out_features=2).weight.shape
m.nn.Linear(3, 2, True, None, None).bias.shape
m.nn.Linear(3, 2, bias=False).bias is None
m.nn.Conv2d(1, 64, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False)(m.ones(1, 1, 28, 28)).shape
m.nn.MaxPool2d(2, 2)(m.arange(16.).view(1, 1, 4, 4))
m.nn.AvgPool2d(4)(m.arange(16.).view(1, 1, 4, 4))
m.nn.AdaptiveAvgPool2d(1)(m.arange(16.).view(1, 1, 4, 4))
m.nn.Embedding(10, 4)(m.tensor([[1, 2], [3, 4]])).shape
m.nn.LayerNorm(4)(m.arange(8.).view(2, 4))
m.nn.BatchNorm1d(4)(m.arange(8.).view(2, 4))
m.nn.BatchNorm2d(2)(m.arange(16.).view(2, 2, 2, 2))
len(m.nn.ModuleDict(dict(a=m.nn.Linear(2, 2), b=m.nn.ReLU())))
len(m.nn.ModuleList([m.nn.Linear(2, 2)] * 3))
m.nn.Sequential(m.nn.Linear(2, 2), m.nn.ReLU())[1].__class__.__name__
m.clamp(m.tensor([0.0, 0.5, 1.0]), min=1e-4, max=1.0 - 1e-4)
m.where(m.tensor([0.2, 0.7]) > 0.5, 1, 0)
m.where(m.max(m.le(m.arange(3.) / 3, 0.4), m.gt(m.arange(3.) / 3, 0.6)), m.ones(3), 0.4 * m.ones(3))
m.log(m.tensor(2.0))
m.pow(m.arange(3.), 2)
m.arange(1., 4.).unsqueeze(-1).pow(m.tensor([1, 2, 3]))
m.log1p(m.arange(3.))
m.exp(0.5 * m.arange(3.))
m.flatten(m.ones(2, 3, 4), 1).shape
m.cat([m.ones(2), m.zeros(2)], 0)
m.cat((m.ones(1, 2), m.zeros(1, 2)), dim=1)
m.stack([m.ones(2), m.zeros(2)])
m.arange(1, 11)
m.arange(0, 5, dtype=m.long, device="cpu").unsqueeze(0)
m.arange(4.0)
m.all(m.ones(3) == m.ones(3)).item()
m.allclose(m.ones(3), m.ones(3) + 1e-9)
m.equal(m.ones(3), m.ones(3))
(m.arange(3.) - m.ones(3)).abs().max().item()
m.zeros_like(m.ones(3))
m.ones_like(m.ones(3, dtype=m.long))
m.full_like(m.ones(3), 7)
m.ones(3, dtype=m.long).eq(m.tensor([1, 0, 1])).sum().item()
m.arange(3.).view(3, 1).view_as(m.ones(3))
m.arange(6.).view(2, 3).T
m.ones(3).numpy().tolist()
m.from_numpy(np.ones(5)).dtype
m.arange(6).view(2, 3).tolist()
m.tensor([1., 2.]).mean().item()
m.ones(3).requires_grad_().requires_grad
m.ones(3, requires_grad=True).detach().requires_grad
m.tensor([3., 4.]).data.norm()
m.ones(2, 3).size(0)
m.ones(2, 3).size()[1:]
m.ones(2, 3).shape[0]
m.ones(2, 3).ndim
m.ones(2, 3).dim()
m.arange(9.).view(3, 3)[range(3), m.tensor([0, 1, 2])]
m.arange(9.).view(3, 3)[[0, 1], [0, 1]]
m.arange(9.).view(3, 3)[m.arange(3) > 0]
m.arange(9.).view(3, 3)[:, None, :].shape
m.arange(9.).view(3, 3)[1:, ::2]
float(m.ones(1))
int(m.ones(1))
m.ones(2, 1).squeeze(1)
m.arange(6.).view(2, 3).transpose(-2, -1)
m.arange(6.).view(2, 3).permute(1, 0)
m.arange(6.).view(2, 3).reshape((-1, 3))
m.arange(6.).view(2, 3).expand(4, 2, 3).shape
m.arange(6.).view(2, 3).repeat(2, 1)
m.tensor([-1., 0., 2.]).sign()
m.tensor(1, dtype=m.float)
m.tensor([[1, 2], [3, 4]], dtype=m.float32, requires_grad=True).requires_grad
m.arange(4.).chunk(2)
m.ones(3).to(m.float64).dtype
m.ones(3).double().dtype
m.ones(3).long().dtype
m.ones(3).int().dtype
m.ones(3).bool().dtype
m.ones(3).half().dtype
m.argmax(m.tensor([[1., 5., 3.], [4., 2., 6.]]), dim=1)
m.max(m.tensor([[1., 5., 3.], [4., 2., 6.]]), 1)
m.max(m.tensor([[1., 5., 3.], [4., 2., 6.]]))
m.sigmoid(m.tensor([0., 2.]))
m.relu(m.tensor([-1., 2.]))
m.tanh(m.tensor([-1., 2.]))
m.tensor([-1., 2.]).tanh()
m.tensor([-1., 2.]).relu()
m.tensor([-1., 2.]).softmax(0)
m.tensor([-1., 2.]).log_softmax(dim=0)
m.ones(2).mul(3)
m.ones(2).sub_(1)
m.ones(2).div(2)
m.tensor([-1., 2.]).clamp(min=0)
m.tensor([-1., 2.]).clamp_(min=0)
m.ones(2).fill_(0.01)
m.ones(2).zero_()
m.tensor([[1., 2.], [3., 4.]]).sum(dim=0, dtype=m.float64)
m.arange(12.).view(3, 4).mean((0, 1), keepdim=True)
m.arange(12.).view(3, 4).logsumexp(1)
m.bmm(m.ones(2, 3, 4), m.ones(2, 4, 5)).shape
m.einsum('ij,jk->ik', m.arange(6.).view(2, 3), m.ones(3, 4))
m.triu(m.ones(3, 3), diagonal=1)
m.tril(m.ones(3, 3), -1)
m.nn.functional.pad(m.ones(1, 2, 3), (1, 1))
m.nn.functional.pad(m.ones(1, 2, 3), (1, 1), value=-1)
m.nn.functional.embedding(m.tensor([1]), m.arange(6.).view(3, 2))
m.nn.functional.layer_norm(m.arange(8.).view(2, 4), (4,))
m.nn.functional.dropout(m.ones(3), p=0.5, training=False)
m.nn.functional.gelu(m.tensor([-1., 2.]))
m.nn.functional.relu(m.tensor([-1., 2.]))
m.nn.functional.log_softmax(m.arange(4.), dim=0)
m.nn.functional.avg_pool2d(m.arange(16.).view(1, 1, 4, 4), 4)
m.nn.functional.max_pool2d(m.arange(16.).view(1, 1, 4, 4), (2, 2))
m.nn.functional.linear(m.ones(2, 3), m.ones(4, 3))
m.nn.functional.conv2d(m.ones(1, 1, 5, 5), m.ones(2, 1, 3, 3), m.zeros(2), padding=2)
m.is_tensor(m.ones(2))
m.numel(m.ones(2, 3))
m.get_default_dtype()
m.ones(2).grad is None
m.device("cpu").type
m.cuda.is_available()
sum(m.arange(3.))
m.ones(2, 3) @ m.ones(3)
2 ** m.arange(3.)
(m.arange(3.) + 1) ** -0.5
1 / (m.arange(3.) + 1)
(m.arange(3.) > 0).float()
[x.tolist() for x in m.arange(6.).view(2, 3)]
f"{m.tensor(0.123456).item():.4f}"
len(m.ones(3, 2))
m.arange(24.).view(2, 3, 4).var((0, 1), keepdim=True)
m.tensor([1., 2., 3., 4.]).view(-1, 2).mean(1)
(m.arange(6.).std() / (m.arange(6.) + 1).std()).log10().item()
m.arange(24.).view(2, 6, 2).view(2, 6 // 2, 2 * 2)
"""

RANDOM = r"""
m.randn_like(m.ones(2), dtype=m.float)
m.rand_like(m.ones(2, dtype=m.long), dtype=m.float)
m.randn((3, 4, 5))
m.randn((27, 27), generator=m.Generator().manual_seed(2147483647), requires_grad=True)
m.rand(3, generator=m.Generator().manual_seed(1))
m.randint(0, 10, (32,), generator=m.Generator().manual_seed(1))
m.randint(10, (3,))
m.randint(3, size=(1,))
m.randperm(10)
m.normal(0, 1, (100, 2))
m.normal(0, 0.01, size=(2, 1), requires_grad=True)
m.ones(2).normal_(0, 1)
m.ones(2).uniform_(-1, 1)
m.nn.Linear(2, 2).weight.data.normal_(mean=0.0, std=0.02)
m.nn.init.normal_(m.nn.Linear(2, 2).weight, mean=0.0, std=0.02)
m.nn.init.xavier_uniform_(m.nn.Linear(2, 2).weight)
m.nn.init.kaiming_normal_(m.nn.Linear(2, 2).weight, nonlinearity='relu')
m.nn.init.zeros_(m.nn.Linear(2, 2).bias)
m.nn.init.ones_(m.nn.LayerNorm(2).weight)
m.nn.functional.dropout(m.ones(8), p=0.5)
m.nn.Dropout(p=0.2)(m.ones(8))
m.bernoulli(m.full((4,), 0.5))
"""

# Statements from the surveyed programs, each leaving its result in ``r``; compared as printed.
STATEMENTS = [
    "a = m.ones(5); b = a.numpy(); a.add_(1); r = b.tolist()",
    "a = np.ones(5); b = m.from_numpy(a); np.add(a, 1, out=a); r = b.tolist()",
    "r = ('x', 'y', 'z')[m.tensor(1)]",
    "c = [0., 0.]; c[m.tensor(1)] += 1; r = c",
    "r = '{:+.2f} x^{}'.format(m.tensor([1.5, 2.0]).view(-1)[0], 1)",
    "r = f'{m.tensor(0.25):.4f}'",
    "r = '%.3f' % m.tensor(0.5)",
    "t = m.ones(4, 4); t[:, 1] = 0; r = t.tolist()",
    "x = m.zeros(6, dtype=m.long); ix = m.tensor([3, 4]); x[1:1+len(ix)] = ix; x[len(ix)+1:] = -1; "
    "r = x.tolist()",
    "l = m.arange(6.).view(2, 3); v, _ = m.topk(l, 2); l[l < v[:, [-1]]] = -float('Inf'); r = l.tolist()",
    "x = m.arange(6.).view(2, 3); x_ = x.clone(); x_[:, :2] *= 0.0; "
    "x_[range(2), m.tensor([2, 0])] = x.max(); r = x_.tolist()",
    "r = sum([m.tensor(1.), m.tensor(2.)]).item()",
    "r = (sum(m.tensor(float(i)) for i in range(3)) / 3).item()",
    "vec = m.zeros(3); vec[1] += 1; r = vec.view(1, -1).tolist()",
    "total = m.Tensor([0]); total += m.tensor([2.]).data; r = total.tolist()",
    "losses = m.zeros(3); losses[1] = 2.5; r = losses.mean().item()",
    "q, k, v = m.arange(24.).view(1, 2, 12).split(4, dim=2); r = [q.shape, k.shape, v.shape]",
    "r = [yi.item() for yi in m.arange(3.)]",
    "r = [int(i) for i in m.tensor([2, 0])]",
    "r = np.array(m.tensor([1, 2]).clone()).tolist()",
    "x = m.ones(3, requires_grad=True); y = x * 2\nwhile y.data.norm() < 100:\n    y = y * 2\n"
    "y.backward(m.tensor([0.1, 1.0, 0.0001])); r = x.grad.tolist()",
    "w = m.ones(4, 3) / math.sqrt(4); w.requires_grad_(); b = m.zeros(3, requires_grad=True)\n"
    "(m.ones(2, 4) @ w + b).sum().backward()\nwith m.no_grad():\n    w -= w.grad * 0.5\n    w.grad.zero_()\n"
    "r = [w.tolist(), w.grad.tolist()]",
    "x = m.arange(6.).view(2, 3); r = (x - x.exp().sum(-1).log().unsqueeze(-1)).tolist()",
    "r = m.cuda.is_available() & (m.device('cpu').index is None)",
    "model = m.nn.Sequential(m.nn.Linear(2, 3)); "
    "r = [list(p[:2].shape) for _, p in model.named_parameters()]",
    "@m.no_grad()\ndef double(x):\n    return x * 2\nr = double(m.ones(2, requires_grad=True)).requires_grad",
    "@m.inference_mode()\ndef double(x):\n    return x * 2\n"
    "r = double(m.ones(2, requires_grad=True)).requires_grad",
    "opt = m.optim.SGD(m.nn.Linear(2, 2).parameters(), lr=0.1)\n"
    "sched = m.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)\nr = []\n"
    "for _ in range(6):\n    opt.step(); sched.step(); r.append(round(sched.get_last_lr()[0], 12))",
    "opt = m.optim.Adam(m.nn.Linear(2, 2).parameters(), lr=0.1)\n"
    "sched = m.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)\nr = []\n"
    "for _ in range(6):\n    opt.step(); sched.step(); r.append(round(opt.param_groups[0]['lr'], 12))",
    "opt = m.optim.SGD(m.nn.Linear(2, 2).parameters(), lr=0.1, momentum=0.9)\n"
    "sched = m.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=8)\nr = []\n"
    "for _ in range(7):\n    opt.step(); sched.step(); r.append(round(sched.get_last_lr()[0], 10))",
    "opt = m.optim.SGD(m.nn.Linear(2, 2).parameters(), lr=0.1)\n"
    "sched = m.optim.lr_scheduler.ReduceLROnPlateau(opt, 'min', patience=1)\nr = []\n"
    "for loss in [1.0, 0.9, 0.95, 0.97, 0.99]:\n"
    "    sched.step(loss); r.append(round(opt.param_groups[0]['lr'], 12))",
    "r = (m.tensor([[1., 2.], [3., 0.]]).argmax(1) == m.tensor([1, 1])).type(m.float).sum().item()",
    "r = ['T-shirt', 'Trouser'][m.tensor([[0.1, 0.9]])[0].argmax(0)]",
    "loss = m.tensor(0.123456).item(); r = f'loss: {loss:>7f}  [{64:>5d}/{60000:>5d}]'",
    "r = str(m.nn.Sequential(m.nn.Linear(2, 3), m.nn.ReLU(), m.nn.Conv2d(1, 6, 5), m.nn.MaxPool2d(2, 2)))",
]


def _cases(block: str) -> list[str]:
    return [line for line in block.strip().splitlines() if line.strip()]


def _evaluate(expression: str, library):
    return eval(expression, {"m": library, "np": np, "math": math})  # noqa: S307 (our own table of idioms)


def _described(value, values: bool = True):
    """PyTorch's result as plain data a record can hold (``_reference``): a tensor's shape, dtype,
    requires_grad and (with ``values``) values; items of tuples and lists; a dtype's name; else the value."""
    if isinstance(value, tuple | list):
        return {"items": [_described(item, values) for item in value]}
    if hasattr(value, "detach") and hasattr(value, "requires_grad"):  # a Tensor or Parameter
        return {"tensor": [list(value.shape), str(value.dtype).split(".")[-1], bool(value.requires_grad),
                           value.detach() if values else None]}
    if type(value).__name__ == "dtype":
        return {"name": str(value).split(".")[-1]}
    return {"value": value}


def _assert_like(ours, theirs: dict, where: str) -> None:
    """``ours`` agrees with PyTorch's :func:`_described` answer."""
    if "items" in theirs:
        assert isinstance(ours, tuple | list) and len(ours) == len(theirs["items"]), where
        for a, b in zip(ours, theirs["items"]):
            _assert_like(a, b, where)
    elif "tensor" in theirs:
        shape, dtype, requires_grad, values = theirs["tensor"]
        assert isinstance(ours, minigrad.Tensor), f"{where}: {type(ours).__name__}"
        assert [list(ours.shape), str(ours.dtype).split(".")[-1], ours.requires_grad] == \
            [shape, dtype, requires_grad], where
        if values is not None:
            np.testing.assert_allclose(ours.detach().numpy(), values, rtol=1e-5, atol=1e-6, err_msg=where)
    elif "name" in theirs:
        assert str(ours).split(".")[-1] == theirs["name"], where
    elif isinstance(theirs["value"], float):
        assert ours == pytest.approx(theirs["value"], rel=1e-5), where
    else:
        assert ours == theirs["value"], f"{where}: {ours!r} != {theirs['value']!r}"


@pytest.mark.parametrize("expression", _cases(VALUES))
def test_idiom_gives_pytorchs_values(expression):
    theirs = reference(lambda torch: _described(_evaluate(expression, torch)))
    _assert_like(_evaluate(expression, minigrad), theirs, expression)


@pytest.mark.parametrize("expression", _cases(RANDOM))
def test_random_idiom_gives_pytorchs_shape_and_dtype(expression):
    theirs = reference(lambda torch: _described(_evaluate(expression, torch), values=False))
    _assert_like(_evaluate(expression, minigrad), theirs, expression)


@pytest.mark.parametrize("statements", STATEMENTS)
def test_statement_gives_what_pytorch_gives(statements):
    torch = require_torch()
    results = []
    for library in (minigrad, torch):
        namespace = {"m": library, "np": np, "math": math}
        exec(statements, namespace)  # noqa: S102 (our own table of idioms)
        results.append(str(namespace["r"]))
    assert results[0].replace("minigrad", "torch") == results[1]
